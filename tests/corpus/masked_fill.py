"""masked_fill: a bool_ mask (one byte per element, any nonzero byte true) selects a fill value."""

import numpy as np

import dsl
from dsl import Scalar, Tensor, bool_, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def masked_fill(x: Tensor, mask: Tensor[bool_], value: Scalar):
    return dsl.where(mask, value, x)


OP = masked_fill
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (3, 7)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-4, 4, shape).astype(t.np)
    mask = rng.choice(np.array([0, 1, 2, 255], np.uint8), shape).view(np.bool_)
    return [x, mask, np.array([-1.5], t.np)]


def golden(t, x, mask, value):
    return [(np.where(mask.view(np.uint8) != 0, value.astype(np.float32)[0], x.astype(np.float32)), t.np)]
