"""Per-token dynamic quantization as ops-nn DynamicQuant does it: scale = max|x| / 127 per row,
y = round(x / scale) saturated to int8, and the f32 scales as a second output."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32, i8


@dsl.op(dtypes=(f16, bf16))
def dynamic_quant(x: Tensor[..., "C"]):
    amax = dsl.max(dsl.abs(x), axis=-1, keepdims=True)
    scale = dsl.cast(amax, f32) / 127.0
    y = dsl.cast(dsl.round(x / scale), i8)
    return y, scale


OP = dynamic_quant
OUTPUTS = ["y", "scale"]
SHAPES = [(1,), (7,), (3, 1), (4, 33), (2, 3, 16), (3, 4096 + 17)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-3, 3, shape).astype(t.np)
    x.reshape(-1)[:1] = 0  # a zero among the values (never a whole row of zeros: 0/0)
    return [x]


def golden(t, x):
    xf = x.astype(np.float32)
    scale = np.max(np.abs(xf), axis=-1, keepdims=True) / np.float32(127.0)
    with np.errstate(invalid="ignore"):  # a row of one zero: 0 / 0, cast to 0
        q = np.rint(xf / scale)
    y = np.clip(np.nan_to_num(q), -128, 127).astype(np.int8)
    return [(y, np.int8), (scale, np.float32)]
