"""Facts about the Ascend C vector API the kernel emitter relies on, in one place.

Sources: shared/reference/ascendc-api.md section 5 (signatures, A2 dtype tables, the Cast
table), asc-devkit 9.1 docs ``docs/zh/api/SIMD-API/基础API/Memory矢量计算``.
"""

from __future__ import annotations

import math

from dsl.dtypes import DType, bf16, bool_, f16, f32, i8, i32, u8

# Cast pairs and the RoundMode each uses on 910B (ascendc-api.md section 5, Cast table).
CASTS = {
    (f16, f32): "CAST_NONE",
    (bf16, f32): "CAST_NONE",
    (f32, f16): "CAST_RINT",  # round half to even, as the DSL stores
    (f32, bf16): "CAST_RINT",
    (f32, i32): "CAST_TRUNC",  # toward zero, saturating
    (i32, f32): "CAST_NONE",
    (f16, bool_): "CAST_TRUNC",  # 0.0/1.0 -> byte 0/1 (half -> uint8)
    (f16, i8): "CAST_TRUNC",  # toward zero, saturating (NaN -> 0)
    (f16, u8): "CAST_TRUNC",
    (i8, f16): "CAST_NONE",
    (u8, f16): "CAST_NONE",
    (bool_, f16): "CAST_NONE",  # a bool_ input's bytes (lower-bools: then != 0 or min(., 1))
}
# A cast's stated round mode (legalize-casts' f32 -> i8/u8 chain: to f16 rounding to odd, then
# to the integer, half to even or toward zero; the f16 -> int8 conversion saturates).
CAST_ROUND_MODES = {"odd": "CAST_ODD", "rint": "CAST_RINT"}
BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min"}
VECTOR_SCALAR = {"vec.adds": "Adds", "vec.muls": "Muls", "vec.maxs": "Maxs", "vec.mins": "Mins"}
UNARY = {
    "abs": "Abs",
    "relu": "Relu",
    "sqrt": "Sqrt",
    "exp": "Exp",
    "log": "Ln",
    "reciprocal": "Reciprocal",
    "rsqrt": "Rsqrt",
}
CMP_MODES = {"gt": "GT", "ge": "GE", "lt": "LT", "le": "LE", "eq": "EQ", "ne": "NE"}
SCALAR_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
SCALAR_CMP = {"gt": ">", "ge": ">=", "lt": "<", "le": "<=", "eq": "==", "ne": "!="}

# Element types each vector API accepts on Atlas A2 (ascendc-api.md section 5 tables).
A2_DTYPES = {
    **{
        api: {"int16_t", "half", "int32_t", "float"}
        for api in ("Add", "Sub", "Mul", "Max", "Min", "Adds", "Muls", "Maxs", "Mins")
    },
    **{
        api: {"half", "float"}
        for api in ("Div", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Abs", "Compare", "Select")
    },
    "Compare": {"half", "float", "int32_t"},  # int32_t: EQ only (checked by the emitter)
    "Relu": {"half", "int32_t", "float"},
    "Duplicate": {"int16_t", "uint16_t", "half", "bfloat16_t", "int32_t", "uint32_t", "float"},
}

# The API each tile-level op becomes, for the dtype check.
OP_API = {
    **BINARY,
    **VECTOR_SCALAR,
    **UNARY,
    "neg": "Muls",
    "vec.dup": "Duplicate",
    "cmp": "Compare",
    "where": "Select",
}


def ctype(dt: DType) -> str:
    """Element type in kernel code: bools are bytes (uint8_t) in GM and UB."""
    return "uint8_t" if dt == bool_ else dt.cpp


def float_literal(v: float) -> str:
    if math.isnan(v):
        return '__builtin_nanf("")'
    if math.isinf(v):
        return "__builtin_huge_valf()" if v > 0 else "(-__builtin_huge_valf())"
    r = repr(float(v))
    return (r if any(c in r for c in ".en") else r + ".0") + "f"


def typed_literal(value, dt: DType) -> str:
    if dt == f32:
        return float_literal(float(value))
    if dt.is_float:
        return f"static_cast<{dt.cpp}>({float_literal(float(value))})"
    return f"static_cast<{dt.cpp}>({int(value)})"


def scalar_expression(op, args: list[str]) -> str | None:
    """The scalar unit's C++ for a scalar IR op on operands spelled ``args`` (members, reads,
    literals); None for an op it does not do (the caller names it in a CompileError). Per-core
    scalars of every kernel family (the variants' and the matmul epilogue's Init)."""
    name, t = op.opname, op.result.type
    if name in ("where", "max", "min") and t.dtype in (f16, bf16):
        # a literal branch is a float: `half < 1.0f ? half : 1.0f` has two types (bz8017)
        first = 1 if name == "where" else 0
        args = args[:first] + [
            f"static_cast<{t.dtype.cpp}>({a})" if v.owner is not None and v.owner.opname == "const" else a
            for a, v in zip(args[first:], op.operands[first:])
        ]
    if name in SCALAR_BINARY:
        return f"{args[0]} {SCALAR_BINARY[name]} {args[1]}"
    if name == "neg":
        return f"-{args[0]}"
    if name == "reciprocal":
        return f"{float_literal(1.0) if t.dtype.is_float else '1'} / {args[0]}"
    if name == "cmp":
        return f"{args[0]} {SCALAR_CMP[op.attrs['pred']]} {args[1]}"
    if name == "where":
        return f"{args[0]} ? {args[1]} : {args[2]}"
    if name in ("and", "or"):
        return f"{args[0]} {'&&' if name == 'and' else '||'} {args[1]}"
    if name == "not":
        return f"!{args[0]}"
    if name == "abs":
        if t.dtype.is_float:  # + 0 turns abs(-0.0) into +0.0, as fabs; NaN stays NaN
            return f"({args[0]} < 0 ? -{args[0]} : {args[0]}) + {float_literal(0.0)}"
        return f"{args[0]} < 0 ? -{args[0]} : {args[0]}"
    if name == "relu":
        if t.dtype.is_float:  # NaN stays NaN, as the vector Relu
            return f"{args[0]} > 0 || {args[0]} != {args[0]} ? {args[0]} : {t.dtype.cpp}(0)"
        return f"{args[0]} > 0 ? {args[0]} : {t.dtype.cpp}(0)"
    if name in ("max", "min"):
        cmp = ">" if name == "max" else "<"
        return f"{args[0]} {cmp} {args[1]} ? {args[0]} : {args[1]}"
    if name == "cast":
        src = op.operands[0].type.dtype
        if (src, t.dtype) in ((f16, f32), (bf16, f32)):
            return f"ToF32({args[0]})"
        if (src, t.dtype) in ((i32, f32), (f32, i32)):
            return f"static_cast<{t.dtype.cpp}>({args[0]})"
        if src in (bool_, i8, u8) and t.dtype != bool_:  # exact: 0/1 and 8-bit integers
            if t.dtype in (f16, bf16):  # through float: every CANN half/bfloat16_t takes one
                return f"static_cast<{t.dtype.cpp}>(static_cast<float>({args[0]}))"
            return f"static_cast<{t.dtype.cpp}>({args[0]})"
    return None
