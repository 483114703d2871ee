"""The precision standard: one place that says when a computed output matches its reference.

Which results are exact
-----------------------
DESIGN.md section 2 fixes the numeric semantics: floating arithmetic is done in f32 (each
operation rounded once, IEEE round-to-nearest-even), f16/bf16 are widened exactly on load and
rounded to nearest even on store, integer arithmetic stays in its type, casts truncate/saturate,
``dsl.round`` rounds half to even. Only ``exp/log/sqrt/rsqrt/tanh/sigmoid`` are allowed to
"meet the precision standard, not bit equality". ``OP_PRECISION`` below states, per IR op, which
of the two classes it is in; it is the only such table (tests, ``dslc run``, ``--verify-each``
and the generated golden scripts all read it).

A result of a program is **exact** iff every op on its data path is exact
(``output_tolerances``: a walk from each output back to the inputs through the specialized
IR). An exact output must equal the reference value for value:

* floats: equal values, NaN matching NaN (any payload), infinities equal with their sign;
  -0.0 and +0.0 compare **equal**. Deliberately: the contract's f32 semantics define values,
  and the sign of a zero produced by max/min/relu of a (+0, -0) tie or by a scalar hoisted into
  ``Adds``/``Muls`` is not documented for the hardware; where a zero's sign matters to a later
  op of the same program (1/x, a comparison is sign-blind) it shows up there as +-inf, which
  this comparison does catch. Everything else is bit-exact: one ulp of f32/f16/bf16 fails.
* integers and bools: equal.

An output with an approximated op on its path meets ``APPROX``: f32 within
``|got - want| <= 1e-5 + 1e-4 * |want|`` (the Ascend practice of 1e-4 relative error for
float32, with an absolute floor for results that cancel, like ``1 + tanh(x)`` for very
negative x); f16/bf16 within 1 unit in the last place of the stored dtype (an f32 result 1e-4
off rounds to a neighbouring half at worst) or 1e-5 absolute; integers and bools (a comparison
or a cast after an approximated op) may be off by one / flipped on at most 0.1% of the elements
(at least one). NaN positions and infinities must match in both classes.

A caller that knows only an output array (no program) passes the class itself, e.g.
``compare(got, want, APPROX)``; the default is ``EXACT``.

Matmul
------
A matrix product of f16/bf16 operands (DESIGN.md section 2) sums over K in an order the
hardware chooses, so an output with one on its path meets ``MATMUL``: elementwise

    |got - ref| <= rtol_T * |ref| + K * 2^-22 * sum_k |a_ik * b_kj|

where the second term (``matmul_bound``: four f32 rounding units per summed term, in units of
the sum of the absolute products) comes from the operands, so ``compare`` takes it as
``bound=``, and ``rtol_T`` is the relative tolerance of the output's stored dtype
(``MATMUL_RTOL``): 1e-4 for f32 (``APPROX``'s), and one unit in the last place for f16 (2^-10)
and bf16 (2^-7), the rounding on store that two sums a few f32 ulps apart may fall on either side
of. Integer and bool outputs after a float matmul follow ``APPROX``'s rule. An i8 x i8 product is
exact (i32), so an i8 path stays exact until its first approximated op.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

EXACT_CLASS = "exact"
APPROX_CLASS = "approx"
MATMUL_CLASS = "matmul"


@dataclass(frozen=True)
class Tolerance:
    """How far an output may be from its reference (see the module docstring)."""

    name: str
    exact: bool
    f32_rtol: float = 0.0
    f32_atol: float = 0.0
    half_ulps: int = 0
    half_atol: float = 0.0
    int_off_share: float = 0.0  # share of integer/bool elements that may be off by one/flipped
    matmul: bool = False  # the matmul rule: rtol of the stored dtype plus the operands' bound

    def __str__(self) -> str:
        return self.name

    def with_rtol(self, rtol: float) -> "Tolerance":
        """This class with another f32 relative tolerance (an explicit looser/stricter choice)."""
        return replace(APPROX if self.exact else self, f32_rtol=rtol, name=f"{APPROX_CLASS}(rtol={rtol:g})")


EXACT = Tolerance(EXACT_CLASS, exact=True)
APPROX = Tolerance(
    APPROX_CLASS,
    exact=False,
    f32_rtol=1e-4,
    f32_atol=1e-5,
    half_ulps=1,
    half_atol=1e-5,
    int_off_share=0.001,
)
MATMUL = replace(APPROX, name=MATMUL_CLASS, matmul=True)
CLASSES = {EXACT_CLASS: EXACT, APPROX_CLASS: APPROX, MATMUL_CLASS: MATMUL}
# rtol_T of the matmul rule, by the stored dtype of the output (numpy names)
MATMUL_RTOL = {"float32": APPROX.f32_rtol, "float16": 2.0**-10, "bfloat16": 2.0**-7}
MATMUL_UNIT = 2.0**-22  # per summed term, in units of sum_k |a_ik * b_kj|

# Every op of the IR (dsl/ir/ops.py, dsl/ir/tile_ops.py) -> its precision class. A new op must
# be added here (tests/test_precision.py checks the table covers the op set).
OP_PRECISION: dict[str, str] = {
    # f32 arithmetic, one rounding each (integer arithmetic is exact in its type)
    "add": EXACT_CLASS,
    "sub": EXACT_CLASS,
    "mul": EXACT_CLASS,
    "div": EXACT_CLASS,  # IEEE division; x / s must not become x * (1/s)
    "max": EXACT_CLASS,
    "min": EXACT_CLASS,
    "neg": EXACT_CLASS,
    "abs": EXACT_CLASS,
    "relu": EXACT_CLASS,
    # 1/x is a division: DESIGN.md section 2 does not list reciprocal among the approximated
    # functions (the A2 Reciprocal instruction's accuracy must therefore match 1/x)
    "reciprocal": EXACT_CLASS,
    "round": EXACT_CLASS,  # half to even
    "cmp": EXACT_CLASS,
    "and": EXACT_CLASS,  # & | ~ on bool_ values
    "or": EXACT_CLASS,
    "not": EXACT_CLASS,
    "where": EXACT_CLASS,
    "cast": EXACT_CLASS,  # truncation toward zero / saturation / round-to-nearest-even
    # the functions DESIGN.md section 2 lets meet the precision standard instead of bit equality
    "exp": APPROX_CLASS,
    "log": APPROX_CLASS,
    "sqrt": APPROX_CLASS,  # correctly rounded in IEEE, but the contract lists it as approximated
    "rsqrt": APPROX_CLASS,
    "tanh": APPROX_CLASS,
    "sigmoid": APPROX_CLASS,
    # a matrix product: f16/bf16 sums in an order the hardware chooses; i8 x i8 is exact in i32
    "matmul.float": MATMUL_CLASS,
    "matmul.int": EXACT_CLASS,
    # reductions: the summation order is not part of the contract; max/min are order-free
    "reduce.sum": APPROX_CLASS,
    "reduce.mean": APPROX_CLASS,
    "welford.var": APPROX_CLASS,  # chunked rows: a variance merged from Welford statistics (sums reorder)
    "online.sum": APPROX_CLASS,  # chunked rows: a sum of exp(x - max) rescaled to the running max
    "reduce.max": EXACT_CLASS,
    "reduce.min": EXACT_CLASS,
    "vec.brc": EXACT_CLASS,  # a per-row value or a column copied over whole rows
    "vec.brcb": EXACT_CLASS,  # per-row values copied into one 32-byte block each (Brcb)
    # values that only move (no arithmetic)
    "const": EXACT_CLASS,
    "attr": EXACT_CLASS,
    "none": EXACT_CLASS,
    "static.flag": EXACT_CLASS,
    "static.is": EXACT_CLASS,
    "static.not": EXACT_CLASS,
    "static.and": EXACT_CLASS,
    "static.or": EXACT_CLASS,
    "static.select": EXACT_CLASS,
    # tile level: loads/stores (rounding to nearest even on a narrowing store), vector-scalar
    # forms of exact arithmetic, sync and structure
    "dma.load": EXACT_CLASS,
    "dma.store": EXACT_CLASS,
    "scalar.load": EXACT_CLASS,
    "vec.adds": EXACT_CLASS,
    "vec.muls": EXACT_CLASS,
    "vec.maxs": EXACT_CLASS,
    "vec.mins": EXACT_CLASS,
    "vec.dup": EXACT_CLASS,
    "loop.tiles": EXACT_CLASS,
    "sync.set": EXACT_CLASS,
    "sync.wait": EXACT_CLASS,
    "sync.barrier": EXACT_CLASS,
    "bcast.fill": EXACT_CLASS,
}


def op_key(op) -> str:
    """The ``OP_PRECISION`` key of an IR op (reductions are keyed by their kind, a
    matmul by whether its operands are integers)."""
    if op.opname == "matmul":
        return "matmul.int" if op.operands[0].type.dtype.is_int else "matmul.float"
    return f"{op.opname}.{op.attrs.get('kind')}" if op.opname == "reduce" else op.opname


def op_class(op) -> str:
    key = op_key(op)
    try:
        return OP_PRECISION[key]
    except KeyError:
        raise KeyError(
            f"op '{key}' has no precision class; add it to OP_PRECISION in dsl/precision.py"
        ) from None


# ---------------------------------------------------------------------------------------------
# Per-program tolerance: from the ops on each output's path
# ---------------------------------------------------------------------------------------------


def _output_roots(func) -> list[list[Any]]:
    """For each output of ``func``: the values it is made of (tensor level: the returned value;
    tile level: the operand of every ``dma.store`` to it)."""
    if func.attributes.get("level") == "tile":
        stores: dict[str, list] = {}
        for op in func.walk():
            if op.opname == "dma.store":
                stores.setdefault(op.attrs["output"], []).append(op.operands[0])
        return [stores.get(out.name, []) for out in func.outputs]
    return [[v] for v in func.returns]


def path_ops(func, roots) -> list:
    """Every op whose result reaches ``roots`` (program order not kept)."""
    seen: set[int] = set()
    ops, stack = [], [v.owner for v in roots if v is not None and v.owner is not None]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        ops.append(op)
        stack.extend(v.owner for v in op.operands if v.owner is not None)
    return ops


def approximated_ops(func) -> dict[str, list[str]]:
    """Output name -> the inexact ops (approximated or a float matmul) on its path, as
    ``name@line N`` (empty: exact)."""
    out = {}
    for o, roots in zip(func.outputs, _output_roots(func)):
        names = []
        for op in path_ops(func, roots):
            if op_class(op) != EXACT_CLASS:
                where = f"@line {op.loc.line}" if op.loc is not None else ""
                names.append(op_key(op) + where)
        out[o.name] = sorted(set(names))
    return out


def func_tolerances(func) -> dict[str, Tolerance]:
    """Output name -> ``MATMUL`` if a float matmul is on its path, else ``APPROX`` if an
    approximated op is, else ``EXACT``."""
    out = {}
    for o, roots in zip(func.outputs, _output_roots(func)):
        classes = {op_class(op) for op in path_ops(func, roots)}
        out[o.name] = MATMUL if MATMUL_CLASS in classes else APPROX if APPROX_CLASS in classes else EXACT
    return out


def matmul_bound(a, b, transpose_b: bool = False) -> np.ndarray:
    """The operands' term of the matmul rule, ``K * 2^-22 * sum_k |a_ik * b_kj|`` as an [M, N]
    float64 array, from the operands as stored (``b`` is ``w`` of ``a @ w.T`` when
    ``transpose_b``)."""
    a64 = np.abs(np.asarray(a).astype(np.float64))
    b64 = np.abs(np.asarray(b).astype(np.float64))
    if transpose_b:
        b64 = b64.T
    return a64.shape[-1] * MATMUL_UNIT * (a64 @ b64)


def func_matmul_bound(func, inputs: dict) -> np.ndarray | None:
    """``matmul_bound`` of the matmul of ``func`` on ``inputs`` (arrays by input name, as
    ``op.reference`` takes them); None when the function has no matmul."""
    mm = next((op for op in func.walk() if op.opname == "matmul"), None)
    if mm is None:
        return None
    a, b = (inputs[v.name] for v in mm.operands)
    return matmul_bound(a, b, bool(mm.attrs.get("transpose_b")))


def output_tolerances(op, dtype, /, **attrs) -> dict[str, Tolerance]:
    """Output name -> tolerance for one specialization of an ``@dsl.op`` operator (the static
    attributes in ``attrs`` pick the variant; run-time attributes do not change the class)."""
    from .dtypes import dtype_from_name

    if isinstance(dtype, str):
        dtype = dtype_from_name(dtype)
    return func_tolerances(op.variant(dtype, op.check_attrs(attrs)))


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------


@dataclass
class Comparison:
    ok: bool
    max_abs: float
    max_rel: float
    detail: str = ""
    mismatches: int = 0
    tolerance: Tolerance = EXACT

    def __bool__(self) -> bool:  # `assert compare(...)` would always pass: make it an error
        raise TypeError("use Comparison.ok")


HALF = ("float16", "bfloat16")  # by name: bfloat16 is ml_dtypes', registered by whoever made the array


def _ordered_bits(a: np.ndarray) -> np.ndarray:
    """16-bit float patterns mapped to integers whose difference counts ulps across zero
    (-0 and +0 both map to 0)."""
    bits = a.view(np.uint16).astype(np.int32)
    return np.where(bits & 0x8000, -(bits & 0x7FFF), bits)


def _describe(bad: np.ndarray, out: np.ndarray, ref: np.ndarray, diff: np.ndarray, rule: str) -> str:
    flat = np.flatnonzero(bad.reshape(-1))
    i = int(flat[0])
    o, r = out.reshape(-1), ref.reshape(-1)
    d = diff.reshape(-1)[flat]
    worst = int(flat[np.nanargmax(np.where(np.isnan(d), -1.0, d))]) if d.size else i
    return (
        f"{len(flat)}/{o.size} elements violate {rule}; first at flat index {i}: got {o[i]!r}, "
        f"expected {r[i]!r}; worst at {worst}: got {o[worst]!r}, expected {r[worst]!r}"
    )


def compare(
    out, ref, tol: Tolerance | str | None = None, *, rtol: float | None = None, bound=None
) -> Comparison:
    """``out`` against the reference ``ref`` under ``tol`` (default ``EXACT``; a class name is
    accepted). ``rtol`` replaces the f32 relative tolerance of an approximated comparison (an
    explicit choice of the caller, e.g. ``golden.py compare --rtol``). ``MATMUL`` needs
    ``bound``, the operands' term (``matmul_bound``), broadcastable to the output's shape."""
    tol = EXACT if tol is None else CLASSES[tol] if isinstance(tol, str) else tol
    if tol.matmul and bound is None:
        raise ValueError("the matmul tolerance needs bound=matmul_bound(a, b) of the product's operands")
    if rtol is not None and not tol.matmul:
        tol = tol.with_rtol(rtol)
    out, ref = np.asarray(out), np.asarray(ref)
    if out.shape != ref.shape or out.dtype != ref.dtype:
        return Comparison(
            False,
            math.inf,
            math.inf,
            f"shape/dtype {out.shape} {out.dtype} vs {ref.shape} {ref.dtype}",
            out.size,
            tol,
        )
    if out.size == 0:
        return Comparison(True, 0.0, 0.0, tolerance=tol)
    dt = ref.dtype
    is_float = dt == np.float32 or dt.name in HALF or dt == np.float64
    with np.errstate(all="ignore"):
        o64, r64 = out.astype(np.float64), ref.astype(np.float64)
        o_nan, r_nan = (np.isnan(o64), np.isnan(r64)) if is_float else (False, False)
        same = (o64 == r64) | (o_nan & r_nan)  # value equality: -0 == +0, equal infinities
        diff = np.where(same, 0.0, np.abs(o64 - r64))
        diff = np.where(np.isnan(diff), np.inf, diff)  # NaN against a number never matches
        rel = np.where(diff == 0, 0.0, diff / np.maximum(np.abs(r64), np.finfo(np.float32).tiny))
        rel = np.where(np.isnan(rel), np.inf, rel)
    max_abs, max_rel = float(diff.max()), float(rel.max())
    if tol.exact:
        ok_el, rule = same, "exact equality (NaN == NaN, -0 == +0)"
    elif is_float:
        finite = np.isfinite(o64) & np.isfinite(r64)
        if tol.matmul:
            rt = MATMUL_RTOL["float32" if dt == np.float64 else dt.name] if rtol is None else rtol
            bnd = np.broadcast_to(np.asarray(bound, dtype=np.float64), o64.shape)
            near = diff <= rt * np.abs(r64) + bnd
            rule = f"|d| <= {rt:g}*|ref| + K*2^-22*sum_k|a_ik*b_kj| ({tol})"
        elif dt.name in HALF:
            ulps = np.abs(_ordered_bits(out) - _ordered_bits(ref))
            near = (ulps <= tol.half_ulps) | (diff <= tol.half_atol)
            rule = f"<= {tol.half_ulps} ulp of {dt} or <= {tol.half_atol:g} absolute ({tol})"
        else:
            near = diff <= tol.f32_atol + tol.f32_rtol * np.abs(r64)
            rule = f"|d| <= {tol.f32_atol:g} + {tol.f32_rtol:g}*|ref| ({tol})"
        ok_el = same | (near & finite)
    else:  # integers and bools after an approximated op: off by one / flipped on a small share
        off = diff <= 1
        allowed = max(1, math.ceil(tol.int_off_share * out.size))
        n_off = int((~same).sum())
        ok_el = same | (off if n_off <= allowed else np.zeros_like(same))
        rule = f"off by at most 1 on at most {allowed} elements ({tol})"
    bad = ~np.asarray(ok_el, dtype=bool)
    n_bad = int(bad.sum())
    if not n_bad:
        return Comparison(True, max_abs, max_rel, tolerance=tol)
    return Comparison(False, max_abs, max_rel, _describe(bad, out, ref, diff, rule), n_bad, tol)


def check(out, ref, tol: Tolerance | str | None = None, what: str = "output", *, bound=None) -> None:
    """``compare`` that raises ``AssertionError`` naming ``what`` and the first/worst mismatch
    (``bound``: ``matmul_bound`` of the product's operands, for the matmul tolerance)."""
    c = compare(out, ref, tol, bound=bound)
    if not c.ok:
        raise AssertionError(f"{what}: {c.detail}")
