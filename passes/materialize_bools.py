"""materialize-bools: turn comparison results that are stored into 0/1 bytes.

On the vector unit a comparison yields a bit mask that ``dsl.where`` consumes directly; an
output of dtype bool is one byte 0/1 per element. Takes tensor-level IR after
promote-precision; each bool output computed by ``cmp`` becomes ``where(c, 1, 0)`` in f16
narrowed by a cast to bool (Select, then Cast half -> uint8 on 910B).

    before:  %c = cmp %a, %b {pred = "gt"} : tensor<*, bool>
             return %c
    after:   %one = const {value = 1.0} : scalar<f16>
             %zero = const {value = 0.0} : scalar<f16>
             %w = where %c, %one, %zero : tensor<*, f16>
             %y = cast %w {from = f16} : tensor<*, bool>
             return %y
"""

from __future__ import annotations

from dsl.dtypes import bool_, f16
from dsl.errors import CompileError
from dsl.ir import Func, Namer, Op, ScalarType, TensorType

from .manager import function_pass
from .rewrite import erase_dead_ops


def materialize(func: Func) -> None:
    namer = Namer.of(func)
    for op in func.body:
        if op.opname == "where":
            cond = op.operands[0]
            if isinstance(cond.type, TensorType) and (cond.owner is None or cond.owner.opname != "cmp"):
                raise CompileError(
                    "dsl.where needs its condition to be a comparison by now (lower-bools makes "
                    "bool_ inputs and & | ~ comparisons)",
                    op.loc,
                )
    returns = []
    for v in func.returns:
        if (
            isinstance(v.type, TensorType)
            and v.type.dtype == bool_
            and v.owner is not None
            and v.owner.opname == "cmp"
        ):
            loc = v.owner.loc
            values = _zero_one(v.owner)
            if values is not None:  # already 0/1 in f16 (an i32 negated comparison): store those
                cast = Op("cast", [values], v.type, namer.fresh(), {"from": f16}, loc)
                func.body.insert(func.body.index(v.owner) + 1, cast)
                returns.append(cast.result)
                continue
            one = Op("const", [], ScalarType(f16), namer.fresh(), {"value": 1.0}, loc)
            zero = Op("const", [], ScalarType(f16), namer.fresh(), {"value": 0.0}, loc)
            sel = Op("where", [v, one.result, zero.result], v.type.with_dtype(f16), namer.fresh(), {}, loc)
            cast = Op("cast", [sel.result], v.type, namer.fresh(), {"from": f16}, loc)
            at = func.body.index(v.owner) + 1
            func.body[at:at] = [one, zero, sel, cast]
            v = cast.result
        returns.append(v)
    func.returns = returns
    erase_dead_ops(func)


def _const(v, value: float) -> bool:
    return v.owner is not None and v.owner.opname == "const" and float(v.owner.attrs["value"]) == value


def _zero_one(cmp: Op):
    """``w > 0.5`` where w is an f16 value that already is the comparison's 0/1 (legalize-casts'
    negated i32 comparisons, lower-bools' & | ~): w."""
    w, half = cmp.operands
    if cmp.attrs.get("pred") != "gt" or not _const(half, 0.5) or not _is_zero_one(w):
        return None
    return w


def _is_zero_one(w) -> bool:
    """An f16 value known to be 0 or 1: ``where(m, 0, 1)``/``where(m, 1, 0)``, ``min``/``max``
    of such values, ``1 - `` one, or ``min(widened bool_ input, 1)`` (lower-bools)."""
    op = w.owner
    if op is None or w.type.dtype != f16:
        return False
    if op.opname == "where":
        _, x, y = op.operands
        return (_const(x, 0.0) and _const(y, 1.0)) or (_const(x, 1.0) and _const(y, 0.0))
    if op.opname == "min" and _const(op.operands[1], 1.0):
        x = op.operands[0].owner
        if x is not None and x.opname == "cast" and x.attrs.get("from") == bool_:
            return True
    if op.opname == "sub" and _const(op.operands[0], 1.0):
        return _is_zero_one(op.operands[1])
    return op.opname in ("min", "max") and all(_is_zero_one(v) for v in op.operands)


MaterializeBoolsPass = function_pass("materialize-bools", "tensor", materialize)
