"""hoist-scalars: read Scalar inputs once per core, compute scalar-only math once, and use the
vector-scalar instructions instead of broadcasting a scalar into a tile.

Takes a tile-level function; produces one where (1) each Scalar input is read by one
``scalar.load`` before the loop, (2) every op whose operands are all scalars is moved out of
the loop (in order), and (3) tile-scalar arithmetic becomes ``vec.adds/muls/maxs/mins``:
``t - s`` is ``adds(t, -s)`` with ``-s`` computed once; ``s - t`` is ``adds(neg t, s)``;
``t / s`` and ``s / t`` divide by / into a ``vec.dup`` of s, since ``t * (1/s)`` rounds
differently from the division the program asked for; ``t > s`` (and ``s < t``) compares with the
scalar (``Compares``), ``where(c, t, s)`` selects it (Select's tensor-scalar mode); ``max(s, t)`` keeps its operand order
(max of equal operands, +0.0 and -0.0, is the second) with a ``vec.dup`` of s. Scalar
comparisons and selections run on the scalar unit; scalar math it lacks (sqrt, exp, ...; casts
other than the exact f16/bf16/i32 -> f32: f32 -> i32 must saturate, f32 -> f16 must round to
nearest even) runs on a ``vec.dup`` of its operand; math on constants only stays scalar
(canonicalize folds it). The exact scalar casts legalize-casts leaves (bool -> any number,
i8/u8 -> f16/bf16/f32/i32) are C++ conversions; if such a cast, or a comparison of integer
scalars, gets a tile operand after all, it is legalized here with legalize-casts' chains.

    before:  loop.tiles do {
               %0 = sub %x_t, %s : tensor<*, f32>
             }
    after:   %s_s = scalar.load %s : scalar<f32>
             %1 = neg %s_s : scalar<f32>
             loop.tiles do {
               %0 = vec.adds %x_t, %1 : tensor<*, f32>
             }
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.dtypes import bf16, bool_, f16, f32, i32
from dsl.ir import Func, Namer, Op, ScalarType, Shape, TensorType, Value

from .expand_math import _expand_integer, _integer_form
from .legalize_casts import LEGAL, SCALAR_EXACT, _Builder, _chain, _legalize_compare
from .manager import FunctionPass, register

VECTOR_SCALAR = {"add": "vec.adds", "mul": "vec.muls", "max": "vec.maxs", "min": "vec.mins"}
# What the scalar unit computes once per core; other scalar math runs on a broadcast tile.
SCALAR_UNIT = {
    "const",
    "attr",
    "cast",
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "max",
    "min",
    "abs",
    "relu",
    "reciprocal",
    "cmp",  # exact in C++ (integer comparisons too: Compare on the vector unit takes half/float only)
    "where",  # (c ? a : b): any dtype (Select on the vector unit takes half/float only)
    "and",  # && || ! of bool scalars (comparisons of Scalars and attributes)
    "or",
    "not",
}


# Casts the scalar unit does exactly as C++ conversions (the kernel emitter's scalar casts);
# others (f32 -> i32 must saturate, narrowing to f16/bf16 must round) run on the vector unit.
SCALAR_CASTS = {(f16, f32), (bf16, f32), (i32, f32)} | SCALAR_EXACT


def _is_scalar(v) -> bool:
    return isinstance(v.type, ScalarType)


def _on_scalar_unit(op: Op, constant: set[int]) -> bool:
    """Whether a scalar-only op is computed once on the scalar unit (constant operands only:
    canonicalize folds it with the interpreter's semantics)."""
    if op.opname == "cast":  # constant operands too: a cast of a comparison is not folded
        return (op.operands[0].type.dtype, op.result.type.dtype) in SCALAR_CASTS
    if all(id(v) in constant for v in op.operands):
        return True
    return op.opname in SCALAR_UNIT


def _retype(op: Op) -> None:
    """The result type of ``op`` after an operand became a tile."""
    if op.opname == "cast":
        op.result.type = op.operands[0].type.with_dtype(op.result.type.dtype)
    else:
        op.result.type = op.spec.infer([v.type for v in op.operands], op.attrs)


def hoist(func: Func) -> None:
    loop = func.loop()
    if loop is None:
        return
    namer = Namer.of(func)
    outside: list[Op] = []
    loads: dict[int, Op] = {}
    for p in func.params:
        v = p.value
        if _is_scalar(v) and any(v in op.operands for op in func.walk()):
            load = Op("scalar.load", [v], v.type, namer.fresh(f"{v.name}_s"), {}, func.loc)
            func.replace_all_uses(v, load.result)
            load.operands = [v]
            loads[id(v)] = load
    outside.extend(loads.values())

    inner: list[Op] = []
    shape = _tile_shape(func)
    if _feeds_per_row_value(loop.region, shape):
        shape = shape.with_last(1)
    widened: dict[int, Value] = {}  # scalar values the scalar unit cannot compute, now tiles
    constant: set[int] = set()  # scalars computed from constants only
    legalized: set[int] = set()  # ops _legalize_widened rewrote
    pending = list(loop.region)
    while pending:
        op = pending.pop(0)
        op.operands = [widened.get(id(v), v) for v in op.operands]
        scalar_only = (
            op.result is not None and _is_scalar(op.result) and all(_is_scalar(v) for v in op.operands)
        )
        if scalar_only and _on_scalar_unit(op, constant):
            # canonicalize keeps bool scalars as computed comparisons: not a constant (rows
            # fuzz seed 10020: round of a cast of `cast(1.25, bool_)` reached the scalar unit)
            folds = op.opname != "attr" and op.result.type.dtype != bool_
            if all(id(v) in constant for v in op.operands) and folds:
                constant.add(id(op.result))
            outside.append(op)
            continue
        if scalar_only:  # e.g. sqrt of a scalar: broadcast it and compute on the vector unit
            if not any(isinstance(v.type, TensorType) for v in op.operands):
                k = next(k for k, v in enumerate(op.operands) if v.type.dtype != bool_)  # not where's cond
                s = op.operands[k]
                dup = Op("vec.dup", [s], TensorType(s.type.dtype, shape), namer.fresh(), {}, op.loc)
                inner.append(dup)
                op.operands = op.operands[:k] + [dup.result] + op.operands[k + 1 :]
            _retype(op)
            widened[id(op.result)] = op.result
        elif (
            op.result is not None
            and (op.spec.infer is not None or op.opname == "cast")
            and any(id(v) in widened for v in op.operands)
        ):
            _retype(op)
            widened[id(op.result)] = op.result
            legal = _legalize_widened(op, namer, legalized)
            if legal is not None:  # a scalar-unit cast or integer comparison became a tile op
                ops, value = legal
                outside.extend(o for o in ops if o.opname == "const")
                pending[:0] = [o for o in ops if o.opname != "const"]
                widened[id(op.result)] = value
                continue
            if _integer_form(op) and all(isinstance(v.type, TensorType) for v in op.operands):
                # an 8-bit max/min/relu the widening made a tile op: in f16, as expand-math does
                done = _expand_integer(op, inner, namer)
                widened[id(op.result)] = widened[id(done)] = done
                continue
        inner.append(op)

    rewritten: list[Op] = []
    for op in inner:
        rewritten.extend(_vector_scalar(op, outside, namer))
    loop.region = rewritten
    func.body = outside + [o for o in func.body if o.opname != "scalar.load" and o not in outside]


def _legalize_widened(op: Op, namer: Namer, done: set[int]) -> tuple[list[Op], Value] | None:
    """The ops computing a cast or an integer comparison that legalize-casts left to the scalar
    unit, now that an operand is a tile, and the value that replaces ``op``'s result (None:
    ``op`` is legal as it is). Each op is legalized once (an i32 EQ stays one)."""
    if id(op) in done:
        return None
    done.add(id(op))
    if op.opname == "cmp" and op.operands[0].type.dtype.is_int:
        return _legalize_compare(op, namer), op.result
    pair = (op.operands[0].type.dtype, op.result.type.dtype) if op.opname == "cast" else None
    if pair not in SCALAR_EXACT or pair in LEGAL:
        return None
    out: list[Op] = []
    x = _chain(_Builder(out, namer, op.loc), op.operands[0], op.result.type.dtype)
    if out and x.owner is out[-1] and x.owner.opname == "cast":
        last = out.pop()  # the chain's last cast becomes op (keeps its name)
        op.operands, op.attrs = last.operands, last.attrs
        return out + [op], op.result
    return out, x  # a select of 1/0 computes it


def _tile_shape(func: Func) -> Shape:
    """The shape of a tile: the flat range, or in a row function the row ([..., C])."""
    shapes = [p.value.type.shape for p in func.params if isinstance(p.value.type, TensorType)]
    return max(shapes, key=lambda s: (not s.unshaped, s.ellipsis, len(s.dims)), default=Shape.star())


def _feeds_per_row_value(region: list[Op], row: Shape) -> bool:
    """Whether scalar math the scalar unit lacks, widened to the row, would turn a per-row value
    ([..., 1]) of a row function into a row: then it is widened to one value per row instead (a
    per-row output would be stored as a row: rows seed 70). Otherwise it is widened to the row, so
    the row ops read it as a tile (per-row values read as scalars need V_S flags: rows seed 6).
    Replays the retyping of ``hoist`` on the types alone."""
    if row.unshaped:
        return False
    constant: set[int] = set()
    widened: dict[int, TensorType] = {}  # value -> its type once widened to the row
    for op in region:
        if op.result is None:
            continue
        if any(id(v) in widened for v in op.operands):
            types = [widened.get(id(v), v.type) for v in op.operands]
            try:
                if op.opname == "cast":
                    new = types[0].with_dtype(op.result.type.dtype)
                elif op.spec.infer is None:
                    continue
                else:
                    new = op.spec.infer(types, op.attrs)
            except Exception:  # noqa: BLE001 - the verifier reports it; keep the row widening
                return False
            old = op.result.type
            if new == old:
                continue
            if isinstance(old, TensorType) and not old.shape.unshaped and old.shape.dims[-1:] == (1,):
                return True
            widened[id(op.result)] = new
        elif _is_scalar(op.result) and all(_is_scalar(v) for v in op.operands):
            if not _on_scalar_unit(op, constant):
                widened[id(op.result)] = TensorType(op.result.type.dtype, row)
            elif all(id(v) in constant for v in op.operands) and op.opname != "attr":
                constant.add(id(op.result))
    return False


def _scalar_op(name: str, operands, outside: list[Op], namer: Namer, loc, attrs=None) -> Op:
    t = operands[0].type if operands else None
    op = Op(name, operands, t, namer.fresh(), attrs or {}, loc)
    outside.append(op)
    return op


# Compares (tile vs scalar) and Select's tensor-scalar mode take half/float on A2.
SCALAR_OPERAND = {f16, f32}
FLIPPED = {"gt": "lt", "lt": "gt", "ge": "le", "le": "ge", "eq": "eq", "ne": "ne"}


def _broadcast_operands(op: Op, outside: list[Op], namer: Namer) -> list[Op]:
    """A comparison of a half/float tile with a scalar stays one (``Compares``; ``s < t`` is
    ``t > s``), and ``where(c, t, s)`` keeps its scalar second branch (Select's tensor-scalar
    mode): no broadcast per tile. Other scalar operands of Compare and Select are broadcast. A
    scalar condition of ``where`` becomes 1.0/0.0 on the scalar unit and a mask from comparing
    its broadcast."""
    ops: list[Op] = []

    shape = op.result.type.shape if isinstance(op.result.type, TensorType) else Shape.star()

    def dup(v):
        d = Op("vec.dup", [v], TensorType(v.type.dtype, shape), namer.fresh(), {}, op.loc)
        ops.append(d)
        return d.result

    if op.opname == "where" and _is_scalar(op.operands[0]):
        cond = op.operands[0]
        one = Op("const", [], ScalarType(f32), namer.fresh(), {"value": 1.0}, op.loc)
        zero = Op("const", [], ScalarType(f32), namer.fresh(), {"value": 0.0}, op.loc)
        flag = Op("where", [cond, one.result, zero.result], ScalarType(f32), namer.fresh(), {}, op.loc)
        outside.extend([one, zero, flag])
        mask_type = TensorType(cond.type.dtype, shape)
        mask = Op(
            "cmp", [dup(flag.result), dup(zero.result)], mask_type, namer.fresh(), {"pred": "ne"}, op.loc
        )
        ops.append(mask)
        op.operands[0] = mask.result
    if op.opname == "cmp" and _is_scalar(op.operands[0]) != _is_scalar(op.operands[1]):
        a, b = op.operands
        t, s = (b, a) if _is_scalar(a) else (a, b)
        if t.type.dtype in SCALAR_OPERAND and s.type.dtype == t.type.dtype:
            if _is_scalar(a):  # s < t is t > s (false for NaN either way)
                op.attrs["pred"] = FLIPPED[op.attrs["pred"]]
            op.operands = [t, s]
            return ops + [op]
    keep = None  # where(c, t, s): Select's tensor-scalar mode takes s as is
    if op.opname == "where":
        _, x, y = op.operands
        if (
            not _is_scalar(x)
            and _is_scalar(y)
            and x.type.dtype in SCALAR_OPERAND
            and y.type.dtype == x.type.dtype
        ):
            keep = 2
    for k, v in enumerate(op.operands):
        if _is_scalar(v) and k != keep:
            op.operands[k] = dup(v)
    if op.opname == "where":
        op.result.type = op.spec.infer([v.type for v in op.operands], op.attrs)
    return ops + [op]


def _vector_scalar(op: Op, outside: list[Op], namer: Namer) -> list[Op]:
    if op.opname in ("cmp", "where"):
        return _broadcast_operands(op, outside, namer)
    if op.opname not in ("add", "sub", "mul", "div", "max", "min") or len(op.operands) != 2:
        return [op]
    a, b = op.operands
    if _is_scalar(a) == _is_scalar(b):
        return [op]
    tile_first = isinstance(a.type, TensorType)
    t, s = (a, b) if tile_first else (b, a)
    if op.opname in VECTOR_SCALAR and (tile_first or op.opname in ("add", "mul")):
        op.opname, op.operands = VECTOR_SCALAR[op.opname], [t, s]
        return [op]
    if op.opname in ("max", "min"):  # max(s, t): s first; equal operands (+0/-0) give the second
        dup = Op("vec.dup", [s], t.type.with_dtype(s.type.dtype), namer.fresh(), {}, op.loc)
        op.operands = [dup.result, t]
        return [dup, op]
    if op.opname == "sub" and tile_first:  # t - s = t + (-s)
        neg = _scalar_op("neg", [s], outside, namer, op.loc)
        op.opname, op.operands = "vec.adds", [t, neg.result]
        return [op]
    if op.opname == "sub":  # s - t = (-t) + s
        neg = Op("neg", [t], t.type, namer.fresh(), {}, op.loc)
        op.opname, op.operands = "vec.adds", [neg.result, s]
        return [neg, op]
    if tile_first:  # t / s: divide by a broadcast s (t * (1/s) would round differently)
        dup = Op("vec.dup", [s], t.type.with_dtype(s.type.dtype), namer.fresh(), {}, op.loc)
        op.operands = [t, dup.result]
        return [dup, op]
    dup = Op("vec.dup", [s], t.type.with_dtype(s.type.dtype), namer.fresh(), {}, op.loc)  # s / t
    op.operands = [dup.result, t]
    return [dup, op]


@register
@dataclass(frozen=True)
class HoistScalarsPass(FunctionPass):
    level: ClassVar[str] = "tile"
    name: ClassVar[str] = "hoist-scalars"

    def run_on(self, func) -> None:
        hoist(func)
