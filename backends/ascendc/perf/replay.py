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

from dataclasses import dataclass

from ..sim.trace import BARRIER_ALL, PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V, SET, WAIT
from .costs import HBM, BlockCosts

RESIDUE_BYTES = 1e-3  # what float rounding leaves of a finished copy


class ReplayError(RuntimeError):
    pass


@dataclass
class CoreTimeline:
    start: list  # per record: when it started on its pipe (None: never ran)
    end: list
    ready: list  # per record: when its pipe reached it (a WaitFlag's wait runs from here to start)
    busy: dict  # pipe name -> seconds of work (msprof-style busy time; a copy counts from start to end)

    @property
    def finish(self) -> float:
        return max((e for e in self.end if e is not None), default=0.0)


def match_flags(kind: list, key: list) -> list:
    """For each WaitFlag, the index of the SetFlag it consumes (first set to first wait), else -1."""
    pending: dict[int, list] = {}
    heads: dict[int, int] = {}
    match = [-1] * len(kind)
    for i, (k, key_i) in enumerate(zip(kind, key)):
        if k == SET:
            pending.setdefault(key_i, []).append(i)
        elif k == WAIT:
            q = pending.get(key_i)
            h = heads.get(key_i, 0)
            if q is not None and h < len(q):
                match[i] = q[h]
                heads[key_i] = h + 1
    return match


def _fair_rates(transfers: list, shares: tuple[float, float]) -> None:
    """Water-filling: each memory pool's core share split evenly among its copies in their data
    phase, a copy whose cap is below its even split leaving the rest to the others."""
    for pool in (HBM, 1):
        flowing = [t for t in transfers if t[5] == pool and t[6]]
        left = shares[pool]
        flowing.sort(key=lambda t: t[4])
        for j, t in enumerate(flowing):
            r = min(t[4], left / (len(flowing) - j))
            t[7] = r
            left -= r


def replay(c: BlockCosts, hbm_share: float, l2_share: float, prop_s: float) -> CoreTimeline:
    n = len(c.pipe)
    pipe, kind, fixed, s_cost = c.pipe, c.kind, c.fixed, c.s_cost
    match = match_flags(kind, c.key)
    queues = {PIPE_V: [], PIPE_MTE2: [], PIPE_MTE3: []}
    before = []  # per record: how many records of each queue come before it (for PIPE_ALL)
    for i, p in enumerate(pipe):
        if kind[i] == BARRIER_ALL:
            before.append({q: len(v) for q, v in queues.items()})
        if p != PIPE_S:
            queues[p].append(i)
    barrier_at = {i: b for i, b in zip((i for i in range(n) if kind[i] == BARRIER_ALL), before)}

    issue = [None] * n
    start = [None] * n
    end = [None] * n
    ready = [None] * n
    fire = [None] * n
    head = {p: 0 for p in queues}
    free = {p: 0.0 for p in queues}  # None while a copy runs on the queue
    shares = (hbm_share, l2_share)
    # A copy in flight: [record, queue, data_start, remaining bytes, cap, pool, flowing, rate]
    flying: list[list] = []
    clock = 0.0
    s_pos, s_t = 0, 0.0
    done = 0

    def advance_s() -> bool:
        nonlocal s_pos, s_t, done
        moved = False
        while s_pos < n:
            i = s_pos
            if pipe[i] != PIPE_S:
                s_t += s_cost[i]
                issue[i] = s_t
            elif kind[i] == WAIT:
                m = match[i]
                if m >= 0 and fire[m] is None:
                    return moved
                ready[i] = issue[i] = s_t
                s_t = max(s_t, fire[m] + prop_s) if m >= 0 else s_t
                start[i] = s_t
                s_t += fixed[i]
                end[i] = s_t
                done += 1
            elif kind[i] == BARRIER_ALL:
                for q, k in barrier_at[i].items():
                    if head[q] < k or (k and end[queues[q][k - 1]] is None):
                        return moved
                    if k:
                        s_t = max(s_t, end[queues[q][k - 1]])
                issue[i] = start[i] = s_t
                s_t += fixed[i]
                end[i] = s_t
                done += 1
            else:  # scalar work, an S-side SetFlag, an L2 hint
                issue[i] = start[i] = s_t
                s_t += s_cost[i] + (fixed[i] if kind[i] == SET else 0.0)
                end[i] = s_t
                if kind[i] == SET:
                    fire[i] = s_t
                done += 1
            s_pos += 1
            moved = True
        return moved

    def advance_pipe(p: int) -> bool:
        nonlocal done
        q = queues[p]
        moved = False
        while head[p] < len(q):
            i = q[head[p]]
            if issue[i] is None or free[p] is None:
                return moved
            r = max(issue[i], free[p])
            k = kind[i]
            if k == WAIT:
                m = match[i]
                if m >= 0 and fire[m] is None:
                    return moved
                st = max(r, fire[m] + prop_s) if m >= 0 else r
            else:
                st = r
            ready[i] = r
            start[i] = st
            if c.dma_mem[i] >= 0 and c.dma_bytes[i] > 0:
                st = max(st, clock)
                start[i] = st
                free[p] = None
                flying.append(
                    [i, p, st + c.dma_t0[i], float(c.dma_bytes[i]), c.dma_cap[i], c.dma_mem[i], False, 0.0]
                )
                head[p] += 1
                return True
            end[i] = st + fixed[i]
            free[p] = end[i]
            if k == SET:
                fire[i] = end[i]
            done += 1
            head[p] += 1
            moved = True
        return moved

    while True:
        progress = True
        while progress:
            progress = advance_s()
            for p in (PIPE_V, PIPE_MTE2, PIPE_MTE3):
                progress = advance_pipe(p) or progress
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

    busy = {"S": s_t, "V": 0.0, "MTE2": 0.0, "MTE3": 0.0}
    names = {PIPE_V: "V", PIPE_MTE2: "MTE2", PIPE_MTE3: "MTE3"}
    for i in range(n):
        p = pipe[i]
        if p != PIPE_S and kind[i] != WAIT and start[i] is not None:
            busy[names[p]] += end[i] - start[i]
    return CoreTimeline(start, end, ready, busy)
