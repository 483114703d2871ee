"""``op.compile(out_dir=...)`` writes a CANN custom-operator project (DESIGN.md sections 2, 3, 6,
10): the layout msopgen makes, one kernel entry, explained sync, source maps.

The expectations that depend on spelling choices of the backend are the constants just below;
adjust them there rather than in the tests.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dsl


import ew_cases as C  # tests/e2e is on sys.path: pytest's default (prepend) import mode

STEMS = [c.stem for c in C.CASES]
TARGET = "ascend910b"

# -- what the project must contain (paths relative to the project root; {op} is op.name) --------
REQUIRED_FILES = (
    "op_host/{op}_tiling.h",
    "op_host/{op}.cpp",
    "op_kernel/{op}.cpp",
    "CMakeLists.txt",
)
JSON_GLOB = "*.json"  # <OpType>.json or <op>.json at the project root
KERNEL_ENTRY_RE = re.compile(r'extern\s+"C"\s+__global__\s+__aicore__')
SYNC_CALL_RE = re.compile(r"\b(SetFlag|WaitFlag)\s*<")
# A sync statement's comment may sit on the statement's own line(s) or on the line just above.
SYNC_COMMENT_MAY_BE_ABOVE = True
# Statements that must carry a source-map comment: the vector (and scalar-register) compute calls.
COMPUTE_CALL_RE = re.compile(
    r"\b(Add|Sub|Mul|Div|Max|Min|Adds|Muls|Maxs|Mins|Exp|Ln|Sqrt|Rsqrt|Reciprocal|Abs|Relu|Tanh|"
    r"Sigmoid|Neg|Axpy|Cast|Select|Compare|Duplicate)\s*(<[^;()]*>)?\s*\("
)
SOURCE_MAP_COMMENT_MAY_BE_ABOVE = True
# One-time setup the compiler adds on its own (for example zero-filling buffers in Init) has no
# DSL line; in these kernel methods a compute call may instead be explained by a comment block
# directly above its run of statements.
SETUP_METHODS = ()  # every statement carries its DSL line, setup included
METHOD_RE = re.compile(r"__aicore__\s+inline\s+[\w:<>]+\s+(\w+)\s*\(")
HOST_MUST_CONTAIN = ("TilingFunc", "InferShape", "AddConfig", TARGET)
KERNEL_MUST_NOT_CONTAIN = ("EnQue", "DeQue")  # explicit TBuf + SetFlag/WaitFlag, no queue sync (section 6)


def source_map_re(stem: str) -> re.Pattern:
    """``// <file>.py:<line>`` as the backend writes it (base name of the DSL file)."""
    return re.compile(rf"//.*\b{re.escape(stem)}\.py:(\d+)")


# -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    """Compiles each example once per module: stem -> (out_dir, returned path)."""
    root = tmp_path_factory.mktemp("compile_projects")
    made: dict[str, tuple[Path, Path]] = {}

    def get(stem: str) -> tuple[Path, Path]:
        if stem not in made:
            out = root / stem
            made[stem] = (out, C.load_op(stem).compile(target=TARGET, out_dir=out))
        return made[stem]

    return get


def _kernel(projects, stem) -> tuple[Path, list[str]]:
    _, proj = projects(stem)
    path = Path(proj) / "op_kernel" / f"{C.load_op(stem).name}.cpp"
    return path, path.read_text().splitlines()


def _statement_spans(lines: list[str], start_re: re.Pattern):
    """(first, last) line indices of each statement that starts with a match of ``start_re``
    and ends at the next ``;`` (clang-format may wrap a long call)."""
    for i, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if not start_re.search(code):
            continue
        j = i
        while ";" not in lines[j].split("//", 1)[0] and j + 1 < len(lines) and j - i < 8:
            j += 1
        yield i, j


def _method_at(lines: list[str], index: int) -> str | None:
    """The kernel method (``Init``, ``Process``, ...) whose body contains line ``index``."""
    for i in range(index, -1, -1):
        m = METHOD_RE.search(lines[i])
        if m:
            return m.group(1)
    return None


def _in_file_scope_helper(lines: list[str], index: int) -> bool:
    """Line ``index`` is in a helper defined at file scope (``LoadScalar``, ``DivRepeatRhs``...),
    not in the kernel class: library code with a comment of its own; its call sites carry the DSL
    line."""
    for i in range(index, -1, -1):
        if METHOD_RE.search(lines[i]):
            j = i - 1 if i > 0 and lines[i - 1].startswith("template") else i
            return not lines[i].startswith(" ") and j > 0 and lines[j - 1].startswith("//")
    return False


def _explained_by_block_above(lines: list[str], first: int) -> bool:
    """A comment-only line directly above the run of code lines that contains line ``first``."""
    i = first - 1
    while i >= 0 and lines[i].strip() and not lines[i].strip().startswith("//"):
        i -= 1
    return i >= 0 and lines[i].strip().startswith("//")


def _source_map_above(lines, first, pattern) -> bool:
    """The nearest source-map comment above ``first`` within its method names the DSL line (one
    comment heads each group of statements from one DSL line)."""
    for i in range(first, -1, -1):
        if pattern.search(lines[i]):
            return True
        if METHOD_RE.search(lines[i]):
            return False
    return False


def _paired_wait(lines, first) -> bool:
    """A WaitFlag right after the SetFlag of the same event and id: the SetFlag's comment covers it."""
    prev = lines[first - 1].split("//", 1)[0].strip() if first > 0 else ""
    here = lines[first].split("//", 1)[0].strip()
    return here.startswith("WaitFlag") and prev == "SetFlag" + here[len("WaitFlag") :]


def _has_comment(lines, first, last, may_be_above, pattern=None) -> bool:
    span = lines[first : last + 1]
    if may_be_above and first > 0 and lines[first - 1].strip().startswith("//"):
        span = [lines[first - 1], *span]
    for line in span:
        if "//" in line and (pattern is None or pattern.search(line)):
            return True
    return False


# -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", STEMS)
def test_compile_returns_project_path(projects, stem):
    out, proj = projects(stem)
    assert isinstance(proj, Path), f"op.compile returned {type(proj).__name__}, not pathlib.Path"
    assert proj.is_dir()
    assert out.resolve() in (proj.resolve(), *proj.resolve().parents), f"{proj} is not under {out}"


def _op_type(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


@pytest.mark.parametrize("stem", STEMS)
def test_project_layout(projects, stem):
    _, proj = projects(stem)
    op = C.load_op(stem)
    missing = [f.format(op=op.name) for f in REQUIRED_FILES if not (proj / f.format(op=op.name)).is_file()]
    assert (
        not missing
    ), f"{proj} lacks {missing}; it has {sorted(str(p.relative_to(proj)) for p in proj.rglob('*'))}"
    descriptions = sorted(proj.glob(JSON_GLOB))
    assert descriptions, f"no {JSON_GLOB} op description at the root of {proj}"
    text = "\n".join(p.read_text() for p in descriptions)
    json.loads(descriptions[0].read_text())
    for name in (*op.inputs, *op.outputs, *op.attrs):
        assert name in text, f"'{name}' does not appear in the op description {descriptions}"
    # exactly these files: msopgen's sources, the op description, README, golden scripts
    files = sorted(p.relative_to(proj).as_posix() for p in proj.rglob("*") if p.is_file())
    assert files == sorted(
        [
            f"{_op_type(op.name)}.json",
            "CMakeLists.txt",
            "README.md",
            f"golden/{stem}_dsl.py",
            "golden/golden.py",
            f"op_host/{op.name}.cpp",
            f"op_host/{op.name}_tiling.h",
            f"op_kernel/{op.name}.cpp",
        ]
    )
    assert (proj / "golden" / f"{stem}_dsl.py").read_text() == (C.EXAMPLES / f"{stem}.py").read_text()


ACL_TYPES = {
    "f16": "float16",
    "f32": "float",
    "bf16": "bfloat16",
    "bool": "bool",
    "i8": "int8",
    "u8": "uint8",
}
ATTR_TYPES = {"bool": "bool", "int": "int", "float": "float", "literal": "string"}


@pytest.mark.parametrize("stem", STEMS)
def test_op_description_json(projects, stem):
    """<OpType>.json, as msopgen reads it: every input, output and attribute in declaration
    order with its param type, one dtype per kernel dtype (pinned inputs keep theirs), ND."""
    _, proj = projects(stem)
    op = C.load_op(stem)
    (desc,) = json.loads((proj / f"{_op_type(op.name)}.json").read_text())
    funcs = [op.func(t) for t in op.dtypes]

    def dtypes_of(types):
        return [ACL_TYPES[t.dtype.name] for t in types]

    inputs = [
        {
            "name": d.name,
            "param_type": "optional" if d.optional else "required",
            "format": ["ND"] * len(funcs),
            "type": dtypes_of(f.param(d.name).value.type for f in funcs),
        }
        for d in op._def.inputs
    ]
    outputs = [
        {
            "name": o.name,
            "param_type": "optional" if o.optional else "required",
            "format": ["ND"] * len(funcs),
            "type": dtypes_of(f.outputs[i].type for f in funcs),
        }
        for i, o in enumerate(funcs[0].outputs)
    ]
    attrs = [
        {"name": a.name, "param_type": "optional", "type": ATTR_TYPES[a.kind], "default_value": a.default}
        for a in op._def.attrs
    ]
    assert desc == {
        "op": _op_type(op.name),
        "language": "cpp",
        "input_desc": inputs,
        "output_desc": outputs,
        "attr": attrs,
    }


@pytest.mark.parametrize("stem", STEMS)
def test_host_code(projects, stem):
    _, proj = projects(stem)
    op = C.load_op(stem)
    host = (proj / "op_host" / f"{op.name}.cpp").read_text()
    for needle in HOST_MUST_CONTAIN:
        assert needle in host, f"op_host/{op.name}.cpp does not mention {needle}"


@pytest.mark.parametrize("stem", STEMS)
def test_kernel_has_one_entry(projects, stem):
    path, lines = _kernel(projects, stem)
    entries = KERNEL_ENTRY_RE.findall("\n".join(lines))
    assert len(entries) == 1, f'{path}: {len(entries)} extern "C" __global__ __aicore__ entries'


@pytest.mark.parametrize("stem", STEMS)
def test_every_sync_is_explained(projects, stem):
    path, lines = _kernel(projects, stem)
    spans = list(_statement_spans(lines, SYNC_CALL_RE))
    assert spans, f"{path}: no SetFlag/WaitFlag at all"
    bare = [
        f"{path.name}:{a + 1}: {lines[a].strip()}"
        for a, b in spans
        if not _has_comment(lines, a, b, SYNC_COMMENT_MAY_BE_ABOVE) and not _paired_wait(lines, a)
    ]
    assert not bare, "SetFlag/WaitFlag without a comment naming what it protects:\n" + "\n".join(bare)


@pytest.mark.parametrize("stem", STEMS)
def test_kernel_statements_carry_source_map(projects, stem):
    path, lines = _kernel(projects, stem)
    op = C.load_op(stem)
    pattern = source_map_re(stem)
    body, first = inspect.getsourcelines(op.__wrapped__)
    valid = range(first, first + len(body))  # decorator, signature and body lines
    refs = [int(m.group(1)) for line in lines for m in pattern.finditer(line)]
    assert refs, f"{path}: no '// {stem}.py:<line>' comments"
    bad = sorted({r for r in refs if r not in valid})
    assert not bad, f"{path}: source-map lines {bad} are outside {stem}.py:{first}-{valid[-1]}"
    unmapped = [
        f"{path.name}:{a + 1}: {lines[a].strip()}"
        for a, b in _statement_spans(lines, COMPUTE_CALL_RE)
        if not _source_map_above(lines, a, pattern)
        and not (_method_at(lines, a) in SETUP_METHODS and _explained_by_block_above(lines, a))
        and not _in_file_scope_helper(lines, a)
    ]
    assert not unmapped, f"compute statements without '// {stem}.py:<line>':\n" + "\n".join(unmapped)


@pytest.mark.parametrize("stem", STEMS)
def test_kernel_uses_explicit_sync_not_queues(projects, stem):
    path, lines = _kernel(projects, stem)
    text = "\n".join(line.split("//", 1)[0] for line in lines)
    for needle in KERNEL_MUST_NOT_CONTAIN:
        assert needle not in text, f"{path}: uses {needle} (DESIGN.md section 6: TBuf + SetFlag/WaitFlag)"


def test_compile_is_deterministic(tmp_path):
    op = C.load_op("rms_prop")
    a = op.compile(target=TARGET, out_dir=tmp_path / "a")
    b = op.compile(target=TARGET, out_dir=tmp_path / "b")
    again = op.compile(target=TARGET, out_dir=tmp_path / "a")  # overwriting is allowed
    assert again == a
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), f"{rel} differs between two compiles"


def test_compile_unknown_target_is_an_error(tmp_path):
    with pytest.raises((ValueError, dsl.CompileError, dsl.ArgumentError)):
        C.load_op("silu").compile(target="ascend_nonexistent", out_dir=tmp_path)


def test_cli_compile_writes_the_same_project(tmp_path):
    exe = Path(sys.executable).with_name("dslc")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "dsl.cli"]
    r = subprocess.run(
        [*cmd, "compile", str(C.EXAMPLES / "leaky_relu.py"), "-o", str(tmp_path / "cli")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    api = C.load_op("leaky_relu").compile(target=TARGET, out_dir=tmp_path / "api")
    cli = tmp_path / "cli" / api.name
    assert cli.is_dir(), f"dslc compile -o {tmp_path / 'cli'} did not write {cli}"
    api_files = sorted(p.relative_to(api) for p in api.rglob("*") if p.is_file())
    assert sorted(p.relative_to(cli) for p in cli.rglob("*") if p.is_file()) == api_files
    for rel in api_files:
        assert (cli / rel).read_bytes() == (api / rel).read_bytes(), f"{rel} differs between CLI and API"
    assert r.stdout == f"dslc: wrote {cli} (3 kernel variants: dtypes f16, f32, bf16 x tiling key 0)\n"
