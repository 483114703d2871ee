"""Bit-exact checks shared by the reproducer tests: the reference equals a numpy formula, and the
generated kernel on the emulator (strict sync) equals the reference."""

from __future__ import annotations

from backends.ascendc.simulate import simulate
from dslfuzz import BF16, same_bits  # equal values, NaN == NaN, -0.0 != 0.0

__all__ = ["BF16", "check", "same_bits"]


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
