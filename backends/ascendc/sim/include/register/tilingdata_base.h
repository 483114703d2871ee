// Macro-style tiling data (CANN <= 8.x; ascendc-api.md s8.1): BEGIN_TILING_DATA_DEF defines a
// class with one public field plus set_/get_ accessors per TILING_DATA_FIELD_DEF, laid out in
// declaration order with natural alignment, so the kernel can read the same bytes as a struct.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace optiling {

template <class D> class TilingDef {
public:
    void SaveToBuffer(void* buf, size_t cap) const {
        if (sizeof(D) > cap) {
            std::fprintf(stderr, "SaveToBuffer: tiling data of %zu B exceeds the %zu B buffer\n", sizeof(D), cap);
            return;
        }
        std::memcpy(buf, static_cast<const void*>(static_cast<const D*>(this)), sizeof(D));
    }
    size_t GetDataSize() const { return sizeof(D); }
};

}  // namespace optiling

// The macros expand in the tiling header, which the kernel TU includes after the kernel entry's
// name may have become a macro (dslc_sim/kernel_prelude.h): they use no name an operator can have.
template <class D> using DslcTilingDef = ::optiling::TilingDef<D>;

#define BEGIN_TILING_DATA_DEF(name)             \
    class name : public ::DslcTilingDef<name> { \
    public:
#define TILING_DATA_FIELD_DEF(type, field)  \
    type field = type();                    \
    void set_##field(type v) { field = v; } \
    type get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_ARR(type, n, field)                                  \
    type field[n] = {};                                                            \
    void set_##field(const type* v) { __builtin_memcpy(field, v, sizeof(field)); } \
    const type* get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_STRUCT(stype, field) \
    stype field;                                   \
    stype& get_##field() { return field; }
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op_type, cls) using DslcTiling_##op_type = cls;
