"""x @ w with w as [K, N], per-channel f32 scale, silu, output f32."""

import numpy as np
import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16))
def mm_silu_scale(x: Tensor["M", "K"], w: Tensor["K", "N"], scale: Tensor[f32, "N"]):
    y = (x @ w) * scale
    return y * dsl.sigmoid(y)


OP = mm_silu_scale
SHAPES = [(2, 32, 48), (17, 64, 130)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    m, k, n = shape
    return [
        rng.uniform(-1, 1, (m, k)).astype(t.np),
        rng.uniform(-1, 1, (k, n)).astype(t.np),
        rng.uniform(0.5, 2, n).astype(np.float32),
    ]


def golden(t, x, w, scale):
    y = (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32) * scale
    return [(y / (np.float32(1) + np.exp(-y)), np.float32)]
