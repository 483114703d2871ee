"""A comparison feeding dsl.where, with the mask as a second (bool_) output."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32, i32


@dsl.op(dtypes=(f16, f32, bf16, i32))
def select_ge(a: Tensor, b: Tensor):
    mask = a >= b
    out = dsl.where(mask, a - b, b * 2)
    return out, mask


OP = select_ge
OUTPUTS = ["out", "mask"]
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (3, 7)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    # small integers (halved for floats) so that a == b happens often
    a = rng.integers(-6, 7, shape)
    b = rng.integers(-6, 7, shape)
    if t.name == "i32":
        return [a.astype(np.int32), b.astype(np.int32)]
    return [(a / 2).astype(t.np), (b / 2).astype(t.np)]


def golden(t, a, b):
    if t.name == "i32":
        mask = a >= b
        return [
            (np.where(mask, a - b, b * np.int32(2)).astype(np.int32), np.int32),
            (mask, np.bool_),
        ]
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    mask = a32 >= b32
    return [(np.where(mask, a32 - b32, b32 * np.float32(2)), t.np), (mask, np.bool_)]
