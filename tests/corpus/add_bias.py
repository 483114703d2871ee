"""An optional input guarded by a static bool attribute, in conditional-expression form."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def add_bias(x: Tensor, bias: Tensor | None = None, *, use_bias: bool = False, alpha: float = 1.0):
    y = x * alpha + bias if use_bias else x * alpha
    return y


OP = add_bias
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
# keys starting with "_" steer make_inputs/golden and are not passed to reference()
ATTRS = [
    {},
    {"_pass_bias": True},  # present but not used: allowed, ignored
    {"use_bias": True, "_pass_bias": True},
    {"use_bias": True, "_pass_bias": True, "alpha": -2.5},
    {"use_bias": False, "alpha": 0.5},
]


def make_inputs(rng, t, shape, _pass_bias=False, **_):
    x = rng.uniform(-2, 2, shape).astype(t.np)
    if not _pass_bias:
        return [x]
    return [x, rng.uniform(-2, 2, shape).astype(t.np)]


def golden(t, x, bias=None, use_bias=False, alpha=1.0, _pass_bias=False):
    y = x.astype(np.float32) * np.float32(alpha)
    if use_bias:
        y = y + bias.astype(np.float32)
    return [(y, t.np)]
