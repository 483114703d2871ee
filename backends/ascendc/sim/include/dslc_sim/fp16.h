// half and bfloat16_t: 16-bit storage types whose float conversions round to nearest even,
// bit-identical to numpy.float16 and ml_dtypes.bfloat16. Arithmetic on them widens to float.
#pragma once
#include <cstdint>
#include <cstring>

namespace dslc {

inline uint32_t f32_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float bits_f32(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// float -> IEEE binary16, round to nearest even (overflow -> inf, NaN kept quiet).
inline uint16_t f32_to_f16_rne(float f) {
    uint32_t x = f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520 -> inf
    if (ax < 0x38800000u) {                                                // subnormal or zero in f16
        if (ax < 0x33000000u) return static_cast<uint16_t>(sign);          // < 2^-25: rounds to 0
        uint32_t e = ax >> 23;
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - e;  // 14 + (113 - e)... result = m >> (shift)
        uint32_t r = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return static_cast<uint16_t>(sign | r);
    }
    uint32_t r = ((ax - 0x38000000u) >> 13);
    uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) r++;
    return static_cast<uint16_t>(sign | r);
}

inline float f16_to_f32(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1f;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1f) return bits_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return bits_f32(sign);
        float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
        return sign ? -v : v;
    }
    return bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

inline uint16_t f32_to_bf16_rne(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;
    return static_cast<uint16_t>(x >> 16);
}
inline float bf16_to_f32(uint16_t b) { return bits_f32(static_cast<uint32_t>(b) << 16); }

}  // namespace dslc

struct half {
    uint16_t bits_;
    half() = default;
    half(float f) : bits_(dslc::f32_to_f16_rne(f)) {}
    half(double d) : bits_(dslc::f32_to_f16_rne(static_cast<float>(d))) {}
    half(int i) : bits_(dslc::f32_to_f16_rne(static_cast<float>(i))) {}
    half(unsigned i) : bits_(dslc::f32_to_f16_rne(static_cast<float>(i))) {}
    half(long i) : bits_(dslc::f32_to_f16_rne(static_cast<float>(i))) {}
    half(unsigned long i) : bits_(dslc::f32_to_f16_rne(static_cast<float>(i))) {}
    operator float() const { return dslc::f16_to_f32(bits_); }
    static half from_bits(uint16_t b) {
        half h;
        h.bits_ = b;
        return h;
    }
    half operator-() const { return from_bits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }
};

struct bfloat16_t {
    uint16_t bits_;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits_(dslc::f32_to_bf16_rne(f)) {}
    bfloat16_t(double d) : bits_(dslc::f32_to_bf16_rne(static_cast<float>(d))) {}
    bfloat16_t(int i) : bits_(dslc::f32_to_bf16_rne(static_cast<float>(i))) {}
    bfloat16_t(unsigned i) : bits_(dslc::f32_to_bf16_rne(static_cast<float>(i))) {}
    bfloat16_t(long i) : bits_(dslc::f32_to_bf16_rne(static_cast<float>(i))) {}
    bfloat16_t(unsigned long i) : bits_(dslc::f32_to_bf16_rne(static_cast<float>(i))) {}
    operator float() const { return dslc::bf16_to_f32(bits_); }
    static bfloat16_t from_bits(uint16_t b) {
        bfloat16_t h;
        h.bits_ = b;
        return h;
    }
    bfloat16_t operator-() const { return from_bits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }
};
