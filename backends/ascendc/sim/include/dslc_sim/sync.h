// Intra-core synchronisation: SetFlag/WaitFlag<HardEvent>, PipeBarrier<pipe_t>, TQueSync
// (ascendc-api.md s6; asc-devkit docs/zh/api/SIMD-API/基础API/同步控制/核内同步/SetFlag-WaitFlag(ISASI).md).
#pragma once
#include "tpipe.h"

namespace AscendC {

template <HardEvent event> __aicore__ inline void SetFlag(int32_t eventID, dslc::Loc loc = {}) {
    dslc::set_flag(static_cast<int>(event), eventID, loc);
}
template <HardEvent event> __aicore__ inline void WaitFlag(int32_t eventID, dslc::Loc loc = {}) {
    dslc::wait_flag(static_cast<int>(event), eventID, loc);
}
template <pipe_t pipe> __aicore__ inline void PipeBarrier(dslc::Loc loc = {}) { dslc::pipe_barrier(pipe, loc); }

// The portable pipe-pair form: TQueSync<PIPE_S, PIPE_MTE3> sync; sync.SetFlag(0); sync.WaitFlag(0).
namespace detail {
constexpr int event_of(pipe_t src, pipe_t dst) {
    return (src == PIPE_MTE2 && dst == PIPE_V)     ? int(HardEvent::MTE2_V)
           : (src == PIPE_V && dst == PIPE_MTE2)   ? int(HardEvent::V_MTE2)
           : (src == PIPE_MTE3 && dst == PIPE_V)   ? int(HardEvent::MTE3_V)
           : (src == PIPE_V && dst == PIPE_MTE3)   ? int(HardEvent::V_MTE3)
           : (src == PIPE_MTE3 && dst == PIPE_MTE2) ? int(HardEvent::MTE3_MTE2)
           : (src == PIPE_MTE2 && dst == PIPE_MTE3) ? int(HardEvent::MTE2_MTE3)
           : (src == PIPE_S && dst == PIPE_V)      ? int(HardEvent::S_V)
           : (src == PIPE_V && dst == PIPE_S)      ? int(HardEvent::V_S)
           : (src == PIPE_S && dst == PIPE_MTE2)   ? int(HardEvent::S_MTE2)
           : (src == PIPE_MTE2 && dst == PIPE_S)   ? int(HardEvent::MTE2_S)
           : (src == PIPE_S && dst == PIPE_MTE3)   ? int(HardEvent::S_MTE3)
           : (src == PIPE_MTE3 && dst == PIPE_S)   ? int(HardEvent::MTE3_S)
           : (src == PIPE_V && dst == PIPE_V)      ? int(HardEvent::V_V)
                                                   : -1;
}
}  // namespace detail

template <pipe_t src, pipe_t dst> class TQueSync {
public:
    static_assert(detail::event_of(src, dst) >= 0, "TQueSync: pipe pair not modelled by the emulator");
    __aicore__ inline void SetFlag(TEventID id, dslc::Loc loc = {}) { dslc::set_flag(detail::event_of(src, dst), id, loc); }
    __aicore__ inline void WaitFlag(TEventID id, dslc::Loc loc = {}) {
        dslc::wait_flag(detail::event_of(src, dst), id, loc);
    }
};

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
// Cache maintenance has no effect in the emulator (GM is coherent host memory).
template <typename T, auto... A> __aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}

// Blocks run one after another, so a cross-core barrier cannot be honoured (crosscore.cpp: and it
// conflicts with cross-core flags 11-14). docs 同步控制/核间同步/SyncAll.md: template <bool isAIVOnly = true>.
template <bool isAIVOnly = true> __aicore__ inline void SyncAll(dslc::Loc loc = {}) { dslc::sync_all(loc); }

}  // namespace AscendC
