// Kernel-template tiling keys (CANN "Tiling模板编程"): ASCENDC_TPL_ARGS_DECL declares the template
// parameters of a kernel entry, ASCENDC_TPL_SEL the combinations compiled, and the host encodes its
// choice with GET_TPL_TILING_KEY / ASCENDC_TPL_SEL_PARAM.
//
// Semantics as documented in asc-devkit docs/zh/api/Utils-API/Tiling模板编程/{模板参数定义,
// GET_TPL_TILING_KEY,ASCENDC_TPL_SEL_PARAM}.md and the guide 多分支策略.md, and as implemented by
// include/utils/tiling/template_argument.h + tools/build/.../template_tiling.py there:
//  * the key is the parameters' codes concatenated from bit 0 in declaration order, each in its
//    bit width (DTYPE/DATATYPE/FORMAT 8 bits, BOOL 1 bit, UINT the declared width);
//  * a DTYPE/DATATYPE/FORMAT/BOOL code is the value itself; a UINT code is the value's index in
//    the declared value list (ASCENDC_TPL_UI_LIST values, ASCENDC_TPL_UI_RANGE ranges expanded,
//    ASCENDC_TPL_UI_MIX ranges then list);
//  * the kernel entry's template arguments, in declaration order, are TypeFromId<code>::type for
//    a DATATYPE parameter and the value for every other kind.
// The host-side encoder checks the arguments like CANN's debug EncodeTilingKey (the combination
// must be one of ASCENDC_TPL_SEL), printing "[ERROR] ..." and returning INVALID_TILING_KEY.
// Unlike CANN (whose compiler parses these macros textually), the declarations here are constexpr
// data, so the emulator's generated launcher (dslc_sim/tpl_dispatch.h) can instantiate every
// selected combination of a templated entry in C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>

// kernel types (ASCENDC_TPL_KERNEL_TYPE_SEL / ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL values)
#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 4
#define ASCENDC_TPL_MIX_AIC_1_0 5
#define ASCENDC_TPL_MIX_AIC_1_1 6
#define ASCENDC_TPL_MIX_AIC_1_2 7
#define ASCENDC_TPL_AICORE 8
#define ASCENDC_TPL_VECTORCORE 9
#define ASCENDC_TPL_MIX_AICORE 10
#define ASCENDC_TPL_MIX_VECTOR_CORE 11
// bit widths
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8
// parameter kinds
#define ASCENDC_TPL_DTYPE 0
#define ASCENDC_TPL_FORMAT 1
#define ASCENDC_TPL_UINT 2
#define ASCENDC_TPL_BOOL 3
constexpr uint32_t ASCENDC_TPL_KERNEL_TYPE = 4;
constexpr uint32_t ASCENDC_TPL_DETERMINISTIC = 5;
constexpr uint32_t ASCENDC_TPL_SHARED_KERNEL_TYPE = 6;
// DATATYPE/FORMAT following an input or output (not modelled: see tpl_dispatch.h)
#define ASCENDC_TPL_INPUT_BIAS 100000000
#define ASCENDC_TPL_OUTPUT_BIAS 900000000
#define ASCENDC_TPL_INPUT(x) (ASCENDC_TPL_INPUT_BIAS + (x))
#define ASCENDC_TPL_OUTPUT(x) (ASCENDC_TPL_OUTPUT_BIAS + (x))
// UINT value list modes
#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2
constexpr uint8_t MAX_BITS_NUM = 64;
constexpr uint64_t INVALID_TILING_KEY = 0xFFFFFFFFFFFFFFFFULL;

// Native data types for ASCENDC_TPL_DATATYPE_DECL/SEL: the ge::DataType codes.
enum DslcTplDataType : uint64_t {
    C_DT_FLOAT = 0, C_DT_FLOAT16 = 1, C_DT_INT8 = 2, C_DT_INT32 = 3, C_DT_UINT8 = 4, C_DT_INT16 = 6,
    C_DT_UINT16 = 7, C_DT_UINT32 = 8, C_DT_INT64 = 9, C_DT_UINT64 = 10, C_DT_DOUBLE = 11, C_DT_BOOL = 12,
    C_DT_COMPLEX64 = 16, C_DT_BF16 = 27, C_DT_INT4 = 29, C_DT_UINT1 = 30, C_DT_INT2 = 31, C_DT_COMPLEX32 = 33,
    C_DT_HIFLOAT8 = 34, C_DT_FLOAT8_E5M2 = 35, C_DT_FLOAT8_E4M3FN = 36, C_DT_FLOAT4_E2M1 = 40,
    C_DT_FLOAT4_E1M2 = 41
};
// Native formats for ASCENDC_TPL_FORMAT_DECL/SEL (ge::Format codes; the common ones).
enum DslcTplFormat : uint64_t {
    C_FORMAT_NCHW = 0, C_FORMAT_NHWC = 1, C_FORMAT_ND = 2, C_FORMAT_NC1HWC0 = 3, C_FORMAT_FRACTAL_Z = 4,
    C_FORMAT_HWCN = 16, C_FORMAT_NDHWC = 27, C_FORMAT_FRACTAL_NZ = 29, C_FORMAT_NCDHW = 30, C_FORMAT_NDC1HWC0 = 32,
    C_FORMAT_FRACTAL_Z_3D = 33
};

namespace dslc_tpl {

constexpr int kMaxRaw = 40;     // numbers in one DECL/SEL value list
constexpr int kMaxParams = 16;  // parameters of one ASCENDC_TPL_ARGS_DECL / ASCENDC_TPL_ARGS_SEL
constexpr int kMaxSels = 48;    // ASCENDC_TPL_ARGS_SEL groups in ASCENDC_TPL_SEL
constexpr uint32_t kTilingStruct = 7;  // ASCENDC_TPL_TILING_STRUCT_SEL: names a struct, not a parameter

constexpr bool str_eq(const char* a, const char* b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

// One ASCENDC_TPL_*_DECL or ASCENDC_TPL_*_SEL: a name, a kind and the values as written.
struct Param {
    const char* name = "";
    uint32_t kind = 0;
    uint32_t bw = 0;
    bool native_dtype = false;  // DATATYPE (the kernel gets a type), not DTYPE (a number)
    int nraw = 0;
    bool overflow = false;
    uint64_t raw[kMaxRaw] = {};

    constexpr Param() = default;
    constexpr Param(const char* n, uint32_t k, uint32_t b, bool native, std::initializer_list<uint64_t> vals)
        : name(n), kind(k), bw(b), native_dtype(native) {
        for (uint64_t v : vals) {
            if (nraw == kMaxRaw) {
                overflow = true;
                break;
            }
            raw[nraw++] = v;
        }
    }
    constexpr bool is_param() const {
        return kind != ASCENDC_TPL_KERNEL_TYPE && kind != ASCENDC_TPL_DETERMINISTIC && kind != kTilingStruct;
    }
    // Number of legal values (UINT value lists expanded).
    constexpr uint64_t count() const {
        if (kind != ASCENDC_TPL_UINT) return static_cast<uint64_t>(nraw);
        if (nraw < 1) return 0;
        if (raw[0] == ASCENDC_TPL_UI_LIST) return static_cast<uint64_t>(nraw - 1);
        if (nraw < 2) return 0;
        uint64_t ranges = raw[1], n = 0;
        for (uint64_t r = 0; r < ranges && 3 + 2 * r < static_cast<uint64_t>(nraw); r++)
            n += raw[3 + 2 * r] - raw[2 + 2 * r] + 1;
        if (raw[0] == ASCENDC_TPL_UI_MIX) n += static_cast<uint64_t>(nraw) - 2 - 2 * ranges;
        return n;
    }
    // The i-th legal value.
    constexpr uint64_t at(uint64_t i) const {
        if (kind != ASCENDC_TPL_UINT) return raw[i];
        if (raw[0] == ASCENDC_TPL_UI_LIST) return raw[1 + i];
        uint64_t ranges = raw[1];
        for (uint64_t r = 0; r < ranges; r++) {
            uint64_t lo = raw[2 + 2 * r], hi = raw[3 + 2 * r];
            if (i <= hi - lo) return lo + i;
            i -= hi - lo + 1;
        }
        return raw[2 + 2 * ranges + i];
    }
    // Index of value v among the legal values, or -1.
    constexpr int64_t index_of(uint64_t v) const {
        for (uint64_t i = 0, n = count(); i < n; i++)
            if (at(i) == v) return static_cast<int64_t>(i);
        return -1;
    }
    constexpr bool well_formed() const {
        if (overflow || count() == 0) return false;
        if (kind != ASCENDC_TPL_UINT) return true;
        if (raw[0] > ASCENDC_TPL_UI_MIX) return false;
        if (raw[0] != ASCENDC_TPL_UI_LIST) {
            if (nraw < 2 || 2 + 2 * raw[1] > static_cast<uint64_t>(nraw)) return false;
            for (uint64_t r = 0; r < raw[1]; r++)
                if (raw[3 + 2 * r] < raw[2 + 2 * r]) return false;
        }
        return true;
    }
};

struct Params {
    int n = 0;
    bool overflow = false;
    Param p[kMaxParams] = {};
    constexpr Params() = default;
    constexpr Params(std::initializer_list<Param> ps) {
        for (const Param& x : ps) {
            if (n == kMaxParams) {
                overflow = true;
                break;
            }
            p[n++] = x;
        }
    }
    // The SEL entry for parameter `name`, or nullptr.
    constexpr const Param* find(const char* name) const {
        for (int i = 0; i < n; i++)
            if (p[i].is_param() && str_eq(p[i].name, name)) return &p[i];
        return nullptr;
    }
};

struct Selects {
    int n = 0;
    bool overflow = false;
    Params s[kMaxSels] = {};
    constexpr Selects(std::initializer_list<Params> ss) {
        for (const Params& x : ss) {
            if (n == kMaxSels) {
                overflow = true;
                break;
            }
            s[n++] = x;
        }
    }
};

// The code of value v of parameter d in the key (its value, or its index for UINT).
constexpr uint64_t code_of(const Param& d, uint64_t v) {
    return d.kind == ASCENDC_TPL_UINT ? static_cast<uint64_t>(d.index_of(v)) : v;
}

constexpr int total_bits(const Params& decl) {
    int bits = 0;
    for (int i = 0; i < decl.n; i++) bits += static_cast<int>(decl.p[i].bw);
    return bits;
}

// Empty string if the declarations are consistent, else what is wrong.
constexpr const char* check(const Params& decl, const Selects& sel) {
    if (decl.overflow || sel.overflow) return "too many parameters or ASCENDC_TPL_ARGS_SEL groups for the emulator";
    if (total_bits(decl) > MAX_BITS_NUM) return "the declared bit widths exceed 64";
    for (int i = 0; i < decl.n; i++) {
        const Param& d = decl.p[i];
        if (!d.well_formed()) return "an ASCENDC_TPL_*_DECL value list is empty or malformed";
        for (uint64_t k = 0; k < d.count(); k++) {
            if (d.at(k) >= ASCENDC_TPL_INPUT_BIAS)
                return "ASCENDC_TPL_INPUT/ASCENDC_TPL_OUTPUT in a DECL is not modelled; list the values";
            if (d.bw < 64 && code_of(d, d.at(k)) >> d.bw) return "a declared value does not fit its bit width";
        }
    }
    for (int g = 0; g < sel.n; g++) {
        const Params& s = sel.s[g];
        int named = 0;
        for (int j = 0; j < s.n; j++) {
            if (!s.p[j].is_param()) continue;
            named++;
            const Param* d = nullptr;
            for (int i = 0; i < decl.n; i++)
                if (str_eq(decl.p[i].name, s.p[j].name)) d = &decl.p[i];
            if (d == nullptr) return "an ASCENDC_TPL_ARGS_SEL names a parameter ASCENDC_TPL_ARGS_DECL does not declare";
            if (!s.p[j].well_formed()) return "an ASCENDC_TPL_*_SEL value list is empty or malformed";
            for (uint64_t k = 0; k < s.p[j].count(); k++)
                if (d->index_of(s.p[j].at(k)) < 0) return "an ASCENDC_TPL_*_SEL value is not in ASCENDC_TPL_*_DECL";
        }
        if (named != decl.n) return "an ASCENDC_TPL_ARGS_SEL does not give every declared parameter exactly once";
    }
    return "";
}

// The selected combinations, numbered SEL group by SEL group, the first parameter varying fastest.
constexpr uint64_t group_size(const Params& decl, const Params& s) {
    uint64_t n = 1;
    for (int i = 0; i < decl.n; i++) {
        const Param* p = s.find(decl.p[i].name);
        n *= p ? p->count() : 0;
    }
    return n;
}
constexpr uint64_t combo_count(const Params& decl, const Selects& sel) {
    uint64_t n = 0;
    for (int g = 0; g < sel.n; g++) n += group_size(decl, sel.s[g]);
    return n;
}
// Value of parameter `param` in combination `c`.
constexpr uint64_t combo_value(const Params& decl, const Selects& sel, uint64_t c, int param) {
    int g = 0;
    while (g < sel.n && c >= group_size(decl, sel.s[g])) c -= group_size(decl, sel.s[g++]);
    for (int i = 0; i < decl.n; i++) {
        const Param* p = sel.s[g].find(decl.p[i].name);
        uint64_t k = c % p->count();
        if (i == param) return p->at(k);
        c /= p->count();
    }
    return 0;
}
constexpr uint64_t encode(const Params& decl, const uint64_t* vals) {
    uint64_t key = 0;
    int shift = 0;
    for (int i = 0; i < decl.n; i++) {
        key |= code_of(decl.p[i], vals[i]) << shift;
        shift += static_cast<int>(decl.p[i].bw);
    }
    return key;
}
constexpr uint64_t combo_key(const Params& decl, const Selects& sel, uint64_t c) {
    uint64_t vals[kMaxParams] = {};
    for (int i = 0; i < decl.n; i++) vals[i] = combo_value(decl, sel, c, i);
    return encode(decl, vals);
}

// Host side: GET_TPL_TILING_KEY.
inline uint64_t EncodeTilingKey(const Params& decl, const Selects& sel, std::initializer_list<uint64_t> args) {
    const char* bad = check(decl, sel);
    if (*bad) {
        std::printf("[ERROR] ASCENDC_TPL_ARGS_DECL/ASCENDC_TPL_SEL: %s\n", bad);
        return INVALID_TILING_KEY;
    }
    if (args.size() != static_cast<size_t>(decl.n)) {
        std::printf("[ERROR] Number of arguments in GET_TPL_TILING_KEY (%zu) is not the same as "
                    "ASCENDC_TPL_ARGS_DECL (%d).\n",
                    args.size(), decl.n);
        return INVALID_TILING_KEY;
    }
    uint64_t vals[kMaxParams] = {};
    int i = 0;
    for (uint64_t a : args) {
        if (decl.p[i].index_of(a) < 0) {
            std::printf("[ERROR] GET_TPL_TILING_KEY: %s value %llu does not exist in its ASCENDC_TPL_*_DECL\n",
                        decl.p[i].name, static_cast<unsigned long long>(a));
            return INVALID_TILING_KEY;
        }
        vals[i++] = a;
    }
    for (int g = 0; g < sel.n; g++) {
        bool match = true;
        for (int j = 0; j < decl.n && match; j++) match = sel.s[g].find(decl.p[j].name)->index_of(vals[j]) >= 0;
        if (match) return encode(decl, vals);
    }
    std::printf("[ERROR] GET_TPL_TILING_KEY args:[");
    for (int j = 0; j < decl.n; j++)
        std::printf("%s%s=%llu", j ? ", " : "", decl.p[j].name, static_cast<unsigned long long>(vals[j]));
    std::printf("] cannot be found in ASCENDC_TPL_ARGS_SEL.\n");
    return INVALID_TILING_KEY;
}

}  // namespace dslc_tpl

#define ASCENDC_TPL_DTYPE_DECL(x, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) \
    ::dslc_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, true, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_DECL(x, ...) \
    ::dslc_tpl::Param(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_UINT, bw, false, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_DECL(x, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_KERNEL_TYPE_DECL(x, ...) \
    ::dslc_tpl::Param(#x, ASCENDC_TPL_SHARED_KERNEL_TYPE, ASCENDC_TPL_8_BW, false, {__VA_ARGS__})

#define ASCENDC_TPL_DTYPE_SEL(x, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, true, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_SEL(x, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_SEL(x, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_UINT, 0, false, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_SEL(x, ...) ::dslc_tpl::Param(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_TILING_STRUCT_SEL(x, ...) ::dslc_tpl::Param(#x, ::dslc_tpl::kTilingStruct, 0, false, {0})
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...) \
    ::dslc_tpl::Param("kernel_type", ASCENDC_TPL_KERNEL_TYPE, ASCENDC_TPL_8_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_DETERMINISTIC_SEL(...) \
    ::dslc_tpl::Param("deterministic", ASCENDC_TPL_DETERMINISTIC, ASCENDC_TPL_1_BW, false, {__VA_ARGS__})
#define ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL(x, ...) \
    ::dslc_tpl::Param(#x, ASCENDC_TPL_SHARED_KERNEL_TYPE, ASCENDC_TPL_8_BW, false, {__VA_ARGS__})

#define ASCENDC_TPL_ARGS_DECL(x, ...) \
    [[maybe_unused]] static constexpr ::dslc_tpl::Params g_tilingDeclareParams{__VA_ARGS__}
#define ASCENDC_TPL_ARGS_SEL(...) \
    ::dslc_tpl::Params { __VA_ARGS__ }
#define ASCENDC_TPL_SEL(...) [[maybe_unused]] static constexpr ::dslc_tpl::Selects g_tilingSelectParams{__VA_ARGS__}

#define GET_TPL_TILING_KEY(...) ::dslc_tpl::EncodeTilingKey(g_tilingDeclareParams, g_tilingSelectParams, {__VA_ARGS__})
#define ASCENDC_TPL_SEL_PARAM(context, ...)             \
    do {                                                \
        uint64_t dslc_tpl_key_ = GET_TPL_TILING_KEY(__VA_ARGS__); \
        (context)->SetTilingKey(dslc_tpl_key_);         \
    } while (0)
