"""Kernel side of ``broadcast=True`` operators (the host side is ``host_broadcast.py``).

The class template gets one more parameter, ``BcMode MODE``, chosen by the tiling key; the tile
body (the vector math, the flags) is the same in every mode: only where a tile's input values
come from and where its outputs go differ, so the body's copies become calls of:

- ``Load(view, gm, i, t, len)`` (MTE2, where the body copied the input in): FLAT/SCALAR copy a
  contiguous range; the row modes copy whole rows (or a row chunk) at a 32-byte pitch, one 2-D
  ``DataCopyPad`` per run of rows (inputs of kind FULL: one per tile; STRIDED: one per run along
  the second-to-last merged axis, found by the odometer ``RowOffset``).
- ``Fill(view, gm, i, len)`` (V, insert-sync's ``bcast.fill`` before the first op that reads
  the input's tile, ordered by flags like any V write): a size-1 input (ONE, read once per core)
  is splatted; a resident row (RESIDENT, copied into UB once per core) is replicated into the
  tile's rows by UB -> UB copies that double each time; a column (COLUMN) gives each row one
  value. ``PipeBarrier<PIPE_V>`` then orders the math after it.
- ``Store(gm, view, copy, t)`` (MTE3): one 2-D ``DataCopyPad`` per tile in the row modes.

RESIDENT<i> modes (the ROW pattern with input i's row resident and rows of at least 128
elements) do the vector math row by row against the resident row itself, the way seed 003 does:
a block of rows is copied in by one 2-D DMA and out by another, every tile of the body is one row
(its views offset by the row inside the block, the resident input's view is the resident row),
and the body's flags run once per block: waits at its first row, sets at its last (a flag whose
source is MTE2, the forward copy-in edge, at the first). Buffers that only hold one row's values
(the row temporaries, the resident input's slots) are ROWCAP elements; the buffers the DMA moves
hold a block of rows (the host's bcTile in RESIDENT<i>: plan_rows' block, which the host's SPLITS
carry), so far more rows fit a block than when every buffer is a block. The pitch is a
multiple of 256 elements there, so a vector op rounded up to whole repeats stays inside its row.

Tiles in the row modes are computed over their padded layout (``(rows - 1) * pitch + clen``
elements), so vector lengths never need to stop at a row end and no row's data is overwritten.
"""

from __future__ import annotations

import re
import textwrap

from .api import ctype
from .merge import Stmt
from .naming import camel, gm_param

MODES = ("FLAT", "SCALAR", "ROW", "COL", "GENERAL")  # then RESIDENT<i>: 5 + input index
# compile.py's hidden static attribute of the SCALAR twins (an input read as a Scalar)
SCALAR_INPUT, TENSOR_CHOICE, TWIN_PREFIX = "bc_scalar", "tensor", "scalar_"
FLAT_MODES = "MODE == BcMode::FLAT || MODE == BcMode::SCALAR"
_FLAG = re.compile(r"(SetFlag|WaitFlag)<HardEvent::([A-Z0-9]+)_([A-Z0-9]+)>\(")

_LOAD = re.compile(r"DataCopyPad\((\w+), (\w+)Gm_\[t \* TILE\], \w+, \w+\);")
_STORE = re.compile(r"DataCopyPad\((\w+)Gm_\[t \* TILE\], (\w+), (\w+)\);")
_COPY_OUT = re.compile(r"CopyOut\((\w+), (\w+), (.*)\);")


def stored_views(body: list[Stmt]) -> set[str]:
    """Views the (rewritten) body copies out: they get a ``<view>Block`` twin at the block's start."""
    return {m.group(1) for s in body for m in re.finditer(r"(\w+)Block\b", s.code)}


def is_broadcast(variants) -> bool:
    return any(v.func.attributes.get("broadcast") for v in variants)


def rewrite_body(body: list[Stmt], inputs: list[str], outputs: list[str] | None = None) -> list[Stmt]:
    """The tile body with its copies turned into Load/Store calls, and the flags and copy-outs
    guarded to run once per block of rows in the RESIDENT modes (``first_`` and ``last_`` are
    always true in the others). The Fills are the body's own: insert-sync's ``bcast.fill``, which
    its flags order like any V write (after the copy in, before the math and copies out)."""
    index = {camel(n): i for i, n in enumerate(inputs)}
    out_index = {camel(n): o for o, n in enumerate(outputs or [])}
    out: list[Stmt] = []
    for s in body:
        m = _LOAD.fullmatch(s.code)
        if m and m.group(2) in index:
            view, gm = m.group(1), m.group(2)
            out.append(Stmt(f"Load({view}, {gm}Gm_, {index[gm]}, t, len);", s.note, s.dsl, s.weight))
            continue
        m = _STORE.fullmatch(s.code)
        if m:
            o = out_index.get(m.group(1), 0)
            code = f"if (last_) Store({m.group(1)}Gm_, {m.group(2)}Block, {m.group(3)}, t, {o});"
            out.append(Stmt(code, s.note, s.dsl, s.weight))
            continue
        m = _COPY_OUT.fullmatch(s.code)
        if m:
            o = out_index.get(m.group(1)[: -len("Gm_")], 0)
            code = f"if (last_) CopyOut({m.group(1)}, {m.group(2)}Block, {m.group(3)}, {o});"
            out.append(Stmt(code, s.note, s.dsl, s.weight))
            continue
        f = _FLAG.match(s.code)
        if f:  # waits at a block's first row; sets at its last, but the copy-in's forward edge
            fn, src, dst = f.groups()
            first = src == "MTE2" if fn == "SetFlag" else dst != "MTE3"
            s = Stmt(f"if ({'first_' if first else 'last_'}) {s.code}", s.note, s.dsl, s.weight)
        out.append(s)
    return out


def paragraph(w, text: str) -> None:
    """A comment of several lines, wrapped at the generated code's width."""
    for part in textwrap.wrap(text, 100):
        w.line(comment=part)


def spread_column(w, barrier) -> None:
    """COL mode's V part of a 16/32-bit column input: Brcb puts each row's value in a 32-byte block,
    a level-0 Copy with source block stride 0 repeats the block along the row (as the row kernels'
    RowsByValue reads per-row values; ascendc-api.md section 5 Brcb, Copy UB -> UB with mask)."""
    line = w.line
    paragraph(
        w,
        "Columns: the values (LoadColumn) spread over the tile's rows. Tiles of 8 rows or more (the host packs a multiple of 8): value r in block 0 of row r (Brcb), copied along the rows by the vector unit, a repeat per row. Fewer rows: at a group's first tile one Brcb puts each of its values in a block of the row buffer; each row is a Copy of its block, whole 256-byte repeats (a tile's buffer is whole repeats: the rounding stays in it).",
    )
    line("template <typename U>")
    with w.block("__aicore__ inline void SpreadColumn(const LocalTensor<U>& dstU, uint32_t i)"):
        line(
            "using B = typename std::conditional<sizeof(U) == 2, uint16_t, uint32_t>::type;",
            "the bits: Brcb and Copy move them",
        )
        line("constexpr uint32_t BLOCK = 32 / sizeof(B);", "elements per 32-byte block")
        line("const LocalTensor<B> dst = dstU.template ReinterpretCast<B>();")
        line("const uint32_t blocks = static_cast<uint32_t>(pitch_ / BLOCK);", "rows of whole blocks")
        line("const uint32_t rows = static_cast<uint32_t>(rows_);")
        with w.block("if (pack_ >= 8)"):
            line("const LocalTensor<B> values = ColumnValues<B>(i, SlotOf(tile_));")
            line(
                "Brcb(dst, values, static_cast<uint8_t>((rows + 7) / 8), BrcbRepeatParams(blocks, 8 * blocks));",
                "<= ROW_BYTES / 2 rows: < 255 repeats",
            )
            line("if (blocks == 1) return;")
            barrier()
            with w.block("for (uint32_t r = 0; r < rows; r += 255)"):
                line(
                    "const uint8_t now = static_cast<uint8_t>(rows - r < 255 ? rows - r : 255);",
                    "8-bit repeats",
                )
                with w.block("for (uint32_t b = 1; b < blocks; b += 8)"):
                    line("const uint64_t mask = (blocks - b < 8 ? blocks - b : 8) * BLOCK;")
                    line(
                        "Copy(dst[r * pitch_ + b * BLOCK], dst[r * pitch_], mask, now, "
                        "CopyRepeatParams(1, 0, blocks, blocks));"
                    )
            line("return;")
        line("uint64_t first = 0;")
        line("bool starts = false;")
        line("const uint64_t group = Group<U>(first, starts);")
        line("const LocalTensor<B> values = RowBuf(i).template Get<B>();", "the blocks, then the values")
        with w.block("if (starts)"):
            line(
                "Brcb(values, values[(group + 7) / 8 * 8 * BLOCK], static_cast<uint8_t>((group + 7) / 8), "
                "BrcbRepeatParams(1, 8));"
            )
            barrier()
        line(
            "const uint32_t width = tiling_->bcChunks == 1 ? blocks : static_cast<uint32_t>((clen_ + BLOCK - 1) / BLOCK);",
            "blocks",
        )
        line("const uint32_t repeats = (width + 7) / 8;")
        with w.block("for (uint32_t r = 0; r < rows; ++r)"):
            with w.block("for (uint32_t k = 0; k < repeats; k += 255)"):
                line("const uint8_t now = static_cast<uint8_t>(repeats - k < 255 ? repeats - k : 255);")
                line(
                    "Copy(dst[r * pitch_ + k * 8 * BLOCK], values[(r0_ + r - first) * BLOCK], 8 * BLOCK, now, "
                    "CopyRepeatParams(1, 0, 8, 0));"
                )
    w.line()


def store_own(w) -> None:
    """StoreOwn: an output smaller than the broadcast shape (several outputs only)."""
    line = w.line
    line(comment="Output o smaller than the broadcast shape (numpy: the broadcast of its own operands): the")
    line(comment="tile's rows whose coordinate is 0 on every axis it is broadcast on, one copy per row (one")
    line(
        comment="element when it is broadcast along the row); bcOutStrides: its element strides, 0 = broadcast."
    )
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void StoreOwn(const GlobalTensor<U>& gm, const LocalTensor<U>& tile, uint32_t o)"
    ):
        line("const int64_t* stride = &tiling_->bcOutStrides[o * 8];")
        line("const uint32_t rank = tiling_->bcRank;")
        line("const bool along = stride[rank - 1] != 0;", "it has the row's elements")
        line("if (!along && col0_ != 0) return;", "one value per row: the first chunk has it")
        line(
            "const DataCopyExtParams copy{1, static_cast<uint32_t>((along ? clen_ : 1) * sizeof(U)), 0, 0, 0};"
        )
        with w.block("for (uint64_t r = 0; r < rows_; ++r)"):
            line("uint64_t row = r0_ + r, offset = along ? col0_ : 0;")
            line("bool mine = true;")
            with w.block("for (uint32_t a = rank - 1; a-- > 0;)"):
                line("const uint64_t dim = tiling_->bcDims[a];")
                line("const uint64_t c = row % dim;")
                line("row /= dim;")
                line("mine = mine && (stride[a] != 0 || c == 0);")
                line("offset += c * static_cast<uint64_t>(stride[a]);")
            line("if (mine) DataCopyPad(gm[offset], tile[r * pitch_], copy);")
    w.line()


def template_param() -> str:
    return "BcMode MODE"


def mode_names(n_inputs: int) -> list[str]:
    return list(MODES) + [f"RESIDENT{i}" for i in range(n_inputs)]


def enum_lines(n_inputs: int) -> list[str]:
    return [
        "// Broadcast modes (host_broadcast.py picks one per call; it is part of the tiling key):",
        "// FLAT equal shapes, SCALAR size-1 inputs, ROW [M,N] with [N], COL [M,N] with [M,1], GENERAL N-D,",
        "// RESIDENT<i>: the ROW pattern with input i's row resident, the math row by row against it.",
        "enum class BcMode : uint32_t { "
        + ", ".join(f"{m} = {i}" for i, m in enumerate(mode_names(n_inputs)))
        + " };",
        "// What an input is to the output (per call, in the tiling data).",
        "constexpr uint32_t BC_FULL = 0;      // the output's shape",
        "constexpr uint32_t BC_ONE = 1;       // one element: read once per core, splatted",
        "constexpr uint32_t BC_RESIDENT = 2;  // one row for every output row: kept in UB",
        "constexpr uint32_t BC_STRIDED = 3;   // rows found by the odometer over the outer axes",
        "constexpr uint32_t BC_COLUMN = 4;    // one value per output row: row r's is element r",
        "constexpr uint32_t BC_PER_ROW = 5;   // one value per output row, found by the odometer",
        "",
    ]


def gm_stmt(name: str, ctype_: str, index: int | None) -> Stmt:
    size = f"tiling.bcSize[{index}]" if index is not None else "tiling.totalLength"
    return Stmt(f"{camel(name)}Gm_.SetGlobalBuffer((__gm__ {ctype_}*){gm_param(name)}, {size});")


def emit_helpers(
    w, op_type: str, inputs: list[tuple[int, str, str]], vc, init_id: int, full_outputs: bool = False
) -> None:
    """Private members of the class: core slice, tile geometry, Load/Fill/Store, Init part.
    ``inputs``: (input index, name, C++ element type) of each tensor input the kernel copies;
    ``vc``: the vector code path (its V barrier and splat); ``init_id``: the MTE2_V id of
    InitBroadcast's copies (one the tile loop does not use); ``full_outputs``: every output has the
    broadcast shape (one output, computed from every input): no StoreOwn, no empty-output test."""
    tiling = f"{op_type}TilingData"
    line = w.line

    def barrier() -> None:
        if vc.barrier_line():
            line(vc.barrier_line())

    line(comment="This core's slice. FLAT/SCALAR: whole 32-byte blocks of the flat range; row modes: whole")
    line(comment="rows (or row chunks); either way the first tailCores cores take one unit more.")
    with w.block(f"__aicore__ inline void SetCoreSlice(const {tiling}& tiling)"):
        line("tiling_ = &tiling;")
        line("slots_ = tiling.bcSlots;", "2, or 1 where double buffering does not pay")
        line(
            "tileElems_ = tiling.bcTile;",
            "elements of a tile, or of a block of rows in RESIDENT<i> (plan-buffers)",
        )
        line("const uint64_t core = static_cast<uint64_t>(GetBlockIdx());")
        line(
            "const uint64_t first = core * tiling.smallBlocks + (core < tiling.tailCores ? core : tiling.tailCores);"
        )
        line("const uint64_t units = tiling.smallBlocks + (core < tiling.tailCores ? 1 : 0);")
        with w.block(f"if constexpr ({FLAT_MODES})"):
            line("const uint64_t start = first * GRANULE;")
            line("const uint64_t end = start + units * GRANULE;")
            line("const uint64_t stop = end < tiling.totalLength ? end : tiling.totalLength;")
            line("offset_ = start;")
            line("count_ = stop > start ? stop - start : 0;")
            line("tiles_ = (count_ + tileElems_ - 1) / tileElems_;")
        with w.block("else"):
            line("offset_ = first;", "first row (or row chunk)")
            line("count_ = units;")
            line("inner_ = tiling.bcInner;")
            line("pitch_ = tiling.bcPitch;")
            line("pack_ = tiling.bcPackRows;")
            line(
                "rowBase_ = first / tiling.bcChunks;",
                "the core's rows: a chunked slice may start or end mid-row",
            )
            line("rowEnd_ = (first + units + tiling.bcChunks - 1) / tiling.bcChunks;")
            line("tiles_ = tiling.bcChunks == 1 ? (units + pack_ - 1) / pack_ : units;")
            line("if constexpr (ROWWISE) tiles_ = units;", "one body run per row")
    w.line()
    line(
        comment="Tile t's rows [r0_, r0_ + rows_) and columns [col0_, col0_ + clen_); returns the elements the"
    )
    line(comment="vector math covers: the padded rows, (rows_ - 1) * pitch_ + clen_.")
    with w.block("__aicore__ inline uint32_t SetTile(uint64_t t)"):
        line("tile_ = t;")
        with w.block(f"if constexpr ({FLAT_MODES})"):
            line("return static_cast<uint32_t>(t + 1 == tiles_ ? count_ - t * tileElems_ : tileElems_);")
        with w.block("else if constexpr (ROWWISE)"):
            line("const uint64_t block = t / pack_;")
            line("rowIn_ = t % pack_;")
            line("r0_ = offset_ + block * pack_;")
            line("const uint64_t left = count_ - block * pack_;")
            line("rows_ = left < pack_ ? left : pack_;")
            line("first_ = rowIn_ == 0;")
            line("last_ = rowIn_ + 1 == rows_;")
            line("col0_ = 0;")
            line("clen_ = inner_;")
            line("return static_cast<uint32_t>(inner_);", "one row")
        with w.block("else"):
            with w.block("if (tiling_->bcChunks == 1)"):
                line("r0_ = offset_ + t * tiling_->bcPackRows;")
                line("const uint64_t left = offset_ + count_ - r0_;")
                line("rows_ = left < tiling_->bcPackRows ? left : tiling_->bcPackRows;")
                line("col0_ = 0;")
                line("clen_ = inner_;")
                line("return static_cast<uint32_t>((rows_ - 1) * pitch_ + clen_);")
            line("const uint64_t u = offset_ + t;")
            line("r0_ = u / tiling_->bcChunks;")
            line("col0_ = (u % tiling_->bcChunks) * tiling_->bcChunk;")
            line("rows_ = 1;")
            line("clen_ = inner_ - col0_ < tiling_->bcChunk ? inner_ - col0_ : tiling_->bcChunk;")
            line("return static_cast<uint32_t>(clen_);")
    w.line()
    line(comment="The ping-pong slot (buffer half and event id): per tile, or per block of rows; always 0")
    line(comment="when the host chose one slot (blocks of many short rows).")
    with w.block("__aicore__ inline int32_t SlotOf(uint64_t t) const"):
        line("if (slots_ == 1) return 0;")
        line("if constexpr (ROWWISE) return static_cast<int32_t>((t / pack_) & 1);")
        line("return static_cast<int32_t>(t & 1);")
    w.line()
    line(comment="A slot of a double-buffered buffer: in the RESIDENT modes the current row inside the block")
    line(
        comment="(with `block`, the block's first row: what its 2-D copy out reads), or one row where BufMask(k)"
    )
    line(comment="says buffer k holds one (bit i: when input i is resident).")
    line("template <typename U, TPosition P>")
    with w.block(
        "__aicore__ inline LocalTensor<U> Slot(TBuf<P>& buf, int32_t slot, uint32_t k, bool block = false) const"
    ):
        with w.block("if constexpr (ROWWISE)"):
            line("if ((BufMask(k) >> RES_INPUT) & 1) return buf.template Get<U>()[slot * ROWCAP];")
            line("return buf.template Get<U>()[slot * tileElems_ + (block ? 0 : rowIn_ * pitch_)];")
        with w.block("else"):
            line("(void)k;")
            line("(void)block;")
            line("return buf.template Get<U>()[slot * tileElems_];")
    w.line()
    line(comment="Input i's tile: the resident row itself in RESIDENT<i>.")
    line("template <typename U, TPosition P>")
    with w.block(
        "__aicore__ inline LocalTensor<U> Loaded(TBuf<P>& buf, int32_t slot, uint32_t k, uint32_t i)"
    ):
        with w.block("if constexpr (ROWWISE)"):
            line("if (static_cast<int32_t>(i) == RES_INPUT) return RowBuf(i).template Get<U>();")
        line("(void)i;")
        line("return Slot<U>(buf, slot, k);")
    w.line()
    line(
        comment="Elements of buffer k: a tile, or in the RESIDENT modes ROWCAP (one row), IDLE_ELEMS (the buffer"
    )
    line(comment="only holds the resident input's tile, which the resident row replaces) or a block of rows.")
    with w.block("__aicore__ inline uint32_t Elems(uint32_t k) const"):
        line("constexpr int32_t shift = ROWWISE ? RES_INPUT : 0;")
        line("if (!ROWWISE) return tileElems_;")
        line("if ((BufMask(k) >> (16 + shift)) & 1) return IDLE_ELEMS;")
        line("return ((BufMask(k) >> shift) & 1) ? ROWCAP : tileElems_;")
    w.line()
    line(comment="Element offset of row r's start in input i (odometer over the merged outer axes);")
    line(comment="left: rows until the second-to-last axis wraps (one 2-D copy covers them).")
    with w.block("__aicore__ inline uint64_t RowOffset(uint32_t i, uint64_t r, uint64_t& left) const"):
        line("const int64_t* stride = &tiling_->bcStrides[i * 8];")
        line("const uint32_t rank = tiling_->bcRank;")
        with w.block("if constexpr (MODE != BcMode::GENERAL)"):
            line("left = tiling_->bcDims[0] - r;", "two merged axes: rows are axis 0")
            line("return r * static_cast<uint64_t>(stride[0]);")
        line("uint64_t offset = 0;")
        with w.block("for (uint32_t a = rank - 1; a-- > 0;)"):
            line("const uint64_t dim = tiling_->bcDims[a];")
            line("const uint64_t c = r % dim;")
            line("r /= dim;")
            line("if (a + 2 == rank) left = dim - c;")
            line("offset += c * static_cast<uint64_t>(stride[a]);")
        line("return offset;")
    w.line()
    line(comment="MTE2 part of input i's tile (the V part is Fill).")
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void Load(const LocalTensor<U>& dst, const GlobalTensor<U>& gm, uint32_t i, uint64_t t, "
        "uint32_t len)"
    ):
        line("const uint32_t kind = tiling_->bcKind[i];")
        with w.block("if constexpr (ROWWISE)"):
            line("if (!first_ || kind != BC_FULL) return;", "a block per copy; the resident row is in UB")
            line("(void)t;")
            line("(void)len;")
            line("LoadRows(dst, gm[r0_ * inner_], rows_, inner_);", "one 2-D copy for the block")
            line("return;")
        with w.block(f"if constexpr ({FLAT_MODES})"):
            line("if (kind != BC_FULL) return;", "a size-1 input: Fill splats it")
            line("const DataCopyExtParams copy{1, static_cast<uint32_t>(len * sizeof(U)), 0, 0, 0};")
            line(
                "DataCopyPad(dst, gm[offset_ + t * tileElems_], copy, DataCopyPadExtParams<U>{false, 0, 0, 0});"
            )
        with w.block("else if (kind == BC_FULL)"):
            line("(void)len;")
            line("LoadRows(dst, gm[r0_ * inner_ + col0_], rows_, inner_);", "one 2-D copy for the tile")
        with w.block("else if (kind == BC_STRIDED)"):
            with w.block("for (uint64_t r = 0; r < rows_;)"):
                line("uint64_t left = 0;")
                line("const uint64_t offset = RowOffset(i, r0_ + r, left);")
                line(
                    "const uint64_t step = static_cast<uint64_t>(tiling_->bcStrides[i * 8 + tiling_->bcRank - 2]);"
                )
                line("uint64_t run = rows_ - r < left ? rows_ - r : left;")
                line("if (step == 0) run = 1;", "the same row again: one copy per row")
                line("LoadRows(dst[r * pitch_], gm[offset + col0_], run, step);")
                line("r += run;")
        with w.block("else if (kind == BC_COLUMN && sizeof(U) > 1)"):
            line("LoadColumn(gm, i, t);", "Fill spreads them (Brcb and Copy take no 8-bit type)")
    w.line()
    line(comment="Column input i's values (row r's is element r) into half of its row buffer by one")
    line(
        comment="DataCopyPad: a tile's rows (tiles of 8 rows or more), else a group's rows at the group's first tile."
    )
    line("template <typename U>")
    with w.block("__aicore__ inline void LoadColumn(const GlobalTensor<U>& gm, uint32_t i, uint64_t t)"):
        line("uint64_t rows = rows_;")
        line("LocalTensor<U> values = ColumnValues<U>(i, SlotOf(t));")
        with w.block("if (pack_ < 8)"):
            line("uint64_t first = 0;")
            line("bool starts = false;")
            line("rows = Group<U>(first, starts);")
            line("if (!starts) return;")
            line(
                "values = RowBuf(i).template Get<U>()[(rows + 7) / 8 * 8 * 32 / sizeof(U)];",
                "after the blocks",
            )
        line("const DataCopyExtParams copy{1, static_cast<uint32_t>(rows * sizeof(U)), 0, 0, 0};")
        line("DataCopyPad(values, gm[r0_], copy, DataCopyPadExtParams<U>{false, 0, 0, 0});")
    w.line()
    line("template <typename U>")
    with w.block("__aicore__ inline LocalTensor<U> ColumnValues(uint32_t i, int32_t slot)"):
        line("return RowBuf(i).template Get<U>()[slot * (ROW_BYTES / 2 / sizeof(U))];", "a half per slot")
    w.line()
    paragraph(
        w,
        "Columns, tiles of fewer than 8 rows (long rows, row chunks): rows go in groups of whole tiles. At a group's first tile its values come by one DMA into input i's row buffer after one 32-byte block per row, which one Brcb fills; each row is then copied from its block. A group has 2 tiles or more: the next group's DMA waits (slot flag V -> MTE2) for the Brcb that read the values before. Returns the group's rows; first: its first row; starts: this tile starts it.",
    )
    line("template <typename U>")
    with w.block("__aicore__ inline uint64_t Group(uint64_t& first, bool& starts) const"):
        line("const uint64_t step = tiling_->bcChunks == 1 ? pack_ : 1;", "rows per tile")
        line("const uint64_t cap = ROW_BYTES / (32 + sizeof(U)) / 8 * 8 / step * step;", "blocks and values")
        line("first = rowBase_ + (r0_ - rowBase_) / cap * cap;")
        line("starts = tile_ == 0 || (col0_ == 0 && r0_ == first);", "a chunked core may start mid-row")
        line("return rowEnd_ - first < cap ? rowEnd_ - first : cap;")
    w.line()
    line(comment="`rows` rows of clen_ elements, gmStride apart in GM, pitch_ apart in UB: one DataCopyPad.")
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void LoadRows(const LocalTensor<U>& dst, const GlobalTensor<U>& src, uint64_t rows, "
        "uint64_t gmStride)"
    ):
        line("const uint32_t bytes = static_cast<uint32_t>(clen_ * sizeof(U));")
        line(
            "const uint32_t gap = rows > 1 ? static_cast<uint32_t>((gmStride - clen_) * sizeof(U)) : 0;",
            "bytes",
        )
        line(
            "const uint32_t dstGap = rows > 1 ? static_cast<uint32_t>((pitch_ * sizeof(U) - (bytes + 31) / 32 * 32) / 32) : 0;",
            "32-byte blocks",
        )
        line("const DataCopyExtParams copy{static_cast<uint16_t>(rows), bytes, gap, dstGap, 0};")
        line("DataCopyPad(dst, src, copy, DataCopyPadExtParams<U>{false, 0, 0, 0});")
    w.line()
    line(comment="V part of input i's tile, after the MTE2 -> V wait: splat, replicate the resident row, or")
    line(comment="one value per row; then a V barrier orders the math after it.")
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void Fill(const LocalTensor<U>& dst, const GlobalTensor<U>& gm, uint32_t i, uint32_t len)"
    ):
        line("if constexpr (MODE == BcMode::FLAT) return;", "no input is broadcast")
        line("const uint32_t kind = tiling_->bcKind[i];")
        line("if (kind == BC_FULL || kind == BC_STRIDED) return;", "copied in by Load")
        line("if (ROWWISE && kind == BC_RESIDENT) return;", "the view is the resident row")
        with w.block("if (kind == BC_ONE)"):
            line("Splat(dst, OneValue<U>(i), len);")
        with w.block("else if (kind == BC_RESIDENT)"):
            line("const uint32_t row = static_cast<uint32_t>(pitch_);")
            line("DataCopy(dst, RowBuf(i).template Get<U>(), row);", "UB -> UB, whole 32-byte blocks")
            with w.block("for (uint64_t have = 1; have < rows_; have *= 2)"):
                line("const uint64_t more = rows_ - have < have ? rows_ - have : have;")
                barrier()
                line(
                    "DataCopy(dst[have * row], dst, static_cast<uint32_t>(more * row));",
                    "double the rows",
                )
        with w.block("else if (kind == BC_COLUMN && sizeof(U) > 1)"):
            line("SpreadColumn(dst, i);")
        with w.block("else"):
            line(comment="PER_ROW inputs, 8-bit columns: a scalar read per row")
            line("const uint32_t width = static_cast<uint32_t>(tiling_->bcChunks == 1 ? pitch_ : clen_);")
            with w.block("for (uint64_t r = 0; r < rows_; ++r)"):
                line("uint64_t left = 0;")
                line("Splat(dst[r * pitch_], gm.GetValue(RowOffset(i, r0_ + r, left)), width);")
        barrier()
    w.line()
    spread_column(w, barrier)
    vc.helpers(w, [], "splat")
    several = not full_outputs
    line(
        comment="One output tile to GM: a range (FLAT/SCALAR) or the tile's rows in one 2-D copy"
        + ("; output o" if several else ".")
    )
    if several:
        line(comment="smaller than the broadcast shape (GENERAL mode): StoreOwn.")
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void Store(const GlobalTensor<U>& gm, const LocalTensor<U>& tile, "
        "const DataCopyExtParams& copy, uint64_t t, uint32_t o)"
    ):
        if not several:
            line("(void)o;", "one output of the broadcast shape")
        with w.block(f"if constexpr ({FLAT_MODES})"):
            if several:
                line("(void)o;")
            line("DataCopyPad(gm[offset_ + t * tileElems_], tile, copy);")
        with w.block("else"):
            line("(void)copy;")
            if several:
                line("if ((tiling_->bcOutEmpty >> o) & 1) return;", "empty, next to outputs with elements")
                with w.block("if ((tiling_->bcOutSmall >> o) & 1)"):
                    line("StoreOwn(gm, tile, o);")
                    line("return;")
            line("const uint32_t bytes = static_cast<uint32_t>(clen_ * sizeof(U));")
            line(
                "const uint32_t srcGap = rows_ > 1 ? static_cast<uint32_t>((pitch_ * sizeof(U) - (bytes + 31) / 32 * 32) / 32) : 0;"
            )
            line(
                "const uint32_t dstGap = rows_ > 1 ? static_cast<uint32_t>((inner_ - clen_) * sizeof(U)) : 0;"
            )
            line("const DataCopyExtParams rows{static_cast<uint16_t>(rows_), bytes, srcGap, dstGap, 0};")
            line("DataCopyPad(gm[r0_ * inner_ + col0_], tile, rows);")
    w.line()
    if several:
        store_own(w)
    line(comment="One output tile to GM: MTE3 waits for V to finish the tile, then copies it out.")
    line("template <typename U>")
    with w.block(
        "__aicore__ inline void CopyOut(const GlobalTensor<U>& gm, const LocalTensor<U>& tile, "
        "const DataCopyExtParams& copy, uint64_t t, int32_t id, uint32_t o)"
    ):
        line("SetFlag<HardEvent::V_MTE3>(id);", "V -> MTE3: the tile is computed")
        line("WaitFlag<HardEvent::V_MTE3>(id);")
        line("Store(gm, tile, copy, t, o);")
    w.line()
    # Per-input accessors: the size-1 value and the resident row buffer.
    line(comment="Input i's value when it has one element (read in InitBroadcast).")
    line("template <typename U>")
    with w.block("__aicore__ inline U OneValue(uint32_t i) const"):
        for idx, name, c in inputs:
            with w.block(f"if constexpr (IsSameType<U, {c}>::value)"):
                line(f"if (i == {idx}) return {camel(name)}One_;")
        line("return U{};")
    w.line()
    with w.block("__aicore__ inline TBuf<TPosition::VECIN>& RowBuf(uint32_t i)"):
        if len(inputs) == 1:
            line("(void)i;", "one tensor input (bcast seed 1: -Werror=unused-parameter)")
        for idx, name, _ in inputs[:-1]:
            line(f"if (i == {idx}) return {camel(name)}RowBuf_;")
        line(f"return {camel(inputs[-1][1])}RowBuf_;")
    w.line()
    line(comment="Once per core: size-1 inputs read, broadcast rows made resident, L2 hints for big streams.")
    with w.block("__aicore__ inline void InitBroadcast()"):
        for idx, name, c in inputs:
            used = f"((GM_INPUTS >> {idx}) & 1)"
            line(
                f"if ({used} && MODE != BcMode::FLAT && tiling_->bcKind[{idx}] == BC_ONE && tiling_->bcSize[{idx}] != 0) "
                f"{camel(name)}One_ = {camel(name)}Gm_.GetValue(0);",
                (
                    "FLAT: a SCALAR twin reads it as a Scalar; a variant that does not read it has no GM address; "
                    "size 0: only empty outputs read it"
                    if idx == inputs[0][0]
                    else None
                ),
            )
            line(
                f"if ({used} && ((tiling_->bcL2Bypass >> {idx}) & 1)) "
                f"{camel(name)}Gm_.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);",
                "read once, larger than L2",
            )
        with w.block(
            "if constexpr (MODE == BcMode::ROW || MODE == BcMode::COL || MODE == BcMode::GENERAL || ROWWISE)"
        ):
            line("bool resident = false;")
            for idx, name, c in inputs:
                line(
                    f"if (!ROWWISE || RES_INPUT == {idx}) pipe_.InitBuffer({camel(name)}RowBuf_, ROW_BYTES);",
                    "RESIDENT<i>: only input i's row" if idx == inputs[0][0] else None,
                )
            for idx, name, c in inputs:
                with w.block(
                    f"if (((GM_INPUTS >> {idx}) & 1) && tiling_->bcKind[{idx}] == BC_RESIDENT && count_ > 0)"
                ):
                    line(
                        f"const DataCopyExtParams copy{{1, static_cast<uint32_t>(inner_ * sizeof({c})), 0, 0, 0}};"
                    )
                    line(
                        f"DataCopyPad({camel(name)}RowBuf_.Get<{c}>(), {camel(name)}Gm_, copy, "
                        f"DataCopyPadExtParams<{c}>{{false, 0, 0, 0}});",
                        "the broadcast row: once per core",
                    )
                    line("resident = true;")
            with w.block("if (resident)"):
                line(f"SetFlag<HardEvent::MTE2_V>({init_id});", "MTE2 -> V: the resident rows are in UB")
                line(f"WaitFlag<HardEvent::MTE2_V>({init_id});")


def members(w, op_type: str, inputs: list[tuple[int, str, str]], row_bytes: int) -> None:
    w.line(f"static constexpr uint32_t ROW_BYTES = {row_bytes};", "UB per input for a resident broadcast row")
    w.line(f"static constexpr uint32_t IDLE_ELEMS = {IDLE_ELEMS};", "a buffer the RESIDENT mode does not use")
    for _, name, _ in inputs:
        w.line(f"TBuf<TPosition::VECIN> {camel(name)}RowBuf_;")
    for _, name, c in inputs:
        w.line(f"{c} {camel(name)}One_{{}};")
    w.line(f"const {op_type}TilingData* tiling_ = nullptr;")
    w.line("uint32_t slots_ = 2;", "ping-pong slots in use (the host's bcSlots)")
    w.line("uint64_t inner_ = 0, pitch_ = 0, pack_ = 0;", "row modes: row length, UB pitch, rows per tile")
    w.line(
        "uint64_t r0_ = 0, rows_ = 0, rowIn_ = 0, col0_ = 0, clen_ = 0;",
        "the tile's rows, the row in its block, its columns",
    )
    w.line("uint32_t tileElems_ = 0;", "elements of a tile, or of a block of rows (RESIDENT modes)")
    w.line("uint64_t tile_ = 0;", "the tile SetTile set up")
    w.line("uint64_t rowBase_ = 0, rowEnd_ = 0;", "row modes: the core's rows")
    w.line("bool first_ = true;", "the tile is a block's first row (always, outside the RESIDENT modes)")
    w.line("bool last_ = true;", "... its last row")


def dispatch(
    w, variants, first_dtype, call_args: str, targs_of, resident_inputs: list[int], dtype_macro: str
) -> None:
    """The entry: one ``TILING_KEY_IS`` per static-attribute key and mode, then the SCALAR twins.
    A twin the compiler kept for some element types only (where it is cheaper than the splat) runs
    under an ``if constexpr`` on the binary's element type; for the others the host never selects
    its key, so the branch is empty and no class is instantiated for it."""
    every = [v for v in variants if v.dtype == first_dtype]
    keys = [v for v in every if v.bind.get(SCALAR_INPUT, TENSOR_CHOICE) == TENSOR_CHOICE]
    dtypes = list(dict.fromkeys(v.dtype for v in variants))
    twins: dict[int, list] = {}
    for v in variants:
        if v.bind.get(SCALAR_INPUT, TENSOR_CHOICE) != TENSOR_CHOICE:
            twins.setdefault(v.key, []).append(v)
    attr_keys = len({v.key for v in keys})
    modes = list(enumerate(MODES)) + [(len(MODES) + i, f"RESIDENT{i}") for i in resident_inputs]
    keyed = "BcMode" if attr_keys == 1 else f"attribute key + {attr_keys} * BcMode"
    w.line(comment=f"tiling key = {keyed}; then the SCALAR twins")
    for m, mode in modes:  # one line per key
        for v in keys:
            w.line(
                f"if (TILING_KEY_IS({v.key + attr_keys * m})) Run<{', '.join(targs_of(v) + [f'BcMode::{mode}'])}>({call_args});"
            )
    for key, group in twins.items():  # SCALAR with one size-1 input, read as a Scalar: the FLAT path
        v = group[0]
        run = f"Run<{', '.join(targs_of(v) + ['BcMode::FLAT'])}>({call_args});"
        why = f"SCALAR: input '{v.bind[SCALAR_INPUT][len(TWIN_PREFIX):]}' read as a Scalar"
        if len(group) == len(dtypes):
            w.line(f"if (TILING_KEY_IS({key})) {run}", why)
            continue
        types = " || ".join(f"IsSameType<{dtype_macro}, {ctype(t.dtype)}>::value" for t in group)
        others = [d for d in dtypes if d not in {t.dtype for t in group}]
        if len(others) < len(group):  # the shorter test: the element types it is not kept for
            types = " && ".join(f"!IsSameType<{dtype_macro}, {ctype(d)}>::value" for d in others)
        with w.block(f"if (TILING_KEY_IS({key}))"):
            w.line(comment=why + " (where it is cheaper than the splat)")
            with w.block(f"if constexpr ({types})"):
                w.line(run)


# -- RESIDENT modes: which buffers hold one row, and how many rows a block holds ----------------


IDLE_ELEMS = 32  # a buffer the RESIDENT mode leaves unused keeps 32 elements (an aligned block)


def buffer_roles(func) -> dict[str, tuple[int, set, bool]]:
    """bN -> (slots, inputs loaded into it, an output is stored from it)."""
    info = {b: (spec["slots"], set(), False) for b, spec in func.attributes["buffers"].items()}
    for op in func.loop().region:
        if op.opname == "dma.load":
            info[op.attrs["buf"]][1].add(op.operands[0].name)
        elif op.opname == "dma.store" and op.operands[0].owner is not None:
            b = op.operands[0].owner.attrs.get("buf")
            if b in info:
                slots, loads, _ = info[b]
                info[b] = (slots, loads, True)
    return info


def holds_one_row(role: tuple[int, set, bool], resident: str) -> bool:
    """A buffer needs one row (not a block) when input ``resident`` is the resident row: a
    single-slot scratch buffer, or a slotted one only that input is copied into."""
    slots, loads, stored = role
    return slots == 1 or (not stored and bool(loads) and loads <= {resident})


def row_cap(func, row_bytes: int) -> int:
    """Elements of the longest row the RESIDENT modes take: the resident row fits its UB and a
    row is whole 256-element repeats."""
    sizes = [p.value.type.dtype.bytes for p in func.params]
    sizes += [o.type.dtype.bytes for o in func.outputs]
    return row_bytes // max(sizes, default=1) // 256 * 256
