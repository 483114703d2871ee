"""Softmax over the last axis (max-subtracted)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def softmax(x: Tensor[..., "C"]):
    m = dsl.max(x, axis=-1, keepdims=True)
    e = dsl.exp(x - m)
    s = dsl.sum(e, axis=-1, keepdims=True)
    return e / s


OP = softmax
SHAPES = [(1,), (7,), (1, 1), (4, 33), (2, 3, 16), (2, 4096 + 17)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-6, 6, shape).astype(t.np)]


def golden(t, x):
    x = x.astype(np.float32)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return [(e / np.sum(e, axis=-1, keepdims=True, dtype=np.float32), t.np)]
