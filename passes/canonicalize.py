"""canonicalize: constant folding, algebraic identities, CSE and DCE, to a fixpoint.

    before:  %0 = const {value = 1.0} : scalar<f32>
             %1 = mul %x, %0 : tensor<*, f32>
             %2 = mul %x, %0 : tensor<*, f32>
             %3 = add %1, %2 : tensor<*, f32>
    after:   %3 = add %x, %x : tensor<*, f32>

Folding uses the interpreter's own op semantics (float32 math), so folded constants equal
what the unfolded program computes. Identities are removed only where they hold bit for bit:
x * 1, 1 * x, x / 1, and for floats x + -0.0 and x - 0.0 (x + 0.0 is +0.0 when x is -0.0).
"""

from __future__ import annotations

import math

import numpy as np

from dsl.ir import Func, Namer, Op, ScalarType
from dsl.ir.ops import compute_np

from .manager import function_pass
from .rewrite import erase_dead_ops


def _is_identity(opname: str, c, dtype, right: bool) -> bool:
    """``x op c`` (right) or ``c op x`` is x itself, bit for bit. For floats only -0.0 is the
    additive identity (-0.0 + 0.0 = +0.0) and only +0.0 the subtractive one."""
    v = float(c)
    if opname in ("mul", "div"):
        return v == 1.0 and (right or opname == "mul")
    if opname not in ("add", "sub") or v != 0.0 or (opname == "sub" and not right):
        return False
    if not dtype.is_float:
        return True
    negative = math.copysign(1.0, v) < 0
    return negative if opname == "add" else not negative


def _const_value(v) -> float | int | None:
    op = v.owner
    if op is not None and op.opname == "const":
        return op.attrs["value"]
    return None


def fold_constants(func: Func) -> bool:
    changed = False
    for op in func.body:
        if op.result is None or op.opname in ("const", "attr", "none") or op.opname.startswith("static."):
            continue
        if not isinstance(op.result.type, ScalarType) or op.spec.interp is None:
            continue
        vals = [_const_value(v) for v in op.operands]
        if any(v is None for v in vals):
            continue
        args = [np.full((1,), v, dtype=compute_np(a.type.dtype)) for v, a in zip(vals, op.operands)]
        with np.errstate(all="ignore"):
            out = np.asarray(op.spec.interp(args, op.attrs, op.result.type)).reshape(-1)[0]
        value = float(out) if op.result.type.dtype.is_float else int(out)
        if op.result.type.dtype.kind == "bool":
            continue  # bool scalars stay as computed comparisons
        op.opname, op.operands, op.attrs = "const", [], {"value": value}
        changed = True
    return changed


def simplify(func: Func) -> bool:
    changed = False
    for op in func.body:
        if op.result is None or len(op.operands) != 2:
            continue
        a, b = op.operands
        ca, cb = _const_value(a), _const_value(b)
        dt = getattr(op.result.type, "dtype", None)
        if dt is None:
            continue
        if cb is not None and _is_identity(op.opname, cb, dt, True) and a.type == op.result.type:
            func.replace_all_uses(op.result, a)
            changed = True
        elif ca is not None and _is_identity(op.opname, ca, dt, False) and b.type == op.result.type:
            func.replace_all_uses(op.result, b)
            changed = True
    for op in list(func.body):
        if op.opname in ("max", "min") and op.operands[0] is op.operands[1]:  # max(x, x) = x, NaN too
            func.replace_all_uses(op.result, op.operands[0])
            changed = True
        elif (
            op.opname == "cmp"
            and op.operands[0] is op.operands[1]
            and op.operands[0].type.dtype.is_int
            and isinstance(op.result.type, ScalarType)
        ):
            _self_compare(func, op)  # integers: a known truth value (bool scalars stay comparisons)
            changed = True
    for op in func.body:
        if op.opname == "cast" and _is_exact_round_trip(op):
            func.replace_all_uses(op.result, op.operands[0].owner.operands[0])
            changed = True
        elif op.opname == "cast" and _is_identity_cast(op):
            func.replace_all_uses(op.result, op.operands[0])
            changed = True
    for op in func.body:
        if op.opname == "neg" and op.operands[0].owner is not None and op.operands[0].owner.opname == "neg":
            inner = op.operands[0].owner.operands[0]
            if inner.type == op.result.type:
                func.replace_all_uses(op.result, inner)
                changed = True
    return changed


def _self_compare(func: Func, op: Op) -> None:
    """``x <pred> x`` on integers becomes ``1 > 0`` (true) or ``0 > 1`` (false) on constants."""
    truth = op.attrs["pred"] in ("eq", "ge", "le")
    at = func.body.index(op)
    dt = op.operands[0].type.dtype
    namer = Namer.of(func)
    one = Op("const", [], ScalarType(dt), namer.fresh(), {"value": 1}, op.loc)
    zero = Op("const", [], ScalarType(dt), namer.fresh(), {"value": 0}, op.loc)
    func.body[at:at] = [one, zero]
    op.operands = [one.result, zero.result] if truth else [zero.result, one.result]
    op.attrs = {"pred": "gt"}


def _key(op: Op):
    attrs = tuple(sorted((k, repr(v)) for k, v in op.attrs.items()))
    return (op.opname, tuple(id(v) for v in op.operands), attrs, str(op.result.type))


# Producers whose f16/bf16 result is rounded to its type: an input, a GM load, a cast (every cast
# to f16/bf16 rounds). An arithmetic op typed f16/bf16 in tensor-level IR holds its f32 result
# (DESIGN s2) until a cast or a store rounds it, so it is not among them.
_ROUNDED_PRODUCERS = {"cast", "dma.load"}


def holds_rounded(v) -> bool:
    """``v`` holds a value already representable in its own (16-bit float) type."""
    o = v.owner
    return o is None or o.opname in _ROUNDED_PRODUCERS or bool(o.attrs.get("rounds"))


def _is_exact_round_trip(op: Op) -> bool:
    """cast(cast(x: T -> wider) -> T) is x when the first cast is exact (float widening) and x
    already holds a T value; ``cast(s, bf16)`` of a bf16 sum that holds its f32 result rounds."""
    inner = op.operands[0].owner
    if inner is None or inner.opname != "cast":
        return False
    x = inner.operands[0]
    src, mid, dst = x.type.dtype, inner.result.type.dtype, op.result.type.dtype
    return (
        src == dst
        and src.is_float
        and mid.is_float
        and mid.bits > src.bits
        and x.type == op.result.type
        and holds_rounded(x)
    )


def _is_identity_cast(op: Op) -> bool:
    """cast(x: T -> T) of a value that already holds a T value changes no bit."""
    x = op.operands[0]
    return x.type == op.result.type and (
        not x.type.dtype.is_float or x.type.dtype.bits != 16 or holds_rounded(x)
    )


def eliminate_common_subexpressions(func: Func) -> bool:
    seen: dict = {}
    changed = False
    for op in func.body:
        if op.result is None or op.opname == "none":
            continue
        k = _key(op)
        if k in seen:
            func.replace_all_uses(op.result, seen[k])
            changed = True
        else:
            seen[k] = op.result
    return changed


def canonicalize(func: Func) -> None:
    """Fold, simplify, share and erase until nothing changes."""
    while True:
        changed = fold_constants(func)
        changed |= simplify(func)
        changed |= eliminate_common_subexpressions(func)
        changed |= erase_dead_ops(func)
        if not changed:
            break


CanonicalizePass = function_pass("canonicalize", "any", canonicalize)
