"""Per-row values applied over rows (issue 7): Brcb spreads a step's per-row values into one
32-byte block each, then one level-0 vector call per 256 bytes of columns covers every row of
the step (block stride 0 on the blocks, repeat stride = the pitch on the rows), or one call per row
when the rows are fewer than those calls. No scalar unit in the loop: no GetValue, no V_S/S_V
flags. The emulator's instruction trace counts the calls; the results stay exact."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

import dsl
from backends.ascendc.compile import lower
from backends.ascendc.simulate import simulate
from backends.ascendc.sim.trace import OP, PIPE_S, SET, WAIT, flag_name
from backends.ascendc.targets import get_target
from dsl.dtypes import dtype_from_name

from row_cases import BY_NAME
from test_row_tiling_numbers import row_step


def _run(name: str, tname: str, shape, target: str, vector_path: str = "auto"):
    case = BY_NAME[name]
    attrs = case.attrs[0]
    t = dtype_from_name(tname)
    args = case.make(np.random.default_rng(3), t, shape, **attrs)
    got, result = simulate(
        case.op, args, attrs, target=target, cores=1, strict=True, trace=True, vector_path=vector_path
    )
    ref = case.op.reference(*args, **attrs)
    tols = dsl.precision.output_tolerances(case.op, tname, **attrs)
    for out, a, b in zip(
        case.op.outputs, ref if isinstance(ref, tuple) else (ref,), got if isinstance(got, tuple) else (got,)
    ):
        if a is not None:
            dsl.precision.check(b, a, tols[out], what=out)
    tr = result.trace
    recs = tr.records
    calls = Counter(tr.apis[r["api"]] for r in recs if r["kind"] == OP and r["pipe"] != PIPE_S)
    flags = Counter(flag_name(int(r["key"])).split("(")[0] for r in recs if r["kind"] in (SET, WAIT))
    rp = lower(case.op, target, vector_path=vector_path).plan.row_plans[(t, 0)]
    step = row_step(rp, shape[1], shape[0], get_target(target).ub_usable_bytes)[1]
    return calls, flags, step


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_softmax_per_row_values_take_brcb_blocks_and_few_calls(target):
    """The MemBase forms (ascend950 by --vector-path membase: its default is RegBase, below)."""
    rows, cols = 40, 1024
    calls, flags, step = _run("softmax", "f32", (rows, cols), target, "membase")
    sizes = [step] * (rows // step) + ([rows % step] if rows % step else [])
    groups = math.ceil(cols / 64)  # f32: 64 lanes a repeat
    # x - max and e / sum: one call per column group covering the step's rows (a repeat per row),
    # or one call per row (a repeat per 64 columns) when the step has fewer rows than groups.
    per_op = sum(groups if groups < r else r for r in sizes)
    assert calls["Sub"] == per_op and calls["Div"] == per_op, (step, calls)
    assert calls["Brcb"] == 2 * len(sizes)  # each per-row value spread once per step
    assert "Duplicate" not in calls or calls["Duplicate"] <= 8  # Init's zero fill only, no per-row spread
    assert "Adds" not in calls
    assert flags["V_S"] == 0 and flags["S_V"] == 0  # no scalar reads of per-row values
    assert per_op < 2 * rows  # the scalar form: one Adds (and one Duplicate) per row


def test_softmax_regbase_reads_per_row_values_as_broadcast_registers():
    """ascend950 RegBase: one VF per step; per row, each reduction is one Reduce of an accumulated
    register, its value stored (FIRST_ELEMENT) and reloaded into every lane (BRC) after one
    LocalMemBar; x - max and e / sum run once per 64-column element step. No Brcb, no scalar reads."""
    rows, cols = 40, 1024
    calls, flags, step = _run("softmax", "f32", (rows, cols), "ascend950")
    groups = math.ceil(cols / 64)
    assert calls["Sub"] == rows * groups and calls["Div"] == rows * groups, calls
    assert calls["Reduce"] == 2 * rows and calls["LocalMemBar"] == 2 * rows
    assert "Brcb" not in calls and "ReduceSum" not in calls and "ReduceMax" not in calls
    assert flags["V_S"] == 0 and flags["S_V"] == 0


def test_layer_norm_uses_the_per_row_form_on_long_rows():
    """C = 3000 f32: 47 column groups, more than the rows of a step: one call per row (a repeat per
    64 columns, the 56-column tail under a lane mask); the pitch (376 blocks) is past the 8-bit
    repeat stride anyway."""
    rows, cols = 9, 3000
    calls, flags, step = _run("layer_norm", "f32", (rows, cols), "ascend910b")
    assert flags["V_S"] == 0 and flags["S_V"] == 0
    # d = x - mean and d * rstd: per row one call of 46 full repeats and one tail call
    assert calls["Sub"] == 2 * rows, calls
    assert calls["Brcb"] >= 2 * math.ceil(rows / step)
