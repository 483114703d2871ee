// Host-side op registration and runtime contexts (ascendc-api.md s8.2, s8.3): gert::TilingContext,
// gert::InferShapeContext, ops::OpDef with Input/Output/Attr/AICore, OP_ADD. The harness reads
// the registered OpDef to build the contexts and call TilingFunc / InferShape.
#pragma once
#include <cstring>
#include <deque>
#include <map>
#include <memory>

#include "dslc_sim/host_types.h"

namespace gert {

// metadef exe_graph/runtime/compute_node_info.h: the node's name, type and IR input/output counts.
class ComputeNodeInfo {
public:
    const char* GetNodeName() const { return name_; }
    const char* GetNodeType() const { return name_; }
    size_t GetInputsNum() const { return inputs_; }
    size_t GetOutputsNum() const { return outputs_; }
    const char* name_ = "";
    size_t inputs_ = 0, outputs_ = 0;
};

class TilingData {
public:
    void* GetData() { return data_; }
    size_t GetCapacity() const { return capacity_; }
    void SetDataSize(size_t n) { size_ = n; }
    size_t GetDataSize() const { return size_; }
    uint8_t* data_ = nullptr;
    size_t capacity_ = 0, size_ = 0;
};

struct TensorSlot {
    bool present = false;
    StorageShape shape;
    CompileTimeTensorDesc desc;
    Tensor tensor;
};

// Index conventions as in metadef's contexts: GetInputShape/GetInputDesc/GetInputTensor take the
// instance index (absent optional inputs are skipped), GetRequired*/GetOptional* the IR index.
class TilingContext {
public:
    const StorageShape* GetInputShape(size_t i) const { return IrPresent(Ir(i)) ? &inputs_[Ir(i)].shape : nullptr; }
    const StorageShape* GetRequiredInputShape(size_t i) const { return IrPresent(i) ? &inputs_[i].shape : nullptr; }
    const StorageShape* GetOptionalInputShape(size_t i) const { return GetRequiredInputShape(i); }
    const StorageShape* GetOutputShape(size_t i) const { return Present(outputs_, i) ? &outputs_[i].shape : nullptr; }
    const CompileTimeTensorDesc* GetInputDesc(size_t i) const { return IrPresent(Ir(i)) ? &inputs_[Ir(i)].desc : nullptr; }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t i) const {
        return IrPresent(i) ? &inputs_[i].desc : nullptr;
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t i) const { return GetRequiredInputDesc(i); }
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const {
        return Present(outputs_, i) ? &outputs_[i].desc : nullptr;
    }
    const Tensor* GetInputTensor(size_t i) const { return IrPresent(Ir(i)) ? &inputs_[Ir(i)].tensor : nullptr; }
    const Tensor* GetRequiredInputTensor(size_t i) const { return IrPresent(i) ? &inputs_[i].tensor : nullptr; }
    const Tensor* GetOptionalInputTensor(size_t i) const { return GetRequiredInputTensor(i); }
    const RuntimeAttrs* GetAttrs() const { return &attrs_; }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    // The object IMPL_OP_OPTILING(...).TilingParse<CompileInfo>(...) filled (nullptr without one).
    template <typename T> const T* GetCompileInfo() const { return static_cast<const T*>(compile_info_); }
    // metadef exe_graph/runtime/tiling_context.h also has the untyped `const void* GetCompileInfo() const`.
    const void* GetCompileInfo() const { return compile_info_; }
    const ComputeNodeInfo* GetComputeNodeInfo() const {
        node_info_ = ComputeNodeInfo{op_type_.c_str(), inputs_.size(), outputs_.size()};
        return &node_info_;
    }
    ge::graphStatus SetBlockDim(uint32_t n) {
        block_dim_ = n;
        block_dim_set_ = true;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus SetSimdNumBlocks(uint32_t n) { return SetBlockDim(n); }
    uint32_t GetBlockDim() const { return block_dim_; }
    ge::graphStatus SetTilingKey(uint64_t k) {
        tiling_key_ = k;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return tiling_key_; }
    size_t* GetWorkspaceSizes(size_t num) {
        if (workspace_.size() < num) workspace_.resize(num, 0);
        return workspace_.data();
    }
    size_t GetWorkspaceNum() const { return workspace_.size(); }
    TilingData* GetRawTilingData() { return &raw_; }
    template <typename T> T* GetTilingData() {
        if (sizeof(T) > raw_.capacity_) return nullptr;
        std::memset(raw_.data_, 0, sizeof(T));
        raw_.size_ = sizeof(T);
        return reinterpret_cast<T*>(raw_.data_);
    }
    ge::graphStatus SetScheduleMode(uint32_t m) {
        schedule_mode_ = m;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus SetNeedAtomic(bool) { return ge::GRAPH_SUCCESS; }
    const char* GetNodeName() const { return op_type_.c_str(); }
    const char* GetNodeType() const { return op_type_.c_str(); }
    size_t GetComputeNodeInputNum() const { return inputs_.size(); }
    size_t GetComputeNodeOutputNum() const { return outputs_.size(); }

    // Filled by the harness.
    std::vector<TensorSlot> inputs_, outputs_;
    RuntimeAttrs attrs_;
    fe::PlatFormInfos* platform_ = nullptr;
    const void* compile_info_ = nullptr;
    TilingData raw_;
    std::vector<size_t> workspace_;
    uint32_t block_dim_ = 0, schedule_mode_ = 0;
    bool block_dim_set_ = false;
    uint64_t tiling_key_ = 0;
    std::string op_type_;
    mutable ComputeNodeInfo node_info_;

private:
    static bool Present(const std::vector<TensorSlot>& v, size_t i) { return i < v.size() && v[i].present; }
    bool IrPresent(size_t i) const { return Present(inputs_, i); }
    // The IR index of the i-th present input.
    size_t Ir(size_t instance) const {
        for (size_t k = 0; k < inputs_.size(); k++)
            if (inputs_[k].present && instance-- == 0) return k;
        return inputs_.size();
    }
};

// Context of a TilingParse function (IMPL_OP_OPTILING(...).TilingParse<CompileInfo>(f)): it
// fills the op's compile info once, before any TilingFunc.
class TilingParseContext {
public:
    template <typename T> T* GetCompiledInfo() { return static_cast<T*>(compile_info_); }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    const char* GetNodeName() const { return op_type_.c_str(); }
    const char* GetNodeType() const { return op_type_.c_str(); }
    void* compile_info_ = nullptr;
    fe::PlatFormInfos* platform_ = nullptr;
    std::string op_type_;
};

class InferShapeContext {
public:
    const Shape* GetInputShape(size_t i) const { return GetRequiredInputShape(Ir(i)); }
    const Shape* GetRequiredInputShape(size_t i) const { return i < in_.size() && in_present_[i] ? &in_[i] : nullptr; }
    const Shape* GetOptionalInputShape(size_t i) const { return GetRequiredInputShape(i); }
    size_t Ir(size_t instance) const {
        for (size_t k = 0; k < in_.size(); k++)
            if (in_present_[k] && instance-- == 0) return k;
        return in_.size();
    }
    Shape* GetOutputShape(size_t i) { return i < out_.size() ? &out_[i] : nullptr; }
    const Tensor* GetInputTensor(size_t i) const { return i < tensors_.size() && in_present_[i] ? &tensors_[i] : nullptr; }
    const RuntimeAttrs* GetAttrs() const { return attrs_; }
    const char* GetNodeName() const { return op_type_.c_str(); }
    const char* GetNodeType() const { return op_type_.c_str(); }
    // metadef ExtendedKernelContext: the node's IR input and output counts.
    size_t GetComputeNodeInputNum() const { return in_.size(); }
    size_t GetComputeNodeOutputNum() const { return out_.size(); }
    const ComputeNodeInfo* GetComputeNodeInfo() const {
        node_info_ = ComputeNodeInfo{op_type_.c_str(), in_.size(), out_.size()};
        return &node_info_;
    }
    std::string op_type_;
    mutable ComputeNodeInfo node_info_;
    std::vector<Shape> in_, out_;
    std::vector<bool> in_present_;
    std::vector<Tensor> tensors_;
    const RuntimeAttrs* attrs_ = nullptr;
};

class InferDataTypeContext {
public:
    ge::DataType GetInputDataType(size_t i) const { return i < in_.size() ? in_[i] : ge::DT_UNDEFINED; }
    ge::DataType GetRequiredInputDataType(size_t i) const { return GetInputDataType(i); }
    ge::DataType GetOptionalInputDataType(size_t i) const { return GetInputDataType(i); }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt) {
        if (i >= out_.size()) out_.resize(i + 1, ge::DT_UNDEFINED);
        out_[i] = dt;
        return ge::GRAPH_SUCCESS;
    }
    const RuntimeAttrs* GetAttrs() const { return attrs_; }
    const char* GetNodeName() const { return op_type_.c_str(); }  // ExtendedKernelContext's, as for InferShape
    const char* GetNodeType() const { return op_type_.c_str(); }
    std::string op_type_;
    std::vector<ge::DataType> in_, out_;
    const RuntimeAttrs* attrs_ = nullptr;
};

}  // namespace gert

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

using TilingKernelFunc = ge::graphStatus (*)(gert::TilingContext*);
using InferShapeKernelFunc = ge::graphStatus (*)(gert::InferShapeContext*);
using InferDataTypeKernelFunc = ge::graphStatus (*)(gert::InferDataTypeContext*);

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name) {}
    OpParamDef& ParamType(Option o) {
        option_ = o;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> v) {
        dtypes_ = std::move(v);
        return *this;
    }
    OpParamDef& DataTypeList(std::vector<ge::DataType> v) { return DataType(std::move(v)); }
    OpParamDef& Format(std::vector<ge::Format> v) {
        formats_ = std::move(v);
        return *this;
    }
    OpParamDef& FormatList(std::vector<ge::Format> v) { return Format(std::move(v)); }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> v) { return Format(std::move(v)); }
    OpParamDef& ValueDepend(Option) { return *this; }
    OpParamDef& Follow(const char*) { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& Scalar() { return *this; }
    OpParamDef& ScalarList() { return *this; }
    OpParamDef& InitValue(uint64_t) { return *this; }
    std::string name_;
    Option option_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name) {}
    OpAttrDef& AttrType(Option o) {
        option_ = o;
        return *this;
    }
    OpAttrDef& Bool() { return Kind('b'); }
    OpAttrDef& Bool(bool v) {
        def_.b = v;
        has_default_ = true;
        return Kind('b');
    }
    OpAttrDef& Int() { return Kind('i'); }
    OpAttrDef& Int(int64_t v) {
        def_.i = v;
        has_default_ = true;
        return Kind('i');
    }
    OpAttrDef& Float() { return Kind('f'); }
    OpAttrDef& Float(float v) {
        def_.f = v;
        has_default_ = true;
        return Kind('f');
    }
    OpAttrDef& String() { return Kind('s'); }
    OpAttrDef& String(const char* v) {
        def_.s = v;
        has_default_ = true;
        return Kind('s');
    }
    std::string name_;
    Option option_ = REQUIRED;
    gert::AttrValue def_;
    bool has_default_ = false;

private:
    OpAttrDef& Kind(char k) {
        def_.kind = k;
        return *this;
    }
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    OpParamDef& Input(const char* name) { return params_.emplace_back(name); }
    OpParamDef& Output(const char* name) { return params_.emplace_back(name); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }

private:
    std::deque<OpParamDef> params_;
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(TilingKernelFunc f) {
        tiling_ = f;
        return *this;
    }
    template <typename F> OpAICoreDef& SetCheckSupport(F) { return *this; }
    template <typename F> OpAICoreDef& SetOpSelectFormat(F) { return *this; }
    OpAICoreDef& AddConfig(const char* soc) {
        configs_.emplace_back(soc);
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig&) { return AddConfig(soc); }
    TilingKernelFunc tiling_ = nullptr;
    std::vector<std::string> configs_;
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type) {}
    virtual ~OpDef() = default;
    OpParamDef& Input(const char* name) { return inputs_.emplace_back(name); }
    OpParamDef& Output(const char* name) { return outputs_.emplace_back(name); }
    OpAttrDef& Attr(const char* name) { return attrs_.emplace_back(name); }
    OpDef& SetInferShape(InferShapeKernelFunc f) {
        infer_shape_ = f;
        return *this;
    }
    OpDef& SetInferDataType(InferDataTypeKernelFunc f) {
        infer_dtype_ = f;
        return *this;
    }
    template <typename F> OpDef& SetInferShapeRange(F) { return *this; }
    OpAICoreDef& AICore() { return aicore_; }
    std::string type_;
    std::deque<OpParamDef> inputs_, outputs_;
    std::deque<OpAttrDef> attrs_;
    InferShapeKernelFunc infer_shape_ = nullptr;
    InferDataTypeKernelFunc infer_dtype_ = nullptr;
    OpAICoreDef aicore_;
};

}  // namespace ops

namespace dslc_host {
inline std::vector<ops::OpDef*>& registry() {
    static std::vector<ops::OpDef*> ops;
    return ops;
}
// Functions registered apart from the OpDef (register/op_impl_registry.h, the ops-nn style), by op type.
struct OpImpl {
    ops::TilingKernelFunc tiling = nullptr;
    ge::graphStatus (*tiling_parse)(gert::TilingParseContext*) = nullptr;
    std::shared_ptr<void> (*make_compile_info)() = nullptr;
    ops::InferShapeKernelFunc infer_shape = nullptr;
    ops::InferDataTypeKernelFunc infer_dtype = nullptr;
};
inline std::map<std::string, OpImpl>& impls() {
    static std::map<std::string, OpImpl> m;
    return m;
}
template <class Op> struct OpRegistrar {
    Op def;
    explicit OpRegistrar(const char* name) : def(name) { registry().push_back(&def); }
};
}  // namespace dslc_host

#define OP_ADD(name) static ::dslc_host::OpRegistrar<::ops::name> g_dslc_opreg_##name(#name)
