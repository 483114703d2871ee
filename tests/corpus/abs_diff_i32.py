"""Integer |a - b| and a clamp, i32 throughout (index arithmetic style), with a bool output too."""

import numpy as np

import dsl
from dsl import Tensor, i32


@dsl.op(dtypes=(i32,))
def abs_diff_i32(a: Tensor, b: Tensor, *, limit: int = 1000):
    d = dsl.where(a > b, a - b, b - a)
    y = dsl.minimum(d, limit)
    over = d > limit
    return y, over


OP = abs_diff_i32
OUTPUTS = ["y", "over"]
SHAPES = [(1,), (77,), (3, 2049)]
ATTRS = [{}, {"limit": 7}]


def make_inputs(rng, t, shape):
    return [
        rng.integers(-5000, 5000, shape).astype(np.int32),
        rng.integers(-5000, 5000, shape).astype(np.int32),
    ]


def golden(t, a, b, limit=1000):
    d = np.abs(a.astype(np.int64) - b.astype(np.int64))
    return [(np.minimum(d, limit).astype(np.int32), np.int32), (d > limit, np.bool_)]
