"""RegBase for row kernels: a row step's vector ops as one vector function (seed 002, ascend950).

``passes/row_vf.py`` marked the step: ``pass = k`` on each op, ``reg`` on register values.
The VF, for layer_norm (T = half, one pass per reduction level and one for the outputs)::

    __simd_vf__ static inline void LayerNormVF(__ubuf__ T* yAddr, __ubuf__ T* xAddr, __ubuf__ float* meanAddr,
            ..., float invCols, float epsilon, uint32_t cols, uint16_t rows, uint32_t pitch, uint16_t repeats) {
        Reg::RegTensor<float> xF32, acc0, mean, ...;
        Reg::MaskReg mask;
        uint32_t count = cols;
        for (uint16_t r = 0; r < rows; ++r) {
            Reg::Duplicate(acc0, 0.0f);                       // pass 0: sum(x)
            count = cols;
            for (uint16_t i = 0; i < repeats; ++i) {
                mask = Reg::UpdateMask<float>(count);
                Reg::LoadAlign<T, Reg::LoadDist::DIST_UNPACK_B16>(x, xAddr + r * pitch + i * 64);
                Reg::Cast<float, T, kCastWiden>(xF32, x, mask);
                Reg::Add<float, Reg::MaskMergeMode::MERGING>(acc0, acc0, xF32, mask);
            }
            mask = Reg::CreateMask<float, Reg::MaskPattern::ALL>();
            Reg::Reduce<Reg::ReduceType::SUM>(mean, acc0, mask);
            Reg::Muls(mean, mean, invCols, mask);
            Reg::StoreAlign<float, Reg::StoreDist::DIST_FIRST_ELEMENT_B32>(meanAddr + r * PER_ROW, mean, mask);
            Reg::LocalMemBar<Reg::MemType::VEC_STORE, Reg::MemType::VEC_LOAD>();
            Reg::LoadAlign<float, Reg::LoadDist::DIST_BRC_B32>(mean, meanAddr + r * PER_ROW);  // every lane
            ...                                                    // pass 1: var; pass 2: y
        }
    }

Every step of a pass loads first, then computes and stores (a result may take the buffer of a
value the pass reads: plan-rows' in-place rule). Per-row math runs between the passes on
broadcast registers under an all-lanes mask. A column computed in the step (a widened gamma)
is re-made in each pass that reads it. The pitch is a whole number of element steps, so a tail
step's full-register load stays inside its row.
"""

from __future__ import annotations

from dsl.dtypes import f16, f32, i8
from dsl.errors import CompileError
from dsl.ir import Op, ScalarType, TensorType

from passes.rows import COL, PERROW

from ..api import float_literal
from ..merge import Stmt
from .base import Form, Operand, Region, VecOp, where
from .regbase import LOCALS, VectorFunction, VfWriter

ROW_LOCALS = LOCALS | {"cols", "rows", "pitch", "r", "invCols"}
ACCUMULATE = {"sum": "Add", "mean": "Add", "max": "Max", "min": "Min"}
REDUCE_TYPE = {"sum": "SUM", "mean": "SUM", "max": "MAX", "min": "MIN"}
IDENTITY = {"sum": 0.0, "mean": 0.0, "max": float("-inf"), "min": float("inf")}
ALL = "mask = Reg::CreateMask<float, Reg::MaskPattern::ALL>();"
MEMBAR = (
    "Reg::LocalMemBar<Reg::MemType::VEC_STORE, Reg::MemType::VEC_LOAD>();  // per-row values stored, reloaded"
)


def row_vec_op(ctx, op: Op) -> VecOp:
    """A row step op as the row VF takes it: registers, row/column/per-row UB views, scalars."""

    def operand(v) -> Operand:
        if isinstance(v.type, ScalarType):
            return Operand("", v.type.dtype, Form.SCALAR, value=v)
        if v.owner is not None and v.owner.attrs.get("reg"):
            return Operand(ctx.view(v), v.type.dtype, Form.REGISTER, value=v)
        text = ctx.use(v)
        return Operand(text, v.type.dtype, _form(ctx, v), ctx.view_types.get(text), _buf(v), v, ub(v))

    def ub(v) -> str:  # the view whose address the VF takes: a stored value's, the copy out's
        outs = ctx.stored.get(id(v))
        return ctx.stored_view(v, outs[0]) if outs else ctx.view(v)

    dst = ctx.view(op.result)
    if op.attrs.get("reg"):
        out = Operand(dst, op.result.type.dtype, Form.REGISTER, value=op.result)
    else:
        t = op.result.type.dtype
        out = Operand(
            dst, t, _form(ctx, op.result), ctx.view_types.get(dst), _buf(op.result), op.result, ub(op.result)
        )
    return VecOp(op, out, [operand(x) for x in op.operands], None)


def _buf(v) -> str | None:
    return v.owner.attrs.get("buf") if v.owner is not None else None


def _form(ctx, v) -> Form:
    k = ctx.kind(v)
    return Form.COLUMN if k == COL else (Form.PER_ROW if k == PERROW else Form.ROW)


class RowRegBase:
    """The RegBase code path of row kernels: the flat RegBase's protocol, regions as row VFs."""

    def __init__(self, flat):
        self.flat = flat
        self.path = flat.path

    def __getattr__(self, name):
        return getattr(self.flat, name)

    def render_region(self, region: Region, ctx) -> list[Stmt]:
        vops = [it for it in region.items if isinstance(it, VecOp)]
        if not vops:
            return []
        ctx.needs.uses_mean |= any(v.op.opname == "reduce" and v.op.attrs.get("kind") == "mean" for v in vops)
        return self.flat.vector_function(vops, ctx, RowVfWriter, "step")


class RowVfWriter(VfWriter):
    """One row VF: ``for r < rows`` around the passes, each ``for i < repeats`` over the columns.
    ``COLS``/``PITCH``: the schedule's row length and row pitch (a row kernel's members; the
    matmul epilogue's tile columns and its compile-time pitch)."""

    COLS, PITCH = "cols_", "pitch_"

    def __init__(self, vops: list[VecOp], ctx, placeholder: str, suffix: str = ""):
        self.ctx, self.suffix, self.vops = ctx, suffix, vops
        values = [x for v in vops for x in (v.dst, *v.srcs) if x.form is not Form.SCALAR]
        widths = {x.dtype.bytes for x in values if x.form is not Form.REGISTER or x.dtype.bytes != 1}
        if 1 in widths and 4 not in widths:
            raise CompileError(
                "RegBase stores 8-bit data only from 32-bit lanes (DIST_PACK4_B32)", vops[0].op.loc
            )
        self.lanes = 64 if 4 in widths else 128
        self.unpacked = 4 in widths and 2 in widths
        self.regs, self.ptrs, self.args, self.scalars = {}, {}, [], {}
        self.before, self.traits, self.consts = [], set(), {}
        self.columns = {id(v.op.result): v for v in vops if v.op.attrs.get("remat")}  # made per pass
        self.passes = max(v.op.attrs.get("pass", 0) for v in vops) + 1
        self.section = {p: [] for p in range(self.passes + 1)}  # row-level, before pass p's loop
        self.loads = {p: [] for p in range(self.passes)}  # each element step: loads first
        self.steps = {p: [] for p in range(self.passes)}  # then ops and stores
        self.start = {p: [] for p in range(self.passes)}  # accumulator initialisation
        self.end = {p: [] for p in range(self.passes)}  # after the loop: Reduce, FIRST_ELEMENT store
        self.in_pass: dict[int, set[str]] = {
            p: set() for p in range(self.passes + 1)
        }  # registers holding data
        self.row_regs: set[str] = set()  # broadcast per-row registers of the current row
        self.stored_rows: set[str] = set()  # per-row UB the VF stored: reloads need LocalMemBar
        self.membar: set[int] = set()
        self.accs = 0
        for v in vops:
            p = v.op.attrs.get("pass", 0)
            if id(v.op.result) in self.columns:
                continue  # made in the passes that read it
            if v.op.opname == "reduce":
                self.reduce(v, p)
            elif ctx.kind(v.op.result) == PERROW:
                self.per_row(v, p)
            else:
                self.element(v, p)
        params = [f"__ubuf__ {c}* {p}" for p, c in self.ptrs.items()]
        params += [f"{c} {p}" for p, c in self.scalars.values()]
        params += ["uint32_t cols", "uint16_t rows", "uint32_t pitch", "uint16_t repeats"]
        self.args += [s for s in self.scalars]
        L = self.lanes
        self.args += [
            self.COLS,
            "static_cast<uint16_t>(rows)",
            self.PITCH,
            f"static_cast<uint16_t>(({self.COLS} + {L - 1}) / {L})",
        ]
        self.fn = VectorFunction(placeholder, params, self.body(), self.traits, where(vops[0].op))
        self.call = f"asc_vf_call<{placeholder}>({', '.join(self.args)});"

    def reg_name(self, x: Operand) -> str:
        return x.text + (self.suffix or ("Reg" if x.text in ROW_LOCALS else ""))

    def scope_text(self) -> str:
        text = super().scope_text()
        return text.replace("    const uint16_t rows = ", "    const uint16_t rowsVf = ").replace(
            "for (uint16_t r = 0; r < rows;", "for (uint16_t r = 0; r < rowsVf;"
        )

    # -- addresses --

    def at(self, x: Operand) -> str:
        p = self.ptr(x)
        if x.form is Form.COLUMN:
            return f"{p} + i * {self.lanes}"
        return f"{p} + r * pitch + i * {self.lanes}"

    def load_in(self, x: Operand, p: int) -> None:
        """A UB source of pass p's element steps."""
        r = self.reg(x)
        if r in self.in_pass[p]:
            return
        self.in_pass[p].add(r)
        self.loads[p].append(self.load_align(x, self.at(x)))

    def per_row_in(self, x: Operand, p: int) -> None:
        """A per-row UB value (a reduction's slot, a per-row input) in every lane, once per row."""
        r = self.reg(x)
        if r in self.row_regs:
            return
        self.row_regs.add(r)
        if x.buffer in self.stored_rows and p not in self.membar:
            self.membar.add(p)
            self.section[p].insert(0, MEMBAR)
        c = self.ptrs.get(self.ptr(x))
        self.section[p].append(
            f"Reg::LoadAlign<{c}, Reg::LoadDist::DIST_BRC_B32>({r}, {self.ptr(x)} + r * PER_ROW);"
        )

    def sources(self, v: VecOp, p: int) -> None:
        for x in v.srcs:
            if x.form in (Form.ROW, Form.COLUMN):
                self.load_in(x, p)
            elif x.form is Form.PER_ROW:
                self.per_row_in(x, p)
            elif x.form is Form.REGISTER and id(x.value) in self.columns:
                self.column(self.columns[id(x.value)], p)

    def column(self, v: VecOp, p: int) -> None:
        r = self.reg(v.dst)
        if r in self.in_pass[p]:
            return
        self.sources(v, p)
        self.in_pass[p].add(r)
        self.loop = self.steps[p]
        self.emit(v)

    # -- the three kinds of op --

    def element(self, v: VecOp, p: int) -> None:
        self.sources(v, p)
        self.loop = self.steps[p]
        self.emit(v)
        self.in_pass[p].add(self.reg(v.dst))
        if v.dst.form is not Form.REGISTER:
            self.store_row(v.dst, p)

    def store_row(self, x: Operand, p: int) -> None:
        r, at = self.reg(x), self.at(x)
        c = self.ptrs[self.ptr(x)]
        if x.dtype.bytes == 1:  # the low byte of each 32-bit lane (after f16 -> i8 of unpacked data)
            self.steps[p].append(f"Reg::StoreAlign<{c}, Reg::StoreDist::DIST_PACK4_B32>({at}, {r}, mask);")
        elif self.unpacked and x.dtype.bytes == 2:
            self.steps[p].append(f"Reg::StoreAlign<{c}, Reg::StoreDist::DIST_PACK_B32>({at}, {r}, mask);")
        else:
            self.steps[p].append(f"Reg::StoreAlign({at}, {r}, mask);")

    def per_row(self, v: VecOp, p: int) -> None:
        """Per-row math between the passes, on registers that hold the row's value in every lane."""
        self.sources(v, p)
        self.loop = self.section[p]
        if not any(line == ALL for line in self.section[p]):
            self.section[p].append(ALL)
        self.emit(v)
        self.row_regs.add(self.reg(v.dst))
        if v.dst.form is not Form.REGISTER:
            self.store_first(v.dst, self.section[p])

    def store_first(self, x: Operand, out: list[str]) -> None:
        """A row's per-row value: element 0 of the register (a 16-bit one: the low half of lane 0)."""
        p = self.ptr(x)
        dist = {4: "DIST_FIRST_ELEMENT_B32", 2: "DIST_FIRST_ELEMENT_B16"}[x.dtype.bytes]
        out.append(
            f"Reg::StoreAlign<{self.ptrs[p]}, Reg::StoreDist::{dist}>({p} + r * PER_ROW, {self.reg(x)}, mask);"
        )
        self.stored_rows.add(x.buffer)

    def reduce(self, v: VecOp, p: int) -> None:
        """Accumulate pass p's registers lane by lane (MERGING keeps a tail step's other lanes), one
        Reduce after the pass, the row's value into its per-row slot."""
        kind = v.op.attrs["kind"]
        src = v.srcs[0]
        self.sources(v, p)
        acc = f"acc{self.accs}"
        self.accs += 1
        self.regs[acc] = "float"
        self.start[p].append(f"Reg::Duplicate({acc}, {float_literal(IDENTITY[kind])});  // {kind} of the row")
        self.steps[p].append(
            f"Reg::{ACCUMULATE[kind]}<float, Reg::MaskMergeMode::MERGING>({acc}, {acc}, {self.reg(src)}, mask);"
        )
        d = self.reg(v.dst)
        self.end[p].append(ALL)
        self.end[p].append(f"Reg::Reduce<Reg::ReduceType::{REDUCE_TYPE[kind]}>({d}, {acc}, mask);")
        if kind == "mean":
            self.scalars.setdefault("invCols_", ("invCols", "float"))
            self.end[p].append(f"Reg::Muls({d}, {d}, invCols, mask);")
        self.store_first(v.dst, self.end[p])

    # -- the text --

    def body(self) -> list[str]:
        decls: dict[str, list[str]] = {}
        for r, c in self.regs.items():
            decls.setdefault(c, []).append(r)
        lines = [f"Reg::RegTensor<{c}> {', '.join(names)};" for c, names in decls.items() if c != "mask"]
        lines.append(f"Reg::MaskReg {', '.join(['mask'] + decls.get('mask', []))};")
        lines += self.before
        lines.append("uint32_t count = cols;")
        lines.append("for (uint16_t r = 0; r < rows; ++r) {")
        t = "float" if self.lanes == 64 else next(c for c in self.regs.values() if c != "mask")
        for p in range(self.passes + 1):
            lines += ["    " + s for s in self.section[p]]
            if p == self.passes or not (self.steps[p] or self.loads[p]):
                continue
            lines += ["    " + s for s in self.start[p]]
            lines.append("    count = cols;")
            lines.append("    for (uint16_t i = 0; i < repeats; ++i) {")
            lines.append(
                f"        mask = Reg::UpdateMask<{t}>(count);  // the row's tail: count -= {self.lanes}"
            )
            lines += ["        " + s for s in self.loads[p] + self.steps[p]]
            lines.append("    }")
            lines += ["    " + s for s in self.end[p]]
        lines.append("}")
        return lines
