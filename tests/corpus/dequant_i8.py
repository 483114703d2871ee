"""Dequantization with no input of type T: i8 rows with an f32 zero point and per-column scale,
rounded once to T (``dsl.T``, chosen by ``dtype=``).

y (T) = cast((cast(x, f32) - zero_point) * scale, T).
"""

import numpy as np

import dsl
from dsl import Tensor, bf16, f16, f32, i8


@dsl.op(dtypes=(f16, bf16))
def dequant_i8(x: Tensor[i8, ..., "C"], scale: Tensor[f32, "C"], *, zero_point: float = 0.0):
    return dsl.cast((dsl.cast(x, f32) - zero_point) * scale, dsl.T)


OP = dequant_i8
SHAPES = [(1,), (7,), (3, 1), (4, 33), (2, 3, 16), (2, 4096 + 17)]
ATTRS = [{}, {"zero_point": 3.0}, {"zero_point": -0.5}]


def make_inputs(rng, t, shape):
    x = rng.integers(-128, 128, shape).astype(np.int8)
    scale = rng.uniform(-0.05, 0.05, shape[-1]).astype(np.float32)
    return [x, scale]


def golden(t, x, scale, zero_point=0.0):
    acc = (x.astype(np.float32) - np.float32(zero_point)) * scale
    return [(acc, t.np)]
