// The include name `platform/platform_ascendc.h` (ops-nn common/inc/op_host/tiling_util.h uses it):
// the same header as tiling/platform/platform_ascendc.h.
#pragma once
#include "tiling/platform/platform_ascendc.h"
