// opbase's InferShape of an elementwise op (include/op_common/op_host/infershape_elewise_util.h:
// `ge::graphStatus Ops::Base::InferShape4Elewise(gert::InferShapeContext*)`): the output has the
// first input's shape. Implemented here (opbase ships it in a library).
#pragma once
#include "register/op_def_registry.h"

namespace Ops {
namespace Base {
inline ge::graphStatus InferShape4Elewise(gert::InferShapeContext* context) {
    const gert::Shape* in = context->GetInputShape(0);
    gert::Shape* out = context->GetOutputShape(0);
    if (in == nullptr || out == nullptr) return ge::GRAPH_FAILED;
    *out = *in;
    return ge::GRAPH_SUCCESS;
}
}  // namespace Base
}  // namespace Ops
