"""Lerp with a Scalar weight: y = start + weight * (end - start)."""

import numpy as np

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def lerp(start: Tensor, end: Tensor, weight: Scalar):
    return start + weight * (end - start)


OP = lerp
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (4, 9)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    start = rng.uniform(-2, 2, shape).astype(t.np)
    end = rng.uniform(-2, 2, shape).astype(t.np)
    weight = np.array([rng.uniform(0, 1)], dtype=t.np)
    return [start, end, weight]


def golden(t, start, end, weight):
    s, e, w = (a.astype(np.float32) for a in (start, end, weight))
    return [(s + w * (e - s), t.np)]
