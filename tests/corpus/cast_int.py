"""Float -> integer casts: round-half-even then cast, and plain casts (truncate toward zero,
saturate) to i32, i8 and u8."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32, i8, i32, u8


@dsl.op(dtypes=(f16, f32, bf16))
def cast_int(x: Tensor, *, scale: float = 1.0):
    v = x * scale
    rounded = dsl.cast(dsl.round(v), i32)
    truncated = dsl.cast(v, i32)
    q8 = dsl.cast(v, i8)
    u = dsl.cast(v, u8)
    return rounded, truncated, q8, u


OP = cast_int
OUTPUTS = ["rounded", "truncated", "q8", "u"]
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (4, 10)]
ATTRS = [{}, {"scale": 0.5}, {"scale": 3.0}, {"scale": 1.0e8}]  # 1e8: i32 saturates too
# ties (half-to-even), int8/uint8 saturation bounds, small negatives (truncate toward zero);
# values not exact in T are rounded on the way in, and the golden uses the rounded input
SPECIAL = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 127.75, -128.75, 128.5, -129.5, 255.5, 256.0, -0.75, 0]


def make_inputs(rng, t, shape):
    x = rng.uniform(-300, 300, shape)
    flat = x.reshape(-1)
    k = min(len(SPECIAL), flat.size)
    flat[:k] = SPECIAL[:k]
    return [x.astype(t.np)]


def _saturate(v, dtype):
    info = np.iinfo(dtype)
    return np.clip(v.astype(np.float64), info.min, info.max).astype(dtype)


def golden(t, x, scale=1.0):
    v = x.astype(np.float32) * np.float32(scale)
    trunc = np.trunc(v)
    return [
        (_saturate(np.rint(v), np.int32), np.int32),
        (_saturate(trunc, np.int32), np.int32),
        (_saturate(trunc, np.int8), np.int8),
        (_saturate(trunc, np.uint8), np.uint8),
    ]
