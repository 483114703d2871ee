"""promote-precision: compute f16/bf16 math in f32, rounding only where the program says so.

Takes tensor-level IR; produces IR whose arithmetic is all f32: each f16/bf16 input is widened
by a ``cast`` where it enters, every float op is retyped to f32, explicit casts to f16/bf16 keep
their rounding (followed by a widening cast), and outputs are narrowed once before return. This
is the DSL's numeric semantics made explicit, so the interpreter's results do not change.

It also makes the typing rules' implicit conversions explicit: afterwards every operand of an
arithmetic op has the op's result dtype (``i32 + f32`` casts the i32 operand to f32: integer
with float computes in the float type), both operands of a comparison have their promoted
dtype, and both branches of ``where`` the result's. The backend then never sees mixed types.
A ``matmul`` keeps its f16/bf16 input operands (the cube multiplies them exactly and sums in
f32); its f32 result is the epilogue's like any other f32 value.

    before:  %0 = mul %x, %s : tensor<*, bf16>
             return %0
    after:   %x_f32 = cast %x {from = bf16} : tensor<*, f32>
             %s_f32 = cast %s {from = bf16} : scalar<f32>
             %0 = mul %x_f32, %s_f32 : tensor<*, f32>
             %1 = cast %0 {from = f32} : tensor<*, bf16>
             return %1
"""

from __future__ import annotations

from dsl.dtypes import f32
from dsl.ir import Func, Namer, Op, ScalarType, TensorType, Value
from dsl.ir.types import dtype_of, promote_all

from .manager import function_pass
from .rewrite import erase_dead_ops


def _narrow(t) -> bool:
    return isinstance(t, (TensorType, ScalarType)) and t.dtype.is_float and t.dtype.bits == 16


def _widened(t):
    return t.with_dtype(f32)


def promote(func: Func) -> None:
    namer = Namer.of(func)
    head: list[Op] = []
    widened: dict[int, Value] = {}  # a widening cast's result -> the input it widens
    for p in func.params:
        v = p.value
        if not _narrow(v.type):
            continue
        cast = Op(
            "cast", [v], _widened(v.type), namer.fresh(f"{v.name}_f32"), {"from": v.type.dtype}, func.loc
        )
        func.replace_all_uses(v, cast.result)
        cast.operands = [v]
        head.append(cast)
        widened[id(cast.result)] = v
    for op in func.walk():
        if op.opname == "matmul":  # the cube reads its f16/bf16 operands as they are (f32 sums)
            op.operands = [widened.get(id(v), v) for v in op.operands]
    body: list[Op] = []
    converted: dict[tuple[int, str], Value] = {}  # (value, dtype) -> its cast, made once
    for op in func.body:
        body.append(op)
        if op.result is None:
            continue
        rt = op.result.type
        if op.opname in ("const", "attr"):
            if _narrow(rt):
                op.result.type = _widened(rt)
            continue
        if op.opname == "cast":
            src = op.operands[0].type
            op.attrs["from"] = src.dtype
            if src.dtype == rt.dtype:
                func.replace_all_uses(op.result, op.operands[0])
                continue
            if _narrow(rt):  # an explicit rounding the program asked for: keep it, then widen
                widen = Op("cast", [op.result], _widened(rt), namer.fresh(), {"from": rt.dtype}, op.loc)
                func.replace_all_uses(op.result, widen.result)
                widen.operands = [op.result]
                body.append(widen)
            continue
        if op.opname == "none":
            if _narrow(rt):
                op.result.type = _widened(rt)
            continue
        if op.opname == "matmul":  # already f32 (i32 for i8), from the narrow inputs
            continue
        if op.spec.infer is not None:
            op.result.type = op.spec.infer([v.type for v in op.operands], op.attrs)
            body[-1:] = _explicit_operand_types(op, namer, converted) + [op]
    func.body = head + body
    narrowed: dict[tuple[int, str], Op] = {}
    returns = []
    for v, out in zip(func.returns, func.outputs):
        src = v.owner.operands[0] if v.owner is not None and v.owner.opname == "cast" else None
        if v.type != out.type and v.owner is not None and v.owner.opname == "none":
            v.type = out.type
        elif src is not None and src.type == out.type and _narrow(src.type) and v.type == _widened(src.type):
            v = src  # an explicit rounding returned: narrowing its exact widening gives it back
        elif v.type != out.type:
            key = (id(v), str(out.type))
            if key not in narrowed:
                loc = v.owner.loc if v.owner is not None else func.loc
                narrowed[key] = Op("cast", [v], out.type, namer.fresh(), {"from": v.type.dtype}, loc)
            v = narrowed[key].result
        returns.append(v)
    func.returns = returns
    # Narrow each output right after its value is computed, so its copy-out can start early.
    after: dict[int, list[Op]] = {}
    for (vid, _), cast in narrowed.items():
        after.setdefault(vid, []).append(cast)
    ordered: list[Op] = [c for p in func.params for c in after.get(id(p.value), [])]
    for op in func.body:
        ordered.append(op)
        if op.result is not None:
            ordered.extend(after.get(id(op.result), []))
    func.body = ordered
    erase_dead_ops(func)


# Ops whose operands all take the result's dtype (their infer is promote-and-combine).
_SAME_AS_RESULT = {
    "add",
    "sub",
    "mul",
    "div",
    "max",
    "min",
    "neg",
    "abs",
    "relu",
    "sqrt",
    "rsqrt",
    "exp",
    "log",
    "tanh",
    "sigmoid",
    "reciprocal",
    "round",
}


def operand_dtypes(op: Op) -> list | None:
    """The dtype each operand of ``op`` computes in (None: the op takes what it is given)."""
    if op.opname in _SAME_AS_RESULT:
        return [dtype_of(op.result.type)] * len(op.operands)
    if op.opname == "cmp":
        return [promote_all([v.type for v in op.operands])] * 2
    if op.opname == "where":
        return [dtype_of(op.operands[0].type)] + [dtype_of(op.result.type)] * 2
    return None


def _explicit_operand_types(op: Op, namer: Namer, converted: dict) -> list[Op]:
    """Casts that give every operand of ``op`` the dtype it computes in (inserted before it;
    a value converted before is reused)."""
    want = operand_dtypes(op)
    if want is None:
        return []
    casts: list[Op] = []
    operands: list[Value] = []
    for v, dt in zip(op.operands, want):
        if dtype_of(v.type) != dt:
            key = (id(v), dt.name)
            if key not in converted:
                attrs = {"from": dtype_of(v.type)}
                cast = Op("cast", [v], v.type.with_dtype(dt), namer.fresh(), attrs, op.loc)
                casts.append(cast)
                converted[key] = cast.result
            v = converted[key]
        operands.append(v)
    op.operands = operands
    return casts


PromotePrecisionPass = function_pass("promote-precision", "tensor", promote)
