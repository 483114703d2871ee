// ge::TypeUtils under metadef's name (graph/utils/type_utils.h): the static members ops' host
// code calls, with metadef's signatures (`static bool GetDataTypeLength(const ge::DataType,
// uint32_t&)`, `DataTypeToSerialString`), implemented for the dtypes the emulator knows.
// Also ge::GetSizeByDataType (metadef graph/types.h: bytes of one element, -1 when unknown).
#pragma once
#include <cstdint>
#include <string>

#include "dslc_sim/host_types.h"

namespace ge {
inline int GetSizeByDataType(DataType data_type) {
    switch (data_type) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: return 8;
        default: return -1;
    }
}

class TypeUtils {
public:
    static bool GetDataTypeLength(const ge::DataType data_type, uint32_t& length) {
        int n = GetSizeByDataType(data_type);
        if (n < 0) return false;
        length = static_cast<uint32_t>(n);
        return true;
    }
    static std::string FormatToSerialString(const Format format) {
        switch (static_cast<Format>(GetPrimaryFormat(format))) {
            case FORMAT_NCHW: return "NCHW";
            case FORMAT_NHWC: return "NHWC";
            case FORMAT_ND: return "ND";
            case FORMAT_NC1HWC0: return "NC1HWC0";
            case FORMAT_FRACTAL_Z: return "FRACTAL_Z";
            case FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
            default: return "RESERVED";
        }
    }
    static std::string DataTypeToSerialString(const DataType data_type) {
        switch (data_type) {
            case DT_FLOAT: return "DT_FLOAT";
            case DT_FLOAT16: return "DT_FLOAT16";
            case DT_BF16: return "DT_BF16";
            case DT_INT8: return "DT_INT8";
            case DT_UINT8: return "DT_UINT8";
            case DT_INT16: return "DT_INT16";
            case DT_UINT16: return "DT_UINT16";
            case DT_INT32: return "DT_INT32";
            case DT_UINT32: return "DT_UINT32";
            case DT_INT64: return "DT_INT64";
            case DT_UINT64: return "DT_UINT64";
            case DT_DOUBLE: return "DT_DOUBLE";
            case DT_BOOL: return "DT_BOOL";
            default: return "DT_UNDEFINED";
        }
    }
};
}  // namespace ge
