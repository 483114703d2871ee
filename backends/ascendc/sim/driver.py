"""Run an operator project on the CPU emulator: build, then TilingFunc + kernel per block index.

The compiled emulator runs as a child process, so a fault or crash in the C++ never takes the
Python process down. GM buffers are files in shared memory (``/dev/shm`` when available) that the
child maps: one copy of each input in, one copy of each output back.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from backends.ascendc.targets import Target
from dsl import errors

from .build import ProjectSources, build_project, build_warnings
from .dtypes import c_type, ge_code
from .trace import SimTrace
from .vf_rules import check_project as check_vf_rules

PIPES = ("S", "V", "MTE2", "MTE3")
CUBE_PIPES = ("MTE1", "M", "FIX")  # the AIC's own pipes (its S and MTE2 count under S and MTE2)
POISON = 0xFF  # fresh output GM: NaN in every float format, -1 in every integer
DEFAULT_TIMEOUT_S = 300

_FAULTS: dict[str, type[errors.SimulationError]] = {
    "RaceError": errors.RaceError,
    "DeadlockError": errors.DeadlockError,
    "SyncError": errors.SyncError,
    "MemoryFaultError": errors.MemoryFaultError,
    "UnsupportedError": errors.UnsupportedError,
    "TilingError": errors.TilingError,
    "InferShapeError": errors.InferShapeError,
    "SimulationError": errors.SimulationError,
}


@dataclass
class SimResult:
    outputs: list[np.ndarray]
    tiling_key: int
    block_dim: int
    workspace_bytes: int
    # Per pipe (S, V, MTE2, MTE3), summed over blocks: instructions, dma, bursts, bytes_in,
    # bytes_out, repeats, set_flags, wait_flags, barriers; plus ub_peak_bytes (max over blocks),
    # l2_hints, kernel_seconds (wall time of all blocks in the emulator) and per_block.
    counters: dict = field(default_factory=dict)
    # Every instruction of every block (``simulate_project(..., trace=True)``), else None.
    trace: SimTrace | None = None
    # ``keep_going=True``: every distinct fault of the run, in order, as (error class, block, message);
    # block -1 is host code. Empty for a clean run.
    faults: list[tuple[type[errors.SimulationError], int, str]] = field(default_factory=list)
    # The compiler's warnings (a ``werror=False`` build), "" without any.
    warnings: str = ""
    # What the host code and the kernel printed (``keep_going``; otherwise faults carry it).
    host_output: str = ""


def _shm_dir() -> str | None:
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def _attr_line(i: int, value: bool | int | float | str) -> str:
    if isinstance(value, (bool, np.bool_)):
        return f"attr {i} b {int(bool(value))}"
    if isinstance(value, (int, np.integer)):
        return f"attr {i} i {int(value)}"
    if isinstance(value, (float, np.floating)):
        return f"attr {i} f {float(value)!r}"
    if isinstance(value, str):
        return f"attr {i} s {value.encode().hex() or '-'}"
    raise errors.ArgumentError(f"attribute {i}: unsupported value {value!r} ({type(value).__name__})")


def _aggregate(blocks: list[dict]) -> dict:
    total: dict = {p: {} for p in PIPES + CUBE_PIPES}
    for b in blocks:
        for p in PIPES + CUBE_PIPES:
            for k, v in b[p].items():
                total[p][k] = total[p].get(k, 0) + v
    total["ub_peak_bytes"] = max((b["ub_peak_bytes"] for b in blocks), default=0)
    total["l2_hints"] = sum(b["l2_hints"] for b in blocks)
    total["per_block"] = blocks
    return total


def simulate_project(
    project_dir: Path,
    op_name: str,
    *,
    inputs: list[np.ndarray | None],
    outputs: list[tuple[tuple[int, ...], np.dtype]],
    attrs: list[bool | int | float | str],
    target: Target,
    cores: int | None = None,
    strict: bool = False,
    shared_event_ids: bool = False,
    race_detection: bool = True,
    ub_capacity: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    trace: bool = False,
    interleave: int = 0,
    include_dirs: tuple[Path, ...] = (),
    werror: bool = True,
    keep_going: bool = False,
    max_faults: int = 8,
    ub_backing: int = 0,
    sources: ProjectSources | None = None,
    output_init: list[np.ndarray | None] | None = None,
    cube_math: bool = True,
) -> SimResult:
    """Compile ``project_dir`` for the emulator and run it on ``inputs``.

    ``inputs``/``outputs``/``attrs`` follow the OpDef declaration order; ``None`` is an absent
    optional input. Raises a ``dsl.SimulationError`` subclass on any detected fault. With
    ``trace=True`` the result carries the per-core instruction trace (``SimResult.trace``) that
    the performance model replays; recording it costs time and memory, so runs do not by default.
    ``interleave``: 0 runs the cores of a ``__mix__`` kernel's block in a fixed order (each until it
    waits); another value seeds a random interleaving at every cross-core flag and a random order
    of a core's consecutive CrossCoreSetFlags (the hardware orders neither).
    ``shared_event_ids``: event ids are one physical pool for every HardEvent (the reading of
    reference-ops.md s4.1 that CANN's TPipe, with one pool per event type, does not take): a
    SetFlag on an id number another event type holds live is a SyncError, and
    AllocEventID/FetchEventID hand out ids no event type holds.
    ``include_dirs``/``werror``: see ``build_project``. ``keep_going`` (``dslc check``): a fault does
    not stop the run; every block runs, up to ``max_faults`` distinct faults, which the result lists
    (``SimResult.faults``) with the outputs as the kernel left them, instead of raising; a UB
    allocation over capacity is one of them and the run goes on in a backing store of ``ub_backing``
    bytes. ``sources``: the project's sources when the caller found them (``ProjectSources.find``).
    ``output_init``: per output, an array its GM starts with instead of the poison (None: poison).
    ``cube_math=False``: Mmad writes 0 instead of computing (the same instructions and trace, for
    the performance model of a matmul too large to compute; the outputs are not the operator's).
    """
    cores = target.aiv_cores if cores is None else int(cores)
    if cores < 1:
        raise errors.ArgumentError(f"cores must be >= 1, got {cores}")
    src = sources or ProjectSources.find(Path(project_dir), op_name)
    check_vf_rules(src.project_dir)
    defines = src.dtype_macros(
        [None if a is None else c_type(np.asarray(a).dtype) for a in inputs],
        [c_type(dt) for _, dt in outputs],
    )
    exe = build_project(
        src,
        target.npu_arch,
        len(inputs) + len(outputs) + 2,
        defines,
        include_dirs=include_dirs,
        werror=werror,
    )

    with tempfile.TemporaryDirectory(prefix="dslc-sim-", dir=_shm_dir()) as tmp:
        tmpdir = Path(tmp)
        lines = [
            f"arch {target.npu_arch}",
            f"ub_bytes {target.ub_bytes}",
            f"ub_capacity {ub_capacity if ub_capacity is not None else target.ub_usable_bytes}",
            f"cores {cores}",
            f"aic_cores {max(1, cores * target.aic_cores // max(1, target.aiv_cores))}",
            f"strict {int(strict)}",
            f"shared_ids {int(shared_event_ids)}",
            f"cube {target.l1_bytes} {target.l0a_bytes} {target.l0b_bytes} {target.l0c_bytes}",
            f"interleave {int(interleave)}",
            f"race {int(race_detection)}",
            f"cube_math {int(cube_math)}",
            f"soc {target.soc_config or target.name}",
            "bf16_ops " + " ".join(sorted(target.bf16_vector_ops)),
            f"keep_going {int(keep_going)}",
            f"max_faults {int(max_faults)}",
            f"ub_backing {int(ub_backing)}",
        ]
        for i, arr in enumerate(inputs):
            if arr is None:
                lines.append(f"input {i} 0")
                continue
            a = np.ascontiguousarray(arr)
            path = tmpdir / f"in{i}.bin"
            a.tofile(path)
            dims = " ".join(str(d) for d in a.shape)
            lines.append(f"input {i} 1 {ge_code(a.dtype)} {a.ndim} {dims} {path} {a.nbytes}")
        out_specs = []
        for i, (shape, dtype) in enumerate(outputs):
            dt = np.dtype(dtype)
            shape = tuple(int(d) for d in shape)
            nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
            path = tmpdir / f"out{i}.bin"
            init = output_init[i] if output_init is not None and i < len(output_init) else None
            with open(path, "wb") as f:
                if init is not None:
                    f.write(
                        np.ascontiguousarray(init, dtype=dt).reshape(-1)[: nbytes // dt.itemsize].tobytes()
                    )
                else:
                    f.write(bytes([POISON]) * nbytes)
            out_specs.append((path, shape, dt))
            dims = " ".join(str(d) for d in shape)
            lines.append(f"output {i} 1 {ge_code(dt)} {len(shape)} {dims} {path} {nbytes}")
        lines += [_attr_line(i, v) for i, v in enumerate(attrs)]
        trace_file = tmpdir / "trace.bin"
        if trace:
            lines.append(f"trace {trace_file}")
        request, result = tmpdir / "request.txt", tmpdir / "result.json"
        request.write_text("\n".join(lines) + "\n")

        try:
            proc = subprocess.run(
                [str(exe), str(request), str(result)],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise errors.SimulationError(
                f"{op_name}: the emulated kernel did not finish within {timeout:.0f} s (an endless loop?)"
            ) from None
        host_output = (proc.stdout + proc.stderr).strip()
        if proc.returncode != 0 or not result.exists():
            raise errors.SimulationError(
                f"{op_name}: the emulator exited with status {proc.returncode}\n{host_output}"
            )
        res = json.loads(result.read_text())
        faults = [
            (_FAULTS.get(f["kind"], errors.SimulationError), int(f["block"]), f["message"])
            for f in res["faults"]
        ]
        if res["status"] != "ok" and not keep_going:
            cls = _FAULTS.get(res["kind"], errors.SimulationError)
            msg = res["message"]
            if host_output:
                msg += f"\nhost/kernel output:\n{host_output}"
            raise cls(msg)
        outs = [np.fromfile(path, dtype=dt).reshape(shape) for path, shape, dt in out_specs]
        recorded = SimTrace.load(trace_file, res["trace"], Path(project_dir).resolve()) if trace else None

    return SimResult(
        outputs=outs,
        tiling_key=int(res["tiling_key"]),
        block_dim=int(res["block_dim"]),
        workspace_bytes=int(res["workspace_bytes"]),
        counters={**_aggregate(res["blocks"]), "kernel_seconds": float(res["kernel_seconds"])},
        trace=recorded,
        faults=faults if keep_going else [],
        warnings=build_warnings(exe),
        host_output=host_output if keep_going else "",
    )


def describe_project(
    src: ProjectSources,
    *,
    target: Target,
    inputs: list[tuple[tuple[int, ...], np.dtype] | None] | None = None,
    attrs: list[bool | int | float | str] = (),
    include_dirs: tuple[Path, ...] = (),
    werror: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> dict:
    """Runs the project's OpDef registration (host sources only, no kernel) and returns it:
    ``{"type", "inputs": [{"name", "option", "dtypes"}], "outputs": [...], "attrs": [{"name", "kind",
    "option", "has_default", "default"}], "configs"}`` (dtypes as ge codes). With ``inputs`` (shape
    and dtype per OpDef input, None: absent), InferShape and InferDataType run on them and the
    result is ``{"opdef", "infer_shape", "shapes", "dtypes"}`` (empty lists where a function is absent)."""
    exe = build_project(src, target.npu_arch, 0, include_dirs=include_dirs, werror=werror, describe_only=True)
    with tempfile.TemporaryDirectory(prefix="dslc-describe-", dir=_shm_dir()) as tmp:
        request, result = Path(tmp) / "request.txt", Path(tmp) / "result.json"
        lines = ["describe 1", f"arch {target.npu_arch}", f"soc {target.soc_config or target.name}"]
        for i, spec in enumerate(inputs or []):
            if spec is None:
                lines.append(f"input {i} 0")
                continue
            shape, dt = spec
            dims = " ".join(str(int(d)) for d in shape)
            lines.append(f"input {i} 1 {ge_code(np.dtype(dt))} {len(shape)} {dims} - 0")
        lines += [_attr_line(i, v) for i, v in enumerate(attrs)]
        request.write_text("\n".join(lines) + "\n")
        try:
            proc = subprocess.run(
                [str(exe), str(request), str(result)], capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            raise errors.SimulationError(
                f"{src.op_type}: describing the OpDef did not finish within {timeout:.0f} s"
            ) from None
        host_output = (proc.stdout + proc.stderr).strip()
        if proc.returncode != 0 or not result.exists():
            raise errors.SimulationError(
                f"{src.op_type}: the emulator exited with status {proc.returncode}\n{host_output}"
            )
        res = json.loads(result.read_text())
    if res["status"] != "ok":
        msg = res["message"] + (f"\nhost output:\n{host_output}" if host_output else "")
        raise _FAULTS.get(res["kind"], errors.SimulationError)(msg)
    return res["describe"]
