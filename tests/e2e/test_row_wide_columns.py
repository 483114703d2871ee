"""Columns widened once per core (issue 20 item 4): a column the step reads in f32 (gamma, beta of
an f16/bf16 norm) is widened by the first step only, into an f32 copy kept for the whole core
(wideBuf_), when that costs the step no rows and no slot; else every step widens it into a dead
row buffer (plan-rows' ``wide``). Host tiling's
choice (``wideCols``) is checked against the explain model through the emulator's UB peak, and
both forms against the reference, bit-exact."""

from __future__ import annotations

import numpy as np
import pytest

from backends.ascendc.compile import lower
from backends.ascendc.explain_rows import row_step, ub_bytes, widens_once
from backends.ascendc.targets import TARGETS
from dsl.dtypes import dtype_from_name

from row_cases import BY_NAME
from test_rows_simulate import _check

USABLE = TARGETS["ascend910b"].ub_usable_bytes


def _plan(name: str, tname: str) -> dict:
    return lower(BY_NAME[name].op, "ascend910b").plan.row_plans[(dtype_from_name(tname), 0)]


def test_choice_follows_the_rows_per_step():
    rp = _plan("rms_norm", "bf16")
    assert rp["wide"] == 4  # gamma in f32: 4 bytes per column
    assert widens_once(rp, 4096, USABLE)  # 3 rows per step either way
    assert row_step(rp, 11000, USABLE) == (2, 1) and row_step(rp, 11000, USABLE, wide=True) == (1, 1)
    assert not widens_once(rp, 11000, USABLE)  # widening would cost the ping-pong slot
    assert not _plan("rms_norm", "f32").get("wide")  # f32 gamma: nothing to widen
    assert _plan("add_layer_norm", "bf16")["wide"] == 8  # gamma and beta


@pytest.mark.parametrize(
    "name, tname, shape, wide",
    [
        ("rms_norm", "bf16", (7, 4096), True),
        ("rms_norm", "f16", (3, 11000), False),
        ("add_layer_norm", "f16", (9, 1000), True),
    ],
    ids=lambda x: str(x),
)
def test_both_forms_exact_and_ub_as_chosen(name, tname, shape, wide):
    case, t = BY_NAME[name], dtype_from_name(tname)
    rp = _plan(name, tname)
    rows, cols = shape
    assert widens_once(rp, cols, USABLE, rows) == wide
    result = _check(case, t, shape, case.attrs[0], cores=1)
    slots, step = row_step(rp, cols, USABLE, rows)
    pitch = -(-cols // rp["align"]) * rp["align"]
    # exact but for the A2 bank-group pads: host tiling budgets the most (``extra``), the kernel
    # allocates those its buffers' addresses need
    budget = ub_bytes(rp, pitch, cols, step, slots, wide)
    assert budget - rp["extra"] <= result.counters["ub_peak_bytes"] <= budget


def test_kernel_widens_in_the_first_step_or_in_every_step():
    files = lower(BY_NAME["rms_norm"].op, "ascend910b").files
    text = files["op_kernel/rms_norm.cpp"]
    assert "if (wideBytes_ > 0) InitBanked(wideBuf_, colLen_ * wideBytes_, 0);" in text  # A2 bank phase
    assert "wideBytes_ = tiling.wideBytes;" in text
    assert "const bool widen = s == 0 || wideBytes_ == 0;" in text
    assert "if (wideBytes_ > 0) gammaF32 = wideBuf_.Get<float>();" in text
    assert (
        "if (widen && (!COLUMN_CHUNKS || phase == 1)) Cast(gammaF32, gamma, RoundMode::CAST_NONE, cols_);"
        in text
    )
