"""Bit-exact checks shared by the reproducer tests: the reference equals a numpy formula, and the
generated kernel on the emulator (strict sync) equals the reference."""

from __future__ import annotations

import ml_dtypes
import numpy as np

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
