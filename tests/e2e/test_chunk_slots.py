"""Column-chunked row kernels (rows too long for one UB step) at speed (issue 20 item 6): the
chunks alternate between two UB slots as seed 002's column slices do (the copy-in of chunk k + 1
overlaps the math of chunk k), one slot only when two do not fit a chunk of 64 columns; softmax's
max and sum come from one pass over the chunks (online softmax), so it reads its rows twice."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dsl
from backends.ascendc.compile import lower
from backends.ascendc.explain_rows import chunk_fit
from backends.ascendc.simulate import generated_project, simulate
from backends.ascendc.targets import TARGETS

from row_cases import BY_NAME

F32 = dsl.dtypes.dtype_from_name("f32")


def _twin(op, t, target="ascend910b"):
    plan = lower(op, target).plan
    return plan.row_plans[(t, plan.chunk_key_offset)]


def _ramp(rows: int, cols: int, t) -> np.ndarray:
    """Rows whose running max grows in every chunk (a ramp with noise): each chunk rescales the
    sum so far; the values span 40, so exp(x - max) spans e^-40 .. 1."""
    rng = np.random.default_rng(7)
    x = np.linspace(-20, 20, cols, dtype=np.float64)[None, :] + rng.uniform(-1, 1, (rows, cols))
    return x.astype(t.np)


def _softmax64(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("tname", ["f32", "f16"])
def test_online_softmax_reads_its_rows_twice(tname):
    """Softmax over rows of 60000 columns on 910B: chunks of two slots, the max and the sum in
    the first pass over them (the sum rescaled as the max grows along the ramp), the output in the
    second: 2 x chunks copies in per row (the three-pass kernel made 3 x), equal to float64 numpy
    within the precision standard's approximate class."""
    t = dsl.dtypes.dtype_from_name(tname)
    op = BY_NAME["softmax"].op
    rows, cols = 2, 60000
    slots, per, chunks = chunk_fit(_twin(op, t), cols, TARGETS["ascend910b"].ub_usable_bytes)
    assert slots == 2 and chunks > 1
    x = _ramp(rows, cols, t)
    got, result = simulate(op, [x], {}, target="ascend910b", cores=1, strict=True)
    assert result.tiling_key == 1  # the chunked twin
    assert result.counters["MTE2"]["dma"] == rows * 2 * chunks
    assert result.counters["MTE3"]["dma"] == rows * chunks
    want = _softmax64(x).astype(t.np)
    assert dsl.precision.compare(got, want, dsl.precision.APPROX).ok
    assert dsl.precision.compare(got, op.reference(x), dsl.precision.APPROX).ok


def test_online_log_softmax_on_ascend950():
    """log_softmax (x - max - log(sum)) on 950: its column-chunked twin is the MemBase one the
    910B runs, online as well."""
    op = BY_NAME["log_softmax"].op
    x = _ramp(2, 90001, F32)
    got, result = simulate(op, [x], {}, target="ascend950", cores=2, strict=True)
    assert result.tiling_key == 1
    x64 = x.astype(np.float64)
    s = x64 - x64.max(-1, keepdims=True)
    want = (s - np.log(np.exp(s).sum(-1, keepdims=True))).astype(np.float32)
    assert dsl.precision.compare(got, want, dsl.precision.APPROX).ok


def _usable_for_one_slot(op, t, cols):
    """A UB size (usable bytes) where a chunk of 64 columns fits with one slot, not with two."""
    twin = _twin(op, t)
    for usable in range(256, 1 << 16, 32):
        if chunk_fit(twin, cols, usable)[0] == 1:
            return usable
    raise AssertionError("no UB size gives one slot")


def test_one_slot_when_two_do_not_fit():
    """A UB where a 64-column chunk fits only with one slot: the host takes one (the kernel's
    slot is then always 0), and the result is the same."""
    case = BY_NAME["layer_norm"]
    op, attrs = case.op, case.attrs[0]  # the first static key: its twin is _twin's
    cols = 1000
    usable = _usable_for_one_slot(op, F32, cols)
    assert chunk_fit(_twin(op, F32), cols, usable)[0] == 1
    args = case.make(np.random.default_rng(3), F32, (3, cols), **attrs)
    project = generated_project(op, "ascend910b")
    saved = TARGETS["ascend910b"]
    tgt = saved
    TARGETS["ascend910b"] = dataclasses.replace(tgt, ub_bytes=tgt.ub_bytes - tgt.ub_usable_bytes + usable)
    try:
        got, result = simulate(op, args, attrs, target="ascend910b", cores=1, project=project, strict=True)
    finally:
        TARGETS["ascend910b"] = saved
    assert result.tiling_key >= 2  # a chunked twin
    for name, g, r in zip(op.outputs, got, op.reference(*args, **attrs)):
        assert dsl.precision.compare(g, r, rtol=2e-4).ok, name
