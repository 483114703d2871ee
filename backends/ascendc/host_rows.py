"""Host code of a row operator (issue 7): the tiling data header and op_host/<op>.cpp.

Written like the elementwise host (tables the functions loop over, CANN's logging macros), with
the row facts: every input is a row ([..., C]), a column ([C]), a per-row value ([..., 1]) or a
Scalar; rows R (the product of the leading dims) and columns C are read from the row input's
shape at run time, so one binary serves every shape. TilingFunc

1. checks dtypes and shapes against the classes;
2. splits rows between cores as seed 002 does: ``rowsPerCore = ceil(R / cores)``,
   ``used = ceil(R / rowsPerCore)``, ``rowsPerCore = ceil(R / used)``; the last core takes the rest;
3. evaluates the variant's UB plan (plan-rows) with the run-time C: the fixed area (resident
   columns, reduction scratch) and the per-row area; ``rowStep`` is the most rows that fit
   (at most rowsPerCore and 4095, DataCopyPad's blockCount); the columns the step widens to f32
   (plan-rows' ``wide``) get f32 copies for the whole core (``wideBytes``) when that leaves the
   step its rows and slots (issue 20 item 4), else every step widens them again;
4. when not even one row fits, fails with the numbers (C, dtype, bytes needed and available).
"""

from __future__ import annotations

from passes.plan_rows import MAX_BANK_PAD, bank_pads
from passes.rows import COL, PERROW, ROW, SCALAR

from .host import (
    HostPlan,
    _key_mask,
    _keys_reading,
    element_type,
    emit_infer_dtype,
    emit_opdef,
    emit_static_attrs,
    host_source,
    input_checks,
    runtime_attrs,
    tiling_header,
    w_escape,
)
from .kernel import field_name
from .kernel.vector.membase_helpers import SCRATCH_FLOATS, WORK_PAD
from .host_snippets import emit_shape_text
from .writer import CodeWriter

ROW_TILING_FIELDS = (
    ("uint64_t", "rows", "R: the product of the leading dims"),
    ("uint32_t", "cols", "C: the last dim, elements per row"),
    ("uint32_t", "pitch", "elements from one row to the next in UB (C rounded to 32 bytes)"),
    ("uint64_t", "rowsPerCore", "rows of every used core but the last"),
    ("uint32_t", "usedCores", "block dim"),
    ("uint32_t", "rowStep", "rows per step (UB plan)"),
    ("uint32_t", "slots", "UB slots of the row buffers: 2 (ping-pong), 1 when a ping-pong step does not fit"),
    ("uint32_t", "chunks", "column chunks per row: 1, or more when one row does not fit in UB"),
    ("uint32_t", "colsPerLoop", "columns per chunk (the last chunk takes the rest)"),
    ("float", "invCols", "1 / C, for means"),
)
BLOCK = "block"  # [S, C] of rows [..., S, C]: its rows repeat along the leading dims (passes/rows.py)
KIND_ENUM = {ROW: "ROW", COL: "COL", PERROW: "PER_ROW", SCALAR: "SCALAR", BLOCK: "BLOCK"}
BLOCK_FIELD = (
    "uint64_t",
    "blockRows",
    "S: the rows of a block input [S, C], which repeat along the leading dims",
)
MAX_BLOCK_COUNT = 4095  # DataCopyExtParams.blockCount


WIDE_FIELD = (
    "uint32_t",
    "wideBytes",
    "bytes per column of the f32 column copies kept for the whole core (0: every step widens them)",
)


def has_wide(plan: HostPlan) -> bool:
    """A variant widens columns in its step (plan-rows' ``wide``): host tiling chooses where."""
    return any(rp.get("wide") for rp in plan.row_plans.values())


def row_tiling_header(plan: HostPlan, header: str) -> str:
    extra = ((BLOCK_FIELD,) if block_dims(plan) else ()) + ((WIDE_FIELD,) if has_wide(plan) else ())
    return tiling_header(plan, header, ROW_TILING_FIELDS + extra)


def row_host_source(plan: HostPlan, header: str, ub_reserved: int) -> str:
    return host_source(
        plan,
        header,
        tables=lambda w: emit_row_tables(w, plan, ub_reserved),
        tiling_func=lambda w: emit_row_tiling_func(w, plan),
        infer=lambda w: emit_row_infer(w, plan),
    )


def _kinds(plan: HostPlan) -> tuple[list[str], list[tuple[str, bool]]]:
    """The class of every input and (class, keepdims) of every output."""
    func = plan.func0
    layout = layout_of_func(func)
    ins = [BLOCK if layout.is_block(p.value.type) else layout.kind(p.value.type) for p in func.params]
    outs = []
    for o in func.outputs:
        k = layout.kind(o.type)
        keep = k == PERROW and bool(o.type.shape.dims) and o.type.shape.dims[-1] == 1
        outs.append((k, keep))
    return ins, outs


def block_dims(plan: HostPlan) -> int:
    """How many dims a block input [S, C] has (0: the op has none)."""
    func = plan.func0
    layout = layout_of_func(func)
    return next((len(p.value.type.shape.dims) for p in func.params if layout.is_block(p.value.type)), 0)


def block_text(plan: HostPlan) -> str:
    layout = layout_of_func(plan.func0)
    return next(str(p.value.type.shape) for p in plan.func0.params if layout.is_block(p.value.type))


def layout_of_func(func):
    """The row layout of an unspecialized tensor-level function (the host's signature facts)."""
    from passes.rows import row_layout

    return row_layout(func)


def row_input(plan: HostPlan) -> int | None:
    """IR index of the required input with the row shape: rows and columns come from it."""
    ins, _ = _kinds(plan)
    return next((i for i, p in enumerate(plan.func0.params) if ins[i] == ROW and not p.optional), None)


def emit_row_tables(w: CodeWriter, plan: HostPlan, ub_reserved: int) -> None:
    func0 = plan.func0
    ins, _ = _kinds(plan)
    w.line(f'constexpr const char* OP_TYPE = "{plan.op_type}";')
    w.line(
        f"constexpr uint64_t UB_RESERVED = {ub_reserved};",
        "UB the compiler keeps for itself (ascendc-api.md section 1)",
    )
    w.line(f"constexpr uint64_t MAX_ROW_STEP = {MAX_BLOCK_COUNT};", "DataCopyPad moves at most 4095 rows")
    w.line(
        f"constexpr uint64_t CHUNK_KEY_OFFSET = {plan.chunk_key_offset};",
        "tiling key of the column-chunked kernel = the attributes' key + this",
    )
    w.line("constexpr uint64_t CHUNK_ALIGN = 64;", "columns per chunk: a multiple of 64 (whole f32 repeats)")
    w.line()
    w.line(comment="Input classes: a row [..., C], a column [C] shared by every row, one value per row")
    w.line(comment="[..., 1], or a Scalar of one element.")
    if block_dims(plan):
        w.line(
            comment="... or a block [S, C] of the row input's last BLOCK_DIMS dims, repeated along the others."
        )
        w.line("enum class Kind { ROW, COL, PER_ROW, SCALAR, BLOCK };")
        w.line(f"constexpr size_t BLOCK_DIMS = {block_dims(plan)};")
    else:
        w.line("enum class Kind { ROW, COL, PER_ROW, SCALAR };")
    w.line()
    w.line(comment="The inputs in IR order; an optional input is required by the tiling keys in")
    w.line(comment="neededByKeys (bit k: key k).")
    with w.block("struct InputSpec", "};"):
        w.line("const char* name;")
        w.line("Kind kind;")
        w.line("bool optional;")
        w.line("ge::DataType pinned;", "DT_UNDEFINED: the op's element type T")
        w.line("uint64_t neededByKeys;")
    with w.block("constexpr InputSpec INPUTS[] =", "};"):
        for p, k in zip(func0.params, ins):
            optional = "true" if p.optional else "false"
            pinned = f"ge::{p.value.type.dtype.ge}" if p.pinned else "ge::DT_UNDEFINED"
            needed = _key_mask(_keys_reading(plan, p.value.name)) if p.optional else "0"
            w.line(f'{{"{w_escape(p.value.name)}", Kind::{KIND_ENUM[k]}, {optional}, {pinned}, {needed}}},')
    w.line()
    emit_static_attrs(w, plan)
    w.line(comment="UB plan per element type and key (plan-rows): C rounds up to `align` elements (32 bytes")
    w.line(
        comment="of the narrowest row buffer); a per-row value takes `perRow` elements; buffer lengths round"
    )
    w.line(comment="to `countAlign` elements; the byte sums are per element of all buffers of a class.")
    with w.block("struct RowPlan", "};"):
        w.line("ge::DataType dtype;")
        w.line("uint64_t key;")
        w.line("uint64_t align;")
        w.line("uint64_t perRow;")
        w.line("uint64_t countAlign;")
        w.line("uint64_t colBytes;", "resident columns, bytes per column")
        w.line("uint64_t rowBytes[2];", "row buffers (x 1 slot, x slots), bytes per element of a step")
        w.line("uint64_t perRowBytes[2];", "per-row buffers (x 1 slot, x slots), bytes per per-row element")
        w.line("bool scratch;", "reduction scratch (float)")
        w.line("uint64_t extra;", "fixed bytes: a chunk's partial reductions; bank-group pads")
        w.line("uint64_t wideBytes;", "f32 copies of the columns the step widens, bytes per column")
    with w.block("constexpr RowPlan PLANS[] =", "};"):
        for v in plan.variants + plan.chunk_variants:
            rp = plan.row_plans[(v.dtype, v.key)]
            w.line(
                f"{{ge::{v.dtype.ge}, {v.key}, {rp['align']}, {rp['perrow']}, {rp['count_align']}, "
                f"{rp['col']}, {{{rp['row1']}, {rp['row']}}}, {{{rp['perrow_bytes1']}, {rp['perrow_bytes']}}}, "
                f"{'true' if rp['scratch'] else 'false'}, {rp['extra']}, {rp.get('wide', 0)}}},"
            )
    w.line()
    w.line("uint64_t RoundUp(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }")
    if block_dims(plan):
        w.line()
        emit_shape_text(w, "A shape as text for messages: [2, 3, 64, 128].")
    w.line()
    with w.block("const char* DtypeName(ge::DataType dtype)"):
        for dt in dict.fromkeys(v.dtype for v in plan.variants):
            w.line(f'if (dtype == ge::{dt.ge}) return "{dt.name}";')
        w.line('return "?";')
    w.line()
    with w.block("const RowPlan* FindPlan(ge::DataType dtype, uint64_t key)"):
        with w.block("for (const RowPlan& p : PLANS)"):
            w.line("if (p.dtype == dtype && p.key == key) return &p;")
        w.line("return nullptr;")
    w.line()
    w.line(
        comment="UB bytes a step of `rowStep` rows takes with 1 or 2 slots: the fixed area (`wide`: with the"
    )
    w.line(comment="columns widened once) plus the row and per-row buffers.")
    with w.block(
        "uint64_t UbBytes(const RowPlan& p, uint64_t pitch, uint64_t cols, uint64_t rowStep, uint64_t slots, "
        "bool wide)"
    ):
        w.line(comment="ReduceRows' scratch: its block levels and the last reduction's work area.")
        w.line(
            f"const uint64_t scratch = p.scratch ? ({SCRATCH_FLOATS.format(c='cols')}) * sizeof(float) : 0;"
        )
        w.line("const uint64_t slot = RoundUp(rowStep * pitch, p.countAlign);")
        w.line("const uint64_t perRowSlot = RoundUp(rowStep * p.perRow, p.countAlign);")
        w.line("const uint64_t colBytes = p.colBytes + (wide ? p.wideBytes : 0);")
        w.line(
            "return RoundUp(pitch, p.countAlign) * colBytes + scratch + p.extra + slot * p.rowBytes[slots - 1] + "
            "perRowSlot * p.perRowBytes[slots - 1];"
        )
    w.line()
    w.line(comment="The most rows per step that fit (at most `most`): ping-pong slots first, else one slot")
    w.line(comment="(seed 002's order: full-load with DB, without); rowStep 0 when not one row fits.")
    with w.block(
        "void FitStep(const RowPlan& p, uint64_t pitch, uint64_t cols, uint64_t most, uint64_t usable, bool wide, "
        "uint64_t& slots, uint64_t& rowStep)"
    ):
        w.line("const uint64_t fixed = UbBytes(p, pitch, cols, 0, 2, wide);")
        w.line("slots = 3;")
        w.line("rowStep = 0;")
        with w.block("while (rowStep == 0 && --slots > 0)"):
            w.line("const uint64_t perRow = UbBytes(p, pitch, cols, 1, slots, wide) - fixed;")
            w.line("rowStep = usable > fixed && perRow > 0 ? (usable - fixed) / perRow : 0;")
            w.line("if (rowStep > most) rowStep = most;")
            w.line(
                "while (rowStep > 0 && UbBytes(p, pitch, cols, rowStep, slots, wide) > usable) --rowStep;",
                "rounding to whole repeats",
            )


def emit_row_tiling_func(w: CodeWriter, plan: HostPlan) -> None:
    rin = row_input(plan)
    row_shape = layout_of_func(plan.func0).row
    with w.block("static ge::graphStatus TilingFunc(gert::TilingContext* context)"):
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, context->GetPlatformInfo());")
        w.line("auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());")
        w.line("const uint32_t coreNum = plat.GetCoreNumAiv();")
        w.line("uint64_t ubSize = 0;")
        w.line("plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);")
        w.line("const uint64_t usable = ubSize > UB_RESERVED ? ubSize - UB_RESERVED : 0;")
        w.line("const gert::RuntimeAttrs* attrs = context->GetAttrs();")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, attrs);")
        w.line("uint64_t tilingKey = 0;")
        if any(a.static for a in plan.attr_decls):
            w.line("OP_CHECK_IF(!TilingKeyOf(attrs, tilingKey), , return ge::GRAPH_FAILED);")
        w.line()
        element_type(w, plan)
        w.line(comment="Rows and columns: the row input's shape.")
        w.line(f"const gert::StorageShape* first = context->GetRequiredInputShape({rin});")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, first);")
        w.line("const gert::Shape& shape = first->GetStorageShape();")
        rin_name = w_escape(plan.func0.params[rin].value.name)
        if row_shape.ellipsis:
            rank_check, rank_text = (
                f"shape.GetDimNum() < {len(row_shape.dims)}",
                f"at least {len(row_shape.dims)}",
            )
        else:
            rank_check, rank_text = f"shape.GetDimNum() != {len(row_shape.dims)}", f"{len(row_shape.dims)}"
        w.line(
            f'OP_CHECK_IF({rank_check}, OP_LOGE(OP_TYPE, "input {rin_name} must have {rank_text} dims [{row_shape}], '
            'got %zu", shape.GetDimNum()), return ge::GRAPH_FAILED);'
        )
        w.line("const size_t rank = shape.GetDimNum();")
        w.line("const uint64_t cols = rank > 0 ? static_cast<uint64_t>(shape.GetDim(rank - 1)) : 1;")
        w.line("uint64_t rows = 1;")
        w.line("for (size_t d = 0; d + 1 < rank; ++d) rows *= static_cast<uint64_t>(shape.GetDim(d));")
        with w.block("for (size_t i = 0; i < sizeof(INPUTS) / sizeof(INPUTS[0]); ++i)"):
            input_checks(w)
            w.line("bool ok = true;")
            with w.block("switch (in.kind)"):
                w.line("case Kind::ROW: ok = inShape == shape; break;")
                w.line(
                    "case Kind::COL: ok = inShape.GetDimNum() == 1 && static_cast<uint64_t>(inShape.GetDim(0)) == "
                    "cols; break;"
                )
                w.line("case Kind::PER_ROW:", "the leading dims, then 1 (keepdims) or nothing")
                w.line("    ok = inShape.GetDimNum() + 1 >= rank && inShape.GetDimNum() <= rank;")
                w.line(
                    "    for (size_t d = 0; ok && d + 1 < rank; ++d) ok = inShape.GetDim(d) == shape.GetDim(d);"
                )
                w.line("    if (ok && inShape.GetDimNum() == rank) ok = inShape.GetDim(rank - 1) == 1;")
                w.line("    break;")
                w.line("case Kind::SCALAR: ok = inShape.GetShapeSize() == 1; break;")
                if block_dims(plan):
                    with w.block("case Kind::BLOCK:"):
                        w.line("ok = inShape.GetDimNum() == BLOCK_DIMS && rank >= BLOCK_DIMS;")
                        w.line(
                            "for (size_t d = 0; ok && d < BLOCK_DIMS; ++d) ok = inShape.GetDim(d) == "
                            "shape.GetDim(rank - BLOCK_DIMS + d);"
                        )
                        w.line('char want[128] = "", got[128] = "";')
                        w.line("ShapeText(shape, want, sizeof(want));")
                        w.line("ShapeText(inShape, got, sizeof(got));")
                        w.line(
                            f'OP_CHECK_IF(!ok, OP_LOGE(OP_TYPE, "input %s [{block_text(plan)}] must have the last %zu dims '
                            f'of input {rin_name} %s (it repeats along the others), got %s", in.name, BLOCK_DIMS, want, '
                            "got), return ge::GRAPH_FAILED);"
                        )
                        w.line("break;")
            w.line(
                f'OP_CHECK_IF(!ok, OP_LOGE(OP_TYPE, "input %s does not match the rows of input {rin_name} (%llu rows '
                'of %llu columns): rows are [..., C], columns [C], per-row values [..., 1], Scalars [1]", in.name, '
                "static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols)), "
                "return ge::GRAPH_FAILED);"
            )
        w.line(
            'OP_CHECK_IF(cols == 0 && rows > 0, OP_LOGE(OP_TYPE, "input %s has rows of 0 columns", '
            f'"{rin_name}"), return ge::GRAPH_FAILED);'
        )
        w.line()
        w.line(
            comment="Core split (seed 002): ceil, the cores that get rows, ceil again; the last core the rest."
        )
        w.line("const uint64_t cores = coreNum > 0 ? coreNum : 1;")
        w.line("uint64_t rowsPerCore = rows == 0 ? 1 : (rows + cores - 1) / cores;")
        w.line("const uint64_t usedCores = rows == 0 ? 1 : (rows + rowsPerCore - 1) / rowsPerCore;")
        w.line("if (rows > 0) rowsPerCore = (rows + usedCores - 1) / usedCores;")
        w.line()
        w.line(comment="UB plan: the most rows per step that fit (plan-rows).")
        w.line("const RowPlan* plan = FindPlan(dtype, tilingKey);")
        w.line(
            'OP_CHECK_IF(plan == nullptr, OP_LOGE(OP_TYPE, "no kernel for dtype %d and tiling key %llu", '
            "static_cast<int>(dtype), static_cast<unsigned long long>(tilingKey)), return ge::GRAPH_FAILED);"
        )
        w.line("uint64_t pitch = RoundUp(cols > 0 ? cols : 1, plan->align);")
        w.line("const uint64_t most = rowsPerCore < MAX_ROW_STEP ? rowsPerCore : MAX_ROW_STEP;")
        w.line("uint64_t slots = 0, rowStep = 0;")
        w.line("FitStep(*plan, pitch, cols, most, usable, false, slots, rowStep);")
        if has_wide(plan):
            w.line(
                comment="Columns the step reads in f32: widened once per core (the first step) when their f32"
            )
            w.line(
                comment="copies cost the step no rows and no slot; else each step widens them into a dead row"
            )
            w.line(comment="buffer.")
            w.line("bool wideCols = false;")
            with w.block("if (plan->wideBytes > 0 && rowStep > 0)"):
                w.line("uint64_t wideSlots = 0, wideStep = 0;")
                w.line("FitStep(*plan, pitch, cols, most, usable, true, wideSlots, wideStep);")
                w.line("wideCols = wideSlots == slots && wideStep == rowStep;")
        w.line("uint64_t chunks = 1, colsPerLoop = cols;")
        w.line(
            comment="Not one whole row fits: one row at a time in column chunks, the kernel's chunked twin."
        )
        with w.block("if (rowStep == 0)"):
            w.line("const RowPlan* chunked = FindPlan(dtype, tilingKey + CHUNK_KEY_OFFSET);")
            w.line(
                'OP_CHECK_IF(chunked == nullptr, OP_LOGE(OP_TYPE, "no column-chunked kernel for dtype %d and tiling '
                'key %llu", static_cast<int>(dtype), static_cast<unsigned long long>(tilingKey)), '
                "return ge::GRAPH_FAILED);"
            )
            w.line(
                comment="the most columns per chunk, a multiple of CHUNK_ALIGN, with one row in UB: chunks alternate"
            )
            w.line(
                comment="between two slots (the copy-in of the next overlaps this one's math), else one slot"
            )
            w.line("uint64_t lo = 0;")
            w.line("slots = 3;")
            with w.block("while (lo == 0 && --slots > 0)"):
                w.line("uint64_t hi = (cols + CHUNK_ALIGN - 1) / CHUNK_ALIGN;")
                with w.block("while (lo < hi)"):
                    w.line("const uint64_t mid = (lo + hi + 1) / 2;")
                    w.line("const uint64_t len = mid * CHUNK_ALIGN;")
                    w.line(
                        "if (UbBytes(*chunked, RoundUp(len, chunked->align), len, 1, slots, false) <= usable) "
                        "lo = mid; else hi = mid - 1;"
                    )
            w.line(
                "const uint64_t least = UbBytes(*chunked, RoundUp(CHUNK_ALIGN, chunked->align), CHUNK_ALIGN, 1, 1, "
                "false);"
            )
            w.line("const uint64_t fixed = UbBytes(*plan, pitch, cols, 0, 2, false);")
            w.line("const uint64_t perRow = UbBytes(*plan, pitch, cols, 1, 1, false) - fixed;", "one slot")
            w.line(
                'OP_CHECK_IF(lo == 0, OP_LOGE(OP_TYPE, "rows of %llu columns (dtype %s) do not fit in UB: one row '
                "needs %llu bytes (%llu fixed for columns and scratch + %llu for the row), and even one chunk of %llu "
                'columns needs %llu; %llu are available", static_cast<unsigned long long>(cols), '
                "DtypeName(dtype), static_cast<unsigned long long>(fixed + perRow), "
                "static_cast<unsigned long long>(fixed), static_cast<unsigned long long>(perRow), "
                "static_cast<unsigned long long>(CHUNK_ALIGN), static_cast<unsigned long long>(least), "
                "static_cast<unsigned long long>(usable)), return ge::GRAPH_FAILED);"
            )
            w.line("colsPerLoop = lo * CHUNK_ALIGN < cols ? lo * CHUNK_ALIGN : cols;")
            w.line("chunks = (cols + colsPerLoop - 1) / colsPerLoop;")
            w.line(
                "if (cols % chunks == 0) colsPerLoop = cols / chunks;", "equal chunks when C divides evenly"
            )
            w.line("pitch = RoundUp(colsPerLoop, chunked->align);")
            w.line("rowStep = 1;")
            w.line("tilingKey += CHUNK_KEY_OFFSET;")
            w.line("plan = chunked;")
        w.line()
        w.line(f"{plan.op_type}TilingData tiling;")
        w.line("tiling.set_rows(rows);")
        w.line("tiling.set_cols(static_cast<uint32_t>(cols));")
        w.line("tiling.set_pitch(static_cast<uint32_t>(pitch));")
        w.line("tiling.set_rowsPerCore(rowsPerCore);")
        w.line("tiling.set_usedCores(static_cast<uint32_t>(usedCores));")
        w.line("tiling.set_rowStep(static_cast<uint32_t>(rowStep));")
        w.line("tiling.set_slots(static_cast<uint32_t>(slots > 0 ? slots : 1));")
        w.line("tiling.set_chunks(static_cast<uint32_t>(chunks));")
        w.line("tiling.set_colsPerLoop(static_cast<uint32_t>(colsPerLoop));")
        w.line("tiling.set_invCols(cols > 0 ? 1.0f / static_cast<float>(cols) : 0.0f);")
        if has_wide(plan):
            w.line("tiling.set_wideBytes(static_cast<uint32_t>(wideCols ? plan->wideBytes : 0));")
        if block_dims(plan):
            w.line(
                "uint64_t blockRows = 1;", "S: the block's rows (the product of all its dims but the last)"
            )
            w.line(
                "for (size_t d = rank - BLOCK_DIMS; d + 1 < rank; ++d) blockRows *= static_cast<uint64_t>(shape.GetDim(d));"
            )
            w.line("tiling.set_blockRows(blockRows);")
        runtime_attrs(w, plan)
        w.line("context->SetTilingKey(tilingKey);")
        w.line("size_t* workspace = context->GetWorkspaceSizes(1);")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, workspace);")
        w.line("workspace[0] = plat.GetLibApiWorkSpaceSize();", "no user workspace: the system reserve only")
        w.line(
            "tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());"
        )
        w.line("context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());")
        w.line("return ge::GRAPH_SUCCESS;")


def emit_row_infer(w: CodeWriter, plan: HostPlan) -> None:
    _, outs = _kinds(plan)
    rin = row_input(plan)
    t_index = plan.t_input()
    w.line(
        comment="Row outputs have the row input's shape; per-row outputs its leading dims (then 1 with keepdims)."
    )
    with w.block("static graphStatus InferShape(gert::InferShapeContext* context)"):
        w.line(f"const gert::Shape* shape = context->GetRequiredInputShape({rin});")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, shape);")
        w.line(comment="per output: 0 rows, 1 per-row values with keepdims, 2 per-row values without")
        forms = ", ".join("0" if k == ROW else "1" if keep else "2" for k, keep in outs)
        w.line(f"const int forms[] = {{{forms}}};")
        with w.block(f"for (size_t i = 0; i < {len(outs)}; ++i)"):
            w.line("gert::Shape* out = context->GetOutputShape(i);")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, out);")
            w.line("*out = *shape;")
            with w.block("if (forms[i] != 0 && shape->GetDimNum() > 0)"):
                w.line("const size_t last = shape->GetDimNum() - 1;")
                w.line("if (forms[i] == 1) out->SetDim(last, 1);")
                w.line("if (forms[i] == 2) out->SetDimNum(last);")
        w.line("return GRAPH_SUCCESS;")
    emit_infer_dtype(w, plan, plan.func0, t_index)


WELFORD_LANE_BYTES = 3 * 4  # kernel/rows.py: welfordBuf_ holds 3 f32 lanes per column of a chunk


def row_plan_of(func) -> dict:
    """The host's numbers of one variant: its UB coefficients from plan-rows."""
    rows = func.attributes["rows"]
    buffers = func.attributes["buffers"]
    bufs = buffers.values()
    welford = any(op.attrs.get("welford") for op in func.walk())
    chunked = func.attributes.get("path") == "chunked"
    # a chunked kernel's step is one row: a column chunk is a row of it (colLen_ == slotLen_), in
    # the run-time slots (the kernel's colLen_ holds them all)
    row = (ROW, COL) if chunked else (ROW,)
    return {
        **rows,
        # + Welford's lanes in a chunked kernel: mean, M2 and a temporary, f32 per column
        "col": sum(b["bytes"] for b in bufs if b["kind"] == COL and not chunked)
        + WELFORD_LANE_BYTES * welford,
        "row": sum(b["bytes"] * b["slots"] for b in bufs if b["kind"] in row),
        "perrow_bytes": sum(b["bytes"] * b["slots"] for b in bufs if b["kind"] == PERROW),
        "row1": sum(b["bytes"] for b in bufs if b["kind"] in row),
        # a chunked kernel's partial reductions: one 32-byte per-row slot (+ one: OnlineSum's max);
        # a full-load one's pads into the other UB bank groups: ReduceRows' work area (WORK_PAD
        # floats), buffers starting at their bank phase (plan-rows)
        "extra": (
            (64 if any(op.opname == "online.sum" for op in func.walk()) else 32)
            * any(op.opname in ("reduce", "online.sum") and not op.attrs.get("welford") for op in func.walk())
            if chunked
            else 4 * WORK_PAD * bool(rows.get("scratch")) + MAX_BANK_PAD * bank_pads(buffers, rows)
        ),
        "perrow_bytes1": sum(b["bytes"] for b in bufs if b["kind"] == PERROW),
    }


__all__ = ["row_tiling_header", "row_host_source", "row_plan_of", "row_input"]
