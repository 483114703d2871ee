// Kernel-side tiling access: GET_TILING_DATA, TILING_KEY_IS, REGISTER_TILING_DEFAULT
// (ascendc-api.md s2). The real op compiler generates GET_TILING_DATA's struct from the host's
// BEGIN_TILING_DATA_DEF; here the harness force-includes the op_host tiling header and
// tiling_default.h, which names the class REGISTER_TILING_DATA_CLASS recorded for the op type.
#pragma once
#include <cstring>

#include "runtime.h"

// The macros below expand in kernel text, where the kernel entry's name may be a macro (see
// kernel_prelude.h): they name the emulator only by identifiers no operator can have.
#define TILING_KEY_IS(k) (::DslcSim::tiling_key() == static_cast<uint64_t>(k))
#define TILING_KEY_VAR (::DslcSim::tiling_key())

// Standard-C++ tiling (9.x): shadows the macro-style default inside the kernel function.
#define REGISTER_TILING_DEFAULT(T) using DslcDefaultTilingT = T
#define REGISTER_TILING_FOR_TILINGKEY(cond, T) static_assert(true, "")

#define GET_TILING_DATA_WITH_STRUCT(T, var, tiling_arg) \
    [[__maybe_unused__]] T var;                         \
    __builtin_memcpy(static_cast<void*>(&var), (tiling_arg), sizeof(T))
#define GET_TILING_DATA(var, tiling_arg) GET_TILING_DATA_WITH_STRUCT(DslcDefaultTilingT, var, tiling_arg)
#define GET_TILING_DATA_PTR_WITH_STRUCT(T, var, tiling_arg) \
    [[__maybe_unused__]] const T* var = reinterpret_cast<const T*>(tiling_arg)
#define GET_TILING_DATA_MEMBER(T, member, var, tiling_arg) \
    [[__maybe_unused__]] decltype(T::member) var;          \
    __builtin_memcpy(static_cast<void*>(&var), (tiling_arg) + __builtin_offsetof(T, member), sizeof(var))
