// Reductions (ascendc-api.md s5 "Reductions"): ReduceSum/ReduceMax/ReduceMin (count form, with
// their temporary-buffer rules), WholeReduceSum/Max/Min and the 9.1 spelling ReduceRepeat.
#pragma once
#include <vector>

#include "vec_common.h"

namespace AscendC {

enum class ReduceType : uint8_t { SUM = 0, MAX, MIN };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace detail {

// The ReduceSum (count form) result the AccVal register holds for GetAccVal (AIV-only kernels:
// blocks run one after another, so one register serves the run).
inline double& acc_val() {
    static double v = 0;
    return v;
}

template <typename C> inline C reduce_pair(ReduceType t, C a, C b) {
    return t == ReduceType::SUM ? a + b : (t == ReduceType::MAX ? max_c(a, b) : min_c(a, b));
}

// Hardware-like order: a pairwise tree inside each 256 B repeat, repeat results rounded to T,
// then the same again over the repeat results until one value is left.
template <typename T> inline T reduce_all(ReduceType t, const T* x, uint32_t n, uint32_t* index) {
    using C = calc_t<T>;
    const uint32_t lanes = 256 / sizeof(T);
    if (n == 0) return T(0);
    if (t != ReduceType::SUM) {
        // A NaN wins: the value is NaN and the index the first NaN's (asc-devkit docs/zh/api:
        // reg/reduce_compute/asc_reduce_max.md, Reg矢量计算/归约计算/Reduce.md; the Memory-API
        // page is silent, and WholeReduceMax here propagates NaN too).
        uint32_t best = 0;
        for (uint32_t i = 1; i < n; i++) {
            C a = C(x[i]), b = C(x[best]);
            if (b != b) break;
            if (a != a || (t == ReduceType::MAX ? a > b : a < b)) best = i;
        }
        if (index) *index = best;
        return x[best];
    }
    std::vector<T> cur(x, x + n), next;
    while (cur.size() > 1) {
        next.clear();
        C level[256];
        for (size_t r = 0; r * lanes < cur.size(); r++) {
            size_t k = cur.size() - r * lanes < lanes ? cur.size() - r * lanes : lanes;
            for (size_t i = 0; i < k; i++) level[i] = C(cur[r * lanes + i]);
            while (k > 1) {
                size_t h = (k + 1) / 2;
                for (size_t i = 0; i + h < k; i++) level[i] = level[i] + level[i + h];
                k = h;
            }
            next.push_back(static_cast<T>(level[0]));
        }
        cur.swap(next);
    }
    return cur.empty() ? T(0) : cur[0];
}

template <typename T>
inline void reduce_count(const char* api, ReduceType t, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         const LocalTensor<T>& tmp, int32_t count, bool calIndex, dslc::Loc loc) {
    check_count(api, count, loc);
    // The count form syncs its scalar write-back with flags of its own: asc-devkit dav_c220
    // kernel_operator_vec_reduce_impl.h FetchEventID(V_S), (S_V), (S_MTE3); dav_3510 ReduceSum of
    // half/float AllocEventID<V_S> (ReduceMax/Min none).
    if (dslc::npu_arch() != 3510) {
        for (HardEvent ev : {HardEvent::V_S, HardEvent::S_V, HardEvent::S_MTE3})
            dslc::library_flag(static_cast<int>(ev), api, loc);
    } else if (t == ReduceType::SUM && (std::is_same<T, float>::value || std::is_same<T, half>::value)) {
        dslc::library_flag(static_cast<int>(HardEvent::V_S), api, loc);
    }
    uint32_t id = vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T);
    if (t != ReduceType::SUM) {
        // ReduceMax/Min without index: RoundUp32B(2 * firstRepeat) elements of tmp (ReduceMax.md).
        uint32_t first = (static_cast<uint32_t>(count) + lanes - 1) / lanes;
        uint32_t need = (2 * first * sizeof(T) + 31) / 32 * 32 / sizeof(T);
        if (calIndex) need *= 2;
        if (tmp.GetSize() < need)
            dslc::fault(dslc::F_MEMORY, loc, "%s: sharedTmpBuffer holds %u elements, needs %u for count %d", api,
                        tmp.GetSize(), need, count);
        vec_operand(id, src, count, false, api, "src", loc);
        vec_operand(id, tmp, need, true, api, "sharedTmpBuffer", loc, true);
    } else {
        vec_operand(id, src, count, false, api, "src", loc);  // count form: tmp unused
    }
    uint32_t outs = (t != ReduceType::SUM && calIndex) ? 2 : 1;
    vec_operand(id, dst, outs, true, api, "dst", loc);
    dslc::count_vector(repeats_of<T>(count) + 1);
    uint32_t idx = 0;
    T r = reduce_all<T>(t, src.ptr(), static_cast<uint32_t>(count), &idx);
    // The result (and index) is defined iff every reduced lane is.
    dslc::ub_mark(id, dst.addr(), outs * sizeof(T), dslc::ub_undef_at(src.addr(), uint32_t(count) * sizeof(T)));
    dst.ptr()[0] = r;
    if (t == ReduceType::SUM) acc_val() = static_cast<double>(static_cast<float>(r));
    if (outs == 2) {
        uint32_t bits = idx;
        std::memcpy(dst.ptr() + 1, &bits, sizeof(T) < 4 ? sizeof(T) : 4);
    }
}

// One result (or value/index pair) per repeat.
template <bool isSetMask, typename T>
inline void reduce_repeat(const char* api, ReduceType t, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                          int32_t mask, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                          int32_t srcRepStride, ReduceOrder order, dslc::Loc loc) {
    check_repeat(api, repeatTime, loc);
    uint32_t id = vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T);
    uint32_t rep = static_cast<uint32_t>(repeatTime < 0 ? 0 : repeatTime);
    const LaneMask m = api_mask<isSetMask>(LaneMask::first(static_cast<uint64_t>(mask), lanes), lanes, rep);
    const int32_t repeat = static_cast<int32_t>(rep);
    L0Operand os{src.addr(), uint32_t(srcBlkStride), uint32_t(srcRepStride), sizeof(T)};
    l0_touch(id, src.buf(), os, m, lanes, repeat, false, api, "src", loc);
    uint32_t per = (t == ReduceType::SUM || order == ReduceOrder::ORDER_ONLY_VALUE ||
                    order == ReduceOrder::ORDER_ONLY_INDEX) ? 1 : 2;
    uint32_t step = uint32_t(dstRepStride) * per;
    if (repeat > 0) {
        uint64_t span = (uint64_t(repeat - 1) * step + per) * sizeof(T);
        dslc::ub_check(dst.buf(), dst.addr(), span, true, api, "dst", loc);
        for (int32_t r = 0; r < repeat; r++)
            dslc::ub_access(id, dst.addr() + r * step * sizeof(T), per * sizeof(T), true, false);
    }
    dslc::count_vector(repeat);
    uint8_t* ub = dslc::ub_base();
    for (int32_t r = 0; r < repeat; r++) {
        T vals[256];
        uint32_t map[256], n = 0, undef = dslc::kDefined;
        for (uint32_t j = 0; j < lanes; j++) {
            if (!m.on(j, r)) continue;
            std::memcpy(&vals[n], ub + lane_addr(os, r, j), sizeof(T));
            if (undef == dslc::kDefined) undef = dslc::ub_undef_at(lane_addr(os, r, j), sizeof(T));
            map[n++] = j;
        }
        dslc::ub_mark(id, dst.addr() + r * step * sizeof(T), per * sizeof(T), undef);
        uint32_t idx = 0;
        T v = reduce_all<T>(t, vals, n, &idx);
        T* d = reinterpret_cast<T*>(ub + dst.addr()) + r * step;
        uint32_t lane = n ? map[idx] : 0;
        T ix;
        std::memset(&ix, 0, sizeof(T));
        std::memcpy(&ix, &lane, sizeof(T) < 4 ? sizeof(T) : 4);
        if (per == 1) {
            d[0] = order == ReduceOrder::ORDER_ONLY_INDEX ? ix : v;
        } else if (order == ReduceOrder::ORDER_INDEX_VALUE) {
            d[0] = ix;
            d[1] = v;
        } else {
            d[0] = v;
            d[1] = ix;
        }
    }
}

// BlockReduceSum's sum of one 32-byte block: a pairwise tree, each add rounded to T; for half a
// sum beyond 65504 is kept as +-65504 (BlockReduceSum.md, v8.5.0: "结果大于65504时结果保存为65504").
template <typename T> inline T block_tree_sum(const T* x, const bool* on, uint32_t n) {
    T level[16];
    for (uint32_t i = 0; i < n; i++) level[i] = on[i] ? x[i] : T(0.0f);
    while (n > 1) {
        uint32_t h = n / 2;
        for (uint32_t i = 0; i < h; i++) {
            float s = float(level[2 * i]) + float(level[2 * i + 1]);
            if (std::is_same<T, half>::value) s = s > 65504.0f ? 65504.0f : (s < -65504.0f ? -65504.0f : s);
            level[i] = static_cast<T>(s);
        }
        n = h;
    }
    return level[0];
}

}  // namespace detail

template <typename T, bool isSetMask = true>
__aicore__ inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 const int32_t count, dslc::Loc loc = {}) {
    detail::reduce_count("ReduceSum", ReduceType::SUM, dst, src, sharedTmpBuffer, count, false, loc);
}
template <typename T>
__aicore__ inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 const int32_t count, bool calIndex = 0, dslc::Loc loc = {}) {
    detail::reduce_count("ReduceMax", ReduceType::MAX, dst, src, sharedTmpBuffer, count, calIndex, loc);
}
template <typename T>
__aicore__ inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 const int32_t count, bool calIndex = 0, dslc::Loc loc = {}) {
    detail::reduce_count("ReduceMin", ReduceType::MIN, dst, src, sharedTmpBuffer, count, calIndex, loc);
}

template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
__aicore__ inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                                    const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                    const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                                    dslc::Loc loc = {}) {
    static_assert(std::is_same<T, U>::value, "ReduceRepeat: T and U must match on this target");
    detail::reduce_repeat<isSetMask>("ReduceRepeat", reduceType, dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                          srcRepStride, order, loc);
}

// CANN <= 9.0 spellings.
template <typename T, bool isSetMask = true>
__aicore__ inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                                      const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                      const int32_t srcRepStride, dslc::Loc loc = {}) {
    detail::reduce_repeat<isSetMask>("WholeReduceSum", ReduceType::SUM, dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                          srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                                      const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                      const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                                      dslc::Loc loc = {}) {
    detail::reduce_repeat<isSetMask>("WholeReduceMax", ReduceType::MAX, dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                          srcRepStride, order, loc);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                                      const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                      const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                                      dslc::Loc loc = {}) {
    detail::reduce_repeat<isSetMask>("WholeReduceMin", ReduceType::MIN, dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                          srcRepStride, order, loc);
}

}  // namespace AscendC

namespace AscendC {
// GetAccVal (asc-devkit v8.5.0 docs/api/context/GetAccVal(ISASI).md: `template <typename T> T GetAccVal()`,
// half/float, A2/A3): the result of the last ReduceSum count form. Gone from 9.1.
template <typename T> __aicore__ inline T GetAccVal(dslc::Loc loc = {}) {
    dslc::issue(dslc::P_S, "GetAccVal", loc);
    return static_cast<T>(static_cast<float>(detail::acc_val()));
}

namespace detail {
// One 32-byte block reduced: SUM as BlockReduceSum's pairwise tree (block_tree_sum), MAX/MIN with a NaN
// winning as in reduce_all.
template <typename T> inline T block_reduce_one(ReduceType t, const T* x, const bool* on, uint32_t n) {
    if (t == ReduceType::SUM) return block_tree_sum<T>(x, on, n);
    using C = calc_t<T>;
    bool have = false;
    C best = C(0);
    for (uint32_t i = 0; i < n; i++) {
        if (!on[i]) continue;
        C v = C(x[i]);
        if (!have || v != v || (best == best && (t == ReduceType::MAX ? v > best : v < best))) best = v;
        have = true;
        if (v != v) break;
    }
    return static_cast<T>(best);
}

// BlockReduceSum/Max/Min and the 9.1 spelling ReduceDataBlock (continuous mask form): per repeat, one
// result for each of its 8 data blocks, written to 8 consecutive elements of dst (dstRepStride in units
// of those 8 results). A block none of whose elements the mask enables: on A2 nothing is written (dst
// keeps its data), on 950 the reduction's identity (0, -inf, +inf) (asc-devkit 9.1
// docs/zh/api/SIMD-API/基础API/Memory矢量计算/归约计算/ReduceDataBlock.md, 约束说明).
template <bool isSetMask, typename T>
inline void block_reduce(const char* api, ReduceType t, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         int32_t repeatTime, int32_t mask, int32_t dstRepStride, int32_t srcBlkStride,
                         int32_t srcRepStride, dslc::Loc loc) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "block reductions take half or float");
    check_repeat(api, repeatTime, loc);
    uint32_t id = vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T), per_block = 32 / sizeof(T);
    uint32_t rep = static_cast<uint32_t>(repeatTime < 0 ? 0 : repeatTime);
    const LaneMask m = api_mask<isSetMask>(LaneMask::first(static_cast<uint64_t>(mask), lanes), lanes, rep);
    const int32_t repeat = static_cast<int32_t>(rep);
    L0Operand os{src.addr(), uint32_t(srcBlkStride), uint32_t(srcRepStride), sizeof(T)};
    l0_touch(id, src.buf(), os, m, lanes, repeat, false, api, "src", loc);
    const uint32_t step = uint32_t(dstRepStride) * 8;
    const bool a2 = dslc::npu_arch() == 2201;
    if (repeat > 0) {
        uint64_t span = (uint64_t(repeat - 1) * step + 8) * sizeof(T);
        dslc::ub_check(dst.buf(), dst.addr(), span, true, api, "dst", loc);
    }
    dslc::count_vector(repeat);
    uint8_t* ub = dslc::ub_base();
    const float identity = t == ReduceType::SUM ? 0.0f : (t == ReduceType::MAX ? -INFINITY : INFINITY);
    for (int32_t r = 0; r < repeat; r++) {
        T* d = reinterpret_cast<T*>(ub + dst.addr()) + r * step;
        for (uint32_t b = 0; b < 8; b++) {
            T vals[16];
            bool on[16], any = false;
            uint32_t undef = dslc::kDefined;
            for (uint32_t k = 0; k < per_block; k++) {
                uint32_t j = b * per_block + k;
                on[k] = m.on(j, r);
                any = any || on[k];
                std::memcpy(&vals[k], ub + lane_addr(os, r, j), sizeof(T));
                if (on[k] && undef == dslc::kDefined) undef = dslc::ub_undef_at(lane_addr(os, r, j), sizeof(T));
            }
            if (!any && a2) continue;  // A2: the block's result is not written
            const uint32_t at = dst.addr() + (r * step + b) * sizeof(T);
            dslc::ub_access(id, at, sizeof(T), true, false);
            dslc::ub_mark(id, at, sizeof(T), undef);
            d[b] = any ? block_reduce_one<T>(t, vals, on, per_block) : static_cast<T>(identity);
        }
    }
}
}  // namespace detail

// CANN <= 9.0 spellings (asc-devkit v9.0.1 docs/api/context/BlockReduceSum.md, BlockReduceMax.md,
// BlockReduceMin.md: repeatTime before mask; v9.0.1 has them, 9.1 not).
template <typename T, bool isSetMask = true>
__aicore__ inline void BlockReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                      const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                                      const int32_t srcRepStride, dslc::Loc loc = {}) {
    detail::block_reduce<isSetMask>("BlockReduceSum", ReduceType::SUM, dst, src, repeatTime, mask, dstRepStride,
                                    srcBlkStride, srcRepStride, loc);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void BlockReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                      const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                                      const int32_t srcRepStride, dslc::Loc loc = {}) {
    detail::block_reduce<isSetMask>("BlockReduceMax", ReduceType::MAX, dst, src, repeatTime, mask, dstRepStride,
                                    srcBlkStride, srcRepStride, loc);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void BlockReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                      const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                                      const int32_t srcRepStride, dslc::Loc loc = {}) {
    detail::block_reduce<isSetMask>("BlockReduceMin", ReduceType::MIN, dst, src, repeatTime, mask, dstRepStride,
                                    srcBlkStride, srcRepStride, loc);
}
// The 9.1 spelling (ReduceDataBlock.md above): mask before repeatTime.
template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
__aicore__ inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                                       const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                       const int32_t srcRepStride, dslc::Loc loc = {}) {
    static_assert(std::is_same<T, U>::value, "ReduceDataBlock: T and U must match");
    detail::block_reduce<isSetMask>("ReduceDataBlock", reduceType, dst, src, repeatTime, mask, dstRepStride,
                                    srcBlkStride, srcRepStride, loc);
}
}  // namespace AscendC
