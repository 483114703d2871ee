// The cube core (AIC): its memories and the MTE2 (GM -> L1), MTE1 (L1 -> L0A/L0B), M (Mmad) and
// FIX (L0C -> GM) pipes, with real fractal layouts (docs/emulator-cube.md). Sources of each
// signature (asc-devkit):
//  * LocalMemAllocator<Hardware>: include/basic_api/kernel_tensor.h, Hardware in impl/utils/common_types.h;
//  * DataCopy(L1 <- GM, Nd2NzParams): docs 矩阵计算（ISASI）/矩阵计算的搬入/DataCopy（GMToL1随路转换-ND2NZ搬运）.md;
//  * LoadData(L0A/L0B <- L1, LoadData2DParams): .../矩阵计算的搬入/LoadData_2D.md, struct in
//    include/basic_api/kernel_struct_mm.h;
//  * Mmad(dst, fm, filter, MmadParams): docs .../Mmad计算/Mmad.md, MmadParams in kernel_struct_mm.h;
//  * Fixpipe<T, U, config>(GM, L0C, FixpipeParamsV220): .../矩阵计算的搬出/Fixpipe（L0C到GM数据搬运）.md,
//    include/basic_api/kernel_struct_fixpipe.h.
// Layouts, C0 = 32 / sizeof(T) elements (one 32-B row of a fractal):
//  * L1 (after ND2NZ): column block j (C0 columns) at j * dstNzC0Stride * 32 B, its row r at r * dstNzNStride * 32 B;
//  * L0A on arch 2201 "ZZ": fractal (mb, kb) at (mb * ceil(k / C0) + kb) * 512 B, row-major 16 x C0 inside;
//    on 3510 "NZ": fractal (mb, kb) at (kb * ceil(m / 16) + mb) * 512 B;
//  * L0B "ZN": fractal (kb, nb) at (kb * ceil(n / 16) + nb) * 512 B, element (k, n) at n * C0 + k inside;
//  * L0C "NZ": element (m, n) at ((n / 16) * ceil16(m) + m) * 16 + n % 16.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "datacopy.h"

// The quantisation modes of Fixpipe (a bisheng builtin enum; the emulator's values are its own).
enum class QuantMode_t : uint8_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };

namespace dslc {
// LocalMemAllocator<Hardware::UB> on the AIC: a view of its AIVs' UB (a tensor Fixpipe may write).
constexpr int kAivUbView = -2;
const char* cube_mem_name(int hw);
uint32_t cube_ub_capacity();
uint32_t cube_mem_base(int hw);
int cube_mem_at(uint32_t addr);
int cube_alloc(int hw, uint32_t& head, uint64_t bytes, uint32_t* addr, Loc loc);
// Faults unless on the AIC, [addr, addr + bytes) is in memory `want_hw` (an AscendC::Hardware value),
// `align`-byte aligned there, and inside buffer `buf`.
void cube_check(const char* api, const char* what, int buf, uint32_t addr, uint64_t bytes, int want_hw,
                uint32_t align, Loc loc);
}  // namespace dslc

namespace AscendC {

enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

template <Hardware hard = Hardware::UB> class LocalMemAllocator {
public:
    __aicore__ inline LocalMemAllocator() = default;
    __aicore__ inline uint32_t GetCurAddr() const { return head_; }
    template <class DataType> __aicore__ inline LocalTensor<DataType> Alloc(uint32_t tileSize, dslc::Loc loc = {}) {
        uint32_t addr = 0;
        int buf = dslc::cube_alloc(int(hard), head_, uint64_t(tileSize) * sizeof(DataType), &addr, loc);
        return LocalTensor<DataType>::Make(buf, addr, tileSize);
    }
    template <class DataType, uint32_t tileSize> __aicore__ inline LocalTensor<DataType> Alloc(dslc::Loc loc = {}) {
        return Alloc<DataType>(tileSize, loc);
    }
    template <TPosition pos, class DataType>
    __aicore__ inline LocalTensor<DataType> Alloc(uint32_t tileSize, dslc::Loc loc = {}) {
        return Alloc<DataType>(tileSize, loc);
    }

private:
    uint32_t head_ = 0;
};

struct Nd2NzParams {
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;  // elements
    uint16_t srcDValue = 0;          // elements of a source row
    uint16_t dstNzC0Stride = 0;      // 32-B units
    uint16_t dstNzNStride = 0;       // 32-B units
    uint16_t dstNzMatrixStride = 0;  // elements
    __aicore__ Nd2NzParams() = default;
    __aicore__ Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
                           const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn,
                           const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
                           const uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
          srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
          dstNzMatrixStride(dstNzMatrixStrideIn) {}
};

struct LoadData2DParams {
    __aicore__ LoadData2DParams() {}
    __aicore__ LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                                const uint8_t sidIn, const uint16_t dstGapIn, const bool ifTransposeIn,
                                const uint8_t addrModeIn)
        : startIndex(startIndexIn), dstGap(dstGapIn), srcStride(srcStrideIn), ifTranspose(ifTransposeIn),
          repeatTimes(repeatTimesIn), sid(sidIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;  // 512-B fractals
    uint16_t dstGap = 0;      // 512-B fractals between one destination fractal's end and the next's start
    uint16_t srcStride = 0;   // 512-B fractals between source fractal starts
    bool ifTranspose = 0;
    uint8_t repeatTimes = 0;
    uint8_t sid = 0;
    uint8_t addrMode = 0;
};

struct MmadParams {
    __aicore__ MmadParams() {}
    __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
                          const bool cmatrixSourceIn, const bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn),
          cmatrixInitVal(cmatrixInitValIn) {}
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;  // 1: the C matrix comes from the bias table (not modelled)
    bool cmatrixInitVal = true;  // 1: C starts at 0; 0: accumulate onto L0C
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
    bool isToUB = false;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ, false};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR, false};
constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR, false};

struct FixpipeParamsV220 {
    __aicore__ FixpipeParamsV220() {}
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn, const QuantMode_t quantPreIn,
                                 const int64_t deqScalarIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                                 const uint16_t dstNdStrideIn, const uint8_t unitFlagIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), quantPre(quantPreIn),
          deqScalar(static_cast<uint64_t>(deqScalarIn)), ndNum(ndNumIn), srcNdStride(srcNdStrideIn),
          dstNdStride(dstNdStrideIn), reluEn(reluEnIn), unitFlag(unitFlagIn) {}
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;  // C0_Size units (16 * sizeof(src)): ceil16(mSize) for a whole L0C tile
    uint32_t dstStride = 0;  // ND: elements of a destination row
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

namespace detail {
constexpr int kHwUB = 1, kHwL1 = 2, kHwL0A = 3, kHwL0B = 4, kHwL0C = 5;
inline uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
template <typename T> inline float cube_in(T v) { return static_cast<float>(v); }
}  // namespace detail

// ---- MTE2: GM (ND) -> L1 (NZ) ----
// (950: template <typename T, bool enableSmallC0 = false>; the SmallC0 mode is not modelled.)
template <typename T, bool enableSmallC0 = false>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p,
                                dslc::Loc loc = {}) {
    const char* api = "DataCopy(GM->L1, Nd2NzParams)";
    if (enableSmallC0) dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: enableSmallC0 is not modelled", api);
    constexpr uint32_t C0 = 32 / sizeof(T);
    const uint32_t blocks = detail::ceil_div(p.dValue, C0);
    uint64_t span = 0;  // bytes of L1 from dst to the last written byte
    if (p.ndNum && p.nValue && p.dValue)
        span = uint64_t(p.ndNum - 1) * p.dstNzMatrixStride * sizeof(T) + uint64_t(blocks - 1) * p.dstNzC0Stride * 32 +
               uint64_t(p.nValue - 1) * p.dstNzNStride * 32 + 32;
    dslc::cube_check(api, "destination", dst.buf(), dst.addr(), span, detail::kHwL1, 32, loc);
    if (p.nValue > 16384 || p.ndNum > 4095 || p.dstNzC0Stride == 0 || p.dstNzNStride == 0 || p.srcDValue == 0)
        dslc::fault(dslc::F_MEMORY, loc,
                    "%s: parameters out of range (ndNum %u <= 4095, nValue %u <= 16384, srcDValue %u, dstNzC0Stride "
                    "%u and dstNzNStride %u >= 1)",
                    api, p.ndNum, p.nValue, p.srcDValue, p.dstNzC0Stride, p.dstNzNStride);
    uint32_t id = dslc::issue(dslc::P_MTE2, api, loc);
    if (span == 0) return;  // documented NOP
    uint8_t* l1 = dslc::ub_base();
    for (uint32_t nd = 0; nd < p.ndNum; nd++)
        for (uint32_t r = 0; r < p.nValue; r++) {
            const T* row = src.GetPhyAddr() + uint64_t(nd) * p.srcNdMatrixStride + uint64_t(r) * p.srcDValue;
            dslc::gm_access(id, row, uint64_t(p.dValue) * sizeof(T), false, api, loc);
            for (uint32_t j = 0; j < blocks; j++) {
                uint32_t a = dst.addr() + nd * p.dstNzMatrixStride * sizeof(T) + j * p.dstNzC0Stride * 32u +
                             r * p.dstNzNStride * 32u;
                uint32_t valid = std::min<uint32_t>(C0, p.dValue - j * C0);
                std::memset(l1 + a, 0, 32);  // a partial block is zero-padded to 32 B
                std::memcpy(l1 + a, row + j * C0, valid * sizeof(T));
                dslc::ub_access(id, a, 32, true);
            }
        }
    dslc::count_dma(dslc::P_MTE2, uint64_t(p.ndNum) * p.nValue * p.dValue * sizeof(T), p.ndNum * p.nValue);
}

// ---- MTE1: L1 -> L0A / L0B, 512-B fractals (arch 2201 form) ----
template <typename T>
__aicore__ inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p,
                                dslc::Loc loc = {}) {
    const char* api = "LoadData(L1->L0, LoadData2DParams)";
    const int hw = dslc::cube_mem_at(dst.addr());
    if (hw != detail::kHwL0A && hw != detail::kHwL0B)
        dslc::fault(dslc::F_MEMORY, loc, "%s: the destination must be in L0A or L0B, this tensor is in %s", api,
                    dslc::cube_mem_name(hw));
    if (p.ifTranspose && sizeof(T) != 2)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: ifTranspose needs a b16 type (LoadData_2D.md), got %s", api,
                    dslc::dtype_name(dslc::DTypeOf<T>::value));
    const uint32_t n = p.repeatTimes;
    uint64_t dspan = n ? (uint64_t(n) * (1 + p.dstGap) - p.dstGap) * 512 : 0;
    dslc::cube_check(api, "destination", dst.buf(), dst.addr(), dspan, hw, 512, loc);
    if (n) {
        uint64_t sspan = (uint64_t(p.startIndex) + uint64_t(n - 1) * p.srcStride + 1) * 512;
        dslc::cube_check(api, "source", src.buf(), src.addr(), sspan, detail::kHwL1, 32, loc);
    }
    uint32_t id = dslc::issue(dslc::P_MTE1, api, loc);
    dslc::trace_cube(id, 0, hw == detail::kHwL0A ? 1 : 2);
    uint8_t* mem = dslc::ub_base();
    for (uint32_t r = 0; r < n; r++) {
        uint32_t sa = src.addr() + (p.startIndex + r * p.srcStride) * 512u;
        uint32_t da = dst.addr() + r * (1u + p.dstGap) * 512u;
        // Whole fractals move, including rows past a tile's edge that nothing wrote (never used by Mmad).
        dslc::ub_access(id, sa, 512, false, false);
        dslc::ub_access(id, da, 512, true);
        if (!p.ifTranspose) {
            std::memmove(mem + da, mem + sa, 512);
        } else {
            uint16_t tmp[256];
            std::memcpy(tmp, mem + sa, 512);
            uint16_t* d = reinterpret_cast<uint16_t*>(mem + da);
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 16; j++) d[j * 16 + i] = tmp[i * 16 + j];
        }
    }
    dslc::count_dma(dslc::P_MTE1, uint64_t(n) * 512, n);
}

// ---- MTE1: L1 -> L0A / L0B with the fractal transpose (LoadDataWithTranspose.md; the structs in
// include/basic_api/kernel_struct_mm.h; the pseudocode examples/.../load_data_l12l0/scripts/
// load_data_with_transpose.py; impl/basic_api/dav_3510/kernel_operator_mm_impl.h for 3510) ----
struct LoadData2dTransposeParams {
    __aicore__ LoadData2dTransposeParams() {}
    __aicore__ LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                         const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                         const uint16_t dstfracGapIn, const uint8_t addrModeIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstfracGapIn), addrMode(addrModeIn) {}
    __aicore__ LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                         const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                         const uint16_t dstfracGapIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstfracGapIn) {}
    uint16_t startIndex = 0;  // square matrices (b8: 32 x 32 x 1 B; b16: 16 x 16 x 2 B)
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;   // square matrices between the sources of two iterations
    uint16_t dstGap = 0;      // 512 B from an iteration's first destination fractal's end to the next one's start
    uint16_t dstFracGap = 0;  // 512 B between the two destination fractals of one b8 iteration
    uint8_t addrMode = 0;     // 0: the source advances by srcStride, 1: goes back by it
};

// The 3510 form: startIndex and srcStride count 512-B fractals, and the b8 square's two source
// fractals may be srcFracGap fractals apart.
struct LoadData2dTransposeParamsV2 {
    __aicore__ LoadData2dTransposeParamsV2() {}
    __aicore__ LoadData2dTransposeParamsV2(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                           const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                           const uint16_t dstFracGapIn, const uint16_t srcFracGapIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn), srcFracGap(srcFracGapIn) {}
    __aicore__ LoadData2dTransposeParamsV2(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                           const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                           const uint16_t dstFracGapIn, const uint16_t srcFracGapIn,
                                           const uint8_t addrModeIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn), srcFracGap(srcFracGapIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;  // 512-B fractals
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;  // 512-B fractals
    uint16_t dstGap = 0;
    uint16_t dstFracGap = 0;
    uint16_t srcFracGap = 0;  // 512 B between the two source fractals of one b8 iteration
    uint8_t addrMode = 0;
};

namespace detail {
// Per iteration r the source starts at fractal (start +/- r * stride); b8: it and the fractal
// (1 + srcFracGap) further are one 32 x 32 row-major square S, whose transpose is split into two
// 16 x 32 fractals, fractal j (rows 16j..16j+15 of S^T) at dst + r * (1 + dstGap) * 512 +
// j * (1 + dstFracGap) * 512 B. b16: one 16 x 16 fractal, transposed (the gaps inside unused).
template <typename T>
inline void load_with_transpose(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t start,
                                uint32_t n, uint32_t stride, uint32_t dstGap, uint32_t dstFracGap, uint32_t srcFracGap,
                                bool down, bool l0b_only, dslc::Loc loc) {
    const int hw = dslc::cube_mem_at(dst.addr());
    if (hw != kHwL0B && (l0b_only || hw != kHwL0A))
        dslc::fault(dslc::F_MEMORY, loc, "%s: the destination must be in %s, this tensor is in %s", api,
                    l0b_only ? "L0B (arch 3510)" : "L0A or L0B", dslc::cube_mem_name(hw));
    if (sizeof(T) != 1 && sizeof(T) != 2)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: the emulator models b8 and b16 types, got %s", api,
                    dslc::dtype_name(dslc::DTypeOf<T>::value));
    constexpr uint32_t frac = sizeof(T) == 1 ? 2 : 1;    // 512-B fractals per square
    constexpr uint32_t edge = sizeof(T) == 1 ? 32 : 16;  // square edge, elements
    const uint32_t fgap = frac == 2 ? dstFracGap : 0, sgap = frac == 2 ? srcFracGap : 0;
    if (n && down && uint64_t(n - 1) * stride > start)
        dslc::fault(dslc::F_MEMORY, loc, "%s: addrMode 1 walks below fractal 0 (start %u, %u x stride %u)", api,
                    start, n - 1, stride);
    uint64_t dspan = n ? (uint64_t(n - 1) * (1 + dstGap) + uint64_t(frac - 1) * (1 + fgap) + 1) * 512 : 0;
    dslc::cube_check(api, "destination", dst.buf(), dst.addr(), dspan, hw, 512, loc);
    if (n) {
        uint64_t last = down ? start : uint64_t(start) + uint64_t(n - 1) * stride;
        dslc::cube_check(api, "source", src.buf(), src.addr(), (last + uint64_t(frac - 1) * (1 + sgap) + 1) * 512,
                         kHwL1, 32, loc);
    }
    uint32_t id = dslc::issue(dslc::P_MTE1, api, loc);
    dslc::trace_cube(id, 0, hw == kHwL0A ? 1 : 2);
    uint8_t* mem = dslc::ub_base();
    for (uint32_t r = 0; r < n; r++) {
        const uint32_t f = down ? start - r * stride : start + r * stride;
        T tmp[edge * edge];
        for (uint32_t h = 0; h < frac; h++) {  // whole fractals, padding rows included
            const uint32_t sa = src.addr() + (f + h * (1 + sgap)) * 512u;
            dslc::ub_access(id, sa, 512, false, false);
            std::memcpy(reinterpret_cast<uint8_t*>(tmp) + h * 512, mem + sa, 512);
        }
        for (uint32_t j = 0; j < frac; j++) {
            const uint32_t da = dst.addr() + r * (1u + dstGap) * 512u + j * (1u + fgap) * 512u;
            dslc::ub_access(id, da, 512, true);
            T* d = reinterpret_cast<T*>(mem + da);
            for (uint32_t row = 0; row < 16; row++)  // row `row` of fractal j: column 16j + row of the square
                for (uint32_t c = 0; c < edge; c++) d[row * edge + c] = tmp[c * edge + j * 16 + row];
        }
    }
    dslc::count_dma(dslc::P_MTE1, uint64_t(n) * 512 * frac, n);
}
}  // namespace detail

// b8 and b16 (b32/b4 are not modelled). Arch 3510 takes it into L0B only, as the V2 call with
// startIndex and srcStride in fractals (dav_3510 kernel_operator_mm_impl.h: x 2 for b8).
template <typename T>
__aicore__ inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                             const LoadData2dTransposeParams& p, dslc::Loc loc = {}) {
    const char* api = "LoadDataWithTranspose(L1->L0, LoadData2dTransposeParams)";
    const uint32_t unit = sizeof(T) == 1 ? 2 : 1;
    detail::load_with_transpose(api, dst, src, p.startIndex * unit, p.repeatTimes, p.srcStride * unit, p.dstGap,
                                p.dstFracGap, 0, p.addrMode != 0, dslc::npu_arch() == 3510, loc);
}

template <typename T>
__aicore__ inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                             const LoadData2dTransposeParamsV2& p, dslc::Loc loc = {}) {
    const char* api = "LoadDataWithTranspose(L1->L0B, LoadData2dTransposeParamsV2)";
    if (dslc::npu_arch() != 3510)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s is the arch 3510 form (arch %d takes LoadData2dTransposeParams)", api,
                    dslc::npu_arch());
    detail::load_with_transpose(api, dst, src, p.startIndex, p.repeatTimes, p.srcStride, p.dstGap, p.dstFracGap,
                                p.srcFracGap, p.addrMode != 0, true, loc);
}

// ---- MTE1: L1 -> L0A / L0B, the arch 3510 form (LoadData_2D_V2.md) ----
struct LoadData2DParamsV2 {
    __aicore__ LoadData2DParamsV2() {}
    __aicore__ LoadData2DParamsV2(const uint32_t mStartPositionIn, const uint32_t kStartPositionIn,
                                  const uint16_t mStepIn, const uint16_t kStepIn, const int32_t srcStrideIn,
                                  const uint16_t dstStrideIn, const bool ifTransposeIn, const uint8_t sidIn)
        : mStartPosition(mStartPositionIn), kStartPosition(kStartPositionIn), mStep(mStepIn), kStep(kStepIn),
          srcStride(srcStrideIn), dstStride(dstStrideIn), ifTranspose(ifTransposeIn), sid(sidIn) {}
    uint32_t mStartPosition = 0;  // 16 elements
    uint32_t kStartPosition = 0;  // 32 B
    uint16_t mStep = 0;           // 16 elements
    uint16_t kStep = 0;           // 32 B
    int32_t srcStride = 0;        // 512 B between the source's K-direction fractals
    uint16_t dstStride = 0;       // 512 B between the destination's K-direction fractals
    bool ifTranspose = false;
    uint8_t sid = 0;
};

// The source is NZ: fractal (mi, ki) at (ki * srcStride + mi) * 512 B. Without transpose the
// destination is NZ too, fractal (mi, ki) at (ki * dstStride + mi); with ifTranspose each
// fractal is transposed and lands at (mi * dstStride + ki) (B's ZN from its NZ copy). b16, and b8
// without ifTranspose (LoadData_2D_V2.md: a 512-byte fractal is 16 x 32 int8 in L0A, 32 x 16 in L0B;
// kStartPosition/kStep count 32 bytes, one fractal column: the same 512-byte moves as b16).
template <typename T>
__aicore__ inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParamsV2& p,
                                dslc::Loc loc = {}) {
    const char* api = "LoadData(L1->L0, LoadData2DParamsV2)";
    if (dslc::npu_arch() != 3510)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s is the arch 3510 form (use LoadData2DParams on arch %d)", api,
                    dslc::npu_arch());
    if (sizeof(T) != 2 && !(sizeof(T) == 1 && !p.ifTranspose))
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: the emulator models b16 types and b8 without ifTranspose, got %s%s",
                    api, dslc::dtype_name(dslc::DTypeOf<T>::value), p.ifTranspose ? " with ifTranspose" : "");
    const int hw = dslc::cube_mem_at(dst.addr());
    if (hw != detail::kHwL0A && hw != detail::kHwL0B)
        dslc::fault(dslc::F_MEMORY, loc, "%s: the destination must be in L0A or L0B, this tensor is in %s", api,
                    dslc::cube_mem_name(hw));
    const uint32_t ms = p.mStep, ks = p.kStep;
    auto dst_frac = [&](uint32_t i, uint32_t j) { return p.ifTranspose ? i * p.dstStride + j : j * p.dstStride + i; };
    auto src_frac = [&](uint32_t i, uint32_t j) {
        return (p.kStartPosition + j) * uint32_t(p.srcStride) + p.mStartPosition + i;
    };
    if (ms && ks) {
        dslc::cube_check(api, "destination", dst.buf(), dst.addr(), (uint64_t(dst_frac(ms - 1, ks - 1)) + 1) * 512, hw,
                         512, loc);
        dslc::cube_check(api, "source", src.buf(), src.addr(), (uint64_t(src_frac(ms - 1, ks - 1)) + 1) * 512,
                         detail::kHwL1, 32, loc);
    }
    uint32_t id = dslc::issue(dslc::P_MTE1, api, loc);
    dslc::trace_cube(id, 0, hw == detail::kHwL0A ? 1 : 2);
    uint8_t* mem = dslc::ub_base();
    for (uint32_t j = 0; j < ks; j++)
        for (uint32_t i = 0; i < ms; i++) {
            uint32_t sa = src.addr() + src_frac(i, j) * 512, da = dst.addr() + dst_frac(i, j) * 512;
            dslc::ub_access(id, sa, 512, false, false);
            dslc::ub_access(id, da, 512, true);
            uint16_t tmp[256];
            std::memcpy(tmp, mem + sa, 512);
            uint16_t* d = reinterpret_cast<uint16_t*>(mem + da);
            for (int r = 0; r < 16; r++)
                for (int c = 0; c < 16; c++) d[p.ifTranspose ? c * 16 + r : r * 16 + c] = tmp[r * 16 + c];
        }
    dslc::count_dma(dslc::P_MTE1, uint64_t(ms) * ks * 512, ms * ks);
}

// ---- M: Mmad, L0C (+)= L0A x L0B ----
// Accumulation order (docs/emulator-cube.md): per output element, the k range is taken one 16-deep
// fractal at a time in k order; inside a fractal the f32 products (exact for f16/bf16) are summed
// in k order from 0 in f32, and that partial sum is added to the f32 accumulator (L0C's value when
// cmatrixInitVal is false, else 0). i8 x i8 accumulates exactly in i32. The cube works on whole
// fractals: rows m..ceil16(m) and columns n..ceil16(n) of L0C are written too (from whatever
// L0A/L0B hold there), which a Fixpipe of an even-padded M may read.
template <typename T, typename U, typename S>
__aicore__ inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                            const MmadParams& p, dslc::Loc loc = {}) {
    const char* api = "Mmad";
    static_assert(std::is_same<U, S>::value, "Mmad: fm and filter must have the same type");
    constexpr bool f16in = std::is_same<U, half>::value || std::is_same<U, bfloat16_t>::value;
    constexpr bool i8in = std::is_same<U, int8_t>::value;
    static_assert((f16in && std::is_same<T, float>::value) || (i8in && std::is_same<T, int32_t>::value),
                  "Mmad: the emulator models half/bfloat16_t -> float and int8_t -> int32_t");
    if (p.cmatrixSource) dslc::fault(dslc::F_UNSUPPORTED, loc, "Mmad: cmatrixSource (bias table) is not modelled");
    if (p.m > 4095 || p.n > 4095 || p.k > 4095)
        dslc::fault(dslc::F_MEMORY, loc, "Mmad: m %u, n %u, k %u must be <= 4095", p.m, p.n, p.k);
    constexpr uint32_t C0 = 32 / sizeof(U);
    const uint32_t mb = detail::ceil_div(p.m, 16), nb = detail::ceil_div(p.n, 16), kb = detail::ceil_div(p.k, C0);
    dslc::cube_check(api, "fm (left matrix)", fm.buf(), fm.addr(), uint64_t(mb) * kb * 512, detail::kHwL0A, 512, loc);
    dslc::cube_check(api, "filter (right matrix)", filter.buf(), filter.addr(), uint64_t(kb) * nb * 512,
                     detail::kHwL0B, 512, loc);
    dslc::cube_check(api, "dst", dst.buf(), dst.addr(), uint64_t(mb) * 16 * nb * 16 * sizeof(T), detail::kHwL0C, 64,
                     loc);
    dslc::trace_dtype(dslc::DTypeOf<U>::value);
    uint32_t id = dslc::issue(dslc::P_M, api, loc);
    dslc::trace_cube(id, mb * nb * kb, 0);
    const bool nz_a = dslc::npu_arch() == 3510;  // L0A: NZ on 3510, ZZ on 2201
    auto a_at = [&](uint32_t m, uint32_t k) {
        uint32_t frac = nz_a ? (k / C0) * mb + m / 16 : (m / 16) * kb + k / C0;
        return fm.addr() + frac * 512 + ((m % 16) * C0 + k % C0) * sizeof(U);
    };
    auto b_at = [&](uint32_t k, uint32_t n) {
        return filter.addr() + ((k / C0) * nb + n / 16) * 512 + ((n % 16) * C0 + k % C0) * sizeof(U);
    };
    auto c_at = [&](uint32_t m, uint32_t n) {
        return dst.addr() + (((n / 16) * mb * 16 + m) * 16 + n % 16) * uint32_t(sizeof(T));
    };
    if (dslc::race_on()) {  // the rows (of 16 x C0 elements) Mmad reads and the L0C rows it writes
        for (uint32_t m = 0; m < p.m; m++)
            for (uint32_t k = 0; k < p.k; k += C0) dslc::ub_access(id, a_at(m, k), 32, false);
        for (uint32_t n = 0; n < p.n; n++)
            for (uint32_t k = 0; k < p.k; k += C0) dslc::ub_access(id, b_at(k, n), 32, false);
        for (uint32_t m = 0; m < p.m; m++)
            for (uint32_t n = 0; n < p.n; n += 16) {
                uint32_t w = std::min<uint32_t>(16, p.n - n) * sizeof(T);
                if (!p.cmatrixInitVal) dslc::ub_access(id, c_at(m, n), w, false);
                dslc::ub_access(id, c_at(m, n), w, true);
            }
    }
    uint8_t* mem = dslc::ub_base();
    if (!dslc::cube_math_on()) {  // timing only (profile cube_math=False): the same writes, of 0
        for (uint32_t n = 0; n < (p.k ? nb * 16 : p.n); n++)
            for (uint32_t m = 0; m < (p.k ? mb * 16 : p.m); m++) std::memset(mem + c_at(m, n), 0, sizeof(T));
        return;
    }
    std::vector<float> bcol(p.k);
    if (dslc::race_on())  // the padding rows and columns of the fractals
        for (uint32_t m = 0; m < mb * 16; m++)
            for (uint32_t n = 0; n < nb * 16; n += 16)
                if (m >= p.m || n + 16 > p.n) dslc::ub_access(id, c_at(m, n), 16 * sizeof(T), true);
    for (uint32_t n = 0; n < (p.k ? nb * 16 : p.n); n++) {
        for (uint32_t k = 0; k < p.k; k++) {
            U bv;
            std::memcpy(&bv, mem + b_at(k, n), sizeof(U));
            bcol[k] = detail::cube_in(bv);
        }
        for (uint32_t m = 0; m < (p.k ? mb * 16 : p.m); m++) {
            T* c = reinterpret_cast<T*>(mem + c_at(m, n));
            if constexpr (i8in) {
                int32_t acc = p.cmatrixInitVal ? 0 : *c;
                for (uint32_t k = 0; k < p.k; k++) {
                    int8_t av;
                    std::memcpy(&av, mem + a_at(m, k), 1);
                    acc = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(av * int32_t(bcol[k])));
                }
                *c = acc;
            } else {
                float acc = p.cmatrixInitVal ? 0.0f : *c;
                for (uint32_t k0 = 0; k0 < p.k; k0 += 16) {
                    float part = 0.0f;
                    for (uint32_t k = k0; k < k0 + 16 && k < p.k; k++) {
                        U av;
                        std::memcpy(&av, mem + a_at(m, k), sizeof(U));
                        part = part + detail::cube_in(av) * bcol[k];
                    }
                    acc = acc + part;
                }
                *c = acc;
            }
        }
    }
}

// ---- FIX: L0C (NZ) -> GM (ND), with the dtype conversion of quantPre ----
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
__aicore__ inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p,
                               dslc::Loc loc = {}) {
    const char* api = "Fixpipe(L0C->GM)";
    if (config.format != CO2Layout::ROW_MAJOR)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: only CFG_ROW_MAJOR (NZ -> ND) is modelled", api);
    if (p.ndNum != 1) dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: ndNum %u: only ndNum = 1 is modelled", api, p.ndNum);
    constexpr bool from_f32 = std::is_same<U, float>::value;
    static_assert(from_f32 || std::is_same<U, int32_t>::value, "Fixpipe: L0C holds float or int32_t");
    const QuantMode_t want = std::is_same<T, half>::value         ? QuantMode_t::F322F16
                             : std::is_same<T, bfloat16_t>::value ? QuantMode_t::F322BF16
                                                                  : QuantMode_t::NoQuant;
    const bool same = std::is_same<T, U>::value;
    if (!(same || (from_f32 && want != QuantMode_t::NoQuant)) || p.quantPre != want)
        dslc::fault(dslc::F_UNSUPPORTED, loc,
                    "%s: %s L0C -> %s GM with quantPre %d: modelled are float -> float and int32_t -> int32_t with "
                    "NoQuant, float -> half with F322F16, float -> bfloat16_t with F322BF16",
                    api, dslc::dtype_name(dslc::DTypeOf<U>::value), dslc::dtype_name(dslc::DTypeOf<T>::value),
                    int(p.quantPre));
    if (p.mSize && p.nSize && p.srcStride < detail::ceil_div(p.mSize, 16) * 16)
        dslc::fault(dslc::F_MEMORY, loc, "%s: srcStride %u < mSize %u rounded up to 16: column blocks would overlap",
                    api, p.srcStride, p.mSize);
    const uint32_t nb = detail::ceil_div(p.nSize, 16);
    dslc::cube_check(api, "source", src.buf(), src.addr(), uint64_t(nb) * p.srcStride * 16 * sizeof(U),
                     detail::kHwL0C, 64, loc);
    dslc::trace_dtype(dslc::DTypeOf<T>::value);
    uint32_t id = dslc::issue(dslc::P_FIX, api, loc);
    if (!p.mSize || !p.nSize) return;
    uint8_t* mem = dslc::ub_base();
    std::vector<T> row(p.nSize);
    for (uint32_t m = 0; m < p.mSize; m++) {
        for (uint32_t n = 0; n < p.nSize; n++) {
            uint32_t a = src.addr() + (((n / 16) * p.srcStride + m) * 16 + n % 16) * uint32_t(sizeof(U));
            if (n % 16 == 0) dslc::ub_access(id, a, std::min<uint32_t>(16, p.nSize - n) * sizeof(U), false);
            U v;
            std::memcpy(&v, mem + a, sizeof(U));
            if (p.reluEn && v < U(0)) v = U(0);
            row[n] = static_cast<T>(v);
        }
        T* g = dst.GetPhyAddr(uint64_t(m) * p.dstStride);
        dslc::gm_access(id, g, uint64_t(p.nSize) * sizeof(T), true, api, loc);
        std::memcpy(g, row.data(), uint64_t(p.nSize) * sizeof(T));
    }
    dslc::count_dma(dslc::P_FIX, uint64_t(p.mSize) * p.nSize * sizeof(T), p.mSize);
}

// ---- FIX, the arch 3510 forms: L0C -> GM and L0C -> UB (Fixpipe（L0C到UB数据搬运）.md,
// kernel_struct_fixpipe.h FixpipeParamsArch3510, impl/basic_api/utils/kernel_utils_mode.h) ----
enum class ClipReluMode { NOCLIP_RELU = 0, CLIP_RELU = 1 };
enum class ReluMode { NO_RELU = 0, NORMAL_RELU = 1, SCALAR_RELU = 2, VECTOR_RELU = 3 };
struct Nz2NdParams {
    __aicore__ Nz2NdParams() {}
    __aicore__ Nz2NdParams(const uint16_t ndNumIn, const uint16_t srcNdStrideIn, const uint32_t dstNdStrideIn)
        : ndNum(ndNumIn), srcNdStride(srcNdStrideIn), dstNdStride(dstNdStrideIn) {}
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint32_t dstNdStride = 0;
};
template <CO2Layout format> struct TransformParams {};
template <> struct TransformParams<CO2Layout::NZ> { using PARAMS = uint8_t; };
template <> struct TransformParams<CO2Layout::ROW_MAJOR> { using PARAMS = Nz2NdParams; };

template <CO2Layout format = CO2Layout::ROW_MAJOR> struct FixpipeParamsArch3510 {
    __aicore__ FixpipeParamsArch3510() {}
    __aicore__ FixpipeParamsArch3510(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                     const uint32_t dstStrideIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    ReluMode preReluMode = ReluMode::NO_RELU;
    ClipReluMode preClipReluMode = ClipReluMode::NOCLIP_RELU;
    uint64_t reluScalar = 0;
    uint64_t vectorRelu = 0;
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;  // C0_Size units: ceil16(mSize)
    uint32_t dstStride = 0;  // ND: elements of a destination row (V220's NZ unit was 32 B)
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    // 0: one UB (subBlockId); 1: split M, rows [0, M/2) to AIV0, the rest to AIV1; 2: split N (the
    // Tensor API names them Te::DualDstMode DUAL_DST_SPLIT_M/N, tensor_api/utils/utils.h)
    uint8_t dualDstCtl = 0;
    bool subBlockId = false;
    typename TransformParams<format>::PARAMS params;
    bool isChannelSplit = false;
};

namespace detail {
// Element (m, n) of the ND result: L0C NZ (srcStride rows per 16-column block) -> dst type, with
// quantPre's conversion and ReLU; checks the pair like Fixpipe(L0C->GM).
template <typename T, typename U> struct FixpipeRows {
    const uint8_t* mem;
    uint32_t src, stride;
    bool relu;
    T at(uint32_t m, uint32_t n) const {
        U v;
        std::memcpy(&v, mem + src + ((n / 16) * stride + m) * 16 * sizeof(U) + (n % 16) * sizeof(U), sizeof(U));
        if (relu && v < U(0)) v = U(0);
        return static_cast<T>(v);
    }
};
template <typename T, typename U>
inline void check_fixpipe(const char* api, QuantMode_t quant, uint32_t m, uint32_t n, uint32_t srcStride,
                          dslc::Loc loc) {
    constexpr bool from_f32 = std::is_same<U, float>::value;
    static_assert(from_f32 || std::is_same<U, int32_t>::value, "Fixpipe: L0C holds float or int32_t");
    const QuantMode_t want = std::is_same<T, half>::value         ? QuantMode_t::F322F16
                             : std::is_same<T, bfloat16_t>::value ? QuantMode_t::F322BF16
                                                                  : QuantMode_t::NoQuant;
    if (!(std::is_same<T, U>::value || (from_f32 && want != QuantMode_t::NoQuant)) || quant != want)
        dslc::fault(dslc::F_UNSUPPORTED, loc,
                    "%s: %s L0C -> %s with quantPre %d: modelled are float -> float and int32_t -> int32_t with "
                    "NoQuant, float -> half with F322F16, float -> bfloat16_t with F322BF16",
                    api, dslc::dtype_name(dslc::DTypeOf<U>::value), dslc::dtype_name(dslc::DTypeOf<T>::value),
                    int(quant));
    if (m && n && srcStride < ceil_div(m, 16) * 16)
        dslc::fault(dslc::F_MEMORY, loc, "%s: srcStride %u < mSize %u rounded up to 16: column blocks would overlap",
                    api, srcStride, m);
}
}  // namespace detail

template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
__aicore__ inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                               const FixpipeParamsArch3510<config.format>& p, dslc::Loc loc = {}) {
    const char* api = "Fixpipe(L0C->GM, FixpipeParamsArch3510)";
    if (config.format != CO2Layout::ROW_MAJOR || config.isToUB)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: only a ROW_MAJOR (NZ -> ND) config to GM is modelled here", api);
    if (p.params.ndNum != 1) dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: only ndNum = 1 is modelled", api);
    if (p.dualDstCtl) dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: dualDstCtl is for L0C -> UB", api);
    FixpipeParamsV220 v(p.nSize, p.mSize, p.srcStride, p.dstStride, p.reluEn, p.quantPre, 0, 1, 0, 0, p.unitFlag);
    Fixpipe<T, U, CFG_ROW_MAJOR>(dst, src, v, loc);
}

// L0C -> UB (950): single destination (the UB of AIV subBlockId) or DUAL_DST_SPLIT_M (rows
// [0, mSize/2) to AIV0, [mSize/2, mSize) to AIV1, each at dst's UB offset, dense with dstStride
// elements per row). The dual modes take no conversion or ReLU. The write lands in the AIVs' UB:
// an AIV access it is not ordered with (a CrossCore flag from the FIX pipe) is a race.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
__aicore__ inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                               const FixpipeParamsArch3510<config.format>& p, dslc::Loc loc = {}) {
    const char* api = "Fixpipe(L0C->UB)";
    if (dslc::npu_arch() != 3510)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s needs arch 3510 (this is arch %d)", api, dslc::npu_arch());
    if (!config.isToUB)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: the FixpipeConfig must set isToUB = true (Fixpipe（L0C到UB数据搬运）.md)",
                    api);
    if (config.format != CO2Layout::ROW_MAJOR)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: only ROW_MAJOR (NZ -> ND) is modelled", api);
    if (dst.buf() != dslc::kAivUbView)
        dslc::fault(dslc::F_MEMORY, loc, "%s: the destination must be a UB tensor (LocalMemAllocator<Hardware::UB> on the AIC)",
                    api);
    if (p.dualDstCtl > 1)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: dualDstCtl %u (split N) is not modelled", api, unsigned(p.dualDstCtl));
    const bool split = p.dualDstCtl == 1;
    if (split && (p.quantPre != QuantMode_t::NoQuant || p.reluEn || !std::is_same<T, U>::value))
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: DUAL_DST_SPLIT_M takes no on-the-fly conversion or ReLU", api);
    if (split && p.mSize % 2 != 0)
        dslc::fault(dslc::F_MEMORY, loc, "%s: DUAL_DST_SPLIT_M needs an even mSize, got %u (pad M: (curM + 1) & ~1)", api,
                    p.mSize);
    if (dst.addr() % 32 != 0)
        dslc::fault(dslc::F_MEMORY, loc, "%s: the UB destination 0x%x is not 32-byte aligned", api, dst.addr());
    detail::check_fixpipe<T, U>(api, p.quantPre, p.mSize, p.nSize, p.srcStride, loc);
    const uint32_t nb = detail::ceil_div(p.nSize, 16);
    dslc::cube_check(api, "source", src.buf(), src.addr(), uint64_t(nb) * p.srcStride * 16 * sizeof(U),
                     detail::kHwL0C, 64, loc);
    const uint32_t rows = split ? p.mSize / 2 : p.mSize;
    if (p.nSize && uint64_t(dst.addr()) + (uint64_t(rows - 1) * p.dstStride + p.nSize) * sizeof(T) >
                       uint64_t(dslc::cube_ub_capacity()))
        dslc::fault(dslc::F_MEMORY, loc, "%s: %u rows of %u elements (row pitch %u) at UB 0x%x run past the UB", api, rows,
                    p.nSize, p.dstStride, dst.addr());
    dslc::trace_dtype(dslc::DTypeOf<T>::value);
    uint32_t id = dslc::issue(dslc::P_FIX, api, loc);
    dslc::trace_cube(id, 0, split ? 1 : 0);
    if (!p.mSize || !p.nSize) return;
    detail::FixpipeRows<T, U> in{dslc::ub_base(), src.addr(), p.srcStride, p.reluEn};
    std::vector<T> row(p.nSize);
    for (uint32_t m = 0; m < p.mSize; m++) {
        for (uint32_t n = 0; n < p.nSize; n++) {
            if (n % 16 == 0)
                dslc::ub_access(id, src.addr() + ((n / 16) * p.srcStride + m) * 16 * uint32_t(sizeof(U)),
                                std::min<uint32_t>(16, p.nSize - n) * sizeof(U), false);
            row[n] = in.at(m, n);
        }
        const int sub = split ? (m < rows ? 0 : 1) : int(p.subBlockId);
        const int core = dslc::aiv_core(sub);
        if (core < 0)
            dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: the block has no AIV%d (__mix__(1, 2) has two)", api, sub);
        const uint32_t r = split ? m % rows : m;
        dslc::ub_access_remote(core, id, dst.addr() + r * p.dstStride * uint32_t(sizeof(T)), row.data(),
                               p.nSize * uint32_t(sizeof(T)));
    }
    dslc::count_dma(dslc::P_FIX, uint64_t(p.mSize) * p.nSize * sizeof(T), p.mSize);
}

}  // namespace AscendC
