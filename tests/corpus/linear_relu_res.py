"""A newcomer's linear layer: other dim names, a Scalar scale, a residual and a relu."""

import numpy as np
import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(bf16, f16))
def linear_relu_res(h: Tensor["T", "D"], w: Tensor["F", "D"], res: Tensor["T", "F"], alpha: Scalar[f32]):
    y = dsl.relu(h @ w.T) * alpha + res
    return dsl.cast(y, h.dtype)


OP = linear_relu_res
SHAPES = [(1, 16, 16), (33, 40, 70), (64, 200, 17)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    m, k, n = shape
    return [
        rng.uniform(-1, 1, (m, k)).astype(t.np),
        rng.uniform(-1, 1, (n, k)).astype(t.np),
        rng.uniform(-1, 1, (m, n)).astype(t.np),
        np.float32(0.75),
    ]


def golden(t, h, w, res, alpha):
    acc = (h.astype(np.float64) @ w.astype(np.float64).T).astype(np.float32)
    return [(np.maximum(acc, 0) * np.float32(alpha) + res.astype(np.float32), t.np)]
