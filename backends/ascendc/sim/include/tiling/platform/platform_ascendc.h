// platform_ascendc::PlatformAscendC (ascendc-api.md s8.2; asc-devkit
// docs/zh/api/Utils-API/平台信息获取/PlatformAscendC/). Answers from the target table.
#pragma once
#include "dslc_sim/host_types.h"
#include "platform/soc_spec.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND910_93, ASCEND310P, ASCEND310B, ASCEND950, RESERVED_VERSION };

class PlatformAscendC {
public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(const fe::PlatFormInfos* p) : p_(p) {}
    uint32_t GetCoreNumAiv() const { return p_ ? p_->aiv_cores : 0; }
    uint32_t GetCoreNumAic() const { return p_ ? p_->aic_cores : 0; }
    uint32_t GetCoreNum() const { return GetCoreNumAiv(); }
    void GetCoreMemSize(const CoreMemType memType, uint64_t& size) const {
        bool a5 = p_ && p_->npu_arch == 3510;
        switch (memType) {
            case CoreMemType::UB: size = p_ ? p_->ub_bytes : 0; break;
            case CoreMemType::L1: size = 512 * 1024; break;
            case CoreMemType::L0_A:
            case CoreMemType::L0_B: size = 64 * 1024; break;
            case CoreMemType::L0_C: size = (a5 ? 256 : 128) * 1024; break;
            case CoreMemType::L2: size = 192ull * 1024 * 1024; break;
            case CoreMemType::HBM: size = 64ull * 1024 * 1024 * 1024; break;
            default: size = 0;
        }
    }
    // The architecture (asc-devkit PlatformAscendC::GetCurNpuArch, CANN 8.5+: NpuArch of platform/soc_spec.h).
    NpuArch GetCurNpuArch() const { return p_ ? static_cast<NpuArch>(p_->npu_arch) : NpuArch::DAV_RESV; }
    SocVersion GetSocVersion() const {
        return p_ && p_->npu_arch == 3510 ? SocVersion::ASCEND950 : SocVersion::ASCEND910B;
    }
    // System workspace the library APIs need (16 MiB, as mainline ops reserve).
    uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }
    uint32_t GetVecRegLen() const { return p_ && p_->npu_arch == 3510 ? 256 : 0; }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        (void)aicCoreNum;
        (void)aivCoreNum;
        return sliceNum;
    }
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }

private:
    const fe::PlatFormInfos* p_ = nullptr;
};

}  // namespace platform_ascendc
