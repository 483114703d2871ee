// TPipe, TBuf and TQue/TQueBind (ascendc-api.md s3, s6 "What is automatic").
//
// TQue sync is modelled as flags: EnQue = SetFlag from the producer pipe of the source position,
// DeQue = WaitFlag on the consumer pipe; FreeTensor = SetFlag from the consumer and AllocTensor =
// WaitFlag on the producer (the reverse, write-after-read edge).
#pragma once
#include "tensor.h"

namespace AscendC {

namespace detail {
// Buffer kinds carry the TPosition so DataCopyPad can check its documented paths.
inline const char* tbuf_kind(TPosition pos) {
    switch (pos) {
        case TPosition::VECIN: return "TBuf<VECIN>";
        case TPosition::VECOUT: return "TBuf<VECOUT>";
        case TPosition::VECCALC: return "TBuf<VECCALC>";
        default: return "TBuf";
    }
}
constexpr dslc::Pipe producer_pipe(TPosition p) { return p == TPosition::VECIN ? dslc::P_MTE2 : dslc::P_V; }
constexpr dslc::Pipe consumer_pipe(TPosition p) { return p == TPosition::VECOUT ? dslc::P_MTE3 : dslc::P_V; }
constexpr int kMaxQueSlots = 8;
}  // namespace detail

class TPipe;
using TBufHandle = uint8_t*;  // kernel_tensor_base.h: a buffer of a queue, opaque to kernels

template <TPosition pos> class TBuf {
public:
    __aicore__ inline TBuf() = default;
    template <typename T> __aicore__ inline LocalTensor<T> Get(dslc::Loc loc = {}) {
        Require(loc);
        return LocalTensor<T>::Make(buf_, dslc::ub_buf_start(buf_), dslc::ub_buf_bytes(buf_) / sizeof(T));
    }
    template <typename T> __aicore__ inline LocalTensor<T> Get(uint32_t len, dslc::Loc loc = {}) {
        Require(loc);
        dslc::ub_check(buf_, dslc::ub_buf_start(buf_), uint64_t(len) * sizeof(T), false, "TBuf::Get", "length", loc);
        return LocalTensor<T>::Make(buf_, dslc::ub_buf_start(buf_), len);
    }
    template <typename T>
    __aicore__ inline LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset, dslc::Loc loc = {}) {
        Require(loc);
        uint32_t a = dslc::ub_buf_start(buf_) + bufOffset;
        dslc::ub_check(buf_, a, uint64_t(size) * sizeof(T), true, "TBuf::GetWithOffset", "sub-buffer", loc);
        return LocalTensor<T>::Make(buf_, a, size);
    }

private:
    friend class TPipe;
    void Require(dslc::Loc loc) const {
        if (buf_ < 0) dslc::fault(dslc::F_MEMORY, loc, "TBuf used before TPipe::InitBuffer");
    }
    int buf_ = -1;
};

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0> class TQueBind {
public:
    __aicore__ inline TQueBind() = default;

    template <typename T> __aicore__ inline LocalTensor<T> AllocTensor(dslc::Loc loc = {}) {
        Require(loc);
        for (int k = 0; k < num_; k++) {
            int s = (next_ + k) % num_;
            if (state_[s] != FREE) continue;
            next_ = (s + 1) % num_;
            state_[s] = ALLOCATED;
            uint32_t id = dslc::issue(detail::producer_pipe(src), "TQue::AllocTensor", loc);
            if (has_free_[s]) {
                dslc::join(detail::producer_pipe(src), free_clock_[s]);
                dslc::trace_sync(id, 2, Key(s, 1));
            }
            return LocalTensor<T>::Make(bufs_[s], dslc::ub_buf_start(bufs_[s]), len_ / sizeof(T));
        }
        dslc::fault(dslc::F_DEADLOCK, loc,
                    "TQue::AllocTensor with all %d buffer(s) of the queue in use (InitBuffer num=%d): the "
                    "hardware would wait forever for a FreeTensor",
                    num_, num_);
    }
    template <typename T> __aicore__ inline bool EnQue(const LocalTensor<T>& t, dslc::Loc loc = {}) {
        int s = SlotOf(t.buf(), "EnQue", loc);
        if (state_[s] != ALLOCATED)
            dslc::fault(dslc::F_SYNC, loc, "TQue::EnQue of a tensor that is not allocated (or already enqueued)");
        if (queued_ >= (depth > 0 ? depth : num_))
            dslc::fault(dslc::F_SYNC, loc, "TQue::EnQue exceeds the queue depth %d without a DeQue", int(depth));
        dslc::trace_sync(dslc::issue(detail::producer_pipe(src), "TQue::EnQue", loc), 1, Key(s, 0));
        enq_clock_[s] = dslc::snapshot(detail::producer_pipe(src));
        state_[s] = QUEUED;
        order_[(head_ + queued_) % detail::kMaxQueSlots] = s;
        queued_++;
        return true;
    }
    template <typename T> __aicore__ inline LocalTensor<T> DeQue(dslc::Loc loc = {}) {
        int s = DeQueSlot(loc);
        return LocalTensor<T>::Make(bufs_[s], dslc::ub_buf_start(bufs_[s]), len_ / sizeof(T));
    }
    // kernel_tpipe.h's non-template form: the same wait, the buffer as a handle (kernels discard it
    // to only order the consumer after the EnQue, as RmsNorm's bf16 gamma copy does).
    __aicore__ inline TBufHandle DeQue(dslc::Loc loc = {}) {
        return reinterpret_cast<TBufHandle>(&bufs_[DeQueSlot(loc)]);
    }
    template <typename T> __aicore__ inline void DeQue(LocalTensor<T>& tensor, dslc::Loc loc = {}) {
        tensor = DeQue<T>(loc);
    }
    template <typename T> __aicore__ inline void FreeTensor(LocalTensor<T>& t, dslc::Loc loc = {}) {
        int s = SlotOf(t.buf(), "FreeTensor", loc);
        if (state_[s] == FREE) dslc::fault(dslc::F_SYNC, loc, "TQue::FreeTensor of a tensor freed twice");
        dslc::trace_sync(dslc::issue(detail::consumer_pipe(dst), "TQue::FreeTensor", loc), 1, Key(s, 1));
        free_clock_[s] = dslc::snapshot(detail::consumer_pipe(dst));
        has_free_[s] = true;
        state_[s] = FREE;
    }
    __aicore__ inline bool VacantInQue() const { return queued_ < depth; }
    __aicore__ inline bool HasTensorInQue() const { return queued_ > 0; }
    __aicore__ inline int32_t GetTensorCountInQue() const { return queued_; }

private:
    friend class TPipe;
    enum SlotState : uint8_t { FREE, ALLOCATED, QUEUED, DEQUEUED };
    void Require(dslc::Loc loc) const {
        if (num_ == 0) dslc::fault(dslc::F_MEMORY, loc, "TQue used before TPipe::InitBuffer");
    }
    int DeQueSlot(dslc::Loc loc) {
        Require(loc);
        if (queued_ == 0)
            dslc::fault(dslc::F_DEADLOCK, loc, "TQue::DeQue on an empty queue: the hardware would wait forever");
        int s = order_[head_];
        head_ = (head_ + 1) % detail::kMaxQueSlots;
        queued_--;
        dslc::trace_sync(dslc::issue(detail::consumer_pipe(dst), "TQue::DeQue", loc), 2, Key(s, 0));
        dslc::join(detail::consumer_pipe(dst), enq_clock_[s]);
        state_[s] = DEQUEUED;
        return s;
    }
    // Trace key of slot s's EnQue->DeQue (dir 0) and FreeTensor->AllocTensor (dir 1) edges.
    uint32_t Key(int s, int dir) const { return (1u << 20) | ((qid_ * detail::kMaxQueSlots + s) << 1) | dir; }
    int SlotOf(int buf, const char* api, dslc::Loc loc) const {
        for (int s = 0; s < num_; s++)
            if (bufs_[s] == buf) return s;
        dslc::fault(dslc::F_SYNC, loc, "TQue::%s of a tensor that does not belong to this queue", api);
    }
    int num_ = 0;
    uint32_t len_ = 0;
    int bufs_[detail::kMaxQueSlots] = {};
    SlotState state_[detail::kMaxQueSlots] = {};
    bool has_free_[detail::kMaxQueSlots] = {};
    dslc::Clock free_clock_[detail::kMaxQueSlots] = {};
    dslc::Clock enq_clock_[detail::kMaxQueSlots] = {};
    int order_[detail::kMaxQueSlots] = {};
    int head_ = 0, queued_ = 0, next_ = 0;
    uint32_t qid_ = 0;
};

template <TPosition pos, int32_t depth, auto mask = 0> class TQue : public TQueBind<pos, pos, depth, mask> {};

class TPipe {
public:
    __aicore__ inline TPipe();
    __aicore__ inline ~TPipe();
    template <class Q> __aicore__ inline bool InitBuffer(Q& que, uint8_t num, uint32_t len, dslc::Loc loc = {}) {
        if (num == 0 || num > detail::kMaxQueSlots)
            dslc::fault(dslc::F_MEMORY, loc, "InitBuffer(que, num=%d, ...): num must be 1..%d", int(num),
                        detail::kMaxQueSlots);
        que.num_ = num;
        que.len_ = (len + 31u) / 32u * 32u;
        for (int s = 0; s < num; s++) {
            que.bufs_[s] = dslc::ub_alloc(cursor_, len, "TQue", s, loc);
            que.state_[s] = Q::FREE;
            que.has_free_[s] = false;
        }
        que.head_ = que.queued_ = que.next_ = 0;
        que.qid_ = dslc::trace_queue_id();
        return true;
    }
    template <TPosition bufPos> __aicore__ inline bool InitBuffer(TBuf<bufPos>& buf, uint32_t len, dslc::Loc loc = {}) {
        buf.buf_ = dslc::ub_alloc(cursor_, len, detail::tbuf_kind(bufPos), -1, loc);
        return true;
    }
    __aicore__ inline void Reset() { cursor_ = 0; }
    __aicore__ inline void Destroy() { cursor_ = 0; }
    template <HardEvent evt> __aicore__ inline TEventID FetchEventID() {
        return static_cast<TEventID>(dslc::fetch_event_id(static_cast<int>(evt)));
    }
    __aicore__ inline TEventID FetchEventID(HardEvent evt) {
        return static_cast<TEventID>(dslc::fetch_event_id(static_cast<int>(evt)));
    }
    template <HardEvent evt> __aicore__ inline TEventID AllocEventID(dslc::Loc loc = {}) {
        return static_cast<TEventID>(dslc::alloc_event_id(static_cast<int>(evt), loc));
    }
    template <HardEvent evt> __aicore__ inline void ReleaseEventID(TEventID id, dslc::Loc loc = {}) {
        dslc::release_event_id(static_cast<int>(evt), id, loc);
    }

private:
    uint32_t cursor_ = 0;
};

namespace detail {
inline TPipe*& current_pipe() {
    static thread_local TPipe* p = nullptr;  // per core: the cores of a __mix__ block are threads
    return p;
}
}  // namespace detail
inline TPipe::TPipe() { detail::current_pipe() = this; }
inline TPipe::~TPipe() {
    if (detail::current_pipe() == this) detail::current_pipe() = nullptr;
}
__aicore__ inline TPipe* GetTPipePtr() { return detail::current_pipe(); }

}  // namespace AscendC
