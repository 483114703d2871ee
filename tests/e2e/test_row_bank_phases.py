"""A2 UB bank groups in the full-load row kernels (plan-rows' phases, InitBanked; issue 20).

Two operands of one vector instruction whose 32-byte rows share a bank group take two beats per
repeat (asc-devkit 避免bank冲突; the model's ``bank_conflict_beats``). With the phases, no
row-wide instruction of add_layer_norm (bf16, 910B) pays it; before them the Casts, the Adds and
the gamma/beta Subs and Muls did ([8192, 4096]: 181.55 -> 149.31 us modelled). Not removed by
phases: a row op reading row r's Brcb block, at r x 256 B (every other row in the same groups as
the row: rms_norm's per-row Mul by rstd).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from backends.ascendc.perf.costs import bank_conflict_beats
from backends.ascendc.sim.trace import OP, PIPE_V
from dsl import bf16

ROOT = Path(__file__).resolve().parents[2]


def _example(stem: str):
    spec = importlib.util.spec_from_file_location(f"banks_{stem}", ROOT / "examples" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, stem)


@pytest.mark.parametrize("stem, n", [("add_layer_norm", 2)])
def test_row_wide_instructions_read_disjoint_bank_groups(stem, n):
    """``n`` row inputs [16, 4096] and ``n`` columns [4096]."""
    op = _example(stem)
    rng = np.random.default_rng(0)
    cols = 4096
    x = [rng.uniform(-1, 1, (16, cols)).astype(ml_dtypes.bfloat16) for _ in range(n)]
    cols_in = [rng.uniform(0.5, 1.5, cols).astype(ml_dtypes.bfloat16) for _ in range(n)]
    prof = op.profile(*x, *cols_in, target="ascend910b", cores=8, dtype=bf16)
    recs = prof._run.trace.block(0)
    apis = prof._run.trace.apis
    wide = (recs["kind"] == OP) & (recs["pipe"] == PIPE_V) & (recs["repeats"] >= 32)
    assert wide.sum() >= 8  # the step's casts and row ops (64 repeats a 4096-column f32 row)
    conflicts = sorted(
        {apis[r["api"]] for r in recs[wide] if bank_conflict_beats(*(int(u) for u in r["ub"])) > 1}
    )
    assert conflicts == []
