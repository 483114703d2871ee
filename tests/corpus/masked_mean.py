"""Mean over the valid positions of each row (a padding mask as Tensor[bool_, ..., "C"]), with the
count clamped to 1 for an all-padding row; the mean and the count are outputs."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32, bool_


@dsl.op(dtypes=(f16, bf16, f32))
def masked_mean(x: Tensor[..., "C"], mask: Tensor[bool_, ..., "C"]):
    m = dsl.cast(mask, f32)
    count = dsl.sum(m, axis=-1, keepdims=True)
    total = dsl.sum(dsl.where(mask, x, 0), axis=-1, keepdims=True)
    mean = total / dsl.maximum(count, 1)
    return mean, count


OP = masked_mean
OUTPUTS = ["mean", "count"]
SHAPES = [(1, 1), (3, 40), (5, 2, 129), (2, 4100)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-3, 3, shape).astype(t.np)
    mask = (rng.random(shape) < 0.6).astype(np.bool_)
    mask.reshape(-1, shape[-1])[0] = False  # an all-padding row
    return [x, mask]


def golden(t, x, mask):
    m = mask.astype(np.float32)
    count = m.sum(axis=-1, keepdims=True, dtype=np.float32)
    total = np.where(mask, x.astype(np.float32), np.float32(0)).sum(axis=-1, keepdims=True, dtype=np.float32)
    return [(total / np.maximum(count, np.float32(1)), np.float32), (count, np.float32)]
