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
from ..api import (
    A2_DTYPES,
    BINARY,
    CAST_ROUND_MODES,
    CASTS,
    CMP_MODES,
    OP_API,
    UNARY,
    VECTOR_SCALAR,
    ctype,
    typed_literal,
)
from ..merge import Stmt
from . import membase_helpers as H
from .base import Extent, Form, Operand, Region, VecOp, where

# How errors name the backend of a schedule family (Extent.family).
BACKEND = {"flat": "910B elementwise backend", "rows": "row backend"}
CAST_BACKEND = {"flat": "910B backend", "rows": "row backend"}
KERNEL = {"flat": "elementwise kernel", "rows": "row kernel"}

# The row schedule's forms (rows.py): ops MemBase writes as the row kernel's helper calls and
# per-row loops. They read the schedule's members (cols_, invCols_) and the step's
# locals (rows, chunk), and record the helpers they need on ``ctx.needs`` (a RowCode).
ROW_FORMS = ("reduce", "welford.var", "online.sum", "vec.brc", "vec.brcb")
ROW_LOOP = "for (uint32_t r = 0; r < rows; ++r)"
PER_ROW_FORMS = (Form.PER_ROW, Form.BLOCKS)
BARRIER = "PipeBarrier<PIPE_V>();"
REDUCE_KIND = {"sum": "SUM", "mean": "SUM", "max": "MAX", "min": "MIN"}


class MemBase:
    path = "membase"

    def __init__(self, target=None, cann: str = DEFAULT_CANN):
        self.target, self.cann = target, cann
        self.v_in_order = bool(getattr(target, "v_in_order", False))

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

    # -- V -> V order ----------------------------------------------------------------------------

    def barrier(self, loc: str | None = None, note: str | None = None, weight: int = 1) -> list[Stmt]:
        """The statements that order a vector op after the one before it (MemBase: a V barrier;
        none where the target issues vector instructions in order)."""
        if self.v_in_order:
            return []
        return [Stmt(BARRIER, note=note, dsl=loc, weight=weight)]

    def barrier_line(self) -> str | None:
        """The same for helper code a writer prints line by line (None: no line)."""
        return None if self.v_in_order else BARRIER

    def barrier_text(self) -> str:
        """The barrier inside a multi-line statement's code: a line and its newline, or nothing."""
        line = self.barrier_line()
        return f"{line}\n" if line else ""

    # -- helpers ----------------------------------------------------------------------------------

    def helpers(self, w, needs: list, where: str) -> None:
        """The helpers the variants' ``needs`` ask for, at the point ``where`` of the kernel text:
        "free" (functions before the class: the resident-repeat loops), "splat" (broadcast
        kernels' Splat), "welford" (the chunked twins' Welford members), "online" (their OnlineSum),
        "by_value" (SpreadPerRow,
        ReduceRows with ReduceChunk, RowsByValue)."""
        if where == "free":
            for api, side in sorted(set().union(*(n.repeat for n in needs))):
                H.repeat_helper(w, api, side == "Lhs")
        elif where == "splat":
            H.splat_helper(w)
        elif where == "welford":
            H.welford_helpers(w, needs, self)
        elif where == "online":
            H.online_sum_helper(w, self)
        elif where == "by_value":
            H.by_value_helpers(w, needs, self)
        else:
            raise ValueError(f"no MemBase helpers go at {where!r}")

    # -- Init -------------------------------------------------------------------------------------

    @staticmethod
    def resident_broadcast(member: str, ctype: str, value: str, loc: str | None = None) -> list[Stmt]:
        """Init: a broadcast value made once per core in its own 256-byte buffer (``member``, its
        TBuf ``<member>Buf_``): one repeat, which tile ops read with repeat stride 0."""
        buf = f"{member[:-1]}Buf_"
        return [
            Stmt(f"pipe_.InitBuffer({buf}, 256);", dsl=loc),
            Stmt(f"{member} = {buf}.Get<{ctype}>();", dsl=loc),
            Stmt(
                f"Duplicate({member}, {value}, static_cast<int32_t>(256 / sizeof({ctype})));",
                note="one repeat; every tile reads it with repeat stride 0",
                dsl=loc,
            ),
        ]

    # -- regions ----------------------------------------------------------------------------------

    def render_region(self, region: Region, ctx) -> list[Stmt]:
        """MemBase: one statement per item, in order (a V barrier where the IR has one)."""
        out: list[Stmt] = []
        for item in region.items:
            out += [self.op(item, ctx)] if isinstance(item, VecOp) else self.barrier(where(item))
        return out

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
        if name in ROW_FORMS or self.by_value(vop):
            return self.row_form(vop, ctx)
        d = self.text(dst, e)
        ops = [None if x.form is Form.SCALAR else self.text(x, e) for x in srcs]
        note = None
        if name in BINARY:
            side = "Rhs" if srcs[1].form is Form.REPEAT else "Lhs" if srcs[0].form is Form.REPEAT else ""
            if side:
                ctx.needs.repeat.add((BINARY[name], side))
            call = f"{BINARY[name]}{'Repeat' + side if side else ''}({d}, {ops[0]}, {ops[1]}, {e.count});"
        elif name in VECTOR_SCALAR:
            if srcs[1].form in PER_ROW_FORMS:  # row r's value, read by the scalar unit
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
            mode = CAST_ROUND_MODES[op.attrs["round"]] if "round" in op.attrs else CASTS[pair]
            call = f"Cast({d}, {ops[0]}, RoundMode::{mode}, {e.count});"
            if op.attrs.get("round") == "odd":
                note = "to odd: the integer cast after it rounds once"
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

    # -- the row schedule's forms -----------------------------------------------------------------

    @staticmethod
    def by_value(vop: VecOp) -> bool:
        """``row (+) per-row``: a binary op of a row and a per-row value (RowsByValue)."""
        return (
            vop.op.opname in BINARY
            and vop.dst.form in (Form.ROW, Form.TILE)
            and any(x.form in PER_ROW_FORMS for x in vop.srcs)
        )

    def row_form(self, vop: VecOp, ctx) -> Stmt:
        op, dst, srcs, e = vop.op, vop.dst.text, vop.srcs, vop.extent
        name, loc, needs = op.opname, where(op), ctx.needs
        if name == "reduce":
            return self.reduce(vop, ctx)
        if name == "welford.var":
            needs.uses_welford = needs.uses_mean = True
            if op.attrs.get("blocks"):
                needs.welford_blocks = True
            return Stmt(
                f"WelfordVar({dst}, {srcs[1].text});",
                note="variance of the row: its Welford statistics merged (Chan)",
                dsl=loc,
            )
        if name == "online.sum":
            self.chunk_only_f32(op)
            needs.uses_part = needs.online_sum = True
            return Stmt(
                f"OnlineSum({dst}, {srcs[0].text}, {srcs[1].text}, cols_, chunk);",
                note="sum of exp(x - max) of the row so far, at its running max",
                dsl=loc,
            )
        if name == "vec.brc":
            src, per_row = srcs[0].text, srcs[0].form in PER_ROW_FORMS
            if per_row:
                call = f"Duplicate({dst}[r * {e.pitch}], {src}.GetValue(r * {e.per_row}), cols_);"
            else:
                call = f"DataCopy({dst}[r * {e.pitch}], {src}, {e.pitch});"
            return Stmt(
                f"{ROW_LOOP} {call}",
                note=f"{'per-row value' if per_row else 'column'} over whole rows",
                dsl=loc,
            )
        if name == "vec.brcb":
            needs.spreads = True
            return Stmt(
                f"SpreadPerRow({dst}, {srcs[0].text}, rows);",
                dsl=loc,
            )
        k = next(i for i, x in enumerate(srcs) if x.form in PER_ROW_FORMS)
        if srcs[k].form is not Form.BLOCKS:
            raise CompileError(
                f"'{name}' of a row and a per-row value needs the per-row value as Brcb blocks", op.loc
            )
        needs.row_ops.add(name)
        first = "true" if k == 0 else "false"
        return Stmt(
            f"RowsByValue<RowOp::{name.upper()}, {first}>({dst}, {srcs[1 - k].text}, {srcs[k].text}, rows);",
            dsl=loc,
        )

    def reduce(self, vop: VecOp, ctx) -> Stmt:
        """One value per row: ReduceRows over the step's rows; in a kernel with column-chunked
        twins the call both write alike (``step_reduce``); a twin's Welford mean: WelfordChunk."""
        op, dst, src, needs = vop.op, vop.dst.text, vop.srcs[0].text, ctx.needs
        kind, loc = op.attrs["kind"], where(op)
        if ctx.chunked and op.attrs.get("welford"):
            self.chunk_only_f32(op)
            needs.uses_welford = needs.uses_mean = True
            return Stmt(
                f"WelfordChunk({dst}, {src}, cols_, chunk);",
                note="Welford statistics of the row so far; its mean after the last chunk",
                dsl=loc,
            )
        which = REDUCE_KIND[kind]
        needs.row_reduces.add(which)
        if ctx.chunked or ctx.twinned:
            return self.step_reduce(vop, ctx)
        code = f"ReduceRows<RowReduce::{which}>({dst}, {src}, cols_, rows);"
        note = "one value per row"
        if kind == "mean":
            needs.uses_mean = True
            code += f"\n{self.barrier_text()}Muls({dst}, {dst}, invCols_, {vop.extent.count});"
            note = "sum per row, then times 1 / cols"
        return Stmt(code, note=note, dsl=loc)

    def step_reduce(self, vop: VecOp, ctx) -> Stmt:
        """A reduction in a kernel with column-chunked twins: one ReduceRows call the full-load
        variant and its twin write alike (so ProcessStep holds it once): the step's rows, or
        (COLUMN_CHUNKS) the row so far, chunk by chunk (ReduceChunk); a mean scales by 1 / cols
        (after the last chunk)."""
        op, needs = vop.op, ctx.needs
        kind = op.attrs["kind"]
        which = REDUCE_KIND[kind]
        if ctx.chunked:
            self.chunk_only_f32(op)
            needs.uses_part = True
            needs.chunk_helpers.add(which)
        mean = ", true" if kind == "mean" else ""
        note = "one value per row"  # (chunked: of the row so far; a mean after the last chunk)
        if kind == "mean":
            needs.uses_mean = needs.mean_reduce = True
            note = "mean per row"
        code = (
            f"ReduceRows<RowReduce::{which}{mean}>({vop.dst.text}, {vop.srcs[0].text}, cols_, rows, chunk);"
        )
        return Stmt(code, note=note, dsl=where(op))

    @staticmethod
    def chunk_only_f32(op: Op) -> None:
        if op.result.type.dtype.name != "f32":
            raise CompileError("a reduction of a row in column chunks accumulates f32 values only", op.loc)
