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

// Mask registers are hardware-ordered setters; the count form sets them itself.
__aicore__ inline void SetMaskCount() {}
__aicore__ inline void SetMaskNorm() {}
__aicore__ inline void ResetMask() {}
template <typename T, int mode = 0> __aicore__ inline void SetVectorMask(...) {}

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
    bool on(uint32_t j) const { return (bits[j / 64] >> (j % 64)) & 1; }
};

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
            for (uint32_t e = 0; e < epb; e++) any = any || m.on(b * epb + e);
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

inline void check_count(const char* api, int64_t count, dslc::Loc loc) {
    if (count < 0) dslc::fault(dslc::F_MEMORY, loc, "%s: negative count %lld", api, (long long)count);
}
inline void check_repeat(const char* api, int64_t repeat, dslc::Loc loc) {
    if (repeat < 0 || repeat > 255)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: repeatTime %lld outside [0, 255]", api, (long long)repeat);
}

}  // namespace detail
}  // namespace AscendC
