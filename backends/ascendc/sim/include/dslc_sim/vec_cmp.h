// Compare / Compares (old name CompareScalar) and Select (ascendc-api.md s5; asc-devkit
// docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/). The comparison result is a bitmask:
// uint8_t, 1 bit per element, LSB first.
#pragma once
#include "vec_common.h"

namespace AscendC {

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

namespace detail {
template <typename C> inline bool cmp(C a, C b, CMPMODE m) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

// Definedness of a Compare mask, per bit: bit i is defined iff lane i of both sources is. Select
// reads it back per bit, so the undefined lanes past a tile's tail stay undefined and the valid
// ones are not affected.
inline void def_mask(uint32_t id, uint32_t dst, uint32_t a, uint32_t b, uint32_t esize, uint32_t count) {
    for (uint32_t k = 0; k < count / 8; k++) {
        uint8_t bits = 0;
        uint32_t from = dslc::kDefined;
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t u = dslc::ub_undef_at2(a + (k * 8 + i) * esize, esize, b + (k * 8 + i) * esize, esize);
            if (u == dslc::kDefined)
                bits |= uint8_t(1u << i);
            else if (from == dslc::kDefined)
                from = u;
        }
        if (bits == dslc::kAllDefined)
            dslc::ub_mark(id, dst + k, 1, dslc::kDefined);
        else
            dslc::ub_mark_undef(id, dst + k, 1, from, bits);
    }
}

// Whether bit `bit` of the mask at UB `addr` is defined.
inline bool mask_bit_defined(uint32_t addr, uint32_t bit) {
    const uint8_t* d = dslc::ub_def_map();
    return !d || ((d[addr + bit / 8] >> (bit % 8)) & 1);
}

template <typename T, typename U> inline uint32_t compare_begin(const char* api, const LocalTensor<U>& dst,
                                                              const LocalTensor<T>& src0, uint32_t count,
                                                              CMPMODE mode, dslc::Loc loc) {
    static_assert(sizeof(U) == 1, "Compare: the destination mask must be uint8_t (or int8_t)");
    dslc::check_dtype(api, dslc::DTypeOf<T>::value, loc);
    if (std::is_same<T, int32_t>::value && mode != CMPMODE::EQ)
        dslc::fault(dslc::F_UNSUPPORTED, loc, "%s: int32_t supports only CMPMODE::EQ on this target", api);
    if ((uint64_t(count) * sizeof(T)) % 256 != 0)
        dslc::fault(dslc::F_UNSUPPORTED, loc,
                    "%s: count %u x %s = %llu B is not a whole number of 256 B repeats; the elements past the last "
                    "full repeat would not be computed",
                    api, count, dslc::dtype_name(dslc::DTypeOf<T>::value),
                    (unsigned long long)(uint64_t(count) * sizeof(T)));
    uint32_t id = dslc::issue(dslc::P_V, api, loc);
    vec_operand(id, src0, count, false, api, "src0", loc);
    (void)dst;
    return id;
}
}  // namespace detail

template <typename T, typename U>
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, uint32_t count, dslc::Loc loc = {}) {
    uint32_t id = detail::compare_begin("Compare", dst, src0, count, cmpMode, loc);
    detail::vec_operand(id, src1, count, false, "Compare", "src1", loc);
    detail::vec_operand(id, dst, count / 8, true, "Compare", "dst mask", loc);
    dslc::count_vector(detail::repeats_of<T>(count));
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr());
    const T* a = src0.ptr();
    const T* b = src1.ptr();
    for (uint32_t i = 0; i < count / 8; i++) d[i] = 0;
    for (uint32_t i = 0; i < count; i++)
        if (detail::cmp(detail::calc_t<T>(a[i]), detail::calc_t<T>(b[i]), cmpMode)) d[i / 8] |= uint8_t(1u << (i % 8));
    detail::def_mask(id, dst.addr(), src0.addr(), src1.addr(), sizeof(T), count);
}

template <typename T, typename U>
__aicore__ inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar,
                                CMPMODE cmpMode, uint32_t count, dslc::Loc loc = {}) {
    uint32_t id = detail::compare_begin("Compares", dst, src0, count, cmpMode, loc);
    detail::vec_operand(id, dst, count / 8, true, "Compares", "dst mask", loc);
    dslc::count_vector(detail::repeats_of<T>(count));
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr());
    const T* a = src0.ptr();
    const detail::calc_t<T> s = src1Scalar;
    for (uint32_t i = 0; i < count / 8; i++) d[i] = 0;
    for (uint32_t i = 0; i < count; i++)
        if (detail::cmp(detail::calc_t<T>(a[i]), s, cmpMode)) d[i / 8] |= uint8_t(1u << (i % 8));
    detail::def_mask(id, dst.addr(), src0.addr(), src0.addr(), sizeof(T), count);
}

// CANN <= 9.0 spelling.
template <typename T, typename U>
__aicore__ inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar,
                                     CMPMODE cmpMode, uint32_t count, dslc::Loc loc = {}) {
    Compares(dst, src0, src1Scalar, cmpMode, count, loc);
}

namespace detail {
// Mode 0 reuses the first 256/sizeof(T) mask bits for every repeat; modes 1 and 2 consume the
// mask continuously. A set bit selects src0.
template <typename T, typename U, typename F>
inline void select_impl(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                        SELMODE mode, uint32_t count, dslc::Loc loc, const LocalTensor<T>* src1, F pick1) {
    const char* api = "Select";
    uint32_t id = vec_issue<T>(api, loc);
    const uint32_t lanes = 256 / sizeof(T);
    uint32_t mask_bits = mode == SELMODE::VSEL_CMPMASK_SPR ? (count < lanes ? count : lanes) : count;
    vec_operand(id, selMask, (uint64_t(mask_bits) + 8 * sizeof(U) - 1) / (8 * sizeof(U)), false, api, "selMask", loc);
    vec_operand(id, src0, count, false, api, "src0", loc);
    if (src1) vec_operand(id, *src1, count, false, api, "src1", loc);
    vec_operand(id, dst, count, true, api, "dst", loc);
    dslc::count_vector(repeats_of<T>(count));
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.ptr());
    T* d = dst.ptr();
    const T* a = src0.ptr();
    for (uint32_t i = 0; i < count; i++) {
        uint32_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? i % lanes : i;
        bool first = (m[bit / 8] >> (bit % 8)) & 1;
        // The lane is defined iff its mask bit and the source it selects are.
        uint32_t u = mask_bit_defined(selMask.addr(), bit) ? dslc::kDefined : selMask.addr() + bit / 8;
        if (u == dslc::kDefined)
            u = first ? dslc::ub_undef_at(src0.addr() + i * sizeof(T), sizeof(T))
                      : (src1 ? dslc::ub_undef_at(src1->addr() + i * sizeof(T), sizeof(T)) : dslc::kDefined);
        dslc::ub_mark(id, dst.addr() + i * sizeof(T), sizeof(T), u);
        d[i] = first ? a[i] : pick1(i);
    }
}
}  // namespace detail

template <typename T, typename U>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, dslc::Loc loc = {}) {
    const T* b = src1.ptr();
    detail::select_impl(dst, selMask, src0, selMode, count, loc, &src1, [b](uint32_t i) { return b[i]; });
}

template <typename T, typename U>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              T src1, SELMODE selMode, uint32_t count, dslc::Loc loc = {}) {
    detail::select_impl(dst, selMask, src0, selMode, count, loc, static_cast<const LocalTensor<T>*>(nullptr),
                        [src1](uint32_t) { return src1; });
}

}  // namespace AscendC
