"""expand-math: write functions the vector unit lacks in terms of the ones it has.

Atlas A2's basic vector API has Exp/Ln/Sqrt/Rsqrt/Reciprocal but no Tanh or Sigmoid, Select and
Abs only for half/float, and no 8-bit arithmetic. Takes tensor-level IR after promote-precision
(operands already of their op's type); produces only ops the backend maps one-to-one:

* sigmoid(x) = 1 / (1 + exp(-x))                       (exp(-x) = inf gives exactly 0)
* a * sigmoid(x) = a / (1 + exp(-x))                    (one Div instead of Reciprocal + Mul,
  and one rounding less); -(c * x) for a constant c is x * (-c) (negation is exact)
* a * (1 + tanh(u)) = 2a / (1 + exp(-2u)), and 0.5 * x * (1 + tanh(u)) = x / (1 + exp(-2u))
  (gelu_tanh: 1 + tanh(u) = 2 sigmoid(2u); no cancellation, so no polynomial branch is needed;
  exp(-2u) = inf gives x / inf = 0, the limit; -2 (k * s) is s * (-2k) for a constant k: scaling
  by -2 is exact away from the subnormal range, and the result is approximated anyway)
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

import numpy as np

from dsl.dtypes import bool_, f16, f32, i32
from dsl.ir import Func, Namer, Op, ScalarType, TensorType
from dsl.ir.types import combine

from .manager import function_pass
from .rewrite import erase_dead_ops

TANH_SMALL = 0.1
TANH_POLY = (1.0, -1.0 / 3.0, 2.0 / 15.0, -17.0 / 315.0)  # coefficients of x, x^3, x^5, x^7


def _const_of(v) -> float | None:
    o = v.owner
    if o is not None and o.opname == "const" and isinstance(o.result.type, ScalarType):
        return float(o.attrs["value"])
    return None


def _split_const(op: Op | None, value: float | None = None):
    """``(c, x)`` when ``op`` multiplies (or adds) a constant c (equal to ``value`` if given) and x."""
    if op is None or len(op.operands) != 2:
        return None
    a, b = op.operands
    for c, x in ((a, b), (b, a)):
        k = _const_of(c)
        if k is not None and (value is None or k == value) and isinstance(x.type, TensorType):
            return k, x
    return None


def _cheaper_forms(func: Func) -> None:
    """Rewrite ``a * sigmoid(x)`` and ``a * (1 + tanh(u))`` into one division by
    ``1 + exp(-...)`` before the general expansions below see them (see the module docstring)."""
    namer = Namer.of(func)
    uses = func.uses()
    body: list[Op] = []

    def single(v) -> bool:
        return uses.get(id(v), 0) == 1

    for op in func.body:
        body.append(op)
        if op.opname != "mul" or not isinstance(op.result.type, TensorType):
            continue
        t, loc = op.result.type, op.loc
        if t.dtype != f32:
            continue
        new: list[Op] = []

        def emit(name, operands, attrs=None, rtype=t):
            o = Op(name, operands, rtype, namer.fresh(), attrs or {}, loc)
            new.append(o)
            return o.result

        def const(value):
            return emit("const", [], rtype=ScalarType(f32), attrs={"value": value})

        def scaled(u, factor):
            """u * factor, folding a constant factor of u's own product into one constant."""
            inner = _split_const(u.owner) if u.owner is not None and u.owner.opname == "mul" else None
            if inner is not None and single(u):
                k = const(float(np.float32(inner[0]) * np.float32(factor)))
                return emit("mul", [inner[1], k], rtype=inner[1].type)
            return emit("mul", [u, const(factor)], rtype=u.type)

        def plus_one(w):
            """1 + exp(w): a scalar when w is one (a Scalar's sigmoid), a tile otherwise."""
            e = emit("exp", [w], rtype=w.type)
            return emit("add", [e, const(1.0)], rtype=w.type)

        result = None
        for k in (0, 1):
            a, g = op.operands[k], op.operands[1 - k]
            owner = g.owner
            if owner is None or not single(g) or not isinstance(a.type, TensorType) and _const_of(a) is None:
                continue
            if owner.opname == "sigmoid" and owner.result.type.dtype == f32:
                result = emit("div", [a, plus_one(scaled(owner.operands[0], -1.0))])
                break
            one_plus = _split_const(owner, 1.0) if owner.opname == "add" else None
            if one_plus is None:
                continue
            th = one_plus[1].owner
            if th is None or th.opname != "tanh" or not single(one_plus[1]):
                continue
            d = plus_one(scaled(th.operands[0], -2.0))
            half = _split_const(a.owner, 0.5) if a.owner is not None and a.owner.opname == "mul" else None
            if half is not None and single(a):
                result = emit("div", [half[1], d])
            else:
                result = emit("div", [emit("mul", [a, const(2.0)], rtype=a.type), d])
            break
        if result is None:
            continue
        body[-1:] = new
        result.name = op.result.name
        func.replace_all_uses(op.result, result)
    func.body = body
    erase_dead_ops(func)


def expand(func: Func) -> None:
    _cheaper_forms(func)
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
    """The type of an elementwise op on a and b of one dtype: their shapes combined (a column
    ``[C]`` with rows ``[R, C]`` is rows), a tensor if either is."""
    return combine([a.type, b.type], a.type.dtype)


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


ExpandMathPass = function_pass("expand-math", "tensor", expand)
