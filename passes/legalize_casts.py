"""legalize-casts: rewrite casts the target has no instruction for into chains it has.

Atlas A2's vector Cast converts (ascendc-api.md section 5, Cast table; the pairs the backend
uses are ``LEGAL``): f16/bf16 <-> f32, f32 <-> i32, i8/u8 -> f16 and f16 -> i8/u8 (from half
only). Takes tensor-level IR after promote-precision (so the DSL's casts start from f32, i32,
i8, u8 or a bool comparison); produces only ``LEGAL`` casts, each chain exactly equal to the
interpreter's ``dsl.cast`` semantics (float -> int truncates and saturates, integer narrowing
saturates, casts to f16/bf16 round once to nearest even):

* f32 -> i8/u8:  to f16 rounding to odd (``round = "odd"``, CAST_ODD), then to i8/u8 toward zero,
  saturating (NaN -> 0). Exact: an f32 value that is no f16 lands on an f16 whose last bit is 1,
  never on an integer or a half integer while the f16 spacing is at most 1/4 (|x| < 512), so it
  stays on its side of each; from 512 on both roundings saturate (tests/e2e/test_quant_chain.py:
  every f16, the f32 rounding boundaries). ``cast(round(v), i8/u8)`` (every use of the round a
  cast to i8/u8) drops the round and its int8 cast rounds half to even (``round = "rint"``):
  the quantization step in two instructions, where truncate, widen, Maxs, Mins, f16 took seven;
* i32 -> i8/u8:  clamp in i32 (Maxs/Mins take int32), to f32 and f16 (exact), to i8/u8;
* i8/u8 -> f32, i32, bf16 and i8 <-> u8: through f16 (exact) and f32 (a clamp for i8 <-> u8);
* i32 -> f16:    through f32: exact below 2^24, and from 2^24 on both roundings overflow to inf;
* i32 -> bf16:   through f32 rounds twice: an f32 rounding that lands on a bf16 midpoint hides
  which side the integer was on. ``f`` (x rounded to f32) is a midpoint exactly when
  ``o = 2f - r`` (r = f rounded to bf16; o is exact in f32) is itself a bf16 value; then the
  result is the neighbour (r or o) on the side of the exact ``x - i32(f)``, else r;
* x -> bool:     ``x != 0`` (a comparison; ``materialize-bools`` stores it as bytes);
* bool -> x:     a comparison's mask selects 1 or 0 (in f32 for f32/i32/bf16, in f16 else);
  lower-bools' widening of a ``bool_`` input to f16 stays (Cast uint8 -> half on the bytes);
* an i8/u8 run-time attribute is read as f32 (exact) where it is cast or compared;
* casts of scalars the scalar unit does exactly as C++ conversions (``SCALAR_EXACT``: bool ->
  any number, i8/u8 -> f16/bf16/f32/i32) and comparisons of integer scalars stay as they are;
  hoist-scalars legalizes them with this pass's chains if they become tiles after all;
* comparisons of integer tensors (A2's Compare takes half/float): i8/u8 compare exactly as f16;
  i32 compares its f32 roundings (rounding is monotonic, so unequal roundings order correctly)
  and, where the roundings tie (then |a - b| <= 256), the exact difference ``a - b`` against 0
  (against the constant 0 the roundings alone are exact).

    before:  %r = round %x : tensor<*, f32>
             %q = cast %r {from = f32} : tensor<*, i8>
    after:   %0 = cast %x {from = f32, round = "odd"} : tensor<*, f16>
             %q = cast %0 {from = f16, round = "rint"} : tensor<*, i8>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.dtypes import bf16, bool_, f16, f32, i8, i32, u8
from dsl.errors import CompileError
from dsl.ir import Func, Namer, Op, ScalarType, TensorType, Value

from .manager import FunctionPass, register

RANGES = {i8: (-128, 127), u8: (0, 255)}
# Cast pairs with one A2 vector instruction (the backend's CASTS table).
LEGAL = {
    (f16, f32),
    (bf16, f32),
    (f32, f16),
    (f32, bf16),
    (f32, i32),
    (i32, f32),
    (i8, f16),
    (u8, f16),
    (f16, i8),
    (f16, u8),
}
# Scalar casts the scalar unit does exactly (C++ conversions of small integers and 0/1).
SCALAR_EXACT = {(bool_, d) for d in (f16, bf16, f32, i8, u8, i32)} | {
    (s, d) for s in (i8, u8) for d in (f16, bf16, f32, i32)
}


def _scalar_only(op: Op) -> bool:
    return all(isinstance(v.type, ScalarType) for v in [*op.operands, op.result])


class _Builder:
    """Appends new ops (at one source location) to ``out``."""

    def __init__(self, out: list[Op], namer: Namer, loc):
        self.out, self.namer, self.loc = out, namer, loc

    def op(self, name, operands, rtype, attrs=None) -> Value:
        new = Op(name, operands, rtype, self.namer.fresh(), attrs or {}, self.loc)
        self.out.append(new)
        return new.result

    def cast(self, v: Value, dt, round_mode: str | None = None) -> Value:
        attrs = {"from": v.type.dtype} | ({"round": round_mode} if round_mode else {})
        return self.op("cast", [v], v.type.with_dtype(dt), attrs)

    def const(self, value, dt) -> Value:
        return self.op("const", [], ScalarType(dt), {"value": float(value) if dt.is_float else int(value)})

    def clamp(self, v: Value, lo, hi) -> Value:
        dt = v.type.dtype
        v = self.op("max", [v, self.const(lo, dt)], v.type)
        return self.op("min", [v, self.const(hi, dt)], v.type)


def legalize(func: Func) -> None:
    namer = Namer.of(func)
    body: list[Op] = []
    replaced: dict[int, Value] = {}  # casts whose chain ends in another op (a select)
    users = _users(func)
    for op in func.body:
        op.operands = [replaced.get(id(v), v) for v in op.operands]
        if op.opname == "cmp" and _integer_compare(op) and not _scalar_only(op):
            body.extend(_legalize_compare(op, namer))
            continue
        if op.opname != "cast":
            body.append(op)
            continue
        src, dst = op.operands[0].type.dtype, op.result.type.dtype
        if _scalar_only(op) and (src, dst) in SCALAR_EXACT:
            body.append(op)  # a C++ conversion on the scalar unit
            continue
        if src == bool_ and dst == f16 and op.operands[0].owner is None:
            body.append(op)  # lower-bools' widening of a bool_ input's bytes: Cast uint8 -> half
            continue
        b = _Builder(body, namer, op.loc)
        if dst == bool_:  # x != 0
            zero = b.const(0, src)
            op.opname, op.operands, op.attrs = "cmp", [op.operands[0], zero], {"pred": "ne"}
            legal = not _integer_compare(op) or _scalar_only(op)
            body.extend([op] if legal else _legalize_compare(op, namer))
            continue
        x = op.operands[0]
        rounded = _round_into_8_bits(x, users) if src == f32 and dst in RANGES else None
        if rounded is not None:  # cast(round(v), i8): the chain's int8 cast rounds half to even
            if x.owner in body:
                body.remove(x.owner)
            x = _chain(b, rounded, dst, "rint")
        else:
            x = _chain(b, x, dst)
        if body and x.owner is body[-1] and x.owner.opname == "cast":
            last = body.pop()  # the chain's last cast becomes the original op (keeps its name)
            op.operands, op.attrs = last.operands, last.attrs
            body.append(op)
        else:
            replaced[id(op.result)] = x
    func.body = body
    if replaced:
        for o in func.walk():
            o.operands = [replaced.get(id(v), v) for v in o.operands]
        func.returns = [replaced.get(id(v), v) for v in func.returns]


def _chain(b: _Builder, x: Value, dst, round_mode: str | None = None) -> Value:
    """A value equal to ``cast(x, dst)`` built from LEGAL casts (and exact arithmetic), made by
    a cast to dst, or by a select when x is a comparison's mask and dst is f16/f32. ``round_mode``
    ``"rint"``: x is f32 and the result is ``cast(round(x), dst)`` for an 8-bit dst."""
    src = x.type.dtype
    if src in RANGES and x.owner is not None and x.owner.opname == "attr":
        # an 8-bit run-time attribute: read its (exact) value as f32 (A2 has no 8-bit Duplicate)
        x = b.op("attr", [], x.type.with_dtype(f32), dict(x.owner.attrs))
        src = f32
        if dst == f32:
            return x
    if (src, dst) in LEGAL:
        return b.cast(x, dst)
    if src == bool_:
        return _from_mask(b, x, dst)
    if src == f32 and dst in RANGES:  # to f16 rounding to odd keeps which side of an integer x is on
        return b.cast(b.cast(x, f16, "odd"), dst, round_mode)
    if src == i32 and dst in RANGES:
        return b.cast(b.cast(b.cast(b.clamp(x, *RANGES[dst]), f32), f16), dst)
    if src == i32 and dst == f16:
        return b.cast(b.cast(x, f32), f16)
    if src == i32 and dst == bf16:
        return b.cast(_i32_to_bf16_value(b, x), bf16)
    if src in RANGES:
        f = b.cast(b.cast(x, f16), f32)
        if dst in RANGES:
            return b.cast(b.cast(b.clamp(f, *RANGES[dst]), f16), dst)
        return f if dst == f32 else b.cast(f, dst)  # i32 or bf16: exact
    if src in (f16, bf16):  # only from chains: through f32
        return _chain(b, b.cast(x, f32), dst)
    raise CompileError(f"cast {src} -> {dst} is not supported by the 910B backend yet", b.loc)


def _round_into_8_bits(x: Value, users: dict[int, list]) -> Value | None:
    """The f32 operand ``v`` of ``x = round(v)`` when every use of x is a cast to i8/u8 (each
    such cast then rounds half to even itself, and the round goes)."""
    o = x.owner
    if o is None or o.opname != "round" or o.operands[0].type.dtype != f32:
        return None
    uses = users.get(id(x), [None])
    if not all(u is not None and u.opname == "cast" and u.result.type.dtype in RANGES for u in uses):
        return None
    return o.operands[0]


def _users(func: Func) -> dict[int, list]:
    """The ops using each value (by id); ``None`` for a use by the function's returns."""
    users: dict[int, list] = {}
    for o in func.walk():
        for v in o.operands:
            users.setdefault(id(v), []).append(o)
    for v in func.returns:
        users.setdefault(id(v), []).append(None)
    return users


def _from_mask(b: _Builder, c: Value, dst) -> Value:
    owner = c.owner
    if owner is None or owner.opname != "cmp":
        raise CompileError(
            f"a cast of a bool value to {dst} needs that value to be a comparison, a bool_ input or "
            "& | ~ of them (lower-bools runs first)",
            b.loc,
        )
    via = f32 if dst in (f32, i32, bf16) else f16
    one, zero = b.const(1, via), b.const(0, via)
    sel = b.op("where", [c, one, zero], c.type.with_dtype(via))
    return sel if via == dst else _chain(b, sel, dst)


def _i32_to_bf16_value(b: _Builder, x: Value) -> Value:
    """f32 holding x rounded once to nearest even to bf16 (see the module docstring)."""
    t = x.type
    f = b.cast(x, f32)
    r = b.cast(b.cast(f, bf16), f32)
    o = b.op("add", [f, b.op("sub", [f, r], f.type)], f.type)  # 2f - r, exact
    o2 = b.cast(b.cast(o, bf16), f32)
    mask = t.with_dtype(bool_)
    mid = b.op("cmp", [o2, o], mask, {"pred": "eq"})  # f is a bf16 midpoint (or r == f)
    e = b.cast(b.op("sub", [x, b.cast(f, i32)], t), f32)  # x - f, exact (|x - f| <= 64)
    zero = b.const(0, f32)
    up = b.op("cmp", [e, zero], mask, {"pred": "gt"})
    down = b.op("cmp", [e, zero], mask, {"pred": "lt"})
    hi = b.op("max", [r, o], f.type)
    lo = b.op("min", [r, o], f.type)
    side = b.op("where", [up, hi, b.op("where", [down, lo, r], f.type)], f.type)
    return b.op("where", [mid, side, r], f.type)


def _integer_compare(op: Op) -> bool:
    """Integer comparisons (Compare takes half/float); one of two scalars runs on the scalar
    unit, and hoist-scalars legalizes it if an operand becomes a tile after all."""
    return op.operands[0].type.dtype.is_int


def _legalize_compare(op: Op, namer: Namer) -> list[Op]:
    out: list[Op] = []
    pred = op.attrs["pred"]
    a, c = op.operands
    mask_type = op.result.type
    b = _Builder(out, namer, op.loc)

    if a.type.dtype.bits == 8:  # i8/u8 are exact in f16
        op.operands = [_chain(b, a, f16), _chain(b, c, f16)]
        out.append(op)
        return out
    if _int32_tiles(a, c):
        return _int32_compare(op, b, out)
    fa, fc = b.cast(a, f32), b.cast(c, f32)
    if c.owner is not None and c.owner.opname == "const" and c.owner.attrs["value"] == 0:
        op.operands = [fa, fc]  # rounding keeps the sign and zero: exact against 0
        out.append(op)
        return out
    rounded = b.op("cmp", [fa, fc], mask_type, {"pred": pred})
    tie = b.op("cmp", [fa, fc], mask_type, {"pred": "eq"})
    diff = b.cast(b.op("sub", [a, c], _combined(a, c)), f32)
    exact = b.op("cmp", [diff, b.const(0, f32)], mask_type, {"pred": pred})
    one, zero = b.const(1, f16), b.const(0, f16)
    value_type = mask_type.with_dtype(f16)
    chosen = b.op(
        "where",
        [
            tie,
            b.op("where", [exact, one, zero], value_type),
            b.op("where", [rounded, one, zero], value_type),
        ],
        value_type,
    )
    op.operands, op.attrs = [chosen, b.const(0.5, f16)], {"pred": "gt"}
    out.append(op)
    return out


def _int32_tiles(a, c) -> bool:
    return all(isinstance(v.type, TensorType) and v.type.dtype == i32 for v in (a, c))


def _int32_compare(op: Op, b: "_Builder", out: list[Op]) -> list[Op]:
    """i32 tiles compared exactly with integer Max/Min and the one int32 Compare A2 has, EQ:
    a >= c is min(a, c) == c, a <= c is max(a, c) == c; gt, lt and ne are the negations of le, ge
    and eq (a 0/1 half select compared with 0.5). No f32 rounding, no overflow."""
    a, c = op.operands
    pred = op.attrs["pred"]
    mask_type = op.result.type
    if pred == "eq":
        out.append(op)
        return out
    if pred in ("ge", "le"):
        wide = b.op("min" if pred == "ge" else "max", [a, c], _combined(a, c))  # [C] or [S, C] with a row
        op.operands, op.attrs = [wide, c], {"pred": "eq"}
        out.append(op)
        return out
    if pred == "ne":
        equal = b.op("cmp", [a, c], mask_type, {"pred": "eq"})
    else:  # gt: not (max(a, c) == c); lt: not (min(a, c) == c)
        m = b.op("max" if pred == "gt" else "min", [a, c], _combined(a, c))
        equal = b.op("cmp", [m, c], mask_type, {"pred": "eq"})
    value = b.op("where", [equal, b.const(0, f16), b.const(1, f16)], mask_type.with_dtype(f16))
    op.operands, op.attrs = [value, b.const(0.5, f16)], {"pred": "gt"}
    out.append(op)
    return out


def _combined(a, b):
    from dsl.ir.types import combine

    return combine([a.type, b.type], a.type.dtype)


@register
@dataclass(frozen=True)
class LegalizeCastsPass(FunctionPass):
    level: ClassVar[str] = "tensor"
    name: ClassVar[str] = "legalize-casts"

    def run_on(self, func) -> None:
        legalize(func)
