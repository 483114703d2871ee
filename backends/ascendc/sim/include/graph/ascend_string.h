// GE's ge::AscendString (metadef inc/external/graph/ascend_string.h, CANN 8.5 / 9.0): an owned
// string the graph API hands out (GetString(), GetLength(), comparisons). Our implementation.
#pragma once
#include <cstddef>
#include <string>

namespace ge {
class AscendString {
public:
    AscendString() = default;
    AscendString(const char* name) : s_(name == nullptr ? "" : name), null_(name == nullptr) {}
    AscendString(const char* name, size_t length) : s_(name == nullptr ? "" : std::string(name, length)) {}
    const char* GetString() const { return null_ ? "" : s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    size_t Hash() const { return std::hash<std::string>()(s_); }
    bool operator<(const AscendString& d) const { return s_ < d.s_; }
    bool operator>(const AscendString& d) const { return s_ > d.s_; }
    bool operator<=(const AscendString& d) const { return s_ <= d.s_; }
    bool operator>=(const AscendString& d) const { return s_ >= d.s_; }
    bool operator==(const AscendString& d) const { return s_ == d.s_; }
    bool operator!=(const AscendString& d) const { return s_ != d.s_; }

private:
    std::string s_;
    bool null_ = false;
};
}  // namespace ge
