"""torch.addcdiv as a fused optimizer step uses it: x + value * t1 / t2, value a Scalar, numpy broadcasting."""

import numpy as np

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f32, f16, bf16), broadcast=True)
def addcdiv(x: Tensor, t1: Tensor, t2: Tensor, value: Scalar):
    return x + value * t1 / t2


OP = addcdiv
SHAPES = [((7,), (7,), (7,)), ((4, 33), (33,), (4, 1)), ((2, 3, 16), (1, 3, 1), (16,))]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    sx, s1, s2 = shape
    x = rng.uniform(-2, 2, sx).astype(t.np)
    t1 = rng.uniform(-2, 2, s1).astype(t.np)
    t2 = rng.uniform(0.5, 2, s2).astype(t.np) * np.where(rng.random(s2) < 0.5, -1, 1).astype(t.np)
    return [x, t1, t2, t.np.type(0.375)]


def golden(t, x, t1, t2, value):
    f = np.float32
    return [(x.astype(f) + f(value) * t1.astype(f) / t2.astype(f), t.np)]
