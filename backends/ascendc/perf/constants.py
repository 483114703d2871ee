"""Every constant of the performance model, in one place, each with its source.

Sources are sections of ``shared/reference/perf-constants.md`` ("pc §N"), with the confidence
tag given there: [H] a Huawei config file or table, [M] worked out from Huawei's measurements,
[L] third party, [G] a guess with nothing published behind it. "fit" marks a value this model
chose within the documented range so that the calibration points (pc §6) come out right; the
calibration tests (tests/perf/test_calibration.py) compare the model with those points.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dsl.errors import ArgumentError

MiB = 1 << 20
GiB = 1 << 30


@dataclass(frozen=True)
class Sku:
    """One chip: what the platform reports and what bounds its memory traffic."""

    name: str
    target: str  # the dslc target whose kernels run on it
    aiv_cores: int
    aic_cores: int
    clock_hz: float
    hbm_bw: float  # achieved streaming HBM bandwidth, reads + writes, whole chip (B/s)
    l2_bytes: int
    l2_bw: float  # L2-hit bandwidth, whole chip (B/s)
    sources: str


# pc §1 (per-SKU table: hicann/runtime platform ini files for cores, clock, L2) and pc §7 (bandwidths).
# fmt: off
_B1_L2_BW = 7.0e12  # L2 mixed read/write ~7 TB/s [H] pc §1 notes (asc-devkit L2-Cache切分.md)
SKUS: dict[str, Sku] = {s.name: s for s in (
    #   name         target        AIV AIC clock   HBM R+W   L2 size     L2 BW
    Sku("910B1",     "ascend910b", 48, 24, 1.85e9, 1.55e12, 192 * MiB, _B1_L2_BW,
        "cores/clock/L2 [H] Ascend910B1.ini; HBM 1.55 TB/s achieved [M] pc §0, §6 C6-C7; L2 BW [H]"),
    Sku("910B2",     "ascend910b", 48, 24, 1.80e9, 1.55e12, 192 * MiB, _B1_L2_BW,
        "cores/clock/L2 [H] Ascend910B2.ini; HBM as B1 [G] pc §1; L2 BW as B1 [H]"),
    Sku("910B2C",    "ascend910b", 48, 24, 1.80e9, 1.55e12, 192 * MiB, _B1_L2_BW,
        "cores/clock/L2 [H] Ascend910B2C.ini; HBM as B2 [G] pc §1; L2 BW as B1 [H]"),
    Sku("910B3",     "ascend910b", 40, 20, 1.80e9, 1.50e12, 192 * MiB, _B1_L2_BW,
        "cores/clock/L2 [H] Ascend910B3.ini; HBM ~1.5 TB/s [G] pc §1, §7; L2 BW as B1 [H]"),
    Sku("910B4",     "ascend910b", 40, 20, 1.50e9, 0.63e12, 96 * MiB, _B1_L2_BW * 1.5 / 1.85,
        "cores/clock/L2 [H] Ascend910B4.ini; HBM 0.62-0.67 TB/s achieved [M] pc §1 (C1, C13, C15); "
        "L2 BW: B1's x clock ratio [G]"),
    Sku("910B4-1",   "ascend910b", 40, 20, 1.50e9, 0.63e12, 168 * MiB, _B1_L2_BW * 1.5 / 1.85,
        "cores/clock/L2 [H] Ascend910B4-1.ini; HBM and L2 BW as B4 [G]"),
    Sku("950PR",     "ascend950",  64, 32, 1.65e9, 1.63e12, 128 * MiB, 5.0e12,
        "9589: cores/clock/L2 [H] Ascend950PR ini; HBM R+W 1.63 TB/s [M] pc §6 C9 case 4 (402.7 MB in 247.7 us; "
        "C10 gives 1.53-1.56); L2 peak 5 TB/s [H] pc §1 notes (matmul README)"),
    Sku("950PR-9579", "ascend950", 56, 28, 1.65e9, 1.63e12, 128 * MiB, 5.0e12,
        "cores/clock/L2 [H] Ascend950PR_9579 ini; HBM and L2 BW as 9589 [G]"),
    Sku("950PR-9599", "ascend950", 72, 36, 1.80e9, 1.63e12, 128 * MiB, 5.0e12,
        "cores/clock/L2 [H] Ascend950PR_9599 ini; HBM and L2 BW as 9589 [G]"),
    Sku("950DT",     "ascend950",  64, 32, 1.65e9, 3.8e12, 128 * MiB, 5.0e12,
        "9581: cores/clock/L2 [H] Ascend950DT ini; HBM ~4 TB/s nominal [L], 3.8 TB/s effective [G] pc §7"),
)}
# fmt: on

# The SKU a target is profiled on unless told otherwise: the parts Huawei's published A2 and 950
# measurements were taken on (pc §6: C3-C8 on a 1.85 GHz 48-AIV part = 910B1; C9-C12 on 950PR).
DEFAULT_SKU = {"ascend910b": "910B1", "ascend950": "950PR"}


def get_sku(name: str | None, target: str) -> Sku:
    if name is None:
        return SKUS[DEFAULT_SKU[target]]
    sku = (SKUS.get(name) or SKUS.get(name.upper())) if isinstance(name, str) else None
    if sku is None:
        known = ", ".join(SKUS)
        raise ArgumentError(f"unknown SKU '{name}' (known: {known})")
    if sku.target != target:
        raise ArgumentError(f"SKU {sku.name} runs {sku.target} kernels, not {target}")
    return sku


@dataclass(frozen=True)
class Constant:
    value: float
    unit: str
    source: str


@dataclass(frozen=True)
class ArchModel:
    """Per-core costs of one architecture (A2 = arch 2201, 950 = arch 3510)."""

    arch: int
    c: dict[str, Constant] = field(default_factory=dict)
    # Cycles per 256-byte vector repeat by op class and element width, and the APIs of each class.
    vector_classes: dict[str, dict[str, float]] = field(default_factory=dict)

    def __getitem__(self, key: str) -> float:
        return self.c[key].value

    def with_values(self, **values: float) -> "ArchModel":
        """A copy with some constants changed (sensitivity studies, tests)."""
        c = dict(self.c)
        for k, v in values.items():
            c[k] = replace(c[k], value=v, source=c[k].source + " (overridden)")
        return replace(self, c=c)


# Which vector op class an API belongs to (pc §4, Vector指令理论性能汇总.md).
VECTOR_CLASS = {
    **{
        api: "simple"
        for api in (
            "Add Sub Mul Max Min Adds Muls Maxs Mins Abs Relu Reciprocal Rsqrt LeakyRelu Axpy Neg Not And Or "
            "Compare Compares Select Duplicate Copy DataCopy(UB->UB) FusedMulAdd AddRelu"
        ).split()
    },
    # ShiftLeft: not in the A2 table; the Reg table (Reg矢量计算接口理论性能汇总.md) gives it Max's
    # elements per cycle for every width [G]
    "ShiftLeft": "simple",
    **{api: "transcendental" for api in ("Exp", "Ln", "Sqrt", "Div")},
    "Cast": "cast",
    "Brcb": "brcb",
    **{api: "reduce" for api in ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceRepeat")},
    **{api: "whole_reduce" for api in ("WholeReduceSum", "WholeReduceMax", "WholeReduceMin")},
    **{
        api: "block_reduce"
        for api in ("BlockReduceSum", "BlockReduceMax", "BlockReduceMin", "ReduceDataBlock")
    },
    **{api: "adv_activation" for api in ("Tanh", "Sigmoid")},
    **{api: "free" for api in ("Tanh(tmp)", "Sigmoid(tmp)")},  # the emulator's note of a scratch buffer
}

A2 = ArchModel(
    arch=2201,
    c={
        "vector_head_cycles": Constant(
            22, "cycles per vector instruction", "[M] pc §4: Add case 6 fit, 22 cycles + 1.0 cycle/repeat"
        ),
        "bank_conflict": Constant(
            1,
            "on/off",
            "[H] pc §2 UB banks (16 groups of 3 banks, one 32 B row per group "
            "per beat) and asc-devkit 避免bank冲突（NPU架构版本2201）.md; x2 measured [M] pc §4/C8",
        ),
        "dma_t0_s": Constant(61e-9, "s per DataCopy", "[M] pc §3: fit to Add cases 2-3 (A2, 48 AIV)"),
        "mte2_core_bw": Constant(
            64e9,
            "B/s per core",
            "fit [M] pc §6 C3: one AIV's MTE2 busy time, 6208.8 us "
            "for 32768 copies of 8 KiB = 189.5 ns each = t0 + 8 KiB / 64 GB/s (pc §7: 60 [G])",
        ),
        "mte2_l2_core_bw": Constant(
            125e9,
            "B/s per core",
            "[M] pc §3/C20: MTE2 reading L2 hits, 2.49 TB/s "
            "over 20 cores (measured on AIC cores; assumed for AIV [G])",
        ),
        "mte3_core_bw": Constant(
            50e9, "B/s per core", "[M] pc §3/§7: MTE3 into L2 48-51 GB/s per AIV, t0 ~ 0"
        ),
        "misaligned_factor": Constant(
            0.7,
            "x per-core bandwidth",
            "[H] pc §3 GM地址尽量512B对齐.md: a GM address "
            "not 512 B aligned can fall to 70% of single-core bandwidth (worst case)",
        ),
        "burst_cycles": Constant(8, "cycles per extra burst of a multi-burst copy", "[G]"),
        "adv_api_calls": Constant(
            4,
            "vector instructions per advanced-API Tanh/Sigmoid call",
            "[G] pc §4: " "sequences (an Exp, Adds, Div, ...); each pays the head",
        ),
        "flag_set_cycles": Constant(2, "cycles", "[G] pc §5/§7: SetFlag/WaitFlag issue"),
        "flag_propagation_cycles": Constant(15, "cycles", "[G] pc §5/§7: set -> wait visibility"),
        "barrier_cycles": Constant(2, "cycles", "[G] pc §5 (PipeBarrier issue; the wait itself is modelled)"),
        "issue_cycles": Constant(
            4,
            "scalar cycles per API call",
            "[M] C4's aiv_scalar_time: 8.2 us for ~4100 " "API calls per core (pc §6) ~ 3.7 cycles each",
        ),
        "scalar_ub_cycles": Constant(
            11,
            "cycles per LocalTensor Get/SetValue",
            "[M] pc §5/C2: 34 cycles per " "element of 2 GetValue + add + SetValue",
        ),
        "scalar_gm_cycles": Constant(
            300,
            "cycles per GlobalTensor Get/SetValue",
            "[G] a scalar-cache miss to GM "
            "(pypto's simulator: 1400 cycles per GM read at 2 GHz [L] pc §3)",
        ),
        "launch_s": Constant(
            2.0e-6,
            "s per kernel",
            "[G] pc §5: the smallest whole kernels measured take 2.8 us (C13, 910B4) to 5.8 us (910B3); "
            "C3's Task Duration - aiv_time is 0.46 us, the rest is the core's start, which the trace does "
            "not show (pc §7 guesses 3 us + 0.1 us/block)",
        ),
        "launch_per_block_s": Constant(
            0.044e-6,
            "s per block",
            "fit [G] to C18 (48 blocks: 4.1 us in all with launch_s; C4-C8 measured Task - aiv_time "
            "2.5-9.5 us with 48 blocks, pc §5)",
        ),
        "ref_clock_hz": Constant(
            1.85e9,
            "Hz",
            "[M] the clock the per-core rates above were measured at (pc §6 C3-C8, "
            "910B1); on other SKUs they scale with the clock [G] pc §7",
        ),
    },
    vector_classes={
        # cycles per 256 B repeat: [H] pc §4 A2 table (fp16 column for 2-byte types, fp32 for 4-byte)
        "simple": {"2": 1, "4": 1, "1": 1},
        "transcendental": {"2": 4, "4": 2},  # Exp, Ln, Sqrt, Div: 32 elements per cycle [H]
        "cast": {
            "2": 1,
            "4": 1,
            "bf16": 1.5,
        },  # 1 per 64 elements [H]; bf16 casts are sequences [G] pc §4, fit C18
        "brcb": {"2": 1, "4": 1},  # 8 input elements per cycle = one repeat [H]
        "reduce": {"2": 7, "4": 7},  # ReduceRepeat 7 cycles per repeat [H]; ReduceSum etc. build on it
        "whole_reduce": {"2": 7, "4": 7},  # [H] ReduceRepeat
        "block_reduce": {"2": 7, "4": 1},  # [H] pc §4 A2 table: ReduceDataBlock (BlockReduce*) 7 fp16, 1 fp32
        "adv_activation": {"2": 12, "4": 8},  # Tanh/Sigmoid: an Exp + Adds + Div sequence [G]
        "free": {"2": 0, "4": 0, "1": 0},
        "unknown": {"2": 1, "4": 1, "1": 1},  # [G]
    },
)

A5 = ArchModel(
    arch=3510,
    c={
        **A2.c,
        "vector_head_cycles": Constant(
            35, "cycles per MemBase call", "[M] pc §4: 950 MemBase Add = 35 + 2 per VL"
        ),
        "bank_conflict": Constant(0, "on/off", "[H] pc §2: 950 UB conflicts are mostly a non-issue"),
        "dma_t0_s": Constant(101e-9, "s per DataCopy", "[M] pc §3: fit to 950 Add cases 2-3 (64 AIV)"),
        "mte2_core_bw": Constant(
            62e9,
            "B/s per core",
            "fit [M] pc §6 C9 case 1: one AIV reads at 0.035 TB/s "
            "with 8 KiB copies = 234 ns each = t0 + 8 KiB / 62 GB/s (pc §7: 40 [G])",
        ),
        "mte3_core_bw": Constant(40e9, "B/s per core", "[G] pc §7"),
        "misaligned_factor": Constant(1.0, "x", "none documented on 950 pc §7"),
        "mte2_l2_core_bw": Constant(80e9, "B/s per core", "[G] 950: 2x the HBM per-core cap, as on A2"),
        "ref_clock_hz": Constant(1.65e9, "Hz", "[M] pc §6 C9: the 950 Add measurements' clock"),
    },
    vector_classes={
        # MemBase on 950: 2 cycles per VL for simple ops (UB ports: 2 loads + 1 store) [M] pc §4
        "simple": {"2": 2, "4": 2, "1": 2, "i32": 2},
        "transcendental": {"2": 8, "4": 4},  # 16 elements per cycle [H] pc §4 Reg table
        "cast": {"2": 2, "4": 2, "bf16": 2},  # 32-64 elements per cycle [H]
        "brcb": {"2": 2, "4": 2},
        "reduce": {"2": 4, "4": 4},  # [G]
        "whole_reduce": {"2": 4, "4": 4},  # [G]
        "block_reduce": {"2": 2, "4": 2},  # [G] a MemBase call through a VF, as "simple"
        "adv_activation": {"2": 16, "4": 8},  # [G]
        "free": {"2": 0, "4": 0, "1": 0},
        "unknown": {"2": 2, "4": 2, "1": 2},
    },
)

# RegBase vector functions (VF) on 950 (arch 3510). A VF is priced as one V-pipe occupancy: the
# launch plus its body's cycles, the largest of three throughput bounds over the whole body (the
# hardware loops let iterations overlap; dependency latency is not modelled):
#   issue:  max(instructions / vf_issue_width, single-issue instructions)
#   exec:   sum of each instruction's cycles per VL (VL lanes / REG_PARALLELISM) / vf_exec_units
#   UB:     writes + max(0, reads - writes) / 2 (per cycle: read 2 VL, or read 1 VL and write 1 VL)
# A 950 MemBase call is a VF too (asc-devkit impl/basic_api/dav_3510/
# kernel_operator_vec_binary_continuous_impl.h: a uint16_t loop of LoadAlign, op, StoreAlign per VL;
# the softmax_high_performance README: "requiring a Vector Function launch per operation"), priced
# with the same bounds for the APIs in MEMBASE_AS_VF.
A5 = replace(
    A5,
    c={
        **A5.c,
        "vf_launch_cycles": Constant(
            35,
            "cycles per VF launch",
            "[M] pc §4: a 950 MemBase call (one VF) costs 35 cycles + its VLs (Add 8192^2 fit, C9); "
            "softmax_high_performance case 0 gives ~49 per short call (pc §4)",
        ),
        "vf_issue_width": Constant(
            2,
            "instructions per cycle",
            "[H] asc-devkit docs/zh/api/附录/Reg矢量计算接口指令单双发汇总.md (dual issue); single-issue "
            "ones (REG_SINGLE_ISSUE) at most one per cycle: fit [M] to the 2 cycles per VL of a MemBase "
            "binary op (pc §4) — the strict reading (a single-issue cycle issues nothing else) gives 2.5",
        ),
        "vf_exec_units": Constant(
            2,
            "vector execution units",
            "[H] pc §4: AscendNPU-IR VFFusion CostModelInfo.h (2 execution units); C11: GELU's 14 cycles "
            "per VL of single-instruction time run in 6.7 measured (gelu_high_performance README)",
        ),
        "vf_ub_reads_per_cycle": Constant(
            2,
            "VL reads per cycle (or 1 read + 1 write)",
            "[H] Reg矢量计算接口指令单双发汇总.md: per cycle the UB reads 2 VL, or reads 1 VL and writes 1 VL; "
            "the 950 bank rule (examples/.../04_memory_access/bank_conflict_3510/README: 8 bank groups of "
            "2 banks, 2 reads or 1 read + 1 write per group) makes a 2-read-1-write loop conflict always, "
            "which the MemBase fit above contains; other conflicts need strided or gather loads, not modelled",
        ),
    },
)

# Elements per cycle of one Reg instruction, by API and element type (the destination's; a Cast's
# (source, destination)) [H]: asc-devkit docs/zh/api/附录/Reg矢量计算接口理论性能汇总.md tables 6, 9-12.
# Cycles per VL = (256 / element bytes) / elements per cycle; a Cast covers one VL of its wider type.
_ADD = {"i8": 128, "u8": 128, "i16": 64, "u16": 64, "f16": 128, "bf16": 128, "i32": 32, "u32": 32, "f32": 64}
_MAX = {
    "i8": 256,
    "u8": 256,
    "i16": 128,
    "u16": 128,
    "f16": 128,
    "bf16": 128,
    "i32": 64,
    "u32": 64,
    "f32": 64,
}
_MUL = {"i16": 64, "u16": 64, "f16": 128, "i32": 32, "u32": 32, "f32": 64}
_TRANSCENDENTAL = {"f16": 16, "f32": 16}
REG_PARALLELISM: dict[str, dict] = {
    **{api: _ADD for api in ("Add", "Sub", "Adds")},
    **{api: _MAX for api in ("Max", "Min", "Maxs", "Mins", "Compare", "Compares", "Select", "Duplicate")},
    **{api: _MUL for api in ("Mul", "Muls")},
    **{api: _TRANSCENDENTAL for api in ("Div", "Exp", "Sqrt", "Ln", "Log")},
    **{api: {"i8": 128, "i16": 64, "f16": 128, "i32": 32, "f32": 64} for api in ("Abs", "Neg")},
    "Relu": {"f16": 128, "i32": 64, "f32": 64},
    # ReduceType is not in the trace: SUM's figures (MAX/MIN are as fast or faster)
    "Reduce": {"f16": 128, "i16": 64, "u16": 64, "i32": 64, "u32": 64, "f32": 64},
    # LoadAlign/StoreAlign: contiguous, 256 B per cycle for every width (tables 1-2); the UB bound
    "LoadAlign": {
        "i8": 256,
        "u8": 256,
        "i16": 128,
        "u16": 128,
        "f16": 128,
        "bf16": 128,
        "i32": 64,
        "u32": 64,
        "f32": 64,
    },
}
REG_PARALLELISM["StoreAlign"] = REG_PARALLELISM["LoadAlign"]
REG_CAST_PARALLELISM: dict[tuple[str, str], int] = {  # (source, destination) -> elements per cycle [H] table 10
    ("f32", "i32"): 32, ("f32", "i16"): 32, ("f16", "i32"): 32, ("f16", "i16"): 64, ("f16", "i8"): 64,
    ("f32", "f16"): 64, ("f32", "bf16"): 64, ("f16", "f32"): 64, ("bf16", "f32"): 64, ("u8", "f16"): 64,
    ("i8", "f16"): 64, ("i16", "f16"): 64, ("i16", "f32"): 32, ("i32", "f32"): 32, ("u8", "u16"): 64,
    ("i8", "i16"): 64, ("u16", "u8"): 64, ("i8", "i32"): 32, ("u8", "u32"): 32,
}  # fmt: skip
REG_CAST_DEFAULT = Constant(
    32, "elements per cycle", "[G] a Cast pair the table does not list: its lower figure"
)
REG_DEFAULT_CYCLES = Constant(
    1, "cycles per VL", "[G] a Reg instruction the table does not list; mask ops: 1 [H] table 5"
)
# Single-issue Reg instructions [H] Reg矢量计算接口指令单双发汇总.md table 2 (Reduce; StoreAlign is
# in REG_STORE_DIST); LocalMemBar, a store -> load ordering point, is counted as one [G].
REG_SINGLE_ISSUE = frozenset({"Reduce", "LocalMemBar"})


@dataclass(frozen=True)
class MoveCost:
    """A LoadAlign/StoreAlign distribution: whether it issues singly, the UB VL slots it takes."""

    single_issue: bool
    ub_reads: int
    ub_writes: int
    source: str


# LoadAlign/StoreAlign per distribution (the trace's REG_DIST names). Contiguous aligned moves run at
# 256 B per cycle for every width [H] Reg矢量计算接口理论性能汇总.md tables 1-2, within the UB port limit
# (vf_ub_reads_per_cycle). Issue [H] Reg矢量计算接口指令单双发汇总.md: LoadAlign in single-load mode is
# dual issue except DIST_DS_B8/B16 (not modelled), contiguous StoreAlign (VSTS/VST) single issue.
REG_LOAD_DIST = {
    "DIST_NORM": MoveCost(False, 1, 0, "[H] one VL read, dual issue"),
    "DIST_BRC_B16": MoveCost(False, 1, 0, "[H] dual issue; one read slot for its 2 bytes [G]"),
    "DIST_BRC_B32": MoveCost(False, 1, 0, "[H] dual issue; one read slot for its 4 bytes [G]"),
    "DIST_UNPACK_B16": MoveCost(False, 1, 0, "[H] dual issue; one read slot for its VL/2 bytes [G]"),
    "DIST_UNPACK_B8": MoveCost(False, 1, 0, "[H] as DIST_UNPACK_B16 [G]"),
    "DIST_UNPACK4_B8": MoveCost(False, 1, 0, "[H] as DIST_UNPACK_B16, VL/4 bytes [G]"),
}
REG_STORE_DIST = {
    "DIST_NORM": MoveCost(True, 0, 1, "[H] one VL write, single issue"),
    "DIST_FIRST_ELEMENT_B32": MoveCost(True, 0, 1, "[H] single issue; one write slot for its 4 bytes [G]"),
    "DIST_PACK_B32": MoveCost(True, 0, 1, "[H] single issue; one write slot for its VL/2 bytes [G]"),
    "DIST_FIRST_ELEMENT_B16": MoveCost(True, 0, 1, "[H] as DIST_FIRST_ELEMENT_B32, 2 bytes [G]"),
    "DIST_FIRST_ELEMENT_B8": MoveCost(True, 0, 1, "[H] as DIST_FIRST_ELEMENT_B32, 1 byte [G]"),
    "DIST_PACK4_B32": MoveCost(True, 0, 1, "[H] as DIST_PACK_B32, VL/4 bytes [G]"),
    "DIST_PACK_B16": MoveCost(True, 0, 1, "[H] as DIST_PACK_B32, VL/2 bytes [G]"),
}

# 950 MemBase APIs priced as the VF the 3510 impl runs per VL: API -> UB sources loaded per VL.
MEMBASE_AS_VF = {
    **{api: 2 for api in ("Add", "Sub", "Mul", "Div", "Max", "Min")},
    **{api: 1 for api in ("Adds", "Muls", "Maxs", "Mins", "Abs", "Relu", "Exp", "Ln", "Sqrt")},
    "Duplicate": 0,
}

# The cube core (AIC) of a __mix__ kernel. asc-devkit docs/zh/api/附录/Cube指令理论性能汇总.md [H]:
#   Mmad cycles = dt + (ceil16(m) x ceil16(n) x ceil_k) / (cube_m x cube_n x cube_k), the emulator's
#   trace counting the 16 x 16 x k0 fractals (k0 = 32 B of the input type), so cycles per fractal =
#   k0 / cube_k: half/bfloat16 16 x 16 x 16 per cycle (k0 16), int8 16 x 16 x 32 (k0 32), both archs;
#   LoadData L1 -> L0A / L0B: 256 / 128 B per cycle on 2201 (tables 3), 256 / 256 with the 3510
#   LoadData2DParamsV2 (table 5), + dT;
#   Fixpipe L0C -> UB (3510, table 8): 128 B per cycle of output (f32 NoQuant 32 elements/cycle; f32 ->
#   f16/bf16 64 elements/cycle), 128 + 128 with the dual destination.
# The AIC's MTE2 (GM -> L1) is priced like an AIV's; a Fixpipe to GM like an MTE3 copy [G] (the
# tables give no L0C -> GM figure; it writes GM through the same L2).
# Check [M] pc section 6 C21: 910B3 fp32 matmul 72 TFLOPS = 72e12 / (2 x 20 AIC x 1.8 GHz) = 1000 MAC
# per cycle, the table's float 16 x 16 x 4 = 1024 (fp32 is not modelled by the emulator).
# cube_k [H] tables 1-2 (cube_m = cube_n = 16); float (not emulated): 16 x 16 x 4 on 2201, x 1 on 3510
CUBE_K_PER_CYCLE = {
    2201: {"f16": 16, "bf16": 16, "i8": 32, "f32": 4},
    3510: {"f16": 16, "bf16": 16, "i8": 32, "f32": 1},
}
CUBE = {
    arch: {
        "mmad_head_cycles": Constant(
            32,
            "cycles per Mmad",
            "[G] the table's dt has no published value; of the order of a vector instruction's head (22-35 "
            "cycles, pc §4)",
        ),
        "mte1_head_cycles": Constant(16, "cycles per LoadData", "[G] the table's dT has no published value"),
        "fix_head_cycles": Constant(16, "cycles per Fixpipe", "[G] the table's dT has no published value"),
        "l0a_bytes_per_cycle": Constant(256, "B/cycle", "[H] Cube指令理论性能汇总.md table " + t),
        "l0b_bytes_per_cycle": Constant(l0b, "B/cycle", "[H] Cube指令理论性能汇总.md table " + t),
        "fix_ub_bytes_per_cycle": Constant(
            128, "B/cycle per destination", "[H] Cube指令理论性能汇总.md table 8"
        ),
    }
    for arch, l0b, t in ((2201, 128, "3 (LoadData 2D)"), (3510, 256, "5 (LoadData 2D V2)"))
}
A2 = replace(A2, c={**A2.c, **CUBE[2201]})
A5 = replace(A5, c={**A5.c, **CUBE[3510]})

ARCH_MODELS = {2201: A2, 3510: A5}

# The L2 assumption of a profile: "warm" — a kernel whose whole GM footprint fits in L2 finds its
# inputs there, as in a repeated measurement (msprof averages repeated runs; pc §6 C16, C18);
# "cold" — every input comes from HBM; "flushed" — cold, and the L2 is full of the dirty lines of a
# kernel that ran just before (seed 003 §8: its official harness runs aclnnMul on 64 MiB f32
# tensors before Greater, which "flushes" the 96 MiB L2 of a 910B4 with the Mul's output). L2 is
# write-back (pc §0, §3), so every line an output allocates evicts a dirty line: the write costs
# its bytes of HBM bandwidth during the kernel even when the output fits in L2 (pc §6 C1: the
# seed's 346 us = (R + W) / 0.63 TB/s, the 910B4 bandwidth C15 measures independently).
L2_STATES = ("warm", "cold", "flushed")


def check_l2_state(l2: str) -> str:
    if not isinstance(l2, str) or l2 not in L2_STATES:
        raise ArgumentError(f"l2 must be one of {', '.join(L2_STATES)}, got {l2!r}")
    return l2
