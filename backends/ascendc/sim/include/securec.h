// The bounds-checked C functions of Huawei's securec library that host code calls (securec.h):
// memset_s and memcpy_s with their C11 Annex K meaning, EOK on success. Implemented here.
#pragma once
#include <cstddef>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET 162
#endif
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET 150
#endif

typedef int errno_t;

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
    if (dest == nullptr) return EINVAL_AND_RESET;
    if (count > destMax) {
        std::memset(dest, c, destMax);
        return ERANGE_AND_RESET;
    }
    std::memset(dest, c, count);
    return EOK;
}

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || src == nullptr) return EINVAL_AND_RESET;
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    std::memmove(dest, src, count);
    return EOK;
}
