"""``Tensor[bool_]`` inputs, ``&`` ``|`` ``~`` and infinity literals (issue 18 items 6 and 7).

A bool_ input holds one byte per element and any nonzero byte is true, so every mask here mixes
the bytes 0, 1, 2, 128 and 255. Each case checks reference == an independent numpy formula and
the kernel on the emulator (strict sync) == reference, on both targets, bit for bit (bool outputs
byte for byte); the softmax, which is not exact, under the precision standard."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dsl
from dsl import Scalar, Tensor, bf16, bool_, f16, f32, i32
from backends.ascendc.simulate import simulate
from exact_check import BF16, same_bits

TARGETS = ("ascend910b", "ascend950")
NP = {"f16": np.float16, "bf16": BF16, "f32": np.float32}
BYTES = np.array([0, 1, 2, 128, 255, 0], np.uint8)


def bools(rng, shape) -> np.ndarray:
    return rng.choice(BYTES, shape).view(np.bool_)


def truth(m: np.ndarray) -> np.ndarray:
    return m.view(np.uint8) != 0


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        return a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8))
    return same_bits(a, b)


def check(op, args, expected, targets=TARGETS, cores=None):
    """reference == numpy (exact), and simulate == reference on each target (exact)."""
    ref = op.reference(*args)
    refs = ref if isinstance(ref, tuple) else (ref,)
    exps = expected if isinstance(expected, tuple) else (expected,)
    for k, (r, e) in enumerate(zip(refs, exps, strict=True)):
        assert same(r, e), f"{op.name} output {k}: reference {r} != numpy {e}"
    for target in targets:
        got, _ = simulate(op, args, {}, target=target, cores=cores, strict=True)
        gots = got if isinstance(got, tuple) else (got,)
        for k, (g, r) in enumerate(zip(gots, refs, strict=True)):
            assert same(g, r), f"{op.name} output {k} on {target}: simulate {g} != reference {r}"


@dsl.op(dtypes=(f16, bf16, f32))
def masked_fill_scalar(x: Tensor, mask: Tensor[bool_], value: Scalar):
    return dsl.where(mask, value, x)


@dsl.op(dtypes=(f16, bf16, f32))
def masked_fill_neg_inf(x: Tensor, mask: Tensor[bool_]):
    return dsl.where(mask, x, float("-inf"))


@dsl.op(dtypes=(f16, bf16, f32), broadcast=True)
def masked_fill_bcast(x: Tensor, mask: Tensor[bool_], value: Scalar):
    by_const = dsl.where(mask, -2.5, x)
    by_scalar = dsl.where(mask, value, x)
    return by_const, by_scalar


@pytest.mark.parametrize("t", ["f16", "bf16", "f32"])
def test_masked_fill_with_a_bool_mask(t):
    rng = np.random.default_rng(1)
    n = 1000  # a tail that is no whole repeat
    x = rng.standard_normal(n).astype(NP[t])
    m = bools(rng, n)
    value = np.array([7.25], NP[t])
    check(masked_fill_scalar, (x, m, value), np.where(truth(m), value[0], x), cores=3)


@pytest.mark.parametrize("t", ["f16", "bf16", "f32"])
def test_where_mask_x_minus_infinity_stores_minus_infinity(t):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(777).astype(NP[t])
    m = bools(rng, 777)
    want = np.where(truth(m), x, np.array(-np.inf, NP[t]))
    assert np.isneginf(want.astype(np.float32)).sum() == (~truth(m)).sum() > 0
    check(masked_fill_neg_inf, (x, m), want)


@pytest.mark.parametrize("t", ["f16", "f32"])
@pytest.mark.parametrize("mask_shape", [(6, 1), (1, 40)], ids=["rows", "cols"])
def test_masked_fill_broadcast_mask(t, mask_shape):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 40)).astype(NP[t])
    m = bools(rng, mask_shape)
    value = np.array([3.5], NP[t])
    want = (np.where(truth(m), np.array(-2.5, NP[t]), x), np.where(truth(m), value[0], x))
    check(masked_fill_bcast, (x, m, value), want)


@dsl.op(dtypes=(f32,))
def bool_casts(x: Tensor, mask: Tensor[bool_]):
    as_f32 = dsl.cast(mask, f32)
    as_i32 = dsl.cast(mask, i32)
    as_f16 = dsl.cast(mask, f16)
    as_bf16 = dsl.cast(mask, bf16)
    shifted = as_f32 + x
    return as_f32, as_i32, as_f16, as_bf16, shifted


def test_casts_of_a_bool_input_are_zero_one():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(600).astype(np.float32)
    m = bools(rng, 600)
    b = truth(m)
    want = (
        b.astype(np.float32),
        b.astype(np.int32),
        b.astype(np.float16),
        b.astype(BF16),
        b.astype(np.float32) + x,
    )
    check(bool_casts, (x, m), want)


@dsl.op(dtypes=(f32,))
def mask_logic(a: Tensor, b: Tensor, mask: Tensor[bool_]):
    both = (a > 0) & mask
    either = mask | (b < 1)
    neither = ~mask
    picked = dsl.where(both | ~(b < 1), a, b)
    return both, either, neither, picked


def test_and_or_not_on_comparisons_and_bool_inputs():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(900).astype(np.float32)
    b = (rng.standard_normal(900) * 2).astype(np.float32)
    m = bools(rng, 900)
    mb = truth(m)
    want = ((a > 0) & mb, mb | (b < 1), ~mb, np.where(((a > 0) & mb) | ~(b < 1), a, b))
    outs = mask_logic.reference(a, b, m)
    for o in outs[:3]:
        assert set(np.unique(o.view(np.uint8))) <= {0, 1}  # stored bools are bytes 0/1
    check(mask_logic, (a, b, m), want, cores=2)


@dsl.op(dtypes=(f32,))
def copy_and_invert(x: Tensor, mask: Tensor[bool_]):
    same_mask = mask
    inverted = ~mask
    return same_mask, inverted


def test_a_returned_bool_input_is_a_copy_and_its_inverse_zero_one():
    rng = np.random.default_rng(6)
    x = rng.standard_normal(300).astype(np.float32)
    m = bools(rng, 300)
    inverted = (~truth(m)).view(np.uint8).view(np.bool_)
    check(copy_and_invert, (x, m), (m, inverted))  # the copy keeps the bytes 2, 128, 255


@dsl.op(dtypes=(f16, bf16, f32))
def attention_softmax(x: Tensor[..., "C"], mask: Tensor[bool_, ..., "C"], padding: Tensor[bool_, ..., "C"]):
    keep = mask & ~padding
    s = dsl.where(keep, x, -math.inf)
    e = dsl.exp(s - dsl.max(s, axis=-1, keepdims=True))
    return e / dsl.sum(e, axis=-1, keepdims=True)


@dsl.op(dtypes=(f16, bf16, f32))
def masked_rows(x: Tensor[..., "C"], mask: Tensor[bool_, ..., "C"]):
    return dsl.where(mask, x, -float("inf"))


def _attention_inputs(rng, t, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(NP[t])
    mask = bools(rng, (rows, cols))
    pad = bools(rng, (rows, cols))
    mask.view(np.uint8)[:, 0] = 2  # every row keeps one element (no all -inf row)
    pad.view(np.uint8)[:, 0] = 0
    return x, mask, pad


@pytest.mark.parametrize("t", ["f16", "bf16", "f32"])
def test_masked_rows_store_minus_infinity(t):
    rng = np.random.default_rng(7)
    x, mask, _ = _attention_inputs(rng, t, 5, 37)
    check(masked_rows, (x, mask), np.where(truth(mask), x, np.array(-np.inf, NP[t])))


@pytest.mark.parametrize("t", ["f16", "bf16", "f32"])
def test_attention_mask_softmax_with_minus_infinity(t):
    rng = np.random.default_rng(8)
    x, mask, pad = _attention_inputs(rng, t, 6, 45)
    keep = truth(mask) & ~truth(pad)
    s = np.where(keep, x.astype(np.float64), -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    golden = (e / e.sum(axis=-1, keepdims=True)).astype(NP[t])
    ref = attention_softmax.reference(x, mask, pad)
    assert np.all(ref.astype(np.float32)[~keep] == 0)
    c = dsl.precision.compare(ref, golden, rtol=2e-4)
    assert c.ok, f"reference vs numpy: {c}"
    for target in TARGETS:
        got, _ = simulate(attention_softmax, (x, mask, pad), {}, target=target, strict=True)
        c = dsl.precision.compare(got, ref, rtol=2e-4)
        assert c.ok, f"simulate on {target} vs reference: {c}"


@dsl.op(dtypes=(f32, f16))
def infinity_literals(x: Tensor):
    hi = dsl.minimum(x, float("inf")) + dsl.maximum(x, -math.inf)
    lo = dsl.where(x > 0, -math.inf, -float("inf"))
    clipped = dsl.where(x > 1, float("+inf"), dsl.where(x < -1, float("-inf"), x))
    return hi, lo, clipped


def test_infinity_literal_spellings():
    text = infinity_literals.ir(dtype=f32)
    assert text.count("value = inf") == 2 and text.count("value = -inf") == 4, text
    rng = np.random.default_rng(9)
    for t in ("f32", "f16"):
        x = (rng.standard_normal(500) * 2).astype(NP[t])
        inf = np.array(np.inf, NP[t])
        want = (
            x + x,
            np.full_like(x, -np.inf),
            np.where(x > 1, inf, np.where(x < -1, -inf, x)),
        )
        check(infinity_literals, (x,), want, targets=("ascend910b",))


@dsl.op(dtypes=(f32, f16))
def scalar_logic(x: Tensor, s: Scalar, t: Scalar, mask: Tensor[bool_]):
    both = (s > 0) & ~(t > 1)  # && and ! on the scalar unit
    y = dsl.where(both, x, 0.0)
    z = dsl.where(both | mask, x, 1.0)
    return y, z


@pytest.mark.parametrize("s, t", [(1.0, 0.5), (1.0, 2.0), (-1.0, 0.5)])
def test_and_or_not_of_scalar_comparisons(s, t):
    rng = np.random.default_rng(10)
    x = rng.standard_normal(300).astype(np.float32)
    m = bools(rng, 300)
    both = s > 0 and not t > 1
    want = (np.where(both, x, np.float32(0)), np.where(both | truth(m), x, np.float32(1)))
    args = (x, np.array([s], np.float32), np.array([t], np.float32), m)
    check(scalar_logic, args, want, targets=("ascend910b",))


@dsl.op(dtypes=(f32, i32))
def bools_mixed(x: Tensor, mask: Tensor[bool_]):
    nonzero_kept = dsl.cast(x, bool_) & mask
    agree = mask == (x > 0)
    chosen = dsl.where(x > 1, mask, ~mask)
    picked = dsl.where(mask != (x < 0), x, x * 2)
    return nonzero_kept, agree, chosen, picked


@pytest.mark.parametrize("t", [np.float32, np.int32], ids=["f32", "i32"])
def test_bool_inputs_with_casts_comparisons_and_bool_branches(t):
    rng = np.random.default_rng(11)
    x = rng.integers(-3, 4, 500).astype(t)
    m = bools(rng, 500)
    mb = truth(m)
    want = ((x != 0) & mb, mb == (x > 0), np.where(x > 1, mb, ~mb), np.where(mb != (x < 0), x, x * 2))
    check(bools_mixed, (x, m), want, targets=("ascend910b",))


def test_an_op_whose_only_input_is_a_bool_mask(write_module):
    """Issue 18 item 3: an op whose only input is a pinned Tensor[bool_], cast to i32 and to i8,
    builds (its TilingFunc once did not) and is exact for any nonzero byte."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, bool_, i32, i8

        @dsl.op(dtypes=(i32,))
        def mask_to_int(mask: Tensor[bool_]):
            a = dsl.cast(mask, i32)
            b = dsl.cast(mask, i8)
            return a, b
        """)
    m = np.array([0, 1, 2, 255, 0, 7, 128] * 300, np.uint8).view(np.bool_)
    want = (m.view(np.uint8) != 0).astype(np.int32)
    check(mod.mask_to_int, (m,), (want, want.astype(np.int8)), cores=3)
