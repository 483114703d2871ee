// Shared machinery of MemBase vector instructions (ascendc-api.md s5): repeat parameters, the
// count form (level 2) and the mask/repeat/stride form (level 0), operand checks and records.
#pragma once
#include <cmath>
#include <type_traits>

#include "datacopy.h"

namespace AscendC {

struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    __aicore__ UnaryRepeatParams() = default;
    __aicore__ UnaryRepeatParams(const uint16_t dstBlk, const uint16_t srcBlk, const uint8_t dstRep, const uint8_t srcRep)
        : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep) {}
};

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    __aicore__ BinaryRepeatParams() = default;
    __aicore__ BinaryRepeatParams(const uint8_t dstBlk, const uint8_t src0Blk, const uint8_t src1Blk, const uint8_t dstRep,
                                  const uint8_t src0Rep, const uint8_t src1Rep)
        : dstBlkStride(dstBlk), src0BlkStride(src0Blk), src1BlkStride(src1Blk), dstRepStride(dstRep),
          src0RepStride(src0Rep), src1RepStride(src1Rep) {}
};

// ---- the vector mask registers (dslc::VecMask) ----
// asc-devkit docs/zh/api (SetVectorMask.md, SetMaskCount.md, SetMaskNorm.md, ResetMask.md; v8.5.0
// and v9.0.x): Normal mode, bit j of {maskLow, maskHigh} enables lane j of every repeat (the
// continuous form `len` enables the first len lanes); Counter mode, the mask is the element count
// of the whole instruction and the repeat count follows from it. An API called with isSetMask =
// true writes its mask argument into the register (and leaves it there); with isSetMask = false
// it uses the register and its mask argument is MASK_PLACEHOLDER. The count form (level 2) runs in
// counter mode and leaves the register in Normal mode with all lanes enabled.
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

__aicore__ inline void SetMaskCount() { dslc::vec_mask().counter = true; }
__aicore__ inline void SetMaskNorm() { dslc::vec_mask().counter = false; }
__aicore__ inline void ResetMask() {
    dslc::vec_mask().hi = ~0ull;
    dslc::vec_mask().lo = ~0ull;
}

namespace detail {
// The {hi, lo} words of the continuous form: the first `len` lanes (at most 128 per word pair).
inline void continuous_words(int64_t len, uint64_t& hi, uint64_t& lo) {
    uint64_t n = len < 0 ? 0 : static_cast<uint64_t>(len);
    lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    hi = n >= 128 ? ~0ull : (n > 64 ? ((1ull << (n - 64)) - 1) : 0);
}
}  // namespace detail

// SetVectorMask.md: template <typename T, MaskMode mode = MaskMode::NORMAL> static inline void
// SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) / SetVectorMask(int32_t len).
// `mode` says how the arguments are meant (COUNTER: maskLow / len is the element count); the
// register's mode itself is set by SetMaskCount / SetMaskNorm.
template <typename T, MaskMode mode = MaskMode::NORMAL>
__aicore__ static inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    dslc::VecMask& v = dslc::vec_mask();
    v.hi = mode == MaskMode::COUNTER ? 0 : maskHigh;
    v.lo = maskLow;
}
template <typename T, MaskMode mode = MaskMode::NORMAL> __aicore__ static inline void SetVectorMask(int32_t len) {
    dslc::VecMask& v = dslc::vec_mask();
    if (mode == MaskMode::COUNTER) {
        v.hi = 0;
        v.lo = len < 0 ? 0 : static_cast<uint64_t>(len);
    } else {
        detail::continuous_words(len, v.hi, v.lo);
    }
}

// The members of AscendCUtils (asc-devkit impl/basic_api/kernel_utils.h, v9.0.x) ops call for the
// mask registers and block sizes: SetMask<T, isSetMask>(maskHigh, maskLow) / SetMask<T, isSetMask>(len)
// (a no-op for isSetMask = false), ResetMask<isSetMask>(), SetMaskCount<T>(), SetMaskNorm<T>(),
// GetBitSize, GetC0Size (32 B), GetC0Count(dtypeSize).
class AscendCUtils {
public:
    __aicore__ static inline int32_t GetBitSize(int32_t byteSize) { return byteSize * 8; }
    __aicore__ static inline int32_t GetC0Size() { return 32; }
    __aicore__ static inline int32_t GetC0Count(const int32_t dtypeSize) { return GetC0Size() / dtypeSize; }
    template <typename T, bool isSetMask = true>
    __aicore__ static inline void SetMask(const uint64_t& maskHigh, const uint64_t& maskLow) {
        if (isSetMask) SetVectorMask<T, MaskMode::NORMAL>(maskHigh, maskLow);
    }
    template <typename T, bool isSetMask = true> __aicore__ static inline void SetMask(int32_t len) {
        if (isSetMask) SetVectorMask<T, MaskMode::NORMAL>(len);
    }
    template <bool isSetMask = true> __aicore__ static inline void ResetMask() {
        if (isSetMask) ::AscendC::ResetMask();
    }
    template <typename T> __aicore__ static inline void SetMaskCount() { ::AscendC::SetMaskCount(); }
    template <typename T> __aicore__ static inline void SetMaskNorm() { ::AscendC::SetMaskNorm(); }
};

namespace detail {

template <typename T> constexpr bool is_floatlike =
    std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value;
// Vector units compute f16/bf16 in float and round once per instruction.
template <typename T> using calc_t = typename std::conditional<is_floatlike<T>, float, T>::type;

template <typename T> inline uint32_t repeats_of(uint64_t count) {
    return static_cast<uint32_t>((count * sizeof(T) + 255) / 256);
}

// One operand of a level-0 instruction: base address and strides in 32 B blocks.
struct L0Operand {
    uint32_t addr, blk, rep, esize;
};

// The lanes a level-0 mask enables in one repeat: the continuous form (first `n` lanes) or the
// bit form (uint64_t mask[2], bit j = lane j).
struct LaneMask {
    uint64_t bits[4] = {0, 0, 0, 0};
    static LaneMask first(uint64_t n, uint32_t lanes) {
        LaneMask m;
        for (uint32_t j = 0; j < n && j < lanes && j < 256; j++) m.bits[j / 64] |= 1ull << (j % 64);
        return m;
    }
    static LaneMask from(const uint64_t* w) {
        LaneMask m;
        m.bits[0] = w[0];
        m.bits[1] = w[1];
        return m;
    }
    // Counter mode: `count` elements over the whole instruction (full repeats, then a partial one).
    bool counter = false;
    uint64_t count = 0;
    uint32_t lanes = 0;
    bool on(uint32_t j, uint32_t r = 0) const {
        if (counter) return uint64_t(r) * lanes + j < count && j < lanes;
        return (bits[j / 64] >> (j % 64)) & 1;
    }
};

// The mask a level-0 API runs under. isSetMask = true: the argument, written to the register
// (Normal mode). isSetMask = false: the register; in Counter mode the repeat count is the
// register's element count over `lanes` per repeat (repeatTime is not used).
template <bool isSetMask>
inline LaneMask api_mask(const LaneMask& given, uint32_t lanes, uint32_t& repeat) {
    dslc::VecMask& v = dslc::vec_mask();
    if (isSetMask) {
        v.lo = given.bits[0];
        v.hi = given.bits[1];
        return given;
    }
    LaneMask m;
    if (v.counter) {
        m.counter = true;
        m.count = v.lo;
        m.lanes = lanes;
        repeat = static_cast<uint32_t>((v.lo + lanes - 1) / lanes);
        return m;
    }
    m.bits[0] = v.lo;
    m.bits[1] = v.hi;
    return m;
}
// What a count-form (level 2) API leaves in the register: Normal mode, all lanes.
inline void count_form_done() {
    dslc::VecMask& v = dslc::vec_mask();
    v.counter = false;
    v.hi = v.lo = ~0ull;
}

inline uint32_t lane_addr(const L0Operand& o, uint32_t r, uint32_t j) {
    uint32_t epb = 32 / o.esize;
    return o.addr + (r * o.rep + (j / epb) * o.blk) * 32 + (j % epb) * o.esize;
}

// Records (and bounds-checks) the blocks an operand touches under a mask over `repeat` repeats. A
// write leaves definedness to the op (ub_mark per enabled lane): the disabled lanes keep theirs.
inline void l0_touch(uint32_t id, int buf, const L0Operand& o, const LaneMask& m, uint32_t lanes, uint32_t repeat,
                     bool write, const char* api, const char* what, dslc::Loc loc) {
    uint32_t epb = 32 / o.esize;
    dslc::trace_operand(id, o.addr, write);
    for (uint32_t r = 0; r < repeat; r++) {
        for (uint32_t b = 0; b * epb < lanes; b++) {
            bool any = false;
            for (uint32_t e = 0; e < epb; e++) any = any || m.on(b * epb + e, r);
            if (!any) continue;
            uint32_t a = o.addr + (r * o.rep + b * o.blk) * 32;
            dslc::ub_check(buf, a, 32, true, api, what, loc);
            dslc::ub_access(id, a, 32, write, false);
        }
    }
}

template <typename T> inline uint32_t vec_issue(const char* api, dslc::Loc loc) {
    dslc::check_dtype(api, dslc::DTypeOf<T>::value, loc);
    return dslc::issue(dslc::P_V, api, loc);
}

// Records a count-form operand. A write defines the bytes only with `define` (scratch buffers); a
// result's definedness is set per lane by the op (the destination may alias a source).
template <typename T>
inline void vec_operand(uint32_t id, const LocalTensor<T>& t, uint64_t count, bool write, const char* api,
                        const char* what, dslc::Loc loc, bool define = false) {
    uint64_t bytes = count * sizeof(T);
    dslc::ub_check(t.buf(), t.addr(), bytes, true, api, what, loc);
    dslc::trace_operand(id, t.addr(), write);
    if (bytes) dslc::ub_access(id, t.addr(), static_cast<uint32_t>(bytes), write, define);
}

// Definedness of one result lane of `dsize` bytes at UB `d` computed from the lanes at `a` (and `b`).
inline void def_lane(uint32_t id, uint32_t d, uint32_t dsize, uint32_t a, uint32_t asize) {
    dslc::ub_mark(id, d, dsize, dslc::ub_undef_at(a, asize));
}
inline void def_lane(uint32_t id, uint32_t d, uint32_t dsize, uint32_t a, uint32_t b, uint32_t asize) {
    dslc::ub_mark(id, d, dsize, dslc::ub_undef_at2(a, asize, b, asize));
}

// Every count-form (level 2) API starts here: it leaves the mask register as the real API does.
inline void check_count(const char* api, int64_t count, dslc::Loc loc) {
    count_form_done();
    if (count < 0) dslc::fault(dslc::F_MEMORY, loc, "%s: negative count %lld", api, (long long)count);
}
inline void check_repeat(const char* api, int64_t repeat, dslc::Loc loc) {
    if (repeat < 0 || repeat > 255)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: repeatTime %lld outside [0, 255]", api, (long long)repeat);
}

}  // namespace detail
}  // namespace AscendC
