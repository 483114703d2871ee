"""The row kernel (issue 7): the class template of an operator over rows of C elements.

Same machinery as the elementwise kernel (variants rendered with DSL names, merged under
``if constexpr``), different shape: each core owns a run of whole rows; a step moves ``rows``
(<= rowStep) rows with one 2-D ``DataCopyPad`` per tensor, every row ``pitch_`` elements apart in
UB (a multiple of 32 bytes: ``plan-rows``). Per step:

* an op over rows only is one vector call over ``rows * pitch_`` elements (pads included);
* an op over per-row values only is one call over ``rows * PER_ROW`` elements;
* ``row (+) column`` runs one call per row of the step, on ``cols_`` elements, the column
  resident in UB (or widened into a dead row buffer in the step);
* ``row (+) per-row`` reads the per-row values as Brcb blocks (``SpreadPerRow``) in the level-0
  form with block stride 0 (``RowsByValue``: many rows per call, or one call per row); integer
  per-row values and comparisons still read them with the scalar unit (``GetValue``);
* a reduction runs one count-form ReduceSum/Max/Min per row into the row's per-row slot.

Columns (gamma, beta, bias) are copied in and widened once, in Init. Buffer sizes are run-time
values (``slotLen_ = rowStep_ * pitch_``...) computed from the tiling data exactly as host tiling
budgeted them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import textwrap
from dataclasses import dataclass, field

from dsl.errors import CompileError
from dsl.ir import Op, ScalarType, TensorType

from passes.rows import COL, PERROW, ROW, SCALAR, layout_of

from ..writer import CodeWriter
from .api import VECTOR_SCALAR, ctype
from .merge import Block, Space, Stmt, blocks, merge
from .vector import Extent, Form, Operand, VecOp, vector_codes
from .vector.membase_helpers import SCRATCH_BLOCKS, WORK_PAD
from .vector.regbase_rows import RowRegBase, row_vec_op

# A column the step widens to f32 (plan-rows' ``wide``): host tiling either keeps its f32 copy for the
# whole core in wideBuf_ (wideBytes_ > 0), written by the first step only, or every step widens it.
WIDE_GUARD = "widen"  # ProcessStep's: s == 0 || wideBytes_ == 0

# A column Init computes: cols_ elements (Compare/Select take whole repeats: colLen_ holds them).
COLUMN_EXTENT = Extent("cols_", "static_cast<int32_t>(RoundUp(cols_, COUNT_ALIGN))")
from .naming import RESERVED, camel, gm_param
from .template import COPY_PARAMS, KernelText, _bytes, every_binding, in_terms_of, variant_id
from .variant import (
    SYNC_WEIGHT,
    Signature,
    Variant,
    VariantCode,
    VariantRenderer,
    _quiet_paired_waits,
    field_name,
    tile_ops,
    where,
)


@dataclass
class RowCode(VariantCode):
    rows: dict = field(default_factory=dict)  # plan-rows: align, perrow, count_align, scratch
    resident: list[Stmt] = field(default_factory=list)  # Init: columns computed once
    col_loads: list[Stmt] = field(default_factory=list)  # Init: columns copied in
    pre_fixed: list[Stmt] = field(default_factory=list)  # a single-slot buffer's reverse flag
    post_fixed: list[Stmt] = field(default_factory=list)
    chunked: bool = False  # the column-chunked twin (passes/chunk_rows.py): one row, in chunks
    wide: dict = field(default_factory=dict)  # a per-step widening's view -> its place in wideBuf_
    phases: int = 1  # passes over a row's chunks (chunked twins)


ROW_LOCALS = frozenset(
    """s first rows r n nPerRow nAligned nPerRowAligned slot scratch id core left pitch cols T tiling workspace pipe op Run
    Init Process ProcessStep LoadColumns SetCoreRows CopyOut RowsIn RowsOut PerRowIn PerRowOut RowGap RoundUp
    LoadScalar ToF32 PER_ROW COUNT_ALIGN chunk phase gmAt colAt part PHASES
    ReduceChunk WelfordChunk WelfordVar MergeLanes SpreadPerRow RowsByValue RowOpCall RowOp blocks src
    dst value row mask repeats params groups pitchBlocks ReduceRows RowReduce BlockRowsIn wideBytes wideBuf widen
    InitBanked ubAt pads padBuf""".split()
)


# The 2-D copies of a step (DataCopyExtParams: count, blockLen bytes, srcStride, dstStride in
# 32-byte blocks): name, comment, blockLen, "srcStride, dstStride".
_COPY_PARAMS = (
    (
        "RowsIn",
        "`rows` rows GM -> UB: contiguous in GM, pitch_ apart in UB.",
        "cols_ * sizeof(U)",
        "0, RowGap<U>()",
    ),
    (
        "RowsOut",
        "`rows` rows UB -> GM: exactly cols_ elements of each row reach GM.",
        "cols_ * sizeof(U)",
        "RowGap<U>(), 0",
    ),
    (
        "PerRowIn",
        "Per-row values GM -> UB: one element per row in GM, PER_ROW (32 bytes) per row in UB.",
        "sizeof(U)",
        "0, PER_ROW * sizeof(U) / 32 - 1",
    ),
    (
        "PerRowOut",
        "Per-row values UB -> GM: the first element of each row's PER_ROW slot.",
        "sizeof(U)",
        "PER_ROW * sizeof(U) / 32 - 1, 0",
    ),
)


class RowVariantRenderer(VariantRenderer):
    reserved = RESERVED | ROW_LOCALS

    def __init__(self, v: Variant, sig: Signature, facts, vector: dict | None = None):
        self.v, self.sig, self.facts = v, sig, facts
        self.func = v.func
        self.loop = self.func.loop()
        self.layout = layout_of(self.func)
        self.code = RowCode(v, 0, 0, self.func.attributes["buffers"])
        self.code.rows = self.func.attributes["rows"]
        self.chunked = self.code.chunked = self.func.attributes.get("path") == "chunked"
        self.code.phases = self.func.attributes.get("phases", 1)
        from .naming import NameTable

        self.names = NameTable()
        self.vcs = dict(vector or vector_codes(cann=facts.cann))
        self.vcs["regbase"] = RowRegBase(self.vcs["regbase"])  # a row step's VF (seed 002)
        self.vc = self.vcs["membase"]

    def kind(self, v) -> str:
        return self.layout.kind(v.type)

    def buffer_kind(self, buf: str) -> str:
        return self.code.buffers[buf]["kind"]

    # -- Init -----------------------------------------------------------------------------------

    def render_init(self) -> None:
        code = self.code
        for op in tile_ops(self.func):
            if op.opname == "dma.load":
                code.gm[op.operands[0].name] = op.result.type.dtype
            elif op.opname == "dma.store":
                code.gm[op.attrs["output"]] = op.operands[0].type.dtype
        attrs = {n for n, _ in self.sig.attrs}
        for op in self.func.body:
            if op is self.loop or op.opname.startswith("sync."):
                continue
            if isinstance(op.result.type, TensorType):
                continue  # a resident column: rendered once its view is named
            self.render_scalar(op, attrs)

    def render(self, view_types: dict[str, str]):
        self.view_types = view_types
        self.render_loop()
        self.render_resident()
        return self.code

    def render_resident(self) -> None:
        """Columns: every copy-in first, then what is computed from them (one MTE2 -> V pair)."""
        code = self.code
        written: set[int] = set()
        for op in self.func.body:
            if op is self.loop or op.result is None or not isinstance(op.result.type, TensorType):
                continue
            view = self.view(op.result)
            if op.opname == "dma.load":
                c = self.ctype_text(op.result.type.dtype, view)
                gm = camel(op.operands[0].name) + "Gm_"
                code.col_loads.append(
                    Stmt(f"DataCopyPad({view}, {gm}, RowsIn<{c}>(1), pad{_word(c)}_);", dsl=where(op))
                )
                continue
            if any(id(v) in written for v in op.operands):
                code.resident += self.vc.barrier(where(op))
                written.clear()
            code.resident.append(self.vector(op, COLUMN_EXTENT))
            written.add(id(op.result))
        for op in self.loop.region:  # the step's widenings and their places in wideBuf_
            if "wide" in op.attrs and "vf" not in op.attrs:
                code.wide[self.view(op.result)] = op.attrs["wide"]

    # -- the step -------------------------------------------------------------------------------

    def render_loop(self) -> None:
        code = self.code
        code.needs.has_compare = any(op.opname in ("cmp", "where") for op in self.loop.region)
        at = self.func.body.index(self.loop)
        before = [op for op in self.func.body[:at] if op.opname.startswith("sync.")]
        after = [op for op in self.func.body[at + 1 :] if op.opname.startswith("sync.")]
        code.pre = [st for op in before if self.slotted(op) for st in self.sync_stmts(op, "pre-issue")]
        code.post = [st for op in after if self.slotted(op) for st in self.sync_stmts(op, "drain")]
        code.pre_fixed = [
            st for op in before if not self.slotted(op) for st in self.sync_stmts(op, "pre-issue")
        ]
        code.post_fixed = [st for op in after if not self.slotted(op) for st in self.sync_stmts(op, "drain")]
        code.body = _row_copy_outs(_quiet_paired_waits(self.render_body()))
        if not self.chunked:  # a chunked twin spreads once per row, applies every chunk
            code.body = _spread_in_place(code.body)

    def _twin_guard(self, op: Op) -> str | None:
        """In a chunked twin, an op runs in the passes its ``phases`` name (every chunk), or once
        per row (``once``: the first chunk of that pass); flags and barriers run every chunk. A
        full-load variant writes its twin's guards too (``Variant.twin_passes``), true when
        COLUMN_CHUNKS is false, so the statements both run are written once in ProcessStep."""
        if op.opname.startswith("sync.") or ("vf" in op.attrs and not self.chunked):
            return None  # a RegBase step is one VF: the twin (MemBase) shares none of its statements
        if self.chunked:
            attrs, phases = op.attrs, self.code.phases
        else:
            twin = getattr(self.v, "twin_passes", None)
            if twin is None or twin_key(op) not in twin[1]:
                return None
            attrs, phases = twin[1][twin_key(op)], twin[0]
        if "once" in attrs:
            return f"!COLUMN_CHUNKS || (phase == {attrs['once']} && chunk == 0)"
        passes = attrs["phases"]
        if len(passes) == phases:
            return None
        return "!COLUMN_CHUNKS || " + " || ".join(f"phase == {p}" for p in passes)

    def guard_of(self, op: Op) -> str | None:
        """A column widened in the step (plan-rows' ``wide``) is widened by every step, or by the
        first only when host tiling keeps its f32 copy (``WIDE_GUARD``; a chunked twin never
        does); within ``_twin_guard``'s passes."""
        cond = self._twin_guard(op)
        if "wide" not in op.attrs or "vf" in op.attrs:
            return cond
        return WIDE_GUARD if cond is None else f"{WIDE_GUARD} && ({cond})"

    def guarded(self, cond: str | None, st: Stmt) -> Stmt:
        if cond is None:
            return st
        code = f"if ({cond}) {st.code}" if "\n" not in st.code else f"if ({cond}) {{\n{st.code}\n}}"
        return Stmt(code, st.note, st.dsl, st.weight)

    def slotted(self, op: Op) -> bool:
        """A pre-issued/drained flag of a ping-pong slot (else: a single-slot buffer's one id)."""
        return any(self.code.buffers[b]["slots"] > 1 for b in op.attrs.get("bufs", []))

    def sync(self, op: Op, role: str | None = None) -> Stmt:
        event = op.attrs.get("event", "")
        if "S" not in event.split("_"):
            return super().sync(op, role)
        src, dst = event.split("_")
        ident = {"slot": "slot", "slot+2": "slot + 2", "slot+4": "slot + 4"}.get(
            op.attrs["id"], str(op.attrs["id"])
        )
        fn = "SetFlag" if op.opname == "sync.set" else "WaitFlag"
        held = self.held(op.attrs.get("bufs", []))
        what = "{} computed" if event.startswith("V_") or event.startswith("MTE2_") else "{} read per row"
        note = f"{src} -> {dst}: " + what.format(held)
        return Stmt(f"{fn}<HardEvent::{event}>({ident});", note=note, dsl=where(op), weight=SYNC_WEIGHT)

    def dma_names(self, bufs: list[str], pipe: str) -> str:
        """As for elementwise kernels; three or more columns (a chunked twin's) are "the columns"."""
        cols = [op for op in self.loop.region if op.opname == "dma.load" and op.attrs.get("buf") in bufs]
        if pipe == "MTE2" and len(cols) > 2 and all(self.kind(op.result) == COL for op in cols):
            return "the columns"
        return super().dma_names(bufs, pipe)

    def held(self, bufs: list[str]) -> str:
        """The per-row values the scalar unit reads from ``bufs``."""
        names = []
        for op in self.loop.region:
            for k, v in enumerate(op.operands):
                owner = v.owner
                if owner is not None and owner.attrs.get("buf") in bufs and self.kind(v) == PERROW:
                    if self._scalar_place(op, k):
                        names.append(self.view(v))
        return ", ".join(dict.fromkeys(names)) or ", ".join(bufs)

    def _scalar_place(self, op: Op, k: int) -> bool:
        return (
            (op.opname in VECTOR_SCALAR and k == 1)
            or op.opname == "vec.brc"
            or (op.opname == "welford.var" and not op.attrs.get("blocks"))
        )

    LOOP = "step"

    def load_call(self, op: Op, view: str, gm: str, c: str) -> str:
        kind = self.kind(op.result)
        if kind == PERROW:
            return f"DataCopyPad({view}, {gm}[first], PerRowIn<{c}>(rows), pad{_word(c)}_);"
        if kind == COL:  # a chunked twin copies each chunk of a column in
            return f"DataCopyPad({view}, {gm}[colAt], RowsIn<{c}>(1), pad{_word(c)}_);"
        if self.layout.is_block(op.operands[0].type):  # [S, C] of [..., S, C]: rows r % S
            col = "colAt" if self.chunked else "0"
            return f"BlockRowsIn({view}, {gm}, firstRow_ + first, {col}, rows, pad{_word(c)}_);"
        return f"DataCopyPad({view}, {gm}[gmAt], RowsIn<{c}>(rows), pad{_word(c)}_);"

    def store_call(self, v, view: str, gm: str, c: str) -> str:
        if self.kind(v) == PERROW:
            return f"DataCopyPad({gm}[first], {view}, PerRowOut<{c}>(rows));"
        return f"DataCopyPad({gm}[gmAt], {view}, RowsOut<{c}>(rows));"

    # -- vector statements ------------------------------------------------------------------------

    def operand(self, v, per_row: bool) -> Operand:
        """A source inside the per-row loop (``per_row``: a row at ``[r * pitch_]``) or of a
        whole-step call; a per-row value (the scalar of a vector-scalar call: ``GetValue``), a
        column, or a scalar."""
        if not isinstance(v.type, TensorType):
            return Operand("", v.type.dtype, Form.SCALAR, value=v)
        k = self.kind(v)
        form = {ROW: Form.ROW if per_row else Form.TILE, COL: Form.COLUMN, PERROW: Form.PER_ROW}.get(
            k, Form.TILE
        )
        if v.owner is not None and v.owner.opname == "vec.brcb":
            form = Form.BLOCKS
        name = self.use(v)
        buf = v.owner.attrs.get("buf") if v.owner is not None else None
        return Operand(name, v.type.dtype, form, self.view_types.get(name), buf)

    def vector(self, op: Op, extent: Extent | None = None) -> Stmt:
        return self.vc.op(self.vec_op(op, extent), self)

    def vec_op(self, op: Op, extent: Extent | None = None) -> VecOp:
        """A step op: per-row (``extent.rows``) when a row meets a column or a per-row scalar."""
        if "vf" in op.attrs:
            return row_vec_op(self, op)
        name = op.opname
        args = op.operands
        dst = self.view(op.result)
        rkind = self.kind(op.result)
        kinds = [self.kind(a) for a in args]
        per_row = rkind == ROW and (COL in kinds or (name in VECTOR_SCALAR and kinds[1] == PERROW))
        if extent is None:
            if per_row or rkind == COL:  # a column widened in the step: one row (a chunk of it)
                extent = Extent("cols_", "cols_")
            elif rkind == PERROW:  # Compare/Select: whole repeats (per-row buffers are sized for them)
                extent = Extent("nPerRow", "nPerRowAligned")
            else:
                extent = Extent("n", "nAligned")
        extent = dataclasses.replace(extent, rows="rows" if per_row else None, family="rows")
        form = {ROW: Form.ROW if per_row else Form.TILE, COL: Form.COLUMN, PERROW: Form.PER_ROW}.get(
            rkind, Form.TILE
        )
        out = Operand(dst, op.result.type.dtype, form, self.view_types.get(dst), op.attrs.get("buf"))
        return VecOp(op, out, [self.operand(a, per_row) for a in args], extent)

    @property
    def twinned(self) -> bool:
        """A full-load variant that writes its column-chunked twin's guards (one ProcessStep)."""
        return getattr(self.v, "twin_passes", None) is not None


def _note_above(st: Stmt) -> Stmt:
    """A guarded one-line statement with its note above it, so the guard and the call stay on one
    line (clang-format splits a long one, and like pairs of split lines read as repeats)."""
    if not st.note or "\n" in st.code or not st.code.startswith("if ("):
        return st
    return Stmt(f"// {st.note}\n{st.code}", None, st.dsl, st.weight)


def twin_key(op: Op):
    """An op of a row function and its copy in the column-chunked twin: its result's name, or the
    output it stores."""
    return op.result.name if op.result is not None else ("store", op.attrs.get("output"))


def twin_passes(twin) -> tuple[int, dict]:
    """(passes over a chunked row, the ``phases``/``once`` of each op of the twin by ``twin_key``)."""
    ops = {
        twin_key(op): {k: op.attrs[k] for k in ("phases", "once") if k in op.attrs}
        for op in twin.loop().region
        if not op.opname.startswith("sync.") and ("phases" in op.attrs or "once" in op.attrs)
    }
    return twin.attributes["phases"], ops


def _word(c: str) -> str:
    return {"T": "T", "float": "F32", "half": "F16", "bfloat16_t": "BF16"}.get(c, c.replace("_t", "").title())


_SPREAD = re.compile(r"SpreadPerRow\((\w+), (\w+), rows\);")


def _spread_in_place(body: list[Stmt]) -> list[Stmt]:
    """``SpreadPerRow(b, v, rows); PipeBarrier<PIPE_V>(); RowsByValue<..>(d, s, b, rows);`` with
    ``b`` read nowhere else is ``RowsByValue<..>(d, s, SpreadPerRow(b, v, rows), rows);`` (the
    helper orders its Brcb before the read)."""
    out: list[Stmt] = []
    for k, s in enumerate(body):
        if len(out) >= 2 and out[-1].code == "PipeBarrier<PIPE_V>();":
            m = _SPREAD.fullmatch(out[-2].code)
            if m and s.code.startswith("RowsByValue<"):
                blocks = m.group(1)
                later = "\n".join(x.code for x in body[k + 1 :])
                use = f", {blocks}, rows);"
                if s.code.endswith(use) and not re.search(rf"\b{blocks}\b", later):
                    spread = out[-2]
                    code = s.code[: -len(use)] + f", {spread.code[:-1]}, rows);"
                    out[-2:] = [Stmt(code, None, spread.dsl or s.dsl, s.weight)]
                    continue
        out.append(s)
    return out


_ROW_STORE = re.compile(r"(if \(.*\) )?DataCopyPad\((\w+\[[^\]]+\]), (\w+), (\w+<\w+>\(rows\))\);")


def _row_copy_outs(body: list[Stmt]) -> list[Stmt]:
    """``SetFlag<V_MTE3>(id); WaitFlag<V_MTE3>(id); DataCopyPad(gm[...], tile, params);`` is the
    kernel's ``CopyOut(gm[...], tile, params, id)``; a copy under a chunk pass's guard passes the
    guard as ``copy`` (the flags still run every chunk: they order the MTE3 flags after them)."""
    out: list[Stmt] = []
    for s in body:
        m = _ROW_STORE.fullmatch(s.code)
        if m and len(out) >= 2:
            st, wt = out[-2], out[-1]
            sm = re.fullmatch(r"SetFlag<HardEvent::V_MTE3>\((.+)\);", st.code)
            if sm and wt.code == f"WaitFlag<HardEvent::V_MTE3>({sm.group(1)});":
                guard, gm, tile, copy = m.groups()
                cond = f", {guard[4:-2]}" if guard else ""  # `if (c) ` -> `, c`
                code = f"CopyOut({gm}, {tile}, {copy}, {sm.group(1)}{cond});"
                out[-2:] = [Stmt(code, None if guard else st.note, st.dsl, s.weight)]
                continue
        out.append(s)
    return out


class RowKernelText(KernelText):
    """The class template of a row operator (see the module docstring)."""

    ONE_LINE_DISPATCH = True

    def __init__(self, plan, view_types: dict[str, str]):
        super().__init__(plan, view_types)
        self.e.compact = True

    def barrier(self, why: str | None = None) -> None:
        """A V -> V barrier line of Init or a helper, as the vector code path spells it."""
        line = self.vc.barrier_line()
        if line:
            self.e.w.line(line, why)

    def codes(self) -> list[RowCode]:
        return list(self.plan.codes.values())

    def has_chunked(self) -> bool:
        return any(c.chunked for c in self.codes())

    def key_formula(self) -> str | None:
        """``quant_mode + 3 * additional_output + ...``: the tiling key as a mixed-radix number of the
        static attributes' value indices (bools 0/1), when every key is that number; else None."""
        attrs = self.plan.static_attrs
        if len(attrs) < 2:
            return None
        terms, weights, weight = [], [], 1
        for a in attrs:
            weights.append(weight)
            terms.append(a.name if weight == 1 else f"{weight} * {a.name}")
            weight *= 2 if a.kind == "bool" else len(a.choices)

        def index(a, x) -> int:
            return int(bool(x)) if a.kind == "bool" else list(a.choices).index(x)

        for v in self.plan.variants:
            if v.key != sum(w * index(a, v.bind[a.name]) for a, w in zip(attrs, weights)):
                return None
        enums = [
            f"{a.name}: " + ", ".join(f"{c} {k}" for k, c in enumerate(a.choices))
            for a in attrs
            if a.kind != "bool"
        ]
        return " + ".join(terms) + " (" + "; ".join(enums + ["a bool: 0 or 1"]) + ")"

    def class_comment(self) -> list[str]:
        plan = self.plan
        formula = self.key_formula()
        keys = f"key = {formula}" if formula else self.key_list()
        text = (
            f"{plan.op_type}: rows of cols_ elements, rowsPerCore whole rows per core (the last used core the rest), "
            "rowStep_ rows per step: one 2-D DataCopyPad per tensor, rows pitch_ apart in UB. Columns are copied in "
            "once, in Init"
        )
        if self.has_wide():
            text += "; every step widens them to f32, or only the first (into wideBuf_) when UB allows (wideBytes_)"
        text += (
            ". Steps alternate between two UB slots (one if two do not fit a row); MTE2, V and MTE3 are ordered by "
            "SetFlag/WaitFlag, reverse flags pre-issued and drained."
        )
        if self.has_chunked():
            text += (
                " When not one row fits, COLUMN_CHUNKS takes a row at a time in chunks of colsPerLoop_ columns: a "
                "pass over them per reduction level (a mean and variance: one, Welford), one for the outputs."
            )
        return textwrap.wrap(text, width=116) + [f"Tiling keys (static attributes): {keys}."]

    # -- Init -------------------------------------------------------------------------------------

    def init(self) -> None:
        w = self.e.w
        plan = self.plan
        tiling = f"{plan.op_type}TilingData"
        body = CodeWriter()
        body.level = w.level + 1
        self.e.w = body
        body.line("SetCoreRows(tiling);")
        if any(c.needs.uses_mean for c in self.codes()):
            body.line("invCols_ = tiling.invCols;")
        self.e.section(self.per_variant(self.gm_stmts))
        self.e.section(self.per_variant(lambda c: c.init))
        self.e.section(self.per_variant(self.buffer_stmts))
        if self.has_columns():
            body.line(
                ("if constexpr (!COLUMN_CHUNKS) " if self.full_load_columns() else "") + "LoadColumns();"
            )
            if any(c.resident for c in self.codes()):  # the copies are ordered by LoadColumns' MTE2 -> V flag
                self.barrier("once per core: the columns computed before the steps read them")
        self.e.w = w
        text = "\n".join(line.split("//", 1)[0] for line in body.lines)
        args = [
            f"GM_ADDR {a}" if re.search(rf"\b{a}\b", text) else f"GM_ADDR /*{a}*/" for a in self.gm_args()
        ]
        args.append(f"const {tiling}& tiling")
        with w.block(f"__aicore__ inline void Init({', '.join(args)})"):
            w.lines.extend(body.lines)

    def gm_stmts(self, code: RowCode) -> list[Stmt]:
        out = []
        func = code.variant.func
        layout = layout_of(func)
        kinds = {p.value.name: layout.kind(p.value.type) for p in func.params}
        kinds.update({o.name: layout.kind(o.type) for o in func.outputs})
        blocks = {p.value.name for p in func.params if layout.is_block(p.value.type)}
        for name in self.plan.sig.inputs + self.plan.sig.outputs:
            if name not in code.gm:
                continue
            c = self.gm_type(name)
            k = kinds[name]
            ptr = f"(__gm__ {c}*){gm_param(name)}"
            cols = "rowCols_" if self.has_chunked() else "cols_"  # a chunked twin's cols_ is a chunk's
            if k == COL:
                args = f"{ptr}, {cols}"
            elif name in blocks:  # [S, C] of rows [..., S, C]: S rows, read again every S rows
                args = f"{ptr}, tiling.blockRows * {cols}"
            elif k == PERROW:
                args = f"{ptr} + firstRow_, rows_"
            else:
                args = f"{ptr} + firstRow_ * {cols}, rows_ * {cols}"
            out.append(Stmt(f"{camel(name)}Gm_.SetGlobalBuffer({args});"))
        return out

    def buffer_stmts(self, code: RowCode) -> list[Stmt]:
        mapping = self.bufmap[variant_id(code.variant, self.plan.static_attrs)]
        # the buffers only column-chunked twins have come last: one `if constexpr (COLUMN_CHUNKS)`
        chunk_only = {n for n in mapping.values() if all(self.plan.codes[v].chunked for v in self.holders(n))}
        banks = self.canonical_banks() or None
        out, chunked = [], []
        for b in sorted(code.buffers, key=mapping.get):
            info = code.buffers[b]
            held = [v for v in code.views.values() if v.buffer == b]
            width = self.width_text(held, info["bytes"], code.variant.dtype)
            slots = " * slots_" if info["slots"] > 1 else ""  # 2, or 1 when a ping-pong step does not fit
            if info["kind"] == COL:  # colLen_: the resident copy, or (COLUMN_CHUNKS) the chunk's slots
                slots = ""
            length = {ROW: "slotLen_", PERROW: "perRowLen_", COL: "colLen_"}[info["kind"]]
            size = f"{length}{slots} * {width}"
            if banks is None or mapping[b] in chunk_only:
                st = Stmt(f"pipe_.InitBuffer({mapping[b]}, {size});")
            else:  # A2 bank groups (plan-rows): at its phase, or after the others in any
                phase = f", {banks[mapping[b]]}" if mapping[b] in banks else ""
                st = Stmt(f"InitBanked({mapping[b]}, {size}{phase});")
            (chunked if mapping[b] in chunk_only else out).append(st)
        if self.has_wide():  # every variant alike (wideBytes_ 0 where nothing is widened)
            init = "pipe_.InitBuffer(wideBuf_, colLen_ * wideBytes_)"
            if banks and "wideBuf_" in banks:  # a variant without f32 copies has wideBytes_ 0
                init = f"InitBanked(wideBuf_, colLen_ * wideBytes_, {banks['wideBuf_']})"
            out.append(Stmt(f"if (wideBytes_ > 0) {init};"))
        if code.rows.get("scratch"):
            out.append(Stmt(f"pipe_.InitBuffer(scratchBuf_, {self.scratch_bytes()});"))
        out += chunked
        if code.needs.online_sum:  # + OnlineSum's max
            out.append(
                Stmt("pipe_.InitBuffer(partBuf_, 64);", note="a chunk's partial reduction, the sum's max")
            )
        elif code.needs.uses_part:
            out.append(Stmt("pipe_.InitBuffer(partBuf_, 32);", note="a chunk's partial reduction"))
        if code.needs.uses_welford:
            out.append(
                Stmt(
                    "pipe_.InitBuffer(welfordBuf_, 3 * pitch_ * sizeof(float));",
                    note="Welford: lane means, lane M2, a temporary",
                )
            )
        return out

    def canonical_banks(self) -> dict:
        """The bank phase (plan-rows, A2) of each kernel buffer that has one in some full-load
        variant (``wideBuf_``: the columns' f32 copies), one for all variants (a variant's phases
        flipped all together where that agrees more with the first variant's, then the most
        common phase of each buffer), so that Init's statements are the same in every variant;
        nothing when no variant has phases. InitBanked pads only in the full-load kernel."""
        if hasattr(self, "_banks"):
            return self._banks
        votes: dict[str, list[int]] = {}
        first: dict[str, int] = {}
        for vid, code in self.plan.codes.items():
            if code.chunked:
                continue
            mapping = self.bufmap[vid]
            phases = {mapping[b]: i["bank"] for b, i in code.buffers.items() if "bank" in i}
            if "wide_bank" in code.rows:
                phases["wideBuf_"] = code.rows["wide_bank"]
            first = first or phases
            common = [n for n in phases if n in first]
            if 2 * sum(phases[n] == first[n] for n in common) < len(common):
                phases = {n: p ^ 256 for n, p in phases.items()}
            for n, p in phases.items():
                votes.setdefault(n, []).append(p)
        self._banks = {n: max((0, 256), key=lambda p: (v.count(p), p == v[0])) for n, v in votes.items()}
        return self._banks

    def column_slots(self) -> set[str]:
        """The column buffers the column-chunked twins copy chunks into, alternating slots like the
        rows' (``colLen_`` holds them all there; the full-load variants' copy is resident)."""
        return {
            self.bufmap[vid][b]
            for vid, code in self.plan.codes.items()
            if code.chunked
            for b, info in code.buffers.items()
            if info["kind"] == COL and info["slots"] > 1
        }

    def holders(self, cname: str) -> list:
        """The variants that have canonical buffer ``cname``."""
        return [vid for vid, m in self.bufmap.items() if cname in m.values()]

    def pad_lines(self, per_code: list[list[Stmt]]) -> None:
        """The DataCopyPadExtParams members (one per element type, no padding values: the lanes
        past a row hold copies or zeros, never read as data) the copies of ``per_code`` use."""
        texts = "\n".join(s.code for stmts in per_code for s in stmts)
        self.pad_words = getattr(self, "pad_words", set()) | set(_PAD.findall(texts))

    def resident_stmts(self, code: RowCode) -> list[Stmt]:
        out = []
        if code.col_loads:
            note = "MTE2 -> V: columns copied in"
            ident = self.init_event_id("MTE2_V")
            out.append(Stmt(f"SetFlag<HardEvent::MTE2_V>({ident});", note=note, weight=SYNC_WEIGHT))
            out.append(Stmt(f"WaitFlag<HardEvent::MTE2_V>({ident});", weight=SYNC_WEIGHT))
        out.extend(code.resident)
        return out

    def has_columns(self) -> bool:
        return any(c.col_loads for c in self.codes())

    def load_columns(self) -> None:
        """Columns (gamma, beta, a bias): copied in once per core, then what Init computes from them."""
        w = self.e.w
        if not self.has_columns():
            return
        w.line(comment="The columns every row uses: copied in once per core and computed on here.")
        plan = self.plan
        saved = plan.codes, plan.space
        if self.full_load_columns():  # the chunked twins copy their columns in chunk by chunk
            plan.codes = {vid: c for vid, c in plan.codes.items() if not c.chunked}
            plan.space = Space(plan.space.dims, [p for p in plan.space.points if p in plan.codes])
        try:
            with w.block("__aicore__ inline void LoadColumns()"):
                self.pad_lines([c.col_loads for c in self.codes()])
                self.views(lambda c: c.col_loads + c.resident)
                self.e.last_dsl = None
                self.e.section(self.per_variant(lambda c: c.col_loads))
                self.e.section(self.per_variant(self.resident_stmts))
        finally:
            plan.codes, plan.space = saved
        w.line()

    def full_load_columns(self) -> bool:
        """Only the full-load variants load columns in Init (Init calls LoadColumns for them only)."""
        return self.has_chunked() and all(
            not c.col_loads and not self.resident_stmts(c) for c in self.codes() if c.chunked
        )

    # -- Process ----------------------------------------------------------------------------------

    def slot_bound(self, slots: int) -> int:
        return slots  # one slot (slots_ == 1) still pre-issues both ids: the drain waits for them

    def process(self) -> None:
        w = self.e.w
        with w.block("__aicore__ inline void Process()"):
            self.slot_flags("pre-issue", lambda c: c.pre)
            self.e.section(self.per_variant(lambda c: c.pre_fixed))
            w.line("for (uint64_t s = 0; s < steps_; ++s) ProcessStep(s);")
            self.e.section(self.per_variant(lambda c: c.post_fixed[::-1]))
            self.slot_flags("drain", lambda c: c.post[::-1])

    def core_slice(self) -> None:
        w = self.e.w
        self.load_columns()
        tiling = f"{self.plan.op_type}TilingData"
        w.line(
            comment="This core's rows: rowsPerCore whole rows per core, the last used core the rest (seed 002)."
        )
        with w.block(f"__aicore__ inline void SetCoreRows(const {tiling}& tiling)"):
            w.line("const uint64_t core = static_cast<uint64_t>(GetBlockIdx());")
            w.line("firstRow_ = core * tiling.rowsPerCore;")
            w.line("const uint64_t left = tiling.rows > firstRow_ ? tiling.rows - firstRow_ : 0;")
            w.line("rows_ = left < tiling.rowsPerCore ? left : tiling.rowsPerCore;")
            w.line("cols_ = tiling.cols;")
            w.line("pitch_ = tiling.pitch;", "elements from one row to the next in UB (32-byte multiple)")
            w.line("rowStep_ = tiling.rowStep;")
            if self.has_blocks():
                w.line("blockRows_ = tiling.blockRows;", "S: the rows of a block input [S, C]")
            w.line(
                "slots_ = tiling.slots;", "2: steps alternate between two UB slots; 1: one slot (a big row)"
            )
            if self.has_wide():
                w.line(
                    "wideBytes_ = tiling.wideBytes;", "f32 copies of the columns for the whole core (0: none)"
                )
            w.line("steps_ = (rows_ + rowStep_ - 1) / rowStep_;")
            w.line(
                "slotLen_ = RoundUp(rowStep_ * pitch_, COUNT_ALIGN);", "elements of one slot of a row buffer"
            )
            w.line("perRowLen_ = RoundUp(rowStep_ * PER_ROW, COUNT_ALIGN);", "... of a per-row buffer")
            if self.column_slots():  # the chunks of a column alternate between slots like rows
                w.line(
                    "colLen_ = RoundUp(pitch_, COUNT_ALIGN) * (COLUMN_CHUNKS ? slots_ : 1);",
                    "... of a column buffer (all slots)",
                )
            else:
                w.line("colLen_ = RoundUp(pitch_, COUNT_ALIGN);", "... of a column buffer")
            if self.has_chunked():
                w.line("rowCols_ = tiling.cols;")
                with w.block("if constexpr (COLUMN_CHUNKS)"):
                    w.line(comment="one row at a time, PHASES passes over its chunks; buffers hold one chunk")
                    w.line("chunks_ = tiling.chunks;")
                    w.line("cols_ = colsPerLoop_ = tiling.colsPerLoop;")
                    w.line("steps_ = rows_ * PHASES * chunks_;")

    def tile(self) -> None:
        if not self.has_chunked():
            return self.step()
        self.step(chunks=True)
        self.chunk_helpers()

    def chunk_helpers(self) -> None:
        """The helpers of the column-chunked twins' statements: Welford (ReduceChunk goes with
        ReduceRows, after the RowReduce enum: ``reduce_chunk_helper``)."""
        w = self.e.w
        if any(c.needs.uses_welford for c in self.codes()):
            self.vc.helpers(w, [c.needs for c in self.codes()], "welford")
        if any(c.needs.online_sum for c in self.codes()):
            self.vc.helpers(w, [c.needs for c in self.codes()], "online")

    def step(self, chunks: bool = False) -> None:
        """ProcessStep(s): ``rows`` whole rows from ``first``; with ``chunks`` (the kernel carries
        column-chunked twins) also, for COLUMN_CHUNKS, chunk ``s % chunks_`` of pass
        ``s / chunks_ % PHASES`` over row ``s / chunks_ / PHASES``, each op in the passes that need
        it (the twins' guards): one body for both, the statements they share written once."""
        w = self.e.w
        plan = self.plan
        text = "\n".join(s.code for code in self.codes() for s in code.body)
        everywhere = lambda word: all(  # noqa: E731
            re.search(rf"\b{word}\b", "\n".join(s.code for s in code.body)) for code in self.codes()
        )
        with w.block("__aicore__ inline void ProcessStep(uint64_t s)"):
            if chunks:
                self.chunk_prologue(text, everywhere)
            else:
                w.line("const uint64_t first = s * rowStep_;", "the step's first row among this core's rows")
                w.line(
                    "const uint32_t rows = static_cast<uint32_t>(s + 1 == steps_ ? rows_ - first : rowStep_);"
                )
            for word, decl, why in (
                ("n", "const int32_t n = static_cast<int32_t>(rows * pitch_);", "whole rows, pads included"),
                (
                    "nPerRow",
                    "const int32_t nPerRow = static_cast<int32_t>(rows * PER_ROW);",
                    "per-row values",
                ),
                (
                    "nAligned",
                    "const int32_t nAligned = static_cast<int32_t>(RoundUp(rows * pitch_, COUNT_ALIGN));",
                    "whole repeats",
                ),
                (
                    "nPerRowAligned",
                    "const int32_t nPerRowAligned = static_cast<int32_t>(RoundUp(rows * PER_ROW, COUNT_ALIGN));",
                    "per-row values, whole repeats",
                ),
            ):
                if re.search(rf"\b{word}\b", text):
                    w.line(("" if everywhere(word) else "[[maybe_unused]] ") + decl, why)
            if not chunks and re.search(r"\bgmAt\b", text):
                w.line("const uint64_t gmAt = first * cols_;", "the step's first element in GM")
            if re.search(rf"\b{WIDE_GUARD}\b", text):
                w.line(
                    ("" if everywhere(WIDE_GUARD) else "[[maybe_unused]] ")
                    + f"const bool {WIDE_GUARD} = s == 0 || wideBytes_ == 0;",
                    "each step, or the first (wideBuf_)",
                )
            if any(b["slots"] > 1 for code in self.codes() for b in code.buffers.values()):
                w.line(
                    "const int32_t slot = static_cast<int32_t>(s & (slots_ - 1));",
                    "ping-pong slot and event id (0 with one slot)",
                )
            if chunks and self.column_slots():
                w.line(
                    "const uint32_t colSlot = COLUMN_CHUNKS ? slot * slotLen_ : 0;",
                    "a column chunk's slot; the resident copy",
                )
            self.pad_lines([c.body for c in self.codes()])
            if re.search(r"\bscratch\b", text):
                unused = "" if everywhere("scratch") else "[[maybe_unused]] "
                w.line(f"{unused}LocalTensor<float> scratch = scratchBuf_.Get<float>();")
            w.line(
                comment="The step's views; one written as another is computed in place of it (its buffer)."
            )
            aliases = self.views(
                lambda c: c.body, coalesce=True, keep={v for c in self.codes() for v in c.wide}, step=True
            )
            self.e.section(self.per_variant(self.wide_views))
            if aliases:
                pattern = re.compile(r"\b(" + "|".join(map(re.escape, aliases)) + r")\b")
                for code in self.codes():
                    code.body = [
                        dataclasses.replace(st, code=pattern.sub(lambda m: aliases[m.group(1)], st.code))
                        for st in code.body
                    ]
            self.e.last_dsl = None
            if chunks:
                merged = blocks(merge(self.per_variant(lambda c: c.body)))
                self.e.render_blocks([self.resolve_guards(b) for b in merged])
            else:
                self.e.section(self.per_variant(lambda c: c.body))

    def resolve_guards(self, block: Block) -> Block:
        """The twins' guards (``if (!COLUMN_CHUNKS || phase == 1) ...``) in a block only the
        full-load variants run (always true: the statement alone) or only the twins run (the
        ``!COLUMN_CHUNKS ||`` dropped)."""
        chunked = {self.plan.codes[vid].chunked for vid in block.variants}
        if len(chunked) != 1:
            return Block(block.variants, [_note_above(st) for st in block.stmts])
        out = []
        for st in block.stmts:
            head = f"if ({WIDE_GUARD} && ("
            wide = st.code.startswith(head)
            text = "if (" + st.code[len(head) :].replace(")) ", ") ", 1) if wide else st.code
            m = re.match(r"if \(!COLUMN_CHUNKS \|\| (\(?)(.*?)(\)?)\) ", text)
            if m is None:
                out.append(_note_above(st))
                continue
            rest = text[m.end() :]
            if chunked == {False}:
                code = rest[2:-2] if rest.startswith("{\n") and rest.endswith("\n}") else rest
                code = f"if ({WIDE_GUARD}) {code}" if wide else code
            else:  # a chunked twin keeps no f32 copies (wideBytes_ is 0)
                cond = m.group(2) if m.group(1) and m.group(3) else m.group(1) + m.group(2) + m.group(3)
                code = f"if ({cond}) {rest}"
            out.append(_note_above(Stmt(code, st.note, st.dsl, st.weight)))
        return Block(block.variants, out)

    def chunk_prologue(self, text: str, everywhere) -> None:
        """ProcessStep's step, for the full-load variants and the column-chunked twins alike."""
        w = self.e.w
        for word, decl, why in (
            ("chunk", "const uint64_t chunk = COLUMN_CHUNKS ? s % chunks_ : 0;", "column chunk"),
            (
                "phase",
                "const uint32_t phase = COLUMN_CHUNKS ? static_cast<uint32_t>(s / chunks_ % PHASES) : 0;",
                "pass over the row",
            ),
            (
                "first",
                "const uint64_t first = COLUMN_CHUNKS ? s / chunks_ / PHASES : s * rowStep_;",
                "the step's first row",
            ),
            (
                "rows",
                "const uint32_t rows = static_cast<uint32_t>(rows_ - first < rowStep_ ? rows_ - first : rowStep_);",
                None,
            ),
            ("colAt", "const uint64_t colAt = chunk * colsPerLoop_;", "the chunk's first column"),
            ("gmAt", "const uint64_t gmAt = first * rowCols_ + colAt;", "the step's first element in GM"),
        ):
            used = re.search(rf"\b{word}\b", text) or word in ("chunk", "first", "rows", "colAt")
            if used:
                always = word in ("first", "rows", "colAt", "chunk") or everywhere(word)
                w.line(("" if always else "[[maybe_unused]] ") + decl, why)
        w.line(
            "if constexpr (COLUMN_CHUNKS) cols_ = chunk + 1 < chunks_ ? colsPerLoop_ : "
            "static_cast<uint32_t>(rowCols_ - colAt);",
            "this chunk's",
        )

    def views(
        self, stmts, coalesce: bool = False, keep: frozenset = frozenset(), step: bool = False
    ) -> dict[str, str]:
        """Each value's LocalTensor on its buffer: those the method's statements ``stmts``
        (a function of a variant's code) use. With ``coalesce``, an anonymous view (``tmpN``)
        bound exactly like an earlier anonymous one in every variant is not declared again;
        returns those {name: the earlier name} for the caller to rename in its statements. No
        view is renamed to one of ``keep`` (a view the step binds again: a column widened once)."""
        plan, w = self.plan, self.e.w
        order: list[str] = []
        bound: dict[str, dict] = {}
        present = {vid: set(self.bufmap[vid].values()) for vid in plan.codes}
        for vid, code in plan.codes.items():
            mapping = self.bufmap[vid]
            # the names this variant's statements use: another variant's value of the same name may
            # live elsewhere (a per-step slot here, a resident buffer there: LoadColumns has no slot)
            used = {name for st in stmts(code) for name in re.findall(r"\b\w+\b", st.code)}
            for view in code.views.values():
                kind = code.buffers[view.buffer]["kind"]
                if view.name not in used:
                    continue
                if view.name not in order:
                    order.append(view.name)
                t = self.view_types[view.name]
                at = ""
                if kind == COL and step and mapping[view.buffer] in self.column_slots():
                    at = "[colSlot]"  # a column chunk's slot (COLUMN_CHUNKS), else the resident copy
                elif view.slotted:
                    at = "slot * slotLen_" if kind == ROW else "slot * perRowLen_"
                    # a narrower value in a wider buffer (plan-rows): the slot is that many more elements
                    ratio = code.buffers[view.buffer]["bytes"] // view.dtype.bytes
                    at = f"[{at}{f' * {ratio}' if ratio > 1 else ''}]"
                bound.setdefault(view.name, {})[vid] = (
                    mapping[view.buffer],
                    f"{mapping[view.buffer]}.Get<{t}>(){at}",
                )
        partial: dict[str, dict] = {}  # view -> its binding in the variants that have one
        aliases: dict[str, str] = {}
        anonymous: dict[tuple, str] = {}
        declared: list[tuple[str, str, dict]] = []  # (name, C++ type, binding per variant)
        tensors = {camel(p) for p in plan.sig.inputs + plan.sig.outputs}
        for name in order:
            used = bound[name]
            full = every_binding(used, plan.codes, present)
            t = self.view_types[name]
            decl = f"LocalTensor<{t}> {name}"
            if None not in full.values():
                key = (t, tuple(full[vid] for vid in plan.codes))
                # an anonymous view, or a DSL name assigned again (q, q1, q2: the DSL's q), bound
                # exactly like an earlier one in every variant: one name
                word = "tmp" if re.fullmatch(r"tmp\d*", name) else re.sub(r"\d+$", "", name)
                if name in tensors or word in tensors:  # x1 is an input, not x assigned again
                    word = name
                if coalesce and (word, key) in anonymous:
                    aliases[name] = anonymous[word, key]
                    continue
                value = in_terms_of(full, t, declared)
                same = set(value.values()) if value is not None else set()
                if (
                    coalesce
                    and word == "tmp"
                    and len(same) == 1
                    and same <= {n for n, _, _ in declared} - keep
                ):
                    aliases[name] = same.pop()  # an anonymous value computed in place of a named one
                    continue
                anonymous.setdefault((word, key), name)
                if value is None:  # three or more bindings: one assignment per variant class,
                    w.line(f"{decl};")  # made here, as later views may be written in terms of it
                    self.assign_by_variant(name, full)
                else:
                    w.line(f"{decl} = {self.e.value_expr(value)};")
                declared.append((name, t, full))
                continue
            w.line(f"{decl};")
            partial[name] = {vid: binding for vid, (_, binding) in used.items()}
        for name, values in partial.items():
            self.assign_by_variant(name, values)
        return aliases

    def copy_out(self) -> None:
        w = self.e.w
        if any(re.search(r"\bCopyOut\(", s.code) for c in self.codes() for s in c.body):
            w.line(comment="One output's rows to GM: MTE3 waits for V to finish them, then copies them out.")
            guarded = any(re.search(r"\bCopyOut\(.*, .*phase", s.code) for c in self.codes() for s in c.body)
            if guarded:
                w.line(comment="COLUMN_CHUNKS: `out` false in the passes that do not write the output.")
            w.line("template <typename U>")
            with w.block(
                "__aicore__ inline void CopyOut(const GlobalTensor<U>& gm, const LocalTensor<U>& tile, "
                "const DataCopyExtParams& copy, int32_t id" + (", bool out = true)" if guarded else ")")
            ):
                w.line("SetFlag<HardEvent::V_MTE3>(id);", "V -> MTE3: the rows are computed")
                w.line("WaitFlag<HardEvent::V_MTE3>(id);")
                w.line(("if (out) " if guarded else "") + "DataCopyPad(gm, tile, copy);")
            w.line()
        self.copy_helpers()

    def copy_helpers(self) -> None:
        """The DataCopyPad parameters the copies use (ascendc-api.md section 4: blockLen in bytes;
        the GM side's gaps in bytes, the UB side's in 32-byte blocks; blockCount <= 4095)."""
        w = self.e.w
        text = "\n".join(s.code for c in self.codes() for s in c.body + c.col_loads)
        if self.has_blocks():
            text += "\nRowsIn<U>"  # BlockRowsIn's runs
        if re.search(r"\bRows(In|Out)<", text):
            w.line(
                comment="A row in UB: cols_ elements, then a gap of whole 32-byte blocks up to pitch_ elements."
            )
            w.line("template <typename U>")
            w.line(
                "__aicore__ inline uint32_t RowGap() const { return (pitch_ * sizeof(U) - (cols_ * sizeof(U) + 31) "
                "/ 32 * 32) / 32; }"
            )
            w.line()
        for name, comment, length, gaps in _COPY_PARAMS:
            if not re.search(rf"\b{name}<", text):
                continue
            w.line(comment=comment)
            w.line("template <typename U>")
            with w.block(f"__aicore__ inline DataCopyExtParams {name}(uint32_t rows) const"):
                w.line(f"return DataCopyExtParams(static_cast<uint16_t>(rows), {length}, {gaps}, 0);")
            w.line()
        if self.has_blocks():
            self.block_rows_helper()
        self.vc.helpers(w, [c.needs for c in self.codes()], "by_value")
        if self.canonical_banks():
            chunks = " || COLUMN_CHUNKS" if self.has_chunked() else ""
            for line in (
                "A2 UB bank groups: `buf` starting `phase` (0 or 256) bytes past a multiple of 512 from the first buffer",
                "(operands 256 B apart read disjoint groups), after a pad buffer where needed"
                + (" (full-load)" if chunks else "")
                + "; -1: anywhere.",
            ):
                w.line(comment=line)
            w.line("template <TPosition POS>")
            with w.block(
                "__aicore__ inline void InitBanked(TBuf<POS>& buf, uint32_t bytes, int32_t phase = -1)"
            ):
                w.line(
                    f"const uint32_t pad = phase < 0{chunks} ? 0 : (static_cast<uint32_t>(phase) - ubAt_) % 512;"
                )
                w.line("if (pad > 0) pipe_.InitBuffer(padBuf_[pads_++], pad);")
                w.line("pipe_.InitBuffer(buf, bytes);")
                w.line("ubAt_ += pad + (bytes + 31) / 32 * 32;", "the UB bytes allocated so far")
            w.line()
        w.line(
            "__aicore__ static inline uint32_t RoundUp(uint32_t x, uint32_t to) { return (x + to - 1) / to * to; }"
        )

    def scratch_bytes(self) -> str:
        """Bytes of ReduceRows' scratch (``SCRATCH_FLOATS`` floats, 32 bytes per 8): the block values,
        then the work area, which a full-load kernel starts in the other UB bank groups (``WORK_PAD``
        floats more)."""
        full = 1 + WORK_PAD // 8
        last = f"(COLUMN_CHUNKS ? 1 : {full})" if self.has_chunked() else str(full)
        return "32 * (" + SCRATCH_BLOCKS.format(c="cols_", last=last) + ")"

    def has_wide(self) -> bool:
        """A variant widens columns in its step: host tiling may keep f32 copies (``wideBytes_``)."""
        return any(c.wide for c in self.codes())

    def wide_places(self) -> dict[str, int]:
        """The views of the columns the steps widen and their places in wideBuf_ (one per view:
        the place is the column's among the op's narrow column inputs, as in every variant)."""
        return {view: k for c in self.codes() for view, k in c.wide.items()}

    def wide_views(self, code: RowCode) -> list[Stmt]:
        """A widened column's view on its f32 copy when host tiling keeps them: in every variant
        that has the view (a no-op where wideBytes_ is 0), so the variants share the lines."""
        used = {name for st in code.body for name in re.findall(r"\b\w+\b", st.code)}
        out = []
        for view, k in self.wide_places().items():
            if view in used and view in code.views and code.views[view].dtype.bytes == 4:
                at = "" if k == 0 else "[colLen_]" if k == 1 else f"[{k} * colLen_]"
                out.append(Stmt(f"if (wideBytes_ > 0) {view} = wideBuf_.Get<float>(){at};"))
        return out

    def has_blocks(self) -> bool:
        """An input [S, C] repeated along the leading dims of [..., S, C] (passes/rows.py)."""
        return any("BlockRowsIn(" in s.code for c in self.codes() for s in c.body)

    def block_rows_helper(self) -> None:
        w = self.e.w
        w.line(
            comment="A block input [S, C] of rows [..., S, C]: row `row` (of all R rows) reads the block's row"
        )
        w.line(
            comment="`row % S` (blockRows_), so a step's rows come in runs that wrap at S, one copy per run."
        )
        w.line("template <typename U>")
        with w.block(
            "__aicore__ inline void BlockRowsIn(const LocalTensor<U>& dst, const GlobalTensor<U>& gm, uint64_t row, "
            "uint64_t col, uint32_t rows, const DataCopyPadExtParams<U>& pad)"
        ):
            stride = "rowCols_" if self.has_chunked() else "cols_"
            w.line(f"const uint64_t stride = {stride};", "elements from one block row to the next in GM")
            with w.block("for (uint32_t done = 0; done < rows;)"):
                w.line("const uint64_t at = (row + done) % blockRows_;")
                w.line("const uint64_t left = blockRows_ - at;")
                w.line("const uint32_t n = rows - done < left ? rows - done : static_cast<uint32_t>(left);")
                w.line("DataCopyPad(dst[done * pitch_], gm[at * stride + col], RowsIn<U>(n), pad);")
                w.line("done += n;")
        w.line()

    def members(self) -> None:
        w = self.e.w
        plan = self.plan
        w.line("@CONSTANTS@")
        w.line(
            f"static constexpr uint32_t PER_ROW = {self.e.value_expr(self.per_variant(lambda c: c.rows['perrow']))};",
            "elements of a per-row value (32 bytes of the narrowest)",
        )
        w.line(
            f"static constexpr uint32_t COUNT_ALIGN = "
            f"{self.e.value_expr(self.per_variant(lambda c: c.rows['count_align']))};",
            "buffer lengths round to it (whole repeats when comparing)",
        )
        for word in sorted(getattr(self, "pad_words", ())):
            w.line(f"const DataCopyPadExtParams<{_ctype_of(word)}> pad{word}_{{false, 0, 0, 0}};")
        w.line("TPipe pipe_;")
        # DataCopyPad moves GM <-> VECIN/VECOUT on A2; vector-only scratch is VECCALC.
        bufs = {
            "VECIN": [c.name for c in self.canon if c.dma],
            "VECCALC": [c.name for c in self.canon if not c.dma],
        }
        if any(c.rows.get("scratch") for c in self.codes()):
            bufs["VECCALC"].append("scratchBuf_")
        if any(c.needs.uses_part for c in self.codes()):
            bufs["VECCALC"].append("partBuf_")
        if any(c.needs.uses_welford for c in self.codes()):
            bufs["VECCALC"].append("welfordBuf_")
        if self.has_wide():
            bufs["VECCALC"].append("wideBuf_")
        if self.canonical_banks():  # InitBanked's pads: at most one per phased buffer
            bufs["VECCALC"].append(f"padBuf_[{len(self.canonical_banks())}]")
        for pos, names in bufs.items():
            if names:
                w.line(f"TBuf<TPosition::{pos}> {', '.join(names)};")
        gms: dict[str, list[str]] = {}
        for name in self.plan.sig.inputs + self.plan.sig.outputs:
            if any(name in code.gm for code in plan.codes.values()):
                gms.setdefault(self.gm_type(name), []).append(f"{camel(name)}Gm_")
        for t, names in gms.items():
            w.line(f"GlobalTensor<{t}> {', '.join(names)};")
        seen: dict[str, set] = {}
        for code in plan.codes.values():
            for m, dt in code.scalar_members.items():
                seen.setdefault(m, set()).add((dt, code.variant.dtype))
        scalars: dict[str, list[str]] = {}  # the scalar members (attributes, Scalar inputs) by type
        for m, pairs in seen.items():
            concrete = {ctype(dt) for dt, _ in pairs}
            scalars.setdefault(concrete.pop() if len(concrete) == 1 else "T", []).append(f"{m} = 0")
        for c, decls in scalars.items():
            w.line(f"{c} {', '.join(decls)};")
        if any(c.needs.uses_mean for c in self.codes()):
            w.line("float invCols_ = 0;", "1 / cols (host tiling)")
        if self.has_blocks():
            w.line("uint64_t blockRows_ = 1;", "S: a block input [S, C] repeats every S rows")
        chunks = ", chunks_ = 1" if self.has_chunked() else ""
        w.line(
            f"uint64_t firstRow_ = 0, rows_ = 0, steps_ = 0{chunks};",
            "this core's rows and steps (SetCoreRows)",
        )
        wide = ", wideBytes_ = 0" if self.has_wide() else ""
        w.line(f"uint32_t cols_ = 0, pitch_ = 0, rowStep_ = 1, slots_ = 2{wide};")
        if self.canonical_banks():
            w.line(
                "uint32_t slotLen_ = 0, perRowLen_ = 0, colLen_ = 0, ubAt_ = 0, pads_ = 0;",
                "lengths in elements; InitBanked",
            )
        else:
            w.line("uint32_t slotLen_ = 0, perRowLen_ = 0, colLen_ = 0;", "buffer lengths in elements")
        if self.has_chunked():
            w.line(
                f"static constexpr uint32_t PHASES = {self.e.value_expr(self.per_variant(lambda c: c.phases))};",
                "passes over a row's chunks (reduction levels + 1)",
            )
            w.line(
                "uint32_t rowCols_ = 0, colsPerLoop_ = 0;", "C, and COLUMN_CHUNKS' chunk (cols_: this one's)"
            )


_PAD = re.compile(r"\bpad(T|F32|F16|BF16|Uint8|Int8|Int32)_(?!\w)")


def _ctype_of(word: str) -> str:
    return {"T": "T", "F32": "float", "F16": "half", "BF16": "bfloat16_t"}.get(word, word.lower() + "_t")
