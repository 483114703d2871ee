"""The emulator's per-core instruction trace, as the performance model reads it.

With ``simulate_project(..., trace=True)`` the runtime records every instruction it issues (and
every ``SetL2CacheHint``) as one ``TraceRec`` (``src/runtime.h``): the pipe that executes it, what
it is (an operation, a SetFlag/WaitFlag or TQue edge, a barrier), the API name, the kernel
``file:line``, vector repeats and dtypes, the UB operands, the bytes, bursts, GM tensor and offset
of a copy. The harness writes the records of all blocks to one binary file; this module maps it
with numpy (no per-record Python objects, so a 200k-instruction trace loads in milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Pipe and kind codes of runtime.h (enum Pipe, enum TraceKind).
PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3, PIPE_MTE1, PIPE_M, PIPE_FIX = 0, 1, 2, 3, 4, 5, 6
PIPE_NAMES = ("S", "V", "MTE2", "MTE3", "MTE1", "M", "FIX")
# The cores of a __mix__ kernel's block (the records' ``core``): AIC 0, AIV0 1, AIV1 2.
CORE_NAMES = ("AIC", "AIV0", "AIV1")
OP, SET, WAIT, BARRIER, BARRIER_ALL, L2HINT, VF = 0, 1, 2, 3, 4, 5, 6
# A VF record (a vector function's launch) is followed by the Reg API records of its body, whose
# key is REG_KEY | the LoadAlign/StoreAlign distribution's code (REG_DIST; 0 for other
# instructions). The launch's key is its body's record count; its gm_off is 0, or the distance in
# records back to an earlier VF launch of the block with the same body, which is then left out.
REG_KEY = 1 << 30
REG_DIST = {
    1: "DIST_NORM",
    2: "DIST_BRC_B16",
    3: "DIST_BRC_B32",
    4: "DIST_UNPACK_B16",
    5: "DIST_UNPACK_B8",
    6: "DIST_UNPACK4_B8",
    16: "DIST_NORM",
    17: "DIST_FIRST_ELEMENT_B32",
    18: "DIST_PACK_B32",
    19: "DIST_FIRST_ELEMENT_B16",
    20: "DIST_FIRST_ELEMENT_B8",
    21: "DIST_PACK4_B32",
    22: "DIST_PACK_B16",
}
NONE16, NONE32, NONE8 = 0xFFFF, 0xFFFFFFFF, 0xFF
# enum DType of include/dslc_sim/runtime.h
DTYPE_NAMES = ("f32", "f16", "bf16", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "bool", "f64")
DTYPE_BYTES = (4, 2, 2, 1, 1, 2, 2, 4, 4, 8, 8, 1, 8)
# CacheMode values (include/dslc_sim/base.h)
CACHE_MODE_DISABLE, CACHE_MODE_NORMAL, CACHE_MODE_PERSISTENT = 0, 1, 4
# HardEvent order (include/dslc_sim/base.h), for naming flag keys.
HARD_EVENTS = (
    "MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 MTE1_MTE3 MTE1_V "
    "MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 MTE2_S S_MTE3 MTE3_S"
).split()
QUEUE_KEY = 1 << 20  # TQue edges: 1 << 20 | (queue * 8 + slot) << 1 | (0 EnQue->DeQue, 1 Free->Alloc)
# CrossCoreSetFlag / CrossCoreWaitFlag: SET / WAIT records with key CROSS_KEY | mode << 8 | flag id;
# a Wait's ub[1] and ub[2] are the trace indices (whole trace) of the Sets it consumed (the AIVs'
# two for a mode-2 Wait on the AIC), NONE32 where there is none.
CROSS_KEY = 1 << 21
# MTE1 LoadData records: key = the destination, L0A or L0B.
L0A, L0B = 1, 2

RECORD = np.dtype(
    [
        ("pipe", "u1"),
        ("kind", "u1"),
        ("dtype", "u1"),
        ("dtype2", "u1"),
        ("api", "<u2"),
        ("gm", "<u2"),
        ("loc", "<u4"),
        ("repeats", "<u4"),
        ("bytes", "<u8"),
        ("key", "<u4"),
        ("gm_off", "<u4"),
        ("ub", "<u4", (3,)),
        (
            "core",
            "<u4",
        ),  # the core of the block: 0 in an AIV-only kernel; AIC 0, AIV0 1, AIV1 2 in a __mix__ one
    ]
)
assert RECORD.itemsize == 48  # static_assert(sizeof(TraceRec) == 48) in src/runtime.h


def is_reg(key: int) -> bool:
    """Whether an OP record's key marks a Reg API instruction of a VF body (other ops: NONE32)."""
    return key != NONE32 and bool(key & REG_KEY)


def flag_name(key: int) -> str:
    """``MTE2_V(1)`` for a HardEvent key, ``TQue#3 slot 1 EnQue`` for a queue edge."""
    if key & CROSS_KEY:
        return f"cross-core mode {(key >> 8) & 0xFF} flag {key & 0xFF}"
    if key & QUEUE_KEY:
        k = key & (QUEUE_KEY - 1)
        slot = (k >> 1) % 8
        what = "FreeTensor->AllocTensor" if k & 1 else "EnQue->DeQue"
        return f"TQue#{(k >> 1) // 8} slot {slot} {what}"
    event, ident = divmod(key, 8)
    name = HARD_EVENTS[event] if event < len(HARD_EVENTS) else f"event{event}"
    return f"{name}({ident})"


@dataclass
class SimTrace:
    records: np.ndarray  # RECORD, all blocks in order
    block_starts: list[int]  # index of each block's first record
    apis: list[str]
    locs: list[str]  # "file:line" of the calls, relative to ``root``
    regions: list[str]  # GM tensor names, by the records' ``gm`` index
    root: Path | None = None  # the project the kernel was compiled from

    @classmethod
    def load(cls, path: Path, meta: dict, root: Path | None = None) -> "SimTrace":
        n = int(meta["records"])
        recs = np.fromfile(path, dtype=RECORD, count=n) if n else np.zeros(0, RECORD)
        if len(recs) != n:
            raise ValueError(f"trace file {path} holds {len(recs)} records, the emulator reported {n}")
        starts = [int(s) for s in meta["block_starts"]]
        return cls(recs, starts, meta["apis"], meta["locs"], meta["regions"], root)

    @property
    def blocks(self) -> int:
        return len(self.block_starts)

    def block(self, i: int) -> np.ndarray:
        """The records of block ``i`` (a view)."""
        end = self.block_starts[i + 1] if i + 1 < len(self.block_starts) else len(self.records)
        return self.records[self.block_starts[i] : end]
