// Force-included into the kernel TU after the op_host tiling header: the struct GET_TILING_DATA
// declares is the class REGISTER_TILING_DATA_CLASS registered for DSLC_OP_TYPE.
#pragma once
#define DSLC_CAT2(a, b) a##b
#define DSLC_CAT(a, b) DSLC_CAT2(a, b)
using DslcDefaultTilingT = ::optiling::DSLC_CAT(DslcTiling_, DSLC_OP_TYPE);
// The kernel side of a macro-style tiling struct is a global class of the same name (the op
// compiler's generated header); here it is the host's optiling class.
using namespace ::optiling;
