"""LeakyReLU with a run-time float attribute: y = x if x > 0 else x * negative_slope."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def leaky_relu(x: Tensor, *, negative_slope: float = 0.01):
    return dsl.where(x > 0, x, x * negative_slope)


OP = leaky_relu
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
ATTRS = [{}, {"negative_slope": 0.2}, {"negative_slope": -1.5}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-4, 4, shape).astype(t.np)
    x.flat[0] = 0  # the boundary: 0 is not > 0, so y = 0 * slope
    return [x]


def golden(t, x, negative_slope=0.01):
    x = x.astype(np.float32)
    return [(np.where(x > 0, x, x * np.float32(negative_slope)), t.np)]
