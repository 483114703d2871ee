"""``dslc check``: run an operator folder someone wrote (CANN layout: ``op_host/`` with the OpDef
registration and TilingFunc, ``op_kernel/<op>.cpp``) on the emulator as it is.

The operator's inputs, outputs, attributes and dtype columns come from running its OpDef
registration in the emulator (``describe_project``); the inputs are random numpy data of the
shapes and dtypes asked for, the outputs' shapes come from its InferShape. The run goes on after a
fault (``keep_going``): every distinct fault is reported with its kernel line and block, with the
outputs the kernel computed, which are compared with a golden function when one is given.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dsl.errors import ArgumentError, SimulationError

from .sim.build import ProjectSources
from .sim.driver import describe_project, simulate_project
from .targets import Target

ENV_INCLUDE = "DSLC_CHECK_INCLUDE"  # include folders, os.pathsep-separated, searched after -I's
DEFAULT_SHAPE = (4096,)
# A UB allocation over capacity goes on in a backing store of this many times the physical UB.
UB_BACKING_FACTOR = 4

# ge::DataType codes (graph/types.h) <-> the names --dtype takes and numpy dtypes.
_GE = {
    0: ("f32", "float32"),
    1: ("f16", "float16"),
    2: ("i8", "int8"),
    3: ("i32", "int32"),
    4: ("u8", "uint8"),
    6: ("i16", "int16"),
    7: ("u16", "uint16"),
    8: ("u32", "uint32"),
    9: ("i64", "int64"),
    10: ("u64", "uint64"),
    11: ("f64", "float64"),
    12: ("bool", "bool"),
    27: ("bf16", "bfloat16"),
}
_BY_NAME = {name: code for code, (name, _) in _GE.items()}


class CheckUsageError(ArgumentError):
    """Options that do not fit the operator (exit 2): shapes, dtypes, attributes."""


def ge_name(code: int) -> str:
    return _GE[code][0] if code in _GE else f"ge::DataType({code})"


def ge_numpy(code: int) -> np.dtype:
    if code not in _GE:
        raise ArgumentError(f"ge::DataType {code} has no numpy dtype in the emulator")
    name = _GE[code][1]
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def kernel_file_name(op_type: str) -> str:
    """CANN's file name of an OpType: ``ApplyAdamW`` -> ``apply_adam_w``, ``IsClose`` -> ``is_close``."""
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", op_type)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def include_dirs(given: list[str]) -> tuple[Path, ...]:
    """The ``-I`` folders, then those of ``$DSLC_CHECK_INCLUDE``; each must be a folder."""
    env = [d for d in os.environ.get(ENV_INCLUDE, "").split(os.pathsep) if d]
    out = []
    for origin, d in [*(("-I", d) for d in given), *((ENV_INCLUDE, d) for d in env)]:
        if not Path(d).is_dir():
            raise ArgumentError(f"{origin} {d}: no such include folder")
        out.append(Path(d).resolve())
    return tuple(dict.fromkeys(out))


_OP_ADD = re.compile(r"\bOP_ADD\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)")


def find_operator(folder: Path, op_type: str) -> ProjectSources:
    """The sources of ``op_type`` in an operator folder, or a clear error of what is missing."""
    if not folder.is_dir():
        raise ArgumentError(f"{folder}: no such operator folder")
    hosts = sorted((folder / "op_host").glob("*.cpp"))
    if not hosts:
        raise ArgumentError(
            f"{folder}: no op_host/*.cpp (an operator folder has op_host/ with the OpDef registration "
            "and TilingFunc, and op_kernel/ with the kernel)"
        )
    registered = list(dict.fromkeys(_OP_ADD.findall("\n".join(h.read_text(errors="replace") for h in hosts))))
    if not registered:
        raise ArgumentError(f"{folder}: op_host/*.cpp registers no operator (no OP_ADD(OpType))")
    if op_type not in registered:
        raise ArgumentError(f"{folder}: no operator {op_type}; op_host registers {', '.join(registered)}")
    name = kernel_file_name(op_type)
    if not (folder / "op_kernel" / f"{name}.cpp").is_file():
        raise ArgumentError(f"{folder}: no kernel op_kernel/{name}.cpp for {op_type}")
    src = ProjectSources.find(folder, name)
    if src.op_type != op_type:  # several OP_ADDs: the one asked for
        from dataclasses import replace

        src = replace(src, op_type=op_type)
    return src


@dataclass
class Plan:
    """What one check runs: the OpDef, the dtype column, shapes, attributes and the inputs."""

    opdef: dict
    column: int
    inputs: list[np.ndarray | None]
    attrs: list
    attr_names: list[str]
    output_specs: list[tuple[tuple[int, ...], np.dtype]] = field(default_factory=list)
    # Per output: the input whose data it starts with (a ref output, ApplyAdamW's var/m/v), or None.
    output_init: list[np.ndarray | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def pick_column(opdef: dict, dtypes: list[str] | None) -> int:
    """The OpDef's DataType column for ``--dtype``: one name (the first input's dtype) or one per
    input; by default the first column."""
    inputs = opdef["inputs"]
    columns = len(inputs[0]["dtypes"]) if inputs else 0
    if not dtypes:
        return 0
    for d in dtypes:
        if d not in _BY_NAME:
            raise CheckUsageError(f"--dtype {d}: unknown dtype; expected one of {', '.join(_BY_NAME)}")
    if len(dtypes) not in (1, len(inputs)):
        raise CheckUsageError(
            f"--dtype {','.join(dtypes)}: give one dtype (the first input's) or one per input "
            f"({len(inputs)}: {', '.join(i['name'] for i in inputs)})"
        )
    want = [_BY_NAME[d] for d in dtypes]
    for k in range(columns):
        if all(k < len(i["dtypes"]) and i["dtypes"][k] == w for i, w in zip(inputs, want)):
            return k
    have = sorted({"/".join(ge_name(i["dtypes"][k]) for i in inputs[: len(want)]) for k in range(columns)})
    raise CheckUsageError(
        f"--dtype {','.join(dtypes)}: {opdef['type']} declares no such column; it has {', '.join(have)}"
    )


def input_shapes(
    opdef: dict, given: list[tuple[str | None, tuple[int, ...]]] | None
) -> list[tuple[int, ...] | None]:
    """Unnamed ``--shape``s: one for every REQUIRED input (OPTIONAL ones absent), one per REQUIRED
    input, or one per input (all present); then ``--shape NAME=SHAPE`` sets input NAME's shape (an
    OPTIONAL one becomes present; ``NAME=-`` leaves it absent)."""
    inputs = opdef["inputs"]
    names = [d["name"] for d in inputs]
    required = [i for i, d in enumerate(inputs) if d["option"] == "REQUIRED"]
    named = [(n, s) for n, s in given or [] if n is not None]
    shapes = [s for n, s in given or [] if n is None] or [DEFAULT_SHAPE]
    for n, _ in named:
        if n not in names:
            raise CheckUsageError(
                f"--shape {n}=...: {opdef['type']} has no input '{n}' (it has: {', '.join(names)})"
            )
    out = _unnamed_shapes(opdef, shapes, required)
    for n, s in named:
        out[names.index(n)] = s
    if all(s is None for s in out):
        raise CheckUsageError(f"--shape: every input of {opdef['type']} is absent")
    return out


def _unnamed_shapes(opdef: dict, shapes: list, required: list[int]) -> list:
    inputs = opdef["inputs"]
    if len(shapes) == 1 and len(inputs) != 1:
        return [shapes[0] if i in required else None for i in range(len(inputs))]
    if len(shapes) == len(inputs):
        return list(shapes)
    if len(shapes) == len(required):
        it = iter(shapes)
        return [next(it) if i in required else None for i in range(len(inputs))]
    names = ", ".join(f"{d['name']}{'' if d['option'] == 'REQUIRED' else ' (optional)'}" for d in inputs)
    raise CheckUsageError(
        f"{len(shapes)} --shape options for {opdef['type']}'s {len(inputs)} inputs ({names}): give one for "
        f"all required inputs, one per required input ({len(required)}) or one per input ({len(inputs)})"
    )


def attr_values(opdef: dict, given: list[tuple[str, object]]) -> list:
    """The attribute values in OpDef order: ``--attr`` ones, else the declared defaults."""
    declared = {a["name"]: a for a in opdef["attrs"]}
    values = dict(given)
    for name in values:
        if name not in declared:
            names = ", ".join(declared) or "none"
            raise CheckUsageError(
                f"--attr {name}: {opdef['type']} has no attribute '{name}' (it has: {names})"
            )
    out = []
    for a in opdef["attrs"]:
        if a["name"] in values:
            v = values[a["name"]]
            if a["kind"] == "s":
                v = str(v)
            elif isinstance(v, str):
                raise CheckUsageError(f"--attr {a['name']}={v}: expected a {_KIND[a['kind']]}")
            out.append(v)
        elif a["has_default"]:  # JSON gives 2.0 as 2: the declared kind decides
            d = a["default"]
            out.append(float("nan") if d is None else float(d) if a["kind"] == "f" else d)
        else:
            raise CheckUsageError(
                f"attribute '{a['name']}' of {opdef['type']} has no default: give --attr {a['name']}=VALUE"
            )
    return out


_KIND = {"b": "bool", "i": "int", "f": "float", "s": "string", "?": "value"}


def random_input(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    """Floats uniform in [-2, 2), signed integers in [-8, 8), unsigned in [0, 16), bools 50/50."""
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "i":
        return rng.integers(-8, 8, size=shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 16, size=shape).astype(dtype)
    return rng.uniform(-2.0, 2.0, size=shape).astype(np.float32).astype(dtype)


def load_golden(spec: str):
    """``MODULE:FUNCTION``: an importable module or a ``.py`` file, and a function in it."""
    mod_name, _, func_name = spec.rpartition(":")
    if not mod_name or not func_name:
        raise CheckUsageError(f"--golden {spec}: expected MODULE:FUNCTION, such as golden.py:apply_adam_w")
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise ArgumentError(f"--golden {spec}: no such file {mod_name}")
            ms = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(ms)
            sys.modules.setdefault(path.stem, module)
            ms.loader.exec_module(module)
        else:
            module = importlib.import_module(mod_name)
    except ArgumentError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's module: say what went wrong, no traceback
        raise ArgumentError(f"--golden {spec}: cannot import {mod_name}: {type(e).__name__}: {e}") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ArgumentError(f"--golden {spec}: {mod_name} has no function {func_name}")
    return func


@dataclass
class CheckReport:
    op_type: str
    plan: Plan
    faults: list  # (error class, block, message)
    outputs: list[np.ndarray]
    tiling_key: int
    block_dim: int
    ub_peak: int
    warnings: str
    host_output: str = ""
    comparisons: list[tuple[str, object]] = field(default_factory=list)  # (output name, Comparison)
    golden_error: str = ""

    @property
    def ok(self) -> bool:
        return not self.faults and not self.golden_error and all(c.ok for _, c in self.comparisons)


def plan_check(
    src: ProjectSources,
    target: Target,
    *,
    shapes,
    dtypes,
    attrs,
    seed: int,
    includes: tuple[Path, ...],
    fills: list[tuple[str, float]] = (),
) -> Plan:
    opdef = describe_project(src, target=target, include_dirs=includes, werror=False)
    column = pick_column(opdef, dtypes)
    in_shapes = input_shapes(opdef, shapes)
    values = attr_values(opdef, attrs)
    rng = np.random.default_rng(seed)
    inputs: list[np.ndarray | None] = []
    for d, shape in zip(opdef["inputs"], in_shapes):
        if shape is None:
            inputs.append(None)
            continue
        if column >= len(d["dtypes"]):
            raise ArgumentError(f"{opdef['type']}: input '{d['name']}' declares no dtype in column {column}")
        inputs.append(random_input(tuple(shape), ge_numpy(d["dtypes"][column]), rng))
    names = [d["name"] for d in opdef["inputs"]]
    for name, value in fills:  # --fill NAME=VALUE: a constant input (hyperparameters, scalars)
        if name not in names:
            raise CheckUsageError(
                f"--fill {name}=...: {opdef['type']} has no input '{name}' (it has: {', '.join(names)})"
            )
        k = names.index(name)
        if inputs[k] is None:
            raise CheckUsageError(
                f"--fill {name}=...: input '{name}' is absent (give it a --shape {name}=SHAPE)"
            )
        inputs[k] = np.full(inputs[k].shape, value, dtype=np.float64).astype(inputs[k].dtype)
    plan = Plan(opdef, column, inputs, values, [a["name"] for a in opdef["attrs"]])
    specs = [None if a is None else (a.shape, a.dtype) for a in inputs]
    inferred = describe_project(
        src, target=target, inputs=specs, attrs=values, include_dirs=includes, werror=False
    )
    first = next(a for a in inputs if a is not None)
    by_name = {d["name"]: a for d, a in zip(opdef["inputs"], inputs)}
    for k, o in enumerate(opdef["outputs"]):
        ref = by_name.get(o["name"])
        if ref is not None:  # a ref output (named like an input): the input's memory on the NPU
            plan.output_specs.append((ref.shape, ref.dtype))
            plan.output_init.append(ref)
            continue
        plan.output_init.append(None)
        if k < len(inferred["dtypes"]) and inferred["dtypes"][k] in _GE:
            dt = ge_numpy(inferred["dtypes"][k])
        elif column < len(o["dtypes"]):
            dt = ge_numpy(o["dtypes"][column])
        else:
            raise ArgumentError(f"{opdef['type']}: output '{o['name']}' declares no dtype in column {column}")
        if inferred["infer_shape"]:
            shape = tuple(inferred["shapes"][k])
        else:
            shape = first.shape
            if k == 0:
                plan.notes.append("no InferShape registered: the outputs take the first input's shape")
        plan.output_specs.append((shape, dt))
    refs = [o["name"] for o, init in zip(opdef["outputs"], plan.output_init) if init is not None]
    if refs:
        plan.notes.append(f"ref output(s) {', '.join(refs)} start with the input of that name, as on the NPU")
    return plan


def run_check(
    folder: Path,
    op_type: str,
    target: Target,
    *,
    shapes=None,
    dtypes=None,
    attrs=(),
    includes: tuple[Path, ...] = (),
    golden=None,
    max_faults: int = 20,
    seed: int = 0,
    cores: int | None = None,
    fills: list[tuple[str, float]] = (),
) -> CheckReport:
    src = find_operator(folder, op_type)
    plan = plan_check(
        src,
        target,
        shapes=shapes,
        dtypes=dtypes,
        attrs=list(attrs),
        seed=seed,
        includes=includes,
        fills=fills,
    )
    res = simulate_project(
        src.project_dir,
        src.op_name,
        inputs=plan.inputs,
        outputs=plan.output_specs,
        attrs=plan.attrs,
        target=target,
        cores=cores,
        include_dirs=includes,
        werror=False,
        keep_going=True,
        max_faults=max_faults,
        ub_backing=UB_BACKING_FACTOR * target.ub_bytes,
        output_init=plan.output_init,
        sources=src,
    )
    report = CheckReport(
        op_type,
        plan,
        res.faults,
        res.outputs,
        res.tiling_key,
        res.block_dim,
        int(res.counters.get("ub_peak_bytes", 0)),
        res.warnings,
        res.host_output,
    )
    if golden is not None:
        compare_golden(report, golden)
    return report


def compare_golden(report: CheckReport, golden) -> None:
    """The outputs against ``golden(*inputs, **attrs)`` (inputs in OpDef order, None for an absent
    one; attributes by name), under the approximated-math tolerance."""
    from dsl.precision import APPROX, compare

    plan = report.plan
    try:
        ref = golden(*plan.inputs, **dict(zip(plan.attr_names, plan.attrs)))
    except Exception as e:  # noqa: BLE001 - the user's golden function
        report.golden_error = f"the golden function raised {type(e).__name__}: {e}"
        return
    refs = list(ref) if isinstance(ref, (tuple, list)) else [ref]
    names = [o["name"] for o in plan.opdef["outputs"]]
    if len(refs) != len(names):
        report.golden_error = (
            f"the golden function returned {len(refs)} array(s) for {len(names)} outputs ({', '.join(names)})"
        )
        return
    for name, out, r in zip(names, report.outputs, refs):
        if r is None:
            continue
        r = np.asarray(r)
        if r.shape != out.shape:
            report.golden_error = (
                f"the golden function's '{name}' has shape {r.shape}, the output {out.shape}"
            )
            return
        report.comparisons.append((name, compare(out, r.astype(out.dtype), APPROX)))


def format_report(report: CheckReport, seed: int) -> str:
    """The text ``dslc check`` prints."""
    plan = report.plan
    lines = []
    ins = []
    for d, a in zip(plan.opdef["inputs"], plan.inputs):
        ins.append(f"{d['name']} absent" if a is None else f"{d['name']} {_np_name(a.dtype)}{list(a.shape)}")
    lines.append(f"{report.op_type}: inputs (random, seed {seed}): " + ", ".join(ins))
    outs = [
        f"{o['name']} {_np_name(dt)}{list(s)}" for o, (s, dt) in zip(plan.opdef["outputs"], plan.output_specs)
    ]
    lines.append("outputs: " + ", ".join(outs))
    if plan.attr_names:
        lines.append("attributes: " + ", ".join(f"{n}={v!r}" for n, v in zip(plan.attr_names, plan.attrs)))
    lines += [f"note: {n}" for n in plan.notes]
    if report.warnings.strip():
        warns = [w for w in report.warnings.splitlines() if "warning:" in w]
        lines.append(f"compiler warnings (not fatal): {len(warns)}")
        lines += [f"  {w}" for w in warns[:5]]
        if len(warns) > 5:
            lines.append(f"  ... ({len(warns) - 5} more)")
    lines.append(f"tiling key {report.tiling_key}, block dim {report.block_dim}, UB peak {report.ub_peak} B")
    if report.faults:
        lines.append(f"faults ({len(report.faults)} distinct):")
        for cls, block, msg in report.faults:
            head, *rest = msg.splitlines()
            lines.append(f"  {cls.__name__}: {head}")
            lines += [f"    {r}" for r in rest]
        counts: dict[str, int] = {}
        for cls, _, _ in report.faults:
            counts[cls.__name__] = counts.get(cls.__name__, 0) + 1
        width = max(len(k) for k in counts)
        lines.append("summary:")
        lines += [f"  {k:<{width}}  {v}" for k, v in sorted(counts.items())]
    else:
        lines.append("faults: none")
    if report.host_output:
        lines.append("host/kernel output:")
        lines += [f"  {r}" for r in report.host_output.splitlines()]
    for name, c in report.comparisons:
        verdict = "ok" if c.ok else f"MISMATCH: {c.detail}"
        lines.append(
            f"{name}: max abs err {c.max_abs:.3g}, max rel err {c.max_rel:.3g} (approx) -> {verdict}"
        )
    if report.golden_error:
        lines.append(f"golden: {report.golden_error}")
    verdicts = [f"{len(report.faults)} fault(s)" if report.faults else "no faults"]
    if report.comparisons or report.golden_error:
        matched = not report.golden_error and all(c.ok for _, c in report.comparisons)
        verdicts.append("matches the golden" if matched else "does NOT match the golden")
    lines.append(f"{report.op_type}: {', '.join(verdicts)}")
    return "\n".join(lines)


def _np_name(dt: np.dtype) -> str:
    for name, np_name in _GE.values():
        if np_name == np.dtype(dt).name:
            return name
    return np.dtype(dt).name


__all__ = [
    "run_check",
    "format_report",
    "find_operator",
    "include_dirs",
    "load_golden",
    "ENV_INCLUDE",
    "SimulationError",
]
