"""SigmoidCrossEntropyWithLogits (ops-nn loss family): max(x, 0) - x * z + log(1 + exp(-|x|)),
written the numerically stable way a loss kernel writes it."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f32, f16, bf16))
def sigmoid_bce_logits(x: Tensor, z: Tensor):
    return dsl.relu(x) - x * z + dsl.log(1 + dsl.exp(-dsl.abs(x)))


OP = sigmoid_bce_logits
SHAPES = [(1,), (37,), (4096 + 5,), (3, 300)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-6, 6, shape).astype(t.np), rng.uniform(0, 1, shape).astype(t.np)]


def golden(t, x, z):
    x, z = x.astype(np.float32), z.astype(np.float32)
    return [(np.maximum(x, 0) - x * z + np.log(np.float32(1) + np.exp(-np.abs(x))), t.np)]
