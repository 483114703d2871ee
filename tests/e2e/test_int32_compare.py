"""Exact i32 comparisons (legalize-casts: integer Max/Min and int32 Compare EQ): every predicate
against numpy at the extremes of the type, where f32 roundings tie and a - b overflows."""

from __future__ import annotations

import numpy as np

from backends.ascendc.simulate import simulate


def test_every_int32_predicate_is_exact(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, i32

        @dsl.op(dtypes=(i32,), broadcast=True)
        def cmps(a: Tensor, b: Tensor):
            gt = a > b
            ge = a >= b
            lt = a < b
            le = a <= b
            eq = a == b
            ne = a != b
            return gt, ge, lt, le, eq, ne
        """)
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    special = np.array([lo, lo + 1, -(2**24) - 1, -(2**24), -1, 0, 1, 2**24, 2**24 + 1, hi - 1, hi], np.int32)
    rng = np.random.default_rng(0)
    a = np.concatenate([np.repeat(special, special.size), rng.integers(lo, hi, 3000, dtype=np.int32)])
    b = np.concatenate([np.tile(special, special.size), rng.integers(lo, hi, 3000, dtype=np.int32)])
    b[-1000:] = a[-1000:] + 1  # neighbours: equal after rounding to f32
    outs, _ = simulate(mod.cmps, (a, b), {}, cores=4, strict=True)
    want = (a > b, a >= b, a < b, a <= b, a == b, a != b)
    for name, got, w in zip(("gt", "ge", "lt", "le", "eq", "ne"), outs, want):
        np.testing.assert_array_equal(got, w, err_msg=name)
    # broadcast: a row against rows, both sides (RESIDENT modes)
    row = special[None, :].repeat(1, 0)
    rows = rng.integers(lo, hi, (50, special.size), dtype=np.int32)
    rows[:, ::2] = special[::2]
    big_row = np.tile(special, 30)[None, :]
    big_rows = np.tile(rows, 30)
    for x, y in ((big_rows, big_row), (big_row, big_rows), (rows, row)):
        outs, _ = simulate(mod.cmps, (x, y), {}, cores=8, strict=True)
        want = (x > y, x >= y, x < y, x <= y, x == y, x != y)
        for name, got, w in zip(("gt", "ge", "lt", "le", "eq", "ne"), outs, want):
            np.testing.assert_array_equal(got, w, err_msg=f"{name} {x.shape} vs {y.shape}")
