"""``op.profile`` / ``dslc profile``: the performance model's report (DESIGN section 8).

It is a model, not a measurement: the emulator runs the kernel and records every instruction each
core issues; ``backends/ascendc/perf`` replays those traces as a discrete-event schedule (S, V,
MTE2, MTE3 as in-order queues, SetFlag/WaitFlag and barriers as the edges between them) with
per-instruction costs, per-core and chip-wide bandwidth, the L2 plan and the launch overhead of an
SKU. Constants and their sources: ``backends/ascendc/perf/constants.py`` (from
``shared/reference/perf-constants.md``); calibration against Huawei's published figures:
``tests/perf/test_calibration.py`` and ``benchmarks/perf_report.py``.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


from .perf.constants import check_l2_state, get_sku
from .perf.model import ModelRun, gm_bytes, run
from .project import current_umask

# Below this share of the launch overhead, the HBM time says little about the kernel.
LAUNCH_DOMINATES = 0.1
PIPES = ("S", "V", "MTE2", "MTE3")


@dataclass
class Profile:
    predicted_us: float
    roofline_us: float  # all GM bytes / the SKU's HBM bandwidth
    dma: dict  # copies per pipe
    bytes: dict  # per direction
    ub_peak_bytes: int
    sync_count: int
    tiling_key: int
    block_dim: int
    per_core: list = field(default_factory=list)  # per block: finish and busy time per pipe (us)
    constants: dict = field(default_factory=dict)  # name -> value
    sources: dict = field(default_factory=dict)  # name -> source (perf-constants.md section, tag)
    sku: str = ""
    launch_us: float = 0.0
    floor_us: float = 0.0  # the copies alone at full bandwidth, after the L2 plan (chip or one core)
    hbm_floor_us: float = 0.0  # HBM traffic left by the L2 plan / HBM bandwidth
    l2: dict = field(default_factory=dict)
    _run: ModelRun | None = field(default=None, repr=False, compare=False)

    @property
    def bound_us(self) -> float:
        """The least time the modelled kernel could take: launch overhead plus its copies at full
        bandwidth (HBM after the L2 plan, L2 hits, each core's copy rate)."""
        return self.launch_us + self.floor_us

    @property
    def ratio(self) -> float:
        """predicted / bound: 1.0 is the best possible."""
        return self.predicted_us / self.bound_us if self.bound_us else float("inf")

    @property
    def slowest_core(self) -> dict:
        return max(self.per_core, key=lambda c: c["finish_us"], default={})

    @property
    def busiest_pipe(self) -> str | None:
        """The pipe the slowest core keeps busiest: what limits the kernel when the cores do."""
        slow = self.slowest_core
        return max(PIPES, key=lambda p: slow[p]) if slow else None

    @property
    def limit(self) -> str:
        """What the predicted time is mostly made of: ``launch``, ``HBM`` (the HBM traffic after
        the L2 plan outlasts the cores) or the busiest pipe of the slowest core (``MTE2``...)."""
        core = self.slowest_core.get("finish_us", 0.0)
        if self.launch_us >= max(core, self.hbm_floor_us):
            return "launch"
        if self.hbm_floor_us > core:
            return "HBM"
        return self.busiest_pipe or "launch"

    def verdict(self) -> str:
        """One line: what bounds the kernel, e.g. ``MTE2-bound: MTE2 is busy 93% of the slowest
        core's 41.20 us (block 3)``."""
        slow = self.slowest_core
        core = slow.get("finish_us", 0.0)
        pipe = self.busiest_pipe
        pct = f"{100 * slow[pipe] / core:.0f}%" if pipe and core else ""
        busy = (
            f"; the slowest core (block {slow['core']}) keeps {pipe} busy {pct} of its {core:.2f} us"
            if pct
            else ""
        )
        limit = self.limit
        if limit == "launch":
            share = 100 * self.launch_us / self.predicted_us if self.predicted_us else 100
            return f"launch-bound: the launch overhead is {share:.0f}% of the predicted {self.predicted_us:.2f} us{busy}"
        if limit == "HBM":
            return (
                f"HBM-bound: the HBM traffic after the L2 plan takes {self.hbm_floor_us:.2f} us, longer than "
                f"the slowest core's {core:.2f} us{busy}"
            )
        return (
            f"{limit}-bound: {limit} is busy {pct} of the slowest core's {core:.2f} us (block {slow['core']})"
        )

    def __str__(self) -> str:
        return self.describe()

    def describe(self, verbose: bool = False) -> str:
        """The report ``dslc profile`` prints: the verdict first, then the time against the one
        bound, the launch numbers and the L2 plan; ``verbose`` adds the HBM roofline and every model
        constant with its source."""
        r = self._run
        sku = r.sku if r else None
        slow = self.slowest_core
        core = slow.get("finish_us", 0.0)
        lines = [self.verdict()]
        lines.append(
            f"  predicted {self.predicted_us:.2f} us = launch {self.launch_us:.2f} us + "
            + (
                f"slowest core {core:.2f} us"
                if core >= self.hbm_floor_us
                else f"HBM traffic {self.hbm_floor_us:.2f} us"
            )
            + f"; bound {self.bound_us:.2f} us = launch + copies at full bandwidth after the L2 plan "
            f"{self.floor_us:.2f} us (predicted/bound {self.ratio:.2f})"
        )
        if self.roofline_us < LAUNCH_DOMINATES * self.launch_us:
            lines.append(
                f"  (the {self.launch_us:.2f} us launch overhead is most of the bound: the data moves in "
                f"{self.roofline_us:.2f} us at HBM bandwidth; profile a larger --shape to judge the kernel itself)"
            )
        if slow:
            busy = ", ".join(f"{p} {slow[p]:.2f}" for p in PIPES)
            vfs = (
                f" ({slow['vector_functions']} vector functions with {slow['reg_instructions']} Reg instructions)"
                if slow.get("vector_functions")
                else ""
            )
            lines.append(
                f"  slowest core (block {slow['core']}): busy us {busy}; {slow['vector_ops']} vector ops{vfs}, "
                f"{slow['barriers']} PipeBarriers, flag waits {slow['wait_us']:.2f} us"
            )
        for name, c in slow.get("cores", {}).items():
            busy = ", ".join(f"{p} {t:.2f}" for p, t in c.items() if p != "finish_us")
            lines.append(f"    {name}: finishes at {c['finish_us']:.2f} us; busy us {busy}")
        dma = ", ".join(f"{p} {n}" for p, n in self.dma.items())
        moved = ", ".join(f"{k} {v}" for k, v in self.bytes.items())
        lines.append(
            f"  tiling key {self.tiling_key}, block dim {self.block_dim}, UB peak {self.ub_peak_bytes} B; "
            f"DMA copies {dma or 'none'}; bytes {moved or 'none'}; flags set+wait {self.sync_count}"
        )
        if self.l2:
            lines.append(f"  L2: {self.l2['summary']}")
        model = "a MODEL: a discrete-event replay of the emulator's instruction trace, not a measurement"
        if sku:
            model += (
                f"; SKU {sku.name} ({sku.target}): {sku.aiv_cores} AIV @ {sku.clock_hz / 1e9:.2f} GHz, HBM "
                f"{sku.hbm_bw / 1e12:.2f} TB/s, L2 {sku.l2_bytes >> 20} MiB"
            )
        lines.append(f"  {model}" + ("" if verbose else " (--verbose: its constants)"))
        if verbose:
            lines.append(f"  HBM roofline {self.roofline_us:.2f} us (all GM bytes at HBM bandwidth)")
            lines.append(
                "  model constants (backends/ascendc/perf/constants.py; pc = shared/reference/perf-constants.md):"
            )
            for name, value in self.constants.items():
                lines.append(f"    {name} = {value:g}: {self.sources.get(name, '')}")
        return "\n".join(lines)

    def timeline(self, max_events: int | None = None) -> dict:
        """The Chrome/Perfetto trace as a dict (see ``save_trace``)."""
        from .perf.timeline import DEFAULT_MAX_EVENTS, chrome_trace

        if self._run is None:
            return {"traceEvents": [], "displayTimeUnit": "ns"}
        return chrome_trace(self._run, max_events or DEFAULT_MAX_EVENTS)

    def save_trace(self, path, max_events: int | None = None) -> Path:
        """Chrome/Perfetto trace JSON of the modelled timeline: one process per core, one track per
        pipe (S, V, MTE2, MTE3), each instruction and copy a slice named by its kernel line and
        DSL line; WaitFlag slices run from when the pipe reached them to when the flag arrived."""
        path = Path(path)
        text = json.dumps(self.timeline(max_events), separators=(",", ":"))
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:  # written whole, then renamed: never a partial trace under the final name
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.chmod(tmp, 0o666 & ~current_umask())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path


def _core_summaries(r: ModelRun) -> list[dict]:
    """Per block: when its core finishes, its pipes' busy time, vector ops, PipeBarriers and the
    time its pipes spent waiting for flags (one count per distinct core trace)."""
    from .sim.trace import BARRIER, CORE_NAMES, OP, PIPE_V, WAIT, is_reg

    per_trace = []
    for core in r.cores:
        tl, c = core.timeline, core.costs
        membase = sum(
            1 for p, k, key in zip(c.pipe, c.kind, c.key) if p == PIPE_V and k == OP and not is_reg(key)
        )
        reg = sum(body.instructions for body in c.vf.values())
        bars = sum(1 for p, k in zip(c.pipe, c.kind) if p == PIPE_V and k == BARRIER)
        waited = sum(
            tl.start[i] - tl.ready[i] for i, k in enumerate(c.kind) if k == WAIT and tl.ready[i] is not None
        )
        stats = {
            "vector_ops": membase + reg,
            "vector_functions": len(c.vf),
            "reg_instructions": reg,
            "barriers": bars,
            "wait_us": waited * 1e6,
        }
        stats.update({p: tl.busy[p] * 1e6 for p in PIPES})
        if tl.per_core:  # a mixed kernel: each of the block's cores, its pipes and finish
            stats["cores"] = {
                CORE_NAMES[k]: {
                    "finish_us": info["finish"] * 1e6,
                    **{p: t * 1e6 for p, t in info["busy"].items()},
                }
                for k, info in tl.per_core.items()
            }
        per_trace.append((core.blocks, stats))
    out = [None] * len(r.core_finish_s)
    for blocks, stats in per_trace:
        for b in blocks:
            out[b] = {"core": b, "finish_us": r.core_finish_s[b] * 1e6, **stats}
    return out


def _l2_summary(r: ModelRun) -> dict:
    plan = r.l2
    mib = plan.allocating_bytes / (1 << 20)
    bypass = ", ".join(r.trace.regions[g] for g in sorted(plan.bypass) if g < len(r.trace.regions))
    if plan.fits:
        text = f"{mib:.1f} MiB allocate L2 lines, within {plan.l2_bytes >> 20} MiB: outputs stay in L2" + (
            ", inputs hit (warm L2, as in repeated runs)" if plan.warm else ", inputs come from HBM (cold L2)"
        )
        if plan.dirty:
            text = (
                f"{mib:.1f} MiB allocate L2 lines, within {plan.l2_bytes >> 20} MiB, but the L2 holds a previous "
                "kernel's dirty lines (flushed): inputs come from HBM and each line written evicts one to HBM"
            )
    else:
        text = (
            f"{mib:.1f} MiB allocate L2 lines, more than {plan.l2_bytes >> 20} MiB: inputs stream from HBM and "
            "outputs are written back to HBM during the kernel"
        )
    if bypass:
        text += f"; SetL2CacheHint(CACHE_MODE_DISABLE): {bypass}"
    return {
        "summary": text,
        "allocating_bytes": plan.allocating_bytes,
        "fits": plan.fits,
        "warm": plan.warm,
        "hbm_read": r.hbm_read,
        "hbm_write": r.hbm_write,
    }


def report(result, target: str, sku: str | None = None, l2: str = "warm") -> Profile:
    """The model's report on an emulator run made with ``trace=True``."""
    if result.trace is None:
        raise ValueError("the emulator run has no instruction trace (simulate_project(..., trace=True))")
    the_sku = get_sku(sku, target)
    r = run(result.trace, result.block_dim, the_sku, l2)
    cnt = result.counters
    gm_in, gm_out = gm_bytes(result.trace)
    per_core = _core_summaries(r)
    return Profile(
        predicted_us=r.predicted_s * 1e6,
        roofline_us=(gm_in + gm_out) / the_sku.hbm_bw * 1e6,
        dma={p: cnt[p]["dma"] for p in ("MTE2", "MTE3")},
        bytes={"gm_to_ub": gm_in, "ub_to_gm": gm_out},
        ub_peak_bytes=cnt.get("ub_peak_bytes", 0),
        sync_count=sum(cnt[p]["set_flags"] + cnt[p]["wait_flags"] for p in PIPES),
        tiling_key=result.tiling_key,
        block_dim=result.block_dim,
        per_core=per_core,
        constants={k: v.value for k, v in r.arch.c.items()},
        sources={k: v.source for k, v in r.arch.c.items()},
        sku=the_sku.name,
        launch_us=r.launch_s * 1e6,
        floor_us=r.floor_s * 1e6,
        hbm_floor_us=r.hbm_floor_s * 1e6,
        l2=_l2_summary(r),
        _run=r,
    )


def _check(target: str, sku: str | None, l2: str):
    """The SKU, after checking the arguments before anything is simulated."""
    from .targets import get_target

    get_target(target)
    check_l2_state(l2)
    return get_sku(sku, target)


def profile(
    op,
    arrays,
    attrs,
    target: str = "ascend910b",
    cores=None,
    sku: str | None = None,
    l2: str = "warm",
    project=None,
    vector_path: str = "auto",
    cann: str | None = None,
    dtype=None,
    cube_math: bool = True,
):
    """``op.profile``: simulate the generated kernel (or the sources of ``project``) with its
    instruction trace, then model it. ``cores`` is the core count the platform reports (default:
    the SKU's). ``cube_math=False``: the emulator's Mmad writes 0 instead of computing (the same
    instructions, so the same model; for a matmul too large to compute in the emulator)."""
    from .simulate import simulate

    the_sku = _check(target, sku, l2)
    cores = cores or the_sku.aiv_cores
    _, result = simulate(
        op,
        arrays,
        attrs,
        target=target,
        cores=cores,
        project=project,
        trace=True,
        vector_path=vector_path,
        cann=cann,
        dtype=dtype,
        cube_math=cube_math,
    )
    return report(result, target, the_sku.name, l2)


def profile_project(
    project_dir,
    op_name: str,
    *,
    inputs,
    outputs,
    attrs=(),
    target: str = "ascend910b",
    sku: str | None = None,
    cores: int | None = None,
    l2: str = "warm",
    race_detection: bool = True,
    ub_capacity: int | None = None,
) -> Profile:
    """Profile a (hand-written or edited) operator project as ``simulate_project`` runs it:
    ``inputs``/``outputs``/``attrs`` follow its OpDef order."""
    from .sim import simulate_project
    from .targets import get_target

    the_sku = _check(target, sku, l2)
    result = simulate_project(
        Path(project_dir),
        op_name,
        inputs=list(inputs),
        outputs=list(outputs),
        attrs=list(attrs),
        target=get_target(target),
        cores=cores or the_sku.aiv_cores,
        race_detection=race_detection,
        ub_capacity=ub_capacity,
        trace=True,
    )
    return report(result, target, the_sku.name, l2)
