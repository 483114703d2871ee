"""The matmul schedule's kernel: one ``__mix__(1, 2)`` kernel, a cube part and its epilogue.

(An identity epilogue, ``return x @ w`` in f32/i32, takes no vector core: ``__mix__(1, 0)``, the
AIC's Fixpipe writes the output rows from L0C, no workspace; ``direct_output``.)

The function comes from split-cube-vector and the row passes: ``cube`` (the cube tiling) and a
row function over the tile's rows (the epilogue). Per AI Core (block) the AIC walks its output
tiles t = block, block + blocks, ... in serpentine order (``TileAt``):

* AIC: per K step of ``kL1 = stepK * baseK``: GM -> L1 (``Nd2NzParams``, ND -> NZ) into one of
  two L1 slots (``MTE1_MTE2`` pre-issued per slot); per ``baseK`` slice L1 -> L0A/L0B
  (``LoadData2DParams``: A NZ -> ZZ a fractal row at a time; B [K, N] NZ -> ZN transposing each
  fractal (int8: ``LoadDataWithTranspose``, 32 x 32 squares, N rounded to 32 in L0B and the
  Mmad), or w [N, K] whose NZ already is B's ZN in one copy) into one of two L0 slots
  (``M_MTE1`` pre-issued), ``Mmad`` accumulating in one of two L0C slots (``FIX_M`` pre-issued);
  then ``Fixpipe`` f32/i32 L0C -> the block's workspace slot (count % 2) and
  ``CrossCoreSetFlag<2, PIPE_FIX>`` to the AIVs; before the Fixpipe of its third tile on it waits
  the AIVs' release of that workspace slot (``CrossCoreWaitFlag``); drained after the loop.
* AIV: per tile, ``CrossCoreWaitFlag``, the epilogue object on the tile, ``CrossCoreSetFlag``;
  ``Drain()`` after the loop. The epilogue is a class with seed 004's contract (``Init(Params,
  baseM, baseN, ProblemShape)``: the UB layout from ``LocalMemAllocator<Hardware::UB>``, the
  product's rows first at offset 0, GM binding and the pre-issued reverse events; ``GetTensor()``;
  ``operator()(BlockShape, gmOffset, flagId)``), the same text on both targets but for where the
  rows come from. ``operator()`` takes its half of the tile's rows (SplitM: ``halfM =
  ceil(curM / GetTaskRatio())``, sub-block 1 gets ``halfM - 1`` when curM is odd, none when curM
  = 1 and returns: the kernel still answers), 950: in one step from offset 0 of UB slot
  ``flagId``; 910B: in chunks of ``CHUNK_ROWS`` rows read from workspace slot ``flagId``; GM rows
  from ``GetSubBlockIdx() * halfM``; the epilogue's vector ops through the vector-code layer
  (MemBase); the columns ([N] inputs) are the tile's slice, reloaded per tile; per-row ``[M,
  1]`` inputs (per-token scales) come in with the rows, ``PER_ROW`` (32 bytes) apart, as in the
  row kernels, and a row op with a per-row value reads it as Brcb blocks (``SpreadPerRow``,
  ``RowsByValue``, the row kernels' helpers, members of the epilogue, with ``PITCH`` as the pitch
  and ``cols_ = curN``); reductions along N (the cube tile then holds whole rows: ``full_row``)
  run ``ReduceRows`` over the chunk's rows into per-row buffers, means times
  ``invCols_ = 1 / N``. The AIV's ``CrossCoreSetFlag`` is issued on MTE3 after the epilogue's
  copies out (it fires when the stores, and the reads they follow, are done).

The intra-core flags of the epilogue are the ones insert-sync placed in the row function; the
column reload adds one ``V_MTE2``/``MTE2_V`` pair of its own (pre-issued and drained).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from dataclasses import dataclass, field

from dsl.dtypes import DType, dtype_from_name, f32
from dsl.errors import CompileError
from dsl.ir import Func, ScalarType, TensorType

from ..cann import DEFAULT_CANN
from ..writer import CodeWriter
from .api import ctype, scalar_expression, typed_literal
from .merge import Stmt
from .naming import camel, gm_param
from .template import dsl_label, load_scalar_helper, to_f32_helper, write_vector_functions
from .variant import field_name
from .vector import Extent, Form, MemBase, Needs, Operand, VecOp
from .vector.base import Region, where
from .vector.membase_helpers import WORK_PAD, by_value_helpers, scratch_floats
from .vector.regbase import RegBase
from .vector.regbase_rows import RowRegBase, RowVfWriter, row_vec_op

AIC_TO_AIV = 8  # cross-core flag ids (blaze cv_sync_constants.h, as the emulator's fixture)
AIV_TO_AIC = 5
WS_SLOTS = 2  # workspace tiles per AI Core: the AIC writes one while the AIVs read the other
ROW, COL, PERROW = "row", "col", "perrow"
VIEW_SUFFIX = {
    "T": "T",
    "float": "F32",
    "half": "F16",
    "bfloat16_t": "Bf16",
    "int32_t": "I32",
    "int8_t": "I8",
    "uint8_t": "U8",
}


@dataclass
class Epilogue:
    """The AIV side of one dtype's function, as C++ text (``T`` for the op's element type)."""

    buffers: dict  # bN -> {bytes, slots, kind}
    pre: list[str] = field(default_factory=list)  # before the tile loop: pre-issued flags
    cols: list[str] = field(default_factory=list)  # per tile: the column loads (+ column math)
    body: list[str] = field(default_factory=list)  # per chunk of rows
    post: list[str] = field(default_factory=list)  # after the tile loop: drains
    inputs: dict = field(default_factory=dict)  # GM inputs the epilogue reads: name -> (ctype, kind)
    outputs: dict = field(default_factory=dict)  # name -> ctype
    row_outputs: set = field(default_factory=set)  # the [M, 1] outputs (a value per row)
    views: dict = field(default_factory=dict)  # (buf, ctype) -> local view name
    col_views: set = field(default_factory=set)
    count_align: int = 1
    positions: dict = field(default_factory=dict)  # bN -> VECIN (copied in) / VECOUT (copied out)
    scalars: list = field(default_factory=list)  # (member, ctype, expression, dsl line): Init computes them
    scalar_inputs: dict = field(default_factory=dict)  # Scalar input -> ctype (LoadScalar)
    acc_buf: str | None = None  # the buffer the product's rows arrive in
    widen: bool = False  # ToF32
    needs: Needs = field(default_factory=Needs)  # the row helpers (SpreadPerRow, RowsByValue) asked for
    scratch: bool = False  # ReduceRows' scratch (a reduction along N: the tile holds whole rows)

    @property
    def per_row(self) -> bool:
        """Some buffer holds per-row ([M, 1]) values: PER_ROW elements a row."""
        return any(b["kind"] == PERROW for b in self.buffers.values())


class _Ctx:
    """What MemBase asks the schedule back: scalars as literals (the epilogue takes constants)."""

    chunked = False
    twinned = False

    def __init__(self, T: DType, t_names: set[str] | None = None):
        self.T, self.t_names = T, t_names
        self.needs = Needs()
        self.members: dict[int, str] = {}  # id(scalar value) -> member (Init computes it)

    def typed_for(self, expr: str, dt: DType, view: str) -> str:
        return expr

    def reg_ctype(self, dt: DType, value=None) -> str:
        """A VF register's element type: ``T`` for a value of the operator's 16-bit type (one VF
        text for the f16 and bf16 kernels; ``t_values``), else the concrete type."""
        is_t = dt == self.T if self.t_names is None or value is None else value.name in self.t_names
        return "T" if is_t and dt != f32 else ctype(dt)

    def scalar_for(self, v, dt: DType, view: str) -> str:
        owner = v.owner
        if owner is not None and owner.opname == "const":
            return typed_literal(owner.attrs["value"], dt)
        if id(v) in self.members:
            return self.members[id(v)]
        raise CompileError(
            f"scalar %{v.name} is not available in the matmul epilogue", owner.loc if owner else None
        )


def label(op) -> str | None:
    """The source-map comment of an op: ``linear_gelu.py:16``, as the other kernels write it."""
    at = where(op)
    return at and dsl_label(at)


class EpiVfWriter(RowVfWriter):
    """The epilogue's row VF: the tile's columns ``curN``, rows ``PITCH`` apart."""

    COLS, PITCH = "curN", "PITCH"


def t_values(funcs: dict) -> set[str] | None:
    """The values of type ``T`` in the one epilogue text of the dtypes' functions ``funcs`` (dtype
    -> function): those whose type is the function's dtype in each of them. A value of a fixed
    type is spelled as such even where it equals T (an f16 input, f16 of a compare, in the f16
    function); None for one dtype (there T and its type are one)."""
    if len(funcs) < 2:
        return None
    typed = []
    for dt, f in funcs.items():
        values = [p.value for p in f.params] + [op.result for op in f.walk() if op.result is not None]
        typed.append(
            {v.name for v in values if isinstance(v.type, (TensorType, ScalarType)) and v.type.dtype == dt}
        )
    return set.intersection(*typed)


class EpilogueRenderer:
    def __init__(
        self,
        func: Func,
        T: DType,
        target,
        cann: str | None = None,
        vf_form: str | None = None,
        t_names: set[str] | None = None,
    ):
        """``t_names``: the values spelled ``T`` (``t_values``); None: every value of type T."""
        self.func, self.T, self.t_names = func, T, t_names
        self.ub_mode = target.name == "ascend950"  # the AIC's Fixpipe writes the tile into the AIVs' UB
        self.vc = MemBase(target)
        self.reg = RowRegBase(RegBase(target, cann or DEFAULT_CANN, vf_form))
        self.ctx = _Ctx(T, t_names)
        self.ctx.kind, self.ctx.view, self.ctx.use = self.kind, self.view, self.use
        self.ctx.stored, self.ctx.stored_view = {}, lambda v, out: self.view(v)
        self.ctx.view_types = {}
        self.regs: dict[int, str] = {}  # id(value) -> its name in a VF (register and UB values)
        self.acc = func.attributes["cube"]["acc"]
        self.kinds: dict[int, str] = {}
        rows = func.attributes["rows"]
        self.e = Epilogue(dict(func.attributes["buffers"]), count_align=rows["count_align"])

    def ct(self, v) -> str:
        """The C++ element type of value ``v``: ``T`` or its own."""
        dt = v.type.dtype
        is_t = dt == self.T if self.t_names is None else v.name in self.t_names
        return "T" if is_t else ctype(dt)

    def kind(self, v) -> str | None:
        if isinstance(v.type, ScalarType):
            return "scalar"
        dims = v.type.shape.dims
        if len(dims) == 1:
            return COL
        return PERROW if dims[-1] == 1 else ROW

    def view(self, v) -> str:
        op = v.owner
        buf = op.attrs.get("buf")
        if buf is None and op.attrs.get("reg"):
            return self.use(v)
        if buf is None:
            raise CompileError(f"value %{v.name} has no UB buffer", op.loc)
        ct = self.ct(v)
        key = (buf, ct)
        if key not in self.e.views:
            self.e.views[key] = f"{buf}{VIEW_SUFFIX.get(ct, 'U')}"
            self.ctx.view_types[self.e.views[key]] = ct
        name = self.e.views[key]
        if self.e.buffers[buf]["kind"] == "col":
            self.e.col_views.add(key)
        return name

    def use(self, v) -> str:
        """A value's name in the VF (its register): a loaded input's, a stored output's, else the
        IR value's, made unique."""
        if id(v) not in self.regs:
            op = v.owner
            if op.opname == "dma.load":
                base = camel(op.operands[0].name)
            elif id(v) in self.ctx.stored:
                base = camel(self.ctx.stored[id(v)][0])
            else:
                base = camel(v.name) if not v.name[0].isdigit() else f"t{v.name}"
            name, k = base, 1
            while name in self.regs.values():
                name, k = f"{base}{k}", k + 1
            self.regs[id(v)] = name
        return self.regs[id(v)]

    def vector_function(self, ops: list) -> list[str]:
        """RegBase (ascend950): the half tile's vector ops as one row VF (form-vector-functions'
        marks), the row kernels' writer with the tile's columns and PITCH."""
        vops = [row_vec_op(self.ctx, op) for op in ops]
        needs = self.ctx.needs
        needs.uses_mean |= any(v.op.opname == "reduce" and v.op.attrs.get("kind") == "mean" for v in vops)
        sts = self.reg.flat.vector_function(vops, self.ctx, EpiVfWriter, "half tile")
        return [self.note(st) for st in sts]

    def operand(self, v, per_row: bool) -> Operand:
        if isinstance(v.type, ScalarType):
            return Operand("", v.type.dtype, Form.SCALAR, value=v)
        k = self.kind(v)
        form = Form.COLUMN if k == COL else Form.ROW if per_row else Form.TILE
        if k == PERROW:
            form = Form.BLOCKS if v.owner.opname == "vec.brcb" else Form.PER_ROW
        return Operand(self.view(v), v.type.dtype, form, self.ct(v), v.owner.attrs.get("buf"))

    def vec(self, op, in_cols: bool) -> list[str]:
        kinds = [self.kind(a) for a in op.operands]
        rk = self.kind(op.result)
        per_row = rk == ROW and COL in kinds
        if in_cols or rk == COL:  # Compare/Select: whole repeats (the column buffers hold COL_LEN)
            extent = Extent("curN", "curNAligned" if self.e.count_align > 1 else "curN", family="rows")
        elif per_row:
            extent = Extent("curN", "curN", rows="rows", pitch="PITCH", family="rows")
        elif rk == PERROW:  # the per-row slots of the step's rows, PER_ROW lanes each
            whole = "perRowAligned" if self.e.count_align > 1 else "rows * PER_ROW"
            extent = Extent("rows * PER_ROW", whole, pitch="PITCH", family="rows")
        else:
            extent = Extent("n", "nAligned", pitch="PITCH", family="rows")
        form = Form.COLUMN if rk == COL else Form.ROW if per_row else Form.TILE
        if rk == PERROW:
            form = Form.PER_ROW
        dst = Operand(
            self.view(op.result),
            op.result.type.dtype,
            form,
            self.ct(op.result),
            op.attrs.get("buf"),
        )
        srcs = [self.operand(a, per_row) for a in op.operands]
        if rk == ROW and any(x.form is Form.PER_ROW for x in srcs):
            raise CompileError(
                f"'{op.opname}' reads a per-row ([M, 1]) value with the scalar unit, which the matmul "
                "epilogue does not do yet (a float row times/plus/minus a per-row value works)",
                op.loc,
            )
        vop = VecOp(op, dst, srcs, extent)
        st = self.vc.op(vop, self.ctx)
        rest = dataclasses.replace(
            self.ctx.needs, spreads=False, row_ops=set(), row_reduces=set(), uses_mean=False
        )
        if rest != Needs():
            raise CompileError(
                f"'{op.opname}' needs a row-kernel helper, which the matmul epilogue does not have yet",
                op.loc,
            )
        return [self.note(st)]

    @staticmethod
    def note(st: Stmt) -> str:
        tail = [x for x in (st.note, st.dsl and dsl_label(st.dsl)) if x]
        return st.code + (f"  // {'; '.join(tail)}" if tail else "")

    def acc_only(self, op) -> bool:
        """UB mode: a flag that orders only the (gone) copy-in of the product: the cross-core
        flags order the Fixpipe into that buffer instead."""
        bufs = set(op.attrs.get("bufs", []))
        return (
            self.ub_mode
            and op.opname != "sync.barrier"
            and op.attrs["event"] in ("MTE3_MTE2", "MTE2_V", "V_MTE2")
            and bufs <= {self.e.acc_buf}
        )

    @staticmethod
    def sync(op) -> str:
        ev, i = op.attrs["event"], op.attrs["id"]
        idx = "slot" if i == "slot" else str(i)
        fn = "SetFlag" if op.opname == "sync.set" else "WaitFlag"
        return f"{fn}<HardEvent::{ev}>({idx});"

    def gm_read(self, op) -> str:
        src = op.operands[0]
        ct = self.ct(src)
        view = self.view(op.result)
        self.e.positions[op.attrs["buf"]] = "VECIN"
        k = self.kind(op.result)
        pad = f"DataCopyPadExtParams<{ct}>{{false, 0, 0, 0}}"
        if k == COL:
            self.e.inputs[src.name] = (ct, COL)
            return (
                f"DataCopyPad({view}, {camel(src.name)}Gm_[nOff], "
                f"DataCopyExtParams{{1, curN * uint32_t(sizeof({ct})), 0, 0, 0}}, {pad});  // {label(op)}"
            )
        if k == PERROW:
            self.e.inputs[src.name] = (ct, PERROW)
            rows0 = "row0" if self.ub_mode else "row0 + r0"
            return (
                f"DataCopyPad({view}, {camel(src.name)}Gm_[mOff + {rows0}], DataCopyExtParams{{uint16_t(rows), "
                f"uint32_t(sizeof({ct})), 0, PER_ROW * uint32_t(sizeof({ct})) / 32 - 1, 0}}, {pad});"
                f"  // a value per row, PER_ROW apart; {label(op)}"
            )
        gap = f"RowGap<{ct}>(curN)"
        if src.name == self.acc and self.ub_mode:
            return None  # the Fixpipe put the AIV's rows at the buffer's slot, from row 0
        if src.name == self.acc:
            return (
                f"DataCopyPad({view}, wsGm_[wsAt + (row0 + r0) * curN], "
                f"DataCopyExtParams{{uint16_t(rows), curN * uint32_t(sizeof({ct})), 0, {gap}, 0}}, {pad});"
                f"  // the tile's rows from the workspace; {label(op)}"
            )
        self.e.inputs[src.name] = (ct, ROW)
        return (
            f"DataCopyPad({view}, {camel(src.name)}Gm_[gmAt], DataCopyExtParams{{uint16_t(rows), "
            f"curN * uint32_t(sizeof({ct})), (n_ - curN) * uint32_t(sizeof({ct})), {gap}, 0}}, {pad});"
            f"  // {label(op)}"
        )

    def gm_write(self, op) -> str:
        v = op.operands[0]
        ct = self.ct(v)
        name = op.attrs["output"]
        self.e.outputs[name] = ct
        self.e.positions.setdefault(v.owner.attrs["buf"], "VECOUT")
        if self.kind(v) == PERROW:  # the tile holds whole rows: one value a row, PER_ROW apart in UB
            self.e.row_outputs.add(name)
            rows0 = "row0" if self.ub_mode else "row0 + r0"
            return (
                f"DataCopyPad({camel(name)}Gm_[mOff + {rows0}], {self.view(v)}, DataCopyExtParams{{uint16_t(rows), "
                f"uint32_t(sizeof({ct})), PER_ROW * uint32_t(sizeof({ct})) / 32 - 1, 0, 0}});"
                f"  // a value per row; {label(op)}"
            )
        return (
            f"DataCopyPad({camel(name)}Gm_[gmAt], {self.view(v)}, DataCopyExtParams{{uint16_t(rows), "
            f"curN * uint32_t(sizeof({ct})), RowGap<{ct}>(curN), (n_ - curN) * uint32_t(sizeof({ct})), 0}});"
            f"  // {label(op)}"
        )

    def scalar(self, op) -> None:
        """A scalar computed once per core (Init): a Scalar input's value, its f32 widening, an
        attribute from the tiling data, or arithmetic on those."""
        t, name = op.result.type, op.opname
        members = self.ctx.members

        def arg(v) -> str:
            if v.owner is not None and v.owner.opname == "const":
                return typed_literal(v.owner.attrs["value"], v.type.dtype)
            return members[id(v)]

        if name == "scalar.load":
            p = op.operands[0]
            self.e.scalar_inputs[p.name] = self.ct(p)
            expr = f"LoadScalar<{self.ct(p)}>(params.{gm_param(p.name)})"
        elif name == "attr":
            expr = f"static_cast<{ctype(t.dtype)}>(tiling.{field_name(op.attrs['name'])})"
        else:
            expr = scalar_expression(op, [arg(v) for v in op.operands])
            if expr is None:
                raise CompileError(f"'{name}' on scalars is not supported in a matmul epilogue yet", op.loc)
            self.e.widen |= "ToF32(" in expr
        member = f"s{camel(op.result.name)}_"
        members[id(op.result)] = member
        self.e.scalars.append((member, self.ct(op.result), expr, label(op)))

    def col_barrier(self, op, written: set, read: set) -> list[str]:
        """The V barrier before a column op (reloaded and recomputed per tile, before the rows'
        ops) that reads a buffer an earlier one wrote, or writes one an earlier one used, since
        the last barrier; ``written``/``read`` track those buffers."""
        reads = {a.owner.attrs["buf"] for a in op.operands if a.owner is not None and "buf" in a.owner.attrs}
        out = []
        if reads & written or op.attrs.get("buf") in written | read:
            out = [self.note(st) for st in self.vc.barrier(where(op))]
            written.clear()
            read.clear()
        written.add(op.attrs.get("buf"))
        read.update(reads)
        return out

    def render(self) -> Epilogue:
        func, e = self.func, self.e
        loop = func.loop()
        if loop is None:
            raise CompileError("the matmul epilogue has no tile loop", func.loc)
        at = func.body.index(loop)
        for op in loop.region:
            if op.opname == "dma.load" and op.operands[0].name == self.acc:
                e.acc_buf = op.attrs["buf"]
            if op.opname == "dma.store":
                self.ctx.stored.setdefault(id(op.operands[0]), []).append(op.attrs["output"])
        vf = [op for op in loop.region if "vf" in op.attrs]
        written, read = set(), set()  # the column math's buffers since its last V barrier
        for op in func.body[:at]:
            if op.opname == "const" or op.opname == "sync.barrier":
                continue  # the column math is per tile: its V order is the one col_barrier makes
            if op.opname.startswith("sync."):
                if not self.acc_only(op):
                    e.pre.append(self.sync(op))
            elif op.opname == "dma.load":
                e.cols.append(self.gm_read(op))
            elif isinstance(op.result.type, TensorType):
                e.cols += self.col_barrier(op, written, read)
                e.cols += self.vec(op, True)
            else:
                self.scalar(op)
        if written:  # the rows' ops read the columns
            e.cols += [self.note(st) for st in self.vc.barrier(note="the rows' ops read the columns")]
        for op in loop.region:
            if "vf" in op.attrs:
                if op is vf[0]:
                    e.body += self.vector_function(vf)
                continue
            if op.opname.startswith("sync."):
                if op.opname == "sync.barrier":
                    e.body += [self.note(s) for s in self.vc.barrier(where(op))]
                elif not self.acc_only(op):
                    e.body.append(self.sync(op))
            elif op.opname == "dma.load":
                if self.kind(op.result) not in (ROW, PERROW):
                    raise CompileError(
                        f"input '{op.operands[0].name}' ({op.operands[0].type}) is neither [M, N], [M, 1] "
                        "nor [N]: the matmul epilogue reads only those",
                        op.loc,
                    )
                line = self.gm_read(op)
                if line is not None:
                    e.body.append(line)
            elif op.opname == "dma.store":
                kind = self.kind(op.operands[0])
                if kind not in (ROW, PERROW) or (
                    kind == PERROW and not func.attributes["cube"].get("full_row")
                ):
                    raise CompileError(
                        f"output '{op.attrs['output']}' is {op.operands[0].type}: a matmul epilogue stores [M, N] "
                        "outputs, and [M, 1] ones of a tile that holds whole rows (a reduction along N)",
                        op.loc,
                    )
                e.body.append(self.gm_write(op))
            elif op.opname in ("vec.brc", "welford.var"):
                raise CompileError(
                    f"'{op.opname}' (a per-row value over whole rows, or a Welford variance) is not supported "
                    "in a matmul epilogue yet",
                    op.loc,
                )
            else:
                e.body += self.vec(op, False)
        for op in func.body[at + 1 :]:
            if op.opname.startswith("sync.") and not self.acc_only(op):
                e.post.append(self.sync(op))
        e.scratch = bool(func.attributes["rows"].get("scratch"))
        if (e.scratch or self.ctx.needs.row_reduces) and not func.attributes["cube"].get("full_row"):
            raise CompileError(
                "a reduction along N needs the whole row in one cube tile (full_row)", func.loc
            )
        e.needs = self.ctx.needs
        return e


def epilogue_plan(func: Func, e: Epilogue, target) -> dict:
    """The AIV's UB plan from the row passes' buffers (bytes per element x slots, per row of
    PITCH = base_n rounded to the narrowest row value's 32 bytes): rows per step ``chunk`` from
    the UB left after the columns. 910B reads the workspace in chunks of its own; on 950 the
    Fixpipe writes a whole half tile (base_m / 2 rows), so base_m shrinks (16-row steps) until
    that half fits."""
    cube = func.attributes["cube"]
    align = func.attributes["rows"]["align"]
    pitch = -(-cube["base_n"] // align) * align
    if any(b["kind"] not in ("row", "col", "perrow") for b in e.buffers.values()):
        raise CompileError("a matmul epilogue takes row, per-row and column buffers only", func.loc)
    per_row = func.attributes["rows"]["perrow"]
    col_len = -(-pitch // e.count_align) * e.count_align  # a compared column's whole repeats
    col_bytes = sum(b["bytes"] for b in e.buffers.values() if b["kind"] == "col") * col_len
    col_bytes += scratch_len(cube["base_n"]) * 4 if e.scratch else 0
    if e.count_align > 1:  # a compared per-row buffer's whole repeats past its CHUNK_ROWS * PER_ROW
        col_bytes += (
            sum(b["bytes"] * b["slots"] for b in e.buffers.values() if b["kind"] == "perrow") * e.count_align
        )
    row_bytes = sum(b["bytes"] * b["slots"] for b in e.buffers.values() if b["kind"] == "row") * pitch
    row_bytes += sum(b["bytes"] * b["slots"] for b in e.buffers.values() if b["kind"] == "perrow") * per_row
    fit = (target.ub_usable_bytes - col_bytes) // max(row_bytes, 1)
    base_m = cube["base_m"]
    if target.name == "ascend950":
        base_m = min(base_m, 2 * fit // 16 * 16)
        if base_m < 16:
            raise CompileError(
                f"the matmul epilogue needs {col_bytes + 8 * row_bytes} bytes of UB for 8 rows of "
                f"{cube['base_n']} columns (half a 16-row tile); the target has {target.ub_usable_bytes}",
                func.loc,
            )
    chunk = min((base_m + 1) // 2, fit)
    if chunk < 1:
        raise CompileError(
            f"the matmul epilogue needs {col_bytes + row_bytes} bytes of UB for one row of {cube['base_n']} "
            f"columns; the target has {target.ub_usable_bytes}",
            func.loc,
        )
    return {
        "pitch": pitch,
        "chunk": chunk,
        "align": align,
        "base_m": base_m,
        "per_row": per_row,
        "col_len": col_len,
    }


def scratch_len(base_n: int) -> int:
    """ReduceRows' f32 scratch for rows of ``base_n``: block values and the final reduction's
    work area (``SCRATCH_FLOATS``), which starts in the other UB bank groups (``WORK_PAD``)."""
    return scratch_floats(base_n) + WORK_PAD


def direct_output(func: Func) -> str | None:
    """The output an identity epilogue stores (``return x @ w`` in f32/i32): the AIC's Fixpipe
    writes it straight from L0C, no workspace and no vector core (``__mix__(1, 0)``); else None
    (also where another static-attribute key needs the vector cores: ``via_epilogue``, the rows
    then go through the epilogue, one kernel for every key)."""
    if func.attributes.get("via_epilogue"):
        return None
    loop = func.loop()
    work = [op for op in loop.region if not op.opname.startswith("sync.")]
    acc = func.attributes["cube"]["acc"]
    if len(work) != 2 or work[0].opname != "dma.load" or work[1].opname != "dma.store":
        return None
    if work[0].operands[0].name != acc or work[1].operands[0] is not work[0].result:
        return None
    return work[1].attrs["output"]


def used_ids(func: Func, event: str) -> set[int]:
    ids = set()
    for op in func.walk():
        if op.opname in ("sync.set", "sync.wait") and op.attrs["event"] == event:
            i = op.attrs["id"]
            ids |= {0, 1} if i == "slot" else {int(i)}
    return ids


def cube_kernel(
    plan,
    funcs: dict,
    target,
    header: str,
    inputs: list[str],
    outputs: list[str],
    td: str,
    carrier: str | None,
    keyed: dict | None = None,
    vf_form: str | None = None,
) -> str:
    """op_kernel/<op>.cpp of a matmul operator: ``funcs`` dtype -> final function (split-cube-vector +
    the row passes); ``inputs``/``outputs``: the kernel's GM arguments in OpDef order. ``keyed``
    (static attributes): tiling key -> such a ``funcs``; each key's constants, helpers and class go
    in a namespace ``key<K>`` and the entry picks one with ``TILING_KEY_IS``."""
    if keyed is not None and len(keyed) > 1:

        def render(fs: dict, part: str) -> str:
            return _cube_kernel(
                plan, fs, target, header, inputs, outputs, td, carrier, part=part, vf_form=vf_form
            )

        parts = {k: render(fs, "body") for k, fs in sorted(keyed.items())}
        w = CodeWriter()
        w.lines += render(keyed[min(keyed)], "prelude").rstrip("\n").split("\n")
        for k, text in parts.items():
            w.line(f"namespace key{k} {{", "the static attributes' key " + str(k))
            w.lines += text.rstrip("\n").split("\n")
            w.line(f"}}  // namespace key{k}")
            w.line()
        first = keyed[min(keyed)][plan.dtypes[0]]
        direct = direct_output(first)
        T = ctype(plan.dtypes[0])
        names = ", ".join(gm_param(n) for n in inputs + outputs)
        sig = ", ".join(f"GM_ADDR {gm_param(n)}" for n in inputs + outputs)
        with w.block(
            f'extern "C" __global__ __mix__(1, {0 if direct else 2}) void {plan.op_name}({sig}, '
            "GM_ADDR workspace, GM_ADDR tiling)"
        ):
            w.line("GET_TILING_DATA(tilingData, tiling);")
            for i, k in enumerate(sorted(keyed)):
                head = ("if" if i == 0 else "} else if") + f" (TILING_KEY_IS({k})) {{"
                w.line(head)
                w.level += 1
                w.line(f"key{k}::Kernel{plan.op_type}<{f'DTYPE_{carrier.upper()}' if carrier else T}> op;")
                w.line(f"op.Init({names}, workspace, tilingData);")
                with w.block("if ASCEND_IS_AIC"):
                    w.line("op.ProcessAic();")
                if not direct:
                    with w.block("if ASCEND_IS_AIV"):
                        w.line("op.ProcessAiv();")
                w.level -= 1
            w.line("}")
        return w.text()
    return _cube_kernel(plan, funcs, target, header, inputs, outputs, td, carrier, vf_form=vf_form)


def _cube_kernel(
    plan,
    funcs: dict,
    target,
    header: str,
    inputs: list[str],
    outputs: list[str],
    td: str,
    carrier: str | None,
    part: str = "all",
    vf_form: str | None = None,
) -> str:
    """The kernel text (``part`` "all"), or its head (includes, "prelude") or one key's
    constants, helpers and class ("body")."""
    first = funcs[plan.dtypes[0]]
    cube = first.attributes["cube"]
    eps, t_names = {}, t_values(funcs)
    for dt, f in funcs.items():
        eps[dt] = EpilogueRenderer(f, dt, target, plan.cann, vf_form, t_names).render()
    e = eps[plan.dtypes[0]]
    for dt, other in eps.items():
        if (other.pre, other.cols, other.body, other.post, other.buffers, list(other.needs.vfs.values())) != (
            e.pre,
            e.cols,
            e.body,
            e.post,
            e.buffers,
            list(e.needs.vfs.values()),
        ):

            def work(f):
                return [o for o in f.walk() if o.opname != "const" and not o.opname.startswith("sync.")]

            here, there = next(
                ((x, y) for x, y in zip(work(first), work(funcs[dt])) if x.opname != y.opname), (None, None)
            )
            what = f" from here on ('{here.opname}' for {first.attributes['dtype'].name}, '{there.opname}' for {dt.name})"
            raise CompileError(
                f"the epilogue of {plan.op_name} differs between dtypes {plan.dtypes[0].name} and {dt.name}"
                f"{what if here is not None else ''}: the matmul kernel has one epilogue text for every dtype, "
                "so an epilogue whose instructions depend on T (a cast of i32 to bf16 rounds twice, to f16 once) "
                "is not supported yet",
                here.loc if here is not None and here.loc is not None else first.loc,
            )
    vfs = {}
    for placeholder, fn in e.needs.vfs.items():  # the f16 and bf16 VFs are one text (``T``)
        name = f"{plan.op_type}VF" + (str(len(vfs)) if len(e.needs.vfs) > 1 else "")
        vfs[name] = fn
        e.body = [line.replace(placeholder, name) for line in e.body]
    ep = epilogue_plan(first, e, target)
    pitch, chunk, align, base_m = ep["pitch"], ep["chunk"], ep["align"], ep["base_m"]
    ub_mode = target.name == "ascend950"
    col_ids = sorted({0, 1, 2, 3, 4, 5} - used_ids(first, "V_MTE2") - used_ids(first, "MTE2_V"))
    if e.cols and not col_ids:
        raise CompileError("no event id left for the epilogue's column reload", first.loc)
    cid = col_ids[0] if col_ids else 0
    T = ctype(plan.dtypes[0])  # the entry passes DTYPE_<carrier>
    pinned = all(f.attributes["cube"]["operand"] != dt.name for dt, f in funcs.items())
    A = ctype(dtype_from_name(cube["operand"])) if pinned else "T"  # the operands' C++ type
    acc_ct = "int32_t" if cube["operand"] == "i8" else "float"
    a, b, bt = cube["a"], cube["b"], cube["transpose_b"]
    cls = f"Kernel{plan.op_type}"
    direct = direct_output(first)
    w = CodeWriter()
    if part in ("all", "prelude"):
        for line in header.splitlines():
            w.line(comment=line)
        w.line(comment="")
        for line in (__doc__ or "").split("\n\n")[0].splitlines():
            w.line(comment=line.strip())
        if not direct:
            w.line(
                comment=f"{target.name}: "
                + (
                    "the AIC's Fixpipe writes the tile's f32 rows split over M into its two AIVs' UB."
                    if ub_mode
                    else "the AIC's Fixpipe writes the tile's f32 rows to a GM workspace the AIVs read."
                )
            )
        if direct:
            w.line(
                comment=f"Here the epilogue is the identity: Fixpipe writes {direct} from L0C, __mix__(1, 0)."
            )
        w.line('#include "kernel_operator.h"')
        w.line("using namespace AscendC;")
        w.line()
        if carrier is not None:
            w.line(
                f"#ifndef DTYPE_{carrier.upper()}",
                "CANN's per-dtype build defines it; other builds (a syntax check) take the first",
            )
            w.line(f"#define DTYPE_{carrier.upper()} {T}")
            w.line("#endif")
            w.line()
    if part == "prelude":
        return w.text()
    if not direct:
        w.line(
            f"constexpr uint16_t AIC_TO_AIV = {AIC_TO_AIV};", "cross-core flag: a tile is in the workspace"
        )
        w.line(f"constexpr uint16_t AIV_TO_AIC = {AIV_TO_AIC};", "cross-core flag: both AIVs have read it")
    w.line("constexpr uint32_t CUBE = 16;", "fractal edge")
    w.line(f"constexpr uint32_t BASE_M = {base_m};", "split-cube-vector: L0C tile (2 slots)")
    w.line(f"constexpr uint32_t BASE_N = {cube['base_n']};")
    w.line(f"constexpr uint32_t BASE_K = {cube['base_k']};", "L0A/L0B slice (2 slots each)")
    w.line(f"constexpr uint32_t STEP_K = {cube['step_k']};", "base_k slices per L1 load (2 slots)")
    if ub_mode and not direct:
        w.line("constexpr FixpipeConfig CFG_UB = {CO2Layout::ROW_MAJOR, true};", "Fixpipe into UB")
    if not direct:
        w.line(
            f"constexpr uint32_t PITCH = {pitch};", f"UB row pitch: BASE_N rounded to {align} elements (32 B)"
        )
        w.line(f"constexpr uint32_t CHUNK_ROWS = {chunk};", "epilogue rows per step, from the UB left")
        if ep["col_len"] != pitch and any(b["kind"] == "col" for b in e.buffers.values()):
            w.line(
                f"constexpr uint32_t COL_LEN = {ep['col_len']};",
                f"a column buffer: PITCH rounded to whole compares ({e.count_align} elements)",
            )
    if e.per_row and not direct:
        w.line(
            f"constexpr uint32_t PER_ROW = {ep['per_row']};",
            "elements of a per-row ([M, 1]) value's slot per row (32 B)",
        )
    if e.scratch and not direct:
        w.line(
            f"constexpr uint32_t SCRATCH_LEN = {scratch_len(cube['base_n'])};",
            "f32 reduction scratch of a BASE_N row (ReduceRows' levels)",
        )
    for buf, info in sorted(e.buffers.items()) if not direct else ():
        col = "PITCH" if ep["col_len"] == pitch else "COL_LEN"
        ca = e.count_align
        perrow = "CHUNK_ROWS * PER_ROW" if ca == 1 else f"(CHUNK_ROWS * PER_ROW + {ca - 1}) / {ca} * {ca}"
        n = {"col": col, "perrow": f"({perrow})" if ca > 1 else perrow}.get(
            info["kind"], "CHUNK_ROWS * PITCH"
        )
        w.line(
            f"constexpr uint32_t {buf.upper()}_SLOT = {n} * {info['bytes']};", f"bytes of one slot of {buf}"
        )
    if ub_mode and not direct:
        w.line(f"constexpr uint32_t ACC_SLOT = {e.acc_buf.upper()}_SLOT;", "the Fixpipe's UB slot (bytes)")
    w.line()
    w.line("__aicore__ inline uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }")
    w.line("__aicore__ inline uint32_t Ceil16(uint32_t x) { return (x + CUBE - 1) / CUBE * CUBE; }")
    if e.scalar_inputs:
        load_scalar_helper(w)
    if e.widen:
        to_f32_helper(w, plan.cann)
    RegBase(target, plan.cann).helpers(w, [e.needs], "free")
    if not direct:
        w.line(comment="32-byte blocks between rows of PITCH elements in UB, a row of n elements copied")
        w.line("template <typename U>")
        with w.block("__aicore__ inline uint32_t RowGap(uint32_t n)"):
            w.line("return (PITCH * sizeof(U) - (n * sizeof(U) + 31) / 32 * 32) / 32;")
    w.line()
    args = [f"GM_ADDR {gm_param(n)}" for n in inputs + outputs]
    epi = None if direct else f"{plan.op_type}Epilogue"
    if epi:
        _epilogue_class(w, epi, e, acc_ct, cid, ub_mode, td, target, vfs)
    w.line("template <typename T>")
    with w.block(f"class {cls}", "};"):
        w.level -= 1
        w.line("public:")
        w.level += 1
        with w.block(
            f"__aicore__ inline void Init({', '.join(args)}, GM_ADDR workspace, const {td}& tiling)"
        ):
            w.line("m_ = tiling.m, n_ = tiling.n, k_ = tiling.k;")
            w.line("baseM_ = tiling.baseM, baseN_ = tiling.baseN, tilesN_ = tiling.tilesN;")
            w.line("tiles_ = tiling.tilesM * tiling.tilesN;")
            w.line(f"{camel(a)}Gm_.SetGlobalBuffer((__gm__ {A}*){gm_param(a)}, uint64_t(m_) * k_);")
            w.line(f"{camel(b)}Gm_.SetGlobalBuffer((__gm__ {A}*){gm_param(b)}, uint64_t(k_) * n_);")
            if direct:
                w.line(
                    f"{camel(direct)}Gm_.SetGlobalBuffer((__gm__ {acc_ct}*){gm_param(direct)}, uint64_t(m_) * n_);"
                )
            for name in inputs:
                if name not in (a, b) and name not in e.inputs and name not in e.scalar_inputs:
                    w.line(f"(void){gm_param(name)};", "an input this key's epilogue does not read")
            for name in outputs:
                if name != direct and name not in e.outputs:
                    w.line(f"(void){gm_param(name)};", "an output absent under this key's attributes")
            w.line("block_ = ASCEND_IS_AIC ? GetBlockIdx() : GetBlockIdx() / GetTaskRatio();")
            if direct or ub_mode:
                why = "the AIC writes the output from L0C" if direct else "the product goes L0C -> UB"
                w.line("(void)workspace;", f"no user workspace: {why}")
            else:
                w.line(
                    f"__gm__ {acc_ct}* ws = (__gm__ {acc_ct}*)GetUserWorkspace(workspace) + "
                    f"uint64_t(block_) * {WS_SLOTS} * BASE_M * BASE_N;",
                    f"{WS_SLOTS} f32 tiles per AI Core",
                )
                w.line(
                    f"wsGm_.SetGlobalBuffer(ws, {WS_SLOTS} * BASE_M * BASE_N);", "the AIC's Fixpipe writes it"
                )
            if epi:
                fields = _epilogue_params(e, ub_mode)
                vals = [
                    "(GM_ADDR)ws" if f == "workspace" else "&tiling" if f == "tiling" else f for f in fields
                ]
                w.line(f"typename {epi}<T>::Params params{{{', '.join(vals)}}};")
                w.line(
                    "epilogue_.Init(params, tiling.baseM, tiling.baseN, ProblemShape{m_, n_, k_, 1});",
                    "both cores: the AIC takes its UB tensor (GetTensor)" if ub_mode else None,
                )
        w.line()
        w.line(comment="Output tile t: row block t / tilesN; serpentine: odd row blocks walk N backwards.")
        with w.block(
            "__aicore__ inline void TileAt(uint32_t t, uint32_t& mOff, uint32_t& nOff, uint32_t& curM, "
            "uint32_t& curN) const"
        ):
            w.line("const uint32_t mb = t / tilesN_;")
            w.line("uint32_t nb = t % tilesN_;")
            w.line("if (mb % 2 == 1) nb = tilesN_ - 1 - nb;")
            w.line("mOff = mb * baseM_, nOff = nb * baseN_;")
            w.line("curM = Min(baseM_, m_ - mOff), curN = Min(baseN_, n_ - nOff);")
        w.line()
        _aic(w, cube, A, acc_ct, a, b, bt, td, direct, ub_mode and not direct, ub_mode)
        if not direct:
            w.line()
            _aiv(w, ub_mode, bool(e.post or e.cols))
        w.level -= 1
        w.line("private:")
        w.level += 1
        w.line(f"GlobalTensor<{A}> {camel(a)}Gm_, {camel(b)}Gm_;")
        if direct:
            w.line(f"GlobalTensor<{acc_ct}> {camel(direct)}Gm_;")
        elif not ub_mode:
            w.line(f"GlobalTensor<{acc_ct}> wsGm_;", "the AIC's Fixpipe destination")
        if epi:
            w.line(f"{epi}<T> epilogue_;")
        w.line(
            "uint32_t m_ = 0, n_ = 0, k_ = 0, baseM_ = 0, baseN_ = 0, tilesN_ = 0, tiles_ = 0, block_ = 0;"
        )
    w.line()
    if part == "body":
        return w.text()
    names = ", ".join(gm_param(n) for n in inputs + outputs)
    with w.block(
        f'extern "C" __global__ __mix__(1, {0 if direct else 2}) void {plan.op_name}({", ".join(args)}, '
        "GM_ADDR workspace, GM_ADDR tiling)"
    ):
        w.line("GET_TILING_DATA(tilingData, tiling);")
        w.line(f"{cls}<{f'DTYPE_{carrier.upper()}' if carrier else T}> op;")
        w.line(f"op.Init({names}, workspace, tilingData);")
        with w.block("if ASCEND_IS_AIC"):
            w.line("op.ProcessAic();")
        if not direct:
            with w.block("if ASCEND_IS_AIV"):
                w.line("op.ProcessAiv();")
    return w.text()


def _aic(
    w: CodeWriter, cube: dict, A: str, acc: str, a: str, b: str, bt: bool, td: str, direct, ub=False, v2=False
) -> None:
    """``ub`` (950): Fixpipe L0C -> the AIVs' UB split over M, mode-4 cross-core flags; ``v2``
    (arch 3510): L1 -> L0A/L0B with LoadData2DParamsV2 (L0A is NZ there)."""
    GA, GB = f"{camel(a)}Gm_", f"{camel(b)}Gm_"
    # int8 B as [K, N]: LoadDataWithTranspose turns 32 x 32 squares of its NZ (two 16 x 32
    # fractals, K padded to 32 in L1) into L0B's ZN fractals (arch 3510: LoadData2dTransposeParamsV2,
    # in fractals); a square spans two 16-column blocks, so L0B and the Mmad take N rounded up to 32
    # (ND2NZ's zero columns).
    sq = cube["operand"] == "i8" and not bt
    with w.block("__aicore__ inline void ProcessAic()"):
        w.line("LocalMemAllocator<Hardware::L1> l1;")
        w.line("LocalMemAllocator<Hardware::L0A> l0a;")
        w.line("LocalMemAllocator<Hardware::L0B> l0b;")
        w.line("LocalMemAllocator<Hardware::L0C> l0c;")
        w.line(f"LocalTensor<{A}> aL1[2], bL1[2], aL0[2], bL0[2];")
        w.line(f"LocalTensor<{acc}> cL0[2];")
        with w.block("for (int s = 0; s < 2; s++)"):
            w.line(f"aL1[s] = l1.Alloc<{A}>(BASE_M * STEP_K * BASE_K);")
            w.line(f"bL1[s] = l1.Alloc<{A}>(STEP_K * BASE_K * BASE_N);")
        with w.block("for (int s = 0; s < 2; s++)"):
            w.line(f"aL0[s] = l0a.Alloc<{A}>(BASE_M * BASE_K);")
            w.line(f"bL0[s] = l0b.Alloc<{A}>(BASE_K * BASE_N);")
            w.line(f"cL0[s] = l0c.Alloc<{acc}>(BASE_M * BASE_N);")
        if ub:
            w.line(
                f"const LocalTensor<{acc}> accUb = epilogue_.GetTensor();",
                "the AIVs' UB from offset 0 (two slots): where their epilogue reads the rows",
            )
        with w.block("for (int s = 0; s < 2; s++)", "}"):
            w.line("SetFlag<HardEvent::MTE1_MTE2>(s);", "pre-issued: L1 slot s is free")
            w.line("SetFlag<HardEvent::M_MTE1>(s);", "L0A/L0B slot s is free")
            w.line("SetFlag<HardEvent::FIX_M>(s);", "L0C slot s is free")
        w.line("const uint32_t kL1 = STEP_K * BASE_K;")
        w.line(f"constexpr uint32_t C0 = 32 / sizeof({A});", "elements of a fractal row (K per 32 B)")
        w.line("uint32_t l1Step = 0, l0Step = 0, count = 0;")
        with w.block("for (uint32_t t = block_; t < tiles_; t += GetBlockNum(), count++)"):
            w.line("uint32_t mOff, nOff, curM, curN;")
            w.line("TileAt(t, mOff, nOff, curM, curN);")
            if sq:
                w.line(
                    "static_assert(BASE_N % (2 * CUBE) == 0 && BASE_K % (2 * CUBE) == 0, "
                    '"int8 b [K, N]: whole 32 x 32 squares in L0B");'
                )
                w.line(
                    "const uint32_t mb = Ceil16(curM) / CUBE, nb = (curN + 2 * CUBE - 1) / (2 * CUBE) * 2, "
                    "c = count % 2;",
                    "nb: 16-column blocks, N rounded to a 32-column square",
                )
            else:
                w.line("const uint32_t mb = Ceil16(curM) / CUBE, nb = Ceil16(curN) / CUBE, c = count % 2;")
            w.line("WaitFlag<HardEvent::FIX_M>(c);", "L0C slot c drained by its last Fixpipe")
            with w.block("for (uint32_t k1 = 0; k1 < k_; k1 += kL1, l1Step++)"):
                pad = (
                    ""
                    if bt
                    else (
                        ", kL1Pad = (curKL1 + 2 * CUBE - 1) / (2 * CUBE) * (2 * CUBE)"
                        if sq
                        else ", kL1Pad = Ceil16(curKL1)"
                    )
                )
                w.line(f"const uint32_t curKL1 = Min(kL1, k_ - k1){pad}, s = l1Step % 2;")
                w.line("WaitFlag<HardEvent::MTE1_MTE2>(s);")
                w.line(
                    f"DataCopy(aL1[s], {GA}[uint64_t(mOff) * k_ + k1], Nd2NzParams{{1, uint16_t(curM), "
                    "uint16_t(curKL1), 0, uint16_t(k_), uint16_t(Ceil16(curM)), 1, 0});",
                    f"{a} [curM, curKL1] ND -> NZ",
                )
                if bt:
                    w.line(
                        f"DataCopy(bL1[s], {GB}[uint64_t(nOff) * k_ + k1], Nd2NzParams{{1, uint16_t(curN), "
                        "uint16_t(curKL1), 0, uint16_t(k_), uint16_t(Ceil16(curN)), 1, 0});",
                        f"{b} [curN, curKL1] ND -> NZ (B's ZN)",
                    )
                else:
                    w.line(
                        f"DataCopy(bL1[s], {GB}[uint64_t(k1) * n_ + nOff], Nd2NzParams{{1, uint16_t(curKL1), "
                        "uint16_t(curN), 0, uint16_t(n_), uint16_t(kL1Pad), 1, 0});",
                        f"{b} [curKL1, curN] ND -> NZ",
                    )
                w.line("SetFlag<HardEvent::MTE2_MTE1>(s);")
                w.line("WaitFlag<HardEvent::MTE2_MTE1>(s);")
                with w.block("for (uint32_t k0 = 0; k0 < curKL1; k0 += BASE_K, l0Step++)"):
                    w.line(
                        "const uint32_t curK = Min(BASE_K, curKL1 - k0), kb = (curK + C0 - 1) / C0, "
                        "kb0 = k0 / C0, p = l0Step % 2;"
                    )
                    w.line("WaitFlag<HardEvent::M_MTE1>(p);")
                    if v2:
                        w.line(
                            "LoadData(aL0[p], aL1[s], LoadData2DParamsV2{0, uint16_t(kb0), uint16_t(mb), "
                            "uint16_t(kb), int32_t(mb), uint16_t(mb), false, 0});",
                            "NZ -> NZ (3510 L0A): the slice's fractal columns",
                        )
                        if bt:
                            w.line(
                                "LoadData(bL0[p], bL1[s], LoadData2DParamsV2{0, uint16_t(kb0), uint16_t(nb), "
                                "uint16_t(kb), int32_t(nb), uint16_t(nb), false, 0});",
                                "w's NZ fractals are B's ZN ones: placed, not transposed",
                            )
                        elif sq:
                            w.line(
                                "for (uint32_t i = 0; i < kb; i++) LoadDataWithTranspose(bL0[p][i * nb * CUBE * C0], "
                                "bL1[s][(kb0 + i) * C0 * C0], LoadData2dTransposeParamsV2{0, uint8_t(nb / 2), "
                                "uint16_t(kL1Pad / CUBE), 1, 0, 0});",
                                "NZ 32 x 32 squares (two fractals) -> ZN fractal pairs, a K square row at a time",
                            )
                        else:
                            w.line(
                                "LoadData(bL0[p], bL1[s], LoadData2DParamsV2{uint16_t(kb0), 0, uint16_t(kb), "
                                "uint16_t(nb), int32_t(kL1Pad / CUBE), uint16_t(nb), true, 0});",
                                "NZ -> ZN, each fractal transposed",
                            )
                    else:
                        w.line(
                            "for (uint32_t i = 0; i < mb; i++) LoadData(aL0[p][i * kb * CUBE * C0], "
                            "aL1[s][(kb0 * Ceil16(curM) + i * CUBE) * C0], LoadData2DParams{0, uint8_t(kb), "
                            "uint16_t(mb), 0, 0, false, 0});",
                            "NZ -> ZZ, a row of fractals at a time",
                        )
                    if v2:
                        pass
                    elif bt:
                        w.line(
                            "LoadData(bL0[p], bL1[s][kb0 * Ceil16(curN) * C0], "
                            "LoadData2DParams{0, uint8_t(kb * nb), 1, 0, 0, false, 0});",
                            "w's NZ is B's ZN: one run of fractals",
                        )
                    elif sq:
                        w.line(
                            "for (uint32_t i = 0; i < kb; i++) LoadDataWithTranspose(bL0[p][i * nb * CUBE * C0], "
                            "bL1[s][(kb0 + i) * C0 * C0], LoadData2dTransposeParams{0, uint8_t(nb / 2), "
                            "uint16_t(kL1Pad / C0), 1, 0});",
                            "NZ 32 x 32 squares -> ZN fractal pairs, a K square row at a time",
                        )
                    else:
                        w.line(
                            "for (uint32_t i = 0; i < kb; i++) LoadData(bL0[p][i * nb * CUBE * CUBE], "
                            "bL1[s][(kb0 + i) * CUBE * CUBE], LoadData2DParams{0, uint8_t(nb), "
                            "uint16_t(kL1Pad / CUBE), 0, 0, true, 0});",
                            "NZ -> ZN, each fractal transposed",
                        )
                    w.line("SetFlag<HardEvent::MTE1_M>(p);")
                    w.line("WaitFlag<HardEvent::MTE1_M>(p);")
                    w.line(
                        "Mmad(cL0[c], aL0[p], bL0[p], MmadParams{uint16_t(curM), "
                        + ("uint16_t(nb * CUBE)" if sq else "uint16_t(curN)")
                        + ", uint16_t(curK), 0, false, k1 + k0 == 0});",
                        "the first slice starts C at 0" + (" (N rounded to 32: L0B's squares)" if sq else ""),
                    )
                    w.line("SetFlag<HardEvent::M_MTE1>(p);")
                w.line("SetFlag<HardEvent::MTE1_MTE2>(s);")
            w.line("SetFlag<HardEvent::M_FIX>(c);")
            w.line("WaitFlag<HardEvent::M_FIX>(c);")
            if direct:
                w.line(
                    f"Fixpipe({camel(direct)}Gm_[uint64_t(mOff) * n_ + nOff], cL0[c], FixpipeParamsV220{{uint16_t(curN), "
                    "uint16_t(curM), uint16_t(Ceil16(curM)), n_, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0});",
                    f"NZ -> ND straight into {direct} (row pitch N)",
                )
                w.line("SetFlag<HardEvent::FIX_M>(c);")
            elif ub:
                with w.block(f"if (count >= {WS_SLOTS})", "}"):
                    w.line("CrossCoreWaitFlag<4, PIPE_FIX>(AIV_TO_AIC);", "AIV0 is done with UB slot c")
                    w.line("CrossCoreWaitFlag<4, PIPE_FIX>(AIV_TO_AIC + 16);", "AIV1 too (its ids + 16)")
                w.line(
                    "FixpipeParamsArch3510<CO2Layout::ROW_MAJOR> fix(uint16_t(curN), uint16_t((curM + 1) & ~1u), "
                    "uint16_t(Ceil16(curM)), PITCH);",
                    "M padded to even for the split",
                )
                w.line("fix.dualDstCtl = 1;", "DUAL_DST_SPLIT_M: rows [0, M/2) to AIV0, the rest to AIV1")
                w.line(
                    f"Fixpipe<{acc}, {acc}, CFG_UB>(accUb[c * (ACC_SLOT / sizeof({acc}))], cL0[c], fix);",
                    "f32 rows of PITCH into UB slot c of both AIVs",
                )
                w.line("SetFlag<HardEvent::FIX_M>(c);")
                w.line("CrossCoreSetFlag<4, PIPE_FIX>(AIC_TO_AIV);", "to AIV0: its rows are in UB slot c")
                w.line("CrossCoreSetFlag<4, PIPE_FIX>(AIC_TO_AIV + 16);", "to AIV1")
            else:
                w.line(
                    f"if (count >= {WS_SLOTS}) CrossCoreWaitFlag(AIV_TO_AIC);",
                    "the AIVs have read workspace slot c (two tiles ago)",
                )
                w.line(
                    "Fixpipe(wsGm_[c * baseM_ * baseN_], cL0[c], FixpipeParamsV220{uint16_t(curN), uint16_t(curM), "
                    "uint16_t(Ceil16(curM)), curN, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0});",
                    "f32 NZ -> ND rows of curN",
                )
                w.line("SetFlag<HardEvent::FIX_M>(c);")
                w.line("CrossCoreSetFlag<2, PIPE_FIX>(AIC_TO_AIV);", "to both AIVs: tile in workspace slot c")
        with w.block("for (int s = 0; s < 2; s++)"):
            w.line("WaitFlag<HardEvent::MTE1_MTE2>(s);")
            w.line("WaitFlag<HardEvent::M_MTE1>(s);")
            w.line("WaitFlag<HardEvent::FIX_M>(s);")
        if ub:
            with w.block(f"for (uint32_t i = 0; i < count && i < {WS_SLOTS}; i++)", "}"):
                w.line(
                    "CrossCoreWaitFlag<4, PIPE_FIX>(AIV_TO_AIC);",
                    "drain: the AIVs' answers to the last tiles",
                )
                w.line("CrossCoreWaitFlag<4, PIPE_FIX>(AIV_TO_AIC + 16);")
        elif not direct:
            w.line(
                f"for (uint32_t i = 0; i < count && i < {WS_SLOTS}; i++) CrossCoreWaitFlag(AIV_TO_AIC);",
                "drain: the AIVs' answers to the last tiles",
            )


def _epilogue_params(e: Epilogue, ub: bool) -> list[str]:
    """The fields of the epilogue's Params, in order: the GM addresses it reads and writes, the
    910B workspace (this AI Core's slots) and the tiling data when an attribute is a scalar of it."""
    fields = [gm_param(n) for n in [*e.inputs, *e.scalar_inputs, *e.outputs]]
    if not ub:
        fields.append("workspace")
    if any("tiling." in expr for _, _, expr, _ in e.scalars):
        fields.append("tiling")
    return fields


def _epilogue_class(
    w: CodeWriter, epi: str, e: Epilogue, acc: str, cid: int, ub: bool, td: str, target, vfs: dict
) -> None:
    """The epilogue as a class with seed 004's contract (§2): ``Init(Params, baseM, baseN,
    ProblemShape)`` lays out UB (the product's rows first: offset 0), binds GM and pre-issues the
    reverse events; ``GetTensor()`` is the tensor the tile's rows are in (950: the AIC's Fixpipe
    writes it; 910B: the AIV reads them into it from the workspace); ``operator()(BlockShape,
    gmOffset, flagId)`` runs one tile on this AIV's rows (SplitM, §4); ``Drain()`` waits what Init
    pre-issued. The kernel's AIV loop calls it between its cross-core Wait and Set."""
    w.line(
        comment="A problem's (M, N, K, batch) and a tile's (curM, curN, K, batch): blaze's four-int64 Shape"
    )
    w.line(comment="(AscendC::Shape is the 9.x tensor API; a plain struct is the same on both targets).")
    w.line("struct ProblemShape {")
    w.line("    int64_t m, n, k, batch;")
    w.line("};")
    w.line("using BlockShape = ProblemShape;")
    w.line()
    where_rows = "Fixpipe writes into its UB" if ub else "AIC's Fixpipe writes to the GM workspace"
    w.line(comment=f"The epilogue (seed 004 section 2) of a tile whose f32 rows the {where_rows}:")
    w.line(comment="Init lays out UB and binds GM, operator() runs one tile on this AIV's half of the rows,")
    w.line(comment="Drain waits the reverse events Init pre-issued. The kernel does the cross-core protocol.")
    w.line("template <typename T>")
    fields = _epilogue_params(e, ub)
    with w.block(f"class {epi}", "};"):
        w.level -= 1
        w.line("public:")
        w.level += 1
        with w.block("struct Params", "};"):
            for f in fields:
                if f == "workspace":
                    w.line("GM_ADDR workspace;", "this AI Core's workspace slots")
                elif f == "tiling":
                    w.line(f"const {td}* tiling;", "the attributes")
                else:
                    w.line(f"GM_ADDR {f};")
        w.line()
        with w.block(
            "__aicore__ inline void Init(const Params& params, uint32_t baseM, uint32_t baseN, "
            "const ProblemShape& problem)"
        ):
            w.line("m_ = problem.m, n_ = problem.n;")
            if ub:
                w.line(
                    "(void)baseM, (void)baseN;",
                    "the layout is the compile-time one: ACC_SLOT holds half a BASE_M x PITCH tile",
                )
            else:
                w.line("wsTile_ = baseM * baseN;", "elements of a workspace slot")
            w.line("LocalMemAllocator<Hardware::UB> ub;")
            order = sorted(e.buffers, key=lambda b: (b != e.acc_buf, b)) if ub else sorted(e.buffers)
            for buf in order:  # on 950 the product's buffer first: UB offset 0, where the Fixpipe writes
                pos = e.positions.get(buf, "VECCALC")
                slots = e.buffers[buf]["slots"]
                if ub and buf == e.acc_buf:
                    if slots != 2:
                        raise CompileError(f"the product's UB buffer {buf} has {slots} slots, not 2", None)
                    w.line(
                        f"{buf}_ = ub.Alloc<TPosition::{pos}, uint8_t>(ACC_SLOT * 2);",
                        "offset 0: the Fixpipe's two slots",
                    )
                else:
                    w.line(f"{buf}_ = ub.Alloc<TPosition::{pos}, uint8_t>({buf.upper()}_SLOT * {slots});")
            if e.scratch:
                w.line("scratch_ = ub.Alloc<TPosition::VECCALC, float>(SCRATCH_LEN);", "reductions")
            with w.block("if ASCEND_IS_AIV"):
                for name, (ct, kind) in e.inputs.items():
                    size = {COL: "n_", PERROW: "m_"}.get(kind, "uint64_t(m_) * n_")
                    w.line(
                        f"{camel(name)}Gm_.SetGlobalBuffer((__gm__ {ct}*)params.{gm_param(name)}, {size});"
                    )
                for name, ct in e.outputs.items():
                    size = "m_" if name in e.row_outputs else "uint64_t(m_) * n_"
                    w.line(
                        f"{camel(name)}Gm_.SetGlobalBuffer((__gm__ {ct}*)params.{gm_param(name)}, {size});"
                    )
                if not ub:
                    w.line(f"wsGm_.SetGlobalBuffer((__gm__ {acc}*)params.workspace, {WS_SLOTS} * wsTile_);")
                if "tiling" in fields:
                    w.line(f"const {td}& tiling = *params.tiling;")
                for member, ct, expr, loc in e.scalars:
                    w.line(f"{member} = {expr};", loc)
                if e.needs.uses_mean:
                    w.line("invCols_ = 1.0f / static_cast<float>(n_);", "a tile holds whole rows: curN == N")
                for line in e.pre:
                    w.line(line)
                if e.cols:
                    w.line(f"SetFlag<HardEvent::V_MTE2>({cid});", "pre-issued: the column buffers are free")
        w.line()
        acc_buf = e.acc_buf
        if ub:
            w.line(
                comment="The tile's rows, each AIV's half from offset 0 of a slot: the AIC's Fixpipe destination."
            )
        else:
            w.line(comment="The tile's rows, read from the workspace a chunk at a time into a slot of it.")
        with w.block(f"__aicore__ inline LocalTensor<{acc}> GetTensor() const"):
            w.line(f"return {acc_buf}_.ReinterpretCast<{acc}>();")
        w.line()
        if e.needs.spreads or e.needs.row_ops or e.needs.row_reduces:
            by_value_helpers(w, [e.needs], MemBase(target), pitch="PITCH", scratch="scratch_")
        if vfs:
            write_vector_functions(w, vfs)
            w.line()
        _epilogue_tile(w, e, cid, ub)
        if e.post or e.cols:
            w.line()
            with w.block("__aicore__ inline void Drain()"):
                for line in e.post:
                    w.line(line)
                if e.cols:
                    w.line(f"WaitFlag<HardEvent::V_MTE2>({cid});", "the column buffers' pre-issued event")
        w.level -= 1
        w.line("private:")
        w.level += 1
        w.line(f"LocalTensor<uint8_t> {', '.join(f'{b}_' for b in sorted(e.buffers))};")
        if e.scratch:
            w.line("LocalTensor<float> scratch_;", "reductions")
        for name, (ct, _) in e.inputs.items():
            w.line(f"GlobalTensor<{ct}> {camel(name)}Gm_;")
        for name, ct in e.outputs.items():
            w.line(f"GlobalTensor<{ct}> {camel(name)}Gm_;")
        if not ub:
            w.line(f"GlobalTensor<{acc}> wsGm_;")
        for member, ct, _, _ in e.scalars:
            w.line(f"{ct} {member};")
        if e.needs.row_ops or e.needs.row_reduces:
            w.line("uint32_t cols_ = 0;", "the current tile's columns (curN): the row helpers' row length")
        if e.needs.uses_mean:
            w.line("float invCols_ = 0;", "1 / N, for means (the tile holds whole rows)")
        if ub:
            w.line("uint32_t m_ = 0, n_ = 0;")
        else:
            w.line("uint32_t m_ = 0, n_ = 0, wsTile_ = 0, step_ = 0;", "step_: chunks done (their UB slot)")
    w.line()


def _epilogue_tile(w: CodeWriter, e: Epilogue, cid: int, ub: bool) -> None:
    """``operator()``: one tile. SplitM (seed 004 section 4): sub-block 0 takes ``halfM =
    ceil(curM / ratio)`` rows, sub-block 1 the rest (none when curM = 1: it returns, and the
    kernel still answers the AIC); its rows start at UB offset 0 of the slot, at GM row
    ``GetSubBlockIdx() * halfM`` of the tile."""
    with w.block(
        "__aicore__ inline void operator()(const BlockShape& tile, int64_t gmOffset, uint16_t flagId)"
    ):
        w.line("const uint32_t curM = tile.m, curN = tile.n;")
        text = "\n".join([*e.cols, *e.body])
        offs = [
            f"{v} = gmOffset {op} n_"
            for v, op in (("mOff", "/"), ("nOff", "%"))
            if re.search(rf"\b{v}\b", text)
        ]
        if offs:
            w.line(f"const uint32_t {', '.join(offs)};", "the tile's first row and column")
        w.line("const uint32_t halfM = (curM + GetTaskRatio() - 1) / GetTaskRatio();", "sub-block 0's rows")
        w.line(
            "const uint32_t myRows = curM % 2 == 1 ? halfM - GetSubBlockIdx() : halfM;",
            "sub-block 1 has none when curM = 1",
        )
        w.line("if (myRows == 0) return;")
        w.line("const uint32_t row0 = GetSubBlockIdx() * halfM;", "my first row of the tile (GM side only)")
        if e.needs.row_ops or e.needs.row_reduces:
            w.line("cols_ = curN;", "the row length the row helpers work on")
        for (buf, ct), name in e.views.items():
            if (buf, ct) in e.col_views:
                w.line(f"const LocalTensor<{ct}> {name} = {buf}_.ReinterpretCast<{ct}>();")
        if any("curNAligned" in line for line in e.cols + e.body):
            ca = e.count_align
            w.line(
                f"const uint32_t curNAligned = (curN + {ca - 1}) / {ca} * {ca};",
                "Compare/Select: whole repeats",
            )
        if e.cols:
            w.line(f"WaitFlag<HardEvent::V_MTE2>({cid});", "the last tile's columns are read")
            for line in e.cols:
                if line.startswith("DataCopyPad"):
                    w.line(line)
            w.line(f"SetFlag<HardEvent::MTE2_V>({cid});")
            w.line(f"WaitFlag<HardEvent::MTE2_V>({cid});")
            for line in e.cols:
                if not line.startswith("DataCopyPad"):
                    w.line(line)
        if not ub:
            w.line("const uint32_t wsAt = flagId * wsTile_;", "the tile is in workspace slot flagId")
        step = "for (uint32_t r0 = 0; r0 < myRows; r0 += CHUNK_ROWS, step_++)"
        with contextlib.nullcontext() if ub else w.block(step):
            if ub:
                w.line(
                    "const uint32_t rows = myRows, slot = flagId;",
                    "the half tile in one step, UB slot flagId",
                )
            else:
                w.line("const uint32_t rows = Min(CHUNK_ROWS, myRows - r0), slot = step_ % 2;")
            if any(re.search(r"\bn\b|nAligned", line) for line in e.body):
                w.line("const uint32_t n = rows * PITCH;")
            if any("nAligned" in line for line in e.body):
                ca = e.count_align
                w.line(
                    f"const uint32_t nAligned = (n + {ca - 1}) / {ca} * {ca};",
                    "Compare/Select: whole repeats",
                )
            if any("perRowAligned" in line for line in e.body):
                ca = e.count_align
                w.line(
                    f"const uint32_t perRowAligned = (rows * PER_ROW + {ca - 1}) / {ca} * {ca};",
                    "Compare/Select on per-row values: whole repeats",
                )
            rows0 = "row0" if ub else "row0 + r0"
            w.line(f"const uint64_t gmAt = gmOffset + uint64_t({rows0}) * n_;")
            for (buf, ct), name in e.views.items():
                if (buf, ct) in e.col_views:
                    continue
                slotted = e.buffers[buf]["slots"] > 1
                off = f"[slot * ({buf.upper()}_SLOT / sizeof({ct}))]" if slotted else ""
                w.line(f"const LocalTensor<{ct}> {name} = {buf}_.ReinterpretCast<{ct}>(){off};")
            for line in e.body:
                w.line(line)
        if e.cols:
            w.line(f"SetFlag<HardEvent::V_MTE2>({cid});")
    w.line()


def _aiv(w: CodeWriter, ub: bool, drain: bool) -> None:
    """The AIV's tile loop: the cross-core protocol around the epilogue (mode 4 to its AIC on
    950, mode 2 to the block's AIC on 910B); the Set is issued on MTE3, after the copies out."""
    with w.block("__aicore__ inline void ProcessAiv()"):
        w.line("uint32_t count = 0;")
        with w.block("for (uint32_t t = block_; t < tiles_; t += GetBlockNum(), count++)"):
            w.line("uint32_t mOff, nOff, curM, curN;")
            w.line("TileAt(t, mOff, nOff, curM, curN);")
            if ub:
                w.line("CrossCoreWaitFlag<4>(AIC_TO_AIV);", "my rows are in UB slot count % 2, from offset 0")
            else:
                w.line("CrossCoreWaitFlag(AIC_TO_AIV);", "the tile is in workspace slot count % 2")
            w.line(
                "epilogue_(BlockShape{curM, curN, k_, 1}, int64_t(mOff) * n_ + nOff, uint16_t(count % 2));"
            )
            if ub:
                w.line("CrossCoreSetFlag<4, PIPE_MTE3>(AIV_TO_AIC);", "after the copies out: UB slot free")
            else:
                w.line(
                    "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_TO_AIC);", "after the copies out: the slot is free"
                )
        if drain:
            w.line("epilogue_.Drain();", "the reverse events Init pre-issued")
