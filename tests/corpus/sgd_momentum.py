"""SGD with momentum; a static bool attribute selects Nesterov; a float attribute is run-time.

buf = momentum * buf + grad; step = grad + momentum * buf (nesterov) or buf;
param_out = param - lr * step.
"""

import numpy as np

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def sgd_momentum(
    param: Tensor,
    grad: Tensor,
    momentum_buf: Tensor,
    lr: Scalar,
    *,
    momentum: float = 0.9,
    nesterov: bool = False,
):
    buf = momentum_buf * momentum + grad
    if nesterov:
        step = grad + buf * momentum
    else:
        step = buf
    param_out = param - lr * step
    return param_out, buf


OP = sgd_momentum
OUTPUTS = ["param_out", "buf"]
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (5, 3)]
ATTRS = [
    {},
    {"nesterov": True},
    {"momentum": 0.5, "nesterov": False},
    {"momentum": 0.5, "nesterov": True},
]


def make_inputs(rng, t, shape):
    param = rng.uniform(-1, 1, shape).astype(t.np)
    grad = rng.uniform(-1, 1, shape).astype(t.np)
    buf = rng.uniform(-0.5, 0.5, shape).astype(t.np)
    lr = np.array([0.05], dtype=t.np)
    return [param, grad, buf, lr]


def golden(t, param, grad, momentum_buf, lr, momentum=0.9, nesterov=False):
    p, g, b, lr = (a.astype(np.float32) for a in (param, grad, momentum_buf, lr))
    mom = np.float32(momentum)
    buf = b * mom + g
    step = g + buf * mom if nesterov else buf
    return [(p - lr * step, t.np), (buf, t.np)]
