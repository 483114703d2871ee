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
            if cond.owner is None or cond.owner.opname != "cmp":
                raise CompileError(
                    "dsl.where needs its condition to be a comparison computed in the operator "
                    "(a bool input as condition is not supported by the backend yet)",
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
    """``where(m, 0, 1) > 0.5`` (f16; legalize-casts' negated i32 comparisons): the where, whose
    values already are the comparison's 0/1."""
    w, half = cmp.operands
    if cmp.attrs.get("pred") != "gt" or not _const(half, 0.5) or w.owner is None or w.owner.opname != "where":
        return None
    _, x, y = w.owner.operands
    if w.type.dtype != f16 or not (
        (_const(x, 0.0) and _const(y, 1.0)) or (_const(x, 1.0) and _const(y, 0.0))
    ):
        return None
    return w


MaterializeBoolsPass = function_pass("materialize-bools", "tensor", materialize)
