"""The matmul schedule (an operator with ``@``): pipeline, host tiling and project files.

The pass pipeline is split-cube-vector followed by the row pipeline (the epilogue is a row
function over rows of N); the kernel is ``kernel/cube.py``; the host here: TilingFunc (shape
checks naming M, K and N, the tile grid, the AI Core count as block dim, the workspace of two
f32 tiles per AI Core behind the system reserve), InferShape ([M, N]) and, shared with every
family, InferDataType and the OpDef (``host.py``).
"""

from __future__ import annotations

from dsl.errors import CompileError
from dsl.ir import Module, TensorType
from passes import PassManager
from passes.pipelines import matmul_pipeline

from .host import emit_static_attrs, host_source, runtime_attrs, tiling_header, w_escape
from .kernel.cube import WS_SLOTS, cube_kernel, direct_output, epilogue_plan
from .kernel.naming import camel
from .writer import CodeWriter

MATMUL_FIELDS = [
    ("uint32_t", "m", "rows of the product (M)"),
    ("uint32_t", "n", "columns of the product (N)"),
    ("uint32_t", "k", "the contracted dim (K)"),
    ("uint32_t", "baseM", "output tile rows (<= BASE_M, whole fractals)"),
    ("uint32_t", "baseN", "output tile columns (<= BASE_N)"),
    ("uint32_t", "tilesM", "tile rows: ceil(M / baseM)"),
    ("uint32_t", "tilesN", "tile columns: ceil(N / baseN)"),
]


def find_matmul(func):
    return next((o for o in func.walk() if o.opname == "matmul"), None)


def pipeline(tgt, vector: str) -> list:
    """``passes.pipelines.matmul_pipeline`` with split-cube-vector given the target's cube memories."""
    opts = f"l1={tgt.l1_bytes},l0a={tgt.l0a_bytes},l0b={tgt.l0b_bytes},l0c={tgt.l0c_bytes}"
    return matmul_pipeline(f"split-cube-vector{{{opts}}}", vector)


def epilogue_vector_path(op, tgt, path: str) -> str:
    """select-vector-path for the epilogue: the rule (seed 004 section 3) names the path and its
    reason for ``--explain``; on ascend950 a RegBase pick is rendered as one row vector function
    per half tile (``kernel/cube.py``), on 910B the epilogue is MemBase."""
    regbase = str(tgt.regbase).lower()
    return f"select-vector-path{{regbase={regbase},path={path}}}"


def check_supported(op) -> None:
    """What the matmul schedule cannot take yet, on either target: a CompileError at the ``@``
    line (``compile.refuse_matmul``: before any pass runs, file is written or input is drawn)."""
    func = op.func(op.dtypes[0])
    mm = find_matmul(func)
    if mm is None:
        return
    for p in func.params:
        if p.optional and not any(a.static for a in op._def.attrs):
            raise CompileError(
                f"input '{p.value.name}' of operator {op.name}: an optional input of a matmul operator needs a "
                "static attribute that says whether it is read",
                mm.loc,
            )


def declared_dims(t, names: dict) -> list | None:
    """The host's shape check of an input beside the operands, from its declared dims whether or
    not the epilogue reads it ([M, N], [N], [M, 1]; an input no statement reads may have any shape,
    the frontend checks only what the epilogue reads): per dim (shown, C++ value or None: free),
    the product's dims as ``m``, ``k``, ``n``; None for a Scalar or an unshaped input."""
    if not isinstance(t, TensorType) or t.shape.unshaped or t.shape.ellipsis:
        return None
    return [
        (str(d), str(d)) if isinstance(d, int) else (names[d].upper(), names[d]) if d in names else (d, None)
        for d in t.shape.dims
    ]


def tiling_func(plan, cube: dict, direct: str | None, readers: dict | None = None) -> callable:
    """``readers``: an optional input -> the tiling keys whose epilogue reads it."""
    readers = readers or {}

    def emit(w: CodeWriter) -> None:
        func0 = plan.func0
        names = [p.value.name for p in func0.params]
        ia, ib = names.index(cube["a"]), names.index(cube["b"])
        a, b = cube["a"], cube["b"]
        with w.block("static ge::graphStatus TilingFunc(gert::TilingContext* context)"):
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, context->GetPlatformInfo());")
            w.line("auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());")
            w.line("const uint32_t coreNum = plat.GetCoreNumAic();", "a mixed kernel's block is an AI Core")
            w.line("const gert::RuntimeAttrs* attrs = context->GetAttrs();")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, attrs);")
            statics = any(x.static for x in plan.attr_decls)
            if statics:
                w.line("uint64_t tilingKey = 0;")
                w.line("OP_CHECK_IF(!TilingKeyOf(attrs, tilingKey), , return ge::GRAPH_FAILED);")
            for i, name in ((ia, a), (ib, b)):
                w.line(f"const gert::StorageShape* {camel(name)}Shape = context->GetInputShape({i});")
                w.line(f"OP_CHECK_NULL_WITH_CONTEXT(context, {camel(name)}Shape);")
                w.line(f"const gert::Shape& {camel(name)}S = {camel(name)}Shape->GetStorageShape();")
            A, B = f"{camel(a)}S", f"{camel(b)}S"
            bdesc = f"{b} [N, K]" if cube["transpose_b"] else f"{b} [K, N]"
            w.line(
                f'OP_CHECK_IF({A}.GetDimNum() != 2 || {B}.GetDimNum() != 2, OP_LOGE(OP_TYPE, "{w_escape(a)} [M, K] '
                f'and {w_escape(bdesc)} must be 2-D"), return ge::GRAPH_FAILED);'
            )
            kb, nb = (1, 0) if cube["transpose_b"] else (0, 1)
            w.line(f"const int64_t m = {A}.GetDim(0), k = {A}.GetDim(1), n = {B}.GetDim({nb});")
            w.line(
                f'OP_CHECK_IF({B}.GetDim({kb}) != k, OP_LOGE(OP_TYPE, "K of {w_escape(a)} (%lld) and of '
                f'{w_escape(b)} (%lld) differ", static_cast<long long>(k), static_cast<long long>({B}.GetDim({kb}))), '
                "return ge::GRAPH_FAILED);"
            )
            w.line(
                'OP_CHECK_IF(k < 1 || k > 65535 || m > 0x7fffffff || n > 0x7fffffff, OP_LOGE(OP_TYPE, "M = %lld, '
                'K = %lld, N = %lld: K must be in [1, 65535]", static_cast<long long>(m), static_cast<long long>(k), '
                "static_cast<long long>(n)), return ge::GRAPH_FAILED);"
            )
            mm_dims = find_matmul(func0).result.type.shape.dims
            dim_names = {mm_dims[0]: "m", mm_dims[1]: "n", func0.params[ia].value.type.shape.dims[1]: "k"}
            for i, name in enumerate(names):
                if name in (a, b):
                    continue
                dims = declared_dims(func0.params[i].value.type, dim_names)
                if func0.params[i].optional:
                    mask = sum(1 << k for k in readers.get(name, ()))
                    w.line(f"const gert::StorageShape* in{i} = context->GetOptionalInputShape({i});")
                    w.line(
                        f"OP_CHECK_IF(in{i} == nullptr && ((0x{mask:x}ULL >> tilingKey) & 1) != 0, OP_LOGE(OP_TYPE, "
                        f'"input {w_escape(name)} is missing (the attributes need it)"), return ge::GRAPH_FAILED);'
                    )
                    w.line(f"if (in{i} != nullptr) {{", "absent: this key's epilogue does not read it")
                    w.level += 1
                else:
                    w.line(f"const gert::StorageShape* in{i} = context->GetInputShape({i});")
                    w.line(f"OP_CHECK_NULL_WITH_CONTEXT(context, in{i});")
                if not isinstance(func0.params[i].value.type, TensorType):
                    w.line(
                        f'OP_CHECK_IF(in{i}->GetStorageShape().GetShapeSize() != 1, OP_LOGE(OP_TYPE, "Scalar input '
                        f'{w_escape(name)} must have shape [1]"), return ge::GRAPH_FAILED);'
                    )
                elif dims is not None:
                    shape = f"in{i}->GetStorageShape()"
                    cond = " || ".join(
                        [f"{shape}.GetDimNum() != {len(dims)}"]
                        + [f"{shape}.GetDim({j}) != {v}" for j, (_, v) in enumerate(dims) if v is not None]
                    )
                    named = sorted({v for _, v in dims if v in ("m", "k", "n")}, key="mkn".index)
                    shown = ", ".join(d for d, _ in dims)
                    msg = f"input {w_escape(name)} must be [{shown}]" + (
                        f" ({', '.join(f'{v.upper()} = %lld' for v in named)})" if named else ""
                    )
                    args = "".join(f", static_cast<long long>({v})" for v in named)
                    w.line(f'OP_CHECK_IF({cond}, OP_LOGE(OP_TYPE, "{msg}"{args}), return ge::GRAPH_FAILED);')
                if func0.params[i].optional:
                    w.level -= 1
                    w.line("}")
            if cube.get("full_row"):
                w.line(
                    f'OP_CHECK_IF(n > {cube["base_n"]}, OP_LOGE(OP_TYPE, "N = %lld: a reduction along N needs the whole '
                    f'row in one cube tile, at most {cube["base_n"]} columns (L0B/L0C) here", static_cast<long long>(n)), '
                    "return ge::GRAPH_FAILED);"
                )
            w.line()
            if "base_m_table" in cube:
                w.line(
                    f"constexpr uint32_t BASE_M_OF_KEY[] = {{{cube['base_m_table']}}};",
                    "BASE_M per tiling key",
                )
            w.line(comment="The tile grid: base tiles shrunk to the problem (whole 16-row/column fractals).")
            w.line(
                f"const uint32_t baseM = m < {cube['base_m_final']} ? (static_cast<uint32_t>(m) + 15) / 16 * 16 : "
                f"{cube['base_m_final']};",
                cube.get("base_m_why"),
            )
            w.line(
                f"const uint32_t baseN = n < {cube['base_n']} ? (static_cast<uint32_t>(n) + 15) / 16 * 16 : {cube['base_n']};"
            )
            w.line("const uint32_t tilesM = m == 0 ? 0 : static_cast<uint32_t>((m + baseM - 1) / baseM);")
            w.line("const uint32_t tilesN = n == 0 ? 0 : static_cast<uint32_t>((n + baseN - 1) / baseN);")
            w.line("const uint64_t tiles = static_cast<uint64_t>(tilesM) * tilesN;")
            w.line("uint64_t usedCores = tiles < coreNum ? tiles : coreNum;")
            w.line("if (usedCores == 0) usedCores = 1;", "an empty product still launches one core")
            w.line(f"{plan.op_type}TilingData tiling;")
            for f in ("m", "n", "k"):
                w.line(f"tiling.set_{f}(static_cast<uint32_t>({f}));")
            for f in ("baseM", "baseN", "tilesM", "tilesN"):
                w.line(f"tiling.set_{f}({f});")
            runtime_attrs(w, plan)
            if statics:
                w.line("context->SetTilingKey(tilingKey);", "the static attributes' kernel path")
            else:
                w.line("context->SetTilingKey(0);")
            w.line("size_t* workspace = context->GetWorkspaceSizes(1);")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, workspace);")
            if direct or plan.target == "ascend950":
                why = (
                    "the AI Cores write the product straight from L0C"
                    if direct
                    else "L0C -> UB, no GM hand-over"
                )
                w.line("workspace[0] = plat.GetLibApiWorkSpaceSize();", f"no user workspace: {why}")
            else:
                w.line(
                    f"workspace[0] = plat.GetLibApiWorkSpaceSize() + usedCores * {WS_SLOTS} * {cube['base_m_final']} * "
                    f"{cube['base_n']} * sizeof(float);",
                    f"the system reserve, then {WS_SLOTS} f32 tiles per AI Core (GetUserWorkspace)",
                )
            w.line(
                "tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), "
                "context->GetRawTilingData()->GetCapacity());"
            )
            w.line("context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());")
            w.line("return ge::GRAPH_SUCCESS;")

    return emit


def infer(plan, cube: dict):
    from .host import emit_infer_dtype

    def emit(w: CodeWriter) -> None:
        func0 = plan.func0
        names = [p.value.name for p in func0.params]
        ia, ib = names.index(cube["a"]), names.index(cube["b"])
        nb = 0 if cube["transpose_b"] else 1
        w.line(
            comment="Every output is [M, N] ([M, 1]: a value per row): M from the left operand, N from the right one."
        )
        with w.block("static graphStatus InferShape(gert::InferShapeContext* context)"):
            w.line(f"const gert::Shape* a = context->GetInputShape({ia});")
            w.line(f"const gert::Shape* b = context->GetInputShape({ib});")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, a);")
            w.line("OP_CHECK_NULL_WITH_CONTEXT(context, b);")
            row = [o.type.shape.dims[-1] == 1 for o in func0.outputs]
            with w.block(f"for (size_t i = 0; i < {len(func0.outputs)}; ++i)"):
                w.line("gert::Shape* out = context->GetOutputShape(i);")
                w.line("OP_CHECK_NULL_WITH_CONTEXT(context, out);")
                w.line("out->SetDimNum(0);")
                w.line("out->AppendDim(a->GetDim(0));")
                if any(row):
                    mask = sum(1 << i for i, r in enumerate(row) if r)
                    w.line(
                        f"out->AppendDim(((0x{mask:x}u >> i) & 1) != 0 ? 1 : b->GetDim({nb}));",
                        "[M, 1] outputs: a value per row",
                    )
                else:
                    w.line(f"out->AppendDim(b->GetDim({nb}));")
            w.line("return GRAPH_SUCCESS;")
        emit_infer_dtype(w, plan, func0, plan.t_input())

    return emit


def lower_matmul(op, tgt, plan_args: dict, vector: str, dump=None, check=None):
    """(modules, kernel, host, tiling header) of a matmul operator on ``tgt`` (910B)."""
    from .host import HostPlan

    check_supported(op)
    modules, finals, keyed = {}, {}, {}
    for dt in op.dtypes:
        module = Module([op.func(dt)])
        passes = pipeline(tgt, vector)
        at = next(i for i, p in enumerate(passes) if p.name == "split-cube-vector")
        PassManager(passes[:at], print_after_all=dump, after_each=check).run(module)  # specialize, ...
        for f in module.funcs:
            if find_matmul(f) is None:
                bind = ", ".join(f"{k}={v!r}" for k, v in f.attributes.get("bind", {}).items())
                raise CompileError(
                    f"operator {op.name}: under the static attributes {bind} no output depends on the product; "
                    "a tiling key without the matmul is not supported yet (the cube part runs under every key)",
                    find_matmul(op.func(dt)).loc,
                )
        PassManager(passes[at:], print_after_all=dump, after_each=check).run(module)
        modules[dt] = module
        finals[dt] = module.funcs[0]
        for f in module.funcs:  # one per static-attribute key (specialize)
            keyed.setdefault(f.attributes.get("tiling_key", 0), {})[dt] = f
    plan: HostPlan = plan_args["plan"]
    cube = finals[op.dtypes[0]].attributes["cube"]
    inputs = [p.value.name for p in plan.func0.params]
    outputs = [o.name for o in plan.func0.outputs]
    from .kernel.cube import EpilogueRenderer

    if len({direct_output(fs[op.dtypes[0]]) is None for fs in keyed.values()}) > 1:
        for fs in keyed.values():  # the identity under some keys only: it copies the rows out too
            for f in fs.values():
                f.attributes["via_epilogue"] = True
    shared, readers, base_ms = None, {}, {}
    for key, fs in sorted(keyed.items()):
        f = fs[op.dtypes[0]]
        epi = EpilogueRenderer(f, op.dtypes[0], tgt, plan.cann, plan_args.get("vf_form")).render()
        for name in list(epi.inputs) + list(epi.scalar_inputs):
            readers.setdefault(name, []).append(key)
        base_ms[key] = epilogue_plan(f, epi, tgt)["base_m"]
        this = ({k: v for k, v in f.attributes["cube"].items() if k != "line"}, direct_output(f) is not None)
        if shared is not None and this != shared:
            raise CompileError(
                f"operator {op.name}: the static attributes change the cube tiling (a reduction along N under some keys "
                "only); not supported yet",
                find_matmul(op.func(op.dtypes[0])).loc,
            )
        shared = this
    if len(set(base_ms.values())) == 1:
        cube = {**cube, "base_m_final": base_ms[min(base_ms)]}
    else:  # 950: the UB a key's epilogue leaves sets its tile rows (the kernel's BASE_M under that key)
        table = ", ".join(str(base_ms.get(k, 0)) for k in range(max(base_ms) + 1))
        cube = {
            **cube,
            "base_m_final": f"BASE_M_OF_KEY[tilingKey]",
            "base_m_table": table,
            "base_m_why": "the tile rows of this key's kernel (its epilogue's UB)",
        }
    kernel = cube_kernel(
        plan,
        finals,
        tgt,
        plan_args["header"],
        inputs,
        outputs,
        f"{plan.op_type}TilingData",
        plan_args["carrier"],
        keyed,
        plan_args.get("vf_form"),
    )
    host = host_source(
        plan,
        plan_args["header"],
        tables=lambda w: (
            w.line(f'constexpr const char* OP_TYPE = "{plan.op_type}";'),
            emit_static_attrs(w, plan),
        ),
        tiling_func=tiling_func(plan, cube, direct_output(finals[op.dtypes[0]]), readers),
        infer=infer(plan, cube),
    )
    tiling = tiling_header(plan, plan_args["header"], MATMUL_FIELDS)
    return modules, kernel, host, tiling
