"""Precision guard: float attributes are run-time f32 values (never rounded to T), and
``x - shift`` cancels, so rounding ``shift`` (or the difference) to T would be visible.

y = (x - shift) * scale
"""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def shift_scale(x: Tensor, *, shift: float = 0.0, scale: float = 1.0):
    return (x - shift) * scale


OP = shift_scale
SHIFT = 1 + 2.0**-9 + 2.0**-13  # not representable in f16 (nor bf16); exact in f32
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
ATTRS = [{}, {"shift": SHIFT, "scale": 1024.0}, {"shift": -SHIFT, "scale": -0.5}]


def make_inputs(rng, t, shape):
    # values within a few T-ulps of 1.0, so (x - shift) cancels
    k = rng.integers(-8, 9, shape)
    step = 2.0**-7 if t.name == "bf16" else 2.0**-10
    return [(1.0 + k * step).astype(t.np)]


def golden(t, x, shift=0.0, scale=1.0):
    return [((x.astype(np.float32) - np.float32(shift)) * np.float32(scale), t.np)]
