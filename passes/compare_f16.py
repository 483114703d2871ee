"""compare-f16: compare f16 values natively instead of their f32 widenings.

promote-precision widens every f16 input to f32, so ``x > y`` on f16 tensors compares two casts.
Widening f16 to f32 is exact and keeps order, equality and NaN, so the comparison of the f16
values themselves has the same result; the A2 and 950 vector units compare half natively
(``Compare``/``Compares`` take half; reference ascendc-api.md section 5), which saves the two
casts and their f32 buffers. A float constant takes part when it converts to f16 exactly
(``x > 0.5``); one that does not (``x > 0.1``) keeps the f32 comparison. bf16 is left alone: A2
has no bf16 Compare.

    before:  %x_f32 = cast %x {from = f16} : tensor<*, f32>
             %y_f32 = cast %y {from = f16} : tensor<*, f32>
             %c = cmp %x_f32, %y_f32 {pred = "gt"} : tensor<*, bool>
    after:   %c = cmp %x, %y {pred = "gt"} : tensor<*, bool>
"""

from __future__ import annotations

import numpy as np

from dsl.dtypes import f16, f32
from dsl.ir import Func, Namer, Op, Value

from .manager import function_pass
from .rewrite import erase_dead_ops


def _f16_source(v: Value) -> Value | None:
    """The f16 value ``v`` widens, if it is a widening cast of one."""
    op = v.owner
    if op is not None and op.opname == "cast" and op.attrs.get("from") == f16 and v.type.dtype == f32:
        return op.operands[0]
    return None


def _exact_f16(v: Value) -> float | None:
    """A constant f32 scalar that converts to f16 exactly: its value."""
    op = v.owner
    if op is None or op.opname != "const" or v.type.dtype != f32:
        return None
    value = float(op.attrs["value"])
    return value if float(np.float16(value)) == value or np.isnan(value) else None


def native_f16_compares(func: Func) -> None:
    namer = Namer.of(func)
    body: list[Op] = []
    for op in func.body:
        if op.opname == "cmp":
            srcs = [_f16_source(v) for v in op.operands]
            if any(s is not None for s in srcs):
                operands = []
                for v, s in zip(op.operands, srcs):
                    if s is not None:
                        operands.append(s)
                    elif _exact_f16(v) is not None:
                        const = Op(
                            "const",
                            [],
                            v.type.with_dtype(f16),
                            namer.fresh(),
                            {"value": v.owner.attrs["value"]},
                            op.loc,
                        )
                        body.append(const)
                        operands.append(const.result)
                    else:
                        break
                else:
                    op.operands = operands
        body.append(op)
    func.body = body
    erase_dead_ops(func)


CompareF16Pass = function_pass("compare-f16", "tensor", native_f16_compares)
