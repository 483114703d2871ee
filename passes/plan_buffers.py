"""plan-buffers: assign every tile value a UB buffer, reusing buffers whose values are dead,
and pick the largest tile length that fits the target's UB.

Takes a double-buffered tile-level function; produces ``buf = "bN"`` on every op that defines a
tile, ``buffers = {bN = {bytes = B, slots = S}}`` on the function and ``tile = N`` on the loop.

1. Live range of a tile value: from its defining op to its last use; a stored value stays live
   to the end of the body (the copy-out runs asynchronously).
2. Interference graph (networkx): values whose ranges overlap. A vector op may write into a
   buffer one of its operands frees at that op (in place), except a width-changing cast.
3. Greedy colouring in definition order: a value takes the lowest buffer of its element width
   that no neighbour holds; DMA values need a double-buffered (slotted) buffer, vector-only
   values may also use a dead slotted one.
4. tile = usable UB / sum(bytes x slots), rounded down to a whole 256-byte repeat of the
   narrowest buffer. Too little UB is a CompileError that prints the ledger.

    before:  %x_t = dma.load %x {slots = 2} : tensor<*, f32>
             %0 = vec.muls %x_t, %s : tensor<*, f32>
    after:   %x_t = dma.load %x {slots = 2, buf = "b0"} : tensor<*, f32>
             %0 = vec.muls %x_t, %s {buf = "b0"} : tensor<*, f32>    (in place)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import networkx as nx

from dsl.errors import CompileError
from dsl.ir import Func, Module, TensorType

from .analysis.access import stored_values
from .manager import Pass, PassError, register


def _in_place_ok(op, operand) -> bool:
    if op.opname in ("dma.load", "dma.store", "vec.dup"):
        return False
    if op.opname == "cast":
        return False
    return operand.type.dtype.bytes == op.result.type.dtype.bytes


def live_ranges(body) -> dict[int, tuple[int, int]]:
    end = len(body)
    stored = stored_values(body)
    ranges: dict[int, tuple[int, int]] = {}
    for i, op in enumerate(body):
        for v in op.operands:
            if id(v) in ranges:
                ranges[id(v)] = (ranges[id(v)][0], max(ranges[id(v)][1], i))
        if op.result is not None and isinstance(op.result.type, TensorType):
            ranges[id(op.result)] = (i, end if id(op.result) in stored else i)
    return ranges


def interference(body) -> nx.Graph:
    ranges = live_ranges(body)
    defs = {id(op.result): op for op in body if op.result is not None and id(op.result) in ranges}
    g = nx.Graph()
    g.add_nodes_from(ranges)
    items = sorted(ranges.items(), key=lambda kv: kv[1][0])
    for n, (a, (sa, ea)) in enumerate(items):
        for b, (sb, eb) in items[n + 1 :]:
            if sb > ea:
                break
            if sb == ea:  # b is defined by the op that last uses a: in place when allowed
                op = defs[b]
                if any(id(v) == a for v in op.operands) and all(
                    _in_place_ok(op, v) for v in op.operands if id(v) == a
                ):
                    continue
            g.add_edge(a, b)
    return g


@dataclass
class Buffer:
    name: str
    bytes: int
    slots: int
    values: list  # Values held, in order


def assign(body) -> list[Buffer]:
    g = interference(body)
    buffers: list[Buffer] = []
    where: dict[int, Buffer] = {}
    for op in body:
        v = op.result
        if v is None or id(v) not in g:
            continue
        width, slots = v.type.dtype.bytes, op.attrs.get("slots", 1)
        taken = {where[n].name for n in g.neighbors(id(v)) if n in where}
        fits = [b for b in buffers if b.bytes == width and b.slots >= slots and b.name not in taken]
        buf = min(fits, key=lambda b: (b.slots != slots, int(b.name[1:]))) if fits else None
        if buf is None:
            buf = Buffer(f"b{len(buffers)}", width, slots, [])
            buffers.append(buf)
        buf.values.append(v)
        where[id(v)] = buf
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


def plan(func: Func, usable: int) -> None:
    loop = func.loop()
    if loop is None:
        return
    buffers = assign(loop.region)
    per_elem = sum(b.bytes * b.slots for b in buffers)
    narrowest = min((b.bytes for b in buffers), default=4)
    align = 256 // narrowest
    tile = (usable // per_elem) // align * align if per_elem else align
    if tile < align:
        lines = ledger_lines(func, buffers, align, usable)
        raise CompileError(
            f"@{func.name} needs {per_elem * align} B of UB for one {align}-element tile but the target "
            f"offers {usable} B\n" + "\n".join(lines),
            func.loc,
        )
    loop.attrs["tile"] = tile
    func.attributes["buffers"] = {b.name: {"bytes": b.bytes, "slots": b.slots} for b in buffers}


@register
@dataclass(frozen=True)
class PlanBuffersPass(Pass):
    name: ClassVar[str] = "plan-buffers"
    ub: int = 0  # the target's usable UB in bytes; the pipeline passes it (passes never import a backend)

    def run(self, module: Module) -> None:
        if self.ub <= 0:
            raise PassError("plan-buffers needs the usable UB size: plan-buffers{ub=188160}")
        for func in module.funcs:
            plan(func, self.ub)
