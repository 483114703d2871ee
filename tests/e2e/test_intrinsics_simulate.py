"""Each DSL math function alone (``ew_intrinsics.py``), simulated on its whole domain and
compared with the reference interpreter.

In the examples a function's error can hide inside a larger expression (``1 + tanh(x)`` makes
tanh's error near 0 invisible, an absolute tolerance hides errors on tiny results). Here the
class comes from the IR as everywhere (``dsl.precision``): the exact functions (abs, relu, neg,
x**2, division, reciprocal) must equal the reference bit for bit; for the approximated ones the
``APPROX`` class is made relative only (``intrinsic_tolerance``): its f32 rtol with an absolute
floor only below the smallest normal f32 (1e-37), and its ulps for f16/bf16 with no absolute
allowance. Domains: logarithmic sweeps of both signs over the function's
legal range, plus zeros, subnormal and overflowing arguments where the result is defined
(+-inf, 0); NaN results (log or sqrt of a negative number) are left out.
"""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

import dsl
from dsl import precision


import ew_cases as C  # tests/e2e is on sys.path: pytest's default (prepend) import mode
import ew_intrinsics as M

DTYPES = ("f16", "f32", "bf16")


def intrinsic_tolerance(op, dt) -> precision.Tolerance:
    """The output's class; an approximated one without its absolute floors (relative only)."""
    tol = C.tolerances(op, dt, {})[op.outputs[0]]
    if tol.exact:
        return tol
    return dataclasses.replace(tol, f32_atol=1e-37, half_atol=0.0, name=f"{tol.name}, relative only")


def _both(lo: float, hi: float, k: int = 300) -> np.ndarray:
    p = np.logspace(lo, hi, k)
    return np.concatenate([p, -p, [0.0, -0.0]])


def _pos(lo: float, hi: float, k: int = 300) -> np.ndarray:
    return np.concatenate([np.logspace(lo, hi, k), [0.0]])


DOMAINS = {
    "ew_tanh": _both(-8, 1.5),
    "ew_sigmoid": _both(-8, 2.5),
    "ew_exp": np.concatenate([np.linspace(-104, 89, 600), _both(-8, 0)]),
    "ew_log": _pos(-44, 38),
    "ew_sqrt": _pos(-44, 38),
    "ew_rsqrt": _pos(-37, 37)[:-1],
    "ew_reciprocal": _both(-37, 37)[:-2],
    "ew_abs": _both(-8, 38),
    "ew_relu": _both(-8, 38),
    "ew_neg": _both(-8, 38),
    "ew_square": _both(-8, 5),
    "ew_pow_half": _pos(-44, 38),
}


def _params():
    return [pytest.param(name, dt, id=f"{name[3:]}-{dt}") for name in DOMAINS for dt in DTYPES]


@pytest.mark.parametrize("name, dt", _params())
def test_intrinsic_matches_reference(name, dt):
    op = getattr(M, name)
    t = getattr(dsl, dt)
    with np.errstate(over="ignore"):
        x = DOMAINS[name].astype(np.float32).astype(t.np)
    with np.errstate(all="ignore"):
        expected = op.reference(x)
    actual = op.simulate(x, cores=4)
    C.assert_close(actual, expected, intrinsic_tolerance(op, dt), what=f"{name}[{dt}]")


@pytest.mark.parametrize("dt", DTYPES)
def test_division(dt):
    t = getattr(dsl, dt)
    a = _both(-18, 18, 200)[:-2]
    with np.errstate(over="ignore"):
        a = a.astype(np.float32).astype(t.np)
    b = np.roll(a, 37)
    with np.errstate(all="ignore"):
        expected = M.ew_div.reference(a, b)
    tol = intrinsic_tolerance(M.ew_div, dt)
    assert tol.exact
    C.assert_close(M.ew_div.simulate(a, b, cores=4), expected, tol, what=f"div[{dt}]")


def test_input_named_like_the_output():
    """``def f(x, y): return x / y`` -- the output is also called ``y`` (DSL contract); the
    generated project must still build and run."""
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 2, 4096 + 17).astype(np.float32)
    y = rng.uniform(1, 2, 4096 + 17).astype(np.float32)
    C.assert_close(M.ew_named_y.simulate(x, y, cores=4), M.ew_named_y.reference(x, y), what="x / y")
