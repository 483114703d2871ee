"""Single-pass Welford statistics in column-chunked row kernels (issue 7, seed 002).

When one row does not fit in UB, a row function computing ``mean(x)`` and ``mean((x - mean)**2)``
gets its mean and variance from one pass over the row's chunks (lane-wise Welford, then a Chan
merge of the lanes: ``passes/chunk_rows.py`` ``welford``, ``kernel/rows.py`` ``WelfordChunk`` /
``WelfordVar``), so LayerNorm-family kernels read their inputs twice, not three times.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dsl
from dsl import Tensor, bf16, f16, f32
from backends.ascendc.compile import lower
from backends.ascendc.explain_rows import chunk_plan, row_step
from backends.ascendc.simulate import generated_project, simulate
from backends.ascendc.targets import TARGETS

from row_cases import BY_NAME


@dsl.op(dtypes=(f32, f16, bf16))
def sum4_var(a: Tensor[..., "C"], b: Tensor[..., "C"], c: Tensor[..., "C"], d: Tensor[..., "C"]):
    x = a + b + c + d  # four row inputs: one whole row takes more UB than a chunk and its Welford lanes
    m = dsl.mean(x, axis=-1, keepdims=True)
    v = dsl.mean((x - m) * (x - m), axis=-1, keepdims=True)
    mean = dsl.cast(m, f32)
    var = dsl.cast(v, f32)
    return mean, var


def _model(x: np.ndarray, per: int) -> tuple[np.float32, np.float32]:
    """The kernel's arithmetic (WelfordChunk, WelfordVar) in f32, chunk by chunk."""
    f = np.float32
    cols = x.size
    chunks = -(-cols // per)
    lane_mean = np.zeros(per, f)
    lane_m2 = np.zeros(per, f)
    for k in range(chunks):
        c = x[k * per : (k + 1) * per].astype(f)
        n = f(k + 1)
        if k == 0:
            lane_mean[:] = c
            lane_m2[:] = 0
        else:
            d = (c - lane_mean[: c.size]) * (f(1) / n)
            lane_mean[: c.size] += d
            lane_m2[: c.size] += d * d * (n * (n - f(1)))
    tail = cols - (chunks - 1) * per
    w = lane_mean * f(chunks - 1)
    w[:tail] += lane_mean[:tail]
    mean = f(w.sum(dtype=f) * (f(1) / f(cols)))
    d = lane_mean - mean
    d = d * d
    s = d * f(chunks - 1)
    s[:tail] += d[:tail]
    s += lane_m2
    return mean, f(s.sum(dtype=f) * (f(1) / f(cols)))


def test_seed_check_1_3_5_7():
    """Seed 002's check: [1, 3, 5, 7] in chunks of 2 rolls lane means [3, 5] and M2 [8, 8]; the
    merge gives mean 4 and variance 5 (without the between-lanes term it would be 4)."""
    mean, var = _model(np.array([1, 3, 5, 7], np.float32), 2)
    assert (mean, var) == (4.0, 5.0)
    mean, var = _model(np.array([1, 3, 5, 7, 9], np.float32), 2)  # a tail chunk of one column
    assert (mean, var) == (5.0, 8.0)


def _tiny(usable: int, target: str = "ascend910b"):
    tgt = TARGETS[target]
    return dataclasses.replace(tgt, ub_bytes=tgt.ub_bytes - tgt.ub_usable_bytes + usable)


def _forcing_usable(op, t, cols: int, per: int, target: str = "ascend910b") -> int:
    """A UB size (usable bytes) where not one row of ``cols`` fits and the chunks take ``per`` columns."""
    plans = lower(op, target).plan.row_plans
    full = plans[(t, 0)]
    twin = plans[(t, max(k for d, k in plans if d == t))]
    for usable in range(256, 1 << 18, 32):
        if row_step(full, cols, usable, 1) == (0, 0) and chunk_plan(twin, cols, usable)[0] == per:
            return usable
    raise AssertionError(f"no UB size gives chunks of {per} for rows of {cols}")


def _run(op, args, attrs, usable, target="ascend910b", cores=1):
    """Simulate the target's project on a UB of ``usable`` bytes (the host reads the UB size)."""
    project = generated_project(op, target)
    saved = TARGETS[target]
    TARGETS[target] = _tiny(usable, target)
    try:
        return simulate(op, args, attrs, target=target, cores=cores, project=project, strict=True)
    finally:
        TARGETS[target] = saved


def test_seed_check_on_the_emulator():
    """[1, 3, 5, 7] scaled to the kernel's 64-column chunks: a row of 128 in two chunks of 64,
    lanes 0-31 see 1 then 5, lanes 32-63 see 3 then 7: mean 4, variance 5, exactly (the variance
    written as (x - mean) * (x - mean) here)."""
    t = dsl.dtypes.dtype_from_name("f32")
    x = np.repeat(np.array([1, 3, 5, 7], np.float32), 32)[None, :].repeat(2, axis=0)
    zero = np.zeros_like(x)
    usable = _forcing_usable(sum4_var, t, 128, 64)
    (mean, var), result = _run(sum4_var, [x, zero, zero, zero], {}, usable)
    assert result.tiling_key == 1  # the chunked twin
    assert mean.tolist() == [[4.0], [4.0]]
    assert var.tolist() == [[5.0], [5.0]]


@pytest.mark.parametrize("tname", ["f32", "f16", "bf16"])
def test_random_rows_against_numpy(tname):
    """Random rows (an offset mean: the naive E[x^2] - E[x]^2 would lose digits) in chunks with a
    tail, against numpy's two-pass f32 statistics, within the precision standard's f32 tolerance."""
    t = dsl.dtypes.dtype_from_name(tname)
    rng = np.random.default_rng(11)
    cols = 1001
    x = (rng.standard_normal((3, cols)) * 2 + 30).astype(t.np)
    zero = np.zeros_like(x)
    usable = _forcing_usable(sum4_var, t, cols, 256)  # 3 chunks of 256, a tail of 233
    (mean, var), result = _run(sum4_var, [x, zero, zero, zero], {}, usable, cores=2)
    assert result.tiling_key == 1
    x32 = x.astype(np.float32)
    want_mean = x32.mean(-1, keepdims=True, dtype=np.float32)
    want_var = ((x32 - want_mean) ** 2).mean(-1, keepdims=True, dtype=np.float32)
    assert dsl.precision.compare(mean, want_mean, dsl.precision.APPROX).ok, (mean, want_mean)
    assert dsl.precision.compare(var, want_var, dsl.precision.APPROX).ok, (var, want_var)
    model = np.array([_model(row, 256) for row in x32], np.float32)
    np.testing.assert_allclose(model[:, :1], mean, rtol=1e-6)
    np.testing.assert_allclose(model[:, 1:], var, rtol=1e-5)


def _mte2_bytes(name, t, cols, attrs, target="ascend910b"):
    case = BY_NAME[name]
    rng = np.random.default_rng(1)
    args = case.make(rng, t, (2, cols), **attrs)
    got, result = simulate(case.op, args, attrs, target=target, cores=1, strict=True)
    ref = case.op.reference(*args, **attrs)
    for out, r, g in zip(case.op.outputs, ref, got):
        if r is not None:
            assert dsl.precision.compare(g, r, rtol=2e-4).ok, out
    return args, result


@pytest.mark.parametrize(
    "name, attrs",
    [("layer_norm", {"with_beta": True}), ("add_layer_norm", {"with_bias": True, "additional_output": True})],
)
def test_layer_norms_read_their_rows_twice(name, attrs):
    """The chunked kernel copies each row input in twice (statistics, then outputs), gamma and
    beta once per row (the output pass) and a bias added to the rows twice: MTE2 bytes on the
    emulator (the multi-pass kernel read the rows three times)."""
    t = dsl.dtypes.dtype_from_name("f16")
    rows, cols = 2, 70000
    args, result = _mte2_bytes(name, t, cols, attrs)
    assert result.tiling_key >= 2  # a chunked twin
    names = BY_NAME[name].op.inputs
    reads = {"gamma": 1, "beta": 1, "bias": 2}
    row_in = sum(a.nbytes for a in args if a is not None and a.ndim == 2)
    col_in = sum(a.nbytes * reads[n] for n, a in zip(names, args) if a is not None and a.ndim == 1)
    assert result.counters["MTE2"]["bytes_in"] == 2 * row_in + rows * col_in


SEED_UB = 262144 - 256  # seed 002: the 950's UB less 256 reserved bytes


def test_seed_welford_tiling_numbers():
    """Seed 002's worked Welford example (QuantizeAddLayerNorm, 131072 f16 columns, broadcast
    bias, per-channel scales, no zero points): 46 B per column (every slice double-buffered) ->
    colsPerLoop 5632, 24 loops, a tail of 1536. Our host arithmetic (explain_rows.chunk_plan, the
    generated TilingFunc's model) on the seed's budget gives those numbers; our plan's buffer set
    takes 48 B per column with the chunks alternating between two slots as the seed's do (34 with
    one: plan-rows reuses dead buffers for the f32 widenings, plus Welford's 12 B of lanes) and
    ReduceRows' scratch (the block values and the work area: 8 x ceil(n / 64) + 8 x ceil(n / 512)
    + 8 floats), so on the seed's UB: 5376 columns, 25 loops, tail 2048; on ascend950's usable UB
    (253952 B): 5184 columns, 26 loops, tail 1472, which the emulator confirms by its copies."""
    seed = dict(align=16, perrow=16, count_align=1, col=46, row=0, row1=0, perrow_bytes=0)
    seed.update(perrow_bytes1=0, scratch=False, extra=0)
    per, chunks = chunk_plan(seed, 131072, SEED_UB)
    assert (per, chunks, 131072 - (chunks - 1) * per) == (5632, 24, 1536)

    case = BY_NAME["quantize_add_layer_norm"]
    t = dsl.dtypes.dtype_from_name("f16")
    plan = lower(case.op, "ascend950").plan
    twin = plan.row_plans[(t, plan.chunk_key_offset)]  # per_channel, no residual, no zero points
    assert twin["col"] + twin["row1"] == 34
    assert twin["col"] + twin["row"] == 48
    per, chunks = chunk_plan(twin, 131072, SEED_UB)
    assert (per, chunks, 131072 - (chunks - 1) * per) == (5376, 25, 2048)
    per, chunks = chunk_plan(twin, 131072, TARGETS["ascend950"].ub_usable_bytes)
    assert (per, chunks, 131072 - (chunks - 1) * per) == (5184, 26, 1472)
    assert chunk_plan(twin, 130000, TARGETS["ascend950"].ub_usable_bytes) == (5000, 26)

    attrs = case.attrs[0]
    assert attrs == {"quant_mode": "per_channel", "additional_output": False, "with_zero_points": False}
    args = case.make(np.random.default_rng(2), t, (131072,), **attrs)
    got, result = simulate(case.op, args, attrs, target="ascend950", cores=1, strict=True)
    assert result.tiling_key == plan.chunk_key_offset
    # per chunk: x1, x2, bias for the statistics; x1, x2, bias, gamma, beta, scales for the output
    assert result.counters["MTE2"]["dma"] == 26 * (3 + 6)
    ref = case.op.reference(*args, **attrs)
    y, want = np.asarray(got[0]).astype(int), np.asarray(ref[0]).astype(int)
    assert np.abs(y - want).max() <= 1 and np.mean(y != want) <= 0.02
