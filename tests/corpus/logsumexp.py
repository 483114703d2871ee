"""logsumexp along the last axis, the stable way: m + log(sum(exp(x - m))), one value per row."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f32, f16, bf16))
def logsumexp(x: Tensor[..., "C"]):
    m = dsl.max(x, axis=-1, keepdims=True)
    return m + dsl.log(dsl.sum(dsl.exp(x - m), axis=-1, keepdims=True))


OP = logsumexp
SHAPES = [(1,), (3, 17), (2, 2, 512), (2, 5000)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-20, 20, shape).astype(t.np)]


def golden(t, x):
    x = x.astype(np.float32)
    m = np.max(x, axis=-1, keepdims=True)
    return [(m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True, dtype=np.float32)), t.np)]
