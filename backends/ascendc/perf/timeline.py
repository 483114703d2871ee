"""The modelled timeline as Chrome/Perfetto trace JSON: one process per core, one thread (track)
per pipe, one slice per instruction and copy, named by its kernel line and the DSL line that line
implements; a WaitFlag's slice runs from when its pipe reached it to when the flag arrived, with
a flow arrow from the SetFlag it waited for."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..sim.trace import CORE_NAMES, DTYPE_NAMES, NONE8, NONE16, PIPE_NAMES, SET, VF, WAIT, flag_name, is_reg
from ..simulate import dsl_line
from .costs import HBM
from .model import ModelRun, cross_links
from .replay import match_flags

PIPE_ORDER = {"S": 0, "V": 1, "MTE2": 2, "MTE3": 3, "MTE1": 4, "M": 5, "FIX": 6}
AIV_PIPES = ("S", "V", "MTE2", "MTE3")
AIC_PIPES = ("S", "MTE2", "MTE1", "M", "FIX")
DEFAULT_MAX_EVENTS = 2_000_000


@lru_cache(maxsize=64)
def _kernel_lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text().splitlines())
    except OSError:
        return ()


def where(loc: str, root: Path | None = None) -> tuple[str, str | None]:
    """("op_kernel/x.cpp:N", "x.py:M" or None) for a trace location "op_kernel/x.cpp:N" (relative
    to the project ``root``) and the ``// x.py:M`` source map of the kernel."""
    path, _, line = loc.rpartition(":")
    short = "/".join(Path(path).parts[-2:]) + f":{line}"
    full = Path(path) if root is None else root / path
    lines = _kernel_lines(str(full)) if line.isdigit() else ()
    k = int(line) - 1 if line.isdigit() else -1
    return short, (dsl_line(list(lines), k) if 0 <= k < len(lines) else None)


def chrome_trace(run: ModelRun, max_events: int = DEFAULT_MAX_EVENTS) -> dict:
    trace = run.trace
    names = {}
    events: list[dict] = [
        {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": f"{run.sku.name} (model)"}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "kernel"}},
        {
            "name": "launch overhead (model)",
            "ph": "X",
            "pid": 0,
            "tid": 0,
            "ts": 0.0,
            "dur": run.launch_s * 1e6,
            "args": {"launch_s": run.launch_s},
        },
    ]
    offset = run.launch_s * 1e6
    truncated = 0
    flow = 0
    for b in range(trace.blocks):
        core = run.core_of(b)
        tl, recs, costs = core.timeline, core.records, core.costs
        if len(events) + len(recs) > max_events:
            truncated += 1
            continue
        # One process per core: an AIV-only kernel's block is one AIV; a mixed kernel's, its AIC and AIVs.
        kinds = recs["core"].tolist()
        mixed = bool(tl.per_core)
        pids = {}
        for k in sorted(set(kinds)) or [0]:
            pid = pids[k] = b * 4 + k + 1 if mixed else b + 1
            label = f"{CORE_NAMES[k]} of block {b}" if mixed else f"AIV core {b}"
            events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": label}})
            events.append({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}})
            for pname in AIC_PIPES if mixed and k == 0 else AIV_PIPES:
                tid = PIPE_ORDER[pname]
                events.append(
                    {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": pname}}
                )
                events.append(
                    {
                        "name": "thread_sort_index",
                        "ph": "M",
                        "pid": pid,
                        "tid": tid,
                        "args": {"sort_index": tid},
                    }
                )
        match = match_flags(costs.kind, costs.key, kinds)
        if mixed:
            for w, sets in cross_links(recs, trace.block_starts[b]).items():
                match[w] = sets[0] if sets else -1
        api, loc, key = recs["api"].tolist(), recs["loc"].tolist(), recs["key"].tolist()
        for i, st in enumerate(tl.start):
            pid = pids[kinds[i]]
            if st is None:
                continue
            k = costs.kind[i]
            if k != VF and is_reg(key[i]):
                continue  # a VF body's instruction: the VF's slice stands for it
            pname = PIPE_NAMES[costs.pipe[i]]
            a = trace.apis[api[i]]
            if loc[i] not in names:
                names[loc[i]] = where(trace.locs[loc[i]], trace.root)
            kline, dline = names[loc[i]]
            args = {"kernel": kline}
            if dline:
                args["dsl"] = dline
            label = a
            if k in (SET, WAIT):
                label = f"{a} {flag_name(key[i])}"
                args["flag"] = flag_name(key[i])
            if k == VF:
                body = costs.vf[i]
                label = f"VF {a}"
                args["reg_instructions"] = body.instructions
                args["cycles"] = {b: round(c, 1) for b, c in body.bounds(run.arch).items()}
            rec = recs[i]
            if rec["repeats"] and costs.pipe[i] == 1:
                args["repeats"] = int(rec["repeats"])
            if rec["dtype"] != NONE8:
                args["dtype"] = DTYPE_NAMES[rec["dtype"]]
            if costs.dma_bytes[i]:
                args["bytes"] = int(costs.dma_bytes[i])
                args["memory"] = "HBM" if costs.dma_mem[i] == HBM else "L2"
                if rec["gm"] != NONE16:
                    args["gm"] = trace.regions[rec["gm"]]
            begin = tl.ready[i] if k == WAIT and tl.ready[i] is not None else st
            if k == WAIT:
                args["waited_us"] = (st - begin) * 1e6
            name = f"{label} {kline}" + (f" | {dline}" if dline else "")
            ev = {
                "name": name,
                "ph": "X",
                "pid": pid,
                "tid": PIPE_ORDER[pname],
                "ts": offset + begin * 1e6,
                "dur": (tl.end[i] - begin) * 1e6,
                "cat": "wait" if k == WAIT else pname,
                "args": args,
            }
            events.append(ev)
            m = match[i] if k == WAIT else -1
            if m >= 0 and tl.end[m] is not None:
                flow += 1
                src_pipe = PIPE_ORDER[PIPE_NAMES[costs.pipe[m]]]
                events.append(
                    {
                        "name": "flag",
                        "cat": "flag",
                        "ph": "s",
                        "id": flow,
                        "pid": pids[kinds[m]],
                        "tid": src_pipe,
                        "ts": offset + tl.start[m] * 1e6,
                    }
                )
                events.append(
                    {
                        "name": "flag",
                        "cat": "flag",
                        "ph": "f",
                        "bp": "e",
                        "id": flow,
                        "pid": pid,
                        "tid": PIPE_ORDER[pname],
                        "ts": offset + st * 1e6,
                    }
                )
    meta = {
        "model": "dslc performance model (a model, not a measurement)",
        "sku": run.sku.name,
        "predicted_us": run.predicted_s * 1e6,
    }
    if truncated:
        meta["cores_left_out"] = truncated
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": meta}
