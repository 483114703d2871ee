// ops-nn's common/inc/error_util.h subset used by op_host tiling code: OP_TILING_CHECK and the
// OPS_LOG_* / VECTOR_INNER_ERR_REPORT_TILIING spellings, on top of log/log.h.
#pragma once
#include "log/log.h"

#define OP_TILING_CHECK(cond, log_func, expr) \
    do {                                      \
        if (cond) {                           \
            log_func;                         \
            expr;                             \
        }                                     \
    } while (0)

#define VECTOR_INNER_ERR_REPORT_TILIING(opName, ...) OP_LOGE(opName, __VA_ARGS__)
#define CUBE_INNER_ERR_REPORT(opName, ...) OP_LOGE(opName, __VA_ARGS__)
#define OPS_LOG_D(desc, ...) OP_LOGD(desc, __VA_ARGS__)
#define OPS_LOG_I(desc, ...) OP_LOGI(desc, __VA_ARGS__)
#define OPS_LOG_W(desc, ...) OP_LOGW(desc, __VA_ARGS__)
#define OPS_LOG_E(desc, ...) OP_LOGE(desc, __VA_ARGS__)
#define OPS_CHECK_NULL_WITH_CONTEXT OP_CHECK_NULL_WITH_CONTEXT
