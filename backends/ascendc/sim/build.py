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
DSLC_FLAGS = ("-Wextra",)  # what dslc itself writes must also be -Wextra clean (issue 11)
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


_OP_ADD = re.compile(r"\bOP_ADD\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)")


def _entry_template(kernel_text: str, op_name: str) -> tuple[tuple[bool, ...], int] | None:
    """For ``template <...> __global__ __aicore__ void <op_name>(...)``: per template parameter
    whether it is a type (``typename``/``class``), and the entry's line; None for a plain entry."""
    m = re.search(
        r"\btemplate\s*<([^;{}]*?)>\s*(?:(?:__global__|__aicore__|inline|static)\s+)*void\s+"
        + re.escape(op_name)
        + r"\s*\(",
        kernel_text,
    )
    if not m:
        return None
    params = [p.strip() for p in m.group(1).split(",") if p.strip()]
    line = kernel_text.count("\n", 0, m.end()) + 1
    return tuple(bool(re.match(r"(typename|class)\b", p)) for p in params), line


@dataclass(frozen=True)
class ProjectSources:
    """The sources of an operator project: ``op_host/*.cpp`` (one file as dslc and msopgen write
    it, or the ops-nn split into ``<op>_def.cpp``, ``<op>_tiling.cpp``, ``<op>_infershape.cpp``)
    and the kernel ``op_kernel/<op>.cpp``."""

    project_dir: Path
    op_name: str
    op_type: str
    host_srcs: tuple[Path, ...]
    tiling_header: Path | None
    kernel_src: Path
    # Input and output names in OpDef order (for the DTYPE_<NAME> macros of ops-nn kernels).
    input_names: tuple[str, ...] = ()
    output_names: tuple[str, ...] = ()
    # A templated entry: per template parameter whether it is a type, and the entry's line.
    entry_template: tuple[tuple[bool, ...], int] | None = None

    @staticmethod
    def find(project_dir: Path, op_name: str) -> "ProjectSources":
        project_dir = Path(project_dir).resolve()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", op_name):
            raise BuildError(f"'{op_name}' is not a valid kernel entry name")
        kernel = project_dir / "op_kernel" / f"{op_name}.cpp"
        if not kernel.is_file():
            raise BuildError(f"operator project {project_dir} has no {kernel.relative_to(project_dir)}")
        hosts = tuple(sorted((project_dir / "op_host").glob("*.cpp")))
        if not hosts:
            raise BuildError(
                f"operator project {project_dir} has no op_host/{op_name}.cpp (or op_host/*.cpp)"
            )
        host_text = "\n".join(h.read_text() for h in hosts)
        m = _OP_ADD.search(host_text)
        if not m:
            names = ", ".join(str(h.relative_to(project_dir)) for h in hosts)
            raise BuildError(f"{names}: no operator is registered (no OP_ADD(OpType))")

        def names(kind: str) -> tuple[str, ...]:
            found = re.findall(rf"\b{kind}\s*\(\s*\"(\w+)\"\s*\)", host_text)
            return tuple(dict.fromkeys(found))

        tiling = project_dir / "op_host" / f"{op_name}_tiling.h"
        return ProjectSources(
            project_dir,
            op_name,
            m.group(1),
            hosts,
            tiling if tiling.is_file() else None,
            kernel,
            names("Input"),
            names("Output"),
            _entry_template(kernel.read_text(), op_name),
        )

    def dtype_macros(self, input_types: list[str | None], output_types: list[str]) -> list[str]:
        """``-DDTYPE_<NAME>=<C type>`` for every present input and output, as CANN's per-dtype
        kernel build defines them; only for kernels that use them (so other kernels keep one binary
        for all dtypes). An output named like an input (ApplyAdamW's var, m, v) has the input's macro."""
        kernel_dir = self.project_dir / "op_kernel"
        if not any("DTYPE_" in f.read_text(errors="replace") for f in kernel_dir.rglob("*") if f.is_file()):
            return []
        macros: dict[str, str] = {}
        for name, ctype in [*zip(self.input_names, input_types), *zip(self.output_names, output_types)]:
            if ctype is not None:
                macros.setdefault(f"DTYPE_{name.upper()}", ctype)
        return [f"-D{k}={v}" for k, v in macros.items()]


def _glue_source(op_name: str, n_args: int) -> str:
    params = ", ".join(["uint8_t*"] * n_args)
    args = ", ".join(f"a[{i}]" for i in range(n_args))
    return (
        "#include <cstdint>\n"
        f'extern "C" void {op_name}({params});\n'
        f'extern "C" void dslc_launch(uint8_t** a) {{ {op_name}({args}); }}\n'
    )


def _template_launcher(src: ProjectSources, n_args: int) -> str:
    """The launcher of a templated entry, compiled as the main file after the kernel source: one
    instance per ASCENDC_TPL_SEL combination, picked by the tiling key (dslc_sim/tpl_dispatch.h)."""
    is_type, line = src.entry_template
    decl, sel = "g_tilingDeclareParams", "g_tilingSelectParams"
    targs = []
    for i, t in enumerate(is_type):
        value = f"::dslc_tpl::combo_value({decl}, {sel}, C, {i})"
        targs.append(f"typename TypeFromId<static_cast<int>({value})>::type" if t else value)
    args = ", ".join(f"a[{i}]" for i in range(n_args))
    kernel = src.kernel_src.relative_to(src.project_dir).as_posix()
    natives = " && ".join(
        f"{decl}.p[{i}].native_dtype == {'true' if t else 'false'}" for i, t in enumerate(is_type)
    )
    return f"""// Generated by the dslc emulator: launcher of the templated entry {src.op_name}.
#ifndef ASCENDC_TPL_ARGS_DECL
#error "{kernel}: a templated kernel entry needs ASCENDC_TPL_ARGS_DECL and ASCENDC_TPL_SEL \
(ascendc/host_api/tiling/template_argument.h) to say which instances exist"
#endif
#include "dslc_sim/tpl_dispatch.h"
namespace {{
static_assert({decl}.n == {len(is_type)}, "{kernel}:{line}: the entry's template parameters must match \
ASCENDC_TPL_ARGS_DECL one to one");
static_assert({natives or "true"}, "{kernel}:{line}: a typename template parameter must be an \
ASCENDC_TPL_DATATYPE_DECL (and only those)");
constexpr bool kDslcTplOk = ::dslc_tpl::check({decl}, {sel})[0] == 0;
constexpr uint64_t kDslcTplCombos = kDslcTplOk ? ::dslc_tpl::combo_count({decl}, {sel}) : 0;
template <uint64_t C> void dslc_tpl_run(uint8_t** a) {{
    {src.op_name}<{", ".join(targs)}>({args});
}}
template <uint64_t... C> bool dslc_tpl_dispatch(uint64_t key, uint8_t** a, std::integer_sequence<uint64_t, C...>) {{
    return ((key == ::dslc_tpl::combo_key({decl}, {sel}, C) ? (dslc_tpl_run<C>(a), true) : false) || ...);
}}
}}  // namespace
extern "C" void dslc_launch(uint8_t** a) {{
    uint64_t key = ::dslc::tiling_key();
    if (!dslc_tpl_dispatch(key, a, std::make_integer_sequence<uint64_t, kDslcTplCombos>{{}}))
        ::dslc_tpl::no_combination({decl}, {sel}, key, "{src.op_name}", ::dslc::Loc("{kernel}", {line}));
}}
"""


def build_project(src: ProjectSources, npu_arch: int, n_args: int, defines: list[str] | None = None) -> Path:
    """Returns the path of the emulator executable for this project, compiling what is stale.
    ``defines`` are extra ``-D`` flags of the kernel (``ProjectSources.dtype_macros``)."""
    runtime_o, harness_o = _runtime_objects(cache_root())
    if not (runtime_o.exists() and harness_o.exists()):  # evicted from the cache since: rebuild
        _runtime_objects.cache_clear()
        runtime_o, harness_o = _runtime_objects(cache_root())
    proj = src.project_dir
    host_bytes = _tree_bytes(proj / "op_host", (".h", ".hpp", ".cpp", ".cc"))
    kernel_bytes = _tree_bytes(proj / "op_kernel", (".h", ".hpp", ".cpp", ".cc"))
    common = _emulator_digest()
    gen = ["-isystem", str(INCLUDE_DIR), *GENERATED_FLAGS, "-Iop_host", "-Iop_kernel"]
    if src.kernel_src.read_text(errors="replace").startswith("// Generated by dslc"):
        gen += DSLC_FLAGS
    host_flags = [*gen, f"-D__NPU_ARCH__={npu_arch}"]
    kernel_flags = [*gen, f"-D__NPU_ARCH__={npu_arch}", f"-DDSLC_OP_TYPE={src.op_type}", *(defines or [])]
    if src.tiling_header is not None:
        rel = src.tiling_header.relative_to(proj)
        kernel_flags += ["-include", str(rel), "-include", "dslc_sim/tiling_default.h"]
    kernel_rel = str(src.kernel_src.relative_to(proj))
    if src.entry_template is not None:
        glue = _template_launcher(src, n_args)
        # The kernel is force-included before the launcher; -include names it ./op_kernel/..., and the
        # prefix map gives __FILE__ / __builtin_FILE (fault locations) their usual op_kernel/... form.
        kernel_flags += ["-fmacro-prefix-map=./=", "-include", kernel_rel]
    else:
        glue = _glue_source(src.op_name, n_args)
    host_keys = [
        _digest(common, " ".join(host_flags), host_bytes, str(h.relative_to(proj))) for h in src.host_srcs
    ]
    kernel_key = _digest(common, " ".join(kernel_flags), kernel_bytes, host_bytes, src.op_name, glue)
    exe_key = _digest(common, *host_keys, kernel_key, glue)

    root = cache_root()
    touch(runtime_o.parent)
    exe = root / f"exe-{exe_key}" / "dslc_sim"
    if exe.exists():
        touch(exe.parent)
        return exe
    objs = root / "obj"
    objs.mkdir(parents=True, exist_ok=True)
    host_os = [objs / f"host-{k}.o" for k in host_keys]
    kernel_o = objs / f"kernel-{kernel_key}.o"
    jobs = []
    for h, o in zip(src.host_srcs, host_os):
        if not _cached(o):
            jobs.append(_start_compile(str(h.relative_to(proj)), o, host_flags, proj))
    if not _cached(kernel_o):
        if src.entry_template is not None:
            launcher = objs / f"launch-{kernel_key}.cpp"
            tmp_launcher = _tmp_name(launcher)
            tmp_launcher.write_text(glue)
            os.replace(tmp_launcher, launcher)
            jobs.append(_start_compile(str(launcher), kernel_o, kernel_flags, proj))
        else:
            jobs.append(_start_compile(kernel_rel, kernel_o, kernel_flags, proj))
    _finish(jobs, f"operator project {proj.name}")

    exe.parent.mkdir(parents=True, exist_ok=True)
    link_inputs = [str(runtime_o), str(harness_o), *map(str, host_os), str(kernel_o)]
    cmd = [CXX, *BASE_FLAGS]
    if src.entry_template is None:
        glue_cpp = exe.parent / "launch.cpp"
        tmp_glue = _tmp_name(glue_cpp)
        tmp_glue.write_text(glue)
        os.replace(tmp_glue, glue_cpp)
        cmd += ["-x", "c++", str(glue_cpp), "-x", "none"]
    tmp = _tmp_name(exe)
    cmd += [*link_inputs, "-o", str(tmp)]
    link = subprocess.run(cmd, capture_output=True, text=True)
    if link.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(
            f"linking {proj.name} for the emulator failed:\n{_first_lines(link.stdout + link.stderr)}"
        )
    os.replace(tmp, exe)
    enforce_limit(keep=(exe.parent, *host_os, kernel_o, proj.parent))  # proj.parent: a generated project
    return exe
