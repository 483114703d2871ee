"""Transpose (16 x 16 of 2-byte elements, asc-devkit Transpose.md), BroadCast (adv_api Broadcast.md), TransDataTo5HD's address-list form
for int16_t (TransDataTo5HD.md) and FusedMulAdd (dst = src0 * dst + src1, count and level-0 forms),
on the fixture kernel fixtures/kernels/transpose.cpp, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import run

N = 512


@pytest.fixture
def xy(rng):
    return rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)


def test_transpose_16x16(projects, xy):
    x, y = xy
    res = run(projects("transpose"), x, y, key=0)
    assert not res.faults
    z = res.outputs[0].view(np.uint16)
    assert np.array_equal(z[:256], x.view(np.uint16)[:256].reshape(16, 16).T.reshape(-1))
    assert np.all(z[256:] == 0)


def test_trans_data_to_5hd_address_lists(projects, xy):
    x, y = xy
    z = run(projects("transpose"), x, y, key=1).outputs[0].view(np.int16).reshape(-1, 16)
    xb = x.view(np.int16).reshape(-1, 16)
    expected = np.zeros_like(z)
    for r in range(2):
        for i in range(16):
            for j in range(16):
                expected[2 * j + r, i] = xb[16 * r + i, j]
    assert np.array_equal(z, expected)


def test_fused_mul_add_count(projects, xy):
    x, y = xy
    z = run(projects("transpose"), x, y, key=2).outputs[0]
    d = (y + np.float32(1)).astype(np.float32)
    expected = (x.astype(np.float64) * d + y).astype(np.float32)  # src0 * dst + src1, one rounding
    np.testing.assert_allclose(z, expected, rtol=1e-6, atol=1e-7)
    assert not np.allclose(z, x * y + d, rtol=1e-3)  # not src0 * src1 + dst


def test_fused_mul_add_level0_mask(projects, xy):
    x, y = xy
    z = run(projects("transpose"), x, y, key=3).outputs[0]
    d = (y + np.float32(1)).astype(np.float32)
    on = np.tile(np.arange(64) < 32, N // 64)
    expected = np.where(on, (x.astype(np.float64) * d + y).astype(np.float32), d)
    np.testing.assert_allclose(z, expected, rtol=1e-6, atol=1e-7)


def test_broadcast_along_last_axis(projects, xy):
    x, y = xy
    z = run(projects("transpose"), x, y, key=4).outputs[0]
    assert np.array_equal(z.reshape(8, N // 8), np.broadcast_to(x[:8].reshape(8, 1), (8, N // 8)))


def test_broadcast_along_first_axis(projects, xy):
    x, y = xy
    z = run(projects("transpose"), x, y, key=5).outputs[0]
    assert np.array_equal(z.reshape(8, N // 8), np.broadcast_to(x[: N // 8].reshape(1, -1), (8, N // 8)))
