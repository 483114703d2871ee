"""SiLU: y = x * sigmoid(x)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def silu(x: Tensor):
    return x * dsl.sigmoid(x)


OP = silu
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (3, 5)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-8, 8, shape).astype(t.np)]


def golden(t, x):
    x = x.astype(np.float32)
    return [(x * (np.float32(1) / (np.float32(1) + np.exp(-x))), t.np)]
