"""expand-math: write functions the vector unit lacks in terms of the ones it has.

Atlas A2's basic vector API has Exp/Ln/Sqrt/Rsqrt/Reciprocal but no Tanh or Sigmoid, Select and
Abs only for half/float, and no 8-bit arithmetic. Takes tensor-level IR after promote-precision
(operands already of their op's type); produces only ops the backend maps one-to-one:

* sigmoid(x) = 1 / (1 + exp(-x))                       (exp(-x) = inf gives exactly 0)
* tanh(x)    = sign(x) * (1 - 2 / (exp(2|x|) + 1))      for |x| >= 0.1, and the odd Taylor
  polynomial x (1 - x^2/3 + 2x^4/15 - 17x^6/315) below, where the first form would cancel
  (relative error < 1e-9 there; 1 - 2/(e^(2a)+1) loses ~eps/(2a) at a = 0.1: 3e-7).
* where(c, a, b) on i32 = a * m + b * (1 - m) with m = i32(where(c, 1.0, 0.0)): one product is
  0, so nothing overflows and the result is exact; on i8/u8 it selects in f16 (exact); on
  bools it selects 1/0 in f16 and compares with 0.5.
* abs(x) on i32 = max(x, -x); max/min/relu on i8/u8 run in f16 (exact) and cast back.

    before:  %y = sigmoid %x : tensor<*, f32>
    after:   %0 = neg %x ; %1 = exp %0 ; %2 = add %1, 1.0 ; %y = reciprocal %2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.dtypes import bool_, f16, f32, i32
from dsl.ir import Func, Namer, Op, ScalarType, TensorType

from .manager import FunctionPass, register

TANH_SMALL = 0.1
TANH_POLY = (1.0, -1.0 / 3.0, 2.0 / 15.0, -17.0 / 315.0)  # coefficients of x, x^3, x^5, x^7


def expand(func: Func) -> None:
    namer = Namer.of(func)
    body: list[Op] = []
    for op in func.body:
        if _integer_form(op):
            result = _expand_integer(op, body, namer)
            result.name = op.result.name  # the op it replaces is gone: keep the user's name
            func.replace_all_uses(op.result, result)
            continue
        if op.opname not in ("sigmoid", "tanh"):
            body.append(op)
            continue
        x, t, loc = op.operands[0], op.result.type, op.loc

        def emit(name, operands, rtype=t, attrs=None):
            new = Op(name, operands, rtype, namer.fresh(), attrs or {}, loc)
            body.append(new)
            return new.result

        def const(value):
            return emit("const", [], ScalarType(f32), {"value": value})

        if op.opname == "sigmoid":
            e = emit("exp", [emit("neg", [x])])
            result = emit("reciprocal", [emit("add", [e, const(1.0)])])
        else:
            a = emit("abs", [x])
            e = emit("exp", [emit("mul", [a, const(2.0)])])
            big = emit("sub", [const(1.0), emit("div", [const(2.0), emit("add", [e, const(1.0)])])])
            signed = emit(
                "where",
                [emit("cmp", [x, const(0.0)], t.with_dtype(bool_), {"pred": "lt"}), emit("neg", [big]), big],
            )
            x2 = emit("mul", [x, x])
            poly = const(TANH_POLY[-1])
            for c in reversed(TANH_POLY[:-1]):
                poly = emit("add", [emit("mul", [x2, poly]), const(c)])
            small = emit("mul", [x, poly])
            near_zero = emit("cmp", [a, const(TANH_SMALL)], t.with_dtype(bool_), {"pred": "lt"})
            result = emit("where", [near_zero, small, signed])
        func.replace_all_uses(op.result, result)
    func.body = body


def _join(a, b):
    """The type of an elementwise op on a and b of one dtype (a tensor if either is)."""
    return a.type if isinstance(a.type, TensorType) else b.type


def _integer_form(op: Op) -> bool:
    if op.result is None or not isinstance(op.result.type, TensorType):
        return False
    dt = op.result.type.dtype
    if op.opname == "where":
        return dt.is_int or dt == bool_
    if op.opname == "abs":
        return dt == i32
    return op.opname in ("max", "min", "relu") and dt.is_int and dt.bits == 8


def _expand_integer(op: Op, body: list[Op], namer: Namer):
    t, loc = op.result.type, op.loc

    def emit(name, operands, rtype, attrs=None):
        new = Op(name, operands, rtype, namer.fresh(), attrs or {}, loc)
        body.append(new)
        return new.result

    def cast(v, dt):
        return emit("cast", [v], v.type.with_dtype(dt), {"from": v.type.dtype})

    def const(value, dt):
        return emit("const", [], ScalarType(dt), {"value": value})

    if op.opname == "abs":
        x = op.operands[0]
        return emit("max", [x, emit("neg", [x], t)], t)
    if op.opname == "where" and t.dtype == bool_:  # select 1/0 in f16, then compare with 0.5
        c, a, b = op.operands
        one, zero = const(1.0, f16), const(0.0, f16)
        af, bf = (emit("where", [v, one, zero], v.type.with_dtype(f16)) for v in (a, b))
        sel = emit("where", [c, af, bf], t.with_dtype(f16))
        return emit("cmp", [sel, const(0.5, f16)], t, {"pred": "gt"})
    if op.opname == "where" and t.dtype == i32:
        c, a, b = op.operands
        mask = emit("where", [c, const(1.0, f32), const(0.0, f32)], c.type.with_dtype(f32))
        m = cast(mask, i32)
        keep_b = emit("sub", [const(1, i32), m], m.type)
        pa, pb = emit("mul", [a, m], _join(a, m)), emit("mul", [b, keep_b], _join(b, keep_b))
        return emit("add", [pa, pb], t)
    # 8-bit values are exact in f16, and so are their max, min, relu and selection
    operands = [v if v.type.dtype == bool_ else cast(v, f16) for v in op.operands]
    return cast(emit(op.opname, operands, t.with_dtype(f16), dict(op.attrs)), t.dtype)


@register
@dataclass(frozen=True)
class ExpandMathPass(FunctionPass):
    level: ClassVar[str] = "tensor"
    name: ClassVar[str] = "expand-math"

    def run_on(self, func) -> None:
        expand(func)
