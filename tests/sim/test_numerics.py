"""f16/bf16 storage and arithmetic, Cast round modes and f32 elementwise math, checked bit for bit
against numpy / ml_dtypes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from dsl.errors import UnsupportedError

from .conftest import run

BF16 = ml_dtypes.bfloat16


def _specials(dtype=np.float32):
    v = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        65504.0,
        65519.0,
        65520.0,
        1e6,
        -1e6,
        6e-8,
        3e-8,
        2.9802322e-08,
        1e-40,
        np.inf,
        -np.inf,
        3.4e38,
        2147483520.0,
        -2147483648.0,
        3e9,
        -3e9,
        126.5,
        127.5,
        -128.5,
    ]
    return np.array(v, dtype=dtype)


def _data(rng, n, dtype=np.float32, scale=10.0):
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    x[: len(_specials())] = _specials()
    return x.astype(dtype)


def _bits(a):
    return a.view(np.uint16 if a.itemsize == 2 else (np.uint8 if a.itemsize == 1 else np.uint32))


def test_half_arithmetic_rounds_once_per_instruction(projects, rng):
    x = (rng.standard_normal(1000) * 100).astype(np.float16)
    y = (rng.standard_normal(1000) * 100).astype(np.float16)
    res = run(projects("numerics"), x, y, key=0, alpha=0.3)
    expected = (x * np.float16(0.3)) + y  # numpy float16 ops compute in float and round to half
    assert np.array_equal(_bits(res.outputs[0]), _bits(expected))


def test_f32_elementwise_is_bit_exact(projects, rng):
    x, y = _data(rng, 777), _data(rng, 777)[::-1].copy()
    res = run(projects("numerics"), x, y, key=1)
    with np.errstate(all="ignore"):
        expected = (np.sqrt(np.abs(x)) * y - x) / (np.maximum(x, y) + np.float32(3))
    assert np.array_equal(_bits(res.outputs[0]), _bits(expected.astype(np.float32)))


def test_transcendentals_are_close(projects, rng):
    x = rng.uniform(-20, 20, 500).astype(np.float32)
    y = rng.uniform(0.01, 100, 500).astype(np.float32)
    res = run(projects("numerics"), x, y, key=2)
    expected = np.exp(x) + np.log(y) * (1 / np.sqrt(y))
    np.testing.assert_allclose(res.outputs[0], expected, rtol=2e-6)


def test_bf16_roundtrip_through_float(projects, rng):
    x = _data(rng, 300).astype(BF16)
    res = run(projects("numerics"), x, x, key=3)
    assert np.array_equal(_bits(res.outputs[0]), _bits(x))


def _directed(x: np.ndarray, dtype, mode: str) -> np.ndarray:
    """Reference for directed rounding of float32 -> 16-bit floats, via float64 neighbours."""
    with np.errstate(over="ignore"):
        rne = x.astype(dtype)
    r = rne.astype(np.float64)
    xd = x.astype(np.float64)
    out = rne.copy()
    for i, (v, rv) in enumerate(zip(xd, r)):
        if not np.isfinite(v) or not np.isfinite(rv) or rv == v:
            continue
        lo = rne[i] if rv < v else _step(rne[i], dtype, -1)
        hi = rne[i] if rv > v else _step(rne[i], dtype, +1)
        if mode == "floor":
            out[i] = lo
        elif mode == "ceil":
            out[i] = hi
        elif mode == "trunc":
            out[i] = lo if v > 0 else hi
        elif mode == "round":
            dl, dh = v - float(lo), float(hi) - v
            out[i] = (hi if v > 0 else lo) if dl == dh else rne[i]
    return out


def _step(h, dtype, direction):
    """The next representable value of a 16-bit float toward +inf (+1) or -inf (-1)."""
    b = np.array([h], dtype=dtype).view(np.uint16)[0].item()
    neg = b & 0x8000
    mag = b & 0x7FFF
    if mag == 0:
        return np.array([0x0001 | (0x8000 if direction < 0 else 0)], dtype=np.uint16).view(dtype)[0]
    away = (direction > 0) != bool(neg)
    mag = mag + 1 if away else mag - 1
    return np.array([neg | mag], dtype=np.uint16).view(dtype)[0]


@pytest.mark.parametrize(
    "key,dtype,mode",
    [
        (10, np.float16, "rint"),
        (11, np.float16, "trunc"),
        (12, np.float16, "floor"),
        (13, np.float16, "ceil"),
        (14, np.float16, "round"),
        (15, BF16, "rint"),
        (16, BF16, "trunc"),
    ],
)
def test_cast_to_16_bit_floats(projects, rng, key, dtype, mode):
    x = _data(rng, 2000, scale=1000.0)
    x[30:40] = np.array(
        [1 + 2**-11, 1 + 3 * 2**-11, -(1 + 2**-11), 2049, 2051, -2051, 0.1, -0.1, 1e-5, -1e-5],
        dtype=np.float32,
    )
    res = run(projects("numerics"), x, None, key=key, out_dtype=dtype)
    with np.errstate(over="ignore"):
        expected = x.astype(dtype) if mode == "rint" else _directed(x, dtype, mode)
    got = res.outputs[0]
    assert np.array_equal(_bits(got), _bits(expected)), np.nonzero(_bits(got) != _bits(expected))


@pytest.mark.parametrize(
    "key,ref",
    [
        (20, np.rint),
        (21, lambda v: np.trunc(v + np.copysign(0.5, v))),
        (22, np.trunc),
        (23, np.floor),
    ],
)
def test_cast_float_to_int32_saturates(projects, rng, key, ref):
    x = _data(rng, 1000, scale=1e4)
    x[np.isnan(x)] = 0
    res = run(projects("numerics"), x, None, key=key, out_dtype=np.int32)
    with np.errstate(invalid="ignore"):
        r = ref(x.astype(np.float64))
    expected = np.clip(r, -(2**31), 2**31 - 1).astype(np.int32)
    assert np.array_equal(res.outputs[0], expected)


def test_cast_float_round_half_away(projects):
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.4, -2.6, 1e10, 7.0], dtype=np.float32)
    res = run(projects("numerics"), x, None, key=24)
    assert res.outputs[0].tolist() == [1.0, 2.0, 3.0, -1.0, -3.0, 2.0, -3.0, 1e10, 7.0]


def test_cast_half_to_int8_saturates(projects):
    x = np.array([0.5, 1.5, 126.6, 127.5, 300, -128.4, -129, -1000, 2.5], dtype=np.float16)
    res = run(projects("numerics"), x, None, key=25, out_dtype=np.int8)
    assert res.outputs[0].tolist() == [0, 2, 127, 127, 127, -128, -128, -128, 2]


def test_cast_pair_not_on_910b_is_reported(projects, rng):
    with pytest.raises(UnsupportedError, match="Cast float -> int8_t"):
        run(projects("numerics"), _data(rng, 64), None, key=26, out_dtype=np.int8)


def test_reductions(projects, rng):
    x = rng.standard_normal(3000).astype(np.float32)
    z = run(projects("numerics"), x, None, key=30).outputs[0]
    np.testing.assert_allclose(z[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-4)
    assert z[8] == x.max() and z[16] == x.min()
