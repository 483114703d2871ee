"""Precision guard for "f32 math, rounded once on store": (a + b) - a recovers b only if the
intermediate sum is kept in f32. A Scalar (dtype T) takes part the same way."""

import numpy as np

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def single_rounding(a: Tensor, b: Tensor, s: Scalar):
    t1 = (a + b) - a
    t2 = (a + s) - a
    return t1, t2


OP = single_rounding
OUTPUTS = ["t1", "t2"]
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    a = rng.choice([256.0, -512.0, 1000.0, 64.0], shape).astype(t.np)
    b = rng.uniform(-0.1, 0.1, shape).astype(t.np)
    s = np.array([0.0078125 + 2.0**-12], t.np)  # rounded to T on the way in (Scalar is T)
    return [a, b, s]


def golden(t, a, b, s):
    a, b, s = (v.astype(np.float32) for v in (a, b, s))
    return [((a + b) - a, t.np), ((a + s) - a, t.np)]
