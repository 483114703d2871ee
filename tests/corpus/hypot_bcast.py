"""A float op with numpy broadcasting (broadcast=True): y = sqrt(a*a + b*b)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16), broadcast=True)
def hypot_bcast(a: Tensor, b: Tensor):
    return dsl.sqrt(a * a + b * b)


OP = hypot_bcast
SHAPES = [
    ((7,), (7,)),
    ((1,), (33,)),
    ((4096 + 17,), (1,)),
    ((5, 33), (33,)),
    ((5, 1), (5, 33)),
    ((3, 1, 7), (1, 4, 7)),
]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    sa, sb = shape
    return [rng.uniform(-3, 3, sa).astype(t.np), rng.uniform(-3, 3, sb).astype(t.np)]


def golden(t, a, b):
    a, b = a.astype(np.float32), b.astype(np.float32)
    return [(np.sqrt(a * a + b * b), t.np)]
