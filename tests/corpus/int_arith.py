"""Integer arithmetic stays in its type (values kept small: no overflow semantics tested)."""

import numpy as np

import dsl
from dsl import Tensor, i8, i32


@dsl.op(dtypes=(i32, i8))
def int_arith(a: Tensor, b: Tensor):
    return a * b - a + dsl.maximum(a, b) - dsl.abs(b)


OP = int_arith
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.integers(-5, 6, shape).astype(t.np), rng.integers(-5, 6, shape).astype(t.np)]


def golden(t, a, b):
    return [((a * b - a + np.maximum(a, b) - np.abs(b)).astype(t.np), t.np)]
