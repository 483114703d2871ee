// opbase's shape helpers under the name ops include (`util/shape_util.h`; interface of hicann/opbase
// include/op_common/op_host/util/shape_util.h, namespace Ops::Base), implemented for the emulator with
// GE's conventions: an unknown rank is the shape {-2}, an unknown dim is -1.
#pragma once
#include <cstdint>

#include "dslc_sim/host_types.h"

namespace Ops {
namespace Base {
constexpr int64_t UNKNOWN_RANK_DIM_VALUE = -2;
constexpr int64_t UNKNOWN_DIM_VALUE = -1;

template <typename T1, typename T2> bool CheckAxisBounds(const T1 dimNum, const T2 axis) {
    if (dimNum == 0) return axis == 0 || axis == -1;
    const int64_t lo = static_cast<int64_t>(dimNum) * (-1);
    const int64_t hi = static_cast<int64_t>(dimNum) - 1;
    return static_cast<int64_t>(axis) >= lo && static_cast<int64_t>(axis) <= hi;
}
inline void SetUnknownRank(gert::Shape& shape) {
    shape.SetDimNum(0);
    shape.AppendDim(UNKNOWN_RANK_DIM_VALUE);
}
inline bool IsUnknownRank(const gert::Shape& shape) {
    return shape.GetDimNum() == 1 && shape.GetDim(0) == UNKNOWN_RANK_DIM_VALUE;
}
inline void SetUnknownShape(int64_t rank, gert::Shape& shape) {
    shape.SetDimNum(0);
    for (int64_t i = 0; i < rank; i++) shape.AppendDim(UNKNOWN_DIM_VALUE);
}
inline bool IsUnknownShape(const gert::Shape& shape) {
    for (size_t i = 0; i < shape.GetDimNum(); i++)
        if (shape.GetDim(i) == UNKNOWN_DIM_VALUE) return true;
    return IsUnknownRank(shape);
}
}  // namespace Base
}  // namespace Ops
