"""The emulator's per-core instruction trace (``simulate_project(..., trace=True)``): every issued
instruction once, with what the performance model needs, checked against the emulator's own
counters and the kernel sources."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import backends.ascendc
from backends.ascendc.sim import simulate_project
from backends.ascendc.sim.trace import (
    BARRIER,
    L2HINT,
    OP,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_NAMES,
    PIPE_S,
    PIPE_V,
    QUEUE_KEY,
    SET,
    WAIT,
    DTYPE_NAMES,
)
from backends.ascendc.targets import TARGETS

T910B = TARGETS["ascend910b"]
FIXTURES = Path(backends.ascendc.__file__).parent / "perf" / "fixtures"
ADD_PROJECT = FIXTURES / "add_tuning"  # asc-devkit's Add tuning cases 1-6
ACOS_GRAD_PROJECT = FIXTURES / "acos_grad_v2"  # ops-math's AcosGrad (TQue, Cast)
WHOLE_UB = 192 * 1024  # both fixtures use the whole UB, as their originals do


def match_flags(kind: list, key: list) -> list:
    """For each WaitFlag, the SetFlag of the same key it consumes (first set, first wait), else -1."""
    pending: dict[int, list] = {}
    match = [-1] * len(kind)
    for i, (k, key_i) in enumerate(zip(kind, key)):
        if k == SET:
            pending.setdefault(key_i, []).append(i)
        elif k == WAIT and pending.get(key_i):
            match[i] = pending[key_i].pop(0)
    return match


def run_add(case: int, *, rows: int = 64, cols: int = 4096, cores: int = 2, copy_len: int = 4096, trace=True):
    rng = np.random.default_rng(case)
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float16)
    y = rng.uniform(-2, 2, (rows, cols)).astype(np.float16)
    res = simulate_project(
        ADD_PROJECT,
        "add_tuning",
        inputs=[x, y],
        outputs=[((rows, cols), np.float16)],
        attrs=[case, cores, copy_len],
        target=T910B,
        ub_capacity=WHOLE_UB,
        trace=trace,
    )
    return x, y, res


def kernel_line(project, op, text: str) -> str:
    lines = (project / "op_kernel" / f"{op}.cpp").read_text().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if text in line]
    assert len(hits) == 1, (text, hits)
    return f"op_kernel/{op}.cpp:{hits[0]}"


def test_trace_holds_every_instruction_the_counters_count():
    _, _, res = run_add(5, cores=3, rows=96)
    tr = res.trace
    assert tr.blocks == res.block_dim == 3
    for b in range(tr.blocks):
        recs = tr.block(b)
        counted = res.counters["per_block"][b]
        issued = recs[recs["kind"] != L2HINT]  # a hint configures, it is no instruction
        for p, name in enumerate(PIPE_NAMES):
            mine = issued[issued["pipe"] == p]
            assert len(mine) == counted[name]["instructions"], name
            assert (mine["kind"] == SET).sum() == counted[name]["set_flags"], name
            assert (mine["kind"] == WAIT).sum() == counted[name]["wait_flags"], name
        ops = recs[recs["kind"] == OP]
        assert ops["bytes"][ops["pipe"] == PIPE_MTE2].sum() == counted["MTE2"]["bytes_in"]
        assert ops["bytes"][ops["pipe"] == PIPE_MTE3].sum() == counted["MTE3"]["bytes_out"]
        assert ops["repeats"][ops["pipe"] == PIPE_V].sum() == counted["V"]["repeats"]


def test_trace_records_names_lines_operands_tensors_and_hints():
    _, _, res = run_add(5, cores=2)
    tr = res.trace
    recs = tr.block(1)
    api = np.array(tr.apis)[recs["api"]]
    loc = np.array(tr.locs)[recs["loc"]]
    # The two SetL2CacheHint(CACHE_MODE_DISABLE) of case 5, on x and y, at their kernel lines.
    hints = recs[recs["kind"] == L2HINT]
    assert [tr.regions[g] for g in hints["gm"]] == ["input 0 'x'", "input 1 'y'"]
    assert list(hints["key"]) == [0, 0] and set(hints["pipe"]) == {PIPE_S}
    assert set(loc[recs["kind"] == L2HINT]) == {
        kernel_line(ADD_PROJECT, "add_tuning", "xGm_.SetL2CacheHint"),
        kernel_line(ADD_PROJECT, "add_tuning", "yGm_.SetL2CacheHint"),
    }
    # Every Add: f16, at its line, z = x + y in the ping-pong slots of the kernel (0, 32, 64 / 96, 128, 160 KiB).
    adds = recs[api == "Add"]
    assert len(adds) == 32  # 32 rows of 4096 halves, one 8 KiB copy each
    assert set(loc[api == "Add"]) == {kernel_line(ADD_PROJECT, "add_tuning", "Add(z[s], x[s], y[s], len)")}
    assert {DTYPE_NAMES[d] for d in adds["dtype"]} == {"f16"}
    assert {tuple(u) for u in adds["ub"]} == {(65536, 0, 32768), (163840, 98304, 131072)}
    assert set(adds["repeats"]) == {4096 * 2 // 256}
    # Copies: 8 KiB each, block 1's rows of x (then y) in order, z written back.
    loads = recs[(recs["pipe"] == PIPE_MTE2) & (recs["kind"] == OP)]
    stores = recs[(recs["pipe"] == PIPE_MTE3) & (recs["kind"] == OP)]
    assert set(loads["bytes"]) == set(stores["bytes"]) == {8192}
    assert [tr.regions[g] for g in loads["gm"][:2]] == ["input 0 'x'", "input 1 'y'"]
    assert {tr.regions[g] for g in stores["gm"]} == {"output 0 'z'"}
    first_row = 32 * 4096 * 2  # block 1 starts at row 32 (64 rows over 2 cores)
    assert list(loads["gm_off"][::2]) == [first_row + i * 8192 for i in range(len(loads) // 2)]
    # Flags: every WaitFlag consumes a SetFlag of the same event id issued before it.
    match = match_flags(recs["kind"].tolist(), recs["key"].tolist())
    waits = np.flatnonzero(recs["kind"] == WAIT)
    assert len(waits) and all(0 <= match[i] < i and recs["key"][match[i]] == recs["key"][i] for i in waits)


def test_trace_is_off_by_default_and_changes_nothing():
    x, y, plain = run_add(4, trace=False)
    _, _, traced = run_add(4, trace=True)
    assert plain.trace is None and traced.trace is not None
    np.testing.assert_array_equal(
        plain.outputs[0], (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)
    )
    np.testing.assert_array_equal(plain.outputs[0], traced.outputs[0])
    strip = lambda c: {k: v for k, v in c.items() if k != "kernel_seconds"}  # noqa: E731
    assert strip(plain.counters) == strip(traced.counters)


def test_trace_records_tque_edges_casts_and_barriers():
    n = 3 * 6912 + 100  # one core: three full tiles and a tail, so the queues' slots are reused
    y = np.linspace(-0.9, 0.9, n).astype(ml_dtypes.bfloat16)
    dy = np.ones(n, ml_dtypes.bfloat16)
    res = simulate_project(
        ACOS_GRAD_PROJECT,
        "acos_grad_v2",
        inputs=[y, dy],
        outputs=[((n,), ml_dtypes.bfloat16)],
        attrs=[],
        target=T910B,
        cores=1,
        ub_capacity=WHOLE_UB,
        trace=True,
    )
    recs = res.trace.block(0)
    api = np.array(res.trace.apis)[recs["api"]]
    kind = recs["kind"]
    # EnQue -> DeQue (forward) and FreeTensor -> AllocTensor (reverse) are flags on queue keys.
    for what, k in (("TQue::EnQue", SET), ("TQue::DeQue", WAIT), ("TQue::FreeTensor", SET)):
        assert set(kind[api == what]) == {k}, what
        assert all(recs["key"][api == what] & QUEUE_KEY), what
    match = match_flags(kind.tolist(), recs["key"].tolist())
    for i in np.flatnonzero(api == "TQue::DeQue"):
        assert api[match[i]] == "TQue::EnQue"
    reused = [i for i in np.flatnonzero(api == "TQue::AllocTensor") if kind[i] == WAIT]
    assert reused and all(api[match[i]] == "TQue::FreeTensor" for i in reused)
    # Casts carry both dtypes: bf16 -> f32 in, f32 -> bf16 out; the math is f32.
    casts = recs[api == "Cast"]
    pairs = {(DTYPE_NAMES[c["dtype2"]], DTYPE_NAMES[c["dtype"]]) for c in casts}
    assert pairs == {("bf16", "f32"), ("f32", "bf16")}
    assert {DTYPE_NAMES[d] for d in recs["dtype"][(api == "Div") | (api == "Sqrt")]} == {"f32"}
    bars = recs[kind == BARRIER]
    assert len(bars) == (api == "PipeBarrier").sum() > 0 and set(bars["pipe"]) == {PIPE_V}


@pytest.mark.parametrize("case", [1, 4, 6])
def test_trace_ub_operands_follow_the_kernel_layout(case):
    """Case 6 moves y 256 B down in its slot: what the bank-conflict model reads."""
    _, _, res = run_add(case, cores=1, rows=16, copy_len=4096 if case != 6 else 4064)
    recs = res.trace.block(0)
    api = np.array(res.trace.apis)[recs["api"]]
    y_slot0 = {1: 32768, 4: 32768, 6: 32768 - 256}[case]
    assert recs["ub"][api == "Add"][0][2] == y_slot0
