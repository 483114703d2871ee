"""Reproducers of what the matmul (``mm``) family of tests/e2e/dslfuzz.py found: ``x @ w`` then a
random epilogue, operands multiples of 0.5 up to 4 so the product is exact in f32 whatever the
summation order, every program bit-exact. Hand-written programs check the reference against numpy
and ``simulate`` (strict sync) against the reference; the fuzz seeds rerun the generated program.
"""

from __future__ import annotations

import numpy as np
import pytest

import dslfuzz
from exact_check import BF16, check, same_bits

import dsl
from backends.ascendc.simulate import simulate


def halves(rng, shape, dt, top=4):
    """Multiples of 0.5 in [-top, top]: every product and sum of a few is exact in f32."""
    return (rng.integers(-2 * top, 2 * top + 1, shape) / 2).astype(dt)


def test_column_math_is_ordered_and_compares_whole_repeats(write_module):
    """Seed 0 (910B): column math of an epilogue (cast, mul, compare, select, div of an [N] input)
    is recomputed per tile before the rows' ops; it had no V barriers between its dependent ops
    nor before the rows read it (races in strict sync), and its compare took curN elements (not
    whole 256-byte repeats). The pre-loop V barrier insert-sync puts there was a KeyError."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16, f32

        @dsl.op(dtypes=(f16, bf16))
        def colmath(x: Tensor["M", "K"], w: Tensor["K", "N"], b: Tensor[f16, "N"]):
            y = x @ w
            c = (b * b) / dsl.cast(b == 3, f32) + dsl.relu(b)
            return dsl.cast(y - c, dsl.T)
        """)
    rng = np.random.default_rng(0)
    for dt in (np.dtype(np.float16), BF16):
        x, w = halves(rng, (20, 64), dt), halves(rng, (64, 44), dt)
        b = rng.choice(np.array([3, -2, 3, 0.5], np.float16), 44)
        f = b.astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            c = (f * f) / (f == 3).astype(np.float32) + np.maximum(f, 0)
        y = x.astype(np.float32) @ w.astype(np.float32)
        check(mod.colmath, (x, w, b), (y - c).astype(dt), cores=2)


def test_inputs_the_epilogue_does_not_read_are_checked_by_their_declared_shape(write_module, tmp_path):
    """Seeds 3, 7, 9, 11 (910B), 105, 106, 107, 111 (950): the host checked every input the
    epilogue does not read as [M, N], so [N] and [M, 1] inputs failed TilingFunc ("input m must be
    [M, N]"); now the declared dims decide, read or not."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, f32

        @dsl.op(dtypes=(f16,))
        def unread(x: Tensor["M", "K"], m: Tensor[f32, "N"], g: Tensor["M", 1], w: Tensor["K", "N"], a: Tensor["M", "N"]):
            return dsl.cast(x @ w, dsl.T) + a
        """)
    rng = np.random.default_rng(3)
    f16 = np.dtype(np.float16)
    x, w, a = halves(rng, (17, 32), f16), halves(rng, (32, 1), f16), halves(rng, (17, 1), f16)
    m, g = halves(rng, (1,), np.float32), halves(rng, (17, 1), f16)
    y = (x.astype(np.float32) @ w.astype(np.float32)).astype(f16) + a
    check(mod.unread, (x, m, g, w, a), y)
    host = next((mod.unread.compile(out_dir=tmp_path / "p") / "op_host").glob("*.cpp")).read_text()
    assert '"input m must be [N] (N = %lld)"' in host
    assert '"input g must be [M, 1] (M = %lld)"' in host
    assert '"input a must be [M, N] (M = %lld, N = %lld)"' in host


def test_fixed_type_half_values_in_the_f16_function_are_not_T(write_module):
    """Seed 5 (910B): i8 operands, outputs of dsl.T, an f16 value of fixed type (the compare of a
    bool mask in f16, an f16 input): the f16 function spelled them ``T``, the bf16 one ``half``, and
    the one epilogue text was refused ("differs between dtypes f16 and bf16")."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, bf16, f32, i8, i32, bool_

        @dsl.op(dtypes=(f16, bf16))
        def fixedhalf(m: Tensor[i8, "N", "K"], s: Scalar[i32], mask: Tensor[bool_, "M", "N"], q: Tensor[f16, "N"],
                      n: Tensor[i8, "M", "K"]):
            v0 = n @ m.T
            v2 = dsl.cast(dsl.where(mask, 2.0 * s, dsl.round(dsl.cast(s, f32))), dsl.T)
            v3 = dsl.cast(dsl.cast(v0, f32) + q, dsl.T)
            return v0, v2, v3
        """)
    rng = np.random.default_rng(5)
    m = rng.integers(-4, 5, (30, 64)).astype(np.int8)
    n = rng.integers(-4, 5, (16, 64)).astype(np.int8)
    mask = rng.integers(0, 2, (16, 30)).astype(bool)
    q = halves(rng, (30,), np.float16)
    s = np.array([3], np.int32)
    v0 = n.astype(np.int32) @ m.astype(np.int32).T
    for dt, T in ((np.dtype(np.float16), dsl.f16), (BF16, dsl.bf16)):
        v2 = np.where(mask, np.float32(6), np.float32(3)).astype(dt)
        v3 = (v0.astype(np.float32) + q.astype(np.float32)).astype(dt)
        ref = mod.fixedhalf.reference(m, s, mask, q, n, dtype=T)
        assert all(same_bits(r, e) for r, e in zip(ref, (v0, v2, v3)))
        got, _ = simulate(mod.fixedhalf, (m, s, mask, q, n), {}, strict=True, dtype=T)
        assert all(same_bits(g, e) for g, e in zip(got, (v0, v2, v3)))


def test_scalar_math_and_per_row_compares_in_an_epilogue(write_module):
    """Seeds 1 (910B), 108 (950): min and compare of Scalars and literals were refused in a matmul
    epilogue ("'min' on scalars is not supported"): Init computes them as the other kernels do
    (one scalar-unit expression table, ``api.scalar_expression``). Then a per-row value compared
    with a scalar took rows * PER_ROW elements, not whole repeats."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, bf16, f32

        @dsl.op(dtypes=(f16, bf16))
        def scal(x: Tensor["M", "K"], w: Tensor["N", "K"], s: Scalar, g: Tensor["M", 1]):
            v0 = x @ w.T
            lo = -dsl.minimum(s, 5)
            v3 = lo >= dsl.min(s * v0, axis=-1, keepdims=True)
            v4 = dsl.cast(v0 * g + dsl.maximum(s, 1), dsl.T)
            return v3, v4
        """)
    rng = np.random.default_rng(1)
    for dt in (np.dtype(np.float16), BF16):
        x, w, g = halves(rng, (7, 64), dt), halves(rng, (40, 64), dt), halves(rng, (7, 1), dt)
        s = np.array([rng.choice([-2.5, 3, 7])], dt)
        y = x.astype(np.float32) @ w.astype(np.float32).T
        sf = np.float32(s[0])
        v3 = -np.minimum(sf, np.float32(5)) >= (sf * y).min(axis=-1, keepdims=True)
        v4 = (y * g.astype(np.float32) + np.maximum(sf, np.float32(1))).astype(dt)
        check(mod.scal, (x, w, s, g), (v3, v4), cores=2)


def test_an_epilogue_whose_instructions_depend_on_T_is_a_located_refusal(write_module):
    """Seed 111 (950): ``cast(i8 @ i8, dsl.T)`` rounds the i32 product once to f16 but needs the
    double-rounding fix to bf16: the one epilogue text cannot serve both; a CompileError at the
    cast, saying so."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16, i8

        @dsl.op(dtypes=(f16, bf16))
        def tdep(b: Tensor[i8, "K", "N"], a: Tensor[i8, "M", "K"]):
            v0 = a @ b
            o_t = dsl.cast(v0, dsl.T)
            return v0, o_t
        """)
    with pytest.raises(dsl.CompileError) as err:
        mod.tdep.compile()
    msg = str(err.value)
    assert "differs between dtypes f16 and bf16" in msg and "depend on T" in msg
    assert err.value.loc.line == 8


def test_identity_epilogue_under_one_key_only(write_module):
    """Seed 2 (910B): ``return v0, o0 if flag else None`` is the identity epilogue (the AIC writes
    the product from L0C, no vector core) under flag=False only: refused as "the static attributes
    change the cube tiling". Now every key runs the vector epilogue, which copies the rows out
    (an output a key leaves absent is unused there: ``(void)``, no -Werror)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16

        @dsl.op(dtypes=(f16, bf16))
        def idkey(b: Tensor["N", "K"], p: Tensor["M", "K"], *, flag: bool = True):
            v0 = p @ b.T
            o0 = v0
            return v0, o0 if flag else None
        """)
    rng = np.random.default_rng(2)
    for dt in (np.dtype(np.float16), BF16):
        b, p = halves(rng, (24, 32), dt), halves(rng, (33, 32), dt)
        y = p.astype(np.float32) @ b.astype(np.float32).T
        check(mod.idkey, (b, p), (y, y), {"flag": True})
        check(mod.idkey, (b, p), (y, None), {"flag": False}, cores=2)


def test_a_key_without_the_product_is_a_located_refusal(write_module):
    """Seeds 10 (910B), 104 (950): under inputs=True no output reads the product; the key's
    function had no matmul and reached the row backend ("input 'h' has shape [M, K], which the
    row backend does not take"). Now one CompileError at the '@' naming the attributes."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, i8, i32

        @dsl.op(dtypes=(f16,))
        def nokey(h: Tensor[i8, "M", "K"], g: Tensor[i8, "K", "N"], arrays: Tensor[i32, "M", "N"], *, inputs: bool = False):
            v0 = h @ g
            v1 = dsl.cast(v0 if not inputs else arrays, dsl.T)
            return v1
        """)
    with pytest.raises(dsl.CompileError) as err:
        mod.nokey.compile()
    assert "under the static attributes inputs=True no output depends on the product" in str(err.value)
    assert err.value.loc.line == 7


# Seeds of the mm family that failed and pass now: (seed, target, what was wrong).
FIXED_MM_SEEDS = [
    (0, "ascend910b", "KeyError 'event' on the pre-loop V barrier; unordered column math"),
    (3, "ascend910b", "TilingFunc checked an unread [N] input as [M, N]"),
    (5, "ascend910b", "an f16 value of fixed type spelled T in the f16 epilogue only"),
    (1, "ascend910b", "'min' and 'cmp' on scalars refused; a per-row compare not in whole repeats"),
    (103, "ascend950", "a VF register of fixed type f16 spelled T: Reg::Cast bfloat16_t -> uint8_t"),
    (105, "ascend950", "TilingFunc checked an unread [N] input as [M, N]"),
    (2, "ascend910b", "the identity epilogue under some keys only was refused"),
    (108, "ascend950", "'cmp' on scalars refused in a matmul epilogue"),
]


@pytest.mark.parametrize("seed,target,why", FIXED_MM_SEEDS, ids=[f"{t}-{s}" for s, t, _ in FIXED_MM_SEEDS])
def test_fixed_mm_seed(seed, target, why, tmp_path):
    outcome = dslfuzz.run_program(dslfuzz.generate(seed, "mm"), tmp_path, target=target)
    assert (
        outcome.status == "ok"
    ), f"mm seed {seed} on {target} ({why}): {outcome.reason}\n{outcome.detail[:1500]}"


# Seeds of the mm family still refused (documented in dslfuzz.REFUSALS and README's "Not yet").
OPEN_MM_SEEDS = [
    (101, "ascend950", "an i8/u8 value times a per-row value: 'vec.muls' reads [M, 1] with the scalar unit"),
    (200, "ascend910b", "a per-row value spread over whole rows (vec.brc) in the epilogue"),
]


@pytest.mark.parametrize("seed,target,why", OPEN_MM_SEEDS, ids=[f"{t}-{s}" for s, t, _ in OPEN_MM_SEEDS])
def test_open_mm_seed(seed, target, why, tmp_path, request):
    request.applymarker(pytest.mark.xfail(strict=True, reason=why))
    outcome = dslfuzz.run_program(dslfuzz.generate(seed, "mm"), tmp_path, target=target)
    assert (
        outcome.status == "ok"
    ), f"mm seed {seed} on {target} ({why}): {outcome.reason}\n{outcome.detail[:1500]}"
