"""Every unary intrinsic and both allowed powers: sqrt, rsqrt, log, exp, abs, relu, reciprocal,
tanh, minimum with a constant, unary minus, ** 0.5, ** 2."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def unary_mix(x: Tensor):
    a = dsl.abs(x) + 1
    p = dsl.sqrt(a) + a**0.5 + dsl.rsqrt(a) + dsl.log(a)
    q = dsl.exp(-a) + dsl.relu(x) + dsl.reciprocal(a) + x**2
    r = dsl.tanh(x) * dsl.minimum(x, 0.5)
    return p, q, r


OP = unary_mix
OUTPUTS = ["p", "q", "r"]
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-3, 3, shape).astype(t.np)]


def golden(t, x):
    x = x.astype(np.float32)
    one = np.float32(1)
    a = np.abs(x) + one
    p = np.sqrt(a) + np.sqrt(a) + one / np.sqrt(a) + np.log(a)
    q = np.exp(-a) + np.maximum(x, np.float32(0)) + one / a + x * x
    r = np.tanh(x) * np.minimum(x, np.float32(0.5))
    return [(p, t.np), (q, t.np), (r, t.np)]
