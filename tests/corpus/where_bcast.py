"""torch.where with numpy broadcasting and a bool condition (a [B, 1, S] padding mask over [B, H, S]
scores), the fill a Scalar."""

import numpy as np

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32, bool_


@dsl.op(dtypes=(f16, bf16, f32), broadcast=True)
def where_bcast(cond: Tensor[bool_], x: Tensor, fill: Scalar):
    return dsl.where(cond, x, fill)


OP = where_bcast
SHAPES = [((5,), (5,)), ((2, 1, 33), (2, 3, 33)), ((1,), (4, 7)), ((3, 1), (1, 65))]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    sc, sx = shape
    cond = rng.random(sc) < 0.5
    return [cond, rng.uniform(-2, 2, sx).astype(t.np), t.np.type(-1.5)]


def golden(t, cond, x, fill):
    return [(np.where(cond, x.astype(np.float32), np.float32(fill)), t.np)]
