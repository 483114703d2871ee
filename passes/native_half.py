"""native-f16: one f16 operation rounded once to f16 runs on f16 tiles, not widened to f32.

The DSL computes in f32 and rounds on store (promote-precision makes that explicit). For one
``+ - * /`` or ``sqrt`` of f16 operands whose f32 result is rounded straight back to f16, the f32
step changes nothing: f32 carries 24 significand bits, at least 2 * 11 + 2, so rounding the exact
result to f32 and then to f16 gives the f16 rounding of the exact result (double rounding is
innocuous for these five operations when p' >= 2p + 2: S. Figueroa, "When is double rounding
innocuous?", SIGNUM 1995; f32's exponent range covers f16's, subnormals included, so no result
is rounded early). The vector unit's own f16 Add/Sub/Mul/Div/Sqrt round their exact result once
to f16, so ``cast(op(cast(a), cast(b)))`` is ``op(a, b)`` on f16, value for value. Max, min,
neg, abs and relu are exact in either type. That saves the widening and narrowing Casts and
halves the bytes the vector unit moves (f16 add: 1 vector op instead of 4).

bf16 is not rewritten: the claim holds for bf16 too (24 >= 2 * 8 + 2), but A2's vector unit
has no bf16 arithmetic (ascendc-api.md s5: only copies, Duplicate, Brcb and Cast take bf16).

Operands qualify when they are f16 values widened by a cast, or f32 constants that f16 holds
exactly (a literal in an f16 op already has f16's value). The f32 result must have no other
use. Scalar operands other than constants stay in f32 (they are read as f32 members).

    before:  %a32 = cast %a {from = f16} : tensor<*, f32>
             %b32 = cast %b {from = f16} : tensor<*, f32>
             %s = add %a32, %b32 : tensor<*, f32>
             %y = cast %s {from = f32} : tensor<*, f16>
    after:   %y = add %a, %b {rounds = true} : tensor<*, f16>

``rounds`` says the op's f16 result is rounded to f16 (in tensor-level IR an f16-typed sum holds
its f32 value until a cast or a store rounds it, DESIGN s2): the interpreter rounds it, and
canonicalize may fold a round trip through f32 of it.
"""

from __future__ import annotations

import numpy as np

from dsl.dtypes import f16, f32
from dsl.ir import Func, Namer, Op, ScalarType, TensorType

from .manager import function_pass
from .rewrite import erase_dead_ops

# One rounding of the exact result (Figueroa) or exact: the f32 detour is invisible.
NATIVE = {"add", "sub", "mul", "div", "sqrt", "max", "min", "neg", "abs", "relu"}


def _half_operand(v, namer: Namer, new: list[Op]):
    """The f16 value an f32 operand holds exactly, or None."""
    o = v.owner
    if o is None:
        return None
    if o.opname == "cast" and o.attrs.get("from") == f16 and v.type.dtype == f32:
        src = o.operands[0]
        return src if isinstance(src.type, TensorType) else None
    if o.opname == "const" and isinstance(v.type, ScalarType) and v.type.dtype == f32:
        value = float(o.attrs["value"])
        with np.errstate(over="ignore"):
            h = np.float16(value)
        if not (float(h) == value or (np.isnan(value) and np.isnan(h))):
            return None
        c = Op("const", [], ScalarType(f16), namer.fresh(), {"value": value}, o.loc)
        new.append(c)
        return c.result
    return None


def narrow(func: Func) -> None:
    namer = Namer.of(func)
    uses = func.uses()
    body: list[Op] = []
    for op in func.body:
        body.append(op)
        if not (
            op.opname == "cast"
            and op.attrs.get("from") == f32
            and isinstance(op.result.type, TensorType)
            and op.result.type.dtype == f16
        ):
            continue
        r = op.operands[0]
        o = r.owner
        if o is None or o.opname not in NATIVE or uses.get(id(r), 0) != 1:
            continue
        new: list[Op] = []
        halves = [_half_operand(v, namer, new) for v in o.operands]
        if any(h is None for h in halves) or not any(isinstance(h.type, TensorType) for h in halves):
            continue
        attrs = dict(o.attrs, rounds=True)  # the f16 instruction rounds its result (the interpreter too)
        native = Op(o.opname, halves, op.result.type, namer.fresh(), attrs, o.loc)
        body[-1:] = new + [native]
        native.result.name = op.result.name  # the rounded value keeps its (user) name
        func.replace_all_uses(op.result, native.result)
    func.body = body
    erase_dead_ops(func)


NativeF16Pass = function_pass("native-f16", "tensor", narrow)
