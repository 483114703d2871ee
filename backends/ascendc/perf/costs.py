"""What each traced instruction costs on its own: vector cycles by op class, dtype and UB bank
conflicts; RegBase vector functions (VF) as one V occupancy each (launch + the body's issue,
execution and UB-port bounds, ``constants.py``); scalar and sync costs; and the parameters of each
copy (bytes, fixed cost, per-core cap, which memory it streams from or to). How copies share
bandwidth is the replay's business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..sim.trace import (
    BARRIER,
    BARRIER_ALL,
    DTYPE_BYTES,
    DTYPE_NAMES,
    L0A,
    L2HINT,
    NONE16,
    NONE32,
    NONE8,
    OP,
    PIPE_FIX,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_S,
    PIPE_V,
    REG_DIST,
    REG_KEY,
    SET,
    SimTrace,
    VF,
    WAIT,
    is_reg,
)
from .constants import (
    CUBE_K_PER_CYCLE,
    MEMBASE_AS_VF,
    REG_CAST_DEFAULT,
    REG_CAST_PARALLELISM,
    REG_DEFAULT_CYCLES,
    REG_PARALLELISM,
    REG_LOAD_DIST,
    REG_SINGLE_ISSUE,
    REG_STORE_DIST,
    VECTOR_CLASS,
    ArchModel,
)

HBM, L2 = 0, 1  # the memory a copy streams from / to (its bandwidth pool)


def vector_class(api: str) -> str:
    return VECTOR_CLASS.get(api, "unknown")


def cycles_per_repeat(arch: ArchModel, api: str, dtype: int, dtype2: int) -> float:
    """Cycles per 256-byte repeat of a vector op (pc §4): by op class and element width; a Cast
    touching bf16 has its own entry."""
    table = arch.vector_classes[vector_class(api)]
    if api == "Cast" and DTYPE_NAMES[2] in (_name(dtype), _name(dtype2)) and "bf16" in table:
        return table["bf16"]
    if _name(dtype) == "i32" and "i32" in table:
        return table["i32"]
    width = str(DTYPE_BYTES[dtype]) if dtype != NONE8 and dtype < len(DTYPE_BYTES) else "2"
    return table.get(width, table.get("4", 1))


def _name(dtype: int) -> str:
    return DTYPE_NAMES[dtype] if dtype != NONE8 and dtype < len(DTYPE_NAMES) else ""


VL_BYTES = 256


def reg_cycles_per_vl(api: str, dtype: int, dtype2: int = NONE8) -> float:
    """Cycles one Reg instruction keeps an execution unit (or, for LoadAlign/StoreAlign, the UB
    port) busy per VL: VL lanes / its elements per cycle (constants.REG_PARALLELISM; a Cast covers
    one VL of its wider type). Mask operations (no element type) and unlisted pairs: defaults."""
    dst = _name(dtype)
    if api == "Cast":
        src = _name(dtype2)
        if not (src and dst):
            return REG_CAST_DEFAULT.value
        wide = max(DTYPE_BYTES[dtype], DTYPE_BYTES[dtype2])
        per_cycle = REG_CAST_PARALLELISM.get((src, dst), REG_CAST_DEFAULT.value)
        return (VL_BYTES / wide) / per_cycle
    per_cycle = REG_PARALLELISM.get(api, {}).get(dst)
    if per_cycle is None:
        return REG_DEFAULT_CYCLES.value
    return (VL_BYTES / DTYPE_BYTES[dtype]) / per_cycle


@dataclass(frozen=True)
class VfBody:
    """What a vector function's body asks of the vector unit (constants.py, "RegBase vector
    functions"): its instructions, the single-issue ones among them, the execution-unit cycles
    they add up to (LoadAlign/StoreAlign excluded: they use the UB ports) and the UB VL reads and
    writes."""

    instructions: int
    single_issue: int
    exec_cycles: float
    ub_reads: int
    ub_writes: int

    def bounds(self, arch: ArchModel) -> dict[str, float]:
        return {
            "issue": max(self.instructions / arch["vf_issue_width"], self.single_issue),
            "exec": self.exec_cycles / arch["vf_exec_units"],
            "UB": self.ub_writes + max(0, self.ub_reads - self.ub_writes) / arch["vf_ub_reads_per_cycle"],
        }

    def cycles(self, arch: ArchModel) -> float:
        return max(self.bounds(arch).values())


def reg_move_cost(api: str, key: int):
    """The constants.MoveCost of a LoadAlign/StoreAlign record (by its distribution code), else None."""
    table = REG_LOAD_DIST if api == "LoadAlign" else REG_STORE_DIST if api == "StoreAlign" else None
    if table is None:
        return None
    return table[REG_DIST[key & ~REG_KEY]]


def vf_body(names: list[str], apis, keys, dtypes, dtype2s) -> VfBody:
    """The VfBody of a VF's Reg API records (their api, key, dtype and dtype2 fields)."""
    single = reads = writes = 0
    exec_cycles = 0.0
    for a, k, d, d2 in zip(apis, keys, dtypes, dtype2s):
        name = names[a]
        move = reg_move_cost(name, k)
        if move is not None:
            single += move.single_issue
            reads += move.ub_reads
            writes += move.ub_writes
            continue
        single += name in REG_SINGLE_ISSUE
        if name != "LocalMemBar":
            exec_cycles += reg_cycles_per_vl(name, d, d2)
    return VfBody(len(apis), single, exec_cycles, reads, writes)


def mmad_cycles(arch: ArchModel, dtype: int, fractals: int) -> float:
    """An Mmad of ``fractals`` 16 x 16 x k0 fractals (k0 = 32 B of the input type): the head, then
    k0 / cube_k cycles each (constants.CUBE_K_PER_CYCLE)."""
    name = _name(dtype)
    k0 = 32 // DTYPE_BYTES[dtype]
    return arch["mmad_head_cycles"] + fractals * k0 / CUBE_K_PER_CYCLE[arch.arch][name]


def mte1_cycles(arch: ArchModel, nbytes: int, dst: int) -> float:
    """A LoadData of ``nbytes`` from L1 into L0A (``dst`` = trace.L0A) or L0B."""
    bw = arch["l0a_bytes_per_cycle"] if dst == L0A else arch["l0b_bytes_per_cycle"]
    return arch["mte1_head_cycles"] + nbytes / bw


def fix_ub_cycles(arch: ArchModel, nbytes: int, dual: bool) -> float:
    """A Fixpipe L0C -> UB writing ``nbytes`` (one destination, or both AIVs' with split M)."""
    return arch["fix_head_cycles"] + nbytes / (arch["fix_ub_bytes_per_cycle"] * (2 if dual else 1))


def membase_vf_cycles_per_vl(arch: ArchModel, api: str, dtype: int) -> float | None:
    """950 MemBase: cycles per VL of the VF the 3510 implementation runs (constants.MEMBASE_AS_VF:
    per VL, a LoadAlign per source, the op and a StoreAlign), or None for other APIs, targets and
    element types without a Reg figure."""
    loads = MEMBASE_AS_VF.get(api)
    if loads is None or "vf_launch_cycles" not in arch.c or _name(dtype) not in REG_PARALLELISM.get(api, {}):
        return None
    load, store = REG_LOAD_DIST["DIST_NORM"], REG_STORE_DIST["DIST_NORM"]
    body = VfBody(
        loads + 2,
        loads * load.single_issue + store.single_issue,
        reg_cycles_per_vl(api, dtype),
        loads * load.ub_reads,
        store.ub_writes,
    )
    return body.cycles(arch)


@lru_cache(maxsize=4096)
def bank_conflict_beats(dst: int, src0: int, src1: int) -> int:
    """Beats per repeat of a contiguous vector op on the A2 UB (asc-devkit 避免bank冲突（NPU架构版本2201）.md,
    pc §2): 48 banks of 4 KB in 16 groups; 32-byte row r of a 64 KB quarter lies in group r % 16 and
    bank 16 * (addr // 64 KB) + group. Each beat reads or writes one row per group and a repeat
    reads 8 rows of each source (the Add README's reasoning for its 256 B shift), so two sources
    whose rows share a group take two beats (read-read), as does a destination in a bank a source
    reads (read-write). (The guide's own table compares only the first rows; we follow the Add
    example, whose fix is measured, C8.) A source read twice at one address, and an in-place op
    (dst == src), are not counted as conflicts [G]."""
    srcs = {a for a in (src0, src1) if a != NONE32}
    reads: dict[int, int] = {}
    src_banks = set()
    for a in srcs:
        for k in range(8):
            row = a // 32 + k
            group = row % 16
            reads[group] = reads.get(group, 0) + 1
            src_banks.add((a + 32 * k) // 65536 * 16 + group)
    beats = max(reads.values(), default=1)
    if dst != NONE32 and dst not in srcs:
        for k in range(8):
            row = dst // 32 + k
            if (dst + 32 * k) // 65536 * 16 + row % 16 in src_banks:
                beats = max(beats, 2)
                break
    return max(beats, 1)


@dataclass
class L2Plan:
    """Where each GM tensor's copies go (pc §3 "L2 and reuse", §7 model rule).

    L2 is write-back. Tensors in the normal cache mode allocate L2 lines when read or written;
    ``SetL2CacheHint(CACHE_MODE_DISABLE)`` makes a tensor's copies bypass it. When everything that
    allocates fits in L2, outputs finish inside L2 (MTE3 at its per-core rate, no HBM traffic
    during the kernel) and, with a warm L2, inputs are L2 hits; otherwise outputs are written
    back to HBM as inputs evict them, and inputs stream from HBM (C6 vs C7)."""

    allocating_bytes: int
    l2_bytes: int
    warm: bool
    bypass: frozenset  # regions some block set CACHE_MODE_DISABLE on
    # L2 full of another kernel's dirty lines (the "flushed" state, constants.L2_STATES): an
    # allocating write evicts as many bytes to HBM as it writes.
    dirty: bool = False

    @property
    def fits(self) -> bool:
        return self.allocating_bytes <= self.l2_bytes

    def memory(self, write: bool, bypass: bool) -> int:
        if bypass:
            return HBM
        if write:
            return L2 if (self.fits and not self.dirty) else HBM
        return L2 if (self.fits and self.warm) else HBM


def plan_l2(trace: SimTrace, l2_bytes: int, warm: bool, dirty: bool = False) -> L2Plan:
    recs = trace.records
    hints = recs[recs["kind"] == L2HINT]
    bypass = frozenset(int(g) for g, mode in zip(hints["gm"], hints["key"]) if mode == 0)
    pipes = recs["pipe"]
    to_gm = (pipes == PIPE_MTE2) | (pipes == PIPE_MTE3) | ((pipes == PIPE_FIX) & (recs["gm"] != NONE16))
    dma = recs[(recs["kind"] == OP) & to_gm]  # a Fixpipe into UB moves no GM bytes
    allocating = 0
    for region in np.unique(dma["gm"]):
        if int(region) in bypass:
            continue
        touched = int(dma["bytes"][dma["gm"] == region].sum())
        allocating += touched
    return L2Plan(allocating, l2_bytes, warm, bypass, dirty and not warm)


@dataclass
class BlockCosts:
    """Per-record costs of one block, as Python lists (the replay indexes them in a tight loop)."""

    pipe: list
    kind: list
    key: list
    fixed: list  # seconds an op occupies its pipe (not copies)
    dma_bytes: list
    dma_mem: list  # HBM / L2 / -1
    dma_cap: list  # per-core B/s cap of this copy
    dma_t0: list  # seconds before data moves
    s_cost: list  # scalar-unit seconds to issue (and, for S ops, run) the record
    # record index of a VF launch -> its VfBody (the body's own records cost nothing)
    vf: dict = field(default_factory=dict)


def block_costs(
    trace: SimTrace, recs: np.ndarray, arch: ArchModel, clock_hz: float, l2: L2Plan
) -> BlockCosts:
    cyc = 1.0 / clock_hz
    scale = clock_hz / arch["ref_clock_hz"]  # per-core copy rates follow the clock [G] pc §7
    n = len(recs)
    pipe = recs["pipe"].tolist()
    kind = recs["kind"].tolist()
    key = recs["key"].tolist()
    api = recs["api"].tolist()
    reps = recs["repeats"].tolist()
    dtype = recs["dtype"].tolist()
    dtype2 = recs["dtype2"].tolist()
    ub = recs["ub"].tolist()
    nbytes = recs["bytes"].tolist()
    gm = recs["gm"].tolist()
    gm_off = recs["gm_off"].tolist()
    names = trace.apis
    head = arch["vector_head_cycles"]
    conflicts = arch["bank_conflict"] > 0
    flag_s = arch["flag_set_cycles"] * cyc
    barrier_s = arch["barrier_cycles"] * cyc
    issue_s = arch["issue_cycles"] * cyc
    fixed = [0.0] * n
    dma_bytes = [0] * n
    dma_mem = [-1] * n
    dma_cap = [0.0] * n
    dma_t0 = [0.0] * n
    s_cost = [issue_s] * n
    per_rep: dict[tuple, float] = {}
    vf: dict[int, VfBody] = {}
    launch = arch.c["vf_launch_cycles"].value if "vf_launch_cycles" in arch.c else 0.0
    bypassing: set[int] = set()  # this block's SetL2CacheHint(DISABLE) tensors so far
    # GM ranges this block has read through L2 (allocating) so far: reading one again finds it in
    # L2 whatever the L2 held before the kernel (a line a core just read is the most recently used:
    # seed 003's baseline re-reads its 4 KiB broadcast row with every row, 40,320 times).
    read_before: set[tuple[int, int, int]] = set()
    for i in range(n):
        k, p = kind[i], pipe[i]
        if k == VF:
            # The body: the records after this one, or those of the earlier VF it repeats.
            at = i - gm_off[i] if gm_off[i] else i
            body = vf.get(at) if at != i else None
            if body is None:
                sl = slice(at + 1, at + 1 + key[i])
                body = vf_body(names, api[sl], key[sl], dtype[sl], dtype2[sl])
            vf[i] = body
            fixed[i] = (launch + body.cycles(arch)) * cyc
            continue
        if p == PIPE_V and k == OP and is_reg(key[i]):
            s_cost[i] = 0.0  # issued by the vector unit inside the VF, priced with its launch
            continue
        if k == L2HINT:
            s_cost[i] = 0.0
            if key[i] == 0:
                bypassing.add(gm[i])
            else:
                bypassing.discard(gm[i])
        elif k in (SET, WAIT):
            fixed[i] = flag_s
        elif k in (BARRIER, BARRIER_ALL):
            fixed[i] = barrier_s
        elif p == PIPE_V:
            name = names[api[i]]
            if name.startswith("TQue::"):
                fixed[i] = flag_s
                continue
            sig = (api[i], dtype[i], dtype2[i])
            c = per_rep.get(sig)
            if c is None:
                as_vf = membase_vf_cycles_per_vl(arch, name, dtype[i])
                c = per_rep[sig] = (
                    as_vf if as_vf is not None else cycles_per_repeat(arch, name, dtype[i], dtype2[i])
                )
            beats = bank_conflict_beats(*ub[i]) if conflicts and c else 1
            calls = arch["adv_api_calls"] if vector_class(name) == "adv_activation" else 1
            fixed[i] = ((head * calls if c else 0) + reps[i] * c * beats) * cyc
        elif p == PIPE_MTE1:
            fixed[i] = mte1_cycles(arch, nbytes[i], key[i]) * cyc
        elif p == PIPE_M:
            fixed[i] = mmad_cycles(arch, dtype[i], reps[i]) * cyc
        elif p == PIPE_FIX and "->UB" in names[api[i]]:
            fixed[i] = fix_ub_cycles(arch, nbytes[i], key[i] == 1) * cyc
        elif p in (PIPE_MTE2, PIPE_MTE3, PIPE_FIX):
            name = names[api[i]]
            if name.startswith("TQue::"):
                fixed[i] = flag_s
                continue
            write = p != PIPE_MTE2
            bypass = gm[i] in bypassing
            mem = l2.memory(write, bypass)
            if not write and not bypass and mem == HBM:
                rng = (gm[i], gm_off[i], nbytes[i])
                if rng in read_before:
                    mem = L2
                read_before.add(rng)
            if write:
                cap = arch["mte3_core_bw"]
            else:
                cap = arch["mte2_l2_core_bw"] if mem == L2 else arch["mte2_core_bw"]
            cap *= scale
            if gm_off[i] % 512:  # GM tensors start 512-byte aligned: the offset decides
                cap *= arch["misaligned_factor"]
            dma_bytes[i] = nbytes[i]
            dma_mem[i] = mem
            dma_cap[i] = cap
            # A write lands in L2 (written back later if it must): no fixed cost [M] pc §3.
            t0 = arch["dma_t0_s"] if (not write or bypass) else 0.0
            dma_t0[i] = t0 + max(reps[i] - 1, 0) * arch["burst_cycles"] * cyc
        elif p == PIPE_S:
            name = names[api[i]]
            if name.startswith("GlobalTensor::"):
                s_cost[i] += arch["scalar_gm_cycles"] * cyc
            elif name.startswith("LocalTensor::"):
                s_cost[i] += arch["scalar_ub_cycles"] * cyc
    return BlockCosts(pipe, kind, key, fixed, dma_bytes, dma_mem, dma_cap, dma_t0, s_cost, vf)
