"""``op.simulate``: run the generated (or a user-edited) project on the CPU emulator."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np

from dsl.errors import ArgumentError, CompileError, SimulationError
from dsl.ir.interpreter import check_attr_values

from .cache import cache_dir, enforce_limit, touch
from .compile import lower, refuse_matmul
from .project import write_project
from .sim import simulate_project
from .cann import check_cann
from .targets import get_target
from .targets import vector_path as vector_path_of


def generated_project(op, target: str, cann: str | None = None, vector_path: str = "auto") -> Path:
    """The project for (op, target, cann, vector path): content-addressed in the cache, so
    repeated runs and processes share one copy per distinct source and the cache does not grow
    per call."""
    cache = op.__dict__.setdefault("_projects", {})
    key = (target, cann, vector_path)
    path = cache.get(key)
    if path is not None and path.exists():
        touch(path.parent)
        return path
    # a scratch copy, not a deliverable
    compiled = lower(op, target, warn_builtin=False, cann=cann, vector_path=vector_path)
    digest = hashlib.sha256(
        "\0".join(f"{k}\0{v}" for k, v in sorted(compiled.files.items())).encode()
    ).hexdigest()[:20]
    out = cache_dir("projects") / f"{op.name}-{digest}"
    path = out / op.name
    if (path / "op_kernel" / f"{op.name}.cpp").is_file():
        touch(out)
    else:  # keeps a copy another process may have written first
        write_project(out, compiled.plan, compiled.files, {}, replace=False)
        enforce_limit(keep=(out,))
    cache[key] = path
    return path


def dst_type_value(op, T) -> list[int]:
    """The ``dst_type`` attribute's value (T as a ge::DataType) when the op has one, else nothing."""
    from .host import GE_DATA_TYPE, has_dst_type

    return [GE_DATA_TYPE[T.ge]] if has_dst_type({d: op.func(d) for d in op.dtypes}, op.dtypes) else []


_CPP_LINE = re.compile(r"op_kernel/(\w+)\.cpp:(\d+)")
_DSL_NOTE = re.compile(r"//\s*([\w.-]+\.py:\d+)")
_METHOD = re.compile(r"__aicore__\s+inline\b")


def dsl_line(lines: list[str], k: int) -> str | None:
    """The ``file.py:N`` that kernel line ``k`` (0-based) implements: the source map heads each group
    of statements, so it is the nearest ``// file.py:N`` above, in the same method."""
    for i in range(k, -1, -1):
        m = _DSL_NOTE.search(lines[i])
        if m:
            return m.group(1)
        if _METHOD.search(lines[i]):
            return None
    return None


def with_dsl_lines(message: str, project: Path, op_name: str) -> str:
    """Append the DSL lines the faulting kernel lines implement (from their ``// file.py:N``)."""
    kernel = project / "op_kernel" / f"{op_name}.cpp"
    try:
        lines = kernel.read_text().splitlines()
    except OSError:
        return message
    found = []
    for name, num in dict.fromkeys(_CPP_LINE.findall(message)):
        k = int(num) - 1
        if name != op_name or not 0 <= k < len(lines):
            continue
        where = dsl_line(lines, k)
        if where:
            found.append(f"{where} (op_kernel/{name}.cpp:{num})")
    return message + ("\n  DSL line(s): " + ", ".join(found) if found else "")


def simulate(
    op,
    arrays,
    attrs,
    target: str = "ascend910b",
    cores=None,
    project=None,
    strict: bool = False,
    trace: bool = False,
    vector_path: str = "auto",
    shared_event_ids: bool = False,
    cann: str | None = None,
    dtype=None,
    cube_math: bool = True,
):
    tgt = get_target(target)
    check_cann(tgt.name, cann)  # the options are checked before anything is compiled or run
    vector_path_of(tgt, vector_path)
    refuse_matmul(op, target)  # also for project=: there is no matmul kernel to run there yet
    T, inputs, values = op.bind(arrays, attrs, dtype)
    func = op.variant(T, values, inputs)
    check_attr_values(func, values)
    if cores is not None and (isinstance(cores, bool) or not isinstance(cores, int) or cores < 1):
        raise ArgumentError(f"cores must be a positive integer, got {cores!r}")
    shape = None
    for d in op._def.inputs:
        arr = inputs.get(d.name)
        if arr is not None and not d.is_scalar:
            shape = arr.shape
            break
    if op.broadcast and shape is not None:  # the outputs have the inputs' broadcast shape
        shape = np.broadcast_shapes(
            *(a.shape for d in op._def.inputs if not d.is_scalar and (a := inputs.get(d.name)) is not None)
        )
    if shape is None:
        raise ArgumentError(f"{op.name} has no tensor input to take the output shape from")
    zero_d = shape == ()
    if zero_d:  # a 0-d tensor has one element (GE's scalar shape []): the kernel runs it as (1,)
        shape = (1,)
        inputs = {k: (a.reshape(1) if a is not None and a.ndim == 0 else a) for k, a in inputs.items()}
    from dsl.shapes import output_shape

    own = [tuple(shape)] * len(func.outputs)
    if op.broadcast and not zero_d:  # numpy: each output has the broadcast shape of its own operands
        from .host_broadcast import output_inputs

        for k, mask in enumerate(output_inputs(func)):
            mine = [inputs.get(p.value.name) for i, p in enumerate(func.params) if (mask >> i) & 1]
            mine = [a.shape for a in mine if a is not None]
            if mine:
                own[k] = tuple(np.broadcast_shapes(*mine))
    outputs = [
        (output_shape(op._def.inputs, inputs, o.type) or own[k], o.type.dtype.np)
        for k, o in enumerate(func.outputs)
    ]
    if project is None:
        project = generated_project(op, target, cann, vector_path)
    else:
        project = Path(project)
        if not (project / "op_kernel" / f"{op.name}.cpp").is_file():
            raise ArgumentError(f"{project} is not a project of {op.name} (no op_kernel/{op.name}.cpp)")
    try:
        result = simulate_project(
            project,
            op.name,
            inputs=[inputs[name] for name in op.inputs],
            outputs=outputs,
            attrs=[values[a.name] for a in op._def.attrs] + dst_type_value(op, T),
            target=tgt,
            cores=cores,
            strict=strict,
            trace=trace,
            shared_event_ids=shared_event_ids,
            cube_math=cube_math,
        )
    except SimulationError as e:
        raise type(e)(with_dsl_lines(str(e), project, op.name)) from None
    outs = []
    for o, arr, v in zip(func.outputs, result.outputs, func.returns):
        absent = v.owner is not None and v.owner.opname == "none"
        outs.append(None if absent else np.asarray(arr).reshape(()) if zero_d else np.asarray(arr))
    return (outs[0] if len(outs) == 1 else tuple(outs)), result


__all__ = ["simulate", "generated_project", "CompileError"]
