"""Clamp with two run-time float attributes: y = min(max(x, lo), hi)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def clamp(x: Tensor, *, lo: float = -1.0, hi: float = 1.0):
    return dsl.minimum(dsl.maximum(x, lo), hi)


OP = clamp
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
ATTRS = [{}, {"lo": -0.25, "hi": 0.5}, {"lo": 0.1, "hi": 0.1}, {"hi": 3.0}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-2, 2, shape).astype(t.np)]


def golden(t, x, lo=-1.0, hi=1.0):
    x = x.astype(np.float32)
    return [(np.minimum(np.maximum(x, np.float32(lo)), np.float32(hi)), t.np)]
