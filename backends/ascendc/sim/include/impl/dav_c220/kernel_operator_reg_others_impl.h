// asc-devkit's impl/basic_api/dav_c220/kernel_operator_reg_others_impl.h (v9.0.x) is an internal
// header of register-level wrappers (HsetFlag/HwaitFlag over hset_flag, GetThreadDim, GetSubBlockDim
// over the bisheng built-ins); 910B operators such as ops-nn AddLayerNorm include it by this path
// next to kernel_operator.h without calling what it adds. The emulator's kernel_operator.h provides
// the public API those wrappers sit under, so including this path resolves to that.
#pragma once
#include "kernel_operator.h"
