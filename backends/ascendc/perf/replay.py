"""Discrete-event replay of one core's instruction trace (DESIGN section 8).

The scalar unit (S) walks the trace in program order, issuing each instruction to its pipe
(``issue_cycles`` each) and running its own scalar work; it stops only at a WaitFlag on S or a
``PipeBarrier<PIPE_ALL>``. V, MTE2 and MTE3 are in-order queues: an instruction starts when it is
issued, its pipe is free and, for a WaitFlag, the matching SetFlag has fired (plus the flag's
propagation time). SetFlag/WaitFlag pairs (and TQue EnQue/DeQue, FreeTensor/AllocTensor) are
matched per event id in program order, first set to first wait. Vector ops and syncs take fixed
times (``costs.py``). Copies take their fixed cost, then move their bytes as a fluid: the copies
in flight on this core share the core's slice of their memory's bandwidth fairly (HBM or L2: the
chip's bandwidth divided by the cores running), each capped by its per-core rate.

Everything fixed-time is resolved as soon as its inputs are known; only copies need the clock to
advance, which it does from one copy event to the next (a copy starting, its data phase starting,
or a copy ending).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..sim.trace import BARRIER_ALL, CROSS_KEY, PIPE_NAMES, PIPE_S, SET, WAIT
from .costs import BlockCosts

RESIDUE_BYTES = 1e-3  # what float rounding leaves of a finished copy


class ReplayError(RuntimeError):
    pass


@dataclass
class CoreTimeline:
    start: list  # per record: when it started on its pipe (None: never ran)
    end: list
    ready: list  # per record: when its pipe reached it (a WaitFlag's wait runs from here to start)
    busy: dict  # pipe name -> seconds of work (msprof-style busy time; a copy counts from start to end)
    # the cores of a mixed kernel's block (trace.py: AIC 0, AIV0 1, AIV1 2): per core, its busy times
    # and when it finished; {} for an AIV-only kernel (busy/finish are the core's)
    per_core: dict = field(default_factory=dict)

    @property
    def finish(self) -> float:
        return max((e for e in self.end if e is not None), default=0.0)


def match_flags(kind: list, key: list, core: list | None = None) -> list:
    """For each WaitFlag, the index of the SetFlag it consumes (first set to first wait, per core:
    each core has its own event flags), else -1. Cross-core flags are linked by the trace, not
    here."""
    pending: dict[tuple, list] = {}
    heads: dict[tuple, int] = {}
    match = [-1] * len(kind)
    for i, (k, key_i) in enumerate(zip(kind, key)):
        if k not in (SET, WAIT) or key_i & CROSS_KEY:
            continue
        f = (core[i] if core is not None else 0, key_i)
        if k == SET:
            pending.setdefault(f, []).append(i)
        else:
            q = pending.get(f)
            h = heads.get(f, 0)
            if q is not None and h < len(q):
                match[i] = q[h]
                heads[f] = h + 1
    return match


def _fair_rates(transfers: list, shares: tuple[float, float]) -> None:
    """Water-filling: each core's share of a memory pool split evenly among its copies in their
    data phase, a copy whose cap is below its even split leaving the rest to the others."""
    groups: dict[tuple, list] = {}
    for t in transfers:
        if t[6]:
            groups.setdefault((t[8], t[5]), []).append(t)
    for (_, pool), flowing in groups.items():
        left = shares[pool]
        flowing.sort(key=lambda t: t[4])
        for j, t in enumerate(flowing):
            r = min(t[4], left / (len(flowing) - j))
            t[7] = r
            left -= r


def replay(
    c: BlockCosts,
    hbm_share: float,
    l2_share: float,
    prop_s: float,
    core: list | None = None,
    cross: dict | None = None,
) -> CoreTimeline:
    """The schedule of one block's records. ``core`` (per record; None: one core) gives each core of a
    mixed kernel its own scalar unit and pipe queues; ``cross`` maps a cross-core WaitFlag's index to
    the indices of the CrossCoreSetFlags it waits for (the emulator's pairing, trace.py)."""
    n = len(c.pipe)
    pipe, kind, fixed, s_cost = c.pipe, c.kind, c.fixed, c.s_cost
    core = core if core is not None else [0] * n
    cores = sorted(set(core)) or [0]
    match = [[m] if m >= 0 else [] for m in match_flags(kind, c.key, core)]
    for i, sets in (cross or {}).items():
        match[i] = list(sets)
    queues: dict[tuple, list] = {}
    program: dict[int, list] = {k: [] for k in cores}
    barrier_at = {}
    for i, p in enumerate(pipe):
        k = core[i]
        program[k].append(i)
        if kind[i] == BARRIER_ALL:
            barrier_at[i] = {q: len(v) for q, v in queues.items() if q[0] == k}
        if p != PIPE_S:
            queues.setdefault((k, p), []).append(i)
    queues = dict(sorted(queues.items()))  # per core: V, MTE2, MTE3, then the cube's MTE1, M, FIX

    issue = [None] * n
    start = [None] * n
    end = [None] * n
    ready = [None] * n
    fire = [None] * n
    head = {q: 0 for q in queues}
    free = {q: 0.0 for q in queues}  # None while a copy runs on the queue
    shares = (hbm_share, l2_share)
    # A copy in flight: [record, queue, data_start, remaining bytes, cap, pool, flowing, rate, core]
    flying: list[list] = []
    clock = 0.0
    s_pos = {k: 0 for k in cores}
    s_t = {k: 0.0 for k in cores}
    s_busy = {k: 0.0 for k in cores}  # the scalar unit's own work: issuing and scalar ops, not its waits
    done = 0

    def fired(i: int):
        """When every SetFlag a WaitFlag waits for has fired, the latest of them; None if one has not."""
        t = 0.0
        for m in match[i]:
            if fire[m] is None:
                return None
            t = max(t, fire[m] + prop_s)
        return t

    def advance_s(k: int) -> bool:
        nonlocal done
        prog = program[k]
        moved = False
        while s_pos[k] < len(prog):
            i = prog[s_pos[k]]
            if pipe[i] != PIPE_S:
                s_t[k] += s_cost[i]
                s_busy[k] += s_cost[i]
                issue[i] = s_t[k]
            elif kind[i] == WAIT:
                f = fired(i)
                if f is None:
                    return moved
                ready[i] = issue[i] = s_t[k]
                s_t[k] = max(s_t[k], f) if match[i] else s_t[k]
                start[i] = s_t[k]
                s_t[k] += fixed[i]
                s_busy[k] += fixed[i]
                end[i] = s_t[k]
                done += 1
            elif kind[i] == BARRIER_ALL:
                for q, cnt in barrier_at[i].items():
                    if head[q] < cnt or (cnt and end[queues[q][cnt - 1]] is None):
                        return moved
                    if cnt:
                        s_t[k] = max(s_t[k], end[queues[q][cnt - 1]])
                issue[i] = start[i] = s_t[k]
                s_t[k] += fixed[i]
                s_busy[k] += fixed[i]
                end[i] = s_t[k]
                done += 1
            else:  # scalar work, an S-side SetFlag, an L2 hint
                issue[i] = start[i] = s_t[k]
                s_t[k] += s_cost[i] + (fixed[i] if kind[i] == SET else 0.0)
                s_busy[k] += s_cost[i] + (fixed[i] if kind[i] == SET else 0.0)
                end[i] = s_t[k]
                if kind[i] == SET:
                    fire[i] = s_t[k]
                done += 1
            s_pos[k] += 1
            moved = True
        return moved

    def advance_pipe(q: tuple) -> bool:
        nonlocal done
        recs = queues[q]
        moved = False
        while head[q] < len(recs):
            i = recs[head[q]]
            if issue[i] is None or free[q] is None:
                return moved
            r = max(issue[i], free[q])
            kd = kind[i]
            if kd == WAIT:
                f = fired(i)
                if f is None:
                    return moved
                st = max(r, f) if match[i] else r
            else:
                st = r
            ready[i] = r
            start[i] = st
            if c.dma_mem[i] >= 0 and c.dma_bytes[i] > 0:
                st = max(st, clock)
                start[i] = st
                free[q] = None
                flying.append(
                    [
                        i,
                        q,
                        st + c.dma_t0[i],
                        float(c.dma_bytes[i]),
                        c.dma_cap[i],
                        c.dma_mem[i],
                        False,
                        0.0,
                        q[0],
                    ]
                )
                head[q] += 1
                return True
            end[i] = st + fixed[i]
            free[q] = end[i]
            if kd == SET:
                fire[i] = end[i]
            done += 1
            head[q] += 1
            moved = True
        return moved

    while True:
        progress = True
        while progress:
            progress = False
            for k in cores:
                progress = advance_s(k) or progress
            for q in queues:
                progress = advance_pipe(q) or progress
        if done == n:
            break
        if not flying:
            stuck = [i for i in range(n) if end[i] is None][:3]
            raise ReplayError(
                f"the replay cannot go on: records {stuck} wait for something that never happens"
            )
        # Next copy event: a data phase starting, or a copy finishing at the current rates.
        for t in flying:
            t[6] = t[2] <= clock
        _fair_rates(flying, shares)
        nxt = min(t[2] if not t[6] else clock + t[3] / t[7] if t[7] > 0 else float("inf") for t in flying)
        if nxt == float("inf"):
            raise ReplayError("copies in flight with no bandwidth")
        dt = nxt - clock
        for t in flying:
            if t[6]:
                t[3] -= t[7] * dt
        clock = nxt
        for t in list(flying):
            if t[6] and t[3] <= RESIDUE_BYTES:
                end[t[0]] = free[t[1]] = clock
                done += 1
                flying.remove(t)

    def busy_of(k: int) -> dict:
        """msprof-style busy seconds of core k's pipes that ran anything (S: its own work, not the time
        it stood at a WaitFlag or PipeBarrier<PIPE_ALL>)."""
        busy = {"S": s_busy[k]}
        for q, recs in queues.items():
            if q[0] == k:
                busy[PIPE_NAMES[q[1]]] = sum(
                    end[i] - start[i] for i in recs if kind[i] != WAIT and start[i] is not None
                )
        return busy

    if len(cores) == 1:
        return CoreTimeline(start, end, ready, {"V": 0.0, "MTE2": 0.0, "MTE3": 0.0, **busy_of(cores[0])})
    per_core = {}
    total = {"S": 0.0, "V": 0.0, "MTE2": 0.0, "MTE3": 0.0}
    for k in cores:
        ends = [end[i] for i in program[k] if end[i] is not None]
        per_core[k] = {"busy": busy_of(k), "finish": max(ends, default=0.0)}
        for p, t in per_core[k]["busy"].items():
            total[p] = max(total.get(p, 0.0), t)
    return CoreTimeline(start, end, ready, total, per_core)
