// Tiling data of the emulator benchmark: an AdamW-shaped f32 update (4 streams in, 3 out).
#ifndef SIM_ADAMW_TILING_H
#define SIM_ADAMW_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SimAdamwTilingData)
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, beta1);
TILING_DATA_FIELD_DEF(float, oneMinusBeta1);
TILING_DATA_FIELD_DEF(float, beta2);
TILING_DATA_FIELD_DEF(float, oneMinusBeta2);
TILING_DATA_FIELD_DEF(float, decay);
TILING_DATA_FIELD_DEF(float, stepScale);
TILING_DATA_FIELD_DEF(float, vScale);
TILING_DATA_FIELD_DEF(float, eps);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SimAdamw, SimAdamwTilingData)
}  // namespace optiling
#endif
