"""AddRmsNorm as ops-nn ships it (norm/add_rms_norm): x = x1 + x2 rounded to the input type
(its golden casts the sum before the statistics), y = x * rstd * gamma, and rstd (f32, one per
row) and x as outputs too."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16, f32))
def add_rms_norm(x1: Tensor[..., "C"], x2: Tensor[..., "C"], gamma: Tensor["C"], *, epsilon: float = 1e-6):
    x = dsl.cast(x1 + x2, x1.dtype)
    rstd = dsl.rsqrt(dsl.mean(x * x, axis=-1, keepdims=True) + epsilon)
    y = dsl.cast(x * rstd, x1.dtype) * gamma
    rstd_out = dsl.cast(rstd, f32)
    return y, rstd_out, x


OP = add_rms_norm
OUTPUTS = ["y", "rstd_out", "x"]
SHAPES = [(1,), (7,), (3, 1), (4, 33), (2, 3, 16), (3, 4096 + 17)]
ATTRS = [{}, {"epsilon": 0.25}]


def make_inputs(rng, t, shape):
    x1 = rng.uniform(-2, 2, shape).astype(t.np)
    x2 = rng.uniform(-2, 2, shape).astype(t.np)
    gamma = rng.uniform(0.5, 1.5, shape[-1]).astype(t.np)
    return [x1, x2, gamma]


def golden(t, x1, x2, gamma, epsilon=1e-6):
    x = (x1.astype(np.float32) + x2.astype(np.float32)).astype(t.np).astype(np.float32)
    ms = np.mean(x * x, axis=-1, keepdims=True, dtype=np.float32)
    rstd = np.float32(1) / np.sqrt(ms + np.float32(epsilon))
    normed = (x * rstd).astype(t.np).astype(np.float32)
    return [(normed * gamma.astype(np.float32), t.np), (rstd, np.float32), (x, t.np)]
