"""RegBase for broadcast tiles (ascend950): a tile's VF over its rows, resident rows read in place.

The row modes of a broadcast kernel (kernel/broadcast.py) pack a tile's rows at a 32-byte pitch.
With an input of kind RESIDENT (ROW, GENERAL), the VF runs the row kernels' two loops
(regbase_rows.py): rows, then element steps of a row, the mask reset per row. Each loaded input
is read at ``addr + r * <view>Pitch + i * VL``: its tile's row r (pitch ``pitch_``), or the
resident row itself (``RowBuf(i)``, pitch 0), reloaded for every row as real RegBase code reads
a per-channel (1, N) operand (regbase-cv.md s1.2), instead of the MemBase kernels' Fill
replicating it into the tile (log2(rows) UB -> UB copies of the tile). Results are stored at
``addr + r * pitch + i * VL``, active lanes only. Without a resident row (the flat modes,
RESIDENT<i>, COL) or when the last row's tail step would read past the tile's slot, the same VF
runs once (rows 1) over ``len`` elements: the padded tile, as a flat tile::

    __simd_vf__ static inline void BiasAddVF0(__ubuf__ T* xAddr, __ubuf__ T* biasAddr, __ubuf__ T* yAddr,
            uint32_t xPitch, uint32_t biasPitch, uint32_t cols, uint32_t pitch, uint16_t rows, uint16_t repeats) {
        ...
        uint32_t count = cols;
        for (uint16_t r = 0; r < rows; ++r) {
            count = cols;
            for (uint16_t i = 0; i < repeats; ++i) {
                mask = Reg::UpdateMask<float>(count);  // the row's tail: count -= 64
                Reg::LoadAlign<T, Reg::LoadDist::DIST_UNPACK_B16>(x, xAddr + r * xPitch + i * 64);
                Reg::LoadAlign<T, Reg::LoadDist::DIST_UNPACK_B16>(bias, biasAddr + r * biasPitch + i * 64);
                ...
                Reg::StoreAlign<T, Reg::StoreDist::DIST_PACK_B32>(yAddr + r * pitch + i * 64, y, mask);

The kernel side (``helpers``): ``ByRow()`` the choice, ``InPlace(view, i)`` the address the VF
takes for input i, ``RowPitch(i)``, ``VfCols(len)``/``VfRows()`` the extent, and ``FillVf``
(insert-sync's ``bcast.fill {in_place}``): Fill but for the resident rows the VF reads in place.
"""

from __future__ import annotations

from dsl.errors import CompileError
from dsl.ir import TensorType

from ..broadcast import FLAT_MODES
from ..merge import Stmt
from .base import Operand, where
from .regbase import LOCALS, VfWriter

BROADCAST_LOCALS = LOCALS | {"cols", "rows", "pitch", "r"}
COUNT = "sizeof(tiling_->bcKind) / sizeof(uint32_t)"  # the tensor inputs


def broadcast_vector_function(regbase, vops: list, ctx, what: str) -> list[Stmt]:
    """The tile's VF, and one more per input that may be a COL column, which that VF loads per
    row (DIST_BRC); the call picks one at run time (``ColumnVf(i)``), as one statement."""
    note = f"the {what}'s vector math: one vector function"
    inline = regbase.form == "__VEC_SCOPE__"
    vf = BroadcastVfWriter(
        vops, ctx, "" if inline else f"@VF{len(ctx.needs.vfs)}@", suffix="Reg" if inline else ""
    )
    tensors = sum(1 for p in ctx.func.params if isinstance(p.value.type, TensorType))
    columns = [i for i, b in vf.inputs.items() if b in (2, 4)] if tensors > 1 else []  # DIST_BRC_B16/B32
    vfs = [vf]
    for i in columns:
        placeholder = "" if inline else f"@VF{len(ctx.needs.vfs) + len(vfs)}@"
        vfs.append(BroadcastVfWriter(vops, ctx, placeholder, suffix="Reg" if inline else "", column=i))
    for w in vfs:
        ctx.needs.cast_traits |= w.traits
        if not inline:
            ctx.needs.vfs[w.fn.placeholder] = w.fn
    text = [w.scope_text() if inline else w.call for w in vfs]
    if len(vfs) == 1:
        return [Stmt(text[0], note=None if inline else note, dsl=where(vops[0].op))]
    lines = []
    for i, t in zip(columns, text[1:]):
        lines.append(f"{'else ' if lines else ''}if (ColumnVf({i}))" + (" " + t if inline else ""))
        if not inline:
            lines.append("    " + t + f"  // input {i} a column: loaded per row (DIST_BRC)")
    lines.append("else" + (" " + text[0] if inline else ""))
    if not inline:
        lines.append("    " + text[0] + "  // " + note)
    return [Stmt("\n".join(lines), dsl=where(vops[0].op))]


class BroadcastVfWriter(VfWriter):
    """A broadcast tile's VF: rows x element steps, per-input row pitches; ``column``: the GM
    input whose register is loaded once per row, splatting its value (COL mode, DIST_BRC)."""

    def __init__(self, vops, ctx, placeholder: str, suffix: str = "", column: int | None = None):
        self.pitches: dict[str, tuple[str, str]] = {}  # loaded input's pointer -> (parameter, argument)
        self.inputs: dict[int, int] = {}  # GM input index -> element bytes, of the inputs loaded
        self.column = column
        self.per_row: list[str] = []  # the column's load, before a row's element steps
        super().__init__(vops, ctx, placeholder, suffix)

    def reg_name(self, x: Operand) -> str:
        return x.text + (self.suffix or ("Reg" if x.text in BROADCAST_LOCALS else ""))

    def input_index(self, x: Operand) -> int | None:
        """The GM input a loaded operand comes from (None: a value the tile computed)."""
        owner = x.value.owner if x.value is not None else None
        if owner is None or owner.opname != "dma.load":
            return None
        return self.ctx.sig.inputs.index(owner.operands[0].name)

    def ptr(self, x: Operand) -> str:
        p = x.ub + "Addr"
        if p in self.ptrs:
            return p
        index = self.input_index(x)
        self.ptrs[p] = self.ctx.view_types.get(x.ub) or self.ctype(x)
        if index is None:
            self.args.append(f"(__ubuf__ {self.ptrs[p]}*){x.ub}.GetPhyAddr()")
        else:  # a resident row (or a column) is read where it is
            self.inputs[index] = x.dtype.bytes
            self.args.append(f"(__ubuf__ {self.ptrs[p]}*)InPlace({x.ub}, {index}).GetPhyAddr()")
            pitch = f"RowPitch({index})" if index != self.column else f"ColumnPitch<{self.ptrs[p]}>()"
            self.pitches[p] = (x.ub + "Pitch", pitch)
        return p

    def load(self, x: Operand) -> None:
        if self.column is None or self.input_index(x) != self.column:
            return super().load(x)
        r = self.reg(x)
        if r in self.loaded:
            return
        self.loaded.add(r)
        p = self.ptr(x)
        dist = f"DIST_BRC_B{8 * x.dtype.bytes}"  # row r's value in every lane (LoadAlign.md table 3)
        self.per_row.append(f"Reg::LoadAlign<{self.ptrs[p]}, Reg::LoadDist::{dist}>({r}, {self.at(x)});")

    def at(self, x: Operand) -> str:
        p = self.ptr(x)
        pitch = self.pitches[p][0] if p in self.pitches else "pitch"
        if self.column is not None and self.input_index(x) == self.column:
            return f"{p} + r * {pitch}"  # row r's value
        return f"{p} + r * {pitch} + {self.step()}"

    def store(self, x: Operand) -> None:
        if self.ptr(x) in self.pitches:  # InPlace would redirect the store to the resident row
            raise CompileError(
                f"RegBase broadcast VF: '{x.ub}' is both an input read in place and a stored value",
                self.vops[0].op.loc,
            )
        super().store(x)

    def extent_params(self) -> list[str]:
        pitches = [f"uint32_t {name}" for name, _ in self.pitches.values()]
        return pitches + ["uint32_t cols", "uint32_t pitch", "uint16_t rows", "uint16_t repeats"]

    def extent_args(self) -> list[str]:
        pitches = [arg for _, arg in self.pitches.values()]
        steps = f"static_cast<uint16_t>((VfCols(len) + {self.lanes - 1}) / {self.lanes})"
        return pitches + ["VfCols(len)", "static_cast<uint32_t>(pitch_)", "VfRows()", steps]

    def loops(self, t: str) -> list[str]:
        return [
            "uint32_t count = cols;",
            "for (uint16_t r = 0; r < rows; ++r) {",
            "    count = cols;",
            *["    " + s for s in self.per_row],
            "    for (uint16_t i = 0; i < repeats; ++i) {",
            f"        mask = Reg::UpdateMask<{t}>(count);  // the row's tail: count -= {self.lanes}",
            *["        " + s for s in self.loop],
            "    }",
            "}",
        ]


def helpers(w) -> None:
    """The broadcast kernel's members the RegBase VF calls read (after kernel/broadcast.py's)."""
    line = w.line
    flat = f"({FLAT_MODES})"
    line(
        comment="RegBase (ascend950): with a resident row (ROW, GENERAL) or a column (COL), a vector function"
    )
    line(
        comment="runs row by row and reads it where it is: the row in its RowBuf (row pitch 0), the column's"
    )
    line(
        comment="value per row from the tile's values (LoadColumn; DIST_BRC), if the last row's tail step (up"
    )
    line(
        comment="to 128 elements) stays in the tile's slot; else it runs once over the padded tile after Fill"
    )
    line(comment="(replicated rows, spread columns), as the MemBase variants do.")
    with w.block("__aicore__ inline bool ByRow() const"):
        with w.block(f"if constexpr ({flat} || ROWWISE)"):
            line("return false;", "one row per call")
        with w.block("else"):
            line("bool inPlace = false;")
            with w.block(f"for (uint32_t i = 0; i < {COUNT}; ++i)"):
                line("inPlace = inPlace || tiling_->bcKind[i] == BC_RESIDENT || ColumnIn(i);")
            line("return inPlace && (rows_ - 1) * pitch_ + (clen_ + 127) / 128 * 128 <= tileElems_;")
    w.line()
    line(comment="COL: input i is the only column (8-bit columns are not copied in: Fill reads them). Its")
    line(comment="values: the tile's, one per row (tiles of 8 rows or more, LoadColumn), else its group's")
    line(comment="values spread one per 32-byte block by Brcb at the group's first tile (ColumnAt; the next")
    line(comment="group's values may come in while this tile runs: its blocks are V's own).")
    with w.block("__aicore__ inline bool ColumnIn(uint32_t i) const"):
        with w.block("if constexpr (MODE == BcMode::COL)"):
            line("uint32_t columns = 0;")
            line(
                f"for (uint32_t k = 0; k < {COUNT}; ++k) columns += tiling_->bcKind[k] == BC_COLUMN ? 1 : 0;"
            )
            line("return tiling_->bcKind[i] == BC_COLUMN && columns == 1;")
        with w.block("else"):
            line("(void)i;")
            line("return false;")
    w.line()
    with w.block("__aicore__ inline bool ColumnVf(uint32_t i) const"):
        line("return ColumnIn(i) && ByRow();")
    w.line()
    line("template <typename U>")
    with w.block("__aicore__ inline uint32_t ColumnPitch() const"):
        line("return pack_ >= 8 ? 1 : 32 / sizeof(U);", "elements between two rows' values")
    w.line()
    line("template <typename U>")
    with w.block("__aicore__ inline LocalTensor<U> ColumnAt(uint32_t i, bool spread)"):
        line("if (pack_ >= 8) return ColumnValues<U>(i, SlotOf(tile_));")
        line("using B = typename std::conditional<sizeof(U) == 2, uint16_t, uint32_t>::type;")
        line("constexpr uint32_t BLOCK = 32 / sizeof(B);")
        line("uint64_t first = 0;")
        line("bool starts = false;")
        line("const uint64_t group = Group<U>(first, starts);")
        line("const LocalTensor<B> values = RowBuf(i).template Get<B>();", "the blocks, then the values")
        with w.block("if (spread && starts)"):
            line(
                "Brcb(values, values[(group + 7) / 8 * 8 * BLOCK], static_cast<uint8_t>((group + 7) / 8), "
                "BrcbRepeatParams(1, 8));"
            )
        line("return RowBuf(i).template Get<U>()[(r0_ - first) * BLOCK];", "the tile's first row's block")
    w.line()
    line(comment="Input i's address for a vector function: its tile, its resident row or its column values.")
    line("template <typename U>")
    with w.block("__aicore__ inline LocalTensor<U> InPlace(const LocalTensor<U>& tile, uint32_t i)"):
        line("if (ByRow() && tiling_->bcKind[i] == BC_RESIDENT) return RowBuf(i).template Get<U>();")
        line("if (sizeof(U) > 1 && ColumnVf(i)) return ColumnAt<U>(i, false);")
        line("return tile;")
    w.line()
    line(comment="Elements between input i's rows in a vector function (0: a resident row), its rows and")
    line(comment="elements per row: the tile's, or one run of len over the padded tile.")
    with w.block("__aicore__ inline uint32_t RowPitch(uint32_t i) const"):
        line("return ByRow() && tiling_->bcKind[i] != BC_RESIDENT ? static_cast<uint32_t>(pitch_) : 0;")
    w.line()
    with w.block("__aicore__ inline uint32_t VfCols(uint32_t len) const"):
        line("return ByRow() ? static_cast<uint32_t>(clen_) : len;")
    w.line()
    with w.block("__aicore__ inline uint16_t VfRows() const"):
        line("return ByRow() ? static_cast<uint16_t>(rows_) : 1;")
    w.line()
    line(comment="Fill of an input vector functions read: nothing for what they read in place (InPlace).")
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void FillVf(const LocalTensor<U>& dst, const GlobalTensor<U>& gm, uint32_t i, uint32_t len)"
    ):
        line("if (ByRow() && tiling_->bcKind[i] == BC_RESIDENT) return;")
        with w.block("if (sizeof(U) > 1 && ColumnVf(i))"):
            line("ColumnAt<U>(i, true);", "a group's first tile: its blocks")
            line("return;")
        line("Fill(dst, gm, i, len);")
    w.line()
