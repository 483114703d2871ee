"""RmsNormQuant (ops-nn norm family): y = x * rstd * gamma, quantized per channel to int8 with
round half to even and saturation: cast(round(y / scale + offset), i8)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32, i8


@dsl.op(dtypes=(f16, bf16))
def rms_norm_quant(
    x: Tensor[..., "C"],
    gamma: Tensor["C"],
    scale: Tensor[f32, "C"],
    offset: Tensor[f32, "C"],
    *,
    epsilon: float = 1e-6,
):
    rstd = dsl.rsqrt(dsl.mean(x * x, axis=-1, keepdims=True) + epsilon)
    y = dsl.cast(x * rstd * gamma, x.dtype)
    return dsl.cast(dsl.round(y / scale + offset), i8)


OP = rms_norm_quant
SHAPES = [(1,), (4, 33), (2, 3, 256)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    c = shape[-1]
    x = rng.uniform(-3, 3, shape).astype(t.np)
    gamma = rng.uniform(0.5, 2, c).astype(t.np)
    scale = rng.uniform(0.005, 0.05, c).astype(np.float32)
    offset = rng.integers(-4, 5, c).astype(np.float32)
    return [x, gamma, scale, offset]


def golden(t, x, gamma, scale, offset, epsilon=1e-6):
    xf = x.astype(np.float32)
    rstd = np.float32(1) / np.sqrt(
        np.mean(xf * xf, axis=-1, keepdims=True, dtype=np.float32) + np.float32(epsilon)
    )
    y = (xf * rstd * gamma.astype(np.float32)).astype(t.np).astype(np.float32)
    q = np.clip(np.round(y / scale + offset), -128, 127)
    return [(q, np.int8)]
