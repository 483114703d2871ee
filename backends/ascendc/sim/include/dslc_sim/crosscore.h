// Mixed (AIC + AIV) kernels and cross-core synchronisation (src/crosscore.cpp has the model).
//  * `__mix__(aic, aiv)` is a bisheng keyword no public header defines; here it is empty, and the
//    build passes the kernel's ratio as DSLC_MIX_AIC / DSLC_MIX_AIV (build.py), registered below.
//  * CrossCoreSetFlag / CrossCoreWaitFlag: asc-devkit include/basic_api/kernel_operator_block_sync_intf.h,
//    docs 基础API/同步控制/核间同步/CrossCoreSetFlag(ISASI).md, CrossCoreWaitFlag(ISASI).md:
//      template <uint8_t modeId, pipe_t pipe> void CrossCoreSetFlag(uint16_t flagId)
//      template <uint8_t modeId = 0, pipe_t pipe = PIPE_S> void CrossCoreWaitFlag(uint16_t flagId)
#pragma once
#include "sync.h"

#define __mix__(aic, aiv)

#if defined(DSLC_MIX_AIC) && defined(DSLC_MIX_AIV)
namespace dslc {
static const int kernel_mix_type = ::dslc::mix_register(DSLC_MIX_AIC, DSLC_MIX_AIV);
}
#endif

namespace AscendC {

template <uint8_t modeId, pipe_t pipe> __aicore__ inline void CrossCoreSetFlag(uint16_t flagId, dslc::Loc loc = {}) {
    dslc::cross_set(modeId, pipe, flagId, loc);
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
__aicore__ inline void CrossCoreWaitFlag(uint16_t flagId, dslc::Loc loc = {}) {
    dslc::cross_wait(modeId, pipe, flagId, loc);
}

}  // namespace AscendC
