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


def ge_code(dtype: np.dtype) -> int:
    try:
        return _GE_CODES[np.dtype(dtype)]
    except KeyError:
        raise ArgumentError(f"dtype {np.dtype(dtype)} has no ge::DataType in the emulator") from None
