"""form-vector-functions: a RegBase tile loop's vector ops become one vector function (VF).

Takes a tile-level function after select-vector-path; for a tile loop marked
``vector_path = "regbase"`` it

1. checks the backend can write the region as one VF (the ops and element types of
   ``REG_OPS``/``REG_CASTS``, no 8-bit data, at most ``MAX_LIVE`` registers live);
   where it cannot, the loop goes back to MemBase and ``vector_why`` says why;
2. moves the broadcasts hoist-invariants made before the loop into it (a VF duplicates a scalar
   into a register once, before its element loop: no resident UB repeat);
3. marks every vector op ``vf = 0`` and every result no DMA reads ``reg = true`` (it lives in a
   register: plan-buffers gives it no UB);
4. orders the body loads, the VF, stores (a store waits for the whole VF anyway).

    before:  loop.tiles {vector_path = "regbase"} do {
               %x_t = dma.load %x ; %0 = vec.muls %x_t, %s ; %1 = exp %0 ; dma.store %1 {output = "y"} }
    after:   loop.tiles {vector_path = "regbase"} do {
               %x_t = dma.load %x
               %0 = vec.muls %x_t, %s {vf = 0, reg = true}
               %1 = exp %0 {vf = 0}
               dma.store %1 {output = "y"} }
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.dtypes import bf16, bool_, f16, f32, i8, i32, u8
from dsl.errors import CompileError
from dsl.ir import Func, Op, TensorType

from . import row_vf
from .manager import FunctionPass, register
from .select_vector_path import vector_ops

# Tile ops one Reg API call (or a fixed short sequence) renders, with the element types it takes
# on ascend950 (asc-devkit 9.1 dav_3510 impl; the emulator's reg_compute.h checks the same sets).
FLOATS = {f32, f16}
NUMBERS = {f32, f16, i32}
REG_OPS = {
    "add": NUMBERS | {bf16},
    "sub": NUMBERS | {bf16},
    "mul": NUMBERS,
    "div": FLOATS,
    "max": NUMBERS | {bf16},
    "min": NUMBERS | {bf16},
    "vec.adds": NUMBERS,
    "vec.muls": {f32, f16, i32},
    "vec.maxs": NUMBERS,
    "vec.mins": NUMBERS,
    "neg": {f32, f16, i32},
    "abs": {f32, f16, i32},
    "relu": {f32, f16, i32},
    "exp": FLOATS,
    "log": FLOATS,
    "sqrt": FLOATS,
    "reciprocal": FLOATS,  # Div of a duplicated 1 (the Reg API has no Reciprocal)
    "rsqrt": FLOATS,  # Sqrt, then that Div
    "round": FLOATS
    | {bf16},  # Truncate<T, RoundMode::CAST_RINT> (3510 TruncateImpl: half, float, bfloat16_t)
    "vec.dup": NUMBERS | {bf16},
    "cmp": NUMBERS,  # of the operands
    "where": NUMBERS | {bf16},
    "cast": None,  # REG_CASTS
}
REG_CASTS = {
    (f16, f32),
    (bf16, f32),
    (f32, f16),
    (f32, bf16),
    (f32, i32),
    (i32, f32),
    (f16, bool_),  # a bool output's bytes (DIST_PACK4_B32 / DIST_PACK_B16 store)
    (i8, f16),  # an 8-bit input (DIST_UNPACK_B8 / DIST_UNPACK4_B8 load)
    (f16, i8),  # an 8-bit output (DIST_PACK4_B32 / DIST_PACK_B16 store), after f32 -> f16 to odd
    (f16, u8),
    (u8, f16),
}
MAX_LIVE = 24  # registers a VF keeps live at once (32 exist; the rest for loads, masks, spills)


def is_regbase(loop: Op | None) -> bool:
    return loop is not None and loop.attrs.get("vector_path") == "regbase"


def vf_ops(region: list[Op]) -> list[Op]:
    """The ops of vector function ``vf`` in a loop body (one per flat tile)."""
    return [op for op in region if "vf" in op.attrs]


def blocker(func: Func, loop: Op, region: list[Op]) -> str | None:
    """Why this tile loop cannot be one VF yet (None: it can)."""
    if func.attributes.get("layout") == "rows":  # seed 002's row VF (row_vf.py), then the op checks
        why = row_vf.blocker(func, loop, region)
        if why is not None:
            return why
        region = row_vf.generic_ops(region)
    ops = vector_ops(region)
    for op in ops:
        if op.opname not in REG_OPS:
            return f"RegBase does not render '{op.opname}' yet"
        t = op.operands[0].type if op.opname == "cmp" else op.result.type
        if op.opname == "cast":
            pair = (op.operands[0].type.dtype, op.result.type.dtype)
            if pair not in REG_CASTS:
                return f"RegBase does not render a cast {pair[0]} -> {pair[1]} yet"
        elif t.dtype not in REG_OPS[op.opname]:
            return f"RegBase does not render '{op.opname}' on {t.dtype} yet"
    for op in region:  # 8-bit data (bool_, i8, u8 tiles) moves through UB
        gm = op.opname == "dma.load"  # its operand is the GM tensor: the loaded tile is checked
        for v in ([op.result] if op.result is not None else []) + ([] if gm else list(op.operands)):
            if isinstance(v.type, TensorType) and v.type.dtype.bytes == 1 and v.type.dtype != bool_:
                if not (_loaded_bytes(v, region) or _stored_bytes(v, region)):
                    return f"RegBase does not load or store {v.type.dtype} data yet"
            if isinstance(v.type, TensorType) and v.type.dtype == bool_:
                if not (_mask_only(v, region) or _stored_bytes(v, region)):
                    return "RegBase does not load or store bool_ data yet"
    live = max_live(region)
    if live > MAX_LIVE:
        return f"the tile keeps {live} values live, more than the {MAX_LIVE} registers one VF may use"
    return None


def _mask_only(v, region: list[Op]) -> bool:
    """A bool value a comparison makes and only vector ops read: a MaskReg."""
    if v.owner is None or v.owner.opname != "cmp":
        return False
    readers = [op for op in region if any(x is v for x in op.operands)]
    return all(op.opname in REG_OPS and not op.opname.startswith("dma.") for op in readers)


def _loaded_bytes(v, region: list[Op]) -> bool:
    """An i8/u8 input tile only casts to f16 read: the VF loads it unpacked into 16/32-bit lanes."""
    if v.owner is None or v.owner.opname != "dma.load":
        return False
    readers = [op for op in region if any(x is v for x in op.operands)]
    return bool(readers) and all(op.opname == "cast" and op.result.type.dtype == f16 for op in readers)


def _stored_bytes(v, region: list[Op]) -> bool:
    """An 8-bit output: a cast from f16 that only the copy out reads (a bool output's 0/1 bytes from
    materialize-bools' 1/0 Select, an i8/u8 output after legalize-casts' f32 -> f16 to odd); the VF
    stores the cast's 8-bit register packed (DIST_PACK4_B32 / DIST_PACK_B16)."""
    if v.owner is None or v.owner.opname != "cast" or v.owner.operands[0].type.dtype != f16:
        return False
    readers = [op for op in region if any(x is v for x in op.operands)]
    return bool(readers) and all(op.opname == "dma.store" for op in readers)


def max_live(region: list[Op]) -> int:
    """The most tile values live at once in the region (loads and results, to their last use)."""
    last: dict[int, int] = {}
    for i, op in enumerate(region):
        for v in op.operands:
            last[id(v)] = i
    live, most = set(), 0
    for i, op in enumerate(region):
        if op.result is not None and isinstance(op.result.type, TensorType):
            live.add(id(op.result))
        most = max(most, len(live))
        live = {v for v in live if last.get(v, -1) > i}
    return most


def internalize_broadcasts(func: Func, loop: Op) -> None:
    """hoist-invariants' ``vec.dup`` before the loop, read only inside it, moves to the loop's top."""
    at = func.body.index(loop)
    moved = []
    for op in func.body[:at]:
        if op.opname == "vec.dup" and isinstance(op.result.type, TensorType):
            moved.append(op)
    if moved:
        func.body = [op for op in func.body if not any(op is m for m in moved)]
        loop.region = moved + loop.region


def form(func: Func, loop: Op) -> None:
    internalize_broadcasts(func, loop)
    region = loop.region
    ops = vector_ops(region)
    ids = {id(op) for op in ops}
    dma_read = {id(v) for op in region if op.opname.startswith("dma.") for v in op.operands}
    for op in ops:
        op.attrs["vf"] = 0
        if id(op.result) not in dma_read:
            op.attrs["reg"] = True
    first = next(i for i, op in enumerate(region) if id(op) in ids)
    head = [op for op in region[:first]]
    rest = [op for op in region[first:] if id(op) not in ids]
    if any(op.opname == "dma.load" for op in rest):
        loads = [op for op in rest if op.opname == "dma.load"]
        head += loads
        rest = [op for op in rest if op.opname != "dma.load"]
    loop.region = head + ops + rest


@register
@dataclass(frozen=True)
class FormVectorFunctionsPass(FunctionPass):
    level: ClassVar[str] = "tile"
    name: ClassVar[str] = "form-vector-functions"

    def run_on(self, func: Func) -> None:
        loop = func.loop()
        if not is_regbase(loop) or not vector_ops(loop.region):
            return
        why = blocker(func, loop, loop.region)
        if why is not None:
            if "asked for" in loop.attrs.get("vector_why", ""):
                raise CompileError(f"@{func.name}: vector_path='regbase' was asked for, but {why}", func.loc)
            loop.attrs["vector_path"] = "membase"
            loop.attrs["vector_why"] = f"MemBase: {why}"
            return
        if func.attributes.get("layout") == "rows":
            row_vf.form(func, loop)
        else:
            form(func, loop)
