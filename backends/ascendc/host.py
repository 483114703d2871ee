"""Host emitter: tiling data header and op_host/<op>.cpp (TilingFunc, InferShape, OpDef)."""

from __future__ import annotations

from dataclasses import dataclass

from dsl.dtypes import DType
from dsl.ir import AttrDecl, Func, ScalarType, TensorType

from .kernel import Signature, Variant, field_name
from .writer import CodeWriter


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
    min_per_core: dict[int, int]  # key -> elements a core should at least get
    granule: dict[int, int]


def tiling_header(plan: HostPlan, header: str) -> str:
    guard = f"{plan.op_name.upper()}_TILING_H"
    w = CodeWriter()
    for line in header.splitlines():
        w.line(comment=line)
    w.line(f"#ifndef {guard}")
    w.line(f"#define {guard}")
    w.line('#include "register/tilingdata_base.h"')
    w.line()
    w.line("namespace optiling {")
    w.line(f"BEGIN_TILING_DATA_DEF({plan.op_type}TilingData)")
    w.line("TILING_DATA_FIELD_DEF(uint64_t, totalLength);", "elements of the flat range")
    w.line("TILING_DATA_FIELD_DEF(uint64_t, smallBlocks);", "32-byte blocks every used core gets")
    w.line("TILING_DATA_FIELD_DEF(uint32_t, tailCores);", "the first tailCores cores get one block more")
    w.line("TILING_DATA_FIELD_DEF(uint32_t, usedCores);", "block dim")
    for name, kind in plan.sig.attrs:
        ctype = "float" if kind == "float" else "int64_t"
        w.line(f"TILING_DATA_FIELD_DEF({ctype}, {field_name(name)});", f"attribute {name}")
    w.line("END_TILING_DATA_DEF;")
    w.line()
    w.line(f"REGISTER_TILING_DATA_CLASS({plan.op_type}, {plan.op_type}TilingData)")
    w.line("}  // namespace optiling")
    w.line(f"#endif  // {guard}")
    return w.text()


def _static_index(plan: HostPlan) -> list[tuple[int, AttrDecl]]:
    return [(i, a) for i, a in enumerate(plan.attr_decls) if a.static]


def host_source(plan: HostPlan, header: str) -> str:
    w = CodeWriter()
    for line in header.splitlines():
        w.line(comment=line)
    w.line("#include <cstdio>")
    w.line("#include <cstring>")
    w.line()
    w.line(f'#include "{plan.op_name}_tiling.h"')
    w.line('#include "register/op_def_registry.h"')
    w.line('#include "tiling/platform/platform_ascendc.h"')
    w.line()
    w.line("namespace optiling {")
    emit_tiling_func(w, plan)
    w.line("}  // namespace optiling")
    w.line()
    w.line("namespace ge {")
    emit_infer_shape(w, plan)
    w.line("}  // namespace ge")
    w.line()
    w.line("namespace ops {")
    emit_opdef(w, plan)
    w.line("}  // namespace ops")
    return w.text()


def _fail(w: CodeWriter, message: str, *args: str) -> None:
    fmt = f'std::printf("{w_escape(message)}\\n"{"".join(", " + a for a in args)});'
    w.line(fmt)
    w.line("return ge::GRAPH_FAILED;")


def w_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def emit_tiling_func(w: CodeWriter, plan: HostPlan) -> None:
    func0 = plan.funcs[plan.dtypes[0]]
    params = func0.params
    tensors = [(i, p) for i, p in enumerate(params) if isinstance(p.value.type, TensorType)]
    scalars = [(i, p) for i, p in enumerate(params) if isinstance(p.value.type, ScalarType)]
    first = next(i for i, p in tensors if not p.optional) if any(not p.optional for _, p in tensors) else None
    with w.block("static ge::graphStatus TilingFunc(gert::TilingContext* context)"):
        w.line("auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());")
        w.line("const uint32_t coreNum = plat.GetCoreNumAiv();")
        w.line()
        w.line(comment="Inputs: every tensor has one shape (flat elementwise op); Scalars have one element.")
        if first is None:
            _fail(w, f"{plan.op_type}: no required tensor input to take the shape from")
        else:
            w.line(f"const gert::StorageShape* firstShape = context->GetInputShape({first});")
            with w.block("if (firstShape == nullptr)"):
                _fail(w, f"{plan.op_type}: input '{params[first].value.name}' has no shape")
            w.line("const gert::Shape& shape = firstShape->GetStorageShape();")
            w.line("const uint64_t totalLength = static_cast<uint64_t>(shape.GetShapeSize());")
        for i, p in tensors:
            if i == first:
                continue
            get = "GetOptionalInputShape" if p.optional else "GetInputShape"
            var = f"shape{i}"
            w.line(f"const gert::StorageShape* {var} = context->{get}({i});")
            cond = f"{var} != nullptr && !({var}->GetStorageShape() == shape)"
            if not p.optional:
                cond = f"{var} == nullptr || !({var}->GetStorageShape() == shape)"
            with w.block(f"if ({cond})"):
                if func0.attributes.get("broadcast"):
                    message = (
                        f"{plan.op_type}: input '{p.value.name}' has another shape than input "
                        f"'{params[first].value.name}'; this kernel handles broadcast=True inputs of equal "
                        "shapes only (broadcasting between different shapes is not supported yet)"
                    )
                else:
                    message = (
                        f"{plan.op_type}: input '{p.value.name}' must have the shape of input "
                        f"'{params[first].value.name}'"
                    )
                _fail(w, message)
        for i, p in scalars:
            get = "GetOptionalInputShape" if p.optional else "GetInputShape"
            var = f"shape{i}"
            w.line(f"const gert::StorageShape* {var} = context->{get}({i});")
            cond = f"{var} == nullptr || {var}->GetStorageShape().GetShapeSize() != 1"
            if p.optional:
                cond = f"{var} != nullptr && {var}->GetStorageShape().GetShapeSize() != 1"
            with w.block(f"if ({cond})"):
                _fail(w, f"{plan.op_type}: Scalar input '{p.value.name}' must have shape [1]")
        w.line()
        w.line(comment="T: the element type of the unpinned inputs, one of the op's dtypes.")
        unpinned = [i for i, p in enumerate(params) if not p.pinned and not p.optional]
        w.line(
            f"const ge::DataType dtype = context->GetInputDesc({unpinned[0] if unpinned else 0})->GetDataType();"
        )
        w.line("uint32_t dtypeCode = 0;")
        for k, dt in enumerate(plan.dtypes):
            w.line(f"if (dtype == ge::{dt.ge}) dtypeCode = {k + 1};")
        with w.block("if (dtypeCode == 0)"):
            _fail(w, f"{plan.op_type}: unsupported dtype %d", "static_cast<int>(dtype)")
        for i, p in enumerate(params):
            if p.optional or i == (unpinned[0] if unpinned else 0):
                continue
            want = f"ge::{p.value.type.dtype.ge}" if p.pinned else "dtype"
            with w.block(f"if (context->GetInputDesc({i})->GetDataType() != {want})"):
                _fail(w, f"{plan.op_type}: input '{p.value.name}' has the wrong dtype")
        w.line()
        w.line("const gert::RuntimeAttrs* attrs = context->GetAttrs();")
        with w.block("if (attrs == nullptr)"):
            _fail(w, f"{plan.op_type}: no attributes")
        w.line("uint64_t staticKey = 0;")
        stride = 1
        for i, a in _static_index(plan):
            if a.kind == "bool":
                w.line(f"const bool* {a.name}Attr = attrs->GetAttrPointer<bool>({i});")
                with w.block(f"if ({a.name}Attr == nullptr)"):
                    _fail(w, f"{plan.op_type}: attribute '{a.name}' is missing")
                w.line(f"staticKey += (*{a.name}Attr ? 1 : 0) * {stride};")
                stride *= 2
            else:
                w.line(f"const char* {a.name}Attr = attrs->GetStr({i});")
                w.line(f"int64_t {a.name}Choice = -1;")
                for c, choice in enumerate(a.choices):
                    w.line(
                        f'if ({a.name}Attr != nullptr && std::strcmp({a.name}Attr, "{w_escape(choice)}") == 0) '
                        f"{a.name}Choice = {c};"
                    )
                with w.block(f"if ({a.name}Choice < 0)"):
                    _fail(w, f"{plan.op_type}: attribute '{a.name}' must be one of {', '.join(a.choices)}")
                w.line(f"staticKey += static_cast<uint64_t>({a.name}Choice) * {stride};")
                stride *= len(a.choices)
        w.line("const uint64_t tilingKey = dtypeCode * 1000 + staticKey;")
        emit_required_optionals(w, plan)
        w.line()
        w.line(comment="Core split (split-cores): whole 32-byte blocks, remainder blocks to the first cores.")
        w.line("uint64_t granule = 0;")
        w.line("uint64_t minPerCore = 0;")
        w.line("switch (tilingKey) {")
        for v in plan.variants:
            w.line(
                f"    case {v.key}: granule = {plan.granule[v.key]}; minPerCore = {plan.min_per_core[v.key]}; break;"
            )
        w.line("    default:")
        w.level += 2
        _fail(
            w, f"{plan.op_type}: no kernel for tiling key %llu", "static_cast<unsigned long long>(tilingKey)"
        )
        w.level -= 2
        w.line("}")
        w.line("const uint64_t blocks = (totalLength + granule - 1) / granule;")
        w.line("uint64_t usedCores = (totalLength + minPerCore - 1) / minPerCore;")
        w.line("if (usedCores > coreNum) usedCores = coreNum;")
        w.line(
            "if (usedCores == 0) usedCores = 1;", "an empty input still launches one core, which does nothing"
        )
        w.line()
        w.line(f"{plan.op_type}TilingData tiling;")
        w.line("tiling.set_totalLength(totalLength);")
        w.line("tiling.set_smallBlocks(blocks / usedCores);")
        w.line("tiling.set_tailCores(static_cast<uint32_t>(blocks % usedCores));")
        w.line("tiling.set_usedCores(static_cast<uint32_t>(usedCores));")
        for i, a in enumerate(plan.attr_decls):
            if a.static:
                continue
            ctype = "float" if a.kind == "float" else "int64_t"
            var = f"{a.name}Value"
            w.line(f"const {ctype}* {var} = attrs->GetAttrPointer<{ctype}>({i});")
            with w.block(f"if ({var} == nullptr)"):
                _fail(w, f"{plan.op_type}: attribute '{a.name}' is missing")
            w.line(f"tiling.set_{field_name(a.name)}(*{var});")
        w.line("context->SetBlockDim(static_cast<uint32_t>(usedCores));", "CANN 9.x: SetSimdNumBlocks")
        w.line("context->SetTilingKey(tilingKey);")
        w.line("size_t* workspace = context->GetWorkspaceSizes(1);")
        w.line("workspace[0] = plat.GetLibApiWorkSpaceSize();", "no user workspace: system reserve only")
        w.line(
            "tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());"
        )
        w.line("context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());")
        w.line("return ge::GRAPH_SUCCESS;")


def emit_required_optionals(w: CodeWriter, plan: HostPlan) -> None:
    """A variant that reads an optional input rejects a call without it."""
    func0 = plan.funcs[plan.dtypes[0]]
    for i, p in enumerate(func0.params):
        if not p.optional:
            continue
        keys = sorted(
            v.key % 1000 for v in plan.variants if v.dtype == plan.dtypes[0] and _reads(v.func, p.value.name)
        )
        if not keys:
            continue
        cond = " || ".join(f"staticKey == {k}" for k in keys)
        get = "GetOptionalInputShape" if isinstance(p.value.type, TensorType) else "GetOptionalInputShape"
        with w.block(f"if (({cond}) && context->{get}({i}) == nullptr)"):
            _fail(w, f"{plan.op_type}: optional input '{p.value.name}' is required by the chosen attributes")


def _reads(func: Func, name: str) -> bool:
    return any(v.name == name and v.owner is None for op in func.walk() for v in op.operands)


def emit_infer_shape(w: CodeWriter, plan: HostPlan) -> None:
    func0 = plan.funcs[plan.dtypes[0]]
    first = next(
        (i for i, p in enumerate(func0.params) if isinstance(p.value.type, TensorType) and not p.optional), 0
    )
    with w.block("static graphStatus InferShape(gert::InferShapeContext* context)"):
        w.line(f"const gert::Shape* shape = context->GetInputShape({first});")
        with w.block("if (shape == nullptr)"):
            w.line("return GRAPH_FAILED;")
        for k in range(len(func0.outputs)):
            w.line(f"gert::Shape* out{k} = context->GetOutputShape({k});")
            with w.block(f"if (out{k} == nullptr)"):
                w.line("return GRAPH_FAILED;")
            w.line(f"*out{k} = *shape;")
        w.line("return GRAPH_SUCCESS;")


def _dtype_list(dts: list[DType]) -> str:
    return "{" + ", ".join(f"ge::{d.ge}" for d in dts) + "}"


def emit_opdef(w: CodeWriter, plan: HostPlan) -> None:
    n = len(plan.dtypes)
    formats = "{" + ", ".join(["ge::FORMAT_ND"] * n) + "}"
    func0 = plan.funcs[plan.dtypes[0]]
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
                    from .kernel import float_literal

                    w.line(f'this->Attr("{a.name}").AttrType(OPTIONAL).Float({float_literal(a.default)});')
                else:
                    w.line(f'this->Attr("{a.name}").AttrType(OPTIONAL).Int({int(a.default)});')
            w.line("this->SetInferShape(ge::InferShape);")
            w.line(f'this->AICore().SetTiling(optiling::TilingFunc).AddConfig("{plan.target}");')
    w.line(f"OP_ADD({plan.op_type});")
