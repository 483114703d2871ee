// GE's graph operator (metadef inc/external/graph/operator.h, CANN 8.5 / 9.0), the part ops-nn's
// common/inc/error_util.h and op_host code reach: an operator with a name and a type
// (Operator(name, type), GetName / GetOpType in their AscendString and deprecated std::string
// forms, IsEmpty). The graph-building members (SetInput, attributes, subgraphs) are not provided:
// dslc runs an operator's host functions on gert contexts, never a GE graph.
#pragma once
#include <string>

#include "dslc_sim/host_types.h"
#include "graph/ascend_string.h"

namespace ge {
class Operator {
public:
    Operator() = default;
    explicit Operator(const char* type) : type_(type == nullptr ? "" : type), empty_(false) {}
    explicit Operator(const std::string& type) : type_(type), empty_(false) {}
    Operator(const char* name, const char* type)
        : name_(name == nullptr ? "" : name), type_(type == nullptr ? "" : type), empty_(false) {}
    Operator(const std::string& name, const std::string& type) : name_(name), type_(type), empty_(false) {}
    Operator(const AscendString& name, const AscendString& type)
        : name_(name.GetString()), type_(type.GetString()), empty_(false) {}
    virtual ~Operator() = default;

    bool IsEmpty() const { return empty_; }
    std::string GetName() const { return name_; }
    graphStatus GetName(AscendString& name) const {
        name = AscendString(name_.c_str());
        return empty_ ? GRAPH_FAILED : GRAPH_SUCCESS;
    }
    std::string GetOpType() const { return type_; }
    graphStatus GetOpType(AscendString& type) const {
        type = AscendString(type_.c_str());
        return empty_ ? GRAPH_FAILED : GRAPH_SUCCESS;
    }

private:
    std::string name_, type_;
    bool empty_ = true;
};
}  // namespace ge
