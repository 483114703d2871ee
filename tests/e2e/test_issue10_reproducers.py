"""Reproducers of the bugs differential fuzzing found (issue 10), one test each.

Every program's reference (the IR interpreter) is checked against a numpy formula written here,
independently of the interpreter, and ``simulate`` (the emulator running the generated C++) must
equal the reference bit for bit: all of these programs have exact semantics.
"""

from __future__ import annotations

import numpy as np
import pytest

import dsl

from exact_check import BF16, check, same_bits

# -- A: inputs in any order -----------------------------------------------------------------------


def test_a_scalar_declared_before_a_tensor(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32, i32

        @dsl.op(dtypes=(f32, f16, i32))
        def scale_first(s: Scalar, x: Tensor):
            return x * s

        @dsl.op(dtypes=(f32, f16))
        def mixed_order(s: Scalar, x: Tensor, t: Scalar, y: Tensor):
            z = x * s - y * t
            return z
        """)
    for dt in (np.float32, np.float16, np.int32):
        x = (np.arange(1000) % 37 - 18).astype(dt)
        s = np.array([3], dt)
        expected = (x.astype(np.float32) * np.float32(3)).astype(dt) if dt != np.int32 else x * np.int32(3)
        check(mod.scale_first, (s, x), expected, cores=3)
    x = np.linspace(-4, 4, 777).astype(np.float32)
    y = np.linspace(2, -3, 777).astype(np.float32)
    s, t = np.array([1.5], np.float32), np.array([-0.25], np.float32)
    check(mod.mixed_order, (s, x, t, y), x * s[0] - y * t[0])


# -- independent numpy formulas for dsl.cast ------------------------------------------------------


def int_to_half_type(x: np.ndarray, dtype) -> np.ndarray:
    """Integers rounded once to nearest even to f16 (numpy converts through float64: exact
    for these integers, then one rounding) or bf16 (exact integer arithmetic on Python ints)."""
    if np.dtype(dtype) == np.float16:
        with np.errstate(over="ignore"):
            return np.asarray(x).astype(np.float64).astype(np.float16)

    def one(v: int) -> float:
        m = abs(v)
        shift = max(m.bit_length() - 8, 0)  # bf16 keeps 8 significant bits
        q, rem = divmod(m, 1 << shift)
        half = (1 << shift) >> 1
        if shift and (rem > half or (rem == half and q % 2 == 1)):
            q += 1
        return float(q << shift) * (-1 if v < 0 else 1)

    return np.array([one(int(v)) for v in np.asarray(x).ravel()], np.float64).astype(BF16)


def float_to_int(x: np.ndarray, dtype) -> np.ndarray:
    """Truncate toward zero, saturate, NaN -> 0."""
    info = np.iinfo(dtype)
    x = np.asarray(x, np.float64)
    return np.clip(np.nan_to_num(np.trunc(x), nan=0.0), info.min, info.max).astype(dtype)


def int_to_int(x: np.ndarray, dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.clip(np.asarray(x, np.int64), info.min, info.max).astype(dtype)


# -- F: casts to f16/bf16 round once, from integers too -------------------------------------------


def test_f_int_to_bf16_rounds_to_nearest_even_once(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32, bf16, f16, i32

        @dsl.op(dtypes=(i32,))
        def via_bf16(x: Tensor):
            t = dsl.cast(x, bf16)
            y = dsl.cast(t, f32)
            return y

        @dsl.op(dtypes=(i32,))
        def via_f16(x: Tensor):
            t = dsl.cast(x, f16)
            y = dsl.cast(t, f32)
            return y
        """)
    # 257 is a bf16 tie (256 | 258): even is 256. 16842753 = 2^24 + 2^16 + 1 rounds to f32 on
    # the bf16 midpoint 2^24 + 2^16 and from there (ties to even) down to 2^24, but once: up.
    x = np.array(
        [257, 259, -257, 16842753, -16842753, 16842752, 2**31 - 1, -(2**31), 65519, 65520, 2049], np.int32
    )
    ref = mod.via_bf16.reference(x)
    assert ref[0] == 256 and ref[1] == 260 and ref[3] == 16908288 and ref[4] == -16908288
    assert same_bits(ref, int_to_half_type(x, BF16).astype(np.float32))
    ref16 = mod.via_f16.reference(x)
    assert ref16[8] == 65504 and np.isinf(ref16[9]) and ref16[10] == 2048
    assert same_bits(ref16, int_to_half_type(x, np.float16).astype(np.float32))


# -- G: a literal that does not fit its partner's integer type --------------------------------------


@pytest.mark.parametrize(
    "line, at, what",
    [
        ("y = t != -1", "-1", "the number -1 does not fit u8 (0 to 255)"),
        ("y = dsl.maximum(t, 256)", "256", "the number 256 does not fit u8 (0 to 255)"),
        ("y = (dsl.cast(x, i32) + 2147483648) > 0", "2147483648", "does not fit i32"),
        ("y = dsl.cast(x, i8) * -129 > 0", "-129", "the number -129 does not fit i8 (-128 to 127)"),
    ],
)
def test_g_literal_out_of_its_partners_range_is_a_dsl_error(write_module, line, at, what):
    src = f"""
import dsl
from dsl import Tensor, f32, i8, i32, u8

@dsl.op(dtypes=(f32,))
def lit(x: Tensor):
    t = dsl.cast(x, u8)
    {line}
    return y
"""
    with pytest.raises(dsl.DslError) as e:
        write_module(src)
    err = e.value
    assert what in err.msg and "cast the other operand to a wider type" in err.msg
    assert err.lineno == 8 and err.offset == src.splitlines()[7].index(at) + 1
    assert line in str(err)  # the source line with a caret


def test_g_run_time_int_attribute_out_of_range_is_an_argument_error(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32, i32

        @dsl.op(dtypes=(f32,))
        def shift(x: Tensor, *, k: int = 3):
            t = dsl.cast(x, i32)
            y = t + k
            return y
        """)
    x = np.array([1.5, -200.0, 3e9, np.nan], np.float32)
    check(mod.shift, (x,), float_to_int(x, np.int32) + np.int32(-7), {"k": -7})
    for run in (mod.shift.reference, mod.shift.simulate):
        with pytest.raises(dsl.ArgumentError, match=r"attribute 'k' = 2147483648 does not fit i32 .*line 8"):
            run(x, k=2**31)


# -- B, C: integer with float computes (and compares) in the float type -----------------------------


def test_b_int_with_float_computes_in_the_float_type(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f32, i32

        @dsl.op(dtypes=(i32,))
        def int_float(x: Tensor, s: Scalar[f32]):
            a = x + 0.5
            b = x * 0.5
            c = 0.5 - x
            d = x / 2.0
            e = dsl.maximum(x, 0.5)
            f = dsl.minimum(x * s, x - s)
            return a, b, c, d, e, f

        @dsl.op(dtypes=(f32,))
        def float_int(x: Tensor):
            t = dsl.cast(x, i32)
            m = dsl.maximum(x, t)
            frac = x - t
            q = t / x
            return m, frac, q
        """)
    x = np.array([-(2**24) - 1, -7, -1, 0, 1, 3, 2**24 + 1, 2**31 - 1] * 40, np.int32)
    s = np.array([0.75], np.float32)
    xf = x.astype(np.float32)  # one f32 rounding of each integer
    half = np.float32(0.5)
    expected = (
        xf + half,
        xf * half,
        half - xf,
        xf / np.float32(2),
        np.maximum(xf, half),
        np.minimum(xf * s[0], xf - s[0]),
    )
    check(mod.int_float, (x, s), expected)
    y = np.array([-3.75, -0.5, 0.25, 2.5, 1e10, -1e10, 7.0] * 50, np.float32)
    t = float_to_int(y, np.int32).astype(np.float32)
    with np.errstate(divide="ignore"):
        check(mod.float_int, (y,), (np.maximum(y, t), y - t, t / y))


def test_c_comparisons_compare_in_the_promoted_type(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f32, i8, i32

        @dsl.op(dtypes=(f32,))
        def cmp_promoted(x: Tensor, s: Scalar):
            t = dsl.cast(x, i32)
            y = t > s
            z = t <= x
            w = dsl.cast(x, i8) == t
            return y, z, w
        """)
    x = np.array([-300.5, -128.0, -1.5, 0.0, 0.5, 1.0, 127.0, 2.5e9, 16777217.0] * 30, np.float32)
    s = np.array([0.5], np.float32)
    t = float_to_int(x, np.int32)
    expected = (
        t.astype(np.float32) > s[0],
        t.astype(np.float32) <= x,
        float_to_int(x, np.int8).astype(np.int32) == t,
    )
    check(mod.cmp_promoted, (x, s), expected)


# -- D: an output may hold an input's or another output's value unchanged; unused inputs --------


def special_values(dt) -> np.ndarray:
    base = [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 65504.0, 1e-3, 3.0e38]
    with np.errstate(over="ignore"):
        return np.array(base * 70 + [7.0] * 3, np.float64).astype(dt)


def test_d_outputs_equal_to_inputs_are_copies(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16, f32, i32

        @dsl.op(dtypes=(f16, bf16, f32, i32))
        def one_times(x: Tensor):
            y = 1 * x
            return y

        @dsl.op(dtypes=(f16, bf16, f32, i32))
        def ret_input(x: Tensor):
            return x

        @dsl.op(dtypes=(f16, f32))
        def maybe_twice(x: Tensor, *, flag: bool = False):
            return x * 2 if flag else x
        """)
    for dt in (np.float16, BF16, np.float32, np.int32):
        x = special_values(dt) if dt != np.int32 else np.arange(-350, 353, dtype=np.int32) * 7919
        check(mod.one_times, (x,), x.copy(), cores=2)
        check(mod.ret_input, (x,), x.copy())
        assert mod.ret_input.outputs == ["y"]
        if dt in (np.float16, np.float32):
            check(mod.maybe_twice, (x,), x.copy())
            with np.errstate(over="ignore"):
                twice = (x.astype(np.float32) * np.float32(2)).astype(dt)
            check(mod.maybe_twice, (x,), twice, {"flag": True})


def test_d_outputs_equal_to_other_outputs_and_unused_inputs(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32, i32

        @dsl.op(dtypes=(f16, f32, i32))
        def aliases(s: Scalar, x: Tensor, unused: Tensor, t: Scalar, *, k: int = 2):
            y = x * k
            z = y
            a = x
            b = a
            return y, z, a, b
        """)
    for dt in (np.float16, np.float32, np.int32):
        x = (np.arange(5000) % 101 - 50).astype(dt)
        s, t = np.array([1], dt), np.array([2], dt)
        y = x * dt(3) if dt == np.int32 else (x.astype(np.float32) * np.float32(3)).astype(dt)
        check(mod.aliases, (s, x, x[::-1].copy(), t), (y, y.copy(), x.copy(), x.copy()), {"k": 3}, cores=3)


def test_d_returning_an_input_among_several_outputs_needs_a_name(write_module):
    src = """
import dsl
from dsl import Tensor

@dsl.op
def two(x: Tensor):
    y = x * 2
    return y, x
"""
    with pytest.raises(dsl.DslError) as e:
        write_module(src)
    assert "output 'x' would have the same name as an input" in e.value.msg
    assert (e.value.lineno, e.value.offset) == (8, 15) and "return y, x" in str(e.value)


# -- E: casts between every pair of dtypes --------------------------------------------------------

DTYPES = {"f16": np.float16, "bf16": BF16, "f32": np.float32, "i8": np.int8, "i32": np.int32, "u8": np.uint8}


def cast_inputs(src: str) -> np.ndarray:
    if src == "i8":
        return np.arange(-128, 128, dtype=np.int8)
    if src == "u8":
        return np.arange(256, dtype=np.uint8)
    if src == "i32":
        mids = [k * 2**17 + 2**16 + d for k in (128, 129, 255, -200) for d in (-3, -1, 0, 1, 2)]  # bf16 ties
        edges = [0, 1, -1, 127, 128, -128, -129, 255, 256, 257, 65504, 65519, 65520, -65520, 2**24 + 1]
        rng = np.random.default_rng(10)
        rand = rng.integers(-(2**31), 2**31, 300).tolist() + rng.integers(-70000, 70000, 300).tolist()
        return np.array(mids + edges + [2**31 - 1, -(2**31)] + rand, np.int32)
    vals = [0.0, -0.0, 0.4, -0.6, 1.0, 127.4, 127.6, -128.9, -129.0, 255.5, 256.0, -1.5, 2.5, 1e5, -1e5]
    vals += [3e9, -3e9, 65519.0, 65520.0, 1e-8, np.inf, -np.inf, np.nan, 16777217.0, 3.3e38]
    rng = np.random.default_rng(11)
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(vals), rng.normal(0, 300, 500)]).astype(DTYPES[src])


def expected_cast(v: np.ndarray, src: str, dst: str) -> np.ndarray:
    """cast(v, dst) of values v held in src (bool: a comparison's result)."""
    want = np.dtype(bool) if dst == "bool" else np.dtype(DTYPES[dst])
    if dst == "bool":
        return v != 0
    if src == "bool":
        return v.astype(want)  # 1 / 0
    if src in ("f16", "bf16", "f32"):
        f = v.astype(np.float32)
        return f.astype(want) if want.kind == "f" or want == BF16 else float_to_int(f, want)
    if want == BF16 or want == np.float16:
        return int_to_half_type(v, want)
    return v.astype(np.float32) if want == np.float32 else int_to_int(v, want)


@pytest.mark.parametrize("src", list(DTYPES))
def test_e_casts_between_every_pair_of_dtypes(write_module, src):
    dsts = [d for d in [*DTYPES, "bool"] if d != src]
    body = "\n    ".join(f"o_{d} = dsl.cast(x, {d if d != 'bool' else 'bool_'})" for d in dsts)
    body += "\n    c = x > 1"
    body += "\n    " + "\n    ".join(f"c_{d} = dsl.cast(c, {d})" for d in DTYPES)
    outs = [f"o_{d}" for d in dsts] + [f"c_{d}" for d in DTYPES]
    mod = write_module(f"""
import dsl
from dsl import Tensor, f16, bf16, f32, i8, i32, u8, bool_

@dsl.op(dtypes=({src},))
def casts_from_{src}(x: Tensor):
    {body}
    return {", ".join(outs)}
""")
    op = getattr(mod, f"casts_from_{src}")
    x = cast_inputs(src)
    c = x.astype(np.float64) > 1
    with np.errstate(invalid="ignore", over="ignore"):
        expected = tuple(expected_cast(x, src, d) for d in dsts)
        expected += tuple(expected_cast(c, "bool", d) for d in DTYPES)
    check(op, (x,), expected, cores=2)


# -- integer where/abs and 8-bit max/min/relu (were CompileErrors; the fuzzer draws them) ---------


def test_integer_where_abs_and_8bit_max_min_relu(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, i32, i8, u8

        @dsl.op(dtypes=(i32,))
        def int_select(x: Tensor, y: Tensor, s: Scalar):
            a = dsl.where(x > y, x, y * 3)
            b = dsl.abs(x - y)
            c = dsl.where(x < s, s, x)
            q = dsl.cast(x, i8)
            d = dsl.maximum(q, dsl.cast(y, i8))
            e = dsl.relu(q)
            f = dsl.where(x > 0, q, dsl.cast(y, i8))
            u = dsl.minimum(dsl.cast(x, u8), dsl.cast(y, u8))
            return a, b, c, d, e, f, u
        """)
    rng = np.random.default_rng(3)
    x, y = (rng.integers(-300, 300, 5000).astype(np.int32) for _ in range(2))
    x[:4] = [2**31 - 1, -(2**31) + 8, 0, 5]  # extremes, but no i32 overflow anywhere
    y[:4] = [700_000_000, 7, 0, 5]
    s = np.array([7], np.int32)
    q, qy = int_to_int(x, np.int8), int_to_int(y, np.int8)
    expected = (
        np.where(x > y, x, y * np.int32(3)),
        np.abs(x - y),
        np.where(x < 7, np.int32(7), x),
        np.maximum(q, qy),
        np.maximum(q, np.int8(0)),
        np.where(x > 0, q, qy),
        np.minimum(int_to_int(x, np.uint8), int_to_int(y, np.uint8)),
    )
    check(mod.int_select, (x, y, s), expected, cores=4)


# -- casts of Scalars: exact conversions on the scalar unit, the others on the vector unit --------


def test_casts_of_scalars_and_attributes(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f32, f16, bf16, i32, i8, u8

        @dsl.op(dtypes=(f32,))
        def scalar_casts(x: Tensor, s: Scalar, *, alpha: float = 2.5):
            a = x + dsl.cast(s, i32)
            b = x + dsl.cast(s, f16)
            c = x * dsl.cast(s, i8)
            d = dsl.cast(s, u8) < x
            e = x - dsl.cast(alpha * s, bf16)
            f = dsl.cast(dsl.cast(2.7, i32), f32) + x
            return a, b, c, d, e, f

        @dsl.op(dtypes=(i32,))
        def int_scalar_casts(x: Tensor, s: Scalar):
            a = dsl.cast(s, bf16) + x
            b = dsl.cast(s, i8) * x
            return a, b
        """)
    x = np.linspace(-3, 3, 1000).astype(np.float32)
    for sv in (1.7, -300.5, 3e9, np.nan, 1000.3):
        s = np.array([sv], np.float32)
        alpha = np.float32(2.5)
        with np.errstate(invalid="ignore", over="ignore"):
            expected = (
                x + float_to_int(s, np.int32).astype(np.float32),
                x + s.astype(np.float16).astype(np.float32),
                x * float_to_int(s, np.int8).astype(np.float32),
                float_to_int(s, np.uint8).astype(np.float32) < x,
                x - (alpha * s).astype(BF16).astype(np.float32),
                np.float32(2) + x,
            )
        check(mod.scalar_casts, (x, s), expected)
    xi = np.arange(-500, 500, dtype=np.int32)
    for sv in (16842753, -7, 300):
        s = np.array([sv], np.int32)
        expected = (
            (int_to_half_type(s, BF16).astype(np.float32) + xi.astype(np.float32)).astype(
                BF16
            ),  # bf16 + i32: bf16
            int_to_int(s, np.int8).astype(np.int32) * xi,
        )
        check(mod.int_scalar_casts, (xi, s), expected)


# -- found by the widened fuzzer (tests/e2e/dslfuzz.py) -------------------------------------------


def test_fuzz_run_time_attribute_squared_is_not_its_default_squared(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def sq_attr(x: Tensor, *, alpha: float = 0.5, k: int = 2):
            y = x * alpha ** 2 + k ** 2
            return y
        """)
    x = np.linspace(-2, 2, 300).astype(np.float32)
    alpha, k = np.float32(3.0), np.float32(-4)
    check(mod.sq_attr, (x,), x * (alpha * alpha) + k * k, {"alpha": 3.0, "k": -4})


def test_fuzz_adding_zero_keeps_the_sign_of_zero(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, f32

        @dsl.op(dtypes=(f32, f16))
        def add_zero(x: Tensor):
            a = x + 0
            b = 0.0 + x
            c = x - (-0.0)
            d = x - 0.0
            return a, b, c, d
        """)
    for dt in (np.float32, np.float16):
        x = np.array([-0.0, 0.0, 1.5, -2.0, np.nan] * 20, dt)
        f = x.astype(np.float32)
        zero, nzero = np.float32(0.0), np.float32(-0.0)
        check(mod.add_zero, (x,), tuple(v.astype(dt) for v in (f + zero, zero + f, f - nzero, f - zero)))


def test_fuzz_variant_whose_only_output_is_absent(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, i32

        @dsl.op(dtypes=(i32,))
        def maybe(s: Scalar, w: Tensor, n: Tensor, z: Tensor[f16], *, fast: bool = True):
            v0 = n
            return v0 if not fast else None
        """)
    n = np.arange(100, dtype=np.int32)
    args = (np.array([1], np.int32), n, n * 2, n.astype(np.float16))
    assert mod.maybe.reference(*args, fast=True) is None
    assert mod.maybe.simulate(*args, fast=True) is None
    check(mod.maybe, args, n * 2, {"fast": False})


def test_fuzz_integer_comparisons_and_selections_of_scalars(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f32, i32

        @dsl.op(dtypes=(i32,))
        def scalar_int_cmp(lr: Scalar[i32], g: Tensor, t: Scalar, s: Scalar[f32], *, k: int = 4):
            a = dsl.where(lr == k, g, -3)
            b = dsl.cast(-3 == t, i32) - g
            c = dsl.where(dsl.cast(s, i32) > 3, g, t)
            return a, b, c
        """)
    g = np.arange(-50, 50, dtype=np.int32)
    for lr, t, s in ((4, -3, 3.5), (5, 2, 4.5), (4, 7, -1e10)):
        args = (np.array([lr], np.int32), g, np.array([t], np.int32), np.array([s], np.float32))
        expected = (
            np.where(lr == 4, g, np.int32(-3)),
            np.int32(-3 == t) - g,
            np.where(float_to_int(np.float32(s), np.int32) > 3, g, np.int32(t)),
        )
        check(mod.scalar_int_cmp, args, expected, {"k": 4})


def test_fuzz_scalar_compared_with_itself(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, i32

        @dsl.op(dtypes=(i32,))
        def self_cmp(p: Tensor, s: Scalar, z: Tensor):
            a = dsl.where((z + dsl.minimum(s, s)) != dsl.maximum(s, s), z, p)
            c = dsl.cast(2.5, i32)
            b = dsl.where(c >= c, p, z)
            return a, b
        """)
    p, z = np.arange(-20, 20, dtype=np.int32), np.arange(40, dtype=np.int32) % 3
    for s in (0, 2):
        check(mod.self_cmp, (p, np.array([s], np.int32), z), (np.where(z + s != s, z, p), p.copy()))


def test_fuzz_scalar_where_on_a_constant_condition(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, i32

        @dsl.op(dtypes=(i32,))
        def const_cond(q: Tensor, *, k: int = 1):
            y = dsl.where(dsl.where(k <= k, 0.25, k) < k - 3, -1.25, q)
            return y
        """)
    q = np.arange(-10, 10, dtype=np.int32)
    for k in (9, -9):
        inner = np.float32(0.25)  # k <= k
        expected = np.where(inner < np.float32(k - 3), np.float32(-1.25), q.astype(np.float32))
        check(mod.const_cond, (q,), expected, {"k": k})


def test_fuzz_seed_4048_scalar_cast_chain_bool_i8_f32(write_module):
    """bool -> i8 -> (compare) -> f32 on scalars: legalize-casts left them to the scalar unit's
    C++ conversions (it used to expand them into an f16 -> i8 vector chain the kernel refused)."""
    mod = write_module("""
        import dsl
        from typing import Literal
        from dsl import Tensor, Scalar, f16, bf16, f32, i8, i32, u8

        @dsl.op(dtypes=(i32,))
        def fz4048(lr: Scalar[i32], scale: Scalar, x: Tensor, *, mode: Literal["p", "q"] = "q"):
            if mode == "p":
                v1 = dsl.cast((dsl.cast((scale <= scale), i8) != 5), f32)
            else:
                v1 = dsl.cast(0.25, f32)
            b = dsl.cast(dsl.cast(lr > 2, u8), f16) + dsl.cast(dsl.cast(lr, i8) == 3, bf16)
            y = x + v1
            z = x * dsl.cast(lr > 0, i32) + dsl.cast(b, i32)
            return y, z
        """)
    x = np.arange(-40, 40, dtype=np.int32)
    for lr in (-7, 3, 200):
        args = (np.array([lr], np.int32), np.array([5], np.int32), x)
        b = np.float32(lr > 2) + np.float32(int_to_int(lr, np.int8) == 3)
        expected = (x.astype(np.float32) + np.float32(1.0), x * np.int32(lr > 0) + np.int32(b))
        check(mod.fz4048, args, expected, {"mode": "p"})
    check(mod.fz4048, args, (x.astype(np.float32) + np.float32(0.25), x + np.int32(1)), {"mode": "q"})


def test_fuzz_exact_scalar_casts_whose_operand_becomes_a_tile(write_module):
    """A cast (bool -> f32, i8 -> f32) or integer comparison left to the scalar unit whose operand
    the scalar unit cannot compute (sqrt, a saturating f32 -> i8) runs on the vector unit: hoist-
    scalars legalizes it there with legalize-casts' chains."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32, i8, i32

        @dsl.op(dtypes=(f32, f16))
        def widened(x: Tensor, s: Scalar):
            a = x + dsl.cast(dsl.sqrt(dsl.abs(s)) > 1.5, x.dtype)
            b = x * dsl.cast(dsl.cast(s * 40.0, i8), x.dtype)
            c = dsl.where(dsl.cast(s * 40.0, i8) > dsl.cast(s, i8), x, -x)
            d = x - dsl.cast(dsl.cast(s * 1000.0, i32) >= 2, x.dtype)
            return a, b, c, d
        """)
    x = np.linspace(-3, 3, 333).astype(np.float32)
    for s in (4.0, 2.0, -0.25, 7.5):
        for dt in (np.float32, np.float16):
            xs = x.astype(dt)
            f = xs.astype(np.float32)
            s32 = np.float32(s)
            big = float_to_int(s32 * np.float32(40.0), np.int8)
            a = f + np.float32(np.sqrt(np.abs(s32)) > np.float32(1.5))
            b = f * np.float32(big)
            c = np.where(big > float_to_int(s32, np.int8), f, -f)
            d = f - np.float32(float_to_int(s32 * np.float32(1000.0), np.int32) >= 2)
            args = (xs, np.array([s], dt))
            check(mod.widened, args, tuple(v.astype(dt) for v in (a, b, c, d)))


def test_returning_one_name_twice_is_a_dsl_error(write_module):
    src = """
import dsl
from dsl import Tensor

@dsl.op
def twice(x: Tensor):
    y = x * 2
    return y, y
"""
    with pytest.raises(dsl.DslError) as e:
        write_module(src)
    assert "output 'y' is returned twice" in e.value.msg
    assert (e.value.lineno, e.value.offset) == (8, 15)


def test_cast_of_a_bool_input_works(write_module):
    """Refused before issue 18 (item 6: bool_ inputs as cast sources); any nonzero byte is true."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, bool_, f32

        @dsl.op(dtypes=(f32,))
        def masked(x: Tensor, m: Tensor[bool_]):
            y = x * dsl.cast(m, f32)
            return y
        """)
    x = np.arange(-600, 600, dtype=np.float32) / 8
    m = np.array([0, 1, 2, 255] * 300, np.uint8).view(np.bool_)
    check(mod.masked, (x, m), x * (m.view(np.uint8) != 0).astype(np.float32), cores=3)


def test_fuzz_maximum_keeps_its_operand_order_for_signed_zeros(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar

        @dsl.op
        def zeros(a: Tensor, s: Scalar):
            p = dsl.maximum(0.0, a)
            q = dsl.minimum(-0.0, a)
            r = dsl.maximum(a, 0.0)
            t = dsl.minimum(s, a)
            return p, q, r, t
        """)
    a = np.array([-0.0, 0.0, 1.0, -1.0, np.nan] * 30, np.float32)
    for sv in (0.0, -0.0):
        s = np.array([sv], np.float32)
        # numpy's maximum/minimum return the second operand when the operands are equal
        expected = (
            np.maximum(np.float32(0.0), a),
            np.minimum(np.float32(-0.0), a),
            np.maximum(a, np.float32(0)),
            np.minimum(s[0], a),
        )
        check(mod.zeros, (a, s), expected)


def test_fuzz_int_attribute_compared_with_an_int8_tensor(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, i8, f16, f32

        @dsl.op(dtypes=(f16,))
        def attr8(w: Tensor, n: Tensor[i8], *, k: int = 1):
            a = dsl.cast(k != n, f32)
            b = dsl.where(n > k, w, dsl.cast(k, w.dtype))
            c = dsl.maximum(n, k)
            return a, b, c
        """)
    n = np.arange(-128, 128, dtype=np.int8)
    w = np.linspace(-1, 1, 256).astype(np.float16)
    for k in (1, -5, 127):
        expected = ((n != k).astype(np.float32), np.where(n > k, w, np.float16(k)), np.maximum(n, np.int8(k)))
        check(mod.attr8, (w, n), expected, {"k": k})


def test_fuzz_integer_where_of_scalars_runs_on_the_scalar_unit(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, i32

        @dsl.op(dtypes=(i32,))
        def scalar_select(t: Scalar, s: Scalar[i32], n: Tensor, p: Tensor, *, alpha: float = 0.75):
            y = (-dsl.where(s == alpha, t, 7)) - dsl.where((p - p) > dsl.abs(p), 3.0, dsl.where(alpha >= n, n, n))
            return y
        """)
    n = np.arange(-20, 20, dtype=np.int32)
    p = n[::-1].copy()
    for sv, alpha in ((3, 3.0), (3, 2.5)):
        args = (np.array([5], np.int32), np.array([sv], np.int32), n, p)
        picked = np.int32(5) if np.float32(sv) == np.float32(alpha) else np.int32(7)
        inner = np.where(np.zeros_like(p) > np.abs(p), np.float32(3.0), n.astype(np.float32))
        check(mod.scalar_select, args, np.float32(-picked) - inner, {"alpha": alpha})


def test_fuzz_where_between_bool_values(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, bool_, f32

        @dsl.op(dtypes=(f32,))
        def bool_select(g: Tensor, x: Tensor, scale: Scalar, *, alpha: float = 0.5):
            c = dsl.where(x > alpha, scale, 0.0) <= scale - 1.5
            v0 = dsl.where(g < alpha, dsl.cast(c, bool_), dsl.cast(g ** 2 > dsl.abs(x), bool_))
            v1 = dsl.cast(v0, f32) + x
            return v0, v1
        """)
    rng = np.random.default_rng(0)
    g, x = (rng.uniform(-2, 2, 1000).astype(np.float32) for _ in range(2))
    for sv in (1.0, 2.0):
        s = np.float32(sv)
        c = np.where(x > np.float32(0.5), s, np.float32(0)) <= s - np.float32(1.5)
        v0 = np.where(g < np.float32(0.5), c, g * g > np.abs(x))
        check(mod.bool_select, (g, x, np.array([sv], np.float32)), (v0, v0.astype(np.float32) + x))


def test_fuzz_output_type_that_follows_t_without_being_t(write_module):
    """f16 for T = f16 but f32 for T = i32 (a float literal meets an i32): the kernel's GM tensor
    takes its own template parameter and InferDataType maps T to it (fuzz seed 2)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, i32

        @dsl.op(dtypes=(f16, i32))
        def follows(n: Tensor, lr: Scalar, z: Tensor):
            v1 = -dsl.maximum(z, dsl.where(z != n, 1.5, lr))
            return v1
        """)
    for dt in (np.float16, np.int32):
        n = (np.arange(700) % 7 - 3).astype(dt)
        z = (np.arange(700) % 5 - 2).astype(dt)
        lr = np.array([2], dt)
        out = np.float16 if dt == np.float16 else np.float32
        expected = -np.maximum(z.astype(out), np.where(z != n, out(1.5), lr.astype(out)[0]))
        check(mod.follows, (n, lr, z), expected.astype(out), cores=3)


def test_fuzz_a_broadcast_number_names_a_valid_identifier(write_module):
    """A vector of the number 8 is ``c8Vec``, not ``8Vec`` (fuzz seed 11)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, i32

        @dsl.op(dtypes=(i32,))
        def eighths(w: Tensor):
            return dsl.cast(w, i32) / 8.0
        """)
    w = np.arange(-300, 300, dtype=np.int32)
    check(mod.eighths, (w,), w.astype(np.float32) / np.float32(8.0))


def test_fuzz_relu_of_an_i8_scalar_the_vector_unit_made(write_module):
    """The f32 -> i8 cast of a Scalar runs on the vector unit (it saturates), so the relu after
    it is an 8-bit tile op A2 lacks: hoist-scalars runs it in f16 (fuzz seed 3016)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f32, i8, i32

        @dsl.op(dtypes=(i32,))
        def relu_i8(shift: Scalar, w: Tensor):
            v0 = dsl.cast(shift / 3.0, i8)
            return dsl.relu(v0) - dsl.cast(w, f32)
        """)
    w = np.arange(-500, 500, dtype=np.int32)
    for sv in (100, -100, 1000, -7):
        v0 = np.clip(np.trunc(np.float32(sv) / np.float32(3.0)), -128, 127)
        expected = np.float32(max(v0, 0)) - w.astype(np.float32)
        check(mod.relu_i8, (np.array([sv], np.int32), w), expected)
