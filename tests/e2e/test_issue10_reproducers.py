"""Reproducers of the bugs differential fuzzing found (issue 10), one test each.

Every program's reference (the IR interpreter) is checked against a numpy formula written here,
independently of the interpreter, and ``simulate`` (the emulator running the generated C++) must
equal the reference bit for bit: all of these programs have exact semantics.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import dsl
from backends.ascendc.simulate import simulate

BF16 = np.dtype(ml_dtypes.bfloat16)


def same_bits(a, b) -> bool:
    """Equal values and dtypes, NaN equal to NaN (of any payload), -0.0 distinct from 0.0."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or a.dtype == BF16:
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        nan = np.isnan(fa) & np.isnan(fb)
        return bool(np.all(nan | ((fa == fb) & (np.signbit(fa) == np.signbit(fb)))))
    return bool(np.array_equal(a, b))


def check(op, args, expected, attrs=None, cores=None):
    """reference == the numpy formula's values, and simulate (strict sync) == reference."""
    attrs = attrs or {}
    ref = op.reference(*args, **attrs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    exps = expected if isinstance(expected, tuple) else (expected,)
    assert len(refs) == len(exps)
    for k, (r, e) in enumerate(zip(refs, exps)):
        assert same_bits(r, e), f"{op.name} output {k}: reference {r} != numpy {e}"
    got, _ = simulate(op, args, attrs, cores=cores, strict=True)
    gots = got if isinstance(got, tuple) else (got,)
    for k, (g, r) in enumerate(zip(gots, refs)):
        assert same_bits(g, r), f"{op.name} output {k}: simulate {g} != reference {r}"


# -- A: inputs in any order -----------------------------------------------------------------------


def test_a_scalar_declared_before_a_tensor(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32, i32

        @dsl.op(dtypes=(f32, f16, i32))
        def scale_first(s: Scalar, x: Tensor):
            return x * s

        @dsl.op(dtypes=(f32, f16))
        def mixed_order(s: Scalar, x: Tensor, t: Scalar, y: Tensor):
            z = x * s - y * t
            return z
        """)
    for dt in (np.float32, np.float16, np.int32):
        x = (np.arange(1000) % 37 - 18).astype(dt)
        s = np.array([3], dt)
        expected = (x.astype(np.float32) * np.float32(3)).astype(dt) if dt != np.int32 else x * np.int32(3)
        check(mod.scale_first, (s, x), expected, cores=3)
    x = np.linspace(-4, 4, 777).astype(np.float32)
    y = np.linspace(2, -3, 777).astype(np.float32)
    s, t = np.array([1.5], np.float32), np.array([-0.25], np.float32)
    check(mod.mixed_order, (s, x, t, y), x * s[0] - y * t[0])
