"""Issue 18 items 1-2: an explicit cast of a computed f16/bf16 value rounds it (DESIGN s2).

``s = x1 + x2`` on bf16 inputs holds its f32 sum; ``dsl.cast(s, bf16)`` / ``dsl.cast(s,
x1.dtype)`` / ``dsl.cast(dsl.cast(s, f32), bf16)`` round it there, ``dsl.cast(s, f32)`` is the
unrounded sum. Each case: reference == a numpy formula written here, and the generated kernel
on the emulator == reference, bit for bit (all of it is exact arithmetic)."""

from __future__ import annotations

import numpy as np
import pytest

from exact_check import BF16, check, same_bits

NP = {"bf16": BF16, "f16": np.float16}


def _inputs(t, n, seed=0):
    rng = np.random.default_rng(seed)
    # values whose f32 sum rarely is a bf16/f16 value: a second rounding would show
    x1 = rng.uniform(-3, 3, n).astype(t)
    x2 = rng.uniform(-3, 3, n).astype(t)
    return x1, x2


def _f32(a):
    return np.asarray(a).astype(np.float32)


SOURCE = """
    import dsl
    from dsl import Tensor, Scalar, bf16, f16, f32

    @dsl.op(dtypes=(bf16, f16))
    def round_trip(x1: Tensor, x2: Tensor):
        s = x1 + x2
        r = dsl.cast(dsl.cast(s, f32), {T})
        return r * x2

    @dsl.op(dtypes=(bf16, f16))
    def to_own_type(x1: Tensor, x2: Tensor):
        s = x1 + x2
        r = dsl.cast(s, x1.dtype)
        return r * x2

    @dsl.op(dtypes=(bf16, f16))
    def rounding_error(x1: Tensor, x2: Tensor):
        s = x1 + x2
        return dsl.cast(s, f32) - dsl.cast(dsl.cast(s, x1.dtype), f32)

    @dsl.op(dtypes=(bf16, f16))
    def scalar_rounded(x: Tensor, s: Scalar):
        t = dsl.cast(s * 3, x.dtype)
        return x * t
"""


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    import importlib.util
    import sys
    import textwrap

    mods = {}
    for t in ("bf16", "f16"):
        path = tmp_path_factory.mktemp(f"casts_{t}") / f"casts_{t}.py"
        path.write_text(textwrap.dedent(SOURCE.replace("{T}", t)))
        spec = importlib.util.spec_from_file_location(f"issue18_casts_{t}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        mods[t] = mod
    return mods


@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_round_trip_through_f32_rounds_once(ops, t):
    x1, x2 = _inputs(NP[t], 4096 + 17)
    r = (_f32(x1) + _f32(x2)).astype(NP[t])
    expected = (_f32(r) * _f32(x2)).astype(NP[t])
    unrounded = ((_f32(x1) + _f32(x2)) * _f32(x2)).astype(NP[t])
    assert not same_bits(expected, unrounded)  # the inputs tell the two apart
    check(ops[t].round_trip, (x1, x2), expected, cores=3)


@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_cast_to_own_dtype_rounds(ops, t):
    x1, x2 = _inputs(NP[t], 4096 + 17, seed=1)
    r = (_f32(x1) + _f32(x2)).astype(NP[t])
    check(ops[t].to_own_type, (x1, x2), (_f32(r) * _f32(x2)).astype(NP[t]), cores=5)


@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_cast_to_f32_is_the_unrounded_value(ops, t):
    x1, x2 = _inputs(NP[t], 1000, seed=2)
    s = _f32(x1) + _f32(x2)
    expected = s - _f32(s.astype(NP[t]))
    assert np.count_nonzero(expected) > 100
    check(ops[t].rounding_error, (x1, x2), expected)


@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_cast_of_scalar_math_rounds(ops, t):
    x = np.linspace(-2, 2, 333).astype(NP[t])
    s = np.array([0.3], NP[t])
    tt = (_f32(s)[0] * np.float32(3)).astype(NP[t])
    check(ops[t].scalar_rounded, (x, s), (_f32(x) * _f32(tt)).astype(NP[t]))


def test_cast_of_computed_value_on_ascend950(ops):
    from backends.ascendc.simulate import simulate

    x1, x2 = _inputs(BF16, 2049, seed=3)
    r = (_f32(x1) + _f32(x2)).astype(BF16)
    expected = (_f32(r) * _f32(x2)).astype(BF16)
    ref = ops["bf16"].to_own_type.reference(x1, x2)
    assert same_bits(ref, expected)
    got, _ = simulate(ops["bf16"].to_own_type, (x1, x2), {}, target="ascend950", strict=True)
    assert same_bits(got, ref)


ROWS = """
    import dsl
    from dsl import Tensor, bf16, f16

    @dsl.op(dtypes=(bf16, f16))
    def add_rms_norm(x1: Tensor[..., "C"], x2: Tensor[..., "C"], gamma: Tensor["C"], *, eps: float = 1e-6):
        x = dsl.cast(x1 + x2, x1.dtype)
        rstd = dsl.rsqrt(dsl.mean(x * x, axis=-1, keepdims=True) + eps)
        y = x * rstd * gamma
        return y, x

    @dsl.op(dtypes=(bf16, f16), broadcast=True)
    def bias_rounded(x: Tensor, b: Tensor):
        h = dsl.cast(x + b, x.dtype)
        return h * b
"""


def test_add_rms_norm_rounds_its_sum(write_module):
    """ops-nn AddRmsNorm's golden rounds x1 + x2 to the input type before the statistics."""
    from dsl.dtypes import bf16, f16
    from dsl.precision import check as check_precision, output_tolerances

    t_of = {BF16: bf16, np.float16: f16}
    mod = write_module(ROWS)
    rng = np.random.default_rng(4)
    for t in (BF16, np.float16):
        x1 = rng.uniform(-2, 2, (5, 77)).astype(t)
        x2 = rng.uniform(-2, 2, (5, 77)).astype(t)
        g = rng.uniform(0.5, 1.5, 77).astype(t)
        x = (_f32(x1) + _f32(x2)).astype(t)
        rstd = 1.0 / np.sqrt(np.mean(_f32(x).astype(np.float64) ** 2, axis=-1, keepdims=True) + 1e-6)
        y = (_f32(x) * rstd * _f32(g)).astype(t)
        ry, rx = mod.add_rms_norm.reference(x1, x2, g)
        assert same_bits(rx, x)
        assert np.allclose(_f32(ry), _f32(y), rtol=2**-7, atol=1e-3)
        sy, sx = mod.add_rms_norm.simulate(x1, x2, g, cores=2)
        assert same_bits(sx, rx)
        tol = output_tolerances(mod.add_rms_norm, t_of[t])["y"]
        check_precision(sy, ry, tol, "y")


def test_broadcast_cast_of_computed_value(write_module):
    mod = write_module(ROWS)
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (6, 33)).astype(BF16)
    b = rng.uniform(-2, 2, (1, 33)).astype(BF16)
    h = (_f32(x) + _f32(b)).astype(BF16)
    check(mod.bias_rounded, (x, b), (_f32(h) * _f32(b)).astype(BF16))


def test_every_pass_keeps_the_explicit_roundings(ops):
    """--verify-each over the whole pipeline: native-f16's f16 ops round their result in the
    interpreter too ({rounds = true}), so a rounded sum reused by later f16 math stays right."""
    from backends.ascendc.compile import lower

    for t in ("bf16", "f16"):
        for op in (ops[t].round_trip, ops[t].to_own_type, ops[t].rounding_error, ops[t].scalar_rounded):
            compiled = lower(op, verify_each=True, warn_builtin=False)
            assert set(compiled.checks) == set(op.dtypes)
