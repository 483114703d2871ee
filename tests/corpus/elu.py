"""ELU with a run-time alpha (a float attribute) and a scale: where(x > 0, x, alpha * (exp(x) - 1)) * scale."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def elu(x: Tensor, *, alpha: float = 1.0, scale: float = 1.0):
    neg = alpha * (dsl.exp(x) - 1)
    return dsl.where(x > 0, x, neg) * scale


OP = elu
SHAPES = [(5,), (1000,), (8, 513)]
ATTRS = [{}, {"alpha": 1.6732632, "scale": 1.0507010}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-4, 4, shape).astype(t.np)]


def golden(t, x, alpha=1.0, scale=1.0):
    x = x.astype(np.float32)
    neg = np.float32(alpha) * (np.exp(x) - np.float32(1))
    return [(np.where(x > 0, x, neg) * np.float32(scale), t.np)]
