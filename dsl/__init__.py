"""dslc: write an Ascend operator's math once as a decorated Python function.

import dsl
from dsl import Tensor, Scalar, f16, f32

@dsl.op(dtypes=(f16, f32))
def axpy(x: Tensor, y: Tensor, a: Scalar):
    return a * x + y
"""

from .dtypes import DType, bf16, bool_, f16, f32, i8, i32, u8
from .errors import (
    ArgumentError,
    CompileError,
    DeadlockError,
    DslError,
    MemoryFaultError,
    RaceError,
    SimulationError,
    SyncError,
)
from . import precision  # noqa: F401  (dsl.precision.compare)
from .operator import Operator, op
from .surface import INTRINSICS, T, Scalar, Tensor

globals().update(INTRINSICS)  # dsl.sqrt, dsl.where, ... (markers read by the frontend)

__all__ = [
    "DType",
    "f16",
    "bf16",
    "f32",
    "i8",
    "i32",
    "u8",
    "bool_",
    "Tensor",
    "Scalar",
    "T",
    "op",
    "Operator",
    "DslError",
    "ArgumentError",
    "CompileError",
    "SimulationError",
    "RaceError",
    "DeadlockError",
    "SyncError",
    "MemoryFaultError",
    *INTRINSICS,
]
