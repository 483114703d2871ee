// Elementwise vector arithmetic: binary (Add Sub Mul Div Max Min), vector-scalar (Adds Muls Maxs
// Mins LeakyRelu), unary (Exp Ln Sqrt Rsqrt Reciprocal Abs Relu Neg), Tanh/Sigmoid (advanced
// API, asc-devkit include/adv_api/math/tanh.h), Duplicate and Brcb (ascendc-api.md s5).
#pragma once
#include "vec_common.h"

namespace AscendC {
namespace detail {

template <typename T, typename F>
inline void binary_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                         int32_t count, dslc::Loc loc, F f) {
    check_count(api, count, loc);
    uint32_t id = vec_issue<T>(api, loc);
    vec_operand(id, a, count, false, api, "src0", loc);
    vec_operand(id, b, count, false, api, "src1", loc);
    vec_operand(id, dst, count, true, api, "dst", loc);
    dslc::count_vector(repeats_of<T>(count));
    T* d = dst.ptr();
    const T* x = a.ptr();
    const T* y = b.ptr();
    for (int32_t i = 0; i < count; i++) {
        def_lane(id, dst.addr() + i * sizeof(T), sizeof(T), a.addr() + i * sizeof(T), b.addr() + i * sizeof(T),
                 sizeof(T));
        d[i] = static_cast<T>(f(calc_t<T>(x[i]), calc_t<T>(y[i])));
    }
}

template <bool isSetMask, typename T, typename F>
inline void binary_l0(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                      const LaneMask& given, uint8_t repeatTime, const BinaryRepeatParams& p, dslc::Loc loc, F f) {
    uint32_t id = vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T);
    uint32_t repeat = repeatTime;
    const LaneMask m = api_mask<isSetMask>(given, lanes, repeat);
    L0Operand od{dst.addr(), p.dstBlkStride, p.dstRepStride, sizeof(T)};
    L0Operand o0{a.addr(), p.src0BlkStride, p.src0RepStride, sizeof(T)};
    L0Operand o1{b.addr(), p.src1BlkStride, p.src1RepStride, sizeof(T)};
    l0_touch(id, a.buf(), o0, m, lanes, repeat, false, api, "src0", loc);
    l0_touch(id, b.buf(), o1, m, lanes, repeat, false, api, "src1", loc);
    l0_touch(id, dst.buf(), od, m, lanes, repeat, true, api, "dst", loc);
    dslc::count_vector(repeat);
    uint8_t* ub = dslc::ub_base();
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t j = 0; j < lanes; j++) {
            if (!m.on(j, r)) continue;
            T x, y;
            std::memcpy(&x, ub + lane_addr(o0, r, j), sizeof(T));
            std::memcpy(&y, ub + lane_addr(o1, r, j), sizeof(T));
            T z = static_cast<T>(f(calc_t<T>(x), calc_t<T>(y)));
            def_lane(id, lane_addr(od, r, j), sizeof(T), lane_addr(o0, r, j), lane_addr(o1, r, j), sizeof(T));
            std::memcpy(ub + lane_addr(od, r, j), &z, sizeof(T));
        }
}

template <typename T, typename F>
inline void unary_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, int32_t count,
                        dslc::Loc loc, F f) {
    check_count(api, count, loc);
    uint32_t id = vec_issue<T>(api, loc);
    vec_operand(id, a, count, false, api, "src", loc);
    vec_operand(id, dst, count, true, api, "dst", loc);
    dslc::count_vector(repeats_of<T>(count));
    T* d = dst.ptr();
    const T* x = a.ptr();
    for (int32_t i = 0; i < count; i++) {
        def_lane(id, dst.addr() + i * sizeof(T), sizeof(T), a.addr() + i * sizeof(T), sizeof(T));
        d[i] = static_cast<T>(f(calc_t<T>(x[i])));
    }
}

// The lanes of the level-0 unary instruction `id` (dst of T, src of U: a repeat is 256 B of the
// wider type, as Cast's): z = f(x) per lane the mask (api_mask) enables.
template <bool isSetMask, typename T, typename U, typename F>
inline void unary_l0_lanes(uint32_t id, const char* api, const LocalTensor<T>& dst, const LocalTensor<U>& a,
                           const LaneMask& given, uint8_t repeatTime, const UnaryRepeatParams& p, dslc::Loc loc, F f) {
    const uint32_t lanes = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    uint32_t repeat = repeatTime;
    const LaneMask m = api_mask<isSetMask>(given, lanes, repeat);
    L0Operand od{dst.addr(), p.dstBlkStride, p.dstRepStride, sizeof(T)};
    L0Operand o0{a.addr(), p.srcBlkStride, p.srcRepStride, sizeof(U)};
    l0_touch(id, a.buf(), o0, m, lanes, repeat, false, api, "src", loc);
    l0_touch(id, dst.buf(), od, m, lanes, repeat, true, api, "dst", loc);
    dslc::count_vector(repeat);
    uint8_t* ub = dslc::ub_base();
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t j = 0; j < lanes; j++) {
            if (!m.on(j, r)) continue;
            U x;
            std::memcpy(&x, ub + lane_addr(o0, r, j), sizeof(U));
            T z = f(x);
            def_lane(id, lane_addr(od, r, j), sizeof(T), lane_addr(o0, r, j), sizeof(U));
            std::memcpy(ub + lane_addr(od, r, j), &z, sizeof(T));
        }
}

template <bool isSetMask, typename T, typename F>
inline void unary_l0(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LaneMask& given,
                     uint8_t repeatTime, const UnaryRepeatParams& p, dslc::Loc loc, F f) {
    uint32_t id = vec_issue<T>(api, loc);
    unary_l0_lanes<isSetMask>(id, api, dst, a, given, repeatTime, p, loc,
                              [&f](T x) { return static_cast<T>(f(calc_t<T>(x))); });
}

// Transcendentals are evaluated in double and rounded once: the correctly rounded result,
// which is what numpy's float32 functions return for all but rare inputs.
inline float exp_f(float x) { return static_cast<float>(std::exp(static_cast<double>(x))); }
inline float ln_f(float x) { return static_cast<float>(std::log(static_cast<double>(x))); }
inline float rsqrt_f(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }
inline float tanh_f(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }
inline float sigmoid_f(float x) { return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x)))); }
template <typename C> inline C max_c(C a, C b) { return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b); }
template <typename C> inline C min_c(C a, C b) { return (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b); }

}  // namespace detail

// ---- binary: count form and level-0 (continuous mask / bit mask) forms ----
#define DSLC_BINARY(NAME, EXPR)                                                                                       \
    template <typename T>                                                                                              \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
                                const int32_t& count, dslc::Loc loc = {}) {                                            \
        detail::binary_count(#NAME, dst, src0, src1, count, loc, [](auto a, auto b) { return EXPR; });                 \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
                                uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams,       \
                                dslc::Loc loc = {}) {                                                                  \
        detail::binary_l0<isSetMask>(#NAME, dst, src0, src1, detail::LaneMask::first(mask, 256 / sizeof(T)), repeatTime,          \
                          repeatParams, loc, [](auto a, auto b) { return EXPR; });                                     \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
                                uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams,     \
                                dslc::Loc loc = {}) {                                                                  \
        detail::binary_l0<isSetMask>(#NAME, dst, src0, src1, detail::LaneMask::from(mask), repeatTime, repeatParams, loc,         \
                          [](auto a, auto b) { return EXPR; });                                                        \
    }

DSLC_BINARY(Add, a + b)
DSLC_BINARY(Sub, a - b)
DSLC_BINARY(Mul, a* b)
DSLC_BINARY(Div, a / b)
DSLC_BINARY(Max, detail::max_c(a, b))
DSLC_BINARY(Min, detail::min_c(a, b))
// Or: bitwise, int16_t/uint16_t (asc-devkit docs/zh/api .../Or.md, v9.0.x: the same count and
// level-0 forms as Add, isSetMask included).
DSLC_BINARY(Or, a | b)
#undef DSLC_BINARY

// ---- vector-scalar ----
#define DSLC_SCALAR(NAME, EXPR)                                                                                        \
    template <typename T, bool isSetMask = true>                                                                       \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,            \
                                const int32_t& count, dslc::Loc loc = {}) {                                            \
        const detail::calc_t<T> s = static_cast<detail::calc_t<T>>(scalarValue);                                        \
        detail::unary_count(#NAME, dst, src, count, loc, [s](auto a) { return EXPR; });                                \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,            \
                                uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,        \
                                dslc::Loc loc = {}) {                                                                  \
        const detail::calc_t<T> s = static_cast<detail::calc_t<T>>(scalarValue);                                        \
        detail::unary_l0<isSetMask>(#NAME, dst, src, detail::LaneMask::first(mask, 256 / sizeof(T)), repeatTime, repeatParams,    \
                         loc, [s](auto a) { return EXPR; });                                                           \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,            \
                                uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,      \
                                dslc::Loc loc = {}) {                                                                  \
        const detail::calc_t<T> s = static_cast<detail::calc_t<T>>(scalarValue);                                        \
        detail::unary_l0<isSetMask>(#NAME, dst, src, detail::LaneMask::from(mask), repeatTime, repeatParams, loc,                 \
                         [s](auto a) { return EXPR; });                                                                \
    }

DSLC_SCALAR(Adds, a + s)
DSLC_SCALAR(Muls, a* s)
DSLC_SCALAR(Maxs, detail::max_c(a, s))
DSLC_SCALAR(Mins, detail::min_c(a, s))
DSLC_SCALAR(LeakyRelu, a >= 0 ? a : a * s)
#undef DSLC_SCALAR

// ShiftLeft, count form: dst[i] = src[i] << scalarValue, the bits shifted (asc-devkit
// include/basic_api/kernel_operator_vec_binary_scalar_intf.h; impl/basic_api/dav_c220/
// kernel_operator_vec_binary_scalar_impl.h: uint16_t/uint32_t/int16_t/int32_t, the shift in
// [0, bits of T], checked as the CPU-debug build does).
template <typename T, bool isSetMask = true>
__aicore__ inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,
                                 const int32_t& count, dslc::Loc loc = {}) {
    static_assert(std::is_integral<T>::value, "ShiftLeft: integer element types only");
    using Bits = typename std::make_unsigned<T>::type;
    if (scalarValue < 0 || static_cast<uint32_t>(scalarValue) > sizeof(T) * 8)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "ShiftLeft: shift %d outside [0, %u]", static_cast<int>(scalarValue),
                    static_cast<unsigned>(sizeof(T) * 8));
    const uint32_t n = static_cast<uint32_t>(scalarValue);
    detail::unary_count("ShiftLeft", dst, src, count, loc, [n](T a) {
        return static_cast<T>(n >= sizeof(T) * 8 ? 0u : static_cast<uint32_t>(static_cast<Bits>(a)) << n);
    });
}

// ---- unary ----
#define DSLC_UNARY(NAME, EXPR)                                                                                         \
    template <typename T, auto... cfg>                                                                                 \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count,            \
                                dslc::Loc loc = {}) {                                                                  \
        detail::unary_count(#NAME, dst, src, count, loc, [](auto a) { return EXPR; });                                 \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                   \
                                const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, dslc::Loc loc = {}) { \
        detail::unary_l0<isSetMask>(#NAME, dst, src, detail::LaneMask::first(mask, 256 / sizeof(T)), repeatTime, repeatParams,    \
                         loc, [](auto a) { return EXPR; });                                                            \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[],                 \
                                const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, dslc::Loc loc = {}) { \
        detail::unary_l0<isSetMask>(#NAME, dst, src, detail::LaneMask::from(mask), repeatTime, repeatParams, loc,                 \
                         [](auto a) { return EXPR; });                                                                 \
    }

DSLC_UNARY(Exp, detail::exp_f(a))
DSLC_UNARY(Ln, detail::ln_f(a))
DSLC_UNARY(Sqrt, std::sqrt(a))
DSLC_UNARY(Rsqrt, detail::rsqrt_f(a))
DSLC_UNARY(Reciprocal, 1.0f / a)
DSLC_UNARY(Abs, std::fabs(a))
// Relu keeps NaN (asc-devkit docs/zh/api/附录/Memory矢量计算接口边界值汇总.md, table 8, INF/NAN mode)
DSLC_UNARY(Relu, (a > 0 || a != a) ? a : decltype(a)(0))
DSLC_UNARY(Neg, -a)
#undef DSLC_UNARY

// Advanced-API Tanh/Sigmoid: (dst, src[, sharedTmpBuffer], calCount). The temporary buffer is
// accepted and recorded as scratch written by V.
#define DSLC_ADV_UNARY(NAME, EXPR)                                                                                     \
    template <typename T, bool isReuseSource = false, auto... cfg>                                                    \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount,         \
                                dslc::Loc loc = {}) {                                                                  \
        detail::unary_count(#NAME, dst, src, static_cast<int32_t>(calCount), loc, [](auto a) { return EXPR; });        \
    }                                                                                                                  \
    template <typename T, bool isReuseSource = false, auto... cfg>                                                    \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                  \
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,                  \
                                dslc::Loc loc = {}) {                                                                  \
        if (sharedTmpBuffer.buf() >= 0 && sharedTmpBuffer.GetSize() > 0) {                                             \
            uint32_t id = dslc::issue(dslc::P_V, #NAME "(tmp)", loc);                                                  \
            dslc::ub_check(sharedTmpBuffer.buf(), sharedTmpBuffer.addr(), sharedTmpBuffer.GetSize(), true, #NAME,       \
                           "sharedTmpBuffer", loc);                                                                    \
            dslc::ub_access(id, sharedTmpBuffer.addr(), sharedTmpBuffer.GetSize(), true);                              \
        }                                                                                                              \
        detail::unary_count(#NAME, dst, src, static_cast<int32_t>(calCount), loc, [](auto a) { return EXPR; });        \
    }

DSLC_ADV_UNARY(Tanh, detail::tanh_f(a))
DSLC_ADV_UNARY(Sigmoid, detail::sigmoid_f(a))
#undef DSLC_ADV_UNARY

// ---- Duplicate ----
template <typename T>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count,
                                 dslc::Loc loc = {}) {
    const char* api = "Duplicate";
    detail::check_count(api, count, loc);
    uint32_t id = detail::vec_issue<T>(api, loc);
    detail::vec_operand(id, dst, count, true, api, "dst", loc, true);
    dslc::count_vector(detail::repeats_of<T>(count));
    T* d = dst.ptr();
    for (int32_t i = 0; i < count; i++) d[i] = scalarValue;
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                                 const uint16_t dstBlockStride, const uint8_t dstRepeatStride, dslc::Loc loc = {}) {
    const char* api = "Duplicate";
    uint32_t id = detail::vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T);
    uint32_t repeat = repeatTime;
    const detail::LaneMask m = detail::api_mask<isSetMask>(detail::LaneMask::first(mask, lanes), lanes, repeat);
    detail::L0Operand od{dst.addr(), dstBlockStride, dstRepeatStride, sizeof(T)};
    detail::l0_touch(id, dst.buf(), od, m, lanes, repeat, true, api, "dst", loc);
    dslc::count_vector(repeat);
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t j = 0; j < lanes; j++)
            if (m.on(j, r)) {
                std::memcpy(dslc::ub_base() + detail::lane_addr(od, r, j), &scalarValue, sizeof(T));
                dslc::ub_mark(id, detail::lane_addr(od, r, j), sizeof(T), dslc::kDefined);
            }
}

// ---- Brcb: each repeat broadcasts 8 source elements to 8 destination blocks ----
struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    __aicore__ BrcbRepeatParams() = default;
    __aicore__ BrcbRepeatParams(const uint16_t blk, const uint16_t rep) : dstBlkStride(blk), dstRepStride(rep) {}
};
template <typename T>
__aicore__ inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                            const BrcbRepeatParams& p, dslc::Loc loc = {}) {
    const char* api = "Brcb";
    uint32_t id = detail::vec_issue<T>(api, loc);
    detail::vec_operand(id, src, uint64_t(repeatTime) * 8, false, api, "src", loc);
    const uint32_t epb = 32 / sizeof(T);
    for (uint32_t r = 0; r < repeatTime; r++)
        for (uint32_t b = 0; b < 8; b++) {
            uint32_t a = dst.addr() + (r * p.dstRepStride + b * p.dstBlkStride) * 32;
            dslc::ub_check(dst.buf(), a, 32, true, api, "dst", loc);
            dslc::ub_access(id, a, 32, true, false);
        }
    dslc::count_vector(repeatTime);
    for (uint32_t r = 0; r < repeatTime; r++)
        for (uint32_t b = 0; b < 8; b++) {
            T v = src.ptr()[r * 8 + b];
            uint32_t da = dst.addr() + (r * p.dstRepStride + b * p.dstBlkStride) * 32;
            T* d = reinterpret_cast<T*>(dslc::ub_base() + da);
            for (uint32_t e = 0; e < epb; e++)
                detail::def_lane(id, da + e * sizeof(T), sizeof(T), src.addr() + (r * 8 + b) * sizeof(T), sizeof(T));
            for (uint32_t e = 0; e < epb; e++) d[e] = v;
        }
}

// ---- Copy (UB -> UB, level 0, continuous mask): the vector unit moves `mask` lanes per repeat,
// strides in 32 B blocks (Memory矢量计算/数据搬运/Copy（UBToUB掩码式高维数据搬运）.md; A2: 16- and
// 32-bit types; dstStride/srcStride within a repeat, dstRepeatSize/srcRepeatSize between repeats).
struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1;
    uint16_t dstRepeatSize = 8, srcRepeatSize = 8;
    __aicore__ CopyRepeatParams() = default;
    __aicore__ CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                                uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
};
template <typename T, bool isSetMask = true>
__aicore__ inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
                            const uint8_t repeatTime, const CopyRepeatParams& p, dslc::Loc loc = {}) {
    const char* api = "Copy";
    uint32_t id = detail::vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T);
    uint32_t repeat = repeatTime;
    const detail::LaneMask m = detail::api_mask<isSetMask>(detail::LaneMask::first(mask, lanes), lanes, repeat);
    detail::L0Operand od{dst.addr(), p.dstStride, p.dstRepeatSize, sizeof(T)};
    detail::L0Operand os{src.addr(), p.srcStride, p.srcRepeatSize, sizeof(T)};
    if (p.dstRepeatSize > 4095 || p.srcRepeatSize > 4095)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "Copy: repeat sizes %u/%u exceed 4095 blocks", p.dstRepeatSize,
                    p.srcRepeatSize);
    detail::l0_touch(id, src.buf(), os, m, lanes, repeat, false, api, "src", loc);
    detail::l0_touch(id, dst.buf(), od, m, lanes, repeat, true, api, "dst", loc);
    dslc::count_vector(repeat);
    uint8_t* ub = dslc::ub_base();
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t j = 0; j < lanes; j++) {
            if (!m.on(j, r)) continue;
            T x;
            std::memcpy(&x, ub + detail::lane_addr(os, r, j), sizeof(T));
            detail::def_lane(id, detail::lane_addr(od, r, j), sizeof(T), detail::lane_addr(os, r, j), sizeof(T));
            std::memcpy(ub + detail::lane_addr(od, r, j), &x, sizeof(T));
        }
}

}  // namespace AscendC
