"""Operator -> tile-level IR per tiling key -> CANN project. The one place the backend runs passes."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from dsl.errors import CompileError
from dsl.ir import AttrDecl, Func, Module, print_module
from dsl.names import spelling_clash
from passes import PassManager
from passes.pipelines import elementwise_pipeline, row_pipeline
from passes.chunk_rows import chunked_twin
from passes.rows import row_layout

from .golden_script import GOLDEN_PY
from .host import DST_TYPE, HostPlan, host_source, tiling_header
from .host_broadcast import ub_reserve
from .host_rows import row_host_source, row_input, row_plan_of, row_tiling_header
from .cann import check_cann
from .formatted import black_format
from .kernel import Signature, Variant, emit_kernel
from .kernel.rows import twin_passes
from .kernel.vector import vector_codes
from .names import CANN_BUILTIN_OPS, check_attr_name, op_type
from .project import project_files, write_project
from .targets import get_target, select_vector_path_spelling
from .targets import vector_path as vector_path_of
from .verify import PassNumericCheck

MAX_STATIC_KEYS = 64  # the host marks optional inputs per key in a 64-bit mask
COLUMN_CHUNKS = "column_chunks"  # the row kernel's template flag of its column-chunked variants
SCALAR_INPUT = "bc_scalar"  # broadcast kernels: which input a SCALAR-mode twin reads as a Scalar
TENSOR_CHOICE, TWIN_PREFIX = "tensor", "scalar_"


class BuiltinNameWarning(UserWarning):
    """The generated OpType is also a CANN built-in operator's name."""


@dataclass
class Compiled:
    plan: HostPlan
    modules: dict  # dtype -> final Module
    files: dict[str, str]
    checks: dict = field(default_factory=dict)  # dtype -> PassNumericCheck (with verify_each)


def refuse_matmul(op, target: str = "ascend910b") -> None:
    """An operator with ``@`` the matmul schedule cannot take yet (``matmul.check_supported``): a
    CompileError at its line naming what is missing (before any pass runs or file is written)."""
    from .matmul import check_supported

    get_target(target)
    check_supported(op)


def lower(
    op,
    target: str = "ascend910b",
    dump: Callable[[str], None] | None = None,
    dump_dir: Path | None = None,
    verify_each: bool = False,
    warn_builtin: bool = True,
    cann: str | None = None,
    vector_path: str = "auto",
    vf_form: str | None = None,
) -> Compiled:
    """Run the pipeline for every dtype and emit the project's sources (in memory). ``cann``: the
    release whose spellings to emit (default: the oldest that supports the target);
    ``vector_path``: auto, membase or regbase (``targets.vector_path``); ``vf_form``: how RegBase
    enters its vector functions (``cann.VF_FORMS``; None: the release's ``vf_launch`` spelling)."""
    tgt = get_target(target)
    cann = check_cann(tgt.name, cann)
    vector_path_of(tgt, vector_path)
    refuse_matmul(op, target)
    check_names(op, warn_builtin)
    if any(o.opname == "matmul" for o in op.func(op.dtypes[0]).walk()):
        return _lower_matmul(op, tgt, cann, dump, dump_dir, verify_each, vector_path, vf_form)
    # On ascend950 the MemBase (LocalTensor) API runs through vector-function emulation, so the
    # same kernels are valid there (ascendc-api.md section 7); the RegBase path comes later.
    name = op.name
    camel = op_type(name)
    funcs: dict = {}
    modules: dict = {}
    checks: dict = {}
    variants: list[Variant] = []
    granule, min_per_core, tiles, row_plans = {}, {}, {}, {}
    twins: list[Func] = []  # row functions whose column-chunked form the kernel carries too
    membase_rows: dict = {}  # (dtype, key) -> the MemBase plan of a RegBase row function (its twin's source)
    rows = row_layout(op.func(op.dtypes[0])) is not None
    for dt in op.dtypes:
        func = op.func(dt)
        funcs[dt] = op.func(dt)
        module = Module([func])
        dumps: list[str] = []
        sink = dumps.append if (dump or dump_dir) else None
        check = PassNumericCheck(op, dt) if verify_each else None
        if check is not None:
            checks[dt] = check
        ub = tgt.ub_usable_bytes - ub_reserve(func)  # broadcast ops keep resident rows outside the tiles
        vector = select_vector_path_spelling(tgt, vector_path)
        pipeline = row_pipeline(vector) if rows else elementwise_pipeline(ub, vector, tgt.ub_bank_stagger)
        PassManager(pipeline, print_after_all=sink, after_each=check).run(module)
        if dump is not None:
            for d in dumps:
                dump(d)
        if dump_dir is not None:
            dump_dir.mkdir(parents=True, exist_ok=True)
            (dump_dir / f"{name}.{dt.name}.ir").write_text(print_module(module))
        modules[dt] = module
        if rows and any(f.loop().attrs.get("vector_path") == "regbase" for f in module.funcs if f.loop()):
            # A RegBase row step's column-chunked twin stays MemBase: it is derived from the MemBase plan.
            mem = Module([op.func(dt)])
            PassManager(row_pipeline(select_vector_path_spelling(tgt, "membase"))).run(mem)
            membase_rows.update({(dt, f.attributes["tiling_key"]): f for f in mem.funcs})
        for f in module.funcs:
            key = f.attributes["tiling_key"]
            if key >= MAX_STATIC_KEYS:
                raise CompileError(f"{name} has more than {MAX_STATIC_KEYS} static-attribute combinations")
            variants.append(Variant(key, f, dt, dict(f.attributes.get("bind", {}))))
            variants[-1].ub_budget = (
                ub  # the UB plan-buffers filled (broadcast: row blocks are planned from it)
            )
            if rows:
                row_plans[(dt, key)] = row_plan_of(f)
                twins.append(f)
                continue
            granule[(dt, key)] = f.attributes["split"]["granule"]
            min_per_core[(dt, key)] = f.attributes["split"]["min_per_core"]
            tiles[(dt, key)] = f.loop().attrs["tile"]
    first: Func = funcs[op.dtypes[0]]
    twins = (
        _scalar_twins(
            op, variants, tgt, granule, min_per_core, tiles, select_vector_path_spelling(tgt, vector_path)
        )
        if first.attributes.get("broadcast")
        else []
    )
    sig = Signature(
        inputs=[p.value.name for p in first.params],
        outputs=[o.name for o in first.outputs],
        attrs=[(a.name, a.kind) for a in op._def.attrs if not a.static],
    )
    plan = HostPlan(
        name,
        camel,
        op.dtypes,
        funcs,
        list(op._def.attrs),
        variants,
        sig,
        target,
        min_per_core,
        granule,
        cann,
        tiles,
    )
    plan.row_plans = row_plans
    plan.scalar_twins = [v for v in twins if v.cheaper]  # the host may pick these (SPLITS lists them)
    chunk_variants: list[Variant] = []
    if rows:
        # Each row variant has a column-chunked twin (rows too long for UB), selected at run time
        # by the tiling key + CHUNK_KEY_OFFSET; the kernel tells them apart by COLUMN_CHUNKS.
        if any(a.name == COLUMN_CHUNKS for a in op._def.attrs):
            raise CompileError(f"attribute name '{COLUMN_CHUNKS}' is reserved for row operators", first.loc)
        offset = max(v.key for v in variants) + 1
        if 2 * offset > MAX_STATIC_KEYS:
            raise CompileError(
                f"{name} has {offset} static-attribute combinations; a row operator takes at most "
                f"{MAX_STATIC_KEYS // 2} (each has a column-chunked twin)"
            )
        for v in variants:
            twin = chunked_twin(membase_rows.get((v.dtype, v.key), v.func))
            v.twin_passes = twin_passes(twin)  # the full-load kernel writes the twin's guards too
            twin.attributes["tiling_key"] = v.key + offset
            chunk_variants.append(Variant(v.key + offset, twin, v.dtype, {**v.bind, COLUMN_CHUNKS: True}))
            row_plans[(v.dtype, v.key + offset)] = row_plan_of(twin)
            v.bind[COLUMN_CHUNKS] = False
        plan.chunk_key_offset = offset
    plan.chunk_variants = chunk_variants
    header = (
        f"Generated by dslc from {Path(first.loc.filename).name if first.loc else name}. Do not edit by hand;\n"
        f"edit the DSL source and run `dslc compile` again."
    )
    static_attrs = [a for a in op._def.attrs if a.static]
    dtype_input = t_carrier(plan)
    if rows:
        if row_input(plan) is None:
            raise CompileError(
                f"{name}: a row operator needs a required input with the row shape (rows and columns are "
                "read from it at run time)",
                first.loc,
            )
        from .kernel.rows import RowKernelText, RowVariantRenderer

        kernel = emit_kernel(
            name,
            camel,
            variants + chunk_variants,
            sig,
            header,
            op.dtypes,
            static_attrs + [AttrDecl(COLUMN_CHUNKS, "bool", False)],
            dtype_input,
            cann,
            renderer=RowVariantRenderer,
            text=RowKernelText,
            vector=vector_codes(tgt, cann, vf_form),
        )
        host = row_host_source(plan, header, tgt.ub_bytes - tgt.ub_usable_bytes)
        files = project_files(plan, kernel, host, row_tiling_header(plan, header))
    elif plan.scalar_twins:
        if any(a.name == SCALAR_INPUT for a in op._def.attrs):
            raise CompileError(
                f"attribute name '{SCALAR_INPUT}' is reserved for broadcast operators", first.loc
            )
        for v in variants:
            v.bind[SCALAR_INPUT] = TENSOR_CHOICE
        choices = (TENSOR_CHOICE,) + tuple(dict.fromkeys(v.bind[SCALAR_INPUT] for v in plan.scalar_twins))
        kernel = emit_kernel(
            name,
            camel,
            variants + plan.scalar_twins,
            sig,
            header,
            op.dtypes,
            static_attrs + [AttrDecl(SCALAR_INPUT, "literal", TENSOR_CHOICE, choices)],
            dtype_input,
            cann,
            vector=vector_codes(tgt, cann, vf_form),
        )
        files = project_files(plan, kernel, host_source(plan, header), tiling_header(plan, header))
    else:
        kernel = emit_kernel(
            name,
            camel,
            variants,
            sig,
            header,
            op.dtypes,
            static_attrs,
            dtype_input,
            cann,
            vector=vector_codes(tgt, cann, vf_form),
        )
        files = project_files(plan, kernel, host_source(plan, header), tiling_header(plan, header))
    files.update(golden_files(op, plan))
    return Compiled(plan, modules, files, checks)


def check_names(op, warn_builtin: bool) -> None:
    """The operator's type may clash with a CANN built-in (a warning); attribute names must be valid."""
    camel = op_type(op.name)
    if warn_builtin and camel in CANN_BUILTIN_OPS:
        warnings.warn(
            f"operator type {camel} has the name of a CANN built-in operator; installing it as a custom "
            f"operator clashes with the built-in one (choose another with @dsl.op(name='{op.name}_custom'))",
            BuiltinNameWarning,
            stacklevel=4,
        )
    for a in op._def.attrs:
        check_attr_name(a.name)
    names = [*op.inputs, *(a.name for a in op._def.attrs), *op.outputs]
    for k, name in enumerate(names):
        problem = spelling_clash(names[:k], name)
        if problem is not None:
            raise CompileError(f"{op.name}: {problem}")


def _lower_matmul(
    op, tgt, cann, dump, dump_dir, verify_each, vector_path: str = "auto", vf_form: str | None = None
) -> Compiled:
    """The matmul schedule (``matmul.py``): split-cube-vector + the row passes, the CV kernel."""
    from .matmul import epilogue_vector_path, lower_matmul

    name, camel = op.name, op_type(op.name)
    funcs = {dt: op.func(dt) for dt in op.dtypes}
    first = funcs[op.dtypes[0]]
    sig = Signature(
        inputs=[p.value.name for p in first.params],
        outputs=[o.name for o in first.outputs],
        attrs=[(a.name, a.kind) for a in op._def.attrs if not a.static],
    )
    plan = HostPlan(name, camel, op.dtypes, funcs, list(op._def.attrs), [], sig, tgt.name, {}, {}, cann, {})
    header = (
        f"Generated by dslc from {Path(first.loc.filename).name if first.loc else name}. Do not edit by hand;\n"
        f"edit the DSL source and run `dslc compile` again."
    )
    dumps: list[str] = []
    sink = dumps.append if (dump or dump_dir) else None
    checks = {}
    modules, kernel, host, tiling = lower_matmul(
        op,
        tgt,
        {"plan": plan, "header": header, "carrier": t_carrier(plan), "vf_form": vf_form},
        epilogue_vector_path(op, tgt, vector_path),
        sink,
        None,
    )
    plan.variants = [Variant(0, m.funcs[0], dt, {}) for dt, m in modules.items()]  # one kernel path per dtype
    if dump is not None:
        for d in dumps:
            dump(d)
    if dump_dir is not None:
        dump_dir.mkdir(parents=True, exist_ok=True)
        for dt, module in modules.items():
            (dump_dir / f"{name}.{dt.name}.ir").write_text(print_module(module))
    files = project_files(plan, kernel, host, tiling)
    files.update(golden_files(op, plan))
    return Compiled(plan, modules, files, checks)


def t_carrier(plan: HostPlan) -> str | None:
    """The input or output whose ``DTYPE_<NAME>`` macro (CANN defines one per input and output for
    each binary, from the json's dtype lists) is T in the kernel: the first required input of type
    T, else the first output of type T; None when the op has one dtype and nothing carries it."""
    first = plan.func0
    t_input = plan.t_input()
    if t_input is not None:
        return first.params[t_input].value.name
    if plan.dst_type and any(a.name == DST_TYPE for a in plan.attr_decls):
        raise CompileError(
            f"{plan.op_name}: attribute name '{DST_TYPE}' is reserved for operators with no required input of "
            f"type T (the generated operator takes T as its {DST_TYPE} attribute); rename it",
            first.loc,
        )
    outputs = plan.t_outputs()
    if outputs:
        return first.outputs[outputs[0]].name
    if len(plan.dtypes) == 1:
        return None
    raise CompileError(
        f"{plan.op_name}: no required input and no output has type T, so CANN's build cannot tell the "
        f"binaries of dtypes {', '.join(d.name for d in plan.dtypes)} apart; declare one dtype, or make an "
        "output of type T (dsl.cast(v, dsl.T))",
        first.loc,
    )


def _vector_ops(func: Func) -> int:
    """Vector instructions per tile: the loop's ops that are neither DMA nor synchronization."""
    return sum(1 for op in func.loop().region if not op.opname.startswith(("dma.", "sync.", "bcast.")))


def _api_ok(func: Func, tgt) -> bool:
    """Every vector op of ``func`` takes its dtype in the vector API (the kernel renderer's check)."""
    from .kernel.vector import MemBase

    try:
        vc = MemBase(tgt)
        for op in func.walk():
            vc.check(op)
    except CompileError:
        return False
    return True


def _scalar_twins(
    op, variants: list[Variant], tgt, granule: dict, min_per_core: dict, tiles: dict, vector: str
) -> list:
    """SCALAR mode with vector-scalar instructions: for each tensor input i that can be read as a
    Scalar in every dtype, the op lowered with input i a Scalar (read once per core with GetValue;
    hoist-scalars then uses Adds/Muls/Maxs/Mins/CompareScalar where the result is the same, and
    hoist-invariants keeps one resident Duplicate where there is no scalar form, e.g. Div). The
    twin of static key a has tiling key ``twin_key(a, i)`` (after every mode's keys) and runs the
    FLAT path: its other inputs have the output's shape. ``cheaper``: it takes fewer vector
    instructions per tile than the tensor form plus the splat of the size-1 input, so the host
    picks it; a twin that is not cheaper (i32 comparisons with a scalar take a longer exact
    chain) is still compiled into the class, but the host never selects it."""
    from .host_broadcast import twin_key

    first = op.func(op.dtypes[0])
    n = len(first.params)
    attr_keys = len({v.key for v in variants})
    out: list[Variant] = []
    for i, p in enumerate(first.params):
        per_dtype = {dt: op._def.scalar_twin(dt, i) for dt in op.dtypes}
        if any(f is None for f in per_dtype.values()):
            continue
        found: list[Variant] = []
        for dt, func in per_dtype.items():
            ub = tgt.ub_usable_bytes - ub_reserve(func)
            module = Module([func])
            try:
                PassManager(elementwise_pipeline(ub, vector, tgt.ub_bank_stagger)).run(module)
            except CompileError:  # a pass cannot take the Scalar form: the tensor form stands in
                module = Module([v.func for v in variants if v.dtype == dt])
            for f in module.funcs:
                a = f.attributes["tiling_key"]
                key = twin_key(a, i, attr_keys, n)
                base = next(v for v in variants if v.dtype == dt and v.key == a)
                cheaper = f is not base.func and _vector_ops(f) < _vector_ops(base.func) + 1
                if not _api_ok(f, tgt):  # e.g. an i8 scalar splatted by Duplicate: keep the tensor form
                    f, cheaper = base.func, False  # (never selected: every dtype needs the point)
                v = Variant(key, f, dt, {**base.bind, SCALAR_INPUT: TWIN_PREFIX + p.value.name})
                v.ub_budget = ub
                v.cheaper = cheaper
                granule[(dt, key)] = f.attributes["split"]["granule"]
                min_per_core[(dt, key)] = f.attributes["split"]["min_per_core"]
                tiles[(dt, key)] = f.loop().attrs["tile"]
                found.append(v)
        out += found
    return out


def golden_files(op, plan: HostPlan) -> dict[str, str]:
    """The DSL source and a script that makes golden data from it (for checks on a real NPU)."""
    src = Path(op._def.source.filename)
    try:
        text = src.read_text()
    except OSError:
        return {}
    source_name = f"{plan.op_name}_dsl.py"
    script = GOLDEN_PY.format(op_type=plan.op_type, op_name=plan.op_name, source_name=source_name)
    script = black_format(script)  # generated Python is black-formatted
    return {f"golden/{source_name}": text, "golden/golden.py": script}


def compile_op(op, target: str = "ascend910b", out_dir="build", **kwargs) -> Path:
    compiled = lower(op, target, **kwargs)
    return write_project(Path(out_dir), compiled.plan, compiled.files, {})
