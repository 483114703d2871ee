// CANN's kernel_tiling/kernel_tiling.h: the kernel-side view of tiling data. The emulator's
// GET_TILING_DATA family lives in dslc_sim/kernel_tiling.h.
#pragma once
#include "dslc_sim/kernel_tiling.h"
