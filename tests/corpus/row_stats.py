"""Reductions along the last axis: mean, max, min, sum (keepdims)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def row_stats(x: Tensor[..., "C"]):
    mu = dsl.mean(x, axis=-1, keepdims=True)
    hi = dsl.max(x, axis=-1, keepdims=True)
    lo = dsl.min(x, axis=-1, keepdims=True)
    total = dsl.sum(x, axis=-1, keepdims=True)
    return mu, hi, lo, total


OP = row_stats
OUTPUTS = ["mu", "hi", "lo", "total"]
SHAPES = [(1,), (7,), (1, 1), (3, 1), (4, 33), (2, 3, 16), (2, 4096 + 17)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    # positive values: sums have no cancellation, so the reduction order does not matter
    # beyond the f32 rounding tolerance
    return [rng.uniform(0.5, 1.5, shape).astype(t.np)]


def golden(t, x):
    x = x.astype(np.float32)
    kw = dict(axis=-1, keepdims=True)
    return [
        (np.mean(x, dtype=np.float32, **kw), t.np),
        (np.max(x, **kw), t.np),
        (np.min(x, **kw), t.np),
        (np.sum(x, dtype=np.float32, **kw), t.np),
    ]
