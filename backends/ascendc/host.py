"""Host emitter: the tiling data header and op_host/<op>.cpp (TilingFunc, InferShape,
InferDataType, OpDef), written the way CANN's own operators are.

The inputs, static attributes and outputs are tables the functions loop over, so the checks are
written once whatever the operator's arity; errors go through the logging/check macros CANN ops
use (``OP_LOGE``, ``OP_CHECK_IF``, ``OP_CHECK_NULL_WITH_CONTEXT``), from ``op_common/log/log.h``
where the toolkit has it on the include path (9.1+) and defined the same way otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.dtypes import DType
from dsl.errors import CompileError
from dsl.ir import AttrDecl, Func, ScalarType, TensorType

from . import host_broadcast
from .cann import spelling
from .kernel import Signature, Variant, field_name, float_literal
from .writer import CodeWriter

# ge::DataType values (graph/types.h): the dst_type attribute's default in the json.
GE_DATA_TYPE = {
    "DT_FLOAT": 0,
    "DT_FLOAT16": 1,
    "DT_INT8": 2,
    "DT_INT32": 3,
    "DT_UINT8": 4,
    "DT_BOOL": 12,
    "DT_BF16": 27,
}
DST_TYPE = "dst_type"  # the attribute naming T when no required input has it (as CANN's dequant ops)


def t_outputs(funcs: dict[DType, Func], dtypes: tuple[DType, ...]) -> list[int]:
    """Indices of the outputs whose dtype is T for every dtype of the op."""
    first = funcs[dtypes[0]]
    return [k for k in range(len(first.outputs)) if all(funcs[d].outputs[k].type.dtype == d for d in dtypes)]


def has_dst_type(funcs: dict[DType, Func], dtypes: tuple[DType, ...]) -> bool:
    """The op carries the ``dst_type`` attribute: no required input has type T, and T is a choice
    (several dtypes) or an output's type. (With one dtype and no output of type T, T is a constant.)"""
    first = funcs[dtypes[0]]
    t_input = any(not p.pinned and not p.optional for p in first.params)
    return not t_input and (len(dtypes) > 1 or bool(t_outputs(funcs, dtypes)))


TILING_FIELDS = (
    ("uint64_t", "totalLength", "elements of the flat range"),
    ("uint64_t", "smallBlocks", "blocks (split granules) every used core gets"),
    ("uint32_t", "tailCores", "the first tailCores cores get one block more"),
    ("uint32_t", "usedCores", "block dim"),
)


@dataclass
class HostPlan:
    op_name: str
    op_type: str
    dtypes: tuple[DType, ...]
    funcs: dict[DType, Func]  # unspecialized tensor-level IR per dtype (signature facts)
    attr_decls: list[AttrDecl]
    variants: list[Variant]
    sig: Signature
    target: str
    min_per_core: dict[tuple, int]  # (dtype, key) -> elements a core should at least get
    granule: dict[tuple, int]  # (dtype, key) -> elements per block (512 B flat, 32 B broadcast)
    cann: str = "8.5"
    tiles: dict = None  # (dtype, key) -> elements per tile (broadcast ops: the row packing)
    row_plans: dict = field(default_factory=dict)  # (dtype, key) -> UB plan of a row operator
    chunk_variants: list = field(default_factory=list)  # a row operator's column-chunked twins
    chunk_key_offset: int = 0  # tiling key of a twin = its variant's key + this

    @property
    def func0(self) -> Func:
        return self.funcs[self.dtypes[0]]

    @property
    def broadcast(self) -> bool:
        return bool(self.func0.attributes.get("broadcast"))

    @property
    def attr_keys(self) -> int:
        """Static-attribute combinations: the tiling keys before a broadcast mode is added."""
        return len({v.key for v in self.variants})

    def t_input(self) -> int | None:
        """IR index of the input whose dtype is the op's T (the first unpinned required one)."""
        return next((i for i, p in enumerate(self.func0.params) if not p.pinned and not p.optional), None)

    def t_outputs(self) -> list[int]:
        return t_outputs(self.funcs, self.dtypes)

    @property
    def dst_type(self) -> bool:
        """The op has the ``dst_type`` attribute (``has_dst_type``), after the user's attributes."""
        return has_dst_type(self.funcs, self.dtypes)

    @property
    def dst_type_index(self) -> int:
        return len(self.attr_decls)

    def shape_input(self) -> int | None:
        """IR index of the required tensor input every other tensor's shape is checked against."""
        return next(
            (
                i
                for i, p in enumerate(self.func0.params)
                if isinstance(p.value.type, TensorType) and not p.optional
            ),
            None,
        )


def _comment_header(w: CodeWriter, header: str) -> None:
    for line in header.splitlines():
        w.line(comment=line)


def tiling_header(plan: HostPlan, header: str, fields=None) -> str:
    """The tiling-data header: ``fields`` (default: the flat path's), the run-time attributes and,
    for a broadcast op, its shape fields."""
    guard = f"{plan.op_name.upper()}_TILING_H"
    w = CodeWriter()
    _comment_header(w, header)
    w.line(f"#ifndef {guard}")
    w.line(f"#define {guard}")
    w.line('#include "register/tilingdata_base.h"')
    w.line()
    w.line("namespace optiling {")
    w.line(f"BEGIN_TILING_DATA_DEF({plan.op_type}TilingData)")
    for ctype, name, why in TILING_FIELDS if fields is None else fields:
        w.line(f"TILING_DATA_FIELD_DEF({ctype}, {name});", why)
    for name, kind in plan.sig.attrs:
        ctype = "float" if kind == "float" else "int64_t"
        w.line(f"TILING_DATA_FIELD_DEF({ctype}, {field_name(name)});", f"attribute {name}")
    if plan.broadcast:
        for ctype, name, why in host_broadcast.tiling_fields(len(plan.func0.params), len(plan.func0.outputs)):
            w.line(host_broadcast.field_line(ctype, name), why)
    w.line("END_TILING_DATA_DEF;")
    w.line()
    w.line(f"REGISTER_TILING_DATA_CLASS({plan.op_type}, {plan.op_type}TilingData)")
    w.line("}  // namespace optiling")
    w.line(f"#endif  // {guard}")
    return w.text()


LOG_MACROS = r"""#if defined(__has_include)
#if __has_include("op_common/log/log.h")
#include "op_common/log/log.h"  // CANN 9.1+: OP_LOGE, OP_CHECK_IF, OP_CHECK_NULL_WITH_CONTEXT
#endif
#endif
// Toolkits that install log.h outside the include path (8.x, 9.0 pkg_inc) get the same macros
// here, logging to stderr.
#ifndef OP_LOGE
#define OP_LOGE(opName, fmt, ...) std::fprintf(stderr, "[ERROR] %s: " fmt "\n", opName, ##__VA_ARGS__)
#endif
#ifndef OP_CHECK_IF
#define OP_CHECK_IF(condition, log, returnExpr) \
    do {                                        \
        if (condition) {                        \
            log;                                \
            returnExpr;                         \
        }                                       \
    } while (0)
#endif
#ifndef OP_CHECK_NULL_WITH_CONTEXT
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr)                                  \
    do {                                                                          \
        if ((ptr) == nullptr) {                                                   \
            OP_LOGE((context)->GetNodeName(), "%s is nullptr", #ptr);             \
            return ge::GRAPH_FAILED;                                              \
        }                                                                         \
    } while (0)
#endif"""


def host_source(plan: HostPlan, header: str, tables=None, tiling_func=None, infer=None) -> str:
    """op_host/<op>.cpp: the tables, TilingFunc, the shape/dtype inference and the OpDef. The row
    path passes its own tables, TilingFunc and shape inference (each called with the writer)."""
    w = CodeWriter()
    _comment_header(w, header)
    w.line("#include <cstdint>")
    w.line("#include <cstdio>")
    w.line("#include <cstring>")
    w.line()
    w.line(f'#include "{plan.op_name}_tiling.h"')
    w.line('#include "register/op_def_registry.h"')
    w.line('#include "tiling/platform/platform_ascendc.h"')
    w.line()
    for line in LOG_MACROS.splitlines():
        w.lines.append(line)
    w.line()
    w.line("namespace optiling {")
    w.line("namespace {")
    (tables or (lambda w: emit_tables(w, plan)))(w)
    w.line("}  // namespace")
    w.line()
    (tiling_func or (lambda w: emit_tiling_func(w, plan)))(w)
    w.line("}  // namespace optiling")
    w.line()
    w.line("namespace ge {")
    (infer or (lambda w: emit_infer(w, plan)))(w)
    w.line("}  // namespace ge")
    w.line()
    w.line("namespace ops {")
    emit_opdef(w, plan)
    w.line("}  // namespace ops")
    return w.text()


def w_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _static(plan: HostPlan) -> list[tuple[int, AttrDecl]]:
    return [(i, a) for i, a in enumerate(plan.attr_decls) if a.static]


def _key_mask(keys: list[int]) -> str:
    mask = 0
    for k in keys:
        mask |= 1 << k
    return f"0x{mask:x}ULL"


def emit_tables(w: CodeWriter, plan: HostPlan) -> None:
    func0 = plan.func0
    w.line(f'constexpr const char* OP_TYPE = "{plan.op_type}";')
    w.line()
    w.line(comment="The inputs in IR order: tensors share one shape, Scalars hold one element; an")
    w.line(comment="optional input is required by the tiling keys in neededByKeys (bit k: key k).")
    with w.block("struct InputSpec", "};"):
        w.line("const char* name;")
        w.line("bool scalar;")
        w.line("bool optional;")
        w.line("ge::DataType pinned;", "DT_UNDEFINED: the op's element type T")
        w.line("uint64_t neededByKeys;")
    with w.block("constexpr InputSpec INPUTS[] =", "};"):
        for p in func0.params:
            scalar = "true" if isinstance(p.value.type, ScalarType) else "false"
            optional = "true" if p.optional else "false"
            pinned = f"ge::{p.value.type.dtype.ge}" if p.pinned else "ge::DT_UNDEFINED"
            needed = _key_mask(_keys_reading(plan, p.value.name)) if p.optional else "0"
            w.line(f'{{"{w_escape(p.value.name)}", {scalar}, {optional}, {pinned}, {needed}}},')
    w.line()
    emit_static_attrs(w, plan)
    w.line(comment="Core split per element type and key: elements per block (512 B of the narrowest GM")
    w.line(comment="tensor; 32 B in a broadcast kernel), and the fewest elements worth a core (split-cores).")
    with w.block("struct SplitSpec", "};"):
        w.line("ge::DataType dtype;")
        w.line("uint64_t key;")
        w.line("uint64_t granule;")
        w.line("uint64_t minPerCore;")
        if plan.broadcast:
            w.line("uint64_t tile;", "elements per tile (plan-buffers)")
            w.line("uint64_t maxBytes;", "bytes of the widest GM tensor element")
            w.line("uint64_t rowCap;", "longest row of the RESIDENT modes")
            w.line(f"uint64_t block[{len(plan.func0.params)}];", "RESIDENT<i>: elements of a block of rows")
    with w.block("constexpr SplitSpec SPLITS[] =", "};"):
        for v in plan.variants + getattr(plan, "scalar_twins", []):  # broadcast: SCALAR twins the host picks
            k = (v.dtype, v.key)
            extra = ""
            if plan.broadcast:
                cap, blocks = getattr(v, "row_blocks", (0, {}))
                per_input = ", ".join(str(blocks.get(i, 0)) for i in range(len(plan.func0.params)))
                extra = f", {plan.tiles[k]}, {_max_bytes(v.func)}, {cap}, {{{per_input}}}"
            w.line(f"{{ge::{v.dtype.ge}, {v.key}, {plan.granule[k]}, {plan.min_per_core[k]}{extra}}},")
    if plan.broadcast:
        host_broadcast.emit_tables(w, plan)


def runtime_attrs(w: CodeWriter, plan: HostPlan) -> None:
    """TilingFunc's tail: the run-time attributes into the tiling data (all present), the block dim."""
    runtime = [(i, a) for i, a in enumerate(plan.attr_decls) if not a.static]
    for i, a in runtime:
        ctype = "float" if a.kind == "float" else "int64_t"
        w.line(f"const {ctype}* {field_name(a.name)} = attrs->GetAttrPointer<{ctype}>({i});")
    if runtime:
        missing = " || ".join(f"{field_name(a.name)} == nullptr" for _, a in runtime)
        names = ", ".join(a.name for _, a in runtime)
        w.line(
            f'OP_CHECK_IF({missing}, OP_LOGE(OP_TYPE, "attribute missing (one of {names})"), '
            "return ge::GRAPH_FAILED);"
        )
    for _, a in runtime:
        w.line(f"tiling.set_{field_name(a.name)}(*{field_name(a.name)});")
    w.line(f"context->{spelling('set_block_dim', plan.cann)}(static_cast<uint32_t>(usedCores));")


def input_checks(w: CodeWriter) -> None:
    """The head of TilingFunc's loop over INPUTS: input i present (or optional and not needed by
    the tiling key), its dtype T or its pinned dtype; leaves ``in`` and ``inShape``."""
    w.line("const InputSpec& in = INPUTS[i];")
    w.line(
        "const gert::StorageShape* s = in.optional ? context->GetOptionalInputShape(i) : "
        "context->GetRequiredInputShape(i);"
    )
    with w.block("if (s == nullptr)"):
        w.line("const bool needed = !in.optional || ((in.neededByKeys >> tilingKey) & 1) != 0;")
        w.line(
            'OP_CHECK_IF(needed, OP_LOGE(OP_TYPE, "input %s is missing (the attributes need it)", '
            "in.name), return ge::GRAPH_FAILED);"
        )
        w.line("continue;")
    w.line(
        "const gert::CompileTimeTensorDesc* desc = in.optional ? context->GetOptionalInputDesc(i) : "
        "context->GetRequiredInputDesc(i);"
    )
    w.line("OP_CHECK_NULL_WITH_CONTEXT(context, desc);")
    w.line("const ge::DataType want = in.pinned == ge::DT_UNDEFINED ? dtype : in.pinned;")
    w.line(
        'OP_CHECK_IF(desc->GetDataType() != want, OP_LOGE(OP_TYPE, "input %s has dtype %d, expected %d", '
        "in.name, static_cast<int>(desc->GetDataType()), static_cast<int>(want)), return ge::GRAPH_FAILED);"
    )
    w.line("const gert::Shape& inShape = s->GetStorageShape();")


def emit_static_attrs(w: CodeWriter, plan: HostPlan) -> None:
    """The static-attribute table and TilingKeyOf (the key is their mixed-radix index)."""
    statics = _static(plan)
    if statics:
        w.line(comment="Static attributes: the tiling key is their mixed-radix index (bool: 0/1, string:")
        w.line(comment="the position of its value in choices).")
        for _, a in statics:
            if a.kind == "literal":
                choices = ", ".join(f'"{w_escape(c)}"' for c in a.choices)
                w.line(f"constexpr const char* {a.name.upper()}_CHOICES[] = {{{choices}}};")
        with w.block("struct StaticAttr", "};"):
            w.line("const char* name;")
            w.line("size_t index;", "position among the op's attributes")
            w.line("const char* const* choices;", "nullptr: a bool attribute")
            w.line("size_t count;")
        with w.block("constexpr StaticAttr STATIC_ATTRS[] =", "};"):
            for i, a in statics:
                if a.kind == "bool":
                    w.line(f'{{"{a.name}", {i}, nullptr, 2}},')
                else:
                    w.line(f'{{"{a.name}", {i}, {a.name.upper()}_CHOICES, {len(a.choices)}}},')
        w.line()
        with w.block("bool TilingKeyOf(const gert::RuntimeAttrs* attrs, uint64_t& key)"):
            w.line("uint64_t radix = 1;")
            w.line("key = 0;")
            with w.block("for (const StaticAttr& a : STATIC_ATTRS)"):
                w.line("int64_t choice = -1;")
                with w.block("if (a.choices == nullptr)"):
                    w.line("const bool* value = attrs->GetAttrPointer<bool>(a.index);")
                    w.line("choice = value == nullptr ? -1 : (*value ? 1 : 0);")
                with w.block("else"):
                    w.line("const char* value = attrs->GetStr(a.index);")
                    w.line("for (size_t c = 0; value != nullptr && c < a.count; ++c) {")
                    w.line("    if (std::strcmp(value, a.choices[c]) == 0) choice = static_cast<int64_t>(c);")
                    w.line("}")
                w.line(
                    'OP_CHECK_IF(choice < 0, OP_LOGE(OP_TYPE, "attribute %s is missing or not one of its '
                    'choices", a.name), return false);'
                )
                w.line("key += static_cast<uint64_t>(choice) * radix;")
                w.line("radix *= a.count;")
            w.line("return true;")
        w.line()


def _max_bytes(func: Func) -> int:
    sizes = [p.value.type.dtype.bytes for p in func.params if isinstance(p.value.type, TensorType)]
    sizes += [o.type.dtype.bytes for o in func.outputs]
    return max(sizes, default=1)


def output_count(plan: HostPlan) -> int:
    return len(plan.func0.outputs)


def _keys_reading(plan: HostPlan, name: str) -> list[int]:
    return sorted({v.key for v in plan.variants if v.dtype == plan.dtypes[0] and _reads(v.func, name)})


def _reads(func: Func, name: str) -> bool:
    return any(v.name == name and v.owner is None for op in func.walk() for v in op.operands)


def element_type(w: CodeWriter, plan: HostPlan) -> None:
    """TilingFunc's ``dtype`` (T): the first required input of type T, else the ``dst_type``
    attribute (checked to be one of the op's dtypes and the dtype of every output of type T),
    else the op's one dtype."""
    t_index = plan.t_input()
    if t_index is not None:
        w.line(comment="T: the element type of the first required input of type T.")
        w.line(f"const gert::CompileTimeTensorDesc* tDesc = context->GetRequiredInputDesc({t_index});")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, tDesc);")
        w.line("const ge::DataType dtype = tDesc->GetDataType();")
        return
    if not plan.dst_type:
        w.line(f"const ge::DataType dtype = ge::{plan.dtypes[0].ge};", "T: no input or output has it")
        return
    choices = ", ".join(f"{d.ge} = {GE_DATA_TYPE[d.ge]}" for d in plan.dtypes)
    w.line(comment=f"T: the {DST_TYPE} attribute (no required input has type T), one of the op's dtypes;")
    w.line(comment="every output of type T must have it.")
    w.line(f"const int64_t* dstType = attrs->GetAttrPointer<int64_t>({plan.dst_type_index});")
    w.line("OP_CHECK_NULL_WITH_CONTEXT(context, dstType);")
    w.line("const ge::DataType dtype = static_cast<ge::DataType>(*dstType);")
    known = " && ".join(f"dtype != ge::{d.ge}" for d in plan.dtypes)
    w.line(
        f'OP_CHECK_IF({known}, OP_LOGE(OP_TYPE, "{DST_TYPE} %lld is not a dtype of the op: {choices}", '
        "static_cast<long long>(*dstType)), return ge::GRAPH_FAILED);"
    )
    for k in plan.t_outputs():
        name, desc = w_escape(plan.func0.outputs[k].name), f"outDesc{k}"
        w.line(f"const gert::CompileTimeTensorDesc* {desc} = context->GetOutputDesc({k});")
        w.line(f"OP_CHECK_NULL_WITH_CONTEXT(context, {desc});")
        w.line(
            f'OP_CHECK_IF({desc}->GetDataType() != dtype, OP_LOGE(OP_TYPE, "output {name} has dtype %d, '
            f'but {DST_TYPE} is %d", static_cast<int>({desc}->GetDataType()), static_cast<int>(dtype)), '
            "return ge::GRAPH_FAILED);"
        )


def emit_tiling_func(w: CodeWriter, plan: HostPlan) -> None:
    shape_index = plan.shape_input()
    broadcast = plan.func0.attributes.get("broadcast")
    with w.block("static ge::graphStatus TilingFunc(gert::TilingContext* context)"):
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, context->GetPlatformInfo());")
        w.line("auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());")
        w.line("const uint32_t coreNum = plat.GetCoreNumAiv();")
        w.line("const gert::RuntimeAttrs* attrs = context->GetAttrs();")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, attrs);")
        w.line("uint64_t tilingKey = 0;")
        if _static(plan):
            w.line("OP_CHECK_IF(!TilingKeyOf(attrs, tilingKey), , return ge::GRAPH_FAILED);")
        w.line()
        if shape_index is None:
            raise CompileError(
                f"{plan.op_name}: every tensor input is optional, so a call may have no tensor to take the "
                "output shape from; make one tensor input required",
                plan.func0.loc,
            )
        element_type(w, plan)
        w.line(comment="Every tensor has the shape of the first required tensor input.")
        w.line(f"const gert::StorageShape* first = context->GetRequiredInputShape({shape_index});")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, first);")
        w.line("const gert::Shape& shape = first->GetStorageShape();")
        if broadcast:
            w.line("(void)shape;")
        with w.block("for (size_t i = 0; i < sizeof(INPUTS) / sizeof(INPUTS[0]); ++i)"):
            input_checks(w)
            w.line(
                'OP_CHECK_IF(in.scalar && inShape.GetShapeSize() != 1, OP_LOGE(OP_TYPE, "Scalar input %s must '
                'have shape [1]", in.name), return ge::GRAPH_FAILED);'
            )
            if not broadcast:  # broadcast ops: host_broadcast checks the shapes together below
                message = "input %s must have the shape of input %s"
                first_name = w_escape(plan.func0.params[shape_index].value.name)
                w.line(
                    f'OP_CHECK_IF(!in.scalar && !(inShape == shape), OP_LOGE(OP_TYPE, "{message}", in.name, '
                    f'"{first_name}"), return ge::GRAPH_FAILED);'
                )
        if broadcast:
            host_broadcast.emit_analysis(w, plan)
        w.line()
        w.line(comment="Core split (split-cores): whole blocks, remainder blocks to the first cores.")
        w.line("const SplitSpec* split = nullptr;")
        with w.block("for (const SplitSpec& s : SPLITS)"):
            w.line("if (s.dtype == dtype && s.key == tilingKey) split = &s;")
        w.line(
            'OP_CHECK_IF(split == nullptr, OP_LOGE(OP_TYPE, "no kernel for dtype %d and tiling key %llu", '
            "static_cast<int>(dtype), static_cast<unsigned long long>(tilingKey)), return ge::GRAPH_FAILED);"
        )
        if broadcast:
            host_broadcast.emit_split(w, plan)
        else:
            w.line("const uint64_t totalLength = static_cast<uint64_t>(shape.GetShapeSize());")
            w.line("const uint64_t blocks = (totalLength + split->granule - 1) / split->granule;")
            w.line("uint64_t usedCores = (totalLength + split->minPerCore - 1) / split->minPerCore;")
            w.line("if (usedCores > coreNum) usedCores = coreNum;")
            w.line(
                "if (usedCores == 0) usedCores = 1;",
                "an empty input still launches one core, which does nothing",
            )
            w.line()
            w.line(f"{plan.op_type}TilingData tiling;")
            w.line("tiling.set_totalLength(totalLength);")
            w.line("tiling.set_smallBlocks(blocks / usedCores);")
            w.line("tiling.set_tailCores(static_cast<uint32_t>(blocks % usedCores));")
            w.line("tiling.set_usedCores(static_cast<uint32_t>(usedCores));")
        runtime_attrs(w, plan)
        if broadcast:
            w.line(
                "context->SetTilingKey(tilingKey + ATTR_KEYS * mode);",
                "the broadcast mode selects the kernel path",
            )
        else:
            w.line("context->SetTilingKey(tilingKey);")
        w.line("size_t* workspace = context->GetWorkspaceSizes(1);")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, workspace);")
        w.line("workspace[0] = plat.GetLibApiWorkSpaceSize();", "no user workspace: the system reserve only")
        w.line(
            "tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());"
        )
        w.line("context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());")
        w.line("return ge::GRAPH_SUCCESS;")


def emit_infer(w: CodeWriter, plan: HostPlan) -> None:
    func0 = plan.func0
    shape_index = plan.shape_input() or 0
    t_index = plan.t_input()
    if plan.broadcast and shape_index is not None:
        host_broadcast.emit_infer(w, plan)
    else:
        _emit_infer_shape(w, plan, func0, shape_index)
    emit_infer_dtype(w, plan, func0, t_index)


def _emit_infer_shape(w: CodeWriter, plan: HostPlan, func0, shape_index) -> None:
    w.line(comment="Every output has the shape of the inputs.")
    with w.block("static graphStatus InferShape(gert::InferShapeContext* context)"):
        w.line(f"const gert::Shape* shape = context->GetRequiredInputShape({shape_index});")
        w.line("OP_CHECK_NULL_WITH_CONTEXT(context, shape);")
        with w.block(f"for (size_t i = 0; i < {len(func0.outputs)}; ++i)"):
            w.line("gert::Shape* out = context->GetOutputShape(i);")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, out);")
            w.line("*out = *shape;")
        w.line("return GRAPH_SUCCESS;")


def emit_infer_dtype(w: CodeWriter, plan: HostPlan, func0, t_index) -> None:
    w.line()
    kinds = [_output_type(plan, k) for k in range(len(func0.outputs))]
    w.line(comment="Outputs have the inputs' element type T, a type the op fixes (bool, i8, ...), or one")
    w.line(comment="that follows T (f32 for an i32 T that meets a float literal).")
    with w.block("static graphStatus InferDataType(gert::InferDataTypeContext* context)"):
        needs_t = any(not isinstance(k, DType) for k in kinds)
        if t_index is not None and needs_t:
            w.line(f"const DataType dtype = context->GetRequiredInputDataType({t_index});")
        elif needs_t:
            if not plan.dst_type:  # has_dst_type holds whenever an output follows T
                raise CompileError(
                    f"{plan.op_name}: an output's type follows T, which no input gives", func0.loc
                )
            w.line(comment=f"T: the {DST_TYPE} attribute (no required input has type T).")
            w.line("const gert::RuntimeAttrs* attrs = context->GetAttrs();")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, attrs);")
            w.line(f"const int64_t* dstType = attrs->GetAttrPointer<int64_t>({plan.dst_type_index});")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, dstType);")
            w.line("const DataType dtype = static_cast<DataType>(*dstType);")
        types = []
        for k, kind in enumerate(kinds):
            if isinstance(kind, DType):
                types.append(kind.ge)
            elif kind is None:
                types.append("dtype")
            else:
                name = f"{func0.outputs[k].name}Type"
                w.line(f"DataType {name} = DT_UNDEFINED;")
                for t, out in kind:
                    w.line(f"if (dtype == {t.ge}) {name} = {out.ge};")
                types.append(name)
        w.line(f"const DataType outputs[] = {{{', '.join(types)}}};")
        with w.block(f"for (size_t i = 0; i < {len(kinds)}; ++i)"):
            w.line("if (context->SetOutputDataType(i, outputs[i]) != GRAPH_SUCCESS) return GRAPH_FAILED;")
        w.line("return GRAPH_SUCCESS;")


def _output_type(plan: HostPlan, k: int):
    """None: output k has type T; a DType: always that type; else the (T, type) pairs."""
    pairs = [(d, plan.funcs[d].outputs[k].type.dtype) for d in plan.dtypes]
    if all(t == out for t, out in pairs):
        return None
    if len({out for _, out in pairs}) == 1:
        return pairs[0][1]
    return pairs


def _dtype_list(dts: list[DType]) -> str:
    return "{" + ", ".join(f"ge::{d.ge}" for d in dts) + "}"


def emit_opdef(w: CodeWriter, plan: HostPlan) -> None:
    n = len(plan.dtypes)
    formats = "{" + ", ".join(["ge::FORMAT_ND"] * n) + "}"
    func0 = plan.func0
    with w.block(f"class {plan.op_type} : public OpDef", "};"):
        w.level -= 1
        w.line("public:")
        w.level += 1
        with w.block(f"explicit {plan.op_type}(const char* name) : OpDef(name)"):
            for k, p in enumerate(func0.params):
                dts = [plan.funcs[d].params[k].value.type.dtype for d in plan.dtypes]
                kind = "OPTIONAL" if p.optional else "REQUIRED"
                w.line(
                    f'this->Input("{p.value.name}").ParamType({kind}).DataType({_dtype_list(dts)}).Format({formats});'
                )
            for k, o in enumerate(func0.outputs):
                dts = [plan.funcs[d].outputs[k].type.dtype for d in plan.dtypes]
                w.line(
                    f'this->Output("{o.name}").ParamType(REQUIRED).DataType({_dtype_list(dts)}).Format({formats});'
                )
            for a in plan.attr_decls:
                if a.kind == "bool":
                    default = "true" if a.default else "false"
                    w.line(f'this->Attr("{a.name}").AttrType(OPTIONAL).Bool({default});')
                elif a.kind == "literal":
                    w.line(f'this->Attr("{a.name}").AttrType(OPTIONAL).String("{w_escape(a.default)}");')
                elif a.kind == "float":
                    w.line(f'this->Attr("{a.name}").AttrType(OPTIONAL).Float({float_literal(a.default)});')
                else:
                    w.line(f'this->Attr("{a.name}").AttrType(OPTIONAL).Int({int(a.default)});')
            if plan.dst_type:
                w.line(
                    f'this->Attr("{DST_TYPE}").AttrType(OPTIONAL).Int(ge::{plan.dtypes[0].ge});',
                    "T, a ge::DataType",
                )
            w.line("this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);")
            w.line(f'this->AICore().SetTiling(optiling::TilingFunc).AddConfig("{plan.target}");')
    w.line(f"OP_ADD({plan.op_type});")
