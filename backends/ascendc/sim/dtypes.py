"""numpy dtypes <-> ge::DataType codes (graph/types.h numbering)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from dsl.errors import ArgumentError

_GE_CODES: dict[np.dtype, int] = {
    np.dtype(np.float32): 0,
    np.dtype(np.float16): 1,
    np.dtype(np.int8): 2,
    np.dtype(np.int32): 3,
    np.dtype(np.uint8): 4,
    np.dtype(np.int16): 6,
    np.dtype(np.uint16): 7,
    np.dtype(np.uint32): 8,
    np.dtype(np.int64): 9,
    np.dtype(np.uint64): 10,
    np.dtype(np.float64): 11,
    np.dtype(np.bool_): 12,
    np.dtype(ml_dtypes.bfloat16): 27,
}


# The kernel's C++ type of each dtype (the DTYPE_<NAME> macros).
_C_TYPES: dict[np.dtype, str] = {
    np.dtype(np.float32): "float",
    np.dtype(np.float16): "half",
    np.dtype(np.int8): "int8_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.uint16): "uint16_t",
    np.dtype(np.uint32): "uint32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.uint64): "uint64_t",
    np.dtype(np.float64): "double",
    np.dtype(np.bool_): "bool",
    np.dtype(ml_dtypes.bfloat16): "bfloat16_t",
}


def c_type(dtype: np.dtype) -> str:
    ge_code(dtype)  # the same set of dtypes, the same error
    return _C_TYPES[np.dtype(dtype)]


def ge_code(dtype: np.dtype) -> int:
    try:
        return _GE_CODES[np.dtype(dtype)]
    except KeyError:
        raise ArgumentError(f"dtype {np.dtype(dtype)} has no ge::DataType in the emulator") from None
