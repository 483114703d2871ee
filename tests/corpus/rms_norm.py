"""RMSNorm over the last axis: y = x * rsqrt(mean(x*x) + epsilon) * gamma (gamma per column)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def rms_norm(x: Tensor[..., "C"], gamma: Tensor["C"], *, epsilon: float = 1e-6):
    rstd = dsl.rsqrt(dsl.mean(x * x, axis=-1, keepdims=True) + epsilon)
    return x * rstd * gamma


OP = rms_norm
SHAPES = [(1,), (7,), (1, 1), (3, 1), (4, 33), (2, 3, 16), (3, 4096 + 17)]
ATTRS = [{}, {"epsilon": 0.5}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-2, 2, shape).astype(t.np)
    gamma = rng.uniform(0.5, 1.5, shape[-1]).astype(t.np)
    return [x, gamma]


def golden(t, x, gamma, epsilon=1e-6):
    x, g = x.astype(np.float32), gamma.astype(np.float32)
    ms = np.mean(x * x, axis=-1, keepdims=True, dtype=np.float32)
    rstd = np.float32(1) / np.sqrt(ms + np.float32(epsilon))
    return [(x * rstd * g, t.np)]
