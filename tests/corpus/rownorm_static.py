"""A row op mixing Tensor["R", "C"], Tensor["R", 1] and Tensor["C"], a bool attribute and a Literal."""

from typing import Literal
import numpy as np
import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16, f32))
def rownorm_static(
    x: Tensor["R", "C"],
    shift: Tensor["R", 1],
    g: Tensor["C"],
    *,
    center: bool = True,
    mode: Literal["max", "sum"] = "max",
):
    v = x - shift if center else x
    if mode == "max":
        s = dsl.max(dsl.abs(v), axis=-1, keepdims=True)
    else:
        s = dsl.sum(dsl.abs(v), axis=-1, keepdims=True)
    y = v / (s + 1) * g
    return y, s


OP = rownorm_static
OUTPUTS = ["y", "s"]
SHAPES = [(1, 1), (5, 37), (3, 3000)]
ATTRS = [{}, {"center": False, "mode": "sum"}, {"mode": "sum"}]


def make_inputs(rng, t, shape):
    r, c = shape
    return [
        rng.uniform(-2, 2, shape).astype(t.np),
        rng.uniform(-1, 1, (r, 1)).astype(t.np),
        rng.uniform(0.5, 1.5, c).astype(t.np),
    ]


def golden(t, x, shift, g, center=True, mode="max"):
    f = np.float32
    v = x.astype(f) - shift.astype(f) if center else x.astype(f)
    s = (
        np.max(np.abs(v), -1, keepdims=True)
        if mode == "max"
        else np.sum(np.abs(v), -1, keepdims=True, dtype=f)
    )
    return [(v / (s + f(1)) * g.astype(f), t.np), (s, t.np)]
