"""Row operators with one value per row as an input (``Tensor[..., 1]``, ``Tensor["M", 1]``) and with
a block of rows repeated along the leading dims (``mask: Tensor["S", "C"]`` with
``x: Tensor[..., "S", "C"]``, issue 18 items 8 and 9): simulate == reference (bit-exact where the
semantics are exact, the precision standard for softmax), reference == a numpy formula, and the
host tiling's shape checks."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest

import dsl
from backends.ascendc.compile import lower
from backends.ascendc.explain_rows import row_step
from backends.ascendc.sim.driver import simulate_project
from backends.ascendc.simulate import simulate
from backends.ascendc.targets import TARGETS
from dsl import Tensor, bf16, f16, f32, i32
from exact_check import BF16, check, same_bits

TRANSCENDENTAL_RTOL = 2e-4  # as test_rows_simulate: Exp-based formulas differ from libm by a few ulps


@dsl.op(dtypes=(f16, bf16, f32))
def per_token_scale(x: Tensor[..., "C"], scale: Tensor[f32, ..., 1]):
    return x * scale


@dsl.op(dtypes=(f16, bf16, f32))
def per_token_dequant(x: Tensor[..., "C"], scale: Tensor[f32, ..., 1]):
    return dsl.cast(x * scale, x.dtype)


@dsl.op(dtypes=(f16, f32))
def row_mask(x: Tensor[..., "C"], m: Tensor[..., 1]):
    return dsl.where(m > 0, x, 0.0)


@dsl.op(dtypes=(f32, f16))
def scale_m(x: Tensor["M", "C"], s: Tensor["M", 1]):
    return x * s + 1.0


@dsl.op(dtypes=(f32, f16, bf16))
def causal_softmax(x: Tensor[..., "S", "C"], mask: Tensor["S", "C"]):
    y = x + mask
    e = dsl.exp(y - dsl.max(y, axis=-1, keepdims=True))
    return e / dsl.sum(e, axis=-1, keepdims=True)


@dsl.op(dtypes=(f32, f16))
def add_block(x: Tensor[..., "S", "C"], mask: Tensor["S", "C"]):
    return x + mask * 2.0


@dsl.op(dtypes=(f32,), broadcast=True)
def bc_scale_m(x: Tensor["M", "C"], s: Tensor["M", 1]):
    return x * s


@dsl.op(dtypes=(f32,))
def add_fixed_block(x: Tensor["R", "C"], y: Tensor["S", "R", "C"]):
    return y - x


@dsl.op(dtypes=(f16, bf16))
def masked_bias(
    x: Tensor[..., "A", "S", "C"], bias: Tensor[f32, "A", "S", "C"], keep: Tensor[..., "A", "S", 1]
):
    return dsl.where(keep > 0, x + bias, -x)


@dsl.op(dtypes=(i32,))
def int_compares(h: Tensor[..., "S", "C"], a: Tensor["S", "C"], m: Tensor["C"]):
    le = dsl.cast((dsl.relu(a) * m) <= h, i32)
    gt = dsl.cast(m > h, i32)
    return le, gt


def _np_type(t):
    return BF16 if t is bf16 else t.np


# -- Tensor[..., 1] / Tensor["M", 1] ------------------------------------------------------------


@pytest.mark.parametrize("t", [f16, bf16, f32], ids=lambda t: t.name)
@pytest.mark.parametrize("lead, cols, cores", [((2, 3), 7, 8), ((50,), 4097, 8), ((4, 33), 128, None)])
def test_per_token_scale_is_exact(t, lead, cols, cores):
    rng = np.random.default_rng(cols)
    x = rng.uniform(-4, 4, lead + (cols,)).astype(_np_type(t))
    scale = rng.uniform(-2, 2, lead + (1,)).astype(np.float32)
    want = x.astype(np.float32) * scale  # f16/bf16 x f32 computes in f32: an f32 output
    check(per_token_scale, [x, scale], want, cores=cores)
    check(per_token_dequant, [x, scale], want.astype(_np_type(t)), cores=cores)


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("t", [f16, f32], ids=lambda t: t.name)
def test_row_mask_selects_whole_rows(t, target):
    rng = np.random.default_rng(1)
    x = rng.uniform(-4, 4, (3, 17, 300)).astype(t.np)
    m = rng.choice(np.array([-1.0, 0.0, 2.0], t.np), (3, 17, 1))
    want = np.where(m > 0, x, np.zeros((), t.np)).astype(t.np)
    ref = row_mask.reference(x, m)
    assert same_bits(ref, want)
    got, _ = simulate(row_mask, [x, m], {}, target=target, cores=8, strict=True)
    assert same_bits(got, ref)


@pytest.mark.parametrize("t", [f32, f16], ids=lambda t: t.name)
@pytest.mark.parametrize("rows, cols", [(1, 1), (37, 1000), (300, 65)])
def test_m1_with_m_c(t, rows, cols):
    rng = np.random.default_rng(rows)
    x = rng.uniform(-4, 4, (rows, cols)).astype(t.np)
    s = rng.uniform(-2, 2, (rows, 1)).astype(t.np)
    want = (x.astype(np.float32) * s.astype(np.float32) + np.float32(1)).astype(t.np)
    check(scale_m, [x, s], want, cores=8)


def test_broadcast_true_with_named_dims_is_a_row_operator():
    """broadcast=True concerns unshaped tensors; with named dims everywhere the op is a row operator."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, (37, 130)).astype(np.float32)
    s = rng.uniform(-2, 2, (37, 1)).astype(np.float32)
    assert "broadcast = false" in bc_scale_m.ir()
    check(bc_scale_m, [x, s], x * s, cores=8)
    project = bc_scale_m.compile(out_dir=tempfile.mkdtemp(prefix="dslc_bc_scale_m_"))
    assert "Kind::PER_ROW" in (project / "op_host" / "bc_scale_m.cpp").read_text()


def _host_error(op, inputs, out_shape, target="ascend910b"):
    project = op.compile(out_dir=tempfile.mkdtemp(prefix=f"dslc_{op.name}_"))
    with pytest.raises(dsl.SimulationError) as e:
        simulate_project(
            project,
            op.name,
            inputs=inputs,
            outputs=[(out_shape, np.float32)],
            attrs=[],
            target=TARGETS[target],
        )
    return str(e.value)


@pytest.mark.parametrize("bad", [(2, 3, 2), (2, 4, 1), (6, 1), (3, 2)])
def test_host_rejects_a_per_row_input_of_other_rows(bad):
    """Python's checks come first in op.simulate; the generated TilingFunc checks the same on its own
    (the shapes reach it straight from simulate_project here), naming the input."""
    x = np.ones((2, 3, 7), np.float32)
    s = np.ones(bad, np.float32)
    msg = _host_error(per_token_scale, [x, s], (2, 3, 7))
    assert (
        "input scale does not match the rows of input x (6 rows of 7 columns): rows are [..., C], columns [C], "
        "per-row values [..., 1], Scalars [1]" in msg
    ), msg
    with pytest.raises(dsl.ArgumentError, match="input 'scale'|inputs 'x' and 'scale'"):
        per_token_scale.simulate(x, s)


def test_host_rejects_m1_of_other_rows():
    msg = _host_error(scale_m, [np.ones((5, 7), np.float32), np.ones((4, 1), np.float32)], (5, 7))
    assert "input s does not match the rows of input x (5 rows of 7 columns)" in msg, msg


# -- [S, C] repeated along the leading dims of [..., S, C] -------------------------------------------


def _causal_golden(x, mask):
    y = x.astype(np.float32) + mask.astype(np.float32)
    e = np.exp(y - y.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _causal_mask(rng, t, s, c):
    """A causal mask (0 on and below the diagonal, -10000 above) plus noise, so rows differ."""
    tri = np.where(np.arange(c)[None, :] <= np.arange(s)[:, None], 0.0, -10000.0)
    return (tri + rng.uniform(-1, 1, (s, c))).astype(_np_type(t))


def _steps(op, t, target, rows, cols, cores):
    """(rowStep, rows of the first core) the host picks (the model test_row_tiling_numbers checks)."""
    plan = lower(op, target).plan
    per_core = -(-rows // cores)  # seed 002's split: ceil, the cores used, ceil again
    per_core = -(-rows // -(-rows // per_core))
    _, step = row_step(plan.row_plans[(t, 0)], cols, TARGETS[target].ub_usable_bytes, per_core)
    return step, per_core


CAUSAL = [(s, c) for s in (1, 5, 64) for c in (7, 128, 4097)]


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("s, c", CAUSAL, ids=[f"S{s}-C{c}" for s, c in CAUSAL])
def test_causal_mask_softmax(s, c, target):
    rng = np.random.default_rng(s * 10000 + c)
    t = f32
    x = rng.uniform(-3, 3, (2, 3, s, c)).astype(t.np)
    mask = _causal_mask(rng, t, s, c)
    ref = causal_softmax.reference(x, mask)
    assert dsl.precision.compare(ref, _causal_golden(x, mask).astype(t.np), rtol=TRANSCENDENTAL_RTOL).ok
    for cores in (1, 8, None):
        got, _ = simulate(causal_softmax, [x, mask], {}, target=target, cores=cores, strict=True)
        cmp = dsl.precision.compare(got, ref, rtol=TRANSCENDENTAL_RTOL)
        assert cmp.ok, f"S={s} C={c} {target} cores={cores}: {cmp}"
        exact_got, _ = simulate(add_block, [x, mask], {}, target=target, cores=cores, strict=True)
        assert same_bits(exact_got, add_block.reference(x, mask)), f"S={s} C={c} {target} cores={cores}"


def test_causal_matrix_has_steps_that_wrap_and_steps_that_align():
    """The matrix above covers steps whose rows do not divide S (a step wraps at S: two copies or
    more) and steps that cover whole periods."""
    divides, wraps = set(), set()
    for s, c in CAUSAL:
        for cores in (1, 8, TARGETS["ascend910b"].aiv_cores):
            step, per_core = _steps(causal_softmax, f32, "ascend910b", 6 * s, c, cores)
            (divides if step % s == 0 and per_core % s == 0 else wraps).add((s, c))
    assert {(5, 7), (5, 128), (64, 4097), (5, 4097)} <= wraps
    assert {(64, 7), (5, 7)} <= divides


@pytest.mark.parametrize("t", [f16, bf16], ids=lambda t: t.name)
def test_causal_mask_softmax_narrow_types(t):
    rng = np.random.default_rng(5)
    x = rng.uniform(-3, 3, (2, 3, 5, 130)).astype(_np_type(t))
    mask = _causal_mask(rng, t, 5, 130)
    ref = causal_softmax.reference(x, mask)
    assert dsl.precision.compare(
        ref, _causal_golden(x, mask).astype(_np_type(t)), rtol=TRANSCENDENTAL_RTOL
    ).ok
    for target in ("ascend910b", "ascend950"):
        got, _ = simulate(causal_softmax, [x, mask], {}, target=target, cores=8, strict=True)
        assert dsl.precision.compare(got, ref, rtol=TRANSCENDENTAL_RTOL).ok


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_block_rows_too_long_for_ub(target):
    """Column-chunked twin: one row at a time, the block's row r % S chunk by chunk."""
    rng = np.random.default_rng(9)
    cols = 70001
    x = rng.uniform(-3, 3, (2, 3, cols)).astype(np.float32)
    mask = rng.uniform(-3, 3, (3, cols)).astype(np.float32)
    got, result = simulate(causal_softmax, [x, mask], {}, target=target, cores=4, strict=True)
    assert result.tiling_key >= 1  # the chunked kernel
    ref = causal_softmax.reference(x, mask)
    assert dsl.precision.compare(got, ref, rtol=TRANSCENDENTAL_RTOL).ok
    exact_got, _ = simulate(add_block, [x, mask], {}, target=target, cores=4, strict=True)
    assert same_bits(exact_got, (x + mask * np.float32(2)).astype(np.float32))


def test_block_copies_per_step_follow_the_wraps():
    """MTE2 copies per core: one per step for x, one per run of block rows for mask (a step of
    rows r0..r0+k copies ceil-many runs that wrap at S, never a row more)."""
    s, c, cores = 5, 7, 4
    x = np.ones((2, 3, s, c), np.float32)
    mask = np.ones((s, c), np.float32)
    _, result = simulate(add_block, [x, mask], {}, cores=cores, strict=True)
    rows = 6 * s
    per_core = -(-rows // cores)
    step, _ = _steps(add_block, f32, "ascend910b", rows, c, cores)
    for core, block in enumerate(result.counters["per_block"]):
        first = core * per_core
        mine = min(per_core, rows - first)
        want = 0
        for r0 in range(first, first + mine, step):
            k = min(step, first + mine - r0)
            runs, r = 0, r0
            while r < r0 + k:
                r += min(r0 + k - r, s - r % s)
                runs += 1
            want += 1 + runs  # x's rows in one copy, mask's in runs
        assert block["MTE2"]["dma"] == want, (core, block["MTE2"])


def test_block_of_a_fixed_rank_row():
    """x [R, C] repeats along S of y [S, R, C] (the leading dims are names, no '...')."""
    rng = np.random.default_rng(4)
    x = rng.uniform(-4, 4, (7, 33)).astype(np.float32)
    y = rng.uniform(-4, 4, (3, 7, 33)).astype(np.float32)
    check(add_fixed_block, [x, y], y - x, cores=8)


@pytest.mark.parametrize(
    "bad, got_text",
    [((4, 7), "[4, 7]"), ((5, 8), "[5, 8]"), ((2, 5, 7), "[2, 5, 7]")],
    ids=["S-differs", "C-differs", "three-dims"],
)
def test_host_rejects_a_block_of_other_dims(bad, got_text):
    x = np.ones((2, 3, 5, 7), np.float32)
    msg = _host_error(add_block, [x, np.ones(bad, np.float32)], (2, 3, 5, 7))
    assert (
        f"input mask [S, C] must have the last 2 dims of input x [2, 3, 5, 7] (it repeats along the others), "
        f"got {got_text}" in msg
    ), msg


def test_explain_counts_the_block_per_row_of_the_step(tmp_path, capsys):
    """--explain: the mask is a row buffer of the step (2 slots), in the UB formula's per-row bytes."""
    from pathlib import Path

    from dsl.cli import main

    src = Path(__file__).resolve().parents[1] / "corpus" / "causal_softmax.py"
    assert main(["compile", str(src), "-o", str(tmp_path), "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines.index(
        "@causal_softmax (T = f32, tiling key 0): rows of C elements at a pitch of C rounded up to 8; a step of "
        "rowStep rows"
    )
    ledger = lines[head : head + 10]
    assert (
        "  b1: row    4 B x 2 slot(s) x rowStep x pitch    %mask_t (causal_softmax.py:12) [block [S, C], repeated "
        "along the leading dims: copied per step]" in ledger
    )
    # x and the mask, f32 in two slots each: 16 B per column per row of the step
    assert (
        "  UB = pitch x 0 + scratch + pads + rowStep x (pitch x 16 + 8 x 36) <= 188160 B usable"
        in "\n".join(ledger)
    )


@pytest.mark.parametrize("t", [f16, bf16], ids=lambda t: t.name)
def test_a_three_dim_pinned_block_with_per_row_values(t):
    """bias [A, S, C] (f32, pinned) repeats every A * S rows; keep [..., A, S, 1] is one value per row."""
    rng = np.random.default_rng(6)
    x = rng.uniform(-4, 4, (3, 2, 5, 40)).astype(_np_type(t))
    bias = rng.uniform(-4, 4, (2, 5, 40)).astype(np.float32)
    keep = rng.choice(np.array([-1.0, 1.0], _np_type(t)), (3, 2, 5, 1))
    xf = x.astype(np.float32)
    want = np.where(keep.astype(np.float32) > 0, xf + bias, -xf)  # f32 output: bias is f32
    for cores in (1, 7):
        check(masked_bias, [x, bias, keep], want, cores=cores)


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_per_row_input_in_column_chunks(target):
    """Rows past UB: the chunked twin reads each row's scale and mask for every chunk it computes."""
    rng = np.random.default_rng(8)
    x = rng.uniform(-4, 4, (3, 100003)).astype(np.float32)
    scale = rng.uniform(-2, 2, (3, 1)).astype(np.float32)
    got, result = simulate(per_token_scale, [x, scale], {}, target=target, cores=2, strict=True)
    assert result.tiling_key >= 1  # the chunked kernel
    assert same_bits(got, x * scale)
    m = np.array([[1.0], [-1.0], [0.5]], np.float32)
    got, _ = simulate(row_mask, [x, m], {}, target=target, cores=2, strict=True)
    assert same_bits(got, np.where(m > 0, x, np.float32(0)))


def test_i32_compares_of_a_block_or_column_with_a_row():
    """legalize-casts computes i32 <=/> as max/min == c: the max of a block (or a column) and a row
    is a row (it kept the block's type: VerifyError, fuzz rowin seed 17)."""
    rng = np.random.default_rng(17)
    h = rng.integers(-20, 20, (2, 3, 5, 9)).astype(np.int32)
    a = rng.integers(-20, 20, (5, 9)).astype(np.int32)
    m = rng.integers(-3, 4, (9,)).astype(np.int32)
    want = ((np.maximum(a, 0) * m <= h).astype(np.int32), (m > h).astype(np.int32))
    check(int_compares, [h, a, m], want, cores=4)
