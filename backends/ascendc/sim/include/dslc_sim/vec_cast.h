// Cast<dst, src> with RoundMode (ascendc-api.md s5 "Cast"; asc-devkit
// docs/zh/api/SIMD-API/基础API/Memory矢量计算/类型转换/Cast.md). CAST_RINT = half to even,
// CAST_ROUND = half away from zero, CAST_NONE = rint when the conversion narrows, exact otherwise;
// float -> integer saturates (NaN -> 0).
#pragma once
#include <limits>

#include "vec_arith.h"  // detail::unary_l0_lanes

namespace AscendC {

// impl/basic_api/utils/kernel_utils_mode.h (CAST_EVEN, CAST_ZERO and UNKNOWN: 3510; UNKNOWN is the
// CastTrait default of the Reg API).
enum class RoundMode : uint8_t {
    CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID, CAST_EVEN,
    CAST_ZERO, UNKNOWN = 0xFF
};

namespace detail {

template <typename D> struct FloatBits;
template <> struct FloatBits<half> {
    static half rne(double x) { return half(static_cast<float>(x)); }
    static uint16_t bits(half h) { return h.bits_; }
    static half make(uint16_t b) { return half::from_bits(b); }
};
template <> struct FloatBits<bfloat16_t> {
    static bfloat16_t rne(double x) { return bfloat16_t(static_cast<float>(x)); }
    static uint16_t bits(bfloat16_t h) { return h.bits_; }
    static bfloat16_t make(uint16_t b) { return bfloat16_t::from_bits(b); }
};

// Neighbour of a finite 16-bit float away from / toward zero (sign-magnitude encoding).
template <typename D> inline D step16(D v, bool away) {
    uint16_t b = FloatBits<D>::bits(v);
    uint16_t mag = b & 0x7fffu, sign = b & 0x8000u;
    if (mag == 0 && !away) return v;
    mag = away ? mag + 1 : mag - 1;
    return FloatBits<D>::make(static_cast<uint16_t>(sign | mag));
}

template <typename D> inline D round_float(double x, RoundMode m);

template <> inline float round_float<float>(double x, RoundMode m) {
    float r = static_cast<float>(x);
    if (std::isnan(x) || std::isinf(r) || static_cast<double>(r) == x || m == RoundMode::CAST_RINT ||
        m == RoundMode::CAST_NONE)
        return r;
    float lo = static_cast<double>(r) < x ? r : std::nextafter(r, -INFINITY);
    float hi = static_cast<double>(r) < x ? std::nextafter(r, INFINITY) : r;
    switch (m) {
        case RoundMode::CAST_FLOOR: return lo;
        case RoundMode::CAST_CEIL: return hi;
        case RoundMode::CAST_TRUNC: return x > 0 ? lo : hi;
        case RoundMode::CAST_ROUND:
            if (x - lo == hi - x) return x > 0 ? hi : lo;
            return r;
        case RoundMode::CAST_ODD: return (dslc::f32_bits(lo) & 1u) ? lo : hi;
        default: return r;
    }
}

template <typename D> inline D round_float(double x, RoundMode m) {
    D r = FloatBits<D>::rne(x);
    double rv = static_cast<float>(r);
    if (std::isnan(x) || std::isinf(rv) || rv == x || m == RoundMode::CAST_RINT || m == RoundMode::CAST_NONE) return r;
    bool r_above_mag = std::fabs(rv) > std::fabs(x);
    D toward = r_above_mag ? step16(r, false) : r;  // magnitude below |x|
    D away = r_above_mag ? r : step16(r, true);     // magnitude above |x|
    double tv = static_cast<float>(toward), av = static_cast<float>(away);
    bool neg = x < 0;
    switch (m) {
        case RoundMode::CAST_TRUNC: return toward;
        case RoundMode::CAST_FLOOR: return neg ? away : toward;
        case RoundMode::CAST_CEIL: return neg ? toward : away;
        case RoundMode::CAST_ROUND: return (std::fabs(x - tv) == std::fabs(av - x)) ? away : r;
        case RoundMode::CAST_ODD: return (FloatBits<D>::bits(toward) & 1) ? toward : away;
        default: return r;
    }
}

inline double round_int(double x, RoundMode m) {
    switch (m) {
        case RoundMode::CAST_FLOOR: return std::floor(x);
        case RoundMode::CAST_CEIL: return std::ceil(x);
        case RoundMode::CAST_ROUND: return std::round(x);
        case RoundMode::CAST_TRUNC: return std::trunc(x);
        default: return std::nearbyint(x);  // RINT, NONE: half to even (default FP environment)
    }
}

template <typename D, typename S> inline D convert(S s, RoundMode m);
// Cast's element conversion with the DEQSCALE register applied to int32_t -> half.
template <typename D, typename S> inline D convert_deq(S s, RoundMode m) {
    if constexpr (std::is_same<D, half>::value && std::is_same<S, int32_t>::value)
        return FloatBits<half>::rne(static_cast<double>(s) * static_cast<double>(dslc::deq_scale()));
    return convert<D, S>(s, m);
}

template <typename D, typename S> inline D convert(S s, RoundMode m) {
    double x = static_cast<double>(static_cast<calc_t<S>>(s));
    if constexpr (std::is_same<D, float>::value && std::is_same<S, float>::value) {
        return static_cast<float>(round_int(x, m));  // float -> float rounds to an integral value
    } else if constexpr (is_floatlike<D>) {
        return round_float<D>(x, m);
    } else {
        if (std::isnan(x)) return D(0);
        double r = is_floatlike<S> ? round_int(x, m) : x;
        if (r <= static_cast<double>(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
        if (r >= static_cast<double>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
        return static_cast<D>(r);
    }
}

}  // namespace detail

template <typename T, typename U>
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint32_t count, dslc::Loc loc = {}) {
    const char* api = "Cast";
    detail::check_count(api, count, loc);  // leaves the mask register as the count forms do
    dslc::check_cast(dslc::DTypeOf<U>::value, dslc::DTypeOf<T>::value, static_cast<int>(roundMode), loc);
    uint32_t id = dslc::issue(dslc::P_V, api, loc);
    detail::vec_operand(id, src, count, false, api, "src", loc);
    detail::vec_operand(id, dst, count, true, api, "dst", loc);
    dslc::count_vector(detail::repeats_of<typename std::conditional<(sizeof(T) > sizeof(U)), T, U>::type>(count));
    T* d = dst.ptr();
    const U* s = src.ptr();
    if (static_cast<const void*>(d) == static_cast<const void*>(s) && sizeof(T) != sizeof(U))
        dslc::fault(dslc::F_MEMORY, loc, "Cast: in-place cast between types of different width");
    for (uint32_t i = 0; i < count; i++) {
        detail::def_lane(id, dst.addr() + i * sizeof(T), sizeof(T), src.addr() + i * sizeof(U), sizeof(U));
        d[i] = detail::convert_deq<T, U>(s[i], roundMode);
    }
}

// SetDeqScale(half scale) (asc-devkit docs/zh/api SetDeqScale.md, v8.5.0 / v9.0.x: "用于AddDeqRelu/Cast/
// CastDeq的s322f16场景"): sets DEQSCALE; Cast int32_t -> half then yields src / 2^17 * scale * 2^17
// (Cast.md's int32_t row), i.e. src * scale rounded to half, its roundMode not used.
__aicore__ inline void SetDeqScale(half scale) { dslc::deq_scale() = static_cast<float>(scale); }

namespace detail {
// Cast level 0 (kernel_operator_vec_vconv_intf.h: the mask count and mask bit forms): one repeat
// processes 256 B of the wider type; with isSetMask = false the lanes (and, in Counter mode, the
// repeat count) come from the vector mask register (api_mask), as for the other level-0 APIs.
template <bool isSetMask, typename T, typename U>
inline void cast_l0(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                    const LaneMask& given, uint8_t repeatTime, const UnaryRepeatParams& p, dslc::Loc loc) {
    dslc::check_cast(dslc::DTypeOf<U>::value, dslc::DTypeOf<T>::value, static_cast<int>(roundMode), loc);
    uint32_t id = dslc::issue(dslc::P_V, "Cast", loc);
    unary_l0_lanes<isSetMask>(id, "Cast", dst, src, given, repeatTime, p, loc,
                              [&roundMode](U x) { return convert_deq<T, U>(x, roundMode); });
}
}  // namespace detail

template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
                            dslc::Loc loc = {}) {
    const uint32_t lanes = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    detail::cast_l0<isSetMask>(dst, src, roundMode, detail::LaneMask::first(mask, lanes), repeatTime, repeatParams,
                               loc);
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
                            dslc::Loc loc = {}) {
    detail::cast_l0<isSetMask>(dst, src, roundMode, detail::LaneMask::from(mask), repeatTime, repeatParams, loc);
}

}  // namespace AscendC
