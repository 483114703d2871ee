"""Softmax of attention scores plus a causal mask: ``mask`` [S, C] repeats along the leading dims of
``x`` [..., S, C] (row r of the flattened rows adds the mask's row r % S)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def causal_softmax(x: Tensor[..., "S", "C"], mask: Tensor["S", "C"]):
    y = x + mask
    e = dsl.exp(y - dsl.max(y, axis=-1, keepdims=True))
    return e / dsl.sum(e, axis=-1, keepdims=True)


OP = causal_softmax
SHAPES = [(1, 1), (5, 7), (2, 3, 5, 7), (2, 3, 64, 128), (3, 2, 1, 33), (2, 3, 4097)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    s, c = shape[-2:]
    causal = np.where(np.arange(c)[None, :] <= np.arange(s)[:, None], 0.0, -1000.0)
    return [rng.uniform(-6, 6, shape).astype(t.np), (causal + rng.uniform(-1, 1, (s, c))).astype(t.np)]


def golden(t, x, mask):
    y = x.astype(np.float32) + mask.astype(np.float32)
    e = np.exp(y - np.max(y, axis=-1, keepdims=True))
    return [(e / np.sum(e, axis=-1, keepdims=True, dtype=np.float32), t.np)]
