"""Row tiling numbers (issue 7) against an independent model of seed 002's host tiling.

Split: ``rowsPerCore = ceil(R / cores)``, ``used = ceil(R / rowsPerCore)``, ``rowsPerCore =
ceil(R / used)``, the last used core takes the rest. UB plan: a fixed area (resident columns at the
32-byte pitch, reduction scratch) plus ``rowStep`` x the per-row area (row buffers x slots, per-row
values), ping-pong slots first, one slot when a ping-pong step of one row does not fit. Each core
then moves its rows in ``ceil(rows / rowStep)`` 2-D copies per row tensor, plus one per column.
The emulator's per-core DMA counts must match the model; the seed's worked example is reported."""

from __future__ import annotations

import math

import numpy as np
import pytest

from backends.ascendc.compile import lower
from backends.ascendc.simulate import simulate
from backends.ascendc.targets import get_target
from dsl.dtypes import dtype_from_name
from passes.rows import COL, ROW, layout_of

from row_cases import BY_NAME
from test_sync_deletion import _load


def split(rows: int, cores: int) -> list[int]:
    per = math.ceil(rows / cores)
    used = math.ceil(rows / per)
    per = math.ceil(rows / used)
    return [per] * (used - 1) + [rows - per * (used - 1)]


def round_up(x: int, to: int) -> int:
    return (x + to - 1) // to * to


def row_step(rp: dict, cols: int, rows_per_core: int, usable: int) -> tuple[int, int]:
    """(slots, rowStep) of one variant's plan coefficients at run-time C; (0, 0): nothing fits."""
    pitch = round_up(cols, rp["align"])
    scratch = round_up(2 * math.ceil(cols / 64), 8) * 4 if rp["scratch"] else 0
    fixed = round_up(pitch, rp["count_align"]) * rp["col"] + scratch  # column buffers: colLen_
    for slots, row, perrow in ((2, rp["row"], rp["perrow_bytes"]), (1, rp["row1"], rp["perrow_bytes1"])):
        per = pitch * row + rp["perrow"] * perrow
        step = min(rows_per_core, 4095, (usable - fixed) // per if usable > fixed else 0)
        if step:
            return slots, step
    return 0, 0


def test_seed_split_examples():
    assert split(8192, 50) == [164] * 49 + [156]  # seed 002: 49 cores of 164 rows, the last 156
    assert split(10, 48) == [1] * 10  # 10 rows on 48 cores light 10 cores


def test_seed_worked_example_rows_per_step():
    """[8192, 4096] bf16 QuantizeAddLayerNorm, per-channel scales, broadcast bias, no zero points:
    the seed gets rowStep 2 (73736 B per row after a 41344 B fixed area of 262144 B); ours 3."""
    op = _load("quantize_add_layer_norm")
    bf16 = dtype_from_name("bf16")
    got = {}
    for target in ("ascend950", "ascend910b"):
        plan = lower(op, target).plan
        rp = plan.row_plans[(bf16, 0)]  # key 0: per_channel, no extra output, no zero points
        got[target] = row_step(
            rp, 4096, split(8192, get_target(target).aiv_cores)[0], get_target(target).ub_usable_bytes
        )
    # The columns stay resident in T (as the seed's) and are widened per step into a dead f32 row
    # buffer; the i8 output takes the dead x2 input's slot: 10 B/column fixed, 16 B/column per row
    # (bf16 x1, x2 x two slots, two f32 rows) -> 2 rows per step on the 910B's UB (before the buffer
    # reuse: 1). The 950's RegBase step (one VF) keeps the widened columns and x - mean in registers:
    # one f32 row (x), 12 B/column per row, and the i8 output in a slot of its own (a DMA-bound step:
    # the next load into x2's slot would wait for its copy-out; plan-rows), 14 B/column -> 3 rows
    # per step (MemBase there: 3; the seed: 2).
    assert got == {"ascend950": (2, 3), "ascend910b": (2, 2)}
    rp = lower(op, "ascend950", vector_path="membase").plan.row_plans[(bf16, 0)]
    assert row_step(rp, 4096, split(8192, 64)[0], get_target("ascend950").ub_usable_bytes) == (2, 3)


CASES = [  # example, dtype, (rows, cols), cores, target
    ("rms_norm", "f16", (50, 4096), 8, "ascend910b"),
    ("rms_norm", "f32", (5, 14000), 1, "ascend910b"),  # one slot
    ("softmax", "bf16", (300, 1000), 8, "ascend950"),
    ("layer_norm", "f32", (10, 64), 48, "ascend910b"),
    ("add_layer_norm", "f16", (37, 3000), 4, "ascend910b"),
]


@pytest.mark.parametrize(
    "name, tname, shape, cores, target", CASES, ids=[f"{c[0]}-{c[1]}-{c[2][0]}x{c[2][1]}" for c in CASES]
)
def test_copies_per_core_follow_the_model(name, tname, shape, cores, target):
    case = BY_NAME[name]
    op, t = case.op, dtype_from_name(tname)
    attrs = case.attrs[0]
    args = case.make(np.random.default_rng(0), t, shape, **attrs)
    _, result = simulate(op, args, attrs, target=target, cores=cores, strict=True)
    compiled = lower(op, target)
    key = next(
        v.key
        for v in compiled.plan.variants
        if v.dtype == t and all(v.bind.get(k, a) == a for k, a in attrs.items())
    )
    rp = compiled.plan.row_plans[(t, key)]
    per_core = split(shape[0], cores)
    assert result.block_dim == len(per_core)
    slots, step = row_step(rp, shape[1], per_core[0], get_target(target).ub_usable_bytes)
    assert step > 0
    func = next(f for f in compiled.modules[t].funcs if f.attributes["tiling_key"] == key)
    kind = layout_of(func).kind
    loads = [kind(op_.result.type) for op_ in func.walk() if op_.opname == "dma.load"]
    row_ins, col_ins = loads.count(ROW), loads.count(COL)  # the inputs this variant reads
    ref = op.reference(*args, **attrs)
    outs = sum(1 for r in (ref if isinstance(ref, tuple) else (ref,)) if r is not None)
    for rows, block in zip(per_core, result.counters["per_block"]):
        steps = math.ceil(rows / step)
        assert block["MTE2"]["dma"] == steps * row_ins + col_ins, (rows, step, slots)
        assert block["MTE3"]["dma"] == steps * outs
