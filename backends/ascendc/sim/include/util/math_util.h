// opbase's integer helpers under the name ops include (`util/math_util.h`): the interface of
// hicann/opbase include/op_common/op_host/util/math_util.h (namespace Ops::Base: FloorDiv,
// FloorAlign, CeilDiv, CeilAlign, IsFloatEqual, LastPow2), implemented here for the emulator.
// A division by zero gives 0, as opbase documents for CeilDiv.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace Ops {
namespace Base {
template <typename T>
auto FloorDiv(T x, T y) -> typename std::enable_if<std::is_integral<T>::value, T>::type {
    return y == 0 ? x : x / y;
}
template <typename T>
auto FloorAlign(T x, T align) -> typename std::enable_if<std::is_integral<T>::value, T>::type {
    return align == 0 ? 0 : x / align * align;
}
template <typename T>
auto CeilDiv(T x, T y) -> typename std::enable_if<std::is_signed<T>::value, T>::type {
    if (y == 0) return 0;
    T q = x / y;
    return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
}
template <typename T>
auto CeilDiv(T x, T y) -> typename std::enable_if<std::is_unsigned<T>::value, T>::type {
    return y == 0 ? 0 : (x / y + (x % y != 0 ? 1 : 0));
}
template <typename T>
auto CeilAlign(T x, T align) -> typename std::enable_if<std::is_integral<T>::value, T>::type {
    return CeilDiv(x, align) * align;
}
template <typename T>
auto IsFloatEqual(T a, T b) -> typename std::enable_if<std::is_floating_point<T>::value, bool>::type {
    return std::fabs(a - b) < std::numeric_limits<T>::epsilon();
}
// The largest power of two <= n (0 for 0).
inline uint64_t LastPow2(uint64_t n) {
    uint64_t p = 0;
    for (uint64_t b = 1; b != 0 && b <= n; b <<= 1) p = b;
    return p;
}
}  // namespace Base
}  // namespace Ops
