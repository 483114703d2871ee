"""The performance model v2 (DESIGN section 8): a model, not a measurement.

From an emulator run with its instruction trace:

1. the L2 plan: which GM tensors' copies go to L2 and which to HBM (``costs.plan_l2``);
2. per distinct core trace, the discrete-event replay (``replay.py``) with the chip's HBM and L2
   bandwidth shared by the cores that run (each core gets ``bandwidth / block_dim``);
3. predicted = launch overhead + max(slowest core, HBM traffic / HBM bandwidth).

Constants and their sources: ``constants.py``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..sim.trace import CROSS_KEY, NONE32, OP, PIPE_FIX, PIPE_MTE2, PIPE_MTE3, WAIT, SimTrace
from .constants import ARCH_MODELS, ArchModel, Sku, check_l2_state
from .costs import HBM, BlockCosts, L2Plan, block_costs, plan_l2
from .replay import CoreTimeline, replay


@dataclass
class CoreRun:
    blocks: list[int]  # the block indices that share this trace
    records: np.ndarray
    costs: BlockCosts
    timeline: CoreTimeline


@dataclass
class ModelRun:
    sku: Sku
    arch: ArchModel
    l2: L2Plan
    block_dim: int
    launch_s: float
    cores: list[CoreRun]  # one per distinct core trace
    core_finish_s: list[float]  # per block
    hbm_read: int  # bytes that stream from HBM
    hbm_write: int  # bytes written back to HBM during the kernel
    hbm_floor_s: float  # (hbm_read + hbm_write) / HBM bandwidth
    floor_s: float  # the copies alone at full bandwidth: the HBM floor, or the busiest core's copies
    predicted_s: float
    trace: SimTrace

    def core_of(self, block: int) -> CoreRun:
        for c in self.cores:
            if block in c.blocks:
                return c
        raise KeyError(block)


def _signature(recs: np.ndarray) -> bytes:
    """What a core's cost depends on: everything but where in GM its copies land (only whether
    they are 512-byte aligned)."""
    key = recs.copy()
    key["gm_off"] = (key["gm_off"] % 512) != 0
    return hashlib.sha1(key.tobytes()).digest()


def cross_links(recs: np.ndarray, block_start: int) -> dict[int, list[int]]:
    """A mixed kernel's block: each cross-core WaitFlag's index -> the indices of the Sets it
    consumed (the emulator's pairing: trace.py CROSS_KEY)."""
    links = {}
    waits = np.flatnonzero(
        (recs["kind"] == WAIT) & ((recs["key"] & CROSS_KEY) != 0) & (recs["key"] != NONE32)
    )
    for i in waits:
        sets = [int(u) - block_start for u in recs["ub"][i][1:] if u != NONE32]
        links[int(i)] = sets
    return links


def run(
    trace: SimTrace, block_dim: int, sku: Sku, l2_state: str = "warm", arch: ArchModel | None = None
) -> ModelRun:
    check_l2_state(l2_state)
    arch = arch or ARCH_MODELS[2201 if sku.target == "ascend910b" else 3510]
    l2 = plan_l2(trace, sku.l2_bytes, warm=l2_state == "warm", dirty=l2_state == "flushed")
    active = max(1, min(block_dim, trace.blocks))
    # A mixed kernel's block runs an AIC and its AIVs, each with its own share of the bandwidth.
    mixed = bool(len(trace.records) and trace.records["core"].any())
    per_block = len(np.unique(trace.records["core"])) if mixed else 1
    hbm_share = sku.hbm_bw / (active * per_block)
    l2_share = sku.l2_bw / (active * per_block)
    prop_s = arch["flag_propagation_cycles"] / sku.clock_hz
    by_sig: dict[bytes, CoreRun] = {}
    finish = []
    hbm_read = hbm_write = 0
    core_floor = 0.0
    for b in range(trace.blocks):
        recs = trace.block(b)
        sig = _signature(recs)
        core = by_sig.get(sig)
        if core is None:
            costs = block_costs(trace, recs, arch, sku.clock_hz, l2)
            if mixed:
                start = trace.block_starts[b]
                tl = replay(
                    costs, hbm_share, l2_share, prop_s, recs["core"].tolist(), cross_links(recs, start)
                )
            else:
                tl = replay(costs, hbm_share, l2_share, prop_s)
            core = by_sig[sig] = CoreRun([], recs, costs, tl)
        core.blocks.append(b)
        finish.append(core.timeline.finish)
        mem = np.asarray(core.costs.dma_mem)
        nbytes = np.asarray(core.costs.dma_bytes, dtype=np.float64)
        cap = np.asarray(core.costs.dma_cap)
        pipes = recs["pipe"]
        to_hbm = mem == HBM
        writes = (pipes == PIPE_MTE3) | (pipes == PIPE_FIX)
        hbm_read += int(nbytes[to_hbm & (pipes == PIPE_MTE2)].sum())
        hbm_write += int(nbytes[to_hbm & writes].sum())
        # Each core's copies at full speed: each pool's bytes over the core's share of it, each
        # queue's bytes at its per-copy caps.
        moving = nbytes > 0
        for k in np.unique(recs["core"]):
            mine = recs["core"] == k
            core_floor = max(
                core_floor,
                nbytes[mine & to_hbm].sum() / hbm_share,
                nbytes[mine & moving & ~to_hbm].sum() / l2_share,
                *(
                    (nbytes[sel] / cap[sel]).sum()
                    for q in (PIPE_MTE2, PIPE_MTE3, PIPE_FIX)
                    for sel in [mine & moving & (pipes == q)]
                ),
            )
    hbm_floor = (hbm_read + hbm_write) / sku.hbm_bw
    launch = arch["launch_s"] + arch["launch_per_block_s"] * block_dim
    predicted = launch + max(max(finish, default=0.0), hbm_floor)
    return ModelRun(
        sku,
        arch,
        l2,
        block_dim,
        launch,
        list(by_sig.values()),
        finish,
        hbm_read,
        hbm_write,
        hbm_floor,
        max(hbm_floor, core_floor),
        predicted,
        trace,
    )


def gm_bytes(trace: SimTrace) -> tuple[int, int]:
    """(GM->UB, UB->GM) bytes of all copies of the trace."""
    recs = trace.records
    ops = recs[recs["kind"] == OP]
    to_gm = (ops["pipe"] == PIPE_MTE3) | ((ops["pipe"] == PIPE_FIX) & (ops["gm"] != 0xFFFF))
    return int(ops["bytes"][ops["pipe"] == PIPE_MTE2].sum()), int(ops["bytes"][to_gm].sum())
