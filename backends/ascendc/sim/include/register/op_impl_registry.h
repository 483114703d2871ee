// Registration of an op's host functions apart from its OpDef, as ops-nn op_host files do:
//   IMPL_OP_OPTILING(ApplyAdamW).Tiling(TilingFunc).TilingParse<CompileInfo>(TilingParse);
//   IMPL_OP_INFERSHAPE(ApplyAdamW).InferShape(InferShapeFunc);
// (gert::OpImplRegisterV2 of CANN's register/op_impl_registry.h). The harness uses these when the
// OpDef has no AICore().SetTiling / SetInferShape of its own.
#pragma once
#include "register/op_def_registry.h"

namespace gert {

class OpImplRegisterV2 {
public:
    explicit OpImplRegisterV2(const char* op_type) : type_(op_type) {}
    OpImplRegisterV2& Tiling(ops::TilingKernelFunc f) {
        Impl().tiling = f;
        return *this;
    }
    template <typename CompileInfo> OpImplRegisterV2& TilingParse(ge::graphStatus (*f)(TilingParseContext*)) {
        Impl().tiling_parse = f;
        Impl().make_compile_info = [] { return std::shared_ptr<void>(std::make_shared<CompileInfo>()); };
        return *this;
    }
    OpImplRegisterV2& InferShape(ops::InferShapeKernelFunc f) {
        Impl().infer_shape = f;
        return *this;
    }
    OpImplRegisterV2& InferDataType(ops::InferDataTypeKernelFunc f) {
        Impl().infer_dtype = f;
        return *this;
    }
    // Graph-mode details the emulator has no use for.
    template <typename F> OpImplRegisterV2& InferShapeRange(F) { return *this; }
    template <typename... A> OpImplRegisterV2& InputsDataDependency(A...) { return *this; }
    template <typename... A> OpImplRegisterV2& TilingInputsDataDependency(A...) { return *this; }
    template <typename... A> OpImplRegisterV2& PrivateAttr(A...) { return *this; }

private:
    dslc_host::OpImpl& Impl() { return dslc_host::impls()[type_]; }
    std::string type_;
};

}  // namespace gert

#define DSLC_IMPL_CAT2(a, b) a##b
#define DSLC_IMPL_CAT(a, b) DSLC_IMPL_CAT2(a, b)
#define IMPL_OP(op_type)                                                                    \
    [[maybe_unused]] static ::gert::OpImplRegisterV2 DSLC_IMPL_CAT(g_dslc_op_impl_, __COUNTER__) = \
        ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
