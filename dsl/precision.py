"""The precision standard: one place that says when a computed output matches its reference.

Follows the practice used for Ascend operators: a relative threshold per dtype for floats
(f32: 1e-5 relative with a small absolute floor; f16/bf16: within one unit in the last place of
the stored value), exact equality for integers and bools, except that int8 results of a
float->int conversion may differ by 1 on a small share of elements (rounding ties).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

F32_RTOL = 1e-5
F32_ATOL = 1e-6
HALF_ULPS = 1
INT8_OFF_BY_ONE_SHARE = 0.001


@dataclass
class Comparison:
    ok: bool
    max_abs: float
    max_rel: float
    detail: str = ""


def _ordered_bits(a: np.ndarray) -> np.ndarray:
    """16-bit float patterns mapped to integers whose difference counts ulps across zero."""
    bits = a.view(np.uint16).astype(np.int32)
    return np.where(bits & 0x8000, 0x8000 - bits, bits)


def compare(out: np.ndarray, ref: np.ndarray, rtol: float | None = None) -> Comparison:
    out, ref = np.asarray(out), np.asarray(ref)
    if out.shape != ref.shape or out.dtype != ref.dtype:
        return Comparison(
            False, np.inf, np.inf, f"shape/dtype {out.shape} {out.dtype} vs {ref.shape} {ref.dtype}"
        )
    if out.size == 0:
        return Comparison(True, 0.0, 0.0)
    o64, r64 = out.astype(np.float64), ref.astype(np.float64)
    both_nan = np.isnan(o64) & np.isnan(r64)
    with np.errstate(all="ignore"):
        diff = np.where(both_nan | (o64 == r64), 0.0, np.abs(o64 - r64))
        diff = np.where(np.isnan(diff), np.inf, diff)  # NaN against a number never matches
        rel = np.where(diff == 0, 0.0, diff / np.maximum(np.abs(r64), np.finfo(np.float32).tiny))
        rel = np.where(np.isnan(rel), np.inf, rel)
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float(rel.max()) if rel.size else 0.0
    if out.dtype == np.float32:
        tol = rtol if rtol is not None else F32_RTOL
        ok = bool(
            np.all((diff <= F32_ATOL + tol * np.abs(r64)) | (o64 == r64) | (np.isnan(o64) & np.isnan(r64)))
        )
    elif out.dtype in (np.float16, ml_dtypes.bfloat16):
        ulps = np.abs(_ordered_bits(out) - _ordered_bits(ref))
        same_nan = np.isnan(o64) & np.isnan(r64)
        ok = bool(np.all((ulps <= HALF_ULPS) | same_nan))
        if not ok and rtol is not None:  # approximated functions: relative bound with an absolute floor
            ok = bool(np.all((diff <= F32_ATOL + rtol * np.abs(r64)) | same_nan | (ulps <= HALF_ULPS)))
    elif out.dtype == np.int8:
        off = np.abs(out.astype(np.int32) - ref.astype(np.int32))
        ok = bool(off.max() <= 1 and (off > 0).mean() <= INT8_OFF_BY_ONE_SHARE)
    else:
        ok = bool(np.array_equal(out, ref))
    return Comparison(ok, max_abs, max_rel)
