// Host-side graph types shared by the registration and platform headers: ge::DataType/Format,
// graphStatus, gert shapes/tensors/attrs, fe::PlatFormInfos (ascendc-api.md s8).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
// CANN's graph headers bring these in; op_host code (ops-nn common/inc) relies on them.
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;
enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27, DT_UNDEFINED = 28
};
enum Format { FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4,
              FORMAT_FRACTAL_NZ = 29, FORMAT_RESERVED = 40 };
// metadef graph/types.h: the primary format is the low byte of a format with sub-format bits.
inline int32_t GetPrimaryFormat(int32_t format) { return static_cast<int32_t>(static_cast<uint32_t>(format) & 0xffU); }
}  // namespace ge

namespace gert {

class Shape {
public:
    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) AppendDim(d);
    }
    size_t GetDimNum() const { return n_; }
    int64_t GetDim(size_t i) const { return i < n_ ? dims_[i] : 0; }
    int64_t operator[](size_t i) const { return GetDim(i); }
    Shape& SetDimNum(size_t n) {
        n_ = n < kMax ? n : kMax;
        return *this;
    }
    Shape& SetDim(size_t i, int64_t v) {
        if (i < kMax) dims_[i] = v;
        return *this;
    }
    Shape& AppendDim(int64_t v) {
        if (n_ < kMax) dims_[n_++] = v;
        return *this;
    }
    int64_t GetShapeSize() const {
        int64_t s = 1;
        for (size_t i = 0; i < n_; i++) s *= dims_[i];
        return s;
    }
    bool IsScalar() const { return n_ == 0; }
    bool operator==(const Shape& o) const {
        if (n_ != o.n_) return false;
        for (size_t i = 0; i < n_; i++)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }

private:
    static constexpr size_t kMax = 25;
    int64_t dims_[kMax] = {};
    size_t n_ = 0;
};

class StorageShape {
public:
    StorageShape() = default;
    explicit StorageShape(const Shape& s) : origin_(s), storage_(s) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    int64_t GetDimNum() const { return static_cast<int64_t>(storage_.GetDimNum()); }
    int64_t GetDim(size_t i) const { return storage_.GetDim(i); }
    int64_t GetShapeSize() const { return storage_.GetShapeSize(); }
    // metadef exe_graph/runtime/storage_shape.h: equal when both the origin and the storage shape are.
    bool operator==(const StorageShape& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_, storage_;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }
    ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
    ge::DataType dtype_ = ge::DT_FLOAT;
};

class Tensor {
public:
    int64_t GetShapeSize() const { return shape_.GetShapeSize(); }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    ge::DataType GetDataType() const { return dtype_; }
    // Device data is not visible at tiling time (no value-depend inputs in the emulator).
    template <typename T> const T* GetData() const { return nullptr; }
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_FLOAT;
};

struct AttrValue {
    char kind = 0;  // 'b', 'i', 'f', 's'
    bool b = false;
    int64_t i = 0;
    float f = 0;
    std::string s;
};

class RuntimeAttrs {
public:
    // The type must match the OpDef declaration: Bool -> bool, Int -> int64_t, Float -> float.
    template <typename T> const T* GetAttrPointer(size_t idx) const {
        if constexpr (std::is_same<T, bool>::value) return Has(idx, 'b') ? &values_[idx].b : nullptr;
        else if constexpr (std::is_same<T, int64_t>::value) return Has(idx, 'i') ? &values_[idx].i : nullptr;
        else if constexpr (std::is_same<T, float>::value) return Has(idx, 'f') ? &values_[idx].f : nullptr;
        else if constexpr (std::is_same<T, char>::value) return Has(idx, 's') ? values_[idx].s.c_str() : nullptr;
        else return nullptr;
    }
    const char* GetStr(size_t idx) const { return Has(idx, 's') ? values_[idx].s.c_str() : nullptr; }
    const int64_t* GetInt(size_t idx) const { return GetAttrPointer<int64_t>(idx); }
    const float* GetFloat(size_t idx) const { return GetAttrPointer<float>(idx); }
    const bool* GetBool(size_t idx) const { return GetAttrPointer<bool>(idx); }
    size_t GetAttrNum() const { return values_.size(); }
    std::vector<AttrValue> values_;

private:
    bool Has(size_t idx, char k) const { return idx < values_.size() && values_[idx].kind == k; }
};
}  // namespace gert

namespace fe {
// What the emulator's platform reports: filled by the harness from the target table.
class PlatFormInfos {
public:
    // metadef platform_infos_def.h: `bool GetPlatformRes(const std::string& label, const std::string& key,
    // std::string& val)`. The emulator answers the core counts and the UB size of SoCInfo / AICoreSpec;
    // any other resource is unknown (false, val empty), as for a key the platform file lacks.
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) {
        val.clear();
        if (label == "SoCInfo" && key == "ai_core_cnt") val = std::to_string(aic_cores);
        else if (label == "SoCInfo" && key == "vector_core_cnt") val = std::to_string(aiv_cores);
        else if (label == "AICoreSpec" && key == "ub_size") val = std::to_string(ub_bytes);
        return !val.empty();
    }
    uint32_t aiv_cores = 0, aic_cores = 0;
    uint64_t ub_bytes = 0;
    int npu_arch = 2201;
    std::string soc;
};
}  // namespace fe
