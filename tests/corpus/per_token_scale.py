"""Per-token scaling: every row of x times its own f32 scale (``Tensor[f32, ..., 1]``), rounded back
to x's type."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16, f32))
def per_token_scale(x: Tensor[..., "C"], scale: Tensor[f32, ..., 1]):
    return dsl.cast(x * scale, x.dtype)


OP = per_token_scale
SHAPES = [(1,), (7,), (1, 1), (4, 33), (2, 3, 16), (2, 4096 + 17)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-4, 4, shape).astype(t.np), rng.uniform(-2, 2, shape[:-1] + (1,)).astype(np.float32)]


def golden(t, x, scale):
    return [(x.astype(np.float32) * scale, t.np)]
