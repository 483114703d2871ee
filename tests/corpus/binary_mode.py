"""A Literal attribute selecting the operation (static: one kernel path per value), and a bool
attribute combined with it by and/or."""

from typing import Literal

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def binary_mode(a: Tensor, b: Tensor, *, mode: Literal["add", "mul", "max"] = "add", negate: bool = False):
    if mode == "add":
        y = a + b
    elif mode == "mul":
        y = a * b
    else:
        y = dsl.maximum(a, b)
    if negate and (mode == "add" or mode == "mul"):
        y = -y
    return y


OP = binary_mode
SHAPES = [(1,), (7,), (33,), (4096 + 17,)]
ATTRS = [{"mode": m, "negate": n} for m in ("add", "mul", "max") for n in (False, True)] + [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-2, 2, shape).astype(t.np), rng.uniform(-2, 2, shape).astype(t.np)]


def golden(t, a, b, mode="add", negate=False):
    a, b = a.astype(np.float32), b.astype(np.float32)
    y = {"add": a + b, "mul": a * b, "max": np.maximum(a, b)}[mode]
    if negate and mode in ("add", "mul"):
        y = -y
    return [(y, t.np)]
