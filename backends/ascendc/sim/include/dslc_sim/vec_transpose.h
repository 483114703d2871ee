// Vector data rearrangement and the ternary FusedMulAdd:
//  - Transpose(dst, src): one 16 x 16 matrix of 2-byte elements (512 B), dst[i][j] = src[j][i]
//    (asc-devkit docs/zh/api .../数据转换/Transpose.md, v9.0.x: `template <typename T> void
//    Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src)`, uint16_t/int16_t/half).
//  - TransDataTo5HD<T>(uint64_t dstList[16], uint64_t srcList[16], const TransDataTo5HDParams&): the
//    address-list form for 2-byte types (TransDataTo5HD.md): per repeat, element j of the 32-byte
//    block at srcList[i] goes to element i of the block at dstList[j] (a 16 x 16 transpose across
//    blocks); repeat r adds r * srcRepStride / r * dstRepStride 32-byte blocks to every address.
//    The list holds UB addresses as the kernel takes them from LocalTensor::GetPhyAddr().
//  - FusedMulAdd: dst = src0 * dst + src1 (kernel_operator_vec_binary_intf.h, v9.0.x), count and
//    level-0 forms; computed in float with one rounding (fused).
//  - Gather, the count form (include/basic_api/kernel_operator_vec_gather_intf.h; docs .../离散与聚合/
//    Gather.md): dst[i] = the element of src at byte srcBaseAddr + srcOffset[i]; A2 types int16_t,
//    uint16_t, half, bfloat16_t, int32_t, uint32_t, float; count 0 is a NOP. An offset that is not a
//    whole element, or that lands outside src's buffer, is a MemoryFaultError. "不支持源操作数与目的操作数
//    使用同一块内存地址": an overlap of dst and src is an UnsupportedError in strict mode; by default
//    only when some lane reads an element this Gather overwrites with a different value (then the
//    result depends on the unspecified order of the lanes' reads and writes).
#pragma once
#include <vector>

#include "vec_arith.h"

namespace AscendC {

struct TransDataTo5HDParams {
    __aicore__ TransDataTo5HDParams() {}
    __aicore__ TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                                    const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

template <typename T>
__aicore__ inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, dslc::Loc loc = {}) {
    static_assert(sizeof(T) == 2, "Transpose (16 x 16) takes 2-byte types: uint16_t, int16_t, half");
    const char* api = "Transpose";
    uint32_t id = dslc::issue(dslc::P_V, api, loc);
    dslc::ub_check(src.buf(), src.addr(), 512, true, api, "src", loc);
    dslc::ub_check(dst.buf(), dst.addr(), 512, true, api, "dst", loc);
    dslc::ub_access(id, src.addr(), 512, false, false);
    dslc::ub_access(id, dst.addr(), 512, true, false);
    dslc::count_vector(1);
    uint8_t* ub = dslc::ub_base();
    uint16_t tmp[256];
    std::memcpy(tmp, ub + src.addr(), 512);
    uint32_t undef[256];
    for (uint32_t k = 0; k < 256; k++) undef[k] = dslc::ub_undef_at(src.addr() + k * 2, 2);
    for (uint32_t i = 0; i < 16; i++)
        for (uint32_t j = 0; j < 16; j++) {
            std::memcpy(ub + dst.addr() + (i * 16 + j) * 2, &tmp[j * 16 + i], 2);
            dslc::ub_mark(id, dst.addr() + (i * 16 + j) * 2, 2, undef[j * 16 + i]);
        }
}

namespace detail {
// The UB offset of an address from a TransDataTo5HD list (a GetPhyAddr() value); faults when it
// is not in UB or not 32-byte aligned.
inline bool list_addr(uint64_t a, uint32_t& off, const char* api, const char* what, int i, dslc::Loc loc) {
    uint64_t base = reinterpret_cast<uint64_t>(dslc::ub_base());
    if (a < base || a - base >= dslc::ub_phys_bytes()) {
        dslc::fault(dslc::F_MEMORY, loc, "%s: %s[%d] is not a UB address", api, what, i);
        return false;
    }
    off = static_cast<uint32_t>(a - base);
    if (off % 32) {
        dslc::fault(dslc::F_MEMORY, loc, "%s: %s[%d] (UB %u) is not 32-byte aligned", api, what, i, off);
        return false;
    }
    return true;
}
}  // namespace detail

template <typename T>
__aicore__ inline void TransDataTo5HD(uint64_t dstList[16], uint64_t srcList[16], const TransDataTo5HDParams& p,
                                      dslc::Loc loc = {}) {
    static_assert(sizeof(T) == 2, "the emulator's TransDataTo5HD covers 2-byte types (the b8/b32 forms differ)");
    const char* api = "TransDataTo5HD";
    uint32_t id = dslc::issue(dslc::P_V, api, loc);
    uint32_t s[16], d[16];
    for (int i = 0; i < 16; i++)
        if (!detail::list_addr(srcList[i], s[i], api, "srcList", i, loc) ||
            !detail::list_addr(dstList[i], d[i], api, "dstList", i, loc))
            return;
    const uint32_t reps = p.repeatTimes;
    // Every block read and written, checked against the buffer its first repeat's address is in.
    for (uint32_t r = 0; r < reps; r++)
        for (int i = 0; i < 16; i++) {
            uint32_t sa = s[i] + r * p.srcRepStride * 32, da = d[i] + r * p.dstRepStride * 32;
            dslc::ub_check(dslc::ub_buf_at(s[i]), sa, 32, true, api, "src", loc);
            dslc::ub_check(dslc::ub_buf_at(d[i]), da, 32, true, api, "dst", loc);
            dslc::ub_access(id, sa, 32, false, false);
            dslc::ub_access(id, da, 32, true, false);
        }
    dslc::count_vector(reps);
    uint8_t* ub = dslc::ub_base();
    for (uint32_t r = 0; r < reps; r++) {
        uint16_t in[16][16];
        uint32_t undef[16][16];
        for (int i = 0; i < 16; i++) {
            uint32_t sa = s[i] + r * p.srcRepStride * 32;
            std::memcpy(in[i], ub + sa, 32);
            for (int j = 0; j < 16; j++) undef[i][j] = dslc::ub_undef_at(sa + j * 2, 2);
        }
        for (int j = 0; j < 16; j++) {
            uint32_t da = d[j] + r * p.dstRepStride * 32;
            for (int i = 0; i < 16; i++) {
                std::memcpy(ub + da + i * 2, &in[i][j], 2);
                dslc::ub_mark(id, da + i * 2, 2, undef[i][j]);
            }
        }
    }
}

namespace detail {
inline float fma_f(float a, float b, float c) { return std::fma(a, b, c); }

template <bool isSetMask, typename T>
inline void fused_mul_add_l0(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                             const LaneMask& given, uint8_t repeatTime, const BinaryRepeatParams& p, dslc::Loc loc) {
    const char* api = "FusedMulAdd";
    uint32_t id = vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T);
    uint32_t repeat = repeatTime;
    const LaneMask m = api_mask<isSetMask>(given, lanes, repeat);
    L0Operand od{dst.addr(), p.dstBlkStride, p.dstRepStride, sizeof(T)};
    L0Operand o0{src0.addr(), p.src0BlkStride, p.src0RepStride, sizeof(T)};
    L0Operand o1{src1.addr(), p.src1BlkStride, p.src1RepStride, sizeof(T)};
    l0_touch(id, src0.buf(), o0, m, lanes, repeat, false, api, "src0", loc);
    l0_touch(id, src1.buf(), o1, m, lanes, repeat, false, api, "src1", loc);
    l0_touch(id, dst.buf(), od, m, lanes, repeat, false, api, "dst", loc);
    l0_touch(id, dst.buf(), od, m, lanes, repeat, true, api, "dst", loc);
    dslc::count_vector(repeat);
    uint8_t* ub = dslc::ub_base();
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t j = 0; j < lanes; j++) {
            if (!m.on(j, r)) continue;
            T x, y, z;
            std::memcpy(&x, ub + lane_addr(o0, r, j), sizeof(T));
            std::memcpy(&y, ub + lane_addr(o1, r, j), sizeof(T));
            std::memcpy(&z, ub + lane_addr(od, r, j), sizeof(T));
            uint32_t u = dslc::ub_undef_at2(lane_addr(o0, r, j), sizeof(T), lane_addr(o1, r, j), sizeof(T));
            if (u == dslc::kDefined) u = dslc::ub_undef_at(lane_addr(od, r, j), sizeof(T));
            T v = static_cast<T>(fma_f(calc_t<T>(x), calc_t<T>(z), calc_t<T>(y)));
            dslc::ub_mark(id, lane_addr(od, r, j), sizeof(T), u);
            std::memcpy(ub + lane_addr(od, r, j), &v, sizeof(T));
        }
}
}  // namespace detail

template <typename T>
__aicore__ inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                   const int32_t& count, dslc::Loc loc = {}) {
    const char* api = "FusedMulAdd";
    detail::check_count(api, count, loc);
    uint32_t id = detail::vec_issue<T>(api, loc);
    detail::vec_operand(id, src0, count, false, api, "src0", loc);
    detail::vec_operand(id, src1, count, false, api, "src1", loc);
    detail::vec_operand(id, dst, count, false, api, "dst", loc);
    detail::vec_operand(id, dst, count, true, api, "dst", loc);
    dslc::count_vector(detail::repeats_of<T>(count));
    T* d = dst.ptr();
    const T* a = src0.ptr();
    const T* b = src1.ptr();
    for (int32_t i = 0; i < count; i++) {
        uint32_t da = dst.addr() + i * sizeof(T);
        uint32_t u = dslc::ub_undef_at2(src0.addr() + i * sizeof(T), sizeof(T), src1.addr() + i * sizeof(T), sizeof(T));
        if (u == dslc::kDefined) u = dslc::ub_undef_at(da, sizeof(T));
        dslc::ub_mark(id, da, sizeof(T), u);
        d[i] = static_cast<T>(detail::fma_f(detail::calc_t<T>(a[i]), detail::calc_t<T>(d[i]), detail::calc_t<T>(b[i])));
    }
}
template <typename T, bool isSetMask = true>
__aicore__ inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                   uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams,
                                   dslc::Loc loc = {}) {
    detail::fused_mul_add_l0<isSetMask>(dst, src0, src1, detail::LaneMask::first(mask, 256 / sizeof(T)), repeatTime,
                                        repeatParams, loc);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                   uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams,
                                   dslc::Loc loc = {}) {
    detail::fused_mul_add_l0<isSetMask>(dst, src0, src1, detail::LaneMask::from(mask), repeatTime, repeatParams, loc);
}

template <typename T>
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                              const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint32_t count,
                              dslc::Loc loc = {}) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather takes 16- and 32-bit types on A2 (Gather.md)");
    const char* api = "Gather";
    detail::check_count(api, count, loc);
    uint32_t id = detail::vec_issue<T>(api, loc);
    if (count == 0) return;
    dslc::ub_check(src.buf(), src.addr(), 0, true, api, "src", loc);
    detail::vec_operand(id, srcOffset, count, false, api, "srcOffset", loc);
    dslc::trace_operand(id, src.addr(), false);
    dslc::count_vector(detail::repeats_of<T>(count));
    const uint32_t* off = srcOffset.ptr();
    std::vector<uint32_t> from(count), undef(count);
    std::vector<T> val(count);
    for (uint32_t i = 0; i < count; i++) {  // every lane reads before any lane writes
        dslc::ub_use_scalar(id, srcOffset.addr() + i * 4, 4, api, loc);  // an offset forms an address
        uint64_t rel = uint64_t(srcBaseAddr) + off[i];
        if (rel % sizeof(T))
            dslc::fault(dslc::F_MEMORY, loc, "%s: lane %u reads src byte %llu (srcBaseAddr %u + srcOffset %u), not a "
                        "multiple of sizeof(%s)", api, i, (unsigned long long)rel, srcBaseAddr, off[i],
                        dslc::dtype_name(dslc::DTypeOf<T>::value));
        uint64_t a = src.addr() + rel;
        if (a + sizeof(T) > dslc::ub_phys_bytes())
            dslc::fault(dslc::F_MEMORY, loc, "%s: lane %u reads src byte %llu, beyond the UB", api, i,
                        (unsigned long long)rel);
        from[i] = static_cast<uint32_t>(a);
        dslc::ub_check(src.buf(), from[i], sizeof(T), false, api, "src element", loc);
        dslc::ub_access(id, from[i], sizeof(T), false, false);
        undef[i] = dslc::ub_undef_at(from[i], sizeof(T));
        std::memcpy(&val[i], dslc::ub_base() + from[i], sizeof(T));
    }
    detail::vec_operand(id, dst, count, true, api, "dst", loc);  // after the reads: dst may overlap src
    const uint32_t d0 = dst.addr(), d1 = d0 + count * static_cast<uint32_t>(sizeof(T));
    for (uint32_t i = 0; i < count; i++) {
        if (from[i] + sizeof(T) <= d0 || from[i] >= d1) continue;
        if (dslc::strict_mode())
            dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: dst UB [0x%x, 0x%x) overlaps the src element lane %u reads "
                        "(0x%x); Gather does not support dst and src in the same memory (strict mode)", api, d0, d1,
                        i, from[i]);
        uint32_t k = (from[i] - d0) / sizeof(T);
        if (std::memcmp(&val[k], &val[i], sizeof(T)) != 0)
            dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: lane %u reads UB 0x%x, which lane %u of dst overwrites with "
                        "another value: with dst and src in the same memory (unsupported) the result depends on "
                        "the order of the lanes", api, i, from[i], k);
    }
    T* d = dst.ptr();
    for (uint32_t i = 0; i < count; i++) {
        d[i] = val[i];
        dslc::ub_mark(id, d0 + i * sizeof(T), sizeof(T), undef[i]);
    }
}

}  // namespace AscendC

namespace AscendC {
// Advanced-API BroadCast / Broadcast (asc-devkit include/adv_api/pad/broadcast.h, v9.0.x; docs
// Broadcast.md): numpy broadcasting of a 1-D or 2-D tensor, dim 1 or 2; axis = the dimension that
// srcShape has as 1 (dim 2: src {m, 1} -> dst {m, k} along axis 1, src {1, k} -> dst {m, k} along
// axis 0; dim 1: src {1} -> dst {k}). Both tensors are contiguous in their shapes. The temporary
// buffer (the sharedTmpBuffer form) is recorded as scratch written by V.
namespace detail {
template <typename T, int32_t dim, int32_t axis>
inline void broadcast_nd(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                         const uint32_t srcShape[dim], const LocalTensor<uint8_t>* tmp, dslc::Loc loc) {
    static_assert(dim == 1 || dim == 2, "BroadCast supports dim 1 or 2");
    static_assert(axis == 0 || axis == 1, "BroadCast: axis 0 or 1");
    const char* api = "BroadCast";
    uint32_t id = vec_issue<T>(api, loc);
    const uint32_t m = dim == 2 ? dstShape[0] : 1, k = dim == 2 ? dstShape[1] : dstShape[0];
    const uint32_t sm = dim == 2 ? srcShape[0] : 1, sk = dim == 2 ? srcShape[1] : srcShape[0];
    const bool rows = dim == 2 && axis == 1;  // src {m, 1}
    if ((rows && (sm != m || sk != 1)) || (!rows && dim == 2 && (sm != 1 || sk != k)) || (dim == 1 && sk != 1))
        dslc::fault(dslc::F_UNSUPPORTED, loc, "BroadCast: srcShape does not broadcast to dstShape along axis %d", axis);
    const uint64_t nsrc = uint64_t(sm) * sk, ndst = uint64_t(m) * k;
    vec_operand(id, src, nsrc, false, api, "src", loc);
    if (tmp) vec_operand(id, *tmp, tmp->GetSize(), true, api, "sharedTmpBuffer", loc, true);
    vec_operand(id, dst, ndst, true, api, "dst", loc);
    dslc::count_vector(repeats_of<T>(ndst));
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < k; j++) {
            uint32_t si = rows ? i : (dim == 2 ? j : 0);
            uint32_t da = dst.addr() + (i * k + j) * sizeof(T);
            def_lane(id, da, sizeof(T), src.addr() + si * sizeof(T), sizeof(T));
            T v = src.ptr()[si];
            std::memcpy(dslc::ub_base() + da, &v, sizeof(T));
        }
}
}  // namespace detail

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                 const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                                 LocalTensor<uint8_t>& sharedTmpBuffer, dslc::Loc loc = {}) {
    detail::broadcast_nd<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer, loc);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                 const uint32_t dstShape[dim], const uint32_t srcShape[dim], dslc::Loc loc = {}) {
    detail::broadcast_nd<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr, loc);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                 const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                                 LocalTensor<uint8_t>& sharedTmpBuffer, dslc::Loc loc = {}) {
    detail::broadcast_nd<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer, loc);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
__aicore__ inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                 const uint32_t dstShape[dim], const uint32_t srcShape[dim], dslc::Loc loc = {}) {
    detail::broadcast_nd<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr, loc);
}
}  // namespace AscendC
