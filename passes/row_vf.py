"""form-vector-functions for row kernels: one RegBase vector function (VF) per row step.

seed 002's ascend950 design. The VF runs the step's rows one by one (``for (uint16_t r ...)``)
and each row in *passes* over its columns (``for (uint16_t i ...)``, one 256-byte register per
element step). A reduction accumulates its pass's registers into one register and ends with one
``Reduce`` (its result stored with ``DIST_FIRST_ELEMENT_B32`` into the per-row slot); what needs
it (``x - mean``, ``rsqrt(var + eps)``) runs after that pass: the per-row value is reloaded into
every lane with ``DIST_BRC_B32`` after a ``LocalMemBar<VEC_STORE, VEC_LOAD>``, per-row math runs
on that register, and the next pass reads it like any register.

This module marks the IR; ``backends/ascendc/kernel/vector/regbase_rows.py`` writes the VF.

* ``pass = k`` on every vector op (``vf = 0`` on all: one VF per step). A row op runs in the
  pass after the last reduction it depends on; a per-row op in the row-level section before
  that pass; a reduction in the pass of its operand.
* ``reg = true`` on a value that lives in a register: a row value read only in its own pass and
  not stored, every per-row value but a reduction's result (those pass through UB) and the
  stored ones; ``remat = true`` (and ``reg``) on every column computed in the step and on a row
  value a later pass reads that one cheap instruction makes from what every pass can read (a
  widening cast of a loaded row, ``x - mean``): re-made in each pass that reads it, where a UB
  copy would cost a store and a load per element (and UB). ``until = k``: the last pass that
  makes it again, so plan-rows keeps its sources' buffers live that long.
* ``vec.brcb`` (MemBase's Brcb blocks) goes: in a register every lane already holds the
  per-row value.
* plan-buffers/plan-rows see a pass as one position (``positions``), so UB values of passes
  that never overlap may share a buffer; the pitch of a row is a whole element step (``align``).

What the VF cannot do yet keeps the step MemBase (``blocker``).
"""

from __future__ import annotations

from dsl.dtypes import bf16, f16, f32, i8
from dsl.ir import Func, Op, TensorType

from .rows import COL, PERROW, ROW, layout_of
from .select_vector_path import vector_ops

REDUCE_KINDS = ("sum", "mean", "max", "min")
ALIASES = ("vec.brcb",)  # MemBase forms a register does not need


def blocker(func: Func, loop: Op, region: list[Op]) -> str | None:
    """Why this row step cannot be one VF yet (None: it can); the generic op checks follow."""
    kind = layout_of(func).kind
    passes = assign_passes(func, region)
    stored = {id(op.operands[0]) for op in region if op.opname == "dma.store"}
    for op in vector_ops(region):
        if op.opname == "vec.brc":
            return "RegBase does not broadcast a per-row value into a row yet ('vec.brc')"
        if op.opname == "reduce" and op.attrs.get("kind") not in REDUCE_KINDS:
            return f"RegBase does not reduce '{op.attrs.get('kind')}' yet"
        if op.opname == "welford.var":
            return "RegBase does not run Welford statistics yet"
        if op.opname.startswith("vec.") and any(
            isinstance(a.type, TensorType) and kind(a.type) == PERROW for a in op.operands[1:]
        ):  # the MemBase form reads the per-row value as a scalar (GetValue per row)
            return f"RegBase does not take a per-row value as the scalar of '{op.opname}' yet"
        k = kind(op.result.type)
        if k == COL and id(op.result) in stored:
            return "RegBase does not store a column computed in the step yet"
        if (
            k == PERROW
            and op.result.type.dtype != f32
            and op.opname not in ALIASES
            and not narrowed_out(op, region)
        ):
            return f"RegBase keeps per-row values as f32 only (a per-row {op.result.type.dtype} value)"
        if op.opname == "cmp":
            later = [
                u
                for u in region
                if any(v is op.result for v in u.operands) and passes.get(id(u)) != passes[id(op)]
            ]
            if later:
                return "RegBase keeps a comparison's mask in one pass over the columns"
    for op in region:
        if op.opname == "dma.load" and kind(op.result.type) == PERROW and op.result.type.dtype != f32:
            return f"RegBase loads per-row inputs as f32 only (a per-row {op.result.type.dtype} input)"
    return None


def narrowed_out(op: Op, region: list[Op]) -> bool:
    """A cast only a copy out reads, which the row VF writes itself: a per-row value narrowed to
    16 bits (``DIST_FIRST_ELEMENT_B16``), the quant chain's f16 -> i8 (``DIST_PACK4_B32``)."""
    if op.opname != "cast":
        return False
    readers = [u for u in region if any(v is op.result for v in u.operands)]
    if not readers or any(u.opname != "dma.store" for u in readers):
        return False
    pair = (op.operands[0].type.dtype, op.result.type.dtype)
    return pair in ((f32, f16), (f32, bf16), (f16, i8))


def quant_cast(op: Op) -> bool:
    """f32 -> f16 rounding to odd: the first step of the RINT -> f16 -> i8 quant chain."""
    return op.opname == "cast" and op.attrs.get("round") == "odd"


def generic_ops(region: list[Op]) -> list[Op]:
    """The ops form-vector-functions' generic (flat) checks apply to: not the row forms, not the
    narrowing casts the row VF stores itself (and their copies out)."""
    own = {id(op.result) for op in region if narrowed_out(op, region) and op.result.type.dtype.bytes == 1}
    return [
        op
        for op in region
        if op.opname not in ("reduce",) + ALIASES
        and id(op.result) not in own
        and not (op.opname == "dma.store" and id(op.operands[0]) in own)
    ]


def assign_passes(func: Func, region: list[Op]) -> dict[int, int]:
    """id(op) -> the pass over the columns (or the row-level section before it) it runs in."""
    avail: dict[int, int] = {}  # id(value) -> the first pass that may read it
    out: dict[int, int] = {}
    for op in vector_ops(region):
        p = max((avail.get(id(v), 0) for v in op.operands), default=0)
        out[id(op)] = p
        avail[id(op.result)] = p + 1 if op.opname == "reduce" else p
    return out


def form(func: Func, loop: Op) -> None:
    region = loop.region
    for op in list(region):  # the MemBase-only forms: their readers read the source register
        if op.opname in ALIASES:
            func.replace_all_uses(op.result, op.operands[0])
    region = [op for op in region if op.opname not in ALIASES]
    kind = layout_of(func).kind
    passes = assign_passes(func, region)
    ops = vector_ops(region)
    ids = {id(op) for op in ops}
    stored = {id(op.operands[0]) for op in region if op.opname == "dma.store"}
    readers: dict[int, list[Op]] = {}
    for op in ops:
        for v in op.operands:
            readers.setdefault(id(v), []).append(op)
    for op in ops:
        op.attrs["vf"] = 0
        op.attrs["pass"] = passes[id(op)]
        v, k = op.result, kind(op.result.type)
        if id(v) in stored or op.opname == "reduce":
            continue  # UB: a copy out reads it, or it is a per-row slot (FIRST_ELEMENT / BRC)
        later = any(passes[id(u)] > passes[id(op)] for u in readers.get(id(v), []))
        if k == COL or (later and rematerialized(op, kind)):
            op.attrs["reg"] = op.attrs["remat"] = True  # made again in each pass that reads it
        elif k == PERROW or not later:
            op.attrs["reg"] = True
    for op in reversed(ops):  # a re-made value reads its sources again up to its last reader's pass
        if op.attrs.get("remat"):
            last = max(
                (u.attrs.get("until", u.attrs["pass"]) for u in readers.get(id(op.result), [])),
                default=op.attrs["pass"],
            )
            if last > op.attrs["pass"]:
                op.attrs["until"] = last
    order = sorted(ops, key=lambda op: op.attrs["pass"])  # stable: program order within a pass
    first = next(i for i, op in enumerate(region) if id(op) in ids)
    head = region[:first]
    rest = [op for op in region[first:] if id(op) not in ids]
    head += [op for op in rest if op.opname == "dma.load"]
    rest = [op for op in rest if op.opname != "dma.load"]
    loop.region = head + order + rest


CHEAP = ("add", "sub", "mul", "max", "min", "vec.adds", "vec.muls", "vec.maxs", "vec.mins", "cast")


def rematerialized(op: Op, kind) -> bool:
    """A row value a later pass reads that is cheaper made again there than stored and reloaded:
    one cheap instruction per element step (a widening cast of a loaded row, ``x - mean``) whose
    sources every pass can read (UB rows and columns, per-row values, scalars, other re-made
    values), where the store and the reload would cost two UB moves per element."""
    if op.opname not in CHEAP or kind(op.result.type) != ROW:
        return False
    for v in op.operands:
        if not isinstance(v.type, TensorType) or v.owner is None:
            continue
        a = v.owner.attrs
        if a.get("reg") and not a.get("remat") and kind(v.type) != PERROW:
            return False  # a register of its own pass only
    return True


def vf_lanes(region: list[Op]) -> int:
    """Elements per element step: 64 with 32-bit values (16-bit data unpacked), else 128."""
    wide = any(
        isinstance(op.result.type, TensorType) and op.result.type.dtype.bytes == 4
        for op in region
        if op.result is not None
    )
    return 64 if wide else 128


__all__ = ["blocker", "form", "generic_ops", "assign_passes", "vf_lanes", "ROW", "COL", "PERROW"]
