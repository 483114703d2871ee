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

from ..broadcast import FLAT_MODES
from .base import Operand
from .regbase import LOCALS, VfWriter

BROADCAST_LOCALS = LOCALS | {"cols", "rows", "pitch", "r"}


class BroadcastVfWriter(VfWriter):
    """A broadcast tile's VF: rows x element steps, per-input row pitches."""

    def __init__(self, vops, ctx, placeholder: str, suffix: str = ""):
        self.pitches: dict[str, str] = {}  # loaded input's pointer -> its pitch parameter
        self.stored_ptrs: set[str] = set()
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
        else:  # a resident row is read where it is
            self.args.append(f"(__ubuf__ {self.ptrs[p]}*)InPlace({x.ub}, {index}).GetPhyAddr()")
            self.pitches[p] = (x.ub + "Pitch", f"RowPitch({index})")
        return p

    def at(self, x: Operand) -> str:
        p = self.ptr(x)
        pitch = self.pitches[p][0] if p in self.pitches else "pitch"
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
    line(comment="RegBase (ascend950): with a resident row (ROW, GENERAL), a vector function runs row by row")
    line(
        comment="and reads the row where it is (its RowBuf, row pitch 0), if the last row's tail step (up to"
    )
    line(comment="128 elements) stays in the tile's slot; else it runs once over the padded tile and Fill")
    line(comment="replicates the row into the tile, as in the MemBase variants.")
    with w.block("__aicore__ inline bool ByRow() const"):
        with w.block(f"if constexpr ({flat} || ROWWISE)"):
            line("return false;", "one row per call")
        with w.block("else"):
            line("bool resident = false;")
            with w.block("for (uint32_t i = 0; i < sizeof(tiling_->bcKind) / sizeof(uint32_t); ++i)"):
                line("resident = resident || tiling_->bcKind[i] == BC_RESIDENT;")
            line("return resident && (rows_ - 1) * pitch_ + (clen_ + 127) / 128 * 128 <= tileElems_;")
    w.line()
    line(comment="Input i's address for a vector function: its tile, or its resident row.")
    line("template <typename U>")
    with w.block("__aicore__ inline LocalTensor<U> InPlace(const LocalTensor<U>& tile, uint32_t i)"):
        line("if (ByRow() && tiling_->bcKind[i] == BC_RESIDENT) return RowBuf(i).template Get<U>();")
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
    line(comment="Fill of an input a vector function reads: a resident row is read in place (InPlace).")
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void FillVf(const LocalTensor<U>& dst, const GlobalTensor<U>& gm, uint32_t i, uint32_t len)"
    ):
        line("if (ByRow() && tiling_->bcKind[i] == BC_RESIDENT) return;")
        line("Fill(dst, gm, i, len);")
    w.line()
