"""plan-rows: the UB plan of a row function, as coefficients host tiling evaluates at run time.

Takes a double-buffered row function (after ``row-forms``); produces ``buf = "bN"`` on every op
that defines a tile value and, on the function,

    buffers = {bN = {bytes = B, slots = S, kind = "row" | "perrow" | "col"}}
    rows = {align = A, perrow = P, count_align = K, scratch = true|false[, wide = W]}

and ``wide = k`` on every cast that widens a resident column inside the step (row-forms' per-step
widening, MemBase only): k is its column's place among the narrow column inputs in signature
order. W = 4 x (the last place + 1) is the bytes per column of f32 copies kept instead for the
whole core, at place k (host tiling's choice: when that costs the step no rows, the first step
widens into them and the others skip the cast; else every step casts into a dead row buffer as
planned here).

The run-time columns C fix the pitch of a row in UB, ``Cp = roundUp(C, A)``: A elements of the
narrowest row value are 32 bytes, so every row of every row buffer starts 32-byte aligned and one
vector call covers ``rows * Cp`` elements of any of them (casts included). A per-row value takes
P elements (32 bytes of the narrowest per-row value) per row; its Brcb blocks (``vec.brcb``) a
32-byte block per element (``bytes = 32``). Host tiling then computes

    slot    = roundUp(rowStep * Cp, K)     elements of one slot of a row buffer
    perSlot = roundUp(rowStep * P, K)      ... of a per-row buffer
    UB      = Cp * sum_col(B)  +  scratch(C)  +  slot * sum_row(B * S)  +  perSlot * sum_perrow(B * S)

and takes the largest ``rowStep`` that fits (the fixed area first, then rowStep x the per-row
area; seed 002). K is 1, or a whole 256-byte repeat of the narrowest buffer when the kernel
compares (Compare/Select count whole repeats). Buffers are shared as in plan-buffers (liveness,
interference, in place), within one kind: a row value never lands in a per-row buffer; a value
may take a dead buffer wider than itself (an i8 output in a dead bf16 input slot), and a column
widened in the step (row-forms) a row buffer's slot (it holds at least pitch elements).

Columns are computed once before the step loop; each keeps its own buffer (their loads all come
first, so no copy-in waits for a column computation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.errors import CompileError
from dsl.ir import Func, Module, TensorType

from . import row_vf
from .manager import Pass, register
from .analysis.access import stored_values
from .plan_buffers import Buffer, interference, two_colour
from .rows import COL, PERROW, ROW, is_row_func, layout_of

BLOCK = 32
REPEAT = 256


def _is_mask(op) -> bool:
    return op.opname == "cmp"


def assign_kinds(body, kind_of, spread=lambda v: False, outputs_apart: bool = False) -> list[Buffer]:
    """Like plan-buffers' colouring, with buffers of one kind (row / per-row) only. A result
    never takes the buffer of an operand ``spread`` says is read whole for every row (a column
    widened in the step): writing row 0 in place would overwrite what the next rows read.
    ``outputs_apart``: a stored value never shares a buffer with a loaded one (nor the reverse),
    so a slot's next load waits for the vector reads of it, not for a copy-out."""
    g = interference(body)
    loaded = {id(op.result) for op in body if op.opname == "dma.load"}
    stored = stored_values(body)
    dma_class: dict[str, str] = {}  # buffer -> "in" | "out": the DMA class it holds (outputs_apart)
    buffers: list[Buffer] = []
    kinds: dict[str, str] = {}
    where: dict[int, Buffer] = {}
    mask_bufs: set[str] = set()  # buffers holding a bit mask: their width is the mask's own
    for op in body:
        v = op.result
        if v is None or id(v) not in g:
            continue
        width, slots, kind = v.type.dtype.bytes, op.attrs.get("slots", 1), kind_of(v)
        if op.opname == "vec.brcb":  # Brcb: each per-row element becomes a 32-byte block
            width = BLOCK
        taken = {where[n].name for n in g.neighbors(id(v)) if n in where}
        taken |= {where[id(a)].name for a in op.operands if id(a) in where and spread(a)}
        mask = _is_mask(op)
        cls = "in" if id(v) in loaded else "out" if id(v) in stored else None
        if outputs_apart and cls is not None:
            taken |= {name for name, c in dma_class.items() if c != cls}
        fits = [
            b
            for b in buffers
            if (b.bytes == width or (b.bytes > width and not mask and b.name not in mask_bufs))
            and b.slots >= slots
            and kinds[b.name] == kind
            and b.name not in taken
        ]
        # Same width first; else the narrowest wider buffer (a dead f16 input slot holds an i8
        # output: fewer bytes per row than a buffer of its own).
        buf = (
            min(fits, key=lambda b: (b.bytes != width, b.bytes, b.slots != slots, int(b.name[1:])))
            if fits
            else None
        )
        if buf is None:
            buf = Buffer(f"b{len(buffers)}", width, slots, [])
            buffers.append(buf)
            kinds[buf.name] = kind
        buf.values.append(v)
        where[id(v)] = buf
        if outputs_apart and cls is not None:
            dma_class[buf.name] = cls
        if mask:
            mask_bufs.add(buf.name)
        op.attrs["buf"] = buf.name
    for b in buffers:
        b.kind = kinds[b.name]
    return buffers


def bank_phases(func: Func, buffers: list[Buffer]) -> dict[str, int]:
    """The start address modulo 512 (0 or 256) of the row, column and Brcb buffers the vector
    instructions of a step touch, so that two operands of one instruction (two sources, or the
    destination and a source when not in place) lie in disjoint A2 UB bank groups (asc-devkit
    避免bank冲突: a repeat reads 8 32-byte rows of each; 256 B apart they share no group). The
    other per-row buffers (32 bytes a row) are left out."""
    order = [b.name for b in buffers]
    banked = {b.name for b in buffers if b.kind in (ROW, COL) or b.bytes == BLOCK}
    owner = {
        id(op.result): op.attrs["buf"] for op in func.walk() if op.result is not None and "buf" in op.attrs
    }
    edges: dict[tuple[str, str], int] = {}
    for op in func.loop().region:
        if op.opname.startswith(("dma.", "sync.")) or id(op.result) not in owner:
            continue
        touched = {owner[id(v)] for v in (op.result, *op.operands) if id(v) in owner}
        names = sorted((n for n in touched if n in banked), key=order.index)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                edges[(a, b)] = edges.get((a, b), 0) + 1
    return two_colour(order, edges)


MAX_BANK_PAD = 512 - BLOCK  # bytes before a buffer at a given phase (the buffers are 32-byte aligned)


def bank_pads(buffers: dict, rows: dict) -> int:
    """The most pads a kernel with bank phases puts before buffers to start them at a phase: one
    per buffer (the kernel takes one phase per buffer for all its variants, which may phase a
    buffer this variant's plan left free), and one for the columns' f32 copies."""
    return (len(buffers) + ("wide" in rows)) if rows.get("banks") else 0


def plan(func: Func, stagger: bool = False) -> None:
    loop = func.loop()
    if loop is None or not is_row_func(func):
        return
    layout = layout_of(func)

    def kind_of(v) -> str:
        k = layout.kind(v.type)
        if k == COL:  # a column widened per step (row-forms): pitch elements of a row buffer's slot
            return ROW
        if k not in (ROW, PERROW):
            raise CompileError(
                f"%{v.name} ({v.type}) is computed per step but is neither a row nor a per-row value",
                v.owner.loc if v.owner is not None else func.loc,
            )
        return k

    def spread(v) -> bool:
        return isinstance(v.type, TensorType) and layout.kind(v.type) == COL

    regbase = any("vf" in op.attrs for op in loop.region)
    # A RegBase step is DMA-bound: an output computed in its input's slot would hold the load two
    # steps ahead until its copy-out ends (MTE3 -> MTE2); in a buffer of its own, the next load
    # waits only for the VF's reads and the loads run back to back. Not measured for a matmul
    # epilogue (its input comes by Fixpipe and UB bounds the cube tile): in place there.
    apart = regbase and "cube" not in func.attributes
    buffers = assign_kinds(loop.region, kind_of, spread, outputs_apart=apart)
    names = len(buffers)
    # Resident columns: one buffer each, defined before the loop.
    for op in func.body:
        if op is loop or op.result is None or not isinstance(op.result.type, TensorType):
            continue
        buf = Buffer(f"b{names}", op.result.type.dtype.bytes, 1, [op.result])
        buf.kind = COL
        names += 1
        buffers.append(buf)
        op.attrs["buf"] = buf.name
    value_op = {id(op.result): op for op in loop.region if op.result is not None}
    # The pitch and per-row slot follow the narrowest *value* (a buffer may hold narrower ones).
    row_widths = [
        v.type.dtype.bytes
        for b in buffers
        if b.kind in (ROW, COL)
        for v in b.values
        if id(v) not in value_op or not _is_mask(value_op[id(v)])
    ]
    perrow_widths = [v.type.dtype.bytes for b in buffers if b.kind == PERROW for v in b.values]
    align = BLOCK // min(row_widths, default=4)
    if regbase:  # a row VF's element steps read whole registers: a pitch of whole steps (seed 002)
        align = max(align, row_vf.vf_lanes(loop.region))
    per_row = BLOCK // min(perrow_widths, default=4)
    # Per-step widenings: each gets its column's place among the narrow column inputs, in signature
    # order (the same in every specialization, so the kernel's shared code agrees on it).
    narrow = [
        p.value
        for p in func.params
        if isinstance(p.value.type, TensorType) and spread(p.value) and p.value.type.dtype.bytes < 4
    ]
    wide = [] if regbase else [op for op in loop.region if op.opname == "cast" and spread(op.result)]
    for op in wide:
        src = op.operands[0].owner  # the column's load
        op.attrs["wide"] = next(k for k, v in enumerate(narrow) if v is src.operands[0])
    compares = any(op.opname in ("cmp", "where") for op in func.walk())  # resident columns too
    narrowest = min([v.type.dtype.bytes for b in buffers for v in b.values] or [4])
    # A2: the operands of one instruction in disjoint UB bank groups (the full-load step; its
    # column-chunked twin keeps these buffers unphased).
    banked = stagger and not regbase and func.attributes.get("path") != "chunked"
    phases = bank_phases(func, buffers) if banked else {}
    func.attributes["buffers"] = {
        b.name: {
            "bytes": b.bytes,
            "slots": b.slots,
            "kind": b.kind,
            **({"bank": phases[b.name]} if b.name in phases else {}),
        }
        for b in buffers
    }
    func.attributes["rows"] = {
        "align": align,
        "perrow": per_row,
        "count_align": REPEAT // narrowest if compares else 1,
        "scratch": not regbase and any(op.opname == "reduce" for op in loop.region),  # MemBase ReduceSum's
        **({"banks": True} if banked else {}),  # the kernel starts buffers at bank phases (A2)
    }
    if wide:  # bytes per column of the f32 copies, places up to the last one used
        func.attributes["rows"]["wide"] = 4 * (max(op.attrs["wide"] for op in wide) + 1)
        if wide[0].attrs["buf"] in phases:  # the copies' buffer starts where the step's widening would
            func.attributes["rows"]["wide_bank"] = phases[wide[0].attrs["buf"]]


@register
@dataclass(frozen=True)
class PlanRowsPass(Pass):
    name: ClassVar[str] = "plan-rows"
    stagger: bool = False  # A2's UB bank groups: the operands of one instruction 256 B apart

    def run(self, module: Module) -> None:
        for func in module.funcs:
            plan(func, self.stagger)
