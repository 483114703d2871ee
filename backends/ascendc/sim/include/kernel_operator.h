// CPU-emulator stand-in for CANN's kernel_operator.h: the Ascend C kernel API subset dslc emits,
// with the real names, template parameters, argument order and units (see ../README.md).
#pragma once
#include "dslc_sim/fp16.h"
#include "dslc_sim/runtime.h"
#include "dslc_sim/base.h"
#include "dslc_sim/tensor.h"
#include "dslc_sim/tpipe.h"
#include "dslc_sim/sync.h"
#include "dslc_sim/crosscore.h"
#include "dslc_sim/datacopy.h"
#include "dslc_sim/cube.h"
#include "dslc_sim/vec_common.h"
#include "dslc_sim/vec_arith.h"
#include "dslc_sim/vec_cast.h"
#include "dslc_sim/vec_cmp.h"
#include "dslc_sim/vec_reduce.h"
#include "dslc_sim/kernel_tiling.h"
#include "dslc_sim/scalar.h"
