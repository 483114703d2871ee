"""insert-sync: a SetFlag/WaitFlag pair for every cross-pipe dependency on a UB buffer.

Takes a tile-level function after plan-buffers; produces ``sync.set``/``sync.wait`` (and
``sync.barrier {pipe = "V"}`` between dependent vector instructions, so kernels also run with
the compiler's auto-sync off).

1. Build the access graph (networkx DiGraph): one node per (op, buffer, read/write) in the
   loop body, an edge from each access to every later conflicting access of the same buffer
   (write-read, read-write, write-write), in the same iteration ("fwd") and wrapping around to
   the next iteration that uses the same slot ("rev").
2. Forward edges between pipes P -> Q become ``set P_Q; wait P_Q`` right before the consumer;
   one pair covers every edge from P reaching that op.
3. Loop-carried edges P -> Q become a reverse event: ``wait`` before the first Q access of any
   buffer involved, ``set`` after the last P access; one ``set`` per slot is pre-issued before
   the loop and one ``wait`` per slot drains it after.
4. Event ids rotate with the ping-pong slot (``id = "slot"``: tile index & 1); a reverse event
   that shares its type with a forward one uses ids 2 and 3.

    before:  %x_t = dma.load %x {buf = "b0", slots = 2}
             %0 = vec.muls %x_t, %s {buf = "b0"}
             dma.store %0 {output = "y"}
    after:   sync.set {event = "MTE3_MTE2", id = 0}  ... (pre-issue, slots 0 and 1)
             loop.tiles do {
               sync.wait {event = "MTE3_MTE2", id = "slot"}
               %x_t = dma.load ...
               sync.set {event = "MTE2_V", id = "slot"}
               sync.wait {event = "MTE2_V", id = "slot"}
               %0 = vec.muls ...
               sync.set {event = "V_MTE3", id = "slot"}
               sync.wait {event = "V_MTE3", id = "slot"}
               dma.store %0 {output = "y"}
               sync.set {event = "MTE3_MTE2", id = "slot"}
             }
             sync.wait {event = "MTE3_MTE2", id = 0}  ... (drain)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import networkx as nx

from dsl.ir import Func, Op, TensorType

from .analysis.access import pipe_of
from .manager import FunctionPass, register


@dataclass(frozen=True)
class Access:
    index: int  # op position in the loop body; negative: the previous use of the slot
    pipe: str
    buf: str
    write: bool


def buffer_accesses(body: list[Op]) -> list[Access]:
    """Every UB access of the loop body in program order (an op's reads before its write)."""
    bufs = {id(op.result): op.attrs["buf"] for op in body if op.result is not None and "buf" in op.attrs}
    out = []
    for i, op in enumerate(body):
        if op.opname.startswith("sync."):
            continue
        pipe = pipe_of(op)
        for v in dict.fromkeys(v for v in op.operands if isinstance(v.type, TensorType) and id(v) in bufs):
            out.append(Access(i, pipe, bufs[id(v)], False))
        if op.result is not None and id(op.result) in bufs:
            out.append(Access(i, pipe, bufs[id(op.result)], True))
    return out


def dependency_graph(body: list[Op]) -> nx.DiGraph:
    """Direct dependencies between UB accesses: an edge from the last write (or, for a write,
    the reads since it) to each later conflicting access, within one use of a buffer slot ("fwd") and from the
    end of one use of the slot to the next ("carried"). Earlier accesses are ordered before
    these by transitivity, so they need no edge of their own."""
    g = nx.DiGraph()
    acc = buffer_accesses(body)
    n = len(body)

    def sweep(state: dict, kind: str) -> dict:
        for b in acc:
            last, reads = state.get(b.buf, (None, []))
            # A write follows the reads since the last write (they follow that write already);
            # a read follows the last write.
            deps = list(reads) if b.write and reads else ([last] if last is not None else [])
            for a in deps:
                if a.index == b.index or (kind == "carried") != (a.index < 0):
                    continue
                g.add_edge(a, b, kind=kind)
            state[b.buf] = (b, []) if b.write else (last, reads + [b])
        return state

    end = sweep({}, "fwd")

    def previous(x: Access) -> Access:
        return Access(x.index - n, x.pipe, x.buf, x.write)

    sweep(
        {k: (previous(w) if w else None, [previous(r) for r in rs]) for k, (w, rs) in end.items()}, "carried"
    )
    return g


def _sync(kind: str, event: str, ident, loc, bufs) -> Op:
    return Op(f"sync.{kind}", [], None, None, {"event": event, "id": ident, "bufs": sorted(bufs)}, loc)


def insert(func: Func) -> None:
    loop = func.loop()
    if loop is None or "buffers" not in func.attributes:
        return
    body = [op for op in loop.region if not op.opname.startswith("sync.")]
    slotted = {name for name, b in func.attributes["buffers"].items() if b["slots"] > 1}
    g = dependency_graph(body)
    edges = sorted(g.edges(data=True), key=lambda e: (e[1].index, e[0].index, e[0].pipe))

    barriers: list[int] = []
    pairs: dict[tuple[str, str], list[int]] = {}  # (P, Q) -> op positions guarded by a set+wait pair
    guarded: dict[tuple[int, str], set[str]] = {}  # (position, event) -> buffers it protects
    for a, b, data in edges:  # same-iteration dependencies
        if data["kind"] != "fwd":
            continue
        j = b.index
        if a.pipe == b.pipe:
            if a.pipe == "V" and not any(a.index < k <= j for k in barriers):
                barriers.append(j)
            continue
        event = f"{a.pipe}_{b.pipe}"
        covering = [k for k in pairs.get((a.pipe, b.pipe), []) if a.index < k <= j]
        if not covering:
            pairs.setdefault((a.pipe, b.pipe), []).append(j)
            covering = [j]
        guarded.setdefault((covering[-1], event), set()).add(b.buf)

    reverse: dict[str, list] = {}  # event -> [last producer index, first consumer index, buffers]
    for a, b, data in edges:  # dependencies on the previous use of the slot
        if data["kind"] != "carried":
            continue
        j = b.index
        if a.pipe == b.pipe:
            if a.pipe == "V" and not any(k <= j for k in barriers):
                barriers.append(j)
            continue
        if any(k <= j for k in pairs.get((a.pipe, b.pipe), [])):
            continue  # this iteration's forward pair already follows the producer's earlier work
        if b.buf not in slotted:
            raise AssertionError(f"single-slot buffer {b.buf} is shared by pipes {a.pipe} and {b.pipe}")
        entry = reverse.setdefault(f"{a.pipe}_{b.pipe}", [-1, len(body), set()])
        entry[0] = max(entry[0], a.index + len(body))
        entry[1] = min(entry[1], j)
        entry[2].add(b.buf)

    before: dict[int, list[Op]] = {}
    after: dict[int, list[Op]] = {}
    for j in sorted(set(barriers)):
        before.setdefault(j, []).append(Op("sync.barrier", [], None, None, {"pipe": "V"}, body[j].loc))
    for (j, event), bufs in sorted(guarded.items()):
        for kind in ("set", "wait"):
            before.setdefault(j, []).append(_sync(kind, event, "slot", body[j].loc, bufs))
    pre, drain = [], []
    slots = loop.attrs.get("slots", 2)
    for event in sorted(reverse):
        last, first, bufs = reverse[event]
        shared = tuple(event.split("_")) in pairs
        ident, base = ("slot+2", 2) if shared else ("slot", 0)
        before.setdefault(first, []).insert(0, _sync("wait", event, ident, body[first].loc, bufs))
        after.setdefault(last, []).append(_sync("set", event, ident, body[last].loc, bufs))
        for k in range(slots):
            pre.append(_sync("set", event, base + k, loop.loc, bufs))
            drain.append(_sync("wait", event, base + k, loop.loc, bufs))

    region: list[Op] = []
    for i, op in enumerate(body):
        region.extend(before.get(i, []))
        region.append(op)
        region.extend(after.get(i, []))
    loop.region = region
    at = func.body.index(loop)
    func.body = func.body[:at] + pre + [loop] + drain + func.body[at + 1 :]


@register
@dataclass(frozen=True)
class InsertSyncPass(FunctionPass):
    level: ClassVar[str] = "tile"
    name: ClassVar[str] = "insert-sync"

    def run_on(self, func) -> None:
        insert(func)
