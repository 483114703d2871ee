"""Explicit roundings of computed values mixed with f32 math and comparisons on rounded values."""

import numpy as np
import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(bf16, f16))
def cast_chain_mix(a: Tensor, b: Tensor):
    s = a * b + a
    r = dsl.cast(s, a.dtype)  # rounds
    w = dsl.cast(dsl.cast(s, f32), a.dtype)  # rounds once
    keep = dsl.cast(s, f32)  # unrounded
    flag = r > dsl.cast(keep, a.dtype)  # equal values: false
    d = keep - dsl.cast(r, f32)  # the rounding error
    y = dsl.where(flag, d, w)
    return y, d


OP = cast_chain_mix
OUTPUTS = ["y", "d"]
SHAPES = [(3,), (1000,), (4, 333)]
ATTRS = [{}]


def make_inputs(rng, t, shape):
    return [rng.uniform(-3, 3, shape).astype(t.np), rng.uniform(-3, 3, shape).astype(t.np)]


def golden(t, a, b):
    f = np.float32
    s = a.astype(f) * b.astype(f) + a.astype(f)
    r = s.astype(t.np).astype(f)
    d = s - r
    return [(np.where(r > r, d, r), np.float32), (d, np.float32)]
