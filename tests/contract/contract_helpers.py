"""Shared helpers for the contract and corpus tests (pure numpy; no dsl internals).

Tolerance policy (DESIGN.md section 2, numeric semantics): every golden is computed in float32
from the (already rounded) inputs widened to float32, in the order the DSL source writes it, and
rounded once to the output dtype. Then the output meets the golden under the precision class of
``dsl.precision`` that the caller derives from the operator's IR (``output_tolerances``):

* exact outputs (only + - * / max min neg abs relu, comparisons, where, casts, round on the
  path): equal value for value (NaN == NaN, -0 == +0), i.e. bit-exact otherwise;
* outputs with exp/log/sqrt/rsqrt/tanh/sigmoid or a sum/mean on the path: ``precision.APPROX``;
* bool/integer: exactly equal (``assert_int8_quant`` handles the one principled exception:
  an int8 quantized value whose pre-rounding f32 value lies within a tiny band around a
  rounding boundary may differ by 1, after a reduction and rsqrt).
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

import ml_dtypes
import numpy as np

F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)
HALF_TYPES = (F16, BF16)
FLOAT_TYPES = (F16, BF16, F32)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_module(path: pathlib.Path | str, name: str | None = None):
    """Import a file as a module under a unique name (so ``inspect`` can read its source)."""
    path = pathlib.Path(path).resolve()
    name = name or f"dslc_test_{path.parent.name}_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_example(stem: str):
    return load_module(ROOT / "examples" / f"{stem}.py", f"dslc_example_{stem}")


def f32(a) -> np.ndarray:
    """Widen an input array (or number) to float32 exactly as the interpreter loads it."""
    return np.asarray(a).astype(np.float32)


def assert_float_output(actual, golden32, out_dtype, tol, *, what="output", bound=None):
    """``actual`` (dtype ``out_dtype``) meets the f32 ``golden32`` rounded once to out_dtype
    under ``tol`` (a ``dsl.precision`` class: ``output_tolerances(op, T, **attrs)[name]``;
    ``bound``: the operands' ``matmul_bound`` where that class is the matmul tolerance)."""
    from dsl import precision

    out_dtype = np.dtype(out_dtype)
    golden32 = np.asarray(golden32, dtype=np.float32)
    assert isinstance(actual, np.ndarray), f"{what}: expected ndarray, got {type(actual)}"
    assert actual.dtype == out_dtype, f"{what}: dtype {actual.dtype}, expected {out_dtype}"
    assert actual.shape == golden32.shape, f"{what}: shape {actual.shape} != {golden32.shape}"
    assert np.all(np.isfinite(golden32)), f"{what}: test bug, golden not finite"
    assert out_dtype in FLOAT_TYPES, out_dtype
    expected = golden32.astype(out_dtype)  # round-to-nearest-even, once
    precision.check(actual, expected, tol, what=f"{what} [{tol}]", bound=bound)


def assert_exact(actual, expected, what="output"):
    expected = np.asarray(expected)
    assert isinstance(actual, np.ndarray), f"{what}: expected ndarray, got {type(actual)}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    bad = actual != expected
    if bad.any():
        idx = np.argwhere(bad)[0]
        raise AssertionError(
            f"{what}: {int(bad.sum())}/{bad.size} elements differ; first at {tuple(idx)}: "
            f"got {actual[tuple(idx)]!r}, expected {expected[tuple(idx)]!r}"
        )


def quantize_int8(q32: np.ndarray) -> np.ndarray:
    """round half to even, then the saturating f32 -> int8 cast."""
    return np.clip(np.rint(q32), -128, 127).astype(np.int8)


def assert_int8_quant(actual, q32, q64, *, band=1e-3, max_share=0.02, what="y"):
    """Exact int8 equality with the f32 golden, except where the pre-rounding value lies within
    ``band`` of a .5 rounding boundary (judged on the float64 value ``q64``): a different (valid)
    f32 evaluation order may round those either way, so +-1 is allowed there, and at most
    ``max_share`` of the elements (at least one) may differ (seed 002's acceptance rule)."""
    expected = quantize_int8(q32)
    assert isinstance(actual, np.ndarray), f"{what}: expected ndarray, got {type(actual)}"
    assert actual.dtype == np.int8, f"{what}: dtype {actual.dtype}, expected int8"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    frac = np.abs(q64 - np.floor(q64) - 0.5)
    ambiguous = frac < band
    diff = np.abs(actual.astype(np.int32) - expected.astype(np.int32))
    bad = (diff > 0) & ~ambiguous | (diff > 1)
    n_off = int((diff > 0).sum())
    assert n_off <= max(1, int(max_share * diff.size)), f"{what}: {n_off}/{diff.size} differ by 1"
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise AssertionError(
            f"{what}: {int(bad.sum())}/{bad.size} int8 elements differ; first at {idx}: got "
            f"{actual[idx]}, expected {expected[idx]} (pre-round f32 {q32[idx]!r})"
        )


def as_tuple(result, n: int):
    """Normalise an op.reference result to an n-tuple."""
    if n == 1:
        assert isinstance(result, np.ndarray), f"one output expected, got {type(result)}"
        return (result,)
    assert isinstance(result, tuple), f"{n} outputs expected as a tuple, got {type(result)}"
    assert len(result) == n, f"{n} outputs expected, got {len(result)}"
    return result


def mentions(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as a whole identifier (``%x1`` mentions x1, ``x12`` does not)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None
