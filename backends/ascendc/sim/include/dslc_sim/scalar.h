// Scalar conversions of the AI core's scalar unit (basic_api/kernel_operator_scalar_intf.h):
// AscendC::ToFloat(bfloat16_t) and ToBfloat16(float), documented for Atlas A2 since CANN 8.0
// (ascendcopapi atlasascendc_api_07_0021/0022) and kept as wrappers of Cast in 9.x.
#pragma once
#include "fp16.h"

namespace AscendC {
__aicore__ inline float ToFloat(const bfloat16_t& bVal) { return static_cast<float>(bVal); }
__aicore__ inline bfloat16_t ToBfloat16(const float& fVal) { return bfloat16_t(fVal); }
// 9.x spellings (asc-devkit impl/basic_api/kernel_scalar_convert.h): Cast(bfloat16_t) -> float,
// Cast(float) -> bfloat16_t is a template on the destination there; the float one is enough here.
__aicore__ inline float Cast(const bfloat16_t& bVal) { return static_cast<float>(bVal); }
}  // namespace AscendC
