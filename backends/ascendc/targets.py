"""Hardware capabilities per target: the one table every pass, emitter and the emulator read.

Sources are the asc-devkit 9.1 architecture docs and the CANN platform ini files, as summarised
in shared/reference/ascendc-api.md section 1 and perf-constants.md section 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsl.errors import ArgumentError


@dataclass(frozen=True)
class Target:
    name: str
    npu_arch: int
    # Physical UB per AIV core; GetCoreMemSize(UB) reports this (Ascend910B2.ini ub_size).
    ub_bytes: int
    # What a kernel may allocate with the default build options (ASC_UB_SIZE minus the
    # compiler's reserved area): ascendc-api.md section 1.
    ub_usable_bytes: int
    aiv_cores: int
    aic_cores: int
    ub_block_bytes: int = 32  # DataBlock: UB alignment unit
    repeat_bytes: int = 256  # one MemBase vector repeat / one RegBase VL
    max_repeat_times: int = 255
    # DataCopy(Ext)Params.blockCount. On ascend950 a strided 2-D DataCopyPad is said to drop rows past
    # ~32 (cannbot-skills api-datacopy.md, a 'measurement' with no kernel or shape); no primary source
    # has it: the asc-devkit DataCopyPad page gives [0, 4095], the dav_3510 impl does not chunk, and
    # ops-nn arch35 kernels copy up to 65535 strided rows (docs/research-950.md section 1). Kept at 4095.
    max_block_count: int = 4095
    manual_event_ids: int = 6  # ids 0-5 for hand-placed SetFlag/WaitFlag; 6, 7 reserved
    regbase: bool = False
    # A2's UB has 16 bank groups of 32-byte rows; two sources of one instruction in the same groups
    # take two beats per repeat (pc section 2, asc-devkit 避免bank冲突; measured, C8), so plan-buffers
    # starts them 256 B apart. On 950 UB conflicts are mostly a non-issue (pc section 2).
    ub_bank_stagger: bool = False
    # DAV_3510 issues vector instructions in order: a V -> V dependency needs no PipeBarrier<PIPE_V>
    # (issue 19; reference-ops.md section 4.5 and regbase-cv.md section 1: "V->V order is the
    # hardware's"); the emulator does not check V -> V order on arch 3510 either.
    v_in_order: bool = False
    # Vector ops whose MemBase form accepts bfloat16_t; everything else needs float/half.
    bf16_vector_ops: frozenset[str] = frozenset(
        {"Duplicate", "Brcb", "Cast", "DataCopy", "DataCopyPad", "Gather"}
    )
    soc_config: str = ""  # the AddConfig / ASCEND_COMPUTE_UNIT name
    # The AIC's memories per AI Core (ascendc-api.md section 1: 512K / 64K / 64K and L0C 128K on
    # 910B, 256K on 950) and the address alignment of each (regbase-cv.md section 3.2: L1 32 B,
    # L0A/L0B one 512-B fractal, L0C 64 B as Fixpipe requires).
    l1_bytes: int = 512 * 1024
    l0a_bytes: int = 64 * 1024
    l0b_bytes: int = 64 * 1024
    l0c_bytes: int = 128 * 1024
    l1_align: int = 32
    l0ab_align: int = 512
    l0c_align: int = 64


TARGETS: dict[str, Target] = {
    # Atlas A2 (910B2: 24 AIC / 48 AIV, ub_size=196608). Usable UB: 192K - 256 B (ASC_UB_SIZE)
    # minus the 8 KiB the compiler reserves unless --cce-disable-asc-reserved-ubuf.
    "ascend910b": Target(
        name="ascend910b",
        npu_arch=2201,
        ub_bytes=196608,
        ub_usable_bytes=196608 - 256 - 8192,
        aiv_cores=48,
        aic_cores=24,
        ub_bank_stagger=True,
        soc_config="ascend910b",
    ),
    # Ascend 950PR (arch35): 256 KiB UB, 248 KiB usable for SIMD by default (GetUBSizeInBytes),
    # 32 AIC / 64 AIV (Ascend950PR ini), RegBase vector registers of 256 B.
    "ascend950": Target(
        name="ascend950",
        npu_arch=3510,
        ub_bytes=262144,
        ub_usable_bytes=253952,
        aiv_cores=64,
        aic_cores=32,
        l0c_bytes=256 * 1024,
        regbase=True,
        bf16_vector_ops=frozenset(
            {
                "Duplicate",
                "Brcb",
                "Cast",
                "DataCopy",
                "DataCopyPad",
                "Gather",
                "Add",
                "Sub",
                "Mul",
                "Max",
                "Min",
                "Adds",
                "Muls",
                "Maxs",
                "Mins",
            }
        ),
        v_in_order=True,
        soc_config="ascend950",
    ),
}


def get_target(name: str) -> Target:
    target = TARGETS.get(name) if isinstance(name, str) else None
    if target is None:
        known = ", ".join(sorted(TARGETS))
        raise ArgumentError(f"unknown target {name!r} (known targets: {known})")
    return target


VECTOR_PATHS = ("auto", "membase", "regbase")


def vector_path(target: Target, path: str) -> str:
    """``path`` checked for ``target`` (DESIGN section 2: auto, membase, regbase); auto is
    resolved per compute region by select-vector-path."""
    if not isinstance(path, str) or path not in VECTOR_PATHS:
        raise ArgumentError(f"unknown vector_path {path!r} (known: {', '.join(VECTOR_PATHS)})")
    if path == "regbase" and not target.regbase:
        raise ArgumentError(f"vector_path='regbase' is for ascend950: {target.name} is MemBase only")
    return path


def select_vector_path_spelling(target: Target, path: str) -> str:
    """The select-vector-path pass with ``target``'s options, for ``path`` (checked first)."""
    path = vector_path(target, path)
    return f"select-vector-path{{regbase={str(target.regbase).lower()},path={path}}}"
