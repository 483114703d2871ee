"""Softmax of attention scores under an attention mask and a padding mask (both bool_): masked
scores become -inf, so they get weight 0."""

import math

import numpy as np

import dsl
from dsl import Tensor, bool_, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def attention_mask_softmax(
    scores: Tensor[..., "C"], attend: Tensor[bool_, ..., "C"], padding: Tensor[bool_, ..., "C"]
):
    s = dsl.where(attend & ~padding, scores, -math.inf)
    e = dsl.exp(s - dsl.max(s, axis=-1, keepdims=True))
    return e / dsl.sum(e, axis=-1, keepdims=True)


OP = attention_mask_softmax
SHAPES = [(1,), (7,), (4, 33), (2, 3, 16), (2, 4096 + 17)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    scores = rng.uniform(-6, 6, shape).astype(t.np)
    attend = rng.choice(np.array([0, 1, 3, 255], np.uint8), shape)
    padding = rng.choice(np.array([0, 0, 1, 128], np.uint8), shape)
    attend[..., 0], padding[..., 0] = 7, 0  # every row keeps its first score
    return [scores, attend.view(np.bool_), padding.view(np.bool_)]


def golden(t, scores, attend, padding):
    keep = (attend.view(np.uint8) != 0) & (padding.view(np.uint8) == 0)
    s = np.where(keep, scores.astype(np.float32), -np.inf)
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return [(e / np.sum(e, axis=-1, keepdims=True, dtype=np.float32), t.np)]
