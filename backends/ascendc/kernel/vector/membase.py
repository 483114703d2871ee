"""MemBase: vector ops as LocalTensor calls on UB (``Add(dst, a, b, n)``), the A2 API dslc targets.

One op table for every schedule: a flat tile op covers ``n`` elements from each view's start; a
row schedule's op may run once per row (``Extent.rows``) with its ROW operands at
``name[r * pitch_]``, read a column (COLUMN) for every row, or take row r's PER_ROW value as the
scalar of a vector-scalar call (``GetValue``). Compare and Select take whole repeats
(``Extent.whole``).
"""

from __future__ import annotations

from dsl.dtypes import i32
from dsl.errors import CompileError
from dsl.ir import Op

from ...cann import DEFAULT_CANN, spelling
from ..api import A2_DTYPES, BINARY, CASTS, CMP_MODES, OP_API, UNARY, VECTOR_SCALAR, ctype, typed_literal
from ..merge import Stmt
from .base import Extent, Form, Operand, VecOp, where

# How errors name the backend of a schedule family (Extent.family).
BACKEND = {"flat": "910B elementwise backend", "rows": "row backend"}
CAST_BACKEND = {"flat": "910B backend", "rows": "row backend"}
KERNEL = {"flat": "elementwise kernel", "rows": "row kernel"}


class MemBase:
    path = "membase"

    def __init__(self, target=None, cann: str = DEFAULT_CANN):
        self.target, self.cann = target, cann

    def check(self, op: Op) -> None:
        """The op's element type is one its API takes on A2 (ops without an API entry pass)."""
        api = OP_API.get(op.opname)
        if api is None:
            return
        dt = (op.operands[0] if op.opname == "cmp" else op.result).type.dtype
        if op.opname == "cmp" and dt == i32 and op.attrs["pred"] != "eq":
            raise CompileError(
                f"Compare takes int32_t for equality only on A2, not '{op.attrs['pred']}'", op.loc
            )
        if ctype(dt) not in A2_DTYPES[api]:
            raise CompileError(
                f"{api} does not take {dt} in the A2 vector API dslc targets "
                f"(it takes {', '.join(sorted(A2_DTYPES[api]))}); cast to f32 first",
                op.loc,
            )

    # -- one op -----------------------------------------------------------------------------------

    @staticmethod
    def text(x: Operand, e: Extent) -> str:
        """A tensor operand as the call reads it."""
        return f"{x.text}[r * {e.pitch}]" if x.form is Form.ROW else x.text

    def op(self, vop: VecOp, ctx) -> Stmt:
        """The one call (or per-row loop of calls) of a vector op; ``ctx`` spells scalars."""
        op, e = vop.op, vop.extent
        self.check(op)
        name, loc = op.opname, where(op)
        dst, srcs = vop.dst, vop.srcs
        dt = op.result.type.dtype
        d = self.text(dst, e)
        ops = [None if x.form is Form.SCALAR else self.text(x, e) for x in srcs]
        note = None
        if name in BINARY:
            side = "Rhs" if srcs[1].form is Form.REPEAT else "Lhs" if srcs[0].form is Form.REPEAT else ""
            call = f"{BINARY[name]}{'Repeat' + side if side else ''}({d}, {ops[0]}, {ops[1]}, {e.count});"
        elif name in VECTOR_SCALAR:
            if srcs[1].form is Form.PER_ROW:  # row r's value, read by the scalar unit
                s = f"{srcs[1].text}.GetValue(r * {e.per_row})"
            else:
                s = ctx.scalar_for(srcs[1].value, dt, dst.text)
            call = f"{VECTOR_SCALAR[name]}({d}, {ops[0]}, {s}, {e.count});"
        elif name in UNARY:
            call = f"{UNARY[name]}({d}, {ops[0]}, {e.count});"
        elif name == "neg":
            lit = ctx.typed_for(typed_literal(-1, dt), dt, dst.text)
            call = f"Muls({d}, {ops[0]}, {lit}, {e.count});"
        elif name == "vec.dup":
            call = f"Duplicate({d}, {ctx.scalar_for(srcs[0].value, dt, dst.text)}, {e.count});"
        elif name == "round":
            call = f"Cast({d}, {ops[0]}, RoundMode::CAST_RINT, {e.count});"
            note = "round half to even"
        elif name == "cast":
            pair = (srcs[0].dtype, dt)
            if pair not in CASTS:
                raise CompileError(
                    f"cast {pair[0]} -> {pair[1]} is not supported by the {CAST_BACKEND[e.family]} yet",
                    op.loc,
                )
            call = f"Cast({d}, {ops[0]}, RoundMode::{CASTS[pair]}, {e.count});"
        elif name == "cmp":
            mode = CMP_MODES[op.attrs["pred"]]
            if ops[1] is None:  # a tensor against a scalar (a constant, a Scalar input)
                s = ctx.scalar_for(srcs[1].value, srcs[0].dtype, ops[0])
                call = f"{spelling('compare_scalar', self.cann)}({d}, {ops[0]}, {s}, CMPMODE::{mode}, {e.whole});"
            else:
                call = f"Compare({d}, {ops[0]}, {ops[1]}, CMPMODE::{mode}, {e.whole});"
            note = "bit mask"
        elif name == "where":
            self.check_branches(op, srcs, e)
            if ops[2] is None:
                s = ctx.scalar_for(srcs[2].value, srcs[1].dtype, ops[1])
                call = f"Select({d}, {ops[0]}, {ops[1]}, {s}, SELMODE::VSEL_TENSOR_SCALAR_MODE, {e.whole});"
            else:
                call = (
                    f"Select({d}, {ops[0]}, {ops[1]}, {ops[2]}, SELMODE::VSEL_TENSOR_TENSOR_MODE, {e.whole});"
                )
        else:
            raise CompileError(f"'{name}' is not supported by the {BACKEND[e.family]} yet", op.loc)
        if e.rows is not None:
            call = f"for (uint32_t r = 0; r < {e.rows}; ++r) {call}"
        return Stmt(call, note=note, dsl=loc)

    @staticmethod
    def check_branches(op: Op, srcs: list[Operand], e: Extent) -> None:
        a, b = srcs[1].dtype, srcs[2].dtype
        if a != b:
            if e.family == "rows":
                msg = "dsl.where branches must share a dtype on the vector unit; cast one of them"
            else:
                msg = (
                    f"dsl.where branches must share a dtype on the vector unit ({a} vs {b}); cast one of them"
                )
            raise CompileError(msg, op.loc)
        if srcs[1].form is Form.SCALAR:
            raise CompileError(
                f"dsl.where with a scalar first branch reached the {KERNEL[e.family]}; swap the branches",
                op.loc,
            )
