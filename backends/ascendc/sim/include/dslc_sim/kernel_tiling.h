// Kernel-side tiling access: GET_TILING_DATA, TILING_KEY_IS, REGISTER_TILING_DEFAULT
// (ascendc-api.md s2). The real op compiler generates GET_TILING_DATA's struct from the host's
// BEGIN_TILING_DATA_DEF; here the harness force-includes the op_host tiling header and
// tiling_default.h, which names the class REGISTER_TILING_DATA_CLASS recorded for the op type.
#pragma once
#include <cstring>

#include "runtime.h"

#define TILING_KEY_IS(k) (::dslc::tiling_key() == static_cast<uint64_t>(k))
#define TILING_KEY_VAR (::dslc::tiling_key())

// Standard-C++ tiling (9.x): shadows the macro-style default inside the kernel function.
#define REGISTER_TILING_DEFAULT(T) using DslcDefaultTilingT = T
#define REGISTER_TILING_FOR_TILINGKEY(cond, T) static_assert(true, "")

#define GET_TILING_DATA_WITH_STRUCT(T, var, tiling_arg)       \
    [[maybe_unused]] T var;                                   \
    std::memcpy(static_cast<void*>(&var), (tiling_arg), sizeof(T))
#define GET_TILING_DATA(var, tiling_arg) GET_TILING_DATA_WITH_STRUCT(DslcDefaultTilingT, var, tiling_arg)
#define GET_TILING_DATA_PTR_WITH_STRUCT(T, var, tiling_arg) \
    [[maybe_unused]] const T* var = reinterpret_cast<const T*>(tiling_arg)
#define GET_TILING_DATA_MEMBER(T, member, var, tiling_arg)                                   \
    [[maybe_unused]] decltype(T::member) var;                                                \
    std::memcpy(static_cast<void*>(&var), (tiling_arg) + offsetof(T, member), sizeof(var))
