"""HardSwish: x * min(max(x + 3, 0), 6) / 6, with a Literal choosing HardSigmoid instead."""

from typing import Literal

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16, f32))
def hard_swish(x: Tensor, *, kind: Literal["swish", "sigmoid"] = "swish"):
    gate = dsl.minimum(dsl.maximum(x + 3, 0), 6) / 6
    if kind == "swish":
        y = x * gate
    else:
        y = gate
    return y


OP = hard_swish
SHAPES = [(1,), (100,), (2, 4099)]
ATTRS = [{"kind": "swish"}, {"kind": "sigmoid"}]


def make_inputs(rng, t, shape):
    x = rng.uniform(-5, 5, shape).astype(t.np)
    x.flat[:4] = np.array([-3, 3, 0, -0.0], dtype=t.np)[: x.size]
    return [x]


def golden(t, x, kind="swish"):
    x = x.astype(np.float32)
    gate = np.minimum(np.maximum(x + np.float32(3), 0), 6) / np.float32(6)
    return [(x * gate if kind == "swish" else gate, t.np)]
