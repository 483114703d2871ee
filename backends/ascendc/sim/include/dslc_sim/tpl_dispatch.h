// Support for the launcher the emulator generates around a templated kernel entry
// (`template <...> __global__ __aicore__ void op(GM_ADDR...)`, see ../../build.py): CANN's
// compiler instantiates one kernel per ASCENDC_TPL_SEL combination and the runtime picks it by
// tiling key; the launcher does the same with the constexpr declarations of
// ascendc/host_api/tiling/template_argument.h.
#pragma once
#include <string>
#include <utility>

#include "ascendc/host_api/tiling/template_argument.h"
#include "kernel_operator.h"

// DATATYPE template arguments: TypeFromId<ge::DataType code>::type (as CANN's generated code).
template <int dataTypeId> struct TypeFromId {
    using type = void;
};
#define DSLC_TPL_TYPE(id, T) \
    template <> struct TypeFromId<id> { using type = T; }
DSLC_TPL_TYPE(C_DT_FLOAT, float);
DSLC_TPL_TYPE(C_DT_FLOAT16, half);
DSLC_TPL_TYPE(C_DT_INT8, int8_t);
DSLC_TPL_TYPE(C_DT_INT32, int32_t);
DSLC_TPL_TYPE(C_DT_UINT8, uint8_t);
DSLC_TPL_TYPE(C_DT_INT16, int16_t);
DSLC_TPL_TYPE(C_DT_UINT16, uint16_t);
DSLC_TPL_TYPE(C_DT_UINT32, uint32_t);
DSLC_TPL_TYPE(C_DT_INT64, int64_t);
DSLC_TPL_TYPE(C_DT_UINT64, uint64_t);
DSLC_TPL_TYPE(C_DT_DOUBLE, double);
DSLC_TPL_TYPE(C_DT_BOOL, bool);
DSLC_TPL_TYPE(C_DT_BF16, bfloat16_t);
#undef DSLC_TPL_TYPE

namespace dslc_tpl {

inline std::string combo_text(const Params& decl, const Selects& sel, uint64_t c) {
    std::string s = "{";
    for (int i = 0; i < decl.n; i++) {
        if (i) s += ", ";
        s += decl.p[i].name;
        s += "=" + std::to_string(combo_value(decl, sel, c, i));
    }
    return s + "}";
}

// The tiling key selects none of the compiled combinations (or the declarations are wrong).
[[noreturn]] inline void no_combination(const Params& decl, const Selects& sel, uint64_t key, const char* entry,
                                        ::dslc::Loc loc) {
    const char* bad = check(decl, sel);
    if (*bad)
        ::dslc::fault(::dslc::F_TILING, loc, "templated kernel entry %s: ASCENDC_TPL_ARGS_DECL/ASCENDC_TPL_SEL: %s",
                      entry, bad);
    std::string keys;
    uint64_t n = combo_count(decl, sel);
    for (uint64_t c = 0; c < n && c < 16; c++)
        keys += (c ? "; " : "") + std::to_string(combo_key(decl, sel, c)) + " " + combo_text(decl, sel, c);
    if (n > 16) keys += "; ...";
    ::dslc::fault(::dslc::F_TILING, loc,
                  "tiling key %llu selects no instance of the templated kernel entry %s: ASCENDC_TPL_SEL compiles "
                  "the keys %s",
                  static_cast<unsigned long long>(key), entry, keys.c_str());
}

}  // namespace dslc_tpl
