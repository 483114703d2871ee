"""schedule-vector: order a tile's vector ops so that independent ones share one PIPE_V barrier.

A ``PipeBarrier<PIPE_V>`` is needed between two vector instructions when the second reads or
overwrites what the first wrote, or overwrites what it read (insert-sync places them). Ops that
do not depend on each other can run between the same two barriers, so the fewest barriers a tile
can have is its dependency depth minus one. Two things stand in the way: program order (the
frontend's order interleaves independent chains) and buffer reuse (plan-buffers lets a value
take the buffer of one that died just before: a write-after-read dependency the program did
not have).

Takes a double-buffered tile-level function (before plan-buffers); produces the same ops with
the vector ops reordered into *groups*, ``group = k`` on each: no op depends on another op of
its group, and plan-buffers frees a buffer only at the end of the group that last reads it, so
a barrier is needed only between groups. Loads stay first, each store right after its
producer.

Which grouping: more parallel groups keep more values alive at once, so they may need more
buffers, and a larger UB footprint per element means a smaller tile (more copies, each with a
fixed cost). Candidates: the program order (a new group whenever an op depends on the current
one), every op as early as its operands allow (ASAP levels), and every op as late as its users
allow (ALAP levels), plus the program order as it is (no groups: plan-buffers reuses freely and
insert-sync puts barriers where that reuse needs them); each is priced by plan-buffers' own
assignment and tile length (``ub`` is the usable UB, as for plan-buffers) and insert-sync's own
barrier placement. The rule: a schedule never shrinks the tile, so only candidates whose tile is
at least the ungrouped program order's compete (one that needs more bytes per element competes
only when the 256-byte rounding leaves its tile as large); of those, the fewest barriers win,
then the larger tile, then the smaller footprint, then the ungrouped program order.

    before:  %a = vec.muls %x_t, %s ; %b = mul %a, %x_t ; %c = vec.muls %y_t, %s
             (barriers: before %b, before %c if %c reuses %a's buffer)
    after:   %a = vec.muls %x_t, %s {group = 0} ; %c = vec.muls %y_t, %s {group = 0}
             %b = mul %a, %x_t {group = 1}                           (one barrier)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.ir import Func, Op, TensorType

from .analysis.access import pipe_of
from .manager import FunctionPass, PassError, register


def _deps(ops: list[Op]) -> dict[int, set[int]]:
    """RAW dependencies among vector ops: op index -> indices of the ops it reads from."""
    where = {id(op.result): i for i, op in enumerate(ops) if op.result is not None}
    return {i: {where[id(v)] for v in op.operands if id(v) in where} for i, op in enumerate(ops)}


def program_groups(ops: list[Op], deps) -> list[int]:
    groups, current, members = [], 0, set()
    for i in range(len(ops)):
        if deps[i] & members:
            current, members = current + 1, set()
        members.add(i)
        groups.append(current)
    return groups


def asap_groups(ops: list[Op], deps) -> list[int]:
    level: list[int] = []
    for i in range(len(ops)):
        level.append(max((level[j] + 1 for j in deps[i]), default=0))
    return level


def alap_groups(ops: list[Op], deps) -> list[int]:
    asap = asap_groups(ops, deps)
    depth = max(asap, default=0)
    users: dict[int, set[int]] = {i: set() for i in range(len(ops))}
    for i, ds in deps.items():
        for j in ds:
            users[j].add(i)
    level = [depth] * len(ops)
    for i in reversed(range(len(ops))):
        level[i] = min((level[u] - 1 for u in users[i]), default=depth)
    return level


def arrange(head: list[Op], ops: list[Op], stores: dict[int, list[Op]], groups: list[int]) -> list[Op]:
    """Loads (and other head ops) first, then the vector ops group by group (program order within
    a group), each store right after its producer."""
    order = sorted(range(len(ops)), key=lambda i: (groups[i], i))
    body = list(head)
    for i in order:
        ops[i].attrs["group"] = groups[i]
        body.append(ops[i])
        body.extend(stores.get(id(ops[i].result), []))
    return body


@dataclass(frozen=True)
class Candidate:
    """One order of a tile's ops, priced: ``groups`` None is the ungrouped program order."""

    name: str
    groups: list[int] | None
    tile: int  # elements per tile plan-buffers would pick
    bytes: int  # UB bytes per element
    barriers: int  # PIPE_V barriers per tile insert-sync would place


def choose(candidates: list[Candidate]) -> Candidate:
    """The fewest barriers among the candidates whose tile is at least the first's (the ungrouped
    program order); ties: the larger tile, the smaller footprint, the earlier candidate."""
    fits = [c for c in candidates if c.tile >= candidates[0].tile]
    return min(fits, key=lambda c: (c.barriers, -c.tile, c.bytes))


def schedule(func: Func, price) -> None:
    loop = func.loop()
    if loop is None or loop.attrs.get("vector_path") == "regbase":  # one VF: no barriers to save
        return
    region = loop.region
    head = [op for op in region if op.opname == "dma.load" or op.opname.startswith("sync.")]
    ops = [op for op in region if pipe_of(op) == "V" and not op.opname.startswith("sync.")]
    stores: dict[int, list[Op]] = {}
    early: list[Op] = []  # stores of a loaded tile unchanged (an output that is an input)
    produced = {id(op.result) for op in ops if op.result is not None}
    for op in region:
        if op.opname == "dma.store":
            if id(op.operands[0]) in produced:
                stores.setdefault(id(op.operands[0]), []).append(op)
            else:
                early.append(op)
    if not ops or any(op.result is None or not isinstance(op.result.type, TensorType) for op in ops):
        return
    deps = _deps(ops)
    original = list(region)
    candidates = [Candidate("program order", None, *price(original))]
    for make in (program_groups, asap_groups, alap_groups):
        groups = make(ops, deps)
        candidates.append(
            Candidate(make.__name__, groups, *price(arrange(head + early, ops, stores, groups)))
        )
    best = choose(candidates)
    if best.groups is None:
        for op in ops:
            op.attrs.pop("group", None)
        loop.region = original
    else:
        loop.region = arrange(head + early, ops, stores, best.groups)


@register
@dataclass(frozen=True)
class ScheduleVectorPass(FunctionPass):
    level: ClassVar[str] = "tile"
    name: ClassVar[str] = "schedule-vector"

    ub: int = 0  # the target's usable UB in bytes, as plan-buffers gets it

    def run_on(self, func) -> None:
        from .insert_sync import vector_barriers
        from .plan_buffers import assign, resident_bytes, slice_align, tile_length

        if self.ub <= 0:
            raise PassError("schedule-vector needs the usable UB size: schedule-vector{ub=188160}")
        usable = self.ub - resident_bytes(func)

        def price(body: list[Op]) -> tuple[int, int, int]:
            """Tile length, UB bytes per element and V barriers per tile of one order (buffers and
            tile as plan-buffers would pick them; barriers as insert-sync would place them)."""
            bufs = assign(body)  # sets buf: insert-sync reads it; plan-buffers assigns again
            slotted = {b.name for b in bufs if b.slots > 1}
            tile, _ = tile_length(bufs, usable, slice_align(func))
            return tile, sum(b.bytes * b.slots for b in bufs), vector_barriers(body, slotted)

        schedule(func, price)
