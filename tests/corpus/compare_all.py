"""All six comparisons; each output is bool_ (one byte, 0/1)."""

import numpy as np

import dsl
from dsl import Tensor, f16, bf16, f32, i8, i32, u8


@dsl.op(dtypes=(f16, f32, bf16, i8, i32, u8))
def compare_all(a: Tensor, b: Tensor):
    gt = a > b
    ge = a >= b
    lt = a < b
    le = a <= b
    eq = a == b
    ne = a != b
    return gt, ge, lt, le, eq, ne


OP = compare_all
OUTPUTS = ["gt", "ge", "lt", "le", "eq", "ne"]
SHAPES = [(1,), (7,), (33,), (4096 + 17,), (2, 5)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    lo = 0 if t.name == "u8" else -3
    a = rng.integers(lo, lo + 7, shape)
    b = rng.integers(lo, lo + 7, shape)
    if t.name in ("f16", "f32", "bf16"):
        return [(a / 4).astype(t.np), (b / 4).astype(t.np)]
    return [a.astype(t.np), b.astype(t.np)]


def golden(t, a, b):
    if t.name in ("f16", "bf16"):
        a, b = a.astype(np.float32), b.astype(np.float32)
    return [(r, np.bool_) for r in (a > b, a >= b, a < b, a <= b, a == b, a != b)]
