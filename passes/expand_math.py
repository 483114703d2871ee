"""expand-math: write functions the vector unit lacks in terms of the ones it has.

Atlas A2's basic vector API has Exp/Ln/Sqrt/Rsqrt/Reciprocal but no Tanh or Sigmoid. Takes
tensor-level f32 IR (after promote-precision); produces only ops the backend maps one-to-one:

* sigmoid(x) = 1 / (1 + exp(-x))                       (exp(-x) = inf gives exactly 0)
* tanh(x)    = sign(x) * (1 - 2 / (exp(2|x|) + 1))      for |x| >= 0.1, and the odd Taylor
  polynomial x (1 - x^2/3 + 2x^4/15 - 17x^6/315) below, where the first form would cancel
  (relative error < 1e-9 there; 1 - 2/(e^(2a)+1) loses ~eps/(2a) at a = 0.1: 3e-7).

    before:  %y = sigmoid %x : tensor<*, f32>
    after:   %0 = neg %x ; %1 = exp %0 ; %2 = add %1, 1.0 ; %y = reciprocal %2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.dtypes import bool_, f32
from dsl.ir import Func, Namer, Op, ScalarType, TensorType

from .manager import FunctionPass, register

TANH_SMALL = 0.1
TANH_POLY = (1.0, -1.0 / 3.0, 2.0 / 15.0, -17.0 / 315.0)  # coefficients of x, x^3, x^5, x^7


def expand(func: Func) -> None:
    namer = Namer.of(func)
    body: list[Op] = []
    for op in func.body:
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


@register
@dataclass(frozen=True)
class ExpandMathPass(FunctionPass):
    level: ClassVar[str] = "tensor"
    name: ClassVar[str] = "expand-math"

    def run_on(self, func) -> None:
        expand(func)
