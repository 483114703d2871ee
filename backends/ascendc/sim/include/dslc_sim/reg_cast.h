// RegBase Cast (asc-devkit include/basic_api/reg_compute/kernel_reg_compute_vec_vconv_intf.h):
//   template <typename T = DefaultType, typename U = DefaultType, const CastTrait& trait = castTrait,
//             typename S, typename V>
//   __simd_callee__ inline void Cast(S& dstReg, V& srcReg, MaskReg& mask);
// Semantics from docs Reg矢量计算/类型转换/Cast.md and the 3510 impl
// (impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_vec_vconv_impl.h):
//  * One instruction handles VL bytes of the wider type. Widening reads source element
//    f*i + layout (RegLayout ZERO/ONE) into dst lane i; narrowing writes dst element f*i + layout
//    and sets the other narrow elements of the lane to 0. Equal-width pairs ignore the layout.
//  * The mask selects by the source element; ZEROING gives 0 outside it, MERGING (layout
//    UNKNOWN/ZERO only) keeps the dst elements whose own mask bit is clear (CopyMerging). mrgMode
//    UNKNOWN (the castTrait default) is refused, as the impl's static_assert does.
//  * SatMode (per instruction, CTRL[60] = 0): float -> int NO_SAT keeps the low bits of the rounded
//    value (+-inf -> the extremes), SAT clamps, NaN -> 0 in both; float -> float SAT gives 0 for NaN
//    and the extremes on overflow; int -> int NO_SAT truncates, SAT clamps. Where the doc table
//    needs NO_SAT or SAT, UNKNOWN is refused.
//  Truncate (below): a float lane rounded to an integral value of its own type.
//  * RoundMode: RINT (half to even), ROUND (half away), FLOOR, CEIL, TRUNC, ODD (f32 -> f16 only);
//    CAST_NONE means RINT for f32 -> f16 and f16 -> int8/uint8 and is refused for f32 -> bf16 (impl
//    lines 161-184); the other modes (HYBRID, UNKNOWN where a rounding happens) are not modelled.
// Pairs modelled (subset of the doc's tables 6-9): f16/bf16 <-> f32, f32 <-> i32, f16 -> i8/u8,
// i8/u8 -> f16, f32 <-> i16, f16 <-> i16, f16 -> i32, f16 <-> bf16, i16 <-> i32.
#pragma once
#include "reg_compute.h"

namespace AscendC {
namespace Reg {
namespace sim {

// What the doc table asks of a pair's trait.
struct CastRule {
    bool ok;           // pair modelled
    bool layout;       // width changes: ZERO or ONE
    bool sat;          // NO_SAT or SAT required
    bool rounds;       // a rounding mode applies
    bool odd;          // CAST_ODD allowed
    bool none_rint;    // CAST_NONE means CAST_RINT
};

template <typename D, typename S> constexpr CastRule cast_rule() {
    constexpr bool f32 = std::is_same<S, float>::value, f16 = std::is_same<S, half>::value,
                   bf = std::is_same<S, bfloat16_t>::value, i32 = std::is_same<S, int32_t>::value,
                   i16 = std::is_same<S, int16_t>::value, i8 = std::is_same<S, int8_t>::value,
                   u8 = std::is_same<S, uint8_t>::value;
    constexpr bool df32 = std::is_same<D, float>::value, df16 = std::is_same<D, half>::value,
                   dbf = std::is_same<D, bfloat16_t>::value, di32 = std::is_same<D, int32_t>::value,
                   di16 = std::is_same<D, int16_t>::value, di8 = std::is_same<D, int8_t>::value,
                   du8 = std::is_same<D, uint8_t>::value;
    //                       ok     layout sat    rounds odd    none_rint
    if ((f16 || bf) && df32) return {true, true, false, false, false, false};
    if (f32 && df16) return {true, true, true, true, true, true};
    if (f32 && dbf) return {true, true, true, true, false, false};
    if (f32 && di32) return {true, false, true, true, false, false};
    if (i32 && df32) return {true, false, false, true, false, false};
    if (f16 && (di8 || du8)) return {true, true, true, true, false, true};
    if ((i8 || u8) && df16) return {true, true, false, false, false, false};
    if (f32 && di16) return {true, true, true, true, false, false};
    if (i16 && df32) return {true, true, false, false, false, false};
    if (f16 && di16) return {true, false, true, true, false, false};
    if (i16 && df16) return {true, false, false, true, false, false};
    if (f16 && di32) return {true, true, false, true, false, false};
    if (f16 && dbf) return {true, false, false, true, false, false};
    if (bf && df16) return {true, false, true, true, false, false};
    if (i16 && di32) return {true, true, false, false, false, false};
    if (i32 && di16) return {true, true, true, false, false, false};
    return {false, false, false, false, false, false};
}

inline const char* round_name(RoundMode m) {
    switch (m) {
        case RoundMode::CAST_NONE: return "CAST_NONE";
        case RoundMode::CAST_RINT: return "CAST_RINT";
        case RoundMode::CAST_FLOOR: return "CAST_FLOOR";
        case RoundMode::CAST_CEIL: return "CAST_CEIL";
        case RoundMode::CAST_ROUND: return "CAST_ROUND";
        case RoundMode::CAST_TRUNC: return "CAST_TRUNC";
        case RoundMode::CAST_ODD: return "CAST_ODD";
        case RoundMode::CAST_HYBRID: return "CAST_HYBRID";
        case RoundMode::UNKNOWN: return "UNKNOWN";
        default: return "RoundMode";
    }
}

// The largest finite value of a float type, with the sign of `negative`.
template <typename D> inline D max_finite(bool negative) {
    if constexpr (std::is_same<D, half>::value)
        return half::from_bits(negative ? 0xfbffu : 0x7bffu);
    else if constexpr (std::is_same<D, bfloat16_t>::value)
        return bfloat16_t::from_bits(negative ? 0xff7fu : 0x7f7fu);
    else
        return negative ? -std::numeric_limits<float>::max() : std::numeric_limits<float>::max();
}

// One element: x is the source value (exact in double), m the effective rounding mode.
template <typename D, typename S> inline D convert(S s, RoundMode m, bool sat) {
    using AscendC::detail::is_floatlike;
    const double x = static_cast<double>(static_cast<calc<S>>(s));
    if constexpr (is_floatlike<D>) {
        if (sat && std::isnan(x)) return D(0.0f);
        // f16/bf16 -> f32 is exact; everything else rounds with m.
        D r;
        if constexpr (std::is_same<D, float>::value && is_floatlike<S>)
            r = static_cast<float>(static_cast<calc<S>>(s));
        else
            r = AscendC::detail::round_float<D>(x, m);
        if (sat && std::isinf(static_cast<float>(static_cast<calc<D>>(r)))) return max_finite<D>(x < 0);
        return r;
    } else {
        using L = std::numeric_limits<D>;
        if constexpr (is_floatlike<S>) {
            if (std::isnan(x)) return D(0);
            if (std::isinf(x)) return x < 0 ? L::lowest() : L::max();
        }
        double r = is_floatlike<S> ? AscendC::detail::round_int(x, m) : x;
        if (sat || (!is_floatlike<S> && sizeof(D) >= sizeof(S))) {
            if (r <= static_cast<double>(L::lowest())) return L::lowest();
            if (r >= static_cast<double>(L::max())) return L::max();
            return static_cast<D>(r);
        }
        // NO_SAT: the low bits of the (integral) value.
        double mod = std::ldexp(1.0, 8 * sizeof(D));
        double w = std::fmod(r, mod);
        if (w < 0) w += mod;
        uint64_t bits = static_cast<uint64_t>(w);
        D out;
        std::memcpy(&out, &bits, sizeof(D));
        return out;
    }
}

}  // namespace sim

template <typename T = DefaultType, typename U = DefaultType, const CastTrait& trait = castTrait, typename S,
          typename V>
__simd_callee__ inline void Cast(S& dstReg, V& srcReg, MaskReg& mask, dslc::Loc loc = {}) {
    using D = typename S::ActualT;
    using E = typename V::ActualT;
    static_assert(std::is_same<T, DefaultType>::value || std::is_same<T, D>::value, "T type is not correct!");
    static_assert(std::is_same<U, DefaultType>::value || std::is_same<U, E>::value, "U type is not correct!");
    static_assert(trait.mrgMode == MaskMergeMode::ZEROING || trait.mrgMode == MaskMergeMode::MERGING,
                  "current Cast api only supported Mode ZEROING/MERGING on current device!");
    constexpr sim::CastRule rule = sim::cast_rule<D, E>();
    const char* api = "Cast";
    sim::check_reg(dstReg, api, loc);
    sim::check_reg(srcReg, api, loc);
    sim::check_reg(mask, api, loc);
    const char* dn = dslc::dtype_name(dslc::DTypeOf<D>::value);
    const char* sn = dslc::dtype_name(dslc::DTypeOf<E>::value);
    if (!rule.ok)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "Reg::Cast %s -> %s is not modelled by the emulator", sn, dn);
    const bool part_one = trait.layoutMode == RegLayout::ONE;
    if (rule.layout && trait.layoutMode != RegLayout::ZERO && trait.layoutMode != RegLayout::ONE)
        dslc::fault(dslc::F_UNSUPPORTED, loc,
                    "Reg::Cast %s -> %s: CastTrait layoutMode must be RegLayout::ZERO or RegLayout::ONE (the widths "
                    "differ; Cast.md tables 6-9)",
                    sn, dn);
    if (trait.mrgMode == MaskMergeMode::MERGING && rule.layout && part_one)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "Reg::Cast: MERGING needs RegLayout::UNKNOWN or ZERO");
    if (rule.sat && trait.satMode != SatMode::NO_SAT && trait.satMode != SatMode::SAT)
        dslc::fault(dslc::F_UNSUPPORTED, loc,
                    "Reg::Cast %s -> %s: CastTrait satMode must be SatMode::NO_SAT or SatMode::SAT (Cast.md tables 6-9)",
                    sn, dn);
    RoundMode m = trait.roundMode;
    if (rule.rounds) {
        if (m == RoundMode::CAST_NONE && rule.none_rint) m = RoundMode::CAST_RINT;
        bool ok = m == RoundMode::CAST_RINT || m == RoundMode::CAST_ROUND || m == RoundMode::CAST_FLOOR ||
                  m == RoundMode::CAST_CEIL || m == RoundMode::CAST_TRUNC || (rule.odd && m == RoundMode::CAST_ODD);
        if (!ok)
            dslc::fault(dslc::F_UNSUPPORTED, loc,
                        "Reg::Cast %s -> %s: RoundMode::%s is not supported (CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, "
                        "CAST_TRUNC%s; Cast.md tables 6-9)",
                        sn, dn, sim::round_name(trait.roundMode), rule.odd ? ", CAST_ODD" : "");
    }
    // A pair with no SatMode in the doc table cannot overflow: widening keeps NaN and inf.
    const bool sat = rule.sat ? trait.satMode == SatMode::SAT : false;
    dslc::check_cast(dslc::DTypeOf<E>::value, dslc::DTypeOf<D>::value, static_cast<int>(m), loc);
    dslc::reg_issue(api, loc);
    dslc::count_vector(1);

    constexpr uint32_t ds = sizeof(D), ss = sizeof(E);
    constexpr uint32_t wide = ds > ss ? ds : ss;
    constexpr uint32_t f = ds > ss ? ds / ss : ss / ds;
    constexpr uint32_t lanes = sim::VL / wide;
    const uint32_t part = rule.layout && part_one ? 1 : 0;
    S tmp(loc);
    for (uint32_t i = 0; i < lanes; i++) {
        // Source element, destination element of lane i.
        uint32_t se = ds > ss ? f * i + part : i;
        uint32_t de = ds < ss ? f * i + part : i;
        bool mu = mask.unknown(se, ss);
        bool on = mask.on(se, ss) || mu;
        if (ds < ss)
            for (uint32_t k = 0; k < f; k++) tmp.put(f * i + k, D(0), false);
        if (on)
            tmp.put(de, sim::convert<D, E>(srcReg.lane(se), m, sat), mu || srcReg.lane_undef(se));
        else
            tmp.put(de, D(0), false);
    }
    sim::carry(tmp, srcReg);
    if (trait.mrgMode == MaskMergeMode::ZEROING) {
        dstReg = tmp;
    } else {
        for (uint32_t j = 0; j < S::LANES; j++)
            if (mask.on(j, ds) || mask.unknown(j, ds)) dstReg.put(j, tmp.lane(j), tmp.lane_undef(j) || mask.unknown(j, ds));
        if (!dstReg.from.file) dstReg.from = tmp.from;
    }
}

// truncate f162f16/f322f32/bf162bf16 (kernel_reg_compute_vec_vconv_intf.h; the 3510 TruncateImpl, vtrc):
// each active lane rounded to an integral value of its own type with roundMode (CAST_NONE is
// CAST_RINT); NaN and +-inf stay. ZEROING only, as the impl's static_assert.
template <typename T = DefaultType, RoundMode roundMode = RoundMode::CAST_NONE,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S>
__simd_callee__ inline void Truncate(S& dstReg, S& srcReg, MaskReg& mask, dslc::Loc loc = {}) {
    using E = typename S::ActualT;
    static_assert(mode == MaskMergeMode::ZEROING, "current trunc api only supported Mode ZEROING on current device!");
    static_assert(std::is_same<E, half>::value || std::is_same<E, float>::value || std::is_same<E, bfloat16_t>::value,
                  "current trunc data type is not supported on current device!");
    static_assert(std::is_same<T, DefaultType>::value || std::is_same<T, E>::value, "T type is not correct!");
    constexpr RoundMode m = roundMode == RoundMode::CAST_NONE ? RoundMode::CAST_RINT : roundMode;
    if (m != RoundMode::CAST_RINT && m != RoundMode::CAST_ROUND && m != RoundMode::CAST_FLOOR &&
        m != RoundMode::CAST_CEIL && m != RoundMode::CAST_TRUNC)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "Reg::Truncate: RoundMode::%s is not modelled by the emulator",
                    sim::round_name(roundMode));
    sim::unary<mode>("Truncate", dstReg, srcReg, mask, loc, [](auto a) {
        return static_cast<decltype(a)>(AscendC::detail::round_int(static_cast<double>(a), m));  // -0.4 -> -0
    });
}

}  // namespace Reg
}  // namespace AscendC
