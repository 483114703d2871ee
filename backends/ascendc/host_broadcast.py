"""Host side of ``broadcast=True`` operators: the run-time broadcast analysis in TilingFunc.

TilingFunc right-aligns the tensor inputs' shapes (numpy rules, up to 8 dims), rejects shapes
that do not broadcast (naming both shapes and the axis), drops size-1 output axes, merges
adjacent axes on which every input has the same broadcast pattern (moving or broadcast), and
gives each input a stride per merged axis (0 where it is broadcast). From that it picks a kernel
mode, which becomes part of the tiling key (``key = attribute index + ATTR_KEYS * mode``), so one
compiled kernel serves every shape:

==========  ==============================================================================
FLAT        every input has the output's shape: one flat range (the path of equal shapes)
SCALAR      the rest are size-1 tensors: read once per core, splatted by the vector unit
ROW         [M, N] with [1, N] / [N] (either side): the row is loaded once per core and kept
            resident in UB; the moving input is packed many rows per DMA at a 32-byte pitch
COL         [M, N] with [M, 1]: each packed row takes one value of the column
GENERAL     anything else: an odometer over the merged outer axes, one 2-D DMA per run of
            rows along the second-to-last axis
==========  ==============================================================================

An input broadcast along the row only is a COLUMN when it moves on every outer axis (row r's
value is its element r: COL, and GENERAL's outer ``[N, 1]`` with ``[1, M]``), its values copied
in by one DMA per tile and spread by Brcb; else (broadcast on an outer axis too) it is PER_ROW,
each row's value found by the odometer.

The row modes process whole rows packed into a tile at a pitch rounded up to 32 bytes (of the
narrowest GM tensor), so every row starts 32-byte aligned in UB; rows longer than a tile are cut
into chunks. The output of a tile leaves in one 2-D ``DataCopyPad``. Each input's role
(``bcKind``) is computed here; the kernel (``kernel/broadcast.py``) follows it.
"""

from __future__ import annotations

from dsl.ir import ScalarType

from .host_snippets import emit_shape_text
from .writer import CodeWriter

MAX_DIMS = 8
MODES = ("FLAT", "SCALAR", "ROW", "COL", "GENERAL")
KINDS = ("FULL", "ONE", "RESIDENT", "STRIDED", "COLUMN", "PER_ROW")
# UB kept per tensor input for a resident broadcast row: 4 KiB holds seed 003's 1023-element
# int32 row at its 32-byte pitch. A longer row is re-read per tile (kind STRIDED, mode GENERAL).
RESIDENT_BYTES = 4096
RESIDENT_TOTAL = 16384
# A moving input at least this large is read with SetL2CacheHint(CACHE_MODE_DISABLE): it is read
# once, is larger than the 910B's L2 (the seed's threshold, 128 MiB, measured on 910B4: -16% on its
# C2 case), and would only evict the resident broadcast row and the outputs from L2.
L2_BYPASS_BYTES = 128 << 20
# Double buffering only where it pays (seed 003 section 4, its guard CanPipelineRows): its row
# kernel double-buffers a block only when (PACK_ELEMS / inner) <= 16 with PACK_ELEMS = 16384, i.e.
# rows of at least 964 elements. Its measurement: rows of 511 took 309 us with one slot and 371 us
# with two (the flag pairs cost more than the overlap gains); rows of 1023 (its C2) gain from two.
# The RESIDENT modes have the seed's layout (blocks of rows, the math row by row against the
# resident row) and follow its guard; the other modes compute a whole tile per vector op, as FLAT
# does, and keep two slots.
SEED_PACK_ELEMS = 16384
PIPELINE_MAX_PACK = 16


def twin_key(attr_key: int, index: int, attr_keys: int, n_inputs: int) -> int:
    """Tiling key of the SCALAR-mode twin that reads input ``index`` as a Scalar (compile.py's
    ``_scalar_twins``): after the keys of every mode (``attr + attr_keys * mode``)."""
    return attr_keys * (len(MODES) + n_inputs) + index * attr_keys + attr_key


def resident_bytes(n_tensors: int) -> int:
    """UB bytes per tensor input reserved for a resident broadcast row."""
    if n_tensors == 0:
        return 0
    per = min(RESIDENT_BYTES, RESIDENT_TOTAL // n_tensors)
    return per // 32 * 32


def ub_reserve(func) -> int:
    """UB the broadcast machinery takes from the tile budget (the resident rows)."""
    if not func.attributes.get("broadcast"):
        return 0
    n = sum(1 for p in func.params if not isinstance(p.value.type, ScalarType))
    return n * resident_bytes(n)


def output_inputs(func) -> list[int]:
    """Per output of ``func`` (tensor or tile level): a mask of the inputs its value is computed
    from (bit i: parameter i). numpy gives an output the broadcast shape of its own operands."""
    params = {id(p.value): i for i, p in enumerate(func.params)}
    memo: dict[int, int] = {}

    def deps(v) -> int:
        if id(v) in params:
            return 1 << params[id(v)]
        if v.owner is None:
            return 0
        if id(v) not in memo:
            memo[id(v)] = 0
            mask = 0
            for o in v.owner.operands:
                mask |= deps(o)
            memo[id(v)] = mask
        return memo[id(v)]

    tensors = sum(1 << i for i, p in enumerate(func.params) if not isinstance(p.value.type, ScalarType))
    if func.returns:
        return [deps(v) & tensors for v in func.returns]
    stores = {op.attrs["output"]: op for op in func.walk() if op.opname == "dma.store"}
    return [deps(stores[o.name].operands[0]) & tensors if o.name in stores else 0 for o in func.outputs]


def output_masks(plan) -> list[list[int]]:
    """[attribute key][output]: the inputs each output is computed from (0: no tensor input; it
    keeps the shape of all inputs). From the tensor-form variants of the first dtype."""
    from .kernel.broadcast import SCALAR_INPUT, TENSOR_CHOICE

    table: dict[int, list[int]] = {}
    for v in plan.variants:
        if v.dtype == plan.dtypes[0] and v.bind.get(SCALAR_INPUT, TENSOR_CHOICE) == TENSOR_CHOICE:
            table.setdefault(v.key, output_inputs(v.func))
    n_out = len(plan.func0.outputs)
    return [table.get(k, [0] * n_out) for k in range(max(table, default=0) + 1)]


def tiling_fields(n_inputs: int, n_outputs: int = 1) -> list[tuple[str, str, str]]:
    return [
        ("uint32_t", "bcOutSmall", "bit o: output o is smaller than the broadcast shape (its own operands')"),
        ("uint32_t", "bcOutEmpty", "bit o: output o is empty while others have elements (Store skips it)"),
        (
            f"int64_t@{n_outputs * MAX_DIMS}",
            "bcOutStrides",
            "per output and merged axis (outputs of bcOutSmall): element stride, 0 = broadcast",
        ),
        ("uint32_t", "bcRank", "merged broadcast axes (row modes)"),
        ("uint32_t", "bcTile", "elements of a tile (plan-buffers), or of a block of rows in RESIDENT<i>"),
        ("uint32_t", "bcL2Bypass", "bit i: input i streams past L2 (CACHE_MODE_DISABLE)"),
        ("uint64_t", "bcInner", "elements of the last merged axis: one row"),
        ("uint64_t", "bcChunk", "elements of a row chunk (= bcInner when a row fits a tile)"),
        ("uint64_t", "bcChunks", "chunks per row"),
        ("uint64_t", "bcPitch", "UB elements between packed rows (32-byte multiple)"),
        ("uint64_t", "bcPackRows", "rows per tile"),
        (
            "uint32_t",
            "bcSlots",
            "ping-pong slots: 2, or 1 for short rows in a RESIDENT mode (seed 003's guard)",
        ),
        (f"uint64_t@{MAX_DIMS}", "bcDims", "merged output dims"),
        (
            f"int64_t@{n_inputs * MAX_DIMS}",
            "bcStrides",
            "per input and merged axis: element stride, 0 = broadcast",
        ),
        (f"uint64_t@{n_inputs}", "bcSize", "elements of each input"),
        (f"uint32_t@{n_inputs}", "bcKind", "FULL, ONE, RESIDENT, STRIDED, COLUMN, PER_ROW"),
    ]


def field_line(ctype: str, name: str) -> str:
    if "@" in ctype:
        base, n = ctype.split("@")
        return f"TILING_DATA_FIELD_DEF_ARR({base}, {n}, {name});"
    return f"TILING_DATA_FIELD_DEF({ctype}, {name});"


def emit_tables(w: CodeWriter, plan) -> None:
    """Constants and the analysis function (inside TilingFunc's anonymous namespace)."""
    n = len(plan.func0.params)
    n_tensors = sum(1 for p in plan.func0.params if not isinstance(p.value.type, ScalarType))
    w.line()
    w.line(comment="Broadcasting (host_broadcast.py): numpy rules, right-aligned, up to 8 dims.")
    w.line(f"constexpr size_t BC_DIMS = {MAX_DIMS};")
    w.line(f"constexpr size_t BC_INPUTS = {n};")
    w.line(
        f"constexpr uint64_t ATTR_KEYS = {plan.attr_keys};", "tiling key = attribute index + ATTR_KEYS * mode"
    )
    w.line(
        f"constexpr uint64_t BC_RESIDENT_BYTES = {resident_bytes(n_tensors)};",
        "UB per input for a resident broadcast row",
    )
    w.line(
        f"constexpr uint64_t BC_L2_BYPASS_BYTES = {L2_BYPASS_BYTES}ULL;",
        "a moving input this large bypasses L2 (seed 003: 128 MiB)",
    )
    w.line(
        f"constexpr uint64_t BC_SEED_PACK_ELEMS = {SEED_PACK_ELEMS};",
        "seed 003's block, for its double-buffering guard",
    )
    w.line(
        f"constexpr uint64_t BC_PIPELINE_MAX_PACK = {PIPELINE_MAX_PACK};",
        "more rows per seed block: one slot (double buffering loses on short rows)",
    )
    modes = ", ".join(f"MODE_{m} = {i}" for i, m in enumerate(MODES))
    w.line(f"enum BcMode : uint64_t {{ {modes}, MODE_RESIDENT0 = {len(MODES)} }};", "+ i: input i resident")
    w.line("enum BcKind : uint32_t { " + ", ".join(f"BC_{k} = {i}" for i, k in enumerate(KINDS)) + " };")
    emit_shape_text(w, "Shapes of present tensor inputs as text for messages: [40320, 1023].")
    w.line()
    w.line(comment="The output shape of the present tensor inputs (nullptr: absent or a Scalar).")
    with w.block("bool BroadcastShape(const gert::Shape* const* shapes, gert::Shape& out)"):
        w.line("size_t rank = 0;")
        w.line("size_t owner[BC_DIMS] = {};", "which input set each output dim (for messages)")
        with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
            w.line("if (shapes[i] == nullptr) continue;")
            with w.block("if (shapes[i]->GetDimNum() > BC_DIMS)"):
                w.line(
                    'OP_LOGE(OP_TYPE, "input %s has %zu dims; broadcasting supports up to %zu", INPUTS[i].name, '
                    "shapes[i]->GetDimNum(), BC_DIMS);"
                )
                w.line("return false;")
            w.line("if (shapes[i]->GetDimNum() > rank) rank = shapes[i]->GetDimNum();")
        w.line("int64_t dims[BC_DIMS];")
        w.line("for (size_t d = 0; d < rank; ++d) dims[d] = 1;")
        with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
            w.line("if (shapes[i] == nullptr) continue;")
            w.line("const size_t nd = shapes[i]->GetDimNum();")
            with w.block("for (size_t d = 0; d < nd; ++d)"):
                w.line("const size_t o = rank - nd + d;")
                w.line("const int64_t s = shapes[i]->GetDim(d);")
                w.line("if (s == 1 || s == dims[o]) continue;")
                with w.block("if (dims[o] == 1)"):
                    w.line("dims[o] = s;")
                    w.line("owner[o] = i;")
                    w.line("continue;")
                w.line("char a[160], b[160];")
                w.line("ShapeText(*shapes[owner[o]], a, sizeof(a));")
                w.line("ShapeText(*shapes[i], b, sizeof(b));")
                w.line(
                    'OP_LOGE(OP_TYPE, "inputs %s %s and %s %s do not broadcast: axis %lld (counted from the last) '
                    'has size %lld in one and %lld in the other", INPUTS[owner[o]].name, a, INPUTS[i].name, b, '
                    "static_cast<long long>(o) - static_cast<long long>(rank), static_cast<long long>(dims[o]), "
                    "static_cast<long long>(s));"
                )
                w.line("return false;")
        w.line("out.SetDimNum(0);")
        w.line("for (size_t d = 0; d < rank; ++d) out.AppendDim(dims[d]);")
        w.line("return true;")
    w.line()
    masks = output_masks(plan)
    n_out = len(plan.func0.outputs)
    w.line(comment="Per attribute key and output: bit i, the output is computed from input i (0: from no")
    w.line(comment="tensor input). numpy gives each output the broadcast shape of its own operands.")
    names = ", ".join(f'"{o.name}"' for o in plan.func0.outputs)
    w.line(f"constexpr const char* OUTPUT_NAMES[{n_out}] = {{{names}}};")
    rows = ", ".join("{" + ", ".join(f"0x{m:x}u" for m in ms) + "}" for ms in masks)
    w.line(f"constexpr uint32_t BC_OUT_INPUTS[{len(masks)}][{n_out}] = {{{rows}}};")
    w.line(comment="Output o's shape: the broadcast of the inputs in `mask` (every input when 0).")
    with w.block("bool OutputShape(const gert::Shape* const* shapes, uint32_t mask, gert::Shape& out)"):
        w.line("const gert::Shape* own[BC_INPUTS] = {};")
        w.line(
            "for (size_t i = 0; i < BC_INPUTS; ++i) own[i] = mask == 0 || ((mask >> i) & 1) ? shapes[i] : nullptr;"
        )
        w.line("return BroadcastShape(own, out);")
    w.line()
    w.line(comment="Inputs that broadcast to an empty shape while outputs have elements (numpy: each output")
    w.line(comment="has the broadcast of its own operands): the kernel runs over the broadcast of the inputs")
    w.line(
        comment="those outputs read. `dummies`: the other inputs, which only empty outputs read (kind ONE,"
    )
    w.line(
        comment="no element read: InitBroadcast skips an input of size 0); `empty`: the outputs Store skips."
    )
    with w.block(
        "bool LiveShapes(const gert::Shape** shapes, gert::Shape& out, uint64_t key, uint32_t& dummies, "
        "uint32_t& empty)"
    ):
        w.line("dummies = empty = 0;")
        w.line(f"if (out.GetShapeSize() != 0 || key >= {len(masks)}) return true;")
        w.line("uint32_t live = 0;")
        with w.block(f"for (size_t o = 0; o < {n_out}; ++o)"):
            w.line("const uint32_t mask = BC_OUT_INPUTS[key][o];")
            w.line("gert::Shape own;")
            w.line("if (mask != 0 && OutputShape(shapes, mask, own) && own.GetShapeSize() > 0) live |= mask;")
            w.line("else empty |= 1u << o;", "absent outputs too: the variant stores nothing there")
        with w.block("if (live == 0)"):
            w.line("empty = 0;", "every output is empty: nothing to compute")
            w.line("return true;")
        with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
            with w.block("if (shapes[i] != nullptr && ((live >> i) & 1) == 0)"):
                w.line("dummies |= 1u << i;")
                w.line("shapes[i] = nullptr;")
        w.line("return BroadcastShape(shapes, out);")
    w.line()
    w.line(
        comment="Outputs smaller than the broadcast of all inputs (numpy: of their own operands): their strides"
    )
    w.line(
        comment="over the merged axes (0 where broadcast) and the mode GENERAL, whose stores write each of their"
    )
    w.line(comment="elements once (kernel StoreOwn). `small`: the mask of such outputs.")
    with w.block(
        f"bool SmallOutputs(const gert::Shape* const* shapes, const gert::Shape& all, uint64_t key, "
        f"{plan.op_type}TilingData& tiling, uint32_t& small)"
    ):
        w.line(f"int64_t strides[{n_out} * BC_DIMS] = {{}};")
        w.line("small = 0;")
        w.line(f"const uint32_t rank = tiling.get_bcRank();")
        with w.block(f"for (size_t o = 0; o < {n_out} && key < {len(masks)}; ++o)"):
            w.line("const uint32_t mask = BC_OUT_INPUTS[key][o];")
            w.line("gert::Shape own;")
            w.line("if (mask == 0 || !OutputShape(shapes, mask, own)) continue;")
            w.line("if (all.GetShapeSize() == 0) continue;", "every output is empty (LiveShapes)")
            w.line(
                "if (own.GetShapeSize() == all.GetShapeSize()) continue;",
                "the same elements (leading size-1 axes aside): the same layout",
            )
            w.line("small |= 1u << o;")
            w.line("int64_t acc = 1;")
            with w.block("for (uint32_t a = rank; a-- > 0;)"):
                w.line("bool moving = false;")
                with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
                    w.line(
                        "if (((mask >> i) & 1) && shapes[i] != nullptr && tiling.get_bcStrides()[i * BC_DIMS + a] != 0) "
                        "moving = true;"
                    )
                w.line("strides[o * BC_DIMS + a] = moving ? acc : 0;")
                w.line("if (moving) acc *= static_cast<int64_t>(tiling.get_bcDims()[a]);")
        w.line("tiling.set_bcOutSmall(small);")
        w.line("tiling.set_bcOutStrides(strides);")
        w.line("return true;")
    w.line()
    w.line(comment="Merged axes, strides, each input's kind and the mode (see host_broadcast.py).")
    with w.block(
        f"uint64_t BroadcastPlan(const gert::Shape* const* shapes, const gert::Shape& out, {plan.op_type}TilingData& tiling)"
    ):
        w.line("const size_t rank = out.GetDimNum();")
        w.line("uint64_t dims[BC_DIMS] = {};")
        w.line("bool moving[BC_INPUTS][BC_DIMS] = {};", "input i has the output's size on merged axis k")
        w.line("size_t k = 0;")
        with w.block("for (size_t d = 0; d < rank; ++d)"):
            w.line("const uint64_t size = static_cast<uint64_t>(out.GetDim(d));")
            w.line("if (size == 1) continue;", "a size-1 output axis moves nothing")
            w.line("bool pattern[BC_INPUTS] = {};")
            with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
                w.line("if (shapes[i] == nullptr) continue;")
                w.line("const size_t nd = shapes[i]->GetDimNum();")
                w.line(
                    "pattern[i] = d + nd >= rank && shapes[i]->GetDim(d + nd - rank) == static_cast<int64_t>(size);"
                )
            w.line("bool same = k > 0;")
            w.line("for (size_t i = 0; i < BC_INPUTS && same; ++i) same = pattern[i] == moving[i][k - 1];")
            with w.block("if (same)"):
                w.line("dims[k - 1] *= size;", "merge with the previous axis: same broadcast pattern")
                w.line("continue;")
            w.line("for (size_t i = 0; i < BC_INPUTS; ++i) moving[i][k] = pattern[i];")
            w.line("dims[k++] = size;")
        w.line("if (k == 0) dims[k++] = 1;", "a one-element output")
        w.line("uint64_t strides[BC_INPUTS * BC_DIMS] = {};")
        w.line("uint64_t sizes[BC_INPUTS] = {};")
        w.line("uint32_t kinds[BC_INPUTS] = {};")
        w.line("bool flat = true, scalarOnly = true;")
        with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
            w.line("if (shapes[i] == nullptr) continue;")
            w.line("uint64_t acc = 1;")
            w.line("bool all = true, none = true, outerNone = true, outerAll = true;")
            with w.block("for (size_t a = k; a-- > 0;)"):
                w.line("strides[i * BC_DIMS + a] = moving[i][a] ? acc : 0;")
                w.line("if (moving[i][a]) acc *= dims[a];")
                w.line("all = all && moving[i][a];")
                w.line("none = none && !moving[i][a];")
                w.line("if (a + 1 < k) outerNone = outerNone && !moving[i][a];")
                w.line("if (a + 1 < k) outerAll = outerAll && moving[i][a];")
            w.line("sizes[i] = static_cast<uint64_t>(shapes[i]->GetShapeSize());")
            w.line("kinds[i] = outerNone ? BC_RESIDENT : BC_STRIDED;", "moving along the row")
            w.line(
                "if (!moving[i][k - 1]) kinds[i] = outerAll ? BC_COLUMN : BC_PER_ROW;",
                "row r's value: element r, or found by the odometer",
            )
            w.line("if (all) kinds[i] = BC_FULL;")
            w.line("if (none) kinds[i] = BC_ONE;")
            w.line("flat = flat && kinds[i] == BC_FULL;")
            w.line("scalarOnly = scalarOnly && (kinds[i] == BC_FULL || kinds[i] == BC_ONE);")
        w.line("uint64_t mode = MODE_GENERAL;")
        with w.block("if (flat || out.GetShapeSize() == 0)"):
            w.line("mode = MODE_FLAT;")
        with w.block("else if (scalarOnly && k == 1)"):
            w.line("mode = MODE_SCALAR;")
        with w.block("else if (k == 2)"):
            w.line("bool row = true, col = true;")
            with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
                w.line("if (shapes[i] == nullptr) continue;")
                w.line("row = row && (kinds[i] == BC_FULL || kinds[i] == BC_ONE || kinds[i] == BC_RESIDENT);")
                w.line("col = col && (kinds[i] == BC_FULL || kinds[i] == BC_ONE || kinds[i] == BC_COLUMN);")
            w.line("mode = row ? MODE_ROW : col ? MODE_COL : MODE_GENERAL;")
        w.line("tiling.set_bcRank(static_cast<uint32_t>(k));")
        w.line("tiling.set_bcInner(dims[k - 1]);")
        w.line("tiling.set_bcDims(dims);")
        w.line("int64_t signedStrides[BC_INPUTS * BC_DIMS];")
        w.line(
            "for (size_t s = 0; s < BC_INPUTS * BC_DIMS; ++s) signedStrides[s] = static_cast<int64_t>(strides[s]);"
        )
        w.line("tiling.set_bcStrides(signedStrides);")
        w.line("tiling.set_bcSize(sizes);")
        w.line("tiling.set_bcKind(kinds);")
        w.line("return mode;")
    w.line()
    w.line(comment="Row modes: rows packed per tile at a 32-byte pitch, or a long row cut into chunks.")
    w.line(comment="Returns the units (rows, or row chunks) the cores share.")
    with w.block(
        f"uint64_t RowGeometry(uint64_t& mode, const SplitSpec& split, {plan.op_type}TilingData& tiling)"
    ):
        w.line("const uint64_t tile = split.tile, granule = split.granule, maxBytes = split.maxBytes;")
        w.line("const uint64_t inner = tiling.get_bcInner();")
        w.line("uint64_t rows = 1;")
        w.line("for (uint32_t a = 0; a + 1 < tiling.get_bcRank(); ++a) rows *= tiling.get_bcDims()[a];")
        w.line("uint64_t pitch = (inner + granule - 1) / granule * granule;")
        w.line("uint64_t chunk = inner, chunks = 1, pack = 1;")
        with w.block("if (pitch <= tile)"):
            w.line("pack = tile / pitch;")
            w.line("if (pack > 4095) pack = 4095;", "DataCopyPad blockCount")
        with w.block("else"):
            w.line("chunk = tile / granule * granule;")
            w.line("chunks = (inner + chunk - 1) / chunk;")
        w.line("uint32_t kinds[BC_INPUTS];")
        w.line("std::memcpy(kinds, tiling.get_bcKind(), sizeof(kinds));")
        w.line("bool column = false;", "a column input: its values are spread by Brcb (COL, GENERAL)")
        with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
            w.line("column = column || kinds[i] == BC_COLUMN;")
            w.line(comment="A row that is chunked, or too long to keep, is re-read per tile.")
            with w.block(
                "if (kinds[i] == BC_RESIDENT && (chunks > 1 || pitch * maxBytes > BC_RESIDENT_BYTES))"
            ):
                w.line("kinds[i] = BC_STRIDED;")
                w.line("if (mode == MODE_ROW) mode = MODE_GENERAL;")
        w.line(
            comment="RESIDENT<i>: the ROW pattern with one resident row of at least 128 elements: the math runs"
        )
        w.line(
            comment="row by row against it, so blocks of rows only take the buffers the DMA moves (seed 003)."
        )
        with w.block("if (mode == MODE_ROW)"):
            w.line("size_t res = BC_INPUTS, count = 0;")
            with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
                with w.block("if (kinds[i] == BC_RESIDENT)"):
                    w.line("res = i;")
                    w.line("++count;")
            w.line(
                "const uint64_t rowPitch = (inner + 255) / 256 * 256;", "whole 256-element repeats per row"
            )
            with w.block(
                "if (count == 1 && inner >= 128 && rowPitch <= split.rowCap && split.block[res] >= rowPitch)"
            ):
                w.line("mode = MODE_RESIDENT0 + res;")
                w.line("tiling.set_bcTile(static_cast<uint32_t>(split.block[res]));")
                w.line("pitch = rowPitch;")
                w.line("pack = split.block[res] / rowPitch;")
                w.line("if (pack > 4095) pack = 4095;")
        w.line(
            comment="Columns: a tile's column values sit in half of the input's row buffer (a half per slot) and"
        )
        w.line(
            comment="Brcb spreads them 8 rows per repeat: at most BC_RESIDENT_BYTES / 2 values, a multiple of 8 rows."
        )
        with w.block("if (column && chunks == 1)"):
            w.line("const uint64_t columnCap = BC_RESIDENT_BYTES / 2 / maxBytes;")
            w.line("if (pack > columnCap) pack = columnCap;")
            w.line("if (pack >= 8) pack = pack / 8 * 8;")
        w.line("tiling.set_bcKind(kinds);")
        w.line("tiling.set_bcChunk(chunk);")
        w.line("tiling.set_bcChunks(chunks);")
        w.line("tiling.set_bcPitch(pitch);")
        w.line("tiling.set_bcPackRows(pack);")
        w.line(comment="Seed 003's guard: short rows in a RESIDENT mode run with one slot.")
        w.line(
            "const bool shortRows = mode >= MODE_RESIDENT0 && BC_SEED_PACK_ELEMS / inner > BC_PIPELINE_MAX_PACK;"
        )
        w.line("tiling.set_bcSlots(shortRows ? 1 : 2);")
        w.line("return rows * chunks;")


def emit_analysis(w: CodeWriter, plan) -> None:
    """Inside TilingFunc, after the per-input checks: the output shape and the plan."""
    w.line()
    w.line(comment="Broadcast the tensor inputs' shapes (numpy rules) and choose the kernel mode.")
    w.line("const gert::Shape* bcShapes[BC_INPUTS] = {};")
    with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
        w.line("if (INPUTS[i].scalar) continue;")
        w.line(
            "const gert::StorageShape* s = INPUTS[i].optional ? context->GetOptionalInputShape(i) : "
            "context->GetRequiredInputShape(i);"
        )
        w.line("if (s != nullptr) bcShapes[i] = &s->GetStorageShape();")
    w.line("gert::Shape outShape;")
    w.line("if (!BroadcastShape(bcShapes, outShape)) return ge::GRAPH_FAILED;")
    w.line("uint32_t dummies = 0, emptyOutputs = 0;")
    w.line("if (!LiveShapes(bcShapes, outShape, tilingKey, dummies, emptyOutputs)) return ge::GRAPH_FAILED;")
    w.line(f"{plan.op_type}TilingData tiling;")
    w.line("uint64_t mode = BroadcastPlan(bcShapes, outShape, tiling);")
    w.line("uint32_t small = 0;")
    w.line("if (!SmallOutputs(bcShapes, outShape, tilingKey, tiling, small)) return ge::GRAPH_FAILED;")
    w.line("if (small != 0) mode = MODE_GENERAL;", "stores by the odometer")
    with w.block("if (dummies != 0 || emptyOutputs != 0)"):
        w.line("uint32_t kinds[BC_INPUTS];")
        w.line("std::memcpy(kinds, tiling.get_bcKind(), sizeof(kinds));")
        w.line("for (size_t i = 0; i < BC_INPUTS; ++i) if ((dummies >> i) & 1) kinds[i] = BC_ONE;")
        w.line("tiling.set_bcKind(kinds);")
        w.line("mode = MODE_GENERAL;", "its Store skips the empty outputs; no flat copy of a dummy")
    w.line("tiling.set_bcOutEmpty(emptyOutputs);")
    if getattr(plan, "scalar_twins", None):
        n = len(plan.func0.params)
        w.line(
            comment="SCALAR with one size-1 input i: its twin kernel (if SPLITS lists one for this dtype) reads"
        )
        w.line(comment="it as a Scalar and uses the vector-scalar instructions on the FLAT path.")
        with w.block("if (mode == MODE_SCALAR)"):
            w.line("size_t one = BC_INPUTS, count = 0;")
            with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
                with w.block("if (bcShapes[i] != nullptr && tiling.get_bcKind()[i] == BC_ONE)"):
                    w.line("one = i;")
                    w.line("++count;")
            with w.block("if (count == 1)"):
                w.line(
                    f"const uint64_t twin = ATTR_KEYS * (MODE_RESIDENT0 + {n}) + one * ATTR_KEYS + tilingKey;",
                    "host_broadcast.twin_key",
                )
                with w.block("for (const SplitSpec& s : SPLITS)"):
                    with w.block("if (s.dtype == dtype && s.key == twin)"):
                        w.line("tilingKey = twin;", "SetTilingKey adds ATTR_KEYS * MODE_FLAT = 0")
                        w.line("mode = MODE_FLAT;")


def emit_split(w: CodeWriter, plan) -> None:
    """The core split of a broadcast op: flat blocks (FLAT, SCALAR) or whole rows / row chunks."""
    w.line("const uint64_t totalLength = static_cast<uint64_t>(outShape.GetShapeSize());")
    w.line("uint64_t units = (totalLength + split->granule - 1) / split->granule;", "32-byte blocks")
    w.line("uint64_t unitElems = split->granule;")
    w.line("tiling.set_bcSlots(2);", "FLAT, SCALAR: double buffered; the row modes decide in RowGeometry")
    w.line("tiling.set_bcTile(static_cast<uint32_t>(split->tile));", "RowGeometry's RESIDENT<i>: a block")
    with w.block("if (mode != MODE_FLAT && mode != MODE_SCALAR)"):
        w.line("units = RowGeometry(mode, *split, tiling);")
        w.line("unitElems = tiling.get_bcChunks() == 1 ? tiling.get_bcInner() : tiling.get_bcChunk();")
    w.line("const uint64_t minUnits = (split->minPerCore + unitElems - 1) / unitElems;")
    w.line("uint64_t usedCores = (units + minUnits - 1) / minUnits;")
    w.line("if (usedCores > coreNum) usedCores = coreNum;")
    w.line("if (usedCores == 0) usedCores = 1;", "an empty input still launches one core, which does nothing")
    w.line("uint32_t bypass = 0;")
    with w.block("for (size_t i = 0; i < BC_INPUTS; ++i)"):
        w.line("const uint32_t kind = tiling.get_bcKind()[i];")
        w.line("const bool stream = bcShapes[i] != nullptr && (kind == BC_FULL || kind == BC_STRIDED);")
        w.line(
            "if (stream && tiling.get_bcSize()[i] * split->maxBytes >= BC_L2_BYPASS_BYTES) bypass |= 1u << i;"
        )
    w.line("tiling.set_bcL2Bypass(bypass);")
    w.line("tiling.set_totalLength(totalLength);")
    w.line("tiling.set_smallBlocks(units / usedCores);", "blocks, rows or row chunks per core")
    w.line("tiling.set_tailCores(static_cast<uint32_t>(units % usedCores));")
    w.line("tiling.set_usedCores(static_cast<uint32_t>(usedCores));")


def emit_infer(w: CodeWriter, plan) -> None:
    """InferShape: each output has the broadcast shape of the tensor inputs it is computed from
    with the call's static attributes (numpy's; the same check, and message, as TilingFunc)."""
    w.line(comment="Each output has the broadcast shape of its own operands (numpy rules).")
    with w.block("static graphStatus InferShape(gert::InferShapeContext* context)"):
        w.line("const gert::Shape* shapes[optiling::BC_INPUTS] = {};")
        for k, p in enumerate(plan.func0.params):
            if isinstance(p.value.type, ScalarType):
                continue
            getter = "GetOptionalInputShape" if p.optional else "GetRequiredInputShape"
            w.line(f"shapes[{k}] = context->{getter}({k});")
            if not p.optional:
                w.line(f"OP_CHECK_NULL_WITH_CONTEXT(context, shapes[{k}]);")
        w.line("gert::Shape out;")
        w.line("if (!optiling::BroadcastShape(shapes, out)) return GRAPH_FAILED;")
        from .host import output_count

        w.line("(void)out;")
        from .host import _static

        if _static(plan):  # the static attributes choose what each output is computed from
            w.line("uint64_t key = 0;")
            w.line("const gert::RuntimeAttrs* attrs = context->GetAttrs();")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, attrs);")
            w.line("if (!optiling::TilingKeyOf(attrs, key)) return GRAPH_FAILED;")
            w.line(
                "if (key >= sizeof(optiling::BC_OUT_INPUTS) / sizeof(optiling::BC_OUT_INPUTS[0])) key = 0;"
            )
        else:
            w.line("const uint64_t key = 0;")
        with w.block(f"for (size_t i = 0; i < {output_count(plan)}; ++i)"):
            w.line("gert::Shape* o = context->GetOutputShape(i);")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, o);")
            w.line(
                "if (!optiling::OutputShape(shapes, optiling::BC_OUT_INPUTS[key][i], *o)) return GRAPH_FAILED;"
            )
        w.line("return GRAPH_SUCCESS;")
