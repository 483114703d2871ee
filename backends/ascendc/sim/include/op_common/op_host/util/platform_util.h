// opbase's platform queries (include/op_common/op_host/util/platform_util.h, namespace Ops::Base:
// GetAivCoreNum, GetAicCoreNum, GetUbSize, GetUbBlockSize, GetVRegSize, GetCacheLineSize, for a
// gert::TilingContext or TilingParseContext), implemented on the emulator's platform. The
// constants (32 B UB block, 256 B vector register, 128 B cache line) are opbase's.
#pragma once
#include <type_traits>

#include "log/log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace Ops {
namespace Base {
template <typename T> uint32_t GetAivCoreNum(const T* context) {
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return 0;
    return platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
}
template <typename T> uint32_t GetAicCoreNum(const T* context) {
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return 0;
    return platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAic();
}
template <typename T> uint32_t GetUbSize(const T* context) {
    if (context == nullptr || context->GetPlatformInfo() == nullptr) return 0;
    uint64_t ub = 0;
    platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    return static_cast<uint32_t>(ub);
}
template <typename T> uint32_t GetUbBlockSize([[maybe_unused]] const T* context) { return 32U; }
template <typename T> uint32_t GetVRegSize([[maybe_unused]] const T* context) { return 256U; }
template <typename T> uint32_t GetCacheLineSize([[maybe_unused]] const T* context) { return 128U; }
}  // namespace Base
}  // namespace Ops
