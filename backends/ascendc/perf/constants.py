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
    **{api: "transcendental" for api in ("Exp", "Ln", "Sqrt", "Div")},
    "Cast": "cast",
    "Brcb": "brcb",
    **{api: "reduce" for api in ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceRepeat")},
    **{api: "whole_reduce" for api in ("WholeReduceSum", "WholeReduceMax", "WholeReduceMin")},
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
        "adv_activation": {"2": 16, "4": 8},  # [G]
        "free": {"2": 0, "4": 0, "1": 0},
        "unknown": {"2": 2, "4": 2, "1": 2},
    },
)

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
