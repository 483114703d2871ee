"""Pinned dtypes mixed with T: an f32 per-column scale and an f32 Scalar offset.

acc (f32) = cast(x, f32) * s + b;  y (T) = cast(acc, x.dtype).
"""

import numpy as np

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def scale_cols(x: Tensor[..., "C"], s: Tensor[f32, "C"], b: Scalar[f32]):
    acc = dsl.cast(x, f32) * s + b
    y = dsl.cast(acc, x.dtype)
    return y, acc


OP = scale_cols
OUTPUTS = ["y", "acc"]
SHAPES = [(1,), (7,), (3, 1), (4, 33), (2, 3, 16), (2, 4096 + 17)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-3, 3, shape).astype(t.np)
    s = rng.uniform(-2, 2, shape[-1]).astype(np.float32)
    b = np.array([rng.uniform(-1, 1)], np.float32)
    return [x, s, b]


def golden(t, x, s, b):
    acc = x.astype(np.float32) * s + b
    return [(acc, t.np), (acc, np.float32)]
