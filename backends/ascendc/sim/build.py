"""Compile an operator project (host tiling + kernel) against the emulator headers, cached.

Objects are cached by a content hash of every source, header and flag in ``$DSLC_CACHE/sim``
(default ``~/.cache/dslc/sim``; layout, size bound and eviction: ``backends/ascendc/cache.py``);
each artefact is written to a temporary name and renamed into place, so concurrent processes
never see a half-written file.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dsl.errors import BuildError

from ..cache import cache_dir, enforce_limit, in_use, touch

SIM_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = SIM_DIR / "include"
SRC_DIR = SIM_DIR / "src"
CXX = os.environ.get("CXX", "g++")
# -ffp-contract=off: no fused multiply-add, so f32 math rounds exactly like numpy.
BASE_FLAGS = ("-O2", "-std=c++17", "-ffp-contract=off")
GENERATED_FLAGS = ("-Wall", "-Werror")
ERROR_LINES = 40


def cache_root() -> Path:
    return cache_dir("sim")


def _cached(path: Path) -> bool:
    """Whether a cache entry exists; marks it used (least-recently-used eviction)."""
    if path.exists():
        touch(path)
        return True
    return False


@lru_cache(maxsize=1)
def _compiler_id() -> str:
    try:
        out = subprocess.run([CXX, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError(f"cannot run the C++ compiler '{CXX}': {exc}") from None
    return out.splitlines()[0] if out else CXX


def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for p in parts:
        data = p.encode() if isinstance(p, str) else p
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:24]


def _tree_bytes(root: Path, suffixes: tuple[str, ...] | None = None) -> bytes:
    """Names and contents of the files under ``root``, in a stable order."""
    chunks = []
    if root.is_dir():
        for f in sorted(root.rglob("*")):
            if f.is_file() and (suffixes is None or f.suffix in suffixes):
                chunks.append(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return b"\1".join(chunks)


@lru_cache(maxsize=1)
def _emulator_digest() -> str:
    return _digest(_compiler_id(), " ".join(BASE_FLAGS), _tree_bytes(INCLUDE_DIR), _tree_bytes(SRC_DIR))


def _first_lines(text: str, n: int = ERROR_LINES) -> str:
    lines = text.strip().splitlines()
    more = f"\n... ({len(lines) - n} more lines)" if len(lines) > n else ""
    return "\n".join(lines[:n]) + more


def _tmp_name(target: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    os.close(fd)
    return Path(name)


def _start_compile(src: str, out: Path, flags: list[str], cwd: Path) -> tuple[subprocess.Popen, Path, Path]:
    tmp = _tmp_name(out)
    cmd = [CXX, *BASE_FLAGS, *flags, "-c", src, "-o", str(tmp)]
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc, tmp, out


def _finish(jobs: list[tuple[subprocess.Popen, Path, Path]], what: str) -> None:
    errors = []
    for proc, tmp, out in jobs:
        log, _ = proc.communicate()
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            errors.append(_first_lines(log))
        else:
            os.replace(tmp, out)
    if errors:
        raise BuildError(f"{what} failed to compile for the emulator:\n" + "\n".join(errors))


@lru_cache(maxsize=4)
def _runtime_objects(root: Path) -> tuple[Path, Path]:
    """runtime.o and harness.o in the cache at ``root``, shared by every project."""
    d = root / f"rt-{_emulator_digest()}"
    d.mkdir(parents=True, exist_ok=True)
    in_use(d)
    objs = (d / "runtime.o", d / "harness.o")
    jobs = []
    for obj, src in zip(objs, ("runtime.cpp", "harness.cpp")):
        if not obj.exists():
            jobs.append(_start_compile(str(SRC_DIR / src), obj, ["-isystem", str(INCLUDE_DIR)], SRC_DIR))
    _finish(jobs, "the emulator runtime")
    return objs


# What CANN's kernel build defines DTYPE_<NAME> as, per element type (asc-devkit
# cmake/asc/fwk_modules/util/ascendc_impl_build.py DTYPE_MAP).
DTYPE_SPELLING = {
    "float16": "half",
    "float32": "float",
    "bfloat16": "bfloat16_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "uint8": "uint8_t",
    "bool": "bool",
}


def dtype_macros(src: "ProjectSources", inputs: list, outputs: list) -> dict[str, str]:
    """``DTYPE_<NAME>`` for each present input and each output: the name is the upper-cased IR
    name, an output named like an input gets ``_REF`` (ascendc_impl_build.py)."""
    names_in, names_out = src.io_names()
    macros = {}
    for name, dt in zip(names_in, inputs):
        if dt is not None and str(dt) in DTYPE_SPELLING:
            macros[f"DTYPE_{name.upper()}"] = DTYPE_SPELLING[str(dt)]
    for name, dt in zip(names_out, outputs):
        suffix = "_REF" if name in names_in else ""
        if str(dt) in DTYPE_SPELLING:
            macros[f"DTYPE_{name.upper()}{suffix}"] = DTYPE_SPELLING[str(dt)]
    return macros


@dataclass(frozen=True)
class ProjectSources:
    project_dir: Path
    op_name: str
    op_type: str
    host_src: Path
    tiling_header: Path | None
    kernel_src: Path

    @staticmethod
    def find(project_dir: Path, op_name: str) -> "ProjectSources":
        project_dir = Path(project_dir).resolve()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", op_name):
            raise BuildError(f"'{op_name}' is not a valid kernel entry name")
        host = project_dir / "op_host" / f"{op_name}.cpp"
        kernel = project_dir / "op_kernel" / f"{op_name}.cpp"
        for f in (host, kernel):
            if not f.is_file():
                raise BuildError(f"operator project {project_dir} has no {f.relative_to(project_dir)}")
        tiling = project_dir / "op_host" / f"{op_name}_tiling.h"
        m = re.search(r"\bOP_ADD\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)", host.read_text())
        if not m:
            raise BuildError(f"{host} registers no operator (no OP_ADD(OpType))")
        return ProjectSources(
            project_dir, op_name, m.group(1), host, tiling if tiling.is_file() else None, kernel
        )

    def io_names(self) -> tuple[list[str], list[str]]:
        """Input and output names in OpDef order (from the host's OpDef)."""
        text = self.host_src.read_text()
        ins = re.findall(r"\bInput\(\s*\"([^\"]+)\"", text)
        outs = re.findall(r"\bOutput\(\s*\"([^\"]+)\"", text)
        return ins, outs


def _glue_source(op_name: str, n_args: int) -> str:
    params = ", ".join(["uint8_t*"] * n_args)
    args = ", ".join(f"a[{i}]" for i in range(n_args))
    return (
        "#include <cstdint>\n"
        f'extern "C" void {op_name}({params});\n'
        f'extern "C" void dslc_launch(uint8_t** a) {{ {op_name}({args}); }}\n'
    )


def build_project(
    src: ProjectSources, npu_arch: int, n_args: int, dtype_macros: dict[str, str] | None = None
) -> Path:
    """Returns the path of the emulator executable for this project, compiling what is stale.

    ``dtype_macros`` are the ``DTYPE_<NAME>`` definitions CANN's op build gives the kernel of
    one dtype combination (each combination is its own binary there, and here)."""
    runtime_o, harness_o = _runtime_objects(cache_root())
    if not (runtime_o.exists() and harness_o.exists()):  # evicted from the cache since: rebuild
        _runtime_objects.cache_clear()
        runtime_o, harness_o = _runtime_objects(cache_root())
    proj = src.project_dir
    host_bytes = _tree_bytes(proj / "op_host", (".h", ".hpp", ".cpp", ".cc"))
    kernel_bytes = _tree_bytes(proj / "op_kernel", (".h", ".hpp", ".cpp", ".cc"))
    common = _emulator_digest()
    gen = ["-isystem", str(INCLUDE_DIR), *GENERATED_FLAGS, "-Iop_host", "-Iop_kernel"]
    host_flags = [*gen, f"-D__NPU_ARCH__={npu_arch}"]
    kernel_flags = [*gen, f"-D__NPU_ARCH__={npu_arch}", f"-DDSLC_OP_TYPE={src.op_type}"]
    kernel_flags += [f"-D{k}={v}" for k, v in sorted((dtype_macros or {}).items())]
    if src.tiling_header is not None:
        rel = src.tiling_header.relative_to(proj)
        kernel_flags += ["-include", str(rel), "-include", "dslc_sim/tiling_default.h"]
    host_key = _digest(common, " ".join(host_flags), host_bytes, src.op_name)
    kernel_key = _digest(common, " ".join(kernel_flags), kernel_bytes, host_bytes, src.op_name)
    glue = _glue_source(src.op_name, n_args)
    exe_key = _digest(common, host_key, kernel_key, glue)

    root = cache_root()
    touch(runtime_o.parent)
    exe = root / f"exe-{exe_key}" / "dslc_sim"
    if exe.exists():
        touch(exe.parent)
        return exe
    objs = root / "obj"
    objs.mkdir(parents=True, exist_ok=True)
    host_o = objs / f"host-{host_key}.o"
    kernel_o = objs / f"kernel-{kernel_key}.o"
    jobs = []
    if not _cached(host_o):
        jobs.append(_start_compile(str(src.host_src.relative_to(proj)), host_o, host_flags, proj))
    if not _cached(kernel_o):
        jobs.append(_start_compile(str(src.kernel_src.relative_to(proj)), kernel_o, kernel_flags, proj))
    _finish(jobs, f"operator project {proj.name}")

    exe.parent.mkdir(parents=True, exist_ok=True)
    glue_cpp = exe.parent / "launch.cpp"
    tmp_glue = _tmp_name(glue_cpp)
    tmp_glue.write_text(glue)
    os.replace(tmp_glue, glue_cpp)
    tmp = _tmp_name(exe)
    cmd = [CXX, *BASE_FLAGS, "-x", "c++", str(glue_cpp), "-x", "none"]
    cmd += [str(runtime_o), str(harness_o), str(host_o), str(kernel_o), "-o", str(tmp)]
    link = subprocess.run(cmd, capture_output=True, text=True)
    if link.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(
            f"linking {proj.name} for the emulator failed:\n{_first_lines(link.stdout + link.stderr)}"
        )
    os.replace(tmp, exe)
    enforce_limit(keep=(exe.parent, host_o, kernel_o, proj.parent))  # proj.parent: a generated project
    return exe
