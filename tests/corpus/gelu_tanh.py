"""GELU, tanh approximation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def gelu_tanh(x: Tensor):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1 + dsl.tanh(inner))


OP = gelu_tanh
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (2, 3, 4)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-4, 4, shape).astype(t.np)]


def golden(t, x):
    x = x.astype(np.float32)
    c0, c1, half = np.float32(0.7978845608028654), np.float32(0.044715), np.float32(0.5)
    inner = c0 * (x + c1 * x * x * x)
    return [(half * x * (np.float32(1) + np.tanh(inner)), t.np)]
