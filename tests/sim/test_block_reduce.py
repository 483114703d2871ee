"""CANN 8.x kernel API that real 910B operators use (AddLayerNorm's ReduceSumFP32 / ReduceSumShort):
BlockReduceSum (asc-devkit v8.5.0 docs/api/context/BlockReduceSum.md), GetAccVal (GetAccVal(ISASI).md),
AlignUp, ONE_BLK_SIZE, ONE_BLK_FLOAT_NUM, ONE_REPEAT_BYTE_SIZE, __CCE_AICORE__ and block_idx, on the fixture kernel
fixtures/kernels/block_reduce.cpp, against numpy in the documented pairwise order."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import run

N = 512  # 8 repeats of 64 floats, 64 blocks of 8


def pairwise(blocks: np.ndarray) -> np.ndarray:
    """Each row summed pairwise (0+1, 2+3, ...; then the pairs), in f32."""
    level = blocks.astype(np.float32)
    while level.shape[1] > 1:
        level = (level[:, 0::2] + level[:, 1::2]).astype(np.float32)
    return level[:, 0]


@pytest.mark.parametrize("key", [0, 1])
def test_block_reduce_sum_and_acc_val(projects, rng, key):
    x = rng.standard_normal(N).astype(np.float32)
    z = run(projects("block_reduce"), x, key=key, blocks=1).outputs[0]
    blocks = x.reshape(-1, 8).copy()
    if key == 1:  # mask 4: the first 4 elements of each repeat, i.e. half of its block 0
        per_repeat = blocks.reshape(-1, 8, 8)
        per_repeat[:, 0, 4:] = 0
        per_repeat[:, 1:, :] = 0
        blocks = per_repeat.reshape(-1, 8)
    expected = pairwise(blocks)
    assert np.array_equal(z[: N // 8], expected)
    total = z[N // 8]
    assert abs(total - x.astype(np.float64).sum()) <= 1e-4 * np.abs(x).sum()
    assert z[N // 8 + 1] == 520  # AlignUp(513, ONE_BLK_FLOAT_NUM)
    assert z[N // 8 + 2] == 220  # __CCE_AICORE__ of ascend910b
    assert z[N // 8 + 3] == 0  # block_idx of the only block


@pytest.mark.parametrize("key, fn", [(2, np.max), (3, np.min), (4, np.max)])
def test_block_reduce_max_min_and_reduce_data_block(projects, rng, key, fn):
    """BlockReduceMax/Min (v9.0.1 BlockReduceMax.md: repeatTime before mask) and ReduceDataBlock
    (9.1: mask first) under a mask of 12: block 0 whole, block 1 its first 4 elements; on A2 the
    blocks the mask leaves empty are not written (9.1 ReduceDataBlock.md), so they keep the 7."""
    x = rng.standard_normal(N).astype(np.float32)
    z = run(projects("block_reduce"), x, key=key, blocks=1).outputs[0]
    per_repeat = x.reshape(-1, 8, 8)
    want = np.full((N // 64, 8), 7.0, np.float32)
    want[:, 0] = fn(per_repeat[:, 0, :], axis=1)
    want[:, 1] = fn(per_repeat[:, 1, :4], axis=1)
    assert np.array_equal(z[: N // 8], want.reshape(-1))
