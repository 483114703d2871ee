"""A performance model of a generated kernel (DESIGN section 8): a model, not a measurement.

Per core, from the emulator's per-pipe counters:

* DMA time  = copies x t0 + (GM->UB bytes + UB->GM bytes) / per-core bandwidth
  (MTE2 and MTE3 share GM bandwidth; t0 and the bandwidth are fits to Huawei's Add tuning data);
* vector time = instructions x issue overhead + repeats x 1 cycle (the 1-cycle ops' rate;
  Exp/Ln/Sqrt/Div take 2 cycles per f32 repeat, so vector-heavy kernels are underestimated);
* with double buffering the pipes overlap: core time = max(DMA, vector) + one tile of the other
  (pipeline fill);
* predicted = launch overhead + the slowest core; roofline = all GM bytes / achieved HBM bandwidth.

Constants and sources: shared/reference/perf-constants.md sections 1-5 (A2 = 910B2-class part).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from dsl.ir import TensorType

from .project import current_umask

MODEL_CONSTANTS = {
    "ascend910b": {
        "clock_hz": 1.8e9,  # 910B2 (Ascend910B2.ini)
        "dma_fixed_s": 61e-9,  # per DataCopy under full-chip load (fit to [S-Add])
        "core_bw_single": 45e9,  # one AIV alone, B/s (Add case 1)
        "hbm_bw": 1.55e12,  # achieved streaming bandwidth, all cores (section 0)
        "vector_issue_cycles": 22,  # per vector instruction (Add case 6 fit)
        "vector_cycles_per_repeat": 1,  # Add/Mul/Adds/Muls/Cast... (Vector指令理论性能汇总)
        "launch_s": 3e-6,  # kernel start, measured 2.5-9.5 us on 48-core Add runs
    }
}


# Below this share of the launch overhead, the HBM time says little about the kernel.
LAUNCH_DOMINATES = 0.1


@dataclass
class Profile:
    predicted_us: float
    roofline_us: float
    dma: dict  # copies per pipe
    bytes: dict  # per direction
    ub_peak_bytes: int
    sync_count: int
    tiling_key: int
    block_dim: int
    per_core: list = field(default_factory=list)  # [{"MTE": us, "V": us, "total": us}]
    constants: dict = field(default_factory=dict)

    @property
    def launch_us(self) -> float:
        return self.constants.get("launch_s", 0.0) * 1e6

    @property
    def bound_us(self) -> float:
        """The least time any kernel could take: the launch overhead plus the HBM roofline."""
        return self.launch_us + self.roofline_us

    @property
    def ratio(self) -> float:
        """predicted / (launch + roofline): 1.0 is the best possible. (Against the roofline alone
        the ratio is meaningless for small inputs, where the fixed launch cost dominates.)"""
        return self.predicted_us / self.bound_us if self.bound_us else float("inf")

    def __str__(self) -> str:
        note = (
            f"\n  (the {self.launch_us:.2f} us launch overhead is most of the bound: the data moves in "
            f"{self.roofline_us:.2f} us at HBM bandwidth; profile a larger --shape to judge the kernel itself)"
            if self.roofline_us < LAUNCH_DOMINATES * self.launch_us
            else ""
        )
        lines = [
            "dslc performance MODEL (pipe costs from emulator counters; not a measurement)",
            f"  tiling key {self.tiling_key}, block dim {self.block_dim}, UB peak {self.ub_peak_bytes} B",
            f"  predicted {self.predicted_us:.2f} us, HBM roofline {self.roofline_us:.2f} us + launch "
            f"{self.launch_us:.2f} us = bound {self.bound_us:.2f} us (predicted/bound {self.ratio:.2f}){note}",
            f"  DMA copies {self.dma}, bytes {self.bytes}, flags set+wait {self.sync_count}",
            "  constants: " + ", ".join(f"{k}={v:g}" for k, v in self.constants.items()),
        ]
        return "\n".join(lines)

    def save_trace(self, path) -> Path:
        """Chrome/Perfetto trace JSON: one process per core, one track per pipe (modelled busy time)."""
        events = []
        for core, t in enumerate(self.per_core):
            events.append(
                {"name": "process_name", "ph": "M", "pid": core, "args": {"name": f"AIV core {core}"}}
            )
            for tid, pipe in enumerate(("MTE", "V")):
                events.append(
                    {"name": "thread_name", "ph": "M", "pid": core, "tid": tid, "args": {"name": pipe}}
                )
                events.append(
                    {
                        "name": f"{pipe} busy (model)",
                        "ph": "X",
                        "pid": core,
                        "tid": tid,
                        "ts": 0.0,
                        "dur": t[pipe],
                        "args": {"model": True},
                    }
                )
        path = Path(path)
        text = json.dumps({"traceEvents": events, "displayTimeUnit": "ns"}, indent=1)
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


def model(result, loads_per_tile: int, target: str = "ascend910b") -> Profile:
    c = MODEL_CONSTANTS.get(target)
    if c is None:
        raise ValueError(f"no performance constants for target '{target}'")
    blocks = result.counters.get("per_block") or [result.counters]
    active = max(result.block_dim, 1)
    bw = min(c["core_bw_single"], c["hbm_bw"] / active)
    per_core = []
    for b in blocks:
        mte2, mte3, v = b["MTE2"], b["MTE3"], b["V"]
        copies = mte2["dma"] + mte3["dma"]
        moved = mte2["bytes_in"] + mte3["bytes_out"]
        dma_s = copies * c["dma_fixed_s"] + moved / bw
        vec_s = (
            v["instructions"] * c["vector_issue_cycles"] + v["repeats"] * c["vector_cycles_per_repeat"]
        ) / c["clock_hz"]
        tiles = max(1, mte2["dma"] // max(loads_per_tile, 1))
        total = max(dma_s, vec_s) + min(dma_s, vec_s) / tiles
        per_core.append({"MTE": dma_s * 1e6, "V": vec_s * 1e6, "total": total * 1e6})
    cnt = result.counters
    gm_in = sum(cnt[p]["bytes_in"] for p in ("MTE2", "MTE3", "V", "S"))
    gm_out = sum(cnt[p]["bytes_out"] for p in ("MTE2", "MTE3", "V", "S"))
    slowest = max((t["total"] for t in per_core), default=0.0)
    return Profile(
        predicted_us=c["launch_s"] * 1e6 + slowest,
        roofline_us=(gm_in + gm_out) / c["hbm_bw"] * 1e6,
        dma={p: cnt[p]["dma"] for p in ("MTE2", "MTE3")},
        bytes={"gm_to_ub": gm_in, "ub_to_gm": gm_out},
        ub_peak_bytes=cnt.get("ub_peak_bytes", 0),
        sync_count=sum(cnt[p]["set_flags"] + cnt[p]["wait_flags"] for p in ("S", "V", "MTE2", "MTE3")),
        tiling_key=result.tiling_key,
        block_dim=result.block_dim,
        per_core=per_core,
        constants=dict(c),
    )


def profile(op, arrays, attrs, target: str = "ascend910b", cores=None) -> Profile:
    from .simulate import simulate

    T, _, values = op.bind(arrays, attrs)
    _, result = simulate(op, arrays, attrs, target=target, cores=cores)
    variant = op.variant(T, values)
    used = {id(v) for o in variant.walk() for v in o.operands}
    loads = sum(1 for p in variant.params if isinstance(p.value.type, TensorType) and id(p.value) in used)
    return model(result, loads, target)
