"""F.normalize along the last axis: x / max(||x||_2, eps), written with rsqrt of the clamped square sum."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16, f32))
def l2_normalize(x: Tensor[..., "C"], *, eps: float = 1e-12):
    ss = dsl.sum(x * x, axis=-1, keepdims=True)
    return x * dsl.rsqrt(dsl.maximum(ss, eps * eps))


OP = l2_normalize
SHAPES = [(1,), (4, 64), (3, 2, 1000), (2, 9000)]
ATTRS = [{}, {"eps": 0.5}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-1, 1, shape).astype(t.np)
    x.reshape(-1, shape[-1])[0] = 0  # a zero row: the clamp decides
    return [x]


def golden(t, x, eps=1e-12):
    x = x.astype(np.float32)
    ss = np.sum(x * x, axis=-1, keepdims=True, dtype=np.float32)
    e = np.float32(eps) * np.float32(eps)
    return [(x * (np.float32(1) / np.sqrt(np.maximum(ss, e))), t.np)]
