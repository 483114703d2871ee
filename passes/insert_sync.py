"""insert-sync: a SetFlag/WaitFlag pair for every cross-pipe dependency on a UB buffer.

Takes a tile-level function after plan-buffers; produces ``sync.set``/``sync.wait`` (and
``sync.barrier {pipe = "V"}`` between dependent vector instructions, so kernels also run with
the compiler's auto-sync off).

1. Build the access graph (a DiGraph): one node per (op, buffer, read/write) in the
   loop body, an edge from each access to every later conflicting access of the same buffer
   (write-read, read-write, write-write), in the same iteration ("fwd") and wrapping around to
   the next iteration that uses the same slot ("rev").
2. Forward edges between pipes P -> Q become ``set P_Q; wait P_Q`` right before the consumer;
   one pair covers every edge from P reaching that op.
3. Loop-carried edges P -> Q become a reverse event: ``wait`` before the first Q access of any
   buffer involved, ``set`` after the last P access; one ``set`` per slot is pre-issued before
   the loop and one ``wait`` per slot drains it after.
4. Event ids rotate with the ping-pong slot (``id = "slot"``: tile index & 1, 0 when single
   buffered) and come in id groups: group k is ``slot + k * slots``. An id may be set again only
   after its previous WaitFlag happened before, on the setting pipe (the emulator reports a reuse
   without that path: SetFlag<E>(id) ordered only by program order may land before the other pipe
   consumed the first set). Inside a tile nothing returns from MTE3 to V, so AdamW's three early
   stores (m, v, var) each take their own V_MTE3 group: ids slot, slot+2, slot+4. A pair reuses
   an earlier pair's group when a pair in the opposite direction lies between them (the overwrite
   of a stored buffer puts an MTE3_V pair there). Across tiles a group is reused two tiles later,
   after the reverse events ordered the previous use of the slot. A reverse event of a type that
   forward pairs also use takes the next group (with one forward group: ``slot+2``). Pairs that
   the scalar unit waits for (V_S, MTE2_S) all share one group: its WaitFlag stalls the unit that
   issues every later SetFlag. Scalar-unit events start at group 1 in a function with a reduction
   (the count-form reductions take id 0 with FetchEventID), else at group 0. A reverse event from
   the scalar unit with a constant id (a single-slot buffer) also orders the slotted buffers a
   reverse event of its type would: one event, not two.
5. Ids 0-5 are the manual ones (6 reserved, 7 TPipe's), so double buffering has three groups per
   event. Past that, the stores behind the later guards move to the end of the tile behind one
   guard (their copy-out then overlaps only the next tile's math, as double buffering already
   gives); another event that needs more groups is a CompileError. Batching every store at the
   end would need one group but gives up the overlap inside a tile; a V <- MTE3 handshake between
   stores would stall V on MTE3's earlier copies.

   Event ids are numbered per event type: one number may be live for several types at once
   (a double-buffered kernel pre-issues V_MTE2(0) and MTE3_V(0) together). reference-ops.md
   s4.1 records a disagreement (blaze: the types share physical ids); the toolkit settles it for
   per-type ids, and dslc follows it:
   * asc-devkit ``impl/basic_api/kernel_tpipe_impl.h``: ``AllocEventID<evt>``/``FetchEventID``
     take the lowest free id of ``eventPool_ + EventToIndex(evt)``, one pool per HardEvent
     (``kernel_event.h``: ``EVENT_NUM`` pools); ``TPipe::InitBuffer`` gives every buffer of a
     TQue its ``freeBufEvtID = AllocEventID<T::freeBufEvt>()`` and pre-issues
     ``SetFlag<T::freeBufEvt>`` on it, so any kernel with a VECIN and a VECOUT queue holds
     V_MTE2(0) and MTE3_V(0) live together, as function ``@f`` of
     tests/passes/insert-sync/reverse_events.ir does;
   * asc-devkit ``docs/zh/guide/编程指南/高级编程/硬件实现/架构规格/NPU架构版本2201.md`` (the A2
     sync rules): ``SetFlag<S_MTE3>(1)`` and ``SetFlag<MTE3_MTE1>(1)`` do not set the same
     EventID; only the same template parameter with the same id does.
   Manual ids are not taken from those pools, so a library call that fetches an id of a type
   (the count-form reductions: V_S, S_V, S_MTE3) gets 0: the scalar-unit groups start at 1 there
   (``_first_group``; the emulator reports such a clash at the call, test_sync_mutations.py).
   ``simulate(..., shared_event_ids=True)`` runs a kernel under the other
   reading, where kernels with two reverse event types of one slot fault (measured on 910B:
   apply_adam_w, layer_norm, add_layer_norm, quantize_add_layer_norm, add_bias with its bias;
   rms_norm, softmax, bias_gelu, clamp, hypot_bcast pass), as every TQue kernel with an input
   and an output queue would.

6. Broadcasts made once before the loop (hoist-invariants' resident ``vec.dup``) are ordered
   before the loop's vector reads by one ``sync.barrier {pipe = "V"}`` after them.

7. A broadcast function's inputs are filled by V (``Fill``: splat, replicated row, column) in the
   modes where their tile is not copied in whole: a ``bcast.fill`` of each loaded input goes
   right before the first op that reads its buffer, and is ordered as a V write like any other
   (MTE2 -> V before it, V -> MTE3 before a copy out of the input). Its V readers need no barrier:
   Fill ends with its own.

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

from dsl.errors import CompileError
from dsl.ir import Func, Op, TensorType

from .analysis.graph import DiGraph
from .analysis.access import pipe_of, read_pipe
from .manager import function_pass


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
        if op.opname == FILL:  # V writes the whole tile of the input (no read)
            out.append(Access(i, "V", bufs[id(op.operands[0])], True))
            continue
        pipe = pipe_of(op)
        reads = {}
        for k, v in enumerate(op.operands):
            if isinstance(v.type, TensorType) and id(v) in bufs:
                reads.setdefault((read_pipe(op, k), bufs[id(v)]), None)
        for rpipe, buf in reads:
            out.append(Access(i, rpipe, buf, False))
        if op.result is not None and id(op.result) in bufs:
            out.append(Access(i, pipe, bufs[id(op.result)], True))
    return out


def dependency_graph(body: list[Op]) -> DiGraph:
    """Direct dependencies between UB accesses: an edge from the last write (or, for a write,
    the reads since it) to each later conflicting access, within one use of a buffer slot ("fwd") and from the
    end of one use of the slot to the next ("carried"). Earlier accesses are ordered before
    these by transitivity, so they need no edge of their own."""
    g = DiGraph()
    acc = buffer_accesses(body)
    n = len(body)
    fills = {i for i, op in enumerate(body) if op.opname == FILL}

    def sweep(state: dict, kind: str) -> dict:
        for b in acc:
            last, reads = state.get(b.buf, (None, []))
            # A write follows the reads since the last write (they follow that write already);
            # a read follows the last write.
            deps = list(reads) if b.write and reads else ([last] if last is not None else [])
            for a in deps:
                if a.index == b.index or (kind == "carried") != (a.index < 0):
                    continue
                if a.index in fills and b.pipe == "V":  # Fill ends with its own V barrier
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


MAX_EVENT_ID = 5  # manual code may use ids 0-5 (6 is reserved, 7 belongs to TPipe)


def _first_group(event: str, reduces: bool) -> int:
    """Scalar-unit events start at id group 1 in a function with reductions: the count-form
    ReduceSum/ReduceMax/ReduceMin a row kernel calls synchronise their scalar write-back with
    ``FetchEventID(V_S)`` / ``(S_V)`` / ``(S_MTE3)`` (asc-devkit
    ``impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h``), which is id 0 when nothing is
    allocated from TPipe; a manual flag of id 0 pending across such a call would be set twice."""
    return 1 if reduces and "S" in event.split("_") else 0


REDUCING = ("reduce", "welford.var", "online.sum")  # the ops whose kernel code calls a count-form reduction


def _sync(kind: str, event: str, ident, loc, bufs) -> Op:
    return Op(f"sync.{kind}", [], None, None, {"event": event, "id": ident, "bufs": sorted(bufs)}, loc)


def _ident(group: int, slots: int):
    """The event id of id group ``group``: the slot (tile index & 1; 0 single-buffered) plus
    ``group * slots``, so every group owns ``slots`` ids."""
    return "slot" if group == 0 else f"slot+{group * slots}"


@dataclass
class _Plan:
    barriers: list[int]  # positions that get a V barrier before them
    pairs: dict[tuple[str, str], list[int]]  # (P, Q) -> positions of the forward set+wait pairs
    guarded: dict[tuple[int, str], set[str]]  # (position, event) -> buffers the pair protects
    # (event, fixed, apart) -> [last producer position, first consumer position, buffers]; fixed:
    # the buffers have one slot, so the next tile waits for this tile's set (one constant id)
    reverse: dict[tuple[str, bool, bool], list]
    groups: dict[tuple[int, str], int]  # (position, event) of a forward pair, (-1, event) of a reverse one
    used: dict[str, int]  # event -> id groups

    def overflow(self, slots: int) -> dict[str, int]:
        return {e: n for e, n in self.used.items() if n * slots > MAX_EVENT_ID + 1}


def _plan(body: list[Op], slotted: set[str], rows: bool = False, apart: frozenset = frozenset()) -> _Plan:
    g = dependency_graph(body)
    reduces = any(op.opname in REDUCING for op in body)
    edges = sorted(g.edges(data=True), key=lambda e: (e[1].index, e[0].index, e[0].pipe))

    barriers: list[int] = []
    pairs: dict[tuple[str, str], list[int]] = {}
    guarded: dict[tuple[int, str], set[str]] = {}
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

    reverse: dict[tuple[str, bool, bool], list] = {}
    for a, b, data in edges:  # dependencies on the previous use of the slot
        if data["kind"] != "carried":
            continue
        j = b.index
        if a.pipe == b.pipe:
            # a barrier later in the previous tile than the access, or earlier in this one, orders them
            if a.pipe == "V" and not any(k <= j or k > a.index + len(body) for k in barriers):
                barriers.append(j)
            continue
        if any(k <= j for k in pairs.get((a.pipe, b.pipe), [])):
            continue  # this iteration's forward pair already follows the producer's earlier work
        # A single-slot buffer shared by two pipes (a row function's per-row value: V writes it,
        # the scalar unit reads it) is reused by the very next tile: a constant id, not the slot.
        # An elementwise function has none: double-buffer gives what the DMA touches two slots.
        if b.buf not in slotted and not rows:
            raise AssertionError(f"single-slot buffer {b.buf} is shared by pipes {a.pipe} and {b.pipe}")
        # ``apart``: a column-chunked twin's column slots, read by the output pass's math late in
        # the step, have reverse events of their own, so the next copy of a row waits only for the
        # reads of the row's slot
        key = (f"{a.pipe}_{b.pipe}", b.buf not in slotted, b.buf in apart)
        entry = reverse.setdefault(key, [-1, len(body), set()])
        entry[0] = max(entry[0], a.index + len(body))
        entry[1] = min(entry[1], j)
        entry[2].add(b.buf)
    # A constant-id reverse event from the scalar unit (the next tile waits for this tile's
    # SetFlag) orders everything a slotted one of the same type would (that one lets the tile after
    # the next wait), so it takes the slotted one's buffers: one SetFlag after the tile's last
    # scalar read, one WaitFlag before the next tile's first write, as one writes it by hand. It
    # costs no overlap: the scalar unit issues the later instructions of the tile itself, after its
    # reads. Two events took two id groups (rows fuzz seed 10087: S_V ran out of ids with a per-row
    # value stored, so double buffered, and another single-slot one, both read by the scalar unit).
    # Between other pipes the merged wait would hold the next tile's prefetch back: kept apart.
    for event, fixed, part in list(reverse):
        if event.startswith("S_") and not fixed and (event, True, False) in reverse:
            last, first, bufs = reverse.pop((event, False, part))
            entry = reverse[(event, True, False)]
            entry[0], entry[1] = max(entry[0], last), min(entry[1], first)
            entry[2] |= bufs

    # Id groups. A forward P_Q pair at position j may take the group of an earlier pair at i only
    # if the id's previous Wait (on Q, at i) happens before its reuse (the Set on P, at j): Q is
    # the scalar unit, which issues every later instruction after its WaitFlag returned, or a
    # forward Q_P pair sits at some k, i < k < j (Q sets it after its WaitFlag at i, P waits for
    # it before its SetFlag at j). Without that, the k-th pair of the tile takes a group of its
    # own. Across tiles a group's ids are
    # reused two tiles later (the other slot's ids in between), after the reverse events have
    # ordered the previous use of the slot. A reverse event of the same type as forward pairs
    # takes the next group (with one forward group: the "slot+2" rule).
    groups: dict[tuple[int, str], int] = {}
    used: dict[str, int] = {}
    for event in sorted({e for _, e in guarded}):
        src, dst = event.split("_")
        back = pairs.get((dst, src), [])
        last: list[int | None] = [None] * _first_group(event, reduces)  # group -> its latest pair
        for j in sorted(i for i, e in guarded if e == event):
            free = [
                grp
                for grp, i in enumerate(last)
                if i is not None and (dst == "S" or any(i < k < j for k in back))
            ]
            grp = free[0] if free else len(last)
            last[grp : grp + 1] = [j]
            groups[(j, event)] = grp
        used[event] = len(last)
    for key in sorted(reverse):
        event = key[0]
        groups[(-1, key)] = used.get(event, _first_group(event, reduces))
        used[event] = groups[(-1, key)] + 1
    return _Plan(barriers, pairs, guarded, reverse, groups, used)


def vector_barriers(body: list[Op], slotted: set[str]) -> int:
    """How many ``PipeBarrier<PIPE_V>`` a loop body (with buffers assigned) gets per tile."""
    return len(set(_plan([op for op in body if not op.opname.startswith("sync.")], slotted).barriers))


def coalesce_stores(body: list[Op], plan: _Plan, slots: int) -> list[Op]:
    """Past the V_MTE3 id budget, the stores behind the guard of the last group that fits move to
    the end of the tile, where one guard covers them all: the copy-out of those outputs no longer
    overlaps the rest of this tile's math (it still overlaps the next tile's). A store moves only
    if nothing overwrites its buffer before the end of the tile."""
    keep = (MAX_EVENT_ID + 1) // slots - 1
    guards = sorted(j for j, e in plan.guarded if e == "V_MTE3" and plan.groups[(j, e)] >= keep)
    if not guards:
        return body
    bufs = {id(op.result): op.attrs.get("buf") for op in body if op.result is not None}
    late = []
    for j, op in enumerate(body):
        if op.opname != "dma.store" or j < guards[0]:
            continue
        buf = bufs.get(id(op.operands[0]))
        if all(bufs.get(id(later.result)) != buf for later in body[j + 1 :] if later.result is not None):
            late.append(op)
    return [op for op in body if not any(op is x for x in late)] + late


def vf_edges(region: list[Op]) -> list[Op]:
    """A vector function (``vf``, form-vector-functions) is one V step: flags placed between its
    ops move to its edges, sets of V events after it and every other flag before it (a wait
    earlier, a set later: the order only gets stricter), and V barriers inside it go (a VF's
    instructions are ordered by the hardware)."""
    spans: dict[int, list[int]] = {}
    for i, op in enumerate(region):
        if "vf" in op.attrs:
            spans.setdefault(op.attrs["vf"], []).append(i)
    for k, at in sorted(spans.items(), key=lambda kv: -kv[1][0]):  # later spans first: indices hold
        first, last = at[0], at[-1]
        inside = region[first : last + 1]
        ops = [op for op in inside if op.attrs.get("vf") == k]
        flags = [op for op in inside if op.opname.startswith("sync.") and op.opname != "sync.barrier"]
        early = [op for op in flags if not (op.opname == "sync.set" and op.attrs["event"].startswith("V_"))]
        late = [op for op in flags if op.opname == "sync.set" and op.attrs["event"].startswith("V_")]
        fills = [op for op in inside if op.opname == FILL]  # V writes of the VF's inputs: before it
        others = [
            op for op in inside if op not in ops and op not in fills and not op.opname.startswith("sync.")
        ]
        if others:
            raise CompileError(f"insert-sync: '{others[0].opname}' inside a vector function", others[0].loc)
        region = region[:first] + early + fills + ops + late + region[last + 1 :]
    return region


FILL = "bcast.fill"


def with_fills(body: list[Op]) -> list[Op]:
    """A broadcast function's body with a ``bcast.fill`` of each loaded input right before the
    first op that reads the input's buffer: V splats, replicates or spreads the input there in the
    modes where its tile is not copied in whole (a no-op in the others), so the flags order it
    like any V write: after the copy in, before the math and the copies out that read the tile.
    A fill of an input only vector functions read is ``in_place``: the VF reads a resident row
    where it is (row stride 0) and only the other kinds are filled."""
    bufs = {id(op.result): op.attrs.get("buf") for op in body if op.result is not None}
    before: dict[int, list[Op]] = {}
    for i, op in enumerate(body):
        if op.opname != "dma.load":
            continue
        buf = op.attrs["buf"]
        reader = next(
            (j for j in range(i + 1, len(body)) if any(bufs.get(id(v)) == buf for v in body[j].operands)),
            None,
        )
        if reader is not None:  # only VF readers (RegBase): they read a resident row in place
            users = [u for u in body[i + 1 :] if op.result in u.operands]
            attrs = {"in_place": True} if users and all("vf" in u.attrs for u in users) else {}
            before.setdefault(reader, []).append(Op(FILL, [op.result], None, None, attrs, op.loc))
    return [x for j, op in enumerate(body) for x in before.get(j, []) + [op]]


def insert(func: Func) -> None:
    loop = func.loop()
    if loop is None or "buffers" not in func.attributes:
        return
    slots = loop.attrs.get("slots", 2)
    slotted = {name for name, b in func.attributes["buffers"].items() if b["slots"] > 1}
    body = [op for op in loop.region if not op.opname.startswith(("sync.", "bcast."))]
    if func.attributes.get("broadcast"):
        body = with_fills(body)
    rows = func.attributes.get("layout") == "rows"
    apart = frozenset(
        n for n, b in func.attributes["buffers"].items() if b.get("kind") == "col" and b["slots"] > 1
    )
    plan = _plan(body, slotted, rows, apart)
    if "V_MTE3" in plan.overflow(slots):
        body = coalesce_stores(body, plan, slots)
        plan = _plan(body, slotted, rows, apart)
    for event, n in sorted(plan.overflow(slots).items()):
        raise CompileError(
            f"insert-sync: {event} is needed at {n} unordered points of a tile, which takes {n * slots} "
            f"event ids; only 0-{MAX_EVENT_ID} exist",
            func.loc,
        )

    before: dict[int, list[Op]] = {}
    after: dict[int, list[Op]] = {}
    for j in sorted(set(plan.barriers)):
        before.setdefault(j, []).append(Op("sync.barrier", [], None, None, {"pipe": "V"}, body[j].loc))
    for (j, event), bufs in sorted(plan.guarded.items()):
        ident = _ident(plan.groups[(j, event)], slots)
        for kind in ("set", "wait"):
            before.setdefault(j, []).append(_sync(kind, event, ident, body[j].loc, bufs))
    pre, drain = [], []
    for key in sorted(plan.reverse):
        event, fixed = key[:2]
        last, first, bufs = plan.reverse[key]
        group = plan.groups[(-1, key)]
        ident = group * slots if fixed else _ident(group, slots)
        before.setdefault(first, []).insert(0, _sync("wait", event, ident, body[first].loc, bufs))
        after.setdefault(last, []).append(_sync("set", event, ident, body[last].loc, bufs))
        for k in range(1 if fixed else slots):
            pre.append(_sync("set", event, group * slots + k, loop.loc, bufs))
            drain.append(_sync("wait", event, group * slots + k, loop.loc, bufs))

    region: list[Op] = []
    for i, op in enumerate(body):
        region.extend(before.get(i, []))
        region.append(op)
        region.extend(after.get(i, []))
    loop.region = vf_edges(region)
    at = func.body.index(loop)
    if any(op.opname == "vec.dup" for op in func.body[:at]):  # resident broadcasts (hoist-invariants)
        pre.insert(0, Op("sync.barrier", [], None, None, {"pipe": "V"}, loop.loc))
    func.body = func.body[:at] + pre + [loop] + drain + func.body[at + 1 :]


InsertSyncPass = function_pass("insert-sync", "tile", insert)
