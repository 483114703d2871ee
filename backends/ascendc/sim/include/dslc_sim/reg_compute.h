// RegBase register compute, with the signatures of asc-devkit 9.1 include/basic_api/reg_compute/:
//   kernel_reg_compute_vec_binary_intf.h         Add Sub Mul Div Max Min (U& dst, U& src0, U& src1, MaskReg& mask)
//   kernel_reg_compute_vec_binary_scalar_intf.h  Adds Muls Maxs Mins (S& dst, S& src, U scalarValue, MaskReg& mask)
//   kernel_reg_compute_vec_unary_intf.h          Abs Relu Exp Sqrt Ln Log Neg (U& dst, U& src, MaskReg& mask)
//   kernel_reg_compute_vec_duplicate_intf.h      Duplicate(S& dst, U scalar[, MaskReg& mask]),
//                                                Duplicate(S& dst, S& src, MaskReg& mask)  (lane 0 broadcast)
//   kernel_reg_compute_vec_cmpsel_intf.h         Compare<T, CMPMODE>(MaskReg& dst, U& a, U& b, MaskReg& mask),
//                                                Compares<T, CMPMODE>(MaskReg& dst, U& a, S scalar, MaskReg& mask),
//                                                Select(U& dst, U& src0, U& src1, MaskReg& mask)  (bit 1 -> src0)
//   kernel_reg_compute_vec_reduce_intf.h         Reduce<ReduceType, T, U, mode>(S& dst, V src, MaskReg mask)
// (the Reg API has no Rsqrt or Reciprocal: use Sqrt and Div.)
// MaskMergeMode (docs 辅助数据类型/MaskMergeMode.md): ZEROING sets inactive lanes to 0, MERGING keeps
// the old dst lane. f16/bf16 compute in float and round once (exact for + - * / sqrt, whose float
// result rounds correctly to 16 bits); Exp/Ln are evaluated in double and rounded once, like the
// MemBase ops. Integer Add/Sub/Mul wrap.
#pragma once
#include "reg_datacopy.h"
#include "vec_cmp.h"

namespace AscendC {
namespace Reg {
namespace sim {

template <typename T> using calc = typename std::conditional<AscendC::detail::is_floatlike<T>, float, T>::type;

// The element types each op takes on 3510: the SupportType static_asserts of the impl
// (impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_vec_*_impl.h), probed through the compile
// gate over f32 f16 bf16 i32 i16 u16 i8 u8 u32 (2026-12-01). 64-bit types are not modelled.
enum class Types { ALL, NO_B8, NO_B8_BF16, DIV, SIGNED, RELU, FLOAT };
template <typename T, typename... L> constexpr bool one_of = (std::is_same<T, L>::value || ...);
template <Types k, typename T> constexpr bool accepts() {
    constexpr bool all = one_of<T, float, half, bfloat16_t, int32_t, int16_t, uint16_t, int8_t, uint8_t, uint32_t>;
    switch (k) {
        case Types::ALL: return all;
        case Types::NO_B8: return all && sizeof(T) > 1;
        case Types::NO_B8_BF16: return all && sizeof(T) > 1 && !std::is_same<T, bfloat16_t>::value;
        case Types::DIV: return one_of<T, float, half, int32_t, int16_t, uint16_t, uint32_t>;
        case Types::SIGNED: return one_of<T, float, half, int32_t, int16_t, int8_t>;
        case Types::RELU: return one_of<T, float, half, int32_t>;
        default: return one_of<T, float, half>;
    }
}
#define DSLC_REG_TYPES(KIND, T) \
    static_assert(sim::accepts<sim::Types::KIND, T>(), "current data type is not supported on current device!")

template <typename T, typename U> constexpr void check_t() {
    static_assert(std::is_same<T, DefaultType>::value || std::is_same<T, typename U::ActualT>::value,
                  "T type is not correct!");
}

template <typename C> inline C wrap_add(C a, C b) {
    if constexpr (std::is_integral<C>::value)
        return static_cast<C>(static_cast<typename std::make_unsigned<C>::type>(a) +
                              static_cast<typename std::make_unsigned<C>::type>(b));
    else
        return a + b;
}
template <typename C> inline C wrap_sub(C a, C b) {
    if constexpr (std::is_integral<C>::value)
        return static_cast<C>(static_cast<typename std::make_unsigned<C>::type>(a) -
                              static_cast<typename std::make_unsigned<C>::type>(b));
    else
        return a - b;
}
template <typename C> inline C wrap_mul(C a, C b) {
    if constexpr (std::is_integral<C>::value)
        return static_cast<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else
        return a * b;
}

// Writes every lane of dst: f(i, undef) for active lanes, 0 (ZEROING) or the old lane (MERGING) for
// the others. A lane whose mask bit is undefined is undefined.
template <MaskMergeMode mode, typename D, typename F>
inline void lanewise(D& dst, const MaskReg& mask, F f) {
    static_assert(mode == MaskMergeMode::ZEROING || mode == MaskMergeMode::MERGING,
                  "MaskMergeMode must be ZEROING or MERGING");
    using T = typename D::ActualT;
    for (uint32_t i = 0; i < D::LANES; i++) {
        bool mu = mask.unknown(i, sizeof(T));
        if (mask.on(i, sizeof(T)) || mu) {
            bool u = mu;
            T v = f(i, u);
            dst.put(i, v, u);
        } else if (mode == MaskMergeMode::ZEROING) {
            dst.put(i, T(0), false);
        }
    }
}

template <typename U> inline calc<typename U::ActualT> in(const U& r, uint32_t i, bool& u) {
    u = u || r.lane_undef(i);
    return static_cast<calc<typename U::ActualT>>(r.lane(i));
}

template <MaskMergeMode mode, typename U, typename F>
inline void binary(const char* api, U& dst, U& a, U& b, MaskReg& mask, dslc::Loc loc, F f) {
    check_reg(dst, api, loc);
    check_reg(a, api, loc);
    check_reg(b, api, loc);
    check_reg(mask, api, loc);
    using T = typename U::ActualT;
    if (std::is_integral<T>::value && std::strcmp(api, "Div") == 0)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "Reg::Div of integers is not modelled by the emulator");
    dslc::trace_dtype(dslc::DTypeOf<T>::value);
    dslc::reg_issue(api, loc);
    dslc::count_vector(1);
    lanewise<mode>(dst, mask, [&](uint32_t i, bool& u) {
        auto x = in(a, i, u);
        auto y = in(b, i, u);
        return static_cast<T>(f(x, y));
    });
    carry(dst, a, b);
}

template <MaskMergeMode mode, typename U, typename F>
inline void unary(const char* api, U& dst, U& a, MaskReg& mask, dslc::Loc loc, F f) {
    check_reg(dst, api, loc);
    check_reg(a, api, loc);
    check_reg(mask, api, loc);
    using T = typename U::ActualT;
    dslc::trace_dtype(dslc::DTypeOf<T>::value);
    dslc::reg_issue(api, loc);
    dslc::count_vector(1);
    lanewise<mode>(dst, mask, [&](uint32_t i, bool& u) { return static_cast<T>(f(in(a, i, u))); });
    carry(dst, a);
}

template <typename C> inline C max_c(C a, C b) { return AscendC::detail::max_c(a, b); }
template <typename C> inline C abs_c(C a) {
    if constexpr (std::is_floating_point<C>::value)
        return std::fabs(a);
    else if constexpr (std::is_signed<C>::value)
        return a < 0 ? wrap_sub(C(0), a) : a;
    else
        return a;
}
template <typename C> inline C min_c(C a, C b) { return AscendC::detail::min_c(a, b); }

}  // namespace sim

// MERGING is accepted where the 3510 impl accepts it (Add, Max, Min, Duplicate, Cast); the other ops
// static_assert ZEROING with the impl's message (impl/basic_api/reg_compute/dav_3510/*_impl.h).
#define DSLC_ZEROING_ONLY(NAME, mode)                                                                     \
    static_assert(mode == MaskMergeMode::ZEROING, "current " #NAME " api only supported Mode ZEROING on current device!")

#define DSLC_REG_BINARY(NAME, MODE_KIND, MERGING_OK, TYPES, EXPR)                                         \
    template <typename T = DefaultType, MODE_KIND mode = MaskMergeMode::ZEROING, typename U>               \
    __simd_callee__ inline void NAME(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask, dslc::Loc loc = {}) { \
        static_assert(MERGING_OK || mode == MaskMergeMode::ZEROING,                                        \
                      "current " #NAME " api only supported Mode ZEROING on current device!");             \
        DSLC_REG_TYPES(TYPES, typename U::ActualT);                                                        \
        sim::check_t<T, U>();                                                                              \
        sim::binary<mode>(#NAME, dstReg, srcReg0, srcReg1, mask, loc, [](auto a, auto b) { return EXPR; }); \
    }
DSLC_REG_BINARY(Add, MaskMergeMode, true, ALL, sim::wrap_add(a, b))
DSLC_REG_BINARY(Sub, MaskMergeMode, false, ALL, sim::wrap_sub(a, b))
DSLC_REG_BINARY(Mul, MaskMergeMode, false, NO_B8, sim::wrap_mul(a, b))
DSLC_REG_BINARY(Div, auto, false, DIV, a / b)
DSLC_REG_BINARY(Max, MaskMergeMode, true, ALL, sim::max_c(a, b))
DSLC_REG_BINARY(Min, MaskMergeMode, true, ALL, sim::min_c(a, b))
#undef DSLC_REG_BINARY

// The scalar is converted to the register's element type first.
#define DSLC_REG_SCALAR(NAME, TYPES, EXPR)                                                                       \
    template <typename T = DefaultType, typename U, MaskMergeMode mode = MaskMergeMode::ZEROING, typename S>     \
    __simd_callee__ inline void NAME(S& dstReg, S& srcReg, U scalarValue, MaskReg& mask, dslc::Loc loc = {}) {   \
        DSLC_ZEROING_ONLY(NAME, mode);                                                                           \
        DSLC_REG_TYPES(TYPES, typename S::ActualT);                                                              \
        sim::check_t<T, S>();                                                                                    \
        using E = typename S::ActualT;                                                                           \
        const sim::calc<E> s = static_cast<sim::calc<E>>(static_cast<E>(scalarValue));                           \
        sim::unary<mode>(#NAME, dstReg, srcReg, mask, loc, [s](auto a) { return EXPR; });                        \
    }
DSLC_REG_SCALAR(Adds, ALL, sim::wrap_add(a, s))
DSLC_REG_SCALAR(Muls, NO_B8_BF16, sim::wrap_mul(a, s))
DSLC_REG_SCALAR(Maxs, ALL, sim::max_c(a, s))
DSLC_REG_SCALAR(Mins, ALL, sim::min_c(a, s))
#undef DSLC_REG_SCALAR

#define DSLC_REG_UNARY(NAME, MODE_KIND, TYPES, EXPR)                                                    \
    template <typename T = DefaultType, MODE_KIND mode = MaskMergeMode::ZEROING, typename U>             \
    __simd_callee__ inline void NAME(U& dstReg, U& srcReg, MaskReg& mask, dslc::Loc loc = {}) {          \
        DSLC_ZEROING_ONLY(NAME, mode);                                                                   \
        DSLC_REG_TYPES(TYPES, typename U::ActualT);                                                      \
        sim::check_t<T, U>();                                                                            \
        sim::unary<mode>(#NAME, dstReg, srcReg, mask, loc, [](auto a) { return EXPR; });                 \
    }
DSLC_REG_UNARY(Abs, MaskMergeMode, SIGNED, sim::abs_c(a))
DSLC_REG_UNARY(Relu, MaskMergeMode, RELU, (a > 0 || a != a) ? a : decltype(a)(0))  // NaN stays NaN
DSLC_REG_UNARY(Neg, MaskMergeMode, SIGNED, decltype(a)(-a))
DSLC_REG_UNARY(Exp, auto, FLOAT, AscendC::detail::exp_f(a))
DSLC_REG_UNARY(Sqrt, auto, FLOAT, std::sqrt(a))
DSLC_REG_UNARY(Ln, auto, FLOAT, AscendC::detail::ln_f(a))
DSLC_REG_UNARY(Log, auto, FLOAT, AscendC::detail::ln_f(a))
#undef DSLC_REG_UNARY
#undef DSLC_ZEROING_ONLY
#undef DSLC_REG_TYPES

// ---- Duplicate ----
template <typename T = DefaultType, typename U, typename S,
          typename = typename std::enable_if<!std::is_class<U>::value || std::is_same<U, half>::value ||
                                             std::is_same<U, bfloat16_t>::value>::type>
__simd_callee__ inline void Duplicate(S& dstReg, U scalarValue, dslc::Loc loc = {}) {
    sim::check_t<T, S>();
    sim::check_reg(dstReg, "Duplicate", loc);
    using E = typename S::ActualT;
    dslc::trace_dtype(dslc::DTypeOf<E>::value);
    dslc::reg_issue("Duplicate", loc);
    dslc::count_vector(1);
    const E v = static_cast<E>(scalarValue);
    for (uint32_t i = 0; i < S::LANES; i++) dstReg.put(i, v, false);
}

template <typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, typename U, typename S,
          typename = typename std::enable_if<!std::is_class<U>::value || std::is_same<U, half>::value ||
                                             std::is_same<U, bfloat16_t>::value>::type>
__simd_callee__ inline void Duplicate(S& dstReg, U scalarValue, MaskReg& mask, dslc::Loc loc = {}) {
    sim::check_t<T, S>();
    sim::check_reg(dstReg, "Duplicate", loc);
    sim::check_reg(mask, "Duplicate", loc);
    using E = typename S::ActualT;
    dslc::trace_dtype(dslc::DTypeOf<E>::value);
    dslc::reg_issue("Duplicate", loc);
    dslc::count_vector(1);
    const E v = static_cast<E>(scalarValue);
    sim::lanewise<mode>(dstReg, mask, [v](uint32_t, bool&) { return v; });
}

// Broadcasts lane 0 of srcReg (HighLowPart::LOWEST, the only value supported).
template <typename T = DefaultType, HighLowPart pos = HighLowPart::LOWEST, MaskMergeMode mode = MaskMergeMode::ZEROING,
          typename S>
__simd_callee__ inline void Duplicate(S& dstReg, S& srcReg, MaskReg& mask, dslc::Loc loc = {}) {
    static_assert(pos == HighLowPart::LOWEST, "Duplicate: only HighLowPart::LOWEST is supported");
    sim::check_t<T, S>();
    sim::check_reg(dstReg, "Duplicate", loc);
    sim::check_reg(srcReg, "Duplicate", loc);
    sim::check_reg(mask, "Duplicate", loc);
    dslc::trace_dtype(dslc::DTypeOf<typename S::ActualT>::value);
    dslc::reg_issue("Duplicate", loc);
    dslc::count_vector(1);
    const auto v = srcReg.lane(0);
    const bool vu = srcReg.lane_undef(0);
    sim::lanewise<mode>(dstReg, mask, [v, vu](uint32_t, bool& u) {
        u = u || vu;
        return v;
    });
    sim::carry(dstReg, srcReg);
}

// ---- Compare / Compares / Select ----
namespace sim {
using ::AscendC::detail::cmp;  // the MemBase Compare's predicate (vec_cmp.h)

// dst bit of element i = cmp(lane i) for active lanes, 0 for inactive ones.
template <typename U, typename F>
inline void compare(const char* api, MaskReg& dst, U& a, MaskReg& mask, dslc::Loc loc, F lane_true) {
    check_reg(dst, api, loc);
    check_reg(a, api, loc);
    check_reg(mask, api, loc);
    using E = typename U::ActualT;
    static_assert(accepts<Types::ALL, E>(), "current data type is not supported on current device!");
    dslc::trace_dtype(dslc::DTypeOf<E>::value);
    dslc::reg_issue(api, loc);
    dslc::count_vector(1);
    MaskReg out(loc);
    out.undef.fill(false);
    for (uint32_t i = 0; i < U::LANES; i++) {
        bool mu = mask.unknown(i, sizeof(E));
        bool u = mu;
        bool v = (mask.on(i, sizeof(E)) || mu) ? lane_true(i, u) : false;
        out.put(i, sizeof(E), v, u);
    }
    dst = out;
}
}  // namespace sim

template <typename T = DefaultType, CMPMODE mode = CMPMODE::EQ, typename U>
__simd_callee__ inline void Compare(MaskReg& dst, U& srcReg0, U& srcReg1, MaskReg& mask, dslc::Loc loc = {}) {
    sim::check_t<T, U>();
    sim::check_reg(srcReg1, "Compare", loc);
    sim::compare("Compare", dst, srcReg0, mask, loc, [&](uint32_t i, bool& u) {
        auto x = sim::in(srcReg0, i, u);
        auto y = sim::in(srcReg1, i, u);
        return sim::cmp(x, y, mode);
    });
}

template <typename T = DefaultType, CMPMODE mode = CMPMODE::EQ, typename U, typename S>
__simd_callee__ inline void Compares(MaskReg& dst, U& srcReg, S scalarValue, MaskReg& mask, dslc::Loc loc = {}) {
    sim::check_t<T, U>();
    using E = typename U::ActualT;
    const sim::calc<E> s = static_cast<sim::calc<E>>(static_cast<E>(scalarValue));
    sim::compare("Compares", dst, srcReg, mask, loc, [&](uint32_t i, bool& u) {
        auto x = sim::in(srcReg, i, u);
        return sim::cmp(x, s, mode);
    });
}

// Every lane is written: mask bit 1 -> srcReg0, 0 -> srcReg1.
template <typename T = DefaultType, typename U>
__simd_callee__ inline void Select(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask, dslc::Loc loc = {}) {
    sim::check_t<T, U>();
    sim::check_reg(dstReg, "Select", loc);
    sim::check_reg(srcReg0, "Select", loc);
    sim::check_reg(srcReg1, "Select", loc);
    sim::check_reg(mask, "Select", loc);
    using E = typename U::ActualT;
    dslc::trace_dtype(dslc::DTypeOf<E>::value);
    dslc::reg_issue("Select", loc);
    dslc::count_vector(1);
    for (uint32_t i = 0; i < U::LANES; i++) {
        const U& from = mask.on(i, sizeof(E)) ? srcReg0 : srcReg1;
        bool u = mask.unknown(i, sizeof(E)) || from.lane_undef(i);
        dstReg.put(i, from.lane(i), u);
    }
    sim::carry(dstReg, srcReg0, srcReg1);
}

// ---- Reduce: lane 0 = the reduction of the active lanes, the other lanes 0 (ZEROING). SUM adds in
// a pairwise tree over the VL lanes (inactive lanes count as 0), as the MemBase reductions here do;
// the hardware's order is not documented. MAX/MIN also give an index (lane 1 here, undefined: its
// encoding is not modelled). Pairs of Reduce.md tables 3-4; i16 -> i32 and u16 -> u32 SUM widen.
// Reg::ReduceType is AscendC::ReduceType (kernel_reg_compute_utils.h:304 `using ReduceType = AscendC::ReduceType;`).
using ReduceType = AscendC::ReduceType;
template <ReduceType type = ReduceType::SUM, typename T = DefaultType, typename U = DefaultType,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>
__simd_callee__ inline void Reduce(S& dstReg, V srcReg, MaskReg mask, dslc::Loc loc = {}) {
    static_assert(mode == MaskMergeMode::ZEROING, "Reduce: only MaskMergeMode::ZEROING is supported");
    using D = typename S::ActualT;
    using E = typename V::ActualT;
    constexpr bool sum_pair = (std::is_same<D, E>::value && sim::one_of<E, float, half, int32_t, uint32_t>) ||
                              (std::is_same<D, int32_t>::value && std::is_same<E, int16_t>::value) ||
                              (std::is_same<D, uint32_t>::value && std::is_same<E, uint16_t>::value);
    constexpr bool extreme_pair =
        std::is_same<D, E>::value && sim::one_of<E, float, half, int32_t, uint32_t, int16_t, uint16_t>;
    static_assert(type == ReduceType::SUM ? sum_pair : extreme_pair,
                  "current data type is not supported on current device! (Reduce.md tables 3-4)");
    sim::check_reg(dstReg, "Reduce", loc);
    sim::check_reg(mask, "Reduce", loc);
    dslc::trace_dtype(dslc::DTypeOf<E>::value);
    dslc::reg_issue("Reduce", loc);
    dslc::count_vector(1);
    using C = sim::calc<D>;
    bool u = false;
    C level[256];
    uint32_t n = V::LANES, active = 0, best = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool on = mask.on(i, sizeof(E));
        u = u || mask.unknown(i, sizeof(E)) || (on && srcReg.lane_undef(i));
        level[i] = on ? static_cast<C>(static_cast<sim::calc<E>>(srcReg.lane(i))) : C(0);
        if (!on) continue;
        if (type != ReduceType::SUM) {
            C a = level[i], b = level[best];
            if (active == 0 || (b == b && (a != a || (type == ReduceType::MAX ? a > b : a < b)))) best = i;
        }
        active++;
    }
    C result;
    if (type == ReduceType::SUM) {
        uint32_t k = n;
        while (k > 1) {
            uint32_t h = (k + 1) / 2;
            for (uint32_t i = 0; i + h < k; i++) level[i] = sim::wrap_add(level[i], level[i + h]);
            k = h;
        }
        result = level[0];
    } else {
        result = active ? level[best] : C(0);
    }
    for (uint32_t i = 0; i < S::LANES; i++) dstReg.put(i, D(0), false);
    dstReg.put(0, static_cast<D>(result), u);
    if (type != ReduceType::SUM) dstReg.put(1, D(0), true);
    sim::carry(dstReg, srcReg);
}

}  // namespace Reg
}  // namespace AscendC

// ---- MaskReg logic (asc-devkit include/basic_api/reg_compute/kernel_reg_compute_maskreg_intf.h; docs
// Reg矢量计算/逻辑计算/And.md, Not.md, Or.md, Xor.md, MaskReg计算/Select.md, Move.md): bitwise over the 256
// bits; bits whose `mask` bit is 0 become 0, except in Select, where `mask` chooses src0 (1) or src1 (0).
namespace AscendC {
namespace Reg {
namespace sim {
template <typename F>
inline void mask_logic(const char* api, MaskReg& dst, const MaskReg& a, const MaskReg& b, const MaskReg& mask,
                       dslc::Loc loc, F f) {
    check_reg(dst, api, loc);
    check_reg(a, api, loc);
    check_reg(b, api, loc);
    check_reg(mask, api, loc);
    dslc::reg_issue(api, loc);
    MaskReg out(loc);
    for (uint32_t k = 0; k < VL; k++) {
        bool on = mask.bits.get(k);
        bool u = mask.undef.get(k) || (on && (a.undef.get(k) || b.undef.get(k)));
        out.bits.set(k, on && f(a.bits.get(k), b.bits.get(k)));
        out.undef.set(k, u);
    }
    dst = out;
}
}  // namespace sim

__simd_callee__ inline void Not(MaskReg& dst, MaskReg& src, MaskReg& mask, dslc::Loc loc = {}) {
    sim::mask_logic("Not", dst, src, src, mask, loc, [](bool a, bool) { return !a; });
}
__simd_callee__ inline void And(MaskReg& dst, MaskReg& src0, MaskReg& src1, MaskReg& mask, dslc::Loc loc = {}) {
    sim::mask_logic("And", dst, src0, src1, mask, loc, [](bool a, bool b) { return a && b; });
}
__simd_callee__ inline void Or(MaskReg& dst, MaskReg& src0, MaskReg& src1, MaskReg& mask, dslc::Loc loc = {}) {
    sim::mask_logic("Or", dst, src0, src1, mask, loc, [](bool a, bool b) { return a || b; });
}
__simd_callee__ inline void Xor(MaskReg& dst, MaskReg& src0, MaskReg& src1, MaskReg& mask, dslc::Loc loc = {}) {
    sim::mask_logic("Xor", dst, src0, src1, mask, loc, [](bool a, bool b) { return a != b; });
}
__simd_callee__ inline void Move(MaskReg& dst, MaskReg& src, MaskReg& mask, dslc::Loc loc = {}) {
    sim::mask_logic("Move", dst, src, src, mask, loc, [](bool a, bool) { return a; });
}
__simd_callee__ inline void Move(MaskReg& dst, MaskReg& src, dslc::Loc loc = {}) {
    sim::check_reg(dst, "Move", loc);
    sim::check_reg(src, "Move", loc);
    dslc::reg_issue("Move", loc);
    dst = src;
}
__simd_callee__ inline void Select(MaskReg& dst, MaskReg& src0, MaskReg& src1, MaskReg& mask, dslc::Loc loc = {}) {
    sim::check_reg(dst, "Select", loc);
    sim::check_reg(src0, "Select", loc);
    sim::check_reg(src1, "Select", loc);
    sim::check_reg(mask, "Select", loc);
    dslc::reg_issue("Select", loc);
    MaskReg out(loc);
    for (uint32_t k = 0; k < sim::VL; k++) {
        const MaskReg& from = mask.bits.get(k) ? src0 : src1;
        out.bits.set(k, from.bits.get(k));
        out.undef.set(k, mask.undef.get(k) || from.undef.get(k));
    }
    dst = out;
}

}  // namespace Reg
}  // namespace AscendC
