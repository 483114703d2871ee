"""The tensor-level op set, declared once.

Each ``OpSpec`` names an op, its operand count, its attributes, how its result type follows
from its operand types (``infer``) and how it computes (``interp``, numpy in the compute
representation: every float is float32, integers stay in their type, bools are numpy bool).
Printer, parser, verifier and interpreter are generic over this table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..dtypes import DType, bool_, f32, i32
from ..errors import ArgumentError
from .types import (
    PRED,
    PredType,
    ScalarType,
    Shape,
    TensorType,
    Type,
    TypeInferenceError,
    combine,
    dtype_of,
    promote_all,
)

Infer = Callable[[list[Type], dict[str, Any]], Type]
Interp = Callable[[list[np.ndarray], dict[str, Any], Type], np.ndarray]


@dataclass(frozen=True)
class OpSpec:
    name: str
    arity: int | None  # None: any number of operands
    infer: Infer | None  # None: the result type is whatever the op states (checked by `check`)
    interp: Interp | None
    attrs: tuple[str, ...] = ()
    has_result: bool = True
    has_region: bool = False
    in_loop: bool | None = None  # True: only inside loop.tiles; False: only outside; None: anywhere
    doc: str = ""
    check: Callable[[list[Type], dict[str, Any], Type | None], None] | None = field(default=None)


OPS: dict[str, OpSpec] = {}


def declare(spec: OpSpec) -> OpSpec:
    assert spec.name not in OPS, spec.name
    OPS[spec.name] = spec
    return spec


# ---------------------------------------------------------------------------------------------
# Type rules


def _values(types: list[Type]) -> None:
    for t in types:
        if isinstance(t, PredType):
            raise TypeInferenceError("a static condition cannot be used as a value")


def _arith(op: str, allow_int: bool = True) -> Infer:
    def infer(types: list[Type], attrs: dict) -> Type:
        _values(types)
        for t in types:
            if dtype_of(t) == bool_:
                raise TypeInferenceError(
                    f"'{op}' does not take bool values; use dsl.where(cond, a, b) or dsl.cast"
                )
        dt = promote_all(types)
        if not allow_int and not dt.is_float:
            raise TypeInferenceError(
                f"'{op}' needs floating-point operands, got {dt}; cast first, e.g. dsl.cast(x, f32)"
            )
        return combine(types, dt)

    return infer


def _compare(types: list[Type], attrs: dict) -> Type:
    _values(types)
    promote_all(types)
    return combine(types, bool_)


def _where(types: list[Type], attrs: dict) -> Type:
    _values(types)
    if dtype_of(types[0]) != bool_:
        raise TypeInferenceError(
            f"dsl.where needs a bool condition (a comparison or a bool_ input), got {dtype_of(types[0])}"
        )
    a, b = dtype_of(types[1]), dtype_of(types[2])
    dt = a if a == b else promote_all(types[1:])
    return combine(types, dt)


def _logic(op: str) -> Infer:
    def infer(types: list[Type], attrs: dict) -> Type:
        _values(types)
        for t in types:
            if dtype_of(t) != bool_:
                raise TypeInferenceError(
                    f"'{op}' takes bool_ values (comparisons or bool_ inputs), got {dtype_of(t)}"
                )
        return combine(types, bool_)

    return infer


def _reduce(types: list[Type], attrs: dict) -> Type:
    _values(types)
    (t,) = types
    if not isinstance(t, TensorType):
        raise TypeInferenceError("reductions take a tensor, not a scalar")
    if t.shape.unshaped:
        raise TypeInferenceError(
            "reductions need a tensor with named dims (they run along the last axis), "
            'e.g. x: Tensor[..., "C"]'
        )
    if not t.shape.dims:
        raise TypeInferenceError("reductions need at least one named dim")
    if t.dtype == bool_:
        raise TypeInferenceError("reductions do not take bool values")
    if attrs.get("kind") == "mean" and not t.dtype.is_float:
        raise TypeInferenceError("dsl.mean needs a floating-point tensor; cast first")
    shape = t.shape.with_last(1) if attrs.get("keepdims", True) else t.shape.without_last()
    return TensorType(t.dtype, shape)


MATMUL_OPERAND_DTYPES = ("f16", "bf16", "i8")  # f16 x f16, bf16 x bf16, i8 x i8 (DESIGN.md section 2)
MATMUL_MAX_K_I8 = 2**17  # i8 x i8 sums in i32: beyond this K a sum could overflow (host tiling rejects it)


def matmul_dims(types: list[Type], attrs: dict) -> tuple[tuple, tuple]:
    """The (rows, cols) dims of a matmul's two operands as the product sees them: ``w`` of
    ``a @ w.T`` (``transpose_b``) is [N, K] and enters as [K, N]."""
    a, b = types
    dims_b = tuple(reversed(b.shape.dims)) if attrs.get("transpose_b") else b.shape.dims
    return a.shape.dims, dims_b


def _matmul(types: list[Type], attrs: dict) -> Type:
    _values(types)
    for t in types:
        if not isinstance(t, TensorType):
            raise TypeInferenceError("matmul takes two tensors, not a scalar")
        if t.shape.unshaped or t.shape.ellipsis or len(t.shape.dims) != 2:
            raise TypeInferenceError(f"matmul takes 2-D operands with named dims, got {t}")
        if any(not isinstance(d, str) for d in t.shape.dims):
            raise TypeInferenceError(f"matmul operands have named dims, not a literal 1: {t}")
        if t.dtype.name not in MATMUL_OPERAND_DTYPES:
            raise TypeInferenceError(f"matmul operands are f16, bf16 or i8, got {t.dtype}")
    if types[0].dtype != types[1].dtype:
        raise TypeInferenceError(
            f"matmul operands have one dtype (f16 x f16, bf16 x bf16, i8 x i8), got {types[0].dtype} "
            f"and {types[1].dtype}"
        )
    if not isinstance(attrs.get("transpose_b"), bool):
        raise TypeInferenceError("matmul needs a bool attribute transpose_b")
    (m, k), (k2, n) = matmul_dims(types, attrs)
    if k != k2:
        raise TypeInferenceError(f"matmul contracts '{k}' with '{k2}': the two K dims must have one name")
    return TensorType(i32 if types[0].dtype.is_int else f32, Shape((m, n)))


def _pred_only(types: list[Type], attrs: dict) -> Type:
    for t in types:
        if not isinstance(t, PredType):
            raise TypeInferenceError("static conditions combine only static conditions")
    return PRED


def _static_select(types: list[Type], attrs: dict) -> Type:
    if not isinstance(types[0], PredType):
        raise TypeInferenceError("static.select needs a pred condition")
    a, b = types[1], types[2]
    if a != b:
        raise TypeInferenceError(f"the two branches of a static condition give different types: {a} and {b}")
    return a


# ---------------------------------------------------------------------------------------------
# Numeric semantics (compute representation: floats in float32)


def _binary(fn) -> Interp:
    def run(args, attrs, rtype):
        dt = dtype_of(rtype)
        a, b = (to_compute(x, dt) for x in args)
        with np.errstate(all="ignore"):
            return fn(a, b).astype(compute_np(dt), copy=False)

    return run


def _float_unary(fn) -> Interp:
    def run(args, attrs, rtype):
        with np.errstate(all="ignore"):
            return fn(args[0].astype(np.float32, copy=False)).astype(np.float32, copy=False)

    return run


def truth(x: np.ndarray) -> np.ndarray:
    """A bool array as canonical numpy bools: a ``bool_`` input holds one byte per element and
    any nonzero byte means true (numpy's own bool ops would read the byte 2 wrongly)."""
    x = np.asarray(x)
    return x.view(np.uint8) != 0 if x.dtype == np.bool_ else x != 0


def compute_np(dt: DType) -> np.dtype:
    """The numpy type values of logical type ``dt`` have in the interpreter."""
    return np.dtype(np.float32) if dt.is_float else dt.np


def to_compute(x: np.ndarray, dt: DType) -> np.ndarray:
    return np.asarray(x).astype(compute_np(dt), copy=False)


def cast_value(x: np.ndarray, src: DType, dst: DType) -> np.ndarray:
    """``dsl.cast`` semantics: float->int truncates toward zero and saturates; narrowing
    integer casts saturate; casts to f16/bf16 round to nearest even (and stay widened)."""
    x = np.asarray(x)
    if dst == bool_ or src == bool_:
        x = truth(x)
    if dst == bool_:
        return x
    if dst.is_float:
        if dst.bits == 16 and src.is_float:
            with np.errstate(over="ignore"):  # past the f16 range: inf, as rounding says
                return x.astype(dst.np).astype(np.float32)
        if dst.bits == 16:
            return round_int_to_16bit(x, dst).astype(np.float32)
        return x.astype(np.float32)
    info = np.iinfo(dst.np)
    if src.is_float:
        with np.errstate(all="ignore"):
            t = np.trunc(x.astype(np.float64))
            t = np.where(np.isnan(t), 0, t)
            return np.clip(t, info.min, info.max).astype(dst.np)
    return np.clip(x.astype(np.int64), info.min, info.max).astype(dst.np)


def round_int_to_16bit(x: np.ndarray, dst: DType) -> np.ndarray:
    """Integers rounded once, to nearest even, to f16/bf16 (numpy/ml_dtypes round an int
    through float32 first, which rounds twice: bf16(16842753) would be 2^24, not 16908288)."""
    digits = 11 if dst.np == np.float16 else 8  # significand bits, the implicit one included
    v = np.asarray(x).astype(np.float64)  # exact for every DSL integer (|x| < 2^31)
    _, e = np.frexp(v)  # |v| = m * 2^e, 0.5 <= m < 1
    ulp = np.ldexp(1.0, np.maximum(e - digits, 0))  # integers below 2^digits are exact
    r = np.rint(v / ulp) * ulp  # v / ulp is exact; rint rounds half to even
    with np.errstate(over="ignore"):
        return r.astype(dst.np)  # exact (or inf past the f16 range, as the rounding says)


def round_to_odd_f16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to f16 to odd (von Neumann rounding, ``RoundMode::CAST_ODD``): an f16
    value stays, any other finite value takes the neighbour whose last significand bit is 1
    (past 65504 that is +-65504). Widened back to f32; NaN and +-inf stay."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):  # NaN compares, inf past the f16 range: handled below
        near = x.astype(np.float16)  # to nearest even: one of the two neighbours
        inexact = np.isfinite(x) & (near.astype(np.float64) != x.astype(np.float64))
        past = np.where(near.astype(np.float32) > x, np.float16(-np.inf), np.float16(np.inf))
        other = np.nextafter(near, past)  # the neighbour on the other side of x
    even = (near.view(np.uint16) & 1) == 0
    return np.where(inexact & even, other, near).astype(np.float32)


# The round modes a cast may state (``round = "..."``) and the casts each applies to; without
# one, float -> int truncates and narrowing to f16/bf16 rounds to nearest even.
CAST_ROUNDINGS = {"odd": "f32 -> f16", "rint": "a float -> integer"}


def cast_rounded(x: np.ndarray, src: DType, dst: DType, mode: str) -> np.ndarray:
    """A cast with a stated round mode: ``odd`` (f32 -> f16 to odd) or ``rint`` (float -> int,
    half to even, saturating; NaN -> 0)."""
    if mode == "odd":
        return round_to_odd_f16(x)
    info = np.iinfo(dst.np)
    with np.errstate(all="ignore"):
        r = np.rint(np.asarray(x).astype(np.float64))
        r = np.where(np.isnan(r), 0, r)
        return np.clip(r, info.min, info.max).astype(dst.np)


def _cast(args, attrs, rtype):
    if "round" in attrs:
        return cast_rounded(args[0], attrs["from"], dtype_of(rtype), attrs["round"])
    return cast_value(args[0], attrs["from"], dtype_of(rtype))


def _reduce_run(args, attrs, rtype):
    x = args[0]
    kind = attrs["kind"]
    keep = attrs.get("keepdims", True)
    if x.shape and x.shape[-1] == 0 and math.prod(x.shape[:-1]) > 0:  # as the host tiling refuses it
        raise ArgumentError(
            f"{kind} along the last axis of rows of 0 columns (shape {tuple(x.shape)}): a row "
            "operator needs at least one column"
        )
    with np.errstate(all="ignore"):
        if kind == "sum":
            r = np.sum(x, axis=-1, keepdims=keep, dtype=x.dtype)
        elif kind == "mean":
            r = np.sum(x, axis=-1, keepdims=keep, dtype=np.float32) / np.float32(x.shape[-1])
        elif kind == "max":
            r = np.max(x, axis=-1, keepdims=keep)
        else:
            r = np.min(x, axis=-1, keepdims=keep)
    return np.asarray(r).astype(x.dtype, copy=False)


_COMPARE = {
    "gt": np.greater,
    "ge": np.greater_equal,
    "lt": np.less,
    "le": np.less_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}


def _matmul_run(args, attrs, rtype):
    """f16/bf16: the products are exact and the sum is taken in float64, then rounded once to
    f32; i8: exact in i32 (float64 holds every partial sum exactly while K <= 2^17)."""
    a, b = args
    if attrs.get("transpose_b"):
        b = b.T
    k = a.shape[-1]
    if a.dtype.kind == "i" and k > MATMUL_MAX_K_I8:
        raise ArgumentError(
            f"matmul of i8 operands with K = {k}: K may be at most {MATMUL_MAX_K_I8} (2^17), beyond "
            "which an i32 sum could overflow"
        )
    exact = np.matmul(a.astype(np.float64), b.astype(np.float64))
    if a.dtype.kind == "i":
        return exact.astype(np.int64).astype(np.int32)  # only K = 2^17 of (-128)^2 wraps
    return exact.astype(np.float32)


def _compare_generic(args, attrs, rtype):
    fns = _COMPARE
    a, b = (truth(x) if x.dtype == np.bool_ else x for x in args)
    if a.dtype != b.dtype:
        common = np.int64 if a.dtype.kind in "iub" and b.dtype.kind in "iub" else np.float32
        a, b = a.astype(common), b.astype(common)
    return fns[attrs["pred"]](a, b)


def _where_run(args, attrs, rtype):
    dt = dtype_of(rtype)
    c, a, b = args
    if dt == bool_:
        a, b = truth(a), truth(b)
    return np.where(truth(c), to_compute(a, dt), to_compute(b, dt))


def _check_pred_attr(types, attrs, rtype):
    if attrs.get("pred") not in ("gt", "ge", "lt", "le", "eq", "ne"):
        raise TypeInferenceError(f"cmp predicate must be one of gt ge lt le eq ne, got {attrs.get('pred')!r}")


def _check_reduce(types, attrs, rtype):
    if attrs.get("kind") not in ("sum", "mean", "max", "min"):
        raise TypeInferenceError(f"reduce kind must be sum, mean, max or min, got {attrs.get('kind')!r}")


def _check_cast(types, attrs, rtype):
    _values(types)
    if not isinstance(rtype, (TensorType, ScalarType)):
        raise TypeInferenceError("cast produces a value type")
    src = types[0]
    if type(src) is not type(rtype) or (isinstance(src, TensorType) and src.shape != rtype.shape):
        raise TypeInferenceError(f"cast keeps the shape: {src} -> {rtype}")
    if attrs.get("from") != dtype_of(src):
        raise TypeInferenceError(f"cast 'from' attribute {attrs.get('from')} does not match operand {src}")
    if "round" in attrs:
        mode, a, b = attrs["round"], dtype_of(src), dtype_of(rtype)
        legal = {"odd": a.name == "f32" and b.name == "f16", "rint": a.is_float and b.is_int and b != bool_}
        if mode not in legal:
            raise TypeInferenceError(
                f"cast round mode must be one of {', '.join(CAST_ROUNDINGS)}, got {mode!r}"
            )
        if not legal[mode]:
            raise TypeInferenceError(
                f"cast round = {mode!r} applies to {CAST_ROUNDINGS[mode]} cast, not {a} -> {b}"
            )


def _check_leaf(types, attrs, rtype):
    if not isinstance(rtype, ScalarType):
        raise TypeInferenceError("const and attr produce a scalar")


# ---------------------------------------------------------------------------------------------
# The table

for _name, _fn in [
    ("add", np.add),
    ("sub", np.subtract),
    ("mul", np.multiply),
    ("max", np.maximum),
    ("min", np.minimum),
]:
    declare(OpSpec(_name, 2, _arith(_name), _binary(_fn), doc=f"%r = {_name} %a, %b : tensor<*, f32>"))
declare(
    OpSpec(
        "div", 2, _arith("div", allow_int=False), _binary(np.divide), doc="%r = div %a, %b : tensor<*, f32>"
    )
)

declare(
    OpSpec("neg", 1, _arith("neg"), lambda a, at, rt: np.negative(a[0]), doc="%r = neg %x : tensor<*, f32>")
)
declare(OpSpec("abs", 1, _arith("abs"), lambda a, at, rt: np.abs(a[0]), doc="%r = abs %x : tensor<*, f32>"))
declare(
    OpSpec(
        "relu",
        1,
        _arith("relu"),
        lambda a, at, rt: np.maximum(a[0], np.zeros((), a[0].dtype)),
        doc="%r = relu %x",
    )
)

_FLOAT_UNARY = {
    "sqrt": np.sqrt,
    "rsqrt": lambda x: np.float32(1) / np.sqrt(x),
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "sigmoid": lambda x: np.float32(1) / (np.float32(1) + np.exp(-x)),
    "reciprocal": lambda x: np.float32(1) / x,
    "round": np.rint,
}
for _name, _fn in _FLOAT_UNARY.items():
    declare(
        OpSpec(
            _name,
            1,
            _arith(_name, allow_int=False),
            _float_unary(_fn),
            doc=f"%r = {_name} %x : tensor<*, f32>",
        )
    )

declare(
    OpSpec(
        "cmp",
        2,
        _compare,
        _compare_generic,
        attrs=("pred",),
        check=_check_pred_attr,
        doc='%r = cmp %a, %b {pred = "gt"} : tensor<*, bool>',
    )
)
declare(
    OpSpec(
        "and",
        2,
        _logic("&"),
        lambda a, at, rt: np.logical_and(truth(a[0]), truth(a[1])),
        doc="%r = and %a, %b : tensor<*, bool>  // a & b on bool_ values",
    )
)
declare(
    OpSpec(
        "or",
        2,
        _logic("|"),
        lambda a, at, rt: np.logical_or(truth(a[0]), truth(a[1])),
        doc="%r = or %a, %b : tensor<*, bool>  // a | b on bool_ values",
    )
)
declare(
    OpSpec(
        "not",
        1,
        _logic("~"),
        lambda a, at, rt: np.logical_not(truth(a[0])),
        doc="%r = not %a : tensor<*, bool>  // ~a on a bool_ value",
    )
)
declare(OpSpec("where", 3, _where, _where_run, doc="%r = where %c, %a, %b : tensor<*, f32>"))
declare(
    OpSpec(
        "cast",
        1,
        None,
        _cast,
        attrs=("from",),
        check=_check_cast,
        doc='%r = cast %x {from = f32} : tensor<*, i8>  // optional round = "odd" (f32 -> f16), "rint"',
    )
)
declare(
    OpSpec(
        "reduce",
        1,
        _reduce,
        _reduce_run,
        attrs=("kind", "keepdims"),
        check=_check_reduce,
        doc='%r = reduce %x {kind = "sum", keepdims = true} : tensor<..., R, 1, f32>',
    )
)

declare(
    OpSpec(
        "matmul",
        2,
        _matmul,
        _matmul_run,
        attrs=("transpose_b",),
        doc="%r = matmul %x, %w {transpose_b = true} : tensor<M, N, f32>  // x @ w.T; i8 x i8: i32",
    )
)

declare(
    OpSpec(
        "const",
        0,
        None,
        None,
        attrs=("value",),
        check=_check_leaf,
        doc="%c = const {value = 1.0} : scalar<f32>",
    )
)
declare(
    OpSpec(
        "attr",
        0,
        None,
        None,
        attrs=("name",),
        check=_check_leaf,
        doc='%a = attr {name = "alpha"} : scalar<f32>  // a run-time int/float attribute',
    )
)

# Static (compile-time) conditions over bool / Literal attributes; `specialize` folds them.
declare(
    OpSpec(
        "static.flag",
        0,
        lambda t, a: PRED,
        None,
        attrs=("name",),
        doc='%p = static.flag {name = "amsgrad"} : pred',
    )
)
declare(
    OpSpec(
        "static.is",
        0,
        lambda t, a: PRED,
        None,
        attrs=("name", "value"),
        doc='%p = static.is {name = "mode", value = "mul"} : pred',
    )
)
declare(OpSpec("static.not", 1, _pred_only, None, doc="%q = static.not %p : pred"))
declare(OpSpec("static.and", 2, _pred_only, None, doc="%r = static.and %p, %q : pred"))
declare(OpSpec("static.or", 2, _pred_only, None, doc="%r = static.or %p, %q : pred"))
declare(
    OpSpec(
        "static.select",
        3,
        _static_select,
        None,
        doc="%r = static.select %p, %a, %b : tensor<*, f32>  // %a if p else %b",
    )
)
declare(
    OpSpec(
        "none",
        0,
        None,
        None,
        doc="%n = none : tensor<*, f32>  // an absent optional output",
        check=lambda t, a, r: None,
    )
)
