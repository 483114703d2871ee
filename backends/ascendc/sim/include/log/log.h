// Host-side logging and check macros of CANN operator code: OP_LOGD/I/W/E, OP_CHECK_IF,
// OP_CHECK_NULL_WITH_CONTEXT, with the include name ops-nn op_host sources use ("log/log.h";
// the real header is opbase pkg_inc/op_common/log/log.h). The macro names, arguments and the
// "[file:line][OPS_BASE][function] OpName:[type:name] message" prefix follow that header;
// the emulator prints to stderr instead of the device log, which the harness attaches to a
// TilingError. As with CANN's ASCEND_GLOBAL_LOG_LEVEL (0 debug, 1 info, 2 warning, 3 error,
// 4 none; default 3), only errors are printed unless the environment asks for more.
#pragma once
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "dslc_sim/host_types.h"
// Host code calls memset_s/EOK with only the CANN headers included (they bring securec.h).
#include "securec.h"

#ifndef OP_SUBMOD_NAME
#define OP_SUBMOD_NAME "OPS_BASE"
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif

namespace Ops {
namespace Base {

enum LogLevel { kLogDebug = 0, kLogInfo = 1, kLogWarn = 2, kLogError = 3, kLogNone = 4 };

inline int LogLevelFromEnv() {
    const char* v = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (v == nullptr || *v < '0' || *v > '4' || v[1] != '\0') return kLogError;
    return *v - '0';
}

inline const char* GetOpInfo(const char* s) { return s == nullptr ? "nil" : s; }
inline const char* GetOpInfo(char* s) { return s == nullptr ? "nil" : s; }
inline const std::string& GetOpInfo(const std::string& s) { return s; }
// A context pointer (TilingContext, InferShapeContext, ...): "NodeType:NodeName".
template <class T, typename = std::enable_if_t<std::is_pointer<T>::value &&
                                               !std::is_same<std::decay_t<std::remove_pointer_t<T>>, char>::value>>
std::string GetOpInfo(T context) {
    if (context == nullptr) return "nil:nil";
    std::string info = context->GetNodeType() != nullptr ? context->GetNodeType() : "nil";
    info += ":";
    info += context->GetNodeName() != nullptr ? context->GetNodeName() : "nil";
    return info;
}
inline const char* GetSafeStr(const char* s) { return s; }
inline const char* GetSafeStr(const std::string& s) { return s.c_str(); }

inline void OpLog(int level, const char* file, int line, const char* func, const char* op, const char* fmt, ...)
    __attribute__((format(printf, 6, 7)));
inline void OpLog(int level, const char* file, int line, const char* func, const char* op, const char* fmt, ...) {
    static const char* names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    if (level < LogLevelFromEnv()) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "[%s] OP [%s:%d][%s][%s] OpName:[%s] %s\n", names[level], file, line, OP_SUBMOD_NAME, func,
                 op, msg);
}

inline std::string ToString(ge::DataType type) {
    switch (type) {
        case ge::DT_FLOAT: return "DT_FLOAT";
        case ge::DT_FLOAT16: return "DT_FLOAT16";
        case ge::DT_BF16: return "DT_BF16";
        case ge::DT_INT8: return "DT_INT8";
        case ge::DT_UINT8: return "DT_UINT8";
        case ge::DT_INT16: return "DT_INT16";
        case ge::DT_UINT16: return "DT_UINT16";
        case ge::DT_INT32: return "DT_INT32";
        case ge::DT_UINT32: return "DT_UINT32";
        case ge::DT_INT64: return "DT_INT64";
        case ge::DT_UINT64: return "DT_UINT64";
        case ge::DT_DOUBLE: return "DT_DOUBLE";
        case ge::DT_BOOL: return "DT_BOOL";
        default: return "DT_UNDEFINED";
    }
}
inline std::string ToString(ge::Format format) {
    switch (format) {
        case ge::FORMAT_ND: return "ND";
        case ge::FORMAT_NCHW: return "NCHW";
        case ge::FORMAT_NHWC: return "NHWC";
        case ge::FORMAT_NC1HWC0: return "NC1HWC0";
        case ge::FORMAT_FRACTAL_Z: return "FRACTAL_Z";
        case ge::FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
        default: return "RESERVED";
    }
}
inline std::string ToString(const gert::Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.GetDimNum(); i++) s += (i ? ", " : "") + std::to_string(shape.GetDim(i));
    return s + "]";
}

}  // namespace Base
}  // namespace Ops

#define DSLC_OP_LOG(level, opName, ...)                                                                          \
    ::Ops::Base::OpLog(level, __FILE__, __LINE__, __FUNCTION__,                                                  \
                       ::Ops::Base::GetSafeStr(::Ops::Base::GetOpInfo(opName)), __VA_ARGS__)
#define OP_LOGD(opName, ...) DSLC_OP_LOG(::Ops::Base::kLogDebug, opName, __VA_ARGS__)
#define OP_LOGI(opName, ...) DSLC_OP_LOG(::Ops::Base::kLogInfo, opName, __VA_ARGS__)
#define OP_LOGW(opName, ...) DSLC_OP_LOG(::Ops::Base::kLogWarn, opName, __VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(opName, ...) DSLC_OP_LOG(::Ops::Base::kLogError, opName, __VA_ARGS__)
#define OP_LOGE(opName, ...) OP_LOGE_WITHOUT_REPORT(opName, __VA_ARGS__)
// opbase log/log.h's lower layer, D_OP_LOG{D,I,W,E}(opInfo, fmt, ...): the same record for an op
// description already turned into a string (ops-nn common/inc/error_util.h's OPS_LOG_* use them).
#define D_OP_LOGD(opInfo, ...) DSLC_OP_LOG(::Ops::Base::kLogDebug, opInfo, __VA_ARGS__)
#define D_OP_LOGI(opInfo, ...) DSLC_OP_LOG(::Ops::Base::kLogInfo, opInfo, __VA_ARGS__)
#define D_OP_LOGW(opInfo, ...) DSLC_OP_LOG(::Ops::Base::kLogWarn, opInfo, __VA_ARGS__)
#define D_OP_LOGE(opInfo, ...) DSLC_OP_LOG(::Ops::Base::kLogError, opInfo, __VA_ARGS__)
// The error manager's REPORT_INNER_ERR_MSG(errorCode, fmt, ...) (metadef base/err_msg.h): on the
// emulator the reported message goes to the log as an error record tagged with its code.
#define REPORT_INNER_ERR_MSG(errorCode, ...) DSLC_OP_LOG(::Ops::Base::kLogError, errorCode, __VA_ARGS__)

// Runs `log` then `return_expr` when `condition` holds.
#define OP_CHECK_IF(condition, log, return_expr) \
    do {                                         \
        if (unlikely(condition)) {               \
            log;                                 \
            return_expr;                         \
        }                                        \
    } while (0)

// Logs "<ptr> is nullptr!" and returns ge::GRAPH_FAILED when `ptr` is null.
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr)                                                                \
    do {                                                                                                        \
        if (unlikely((ptr) == nullptr)) {                                                                       \
            const char* dslc_node_ =                                                                            \
                ((context) == nullptr || (context)->GetNodeName() == nullptr) ? "nil" : (context)->GetNodeName(); \
            OP_LOGE(dslc_node_, "%s is nullptr!", #ptr);                                                        \
            return ge::GRAPH_FAILED;                                                                            \
        }                                                                                                       \
    } while (0)

// The parameter-error family of opbase's log.h (include/op_common/log/log.h, error codes EZ0008...):
// the same arguments (strings or anything std::string takes) and message texts; the emulator logs the
// message as an error (no error-manager report).
#define DSLC_OP_LOGE_PARAM(entity, fmt, ...)                                                   \
    do {                                                                                       \
        std::string dslc_entity_(entity);                                                      \
        OP_LOGE(dslc_entity_.c_str(), fmt, __VA_ARGS__);                                       \
    } while (0)
#define DSLC_S(x) std::string(x).c_str()
#define DSLC_PARAM_IT(entity, param, what, bad, good)                                                              \
    DSLC_OP_LOGE_PARAM(entity, "Parameter %s of %s has incorrect " what " %s. It should be %s.", DSLC_S(param), \
                       DSLC_S(entity), DSLC_S(bad), DSLC_S(good))
#define DSLC_PARAM_REASON(entity, param, what, bad, reason)                                                         \
    DSLC_OP_LOGE_PARAM(entity, "Parameter %s of %s has incorrect " what " %s. Reason: %s.", DSLC_S(param),      \
                       DSLC_S(entity), DSLC_S(bad), DSLC_S(reason))
#define DSLC_PARAMS_REASON(entity, params, what, bad, reason)                                                       \
    DSLC_OP_LOGE_PARAM(entity, "Parameters %s of %s have incorrect " what " %s. Reason: %s.", DSLC_S(params),   \
                       DSLC_S(entity), DSLC_S(bad), DSLC_S(reason))
#define OP_LOGE_FOR_INVALID_SHAPE(e, p, bad, good) DSLC_PARAM_IT(e, p, "shape", bad, good)
#define OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON(e, p, bad, r) DSLC_PARAM_REASON(e, p, "shape", bad, r)
#define OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON(e, p, bad, r) DSLC_PARAMS_REASON(e, p, "shapes", bad, r)
#define OP_LOGE_FOR_INVALID_SHAPEDIM(e, p, bad, good) DSLC_PARAM_IT(e, p, "shape dim", bad, good)
#define OP_LOGE_FOR_INVALID_SHAPEDIM_WITH_REASON(e, p, bad, r) DSLC_PARAM_REASON(e, p, "shape dim", bad, r)
#define OP_LOGE_FOR_INVALID_SHAPEDIMS_WITH_REASON(e, p, bad, r) DSLC_PARAMS_REASON(e, p, "shape dims", bad, r)
#define OP_LOGE_FOR_INVALID_SHAPESIZE(e, p, bad, good) DSLC_PARAM_IT(e, p, "shape size", bad, good)
#define OP_LOGE_FOR_INVALID_SHAPESIZE_WITH_REASON(e, p, bad, r) DSLC_PARAM_REASON(e, p, "shape size", bad, r)
#define OP_LOGE_FOR_INVALID_SHAPESIZES_WITH_REASON(e, p, bad, r) DSLC_PARAMS_REASON(e, p, "shape sizes", bad, r)
#define OP_LOGE_FOR_INVALID_FORMAT(e, p, bad, good) DSLC_PARAM_IT(e, p, "format", bad, good)
#define OP_LOGE_FOR_INVALID_FORMAT_WITH_REASON(e, p, bad, r) DSLC_PARAM_REASON(e, p, "format", bad, r)
#define OP_LOGE_FOR_INVALID_FORMATS_WITH_REASON(e, p, bad, r) DSLC_PARAMS_REASON(e, p, "formats", bad, r)
#define OP_LOGE_FOR_INVALID_DTYPE(e, p, bad, good) DSLC_PARAM_IT(e, p, "dtype", bad, good)
#define OP_LOGE_FOR_INVALID_DTYPE_WITH_REASON(e, p, bad, r) DSLC_PARAM_REASON(e, p, "dtype", bad, r)
#define OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON(e, p, bad, r) DSLC_PARAMS_REASON(e, p, "dtypes", bad, r)
#define OP_LOGE_FOR_INVALID_VALUE(e, p, bad, good) DSLC_PARAM_IT(e, p, "value", bad, good)
#define OP_LOGE_FOR_INVALID_VALUE_WITH_REASON(e, p, bad, r) DSLC_PARAM_REASON(e, p, "value", bad, r)
#define OP_LOGE_FOR_INVALID_VALUES_WITH_REASON(e, p, bad, r) DSLC_PARAMS_REASON(e, p, "values", bad, r)
#define OP_LOGE_FOR_INVALID_LISTSIZE(e, p, bad, good) DSLC_PARAM_IT(e, p, "element nums", bad, good)
#define OP_LOGE_FOR_INVALID_LISTSIZE_WITH_REASON(e, p, bad, r) DSLC_PARAM_REASON(e, p, "element nums", bad, r)
#define OP_LOGE_FOR_INVALID_TENSORNUM(e, p, bad, good)                                                             \
    DSLC_OP_LOGE_PARAM(e, "Parameter %s of %s has invalid tensor num %ld. It should be %s.", DSLC_S(p), DSLC_S(e), \
                       static_cast<long>(bad), DSLC_S(good))
#define OP_LOGE_FOR_INVALID_ARGUMENT_WITH_REASON(e, p, r) \
    DSLC_OP_LOGE_PARAM(e, "Parameter %s of %s is invalid. Reason: %s.", DSLC_S(p), DSLC_S(e), DSLC_S(r))
