"""plan-buffers: assign every tile value a UB buffer, reusing buffers whose values are dead,
and pick the largest tile length that fits the target's UB.

Takes a double-buffered tile-level function; produces ``buf = "bN"`` on every op that defines a
tile, ``buffers = {bN = {bytes = B, slots = S}}`` on the function and ``tile = N`` on the loop.

1. Live range of a tile value: from its defining op to its last use; a stored value stays live
   to the end of the body (the copy-out runs asynchronously).
2. Interference graph: values whose ranges overlap. A vector op may write into a
   buffer one of its operands frees at that op (in place), except a width-changing cast. With
   ``group`` attributes (schedule-vector), a value read in a group holds its buffer to the end
   of the group: ops of one group run without a barrier between them, so none may overwrite
   what another reads.
3. Greedy colouring in definition order: a value takes the lowest buffer of its element width
   that no neighbour holds; DMA values need a double-buffered (slotted) buffer, vector-only
   values may also use a dead slotted one.
4. tile = usable UB / sum(bytes x slots), rounded down to a whole 256-byte repeat of the
   narrowest buffer. Too little UB is a CompileError that prints the ledger.
5. Broadcasts resident before the loop (hoist-invariants) get buffers ``rN`` of one 256-byte
   repeat each (``resident = {rN = {bytes = 256}}``), taken off the UB before the tile is sized.

    before:  %x_t = dma.load %x {slots = 2} : tensor<*, f32>
             %0 = vec.muls %x_t, %s : tensor<*, f32>
    after:   %x_t = dma.load %x {slots = 2, buf = "b0"} : tensor<*, f32>
             %0 = vec.muls %x_t, %s {buf = "b0"} : tensor<*, f32>    (in place)
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from typing import ClassVar


from dsl.errors import CompileError
from dsl.ir import Func, Module, TensorType

from .analysis.graph import Graph
from .analysis.access import stored_values
from .manager import Pass, PassError, register


def _in_place_ok(op, operand) -> bool:
    if op.opname in ("dma.load", "dma.store", "vec.dup"):
        return False
    if op.opname in ("vec.brcb", "vec.brc"):  # one element becomes a block (a row): row 0's block
        return False  # would overwrite the next rows' values before they are read
    if op.opname == "cast":
        return False
    return operand.type.dtype.bytes == op.result.type.dtype.bytes


def positions(body) -> list[int]:
    """Each op's place in the live-range order: a vector function's ops (``vf``, form-vector-
    functions) all at its first op, since it reads and writes UB element by element as one step."""
    first: dict[int, int] = {}
    out = []
    for i, op in enumerate(body):
        key = (op.attrs["vf"], op.attrs.get("pass", 0)) if "vf" in op.attrs else None  # a row VF's passes
        out.append(first.setdefault(key, i) if key is not None else i)
    return out


def live_ranges(body) -> dict[int, tuple[int, int]]:
    """Tile value -> (definition, last use) in ``positions``; a register value (``reg``) has none."""
    end = len(body)
    stored = stored_values(body)
    ranges: dict[int, tuple[int, int]] = {}
    at = positions(body)
    pass_at = {(op.attrs["vf"], op.attrs.get("pass", 0)): i for i, op in zip(at, body) if "vf" in op.attrs}
    for i, op in zip(at, body):
        if (
            "until" in op.attrs
        ):  # a row VF makes this value again up to pass `until`: it reads its sources there
            i = max(i, pass_at.get((op.attrs["vf"], op.attrs["until"]), i))
        for v in op.operands:
            if id(v) in ranges:
                ranges[id(v)] = (ranges[id(v)][0], max(ranges[id(v)][1], i))
        if op.result is not None and isinstance(op.result.type, TensorType) and not op.attrs.get("reg"):
            ranges[id(op.result)] = (i, end if id(op.result) in stored else i)
    return ranges


def vf_in_place(body, a: int, b_op) -> bool:
    """A VF's UB result may take the buffer of a UB value the same VF reads last when it is no
    wider: each element step stores at most the bytes that step loaded, never ahead of the loads."""
    if "vf" not in b_op.attrs:
        return False
    readers = [
        op
        for op in body
        if op.attrs.get("vf") == b_op.attrs["vf"]
        and op.attrs.get("pass", 0) == b_op.attrs.get("pass", 0)  # a row VF: the same pass over the row
        and any(id(v) == a for v in op.operands)
    ]
    width = {id(v): v.type.dtype.bytes for op in readers for v in op.operands if id(v) == a}
    return bool(readers) and b_op.result.type.dtype.bytes <= width[a]


def group_ends(body) -> dict[int, int]:
    """Op position -> the position of the last op of its ``group`` (schedule-vector): a value
    read in a group keeps its buffer to the end of the group, where the next barrier is."""
    last: dict[int, int] = {}
    for i, op in enumerate(body):
        if "group" in op.attrs:
            last[op.attrs["group"]] = i
    return {i: last[op.attrs["group"]] for i, op in enumerate(body) if "group" in op.attrs}


def interference(body) -> Graph:
    ranges = live_ranges(body)
    ends = group_ends(body)
    defs = {id(op.result): op for op in body if op.result is not None and id(op.result) in ranges}
    g = Graph()
    g.add_nodes_from(ranges)
    items = sorted(ranges.items(), key=lambda kv: kv[1][0])
    for n, (a, (sa, ea)) in enumerate(items):
        held = ends.get(ea, ea)  # the buffer is free only after the group of the last read
        for b, (sb, eb) in items[n + 1 :]:
            if sb > held:
                break
            if sb == ea:  # b is defined by the op that last uses a: in place when allowed
                op = defs[b]
                if any(id(v) == a for v in op.operands) and all(
                    _in_place_ok(op, v) for v in op.operands if id(v) == a
                ):
                    continue
                if vf_in_place(body, a, op):
                    continue
            g.add_edge(a, b)
    return g


def wrap_around(body) -> tuple[set[int], set[int]]:
    """With groups, the first group of a tile runs right after the last group of the previous
    tile with no barrier between them: a single-slot buffer must not hold both a value the first
    group writes and one the last group reads or writes (a slotted buffer alternates slots
    between tiles, so there the two never meet). Returns (first-group writes, last-group accesses)."""
    grouped = [op for op in body if "group" in op.attrs]
    if not grouped:
        return set(), set()
    first = min(op.attrs["group"] for op in grouped)
    last = max(op.attrs["group"] for op in grouped)
    if first == last:
        return set(), set()
    early, late = set(), set()
    for op in grouped:
        if op.attrs["group"] == last:
            late |= {id(v) for v in op.operands if isinstance(v.type, TensorType)}
            if op.result is not None:
                late.add(id(op.result))
        if op.attrs["group"] == first and op.result is not None:
            early.add(id(op.result))
    return early, late


@dataclass
class Buffer:
    name: str
    bytes: int
    slots: int
    values: list  # Values held, in order


def assign(body, dry_run: bool = False) -> list[Buffer]:
    """Buffers for the body's tile values (``buf`` set on each defining op unless ``dry_run``)."""
    g = interference(body)
    early, late = wrap_around(body)
    buffers: list[Buffer] = []
    where: dict[int, Buffer] = {}
    for op in body:
        v = op.result
        if v is None or id(v) not in g:
            continue
        width, slots = v.type.dtype.bytes, op.attrs.get("slots", 1)
        taken = {where[n].name for n in g.neighbors(id(v)) if n in where}
        apart = (late if id(v) in early else set()) | (early if id(v) in late else set())
        taken |= {b.name for b in buffers if b.slots == 1 and any(id(x) in apart - {id(v)} for x in b.values)}
        fits = [b for b in buffers if b.bytes == width and b.slots >= slots and b.name not in taken]
        buf = min(fits, key=lambda b: (b.slots != slots, int(b.name[1:]))) if fits else None
        if buf is None:
            buf = Buffer(f"b{len(buffers)}", width, slots, [])
            buffers.append(buf)
        buf.values.append(v)
        where[id(v)] = buf
        if not dry_run:
            op.attrs["buf"] = buf.name
    return buffers


def ledger_lines(func: Func, buffers: list[Buffer], tile: int, usable: int) -> list[str]:
    rows = [f"UB ledger for @{func.name} (tile = {tile} elements):"]
    total = 0
    for b in buffers:
        size = b.bytes * b.slots * tile
        total += size
        names = ", ".join(v.name for v in b.values)
        rows.append(f"  {b.name}: {b.bytes} B/elem x {b.slots} slot(s) x {tile} = {size} B   holds {names}")
    rows.append(f"  total {total} B of {usable} B usable ({100.0 * total / usable:.1f}%)")
    return rows


REPEAT_BYTES = 256  # a resident broadcast holds one vector repeat


def plan_resident(func: Func) -> int:
    """Buffers ``r0, r1, ...`` of the broadcasts hoist-invariants moved before the loop (one
    256-byte repeat each, for the whole kernel); returns the UB they take."""
    resident = {}
    for op in func.body:
        if op.opname == "vec.dup":
            name = f"r{len(resident)}"
            op.attrs["buf"] = name
            resident[name] = {"bytes": REPEAT_BYTES}
    if resident:
        func.attributes["resident"] = resident
    return REPEAT_BYTES * len(resident)


def resident_bytes(func: Func) -> int:
    """The UB the broadcasts resident before the loop take (what ``plan_resident`` will assign)."""
    return REPEAT_BYTES * sum(1 for op in func.body if op.opname == "vec.dup")


def slice_align(func: Func) -> int:
    """Elements a flat kernel's tile is a multiple of so every tile starts where its core slice
    does, 512-byte aligned in GM (split-cores); 1 for broadcast kernels."""
    from .split_cores import SLICE_BYTES, narrowest_gm_bytes

    loop = func.loop()
    if loop is None or func.attributes.get("broadcast"):
        return 1
    return SLICE_BYTES // narrowest_gm_bytes(loop)


def tile_length(buffers: list[Buffer], usable: int, gm_align: int = 1) -> tuple[int, int]:
    """(tile, align): the largest tile of ``buffers`` that fits ``usable`` bytes, rounded down to a
    whole 256-byte repeat of the narrowest buffer and to ``gm_align`` elements (``align``, the
    least common multiple) where that fits, else to the repeat alone; below ``align`` it does not
    fit."""
    per_elem = sum(b.bytes * b.slots for b in buffers)
    repeat = 256 // min((b.bytes for b in buffers), default=4)
    for align in (math.lcm(repeat, gm_align), repeat):
        tile = (usable // per_elem) // align * align if per_elem else align
        if tile >= align:
            return tile, align
    return tile, align


def plan(func: Func, usable: int, stagger: bool = False) -> None:
    loop = func.loop()
    if loop is None:
        return
    usable -= plan_resident(func)
    buffers = assign(loop.region)
    for op in loop.region:  # the groups are honoured; insert-sync finds the barriers itself
        op.attrs.pop("group", None)
    per_elem = sum(b.bytes * b.slots for b in buffers)
    tile, align = tile_length(buffers, usable, slice_align(func))
    if tile < align:
        lines = ledger_lines(func, buffers, align, usable)
        raise CompileError(
            f"@{func.name} needs {per_elem * align} B of UB for one {align}-element tile but the target "
            f"offers {usable} B\n" + "\n".join(lines),
            func.loc,
        )
    loop.attrs["tile"] = tile
    # broadcast kernels pad their TILE-sized buffers the same way (not the RESIDENT modes' rows)
    phases = bank_phases(loop.region, buffers) if stagger else {}
    if phases:  # the kernel pads before a buffer that starts in the wrong half: at most 256 B each
        staggered, _ = tile_length(buffers, usable - BANK_HALF * len(phases), slice_align(func))
        if staggered >= align:
            loop.attrs["tile"] = staggered
        else:
            phases = {}
    func.attributes["buffers"] = {
        b.name: {"bytes": b.bytes, "slots": b.slots, **({"bank": phases[b.name]} if b.name in phases else {})}
        for b in buffers
    }


BANK_HALF = 256  # A2 UB: 16 bank groups of 32-byte rows; one repeat reads 8 rows, half of them


def bank_phases(region, buffers: list[Buffer]) -> dict[str, int]:
    """The start address modulo 512 (0 or 256) of each buffer that is one of two sources of a
    vector instruction, so that the two read disjoint bank groups (asc-devkit's Add tuning case 6:
    a 256-byte shift of one source halves the beats per repeat). The sources of each instruction
    are the edges of a graph; a 2-colouring cutting the most edges (greedy in plan order, then
    single flips while they help) gives the phases, the first buffer at 0. A resident repeat is
    left out: read with repeat stride 0 it meets both halves of a tile source anyway."""
    owner = {id(op.result): op.attrs["buf"] for op in region if op.result is not None and "buf" in op.attrs}
    order = [b.name for b in buffers]
    edges: dict[tuple[str, str], int] = {}
    for op in region:
        if op.opname.startswith("dma.") or op.result is None:
            continue
        srcs = sorted({owner[id(v)] for v in op.operands if id(v) in owner}, key=order.index)
        for i, a in enumerate(srcs):
            for b in srcs[i + 1 :]:
                edges[(a, b)] = edges.get((a, b), 0) + 1
    return two_colour(order, edges)


def two_colour(order: list[str], edges: dict[tuple[str, str], int]) -> dict[str, int]:
    """Bank phases (0 or ``BANK_HALF``) for the buffers of ``edges`` (a pair of buffers -> how
    many instructions read or write both): a 2-colouring cutting the most weight, all at 0, then
    single flips in ``order`` (never the first) while they help."""
    linked = [n for n in order if any(n in e for e in edges)]
    phase = {n: 0 for n in linked}

    def gain(n: str) -> int:  # edges cut minus edges joined by flipping n
        return sum((w if phase[a] == phase[b] else -w) for (a, b), w in edges.items() if n in (a, b))

    improved = True
    while improved:
        improved = False
        for n in linked[1:]:
            if gain(n) > 0:
                phase[n] ^= BANK_HALF
                improved = True
    return phase


@register
@dataclass(frozen=True)
class PlanBuffersPass(Pass):
    name: ClassVar[str] = "plan-buffers"
    ub: int = 0  # the target's usable UB in bytes; the pipeline passes it (passes never import a backend)
    stagger: bool = False  # A2's UB bank groups: start the sources of one instruction 256 B apart

    def run(self, module: Module) -> None:
        if self.ub <= 0:
            raise PassError("plan-buffers needs the usable UB size: plan-buffers{ub=188160}")
        for func in module.funcs:
            plan(func, self.ub, self.stagger)
