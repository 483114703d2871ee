"""The vector mask registers (asc-devkit docs/zh/api SetVectorMask.md, SetMaskCount.md, SetMaskNorm.md,
ResetMask.md; AscendCUtils::SetMask of impl/basic_api/kernel_utils.h) and the isSetMask = false forms
of Add/Sub/Or/WholeReduceSum/Duplicate, on the fixture kernel fixtures/kernels/vector_mask.cpp: Normal
mode bit and continuous masks, Counter mode's element count, a mask left by an isSetMask = true call."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import run

N = 512  # 8 repeats of 64 floats


@pytest.fixture
def xy(rng):
    return rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)


def lanes(mask_per_repeat: np.ndarray) -> np.ndarray:
    return np.tile(mask_per_repeat, N // mask_per_repeat.size)


def test_normal_bit_mask(projects, xy):
    x, y = xy
    res = run(projects("vector_mask"), x, y, key=0)
    assert not res.faults
    on = lanes(np.arange(64) % 2 == 0)
    assert np.array_equal(res.outputs[0], np.where(on, x + y, 0).astype(np.float32))


def test_normal_continuous_mask(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=1).outputs[0]
    on = lanes(np.arange(64) < 10)
    assert np.array_equal(z, np.where(on, x + y, 0).astype(np.float32))


def test_counter_mode_element_count(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=2).outputs[0]
    on = np.arange(N) < N - 37
    assert np.array_equal(z, np.where(on, x + y, 0).astype(np.float32))


def test_or_int16_high_mask_word(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=3).outputs[0].view(np.int16)
    xi, yi = x.view(np.int16), y.view(np.int16)
    on = np.tile((np.arange(128) >= 64) & (np.arange(128) < 80), 2 * N // 128)
    on[N:] = False  # repeats / 2 repeats of 128 int16 lanes: the first N int16 elements
    assert np.array_equal(z, np.where(on, xi | yi, 0).astype(np.int16))


def test_mask_left_by_set_mask_call(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=4).outputs[0]
    on = lanes(np.arange(64) < 16)
    expected = np.where(on, x - y, 0).astype(np.float32)
    expected[:64] = np.where(np.arange(64) < 16, x[:64] * y[:64], 0)
    assert np.array_equal(z, expected)


def test_whole_reduce_sum_under_register(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=5).outputs[0]
    sums = x.reshape(-1, 64)[:, :8].astype(np.float64).sum(axis=1)
    assert np.allclose(z[: N // 64], sums, rtol=1e-5, atol=1e-6)
    assert np.all(z[N // 64 :] == 0)


def test_duplicate_under_register_after_count_form(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=6).outputs[0]
    expected = np.ones(N, np.float32)
    expected[:8] = 0  # 16 int16 lanes of 0 = the first 32 bytes
    assert np.array_equal(z, expected)


def test_deq_scale_cast_core_type_align_up(projects, xy):
    """SetDeqScale(half) scales Cast int32_t -> half (Cast.md: src / 2^17 * scale * 2^17); g_coreType
    is AIV in an AIV-only kernel; AlignUp takes mixed integer types."""
    x, y = xy
    res = run(projects("vector_mask"), x, y, key=7)
    assert not res.faults
    z = res.outputs[0]
    halves = z.view(np.float16)[:N]
    assert np.array_equal(halves, (np.rint(x) * 2).astype(np.float16))
    assert np.all(z[N - 8 :] == 1.0)
    assert np.all(z[N - 16 : N - 8] == N + 8)


def test_cast_level0_counter_mode(projects, xy):
    """Cast<T, U, false> in Counter mode: the register's element count, repeatTime 1 not used."""
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=8).outputs[0]
    assert np.array_equal(z, np.where(np.arange(N) < N - 37, np.floor(x), 0).astype(np.float32))


def test_cast_level0_normal_bit_mask_register(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=9).outputs[0]
    assert np.array_equal(z, np.where(lanes(np.arange(64) % 2 == 0), np.ceil(x), 0).astype(np.float32))


def test_cast_level0_bit_mask_form_sets_the_register(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=10).outputs[0]
    on = lanes(np.arange(64) < 32)
    half = np.arange(N) < N // 2
    expected = np.where(on, np.where(half, np.trunc(x), np.floor(y)), 0).astype(np.float32)
    assert np.array_equal(z, expected)


def test_unary_and_vector_scalar_level0(projects, xy):
    x, y = xy
    z = run(projects("vector_mask"), x, y, key=11).outputs[0]
    j = lanes(np.arange(64))
    expected = np.where(j < 8, np.abs(x) + np.float32(1), np.where(j < 20, np.abs(x), 0)).astype(np.float32)
    assert np.array_equal(z, expected)
