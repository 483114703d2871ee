"""The generated source reads like a reviewer expects (issue 11): no copy-paste, a compact AdamW
kernel, and a golden copy of the AdamW project so every change to the emitted text is a diff."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
# A golden copy per kernel family: flat (AdamW), rows (layer_norm: column-chunked twins, Welford,
# Brcb blocks) and broadcast (outer_max).
GOLDEN_STEMS = ("apply_adam_w", "layer_norm", "outer_max")
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))


def _repeats_module():
    spec = importlib.util.spec_from_file_location("dslc_repeats", Path(__file__).with_name("repeats.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


R = _repeats_module()


def _load(stem: str):
    name = f"style_{stem}"
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, stem)


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    root = tmp_path_factory.mktemp("style")
    return {stem: _load(stem).compile(out_dir=root) for stem in EXAMPLES}


def test_repeat_finder_sees_renamed_copies():
    shapes = ["Muls(a, b, s, n);", "Add(x, y, z);", "PipeBarrier<PIPE_V>();", "x = y;", "f(1);", "g(a, 2);"]
    block = "\n".join("    " + s for s in shapes)
    other = block.replace("Muls", "Maxs").replace("a", "q")
    assert R.repeats(block + "\n    h();\n" + other) == [(1, 8)]
    assert R.repeats(block + "\n    Sub(p, q, r, n);") == []  # one run alone is no repeat
    table = "\n".join(f"    float m{i}_ = 0;" for i in range(14))
    assert R.repeats(table) == []  # one list of like declarations is not a copy


ROW_EXAMPLES = (
    "add_layer_norm",
    "bias_gelu",
    "layer_norm",
    "log_softmax",
    "quantize_add_layer_norm",
    "rms_norm",
    "softmax",
)


@pytest.mark.parametrize("stem", EXAMPLES)
def test_generated_sources_do_not_repeat_themselves(projects, stem):
    """Issue 11: no run of 6 or more lines repeats (the same lines, or the same shape with other
    names and numbers) anywhere in the generated op_kernel/ or op_host/ source."""
    for rel in (f"op_host/{stem}.cpp", f"op_kernel/{stem}.cpp"):
        found = R.repeats((projects[stem] / rel).read_text())
        assert not found, f"{rel}: runs of 6 lines repeat at {found}"


@pytest.mark.parametrize("stem", ROW_EXAMPLES)
def test_row_step_has_no_six_line_repeats(projects, stem):
    """A row kernel's full-load ProcessStep holds no run of 6 lines of one shape (the per-row
    reductions and the per-row broadcasts are one helper call each: ReduceRows, RowsByValue over
    SpreadPerRow; anonymous views bound alike share one declaration)."""
    lines = (projects[stem] / f"op_kernel/{stem}.cpp").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "void ProcessStep(" in line)
    end = next(j for j in range(start + 1, len(lines)) if lines[j] == "    }")
    found = R.repeats("\n".join(lines[start : end + 1]))
    assert not found, f"op_kernel/{stem}.cpp ProcessStep: runs of 6 lines repeat at {found} (+{start})"
    body = "\n".join(lines[start : end + 1])
    assert "GetValue" not in body and "HardEvent::V_S" not in body and "HardEvent::S_V" not in body


def _statements_with_two_conditionals(text: str) -> list[str]:
    """C++ statements (comments dropped, split at ``;``, ``{``, ``}``) holding more than one ``?``:
    a nested conditional, or two on one statement."""
    code = re.sub(r"//[^\n]*", "", text)
    return [" ".join(st.split()) for st in re.split(r"[;{}]", code) if st.count("?") > 1]


def test_the_nested_conditional_finder_sees_split_lines():
    text = "x = a ? b\n    : c ? d : e;  // a ? b\ny = p ? q : r;\nf(a ? b : c, d ? e : f);"
    assert _statements_with_two_conditionals(text) == ["x = a ? b : c ? d : e", "f(a ? b : c, d ? e : f)"]


@pytest.mark.parametrize("stem", ROW_EXAMPLES)
def test_row_kernel_is_at_most_600_lines_without_nested_conditionals(projects, stem):
    """Issue 20 item 9: a row example's 910B kernel reads as hand-written: at most 600 lines (the
    tiling keys a formula, one view per value declared once, in terms of the views it is computed
    in place of), and no nested `?:` (a view bound three ways is assigned under `if constexpr`)."""
    text = (projects[stem] / f"op_kernel/{stem}.cpp").read_text()
    assert len(text.splitlines()) <= 600
    assert _statements_with_two_conditionals(text) == []


# The broadcast schedule's examples (enum class BcMode) and their 910B kernels' line counts: issue 20's
# 600 is not reached yet (the helpers of every mode, ~330 lines, and the dtype x SCALAR-twin merge);
# these ceilings keep what was won (770/922/695/806 lines before the tables moved to the tiling).
BROADCAST_LINES = {"bias_add": 679, "greater": 808, "masked_fill": 629, "outer_max": 717}


def test_broadcast_examples_are_the_bcmode_kernels(projects):
    found = {s for s, p in projects.items() if "enum class BcMode" in (p / f"op_kernel/{s}.cpp").read_text()}
    assert found == set(BROADCAST_LINES)


@pytest.mark.parametrize("stem", sorted(BROADCAST_LINES))
def test_broadcast_kernel_reads_as_hand_written(projects, stem):
    """Issue 20 item 9 for the broadcast kernels: no nested `?:` (a view bound three ways is assigned
    under if constexpr; a constant of three values or more is an if constexpr chain), no tables of
    tile or block sizes (the tiling's bcTile), no PipeBarrier<PIPE_ALL>; at most its line ceiling."""
    text = (projects[stem] / f"op_kernel/{stem}.cpp").read_text()
    assert _statements_with_two_conditionals(text) == []
    assert "PIPE_ALL" not in text
    assert not re.search(r"static constexpr uint32_t (TILE|BLOCK|BUF_MASKS)\b", text)
    assert "tileElems_ = tiling.bcTile;" in text
    assert len(text.splitlines()) <= BROADCAST_LINES[stem]


@pytest.mark.parametrize("stem", ROW_EXAMPLES)
def test_row_kernels_have_one_step_body(projects, stem):
    """One ProcessStep for the full-load and the column-chunked kernel (it was two methods,
    ProcessStep and ProcessChunk, that repeated each other)."""
    text = (projects[stem] / f"op_kernel/{stem}.cpp").read_text()
    assert text.count("void ProcessStep(") == 1 and "ProcessChunk" not in text
    assert "COLUMN_CHUNKS" in text


def test_adam_w_kernel_is_compact(projects):
    lines = (projects["apply_adam_w"] / "op_kernel" / "apply_adam_w.cpp").read_text().splitlines()
    assert len(lines) <= 700
    assert sum(1 for line in lines if line.startswith("class ")) == 1  # one class template


# Init's old zero fill: a whole TBuf duplicated with 0 (a constant splat into a view is math).
ZERO_FILL = re.compile(r"Duplicate\(\s*\w+Buf_\.Get<\w+>\(\),\s*static_cast<\w+>\(0(\.0f?)?\)")


def test_no_example_kernel_has_pipe_all_or_a_zero_fill(projects, tmp_path):
    """Issue 20 item 10: the emulator tracks definedness, so no kernel zero-fills its buffers or
    orders Init by PipeBarrier<PIPE_ALL> (DESIGN s10: none in steady state either)."""
    kernels = {
        ("ascend910b", stem): project / "op_kernel" / f"{stem}.cpp" for stem, project in projects.items()
    }
    for stem in EXAMPLES:
        if stem in ("quant_linear", "quant_matmul"):  # i8 matmul is refused on ascend950 (test_matmul_errors)
            continue
        project = _load(stem).compile(target="ascend950", out_dir=tmp_path)
        kernels[("ascend950", stem)] = project / "op_kernel" / f"{stem}.cpp"
    found = {}
    for key, path in kernels.items():
        text = path.read_text()
        bad = [line.strip() for line in text.splitlines() if "PIPE_ALL" in line]
        bad += [m.group(0) for m in ZERO_FILL.finditer(text)]
        if bad:
            found[key] = bad
    assert not found, found


@pytest.mark.parametrize("stem", GOLDEN_STEMS)
def test_project_matches_the_golden_copy(projects, stem):
    """Set DSLC_UPDATE_GOLDEN=1 to accept a deliberate change (then review the diff)."""
    project = projects[stem]
    update = os.environ.get("DSLC_UPDATE_GOLDEN") == "1"
    for rel in (f"op_kernel/{stem}.cpp", f"op_host/{stem}.cpp", f"op_host/{stem}_tiling.h"):
        got = (project / rel).read_text()
        golden = GOLDEN / stem / rel
        if update:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(got)
        assert golden.is_file(), f"no golden copy {golden}; run with DSLC_UPDATE_GOLDEN=1"
        assert got == golden.read_text(), f"{rel} differs from {golden} (DSLC_UPDATE_GOLDEN=1 to accept)"


def test_cann_9_spellings_run_on_the_emulator(tmp_path):
    """--cann 9.0 emits the 9.x names (SetSimdNumBlocks, scalar Cast) instead of the 8.5 ones 9.x
    deprecates, and the project still runs bit-exact."""
    import ml_dtypes
    import numpy as np

    from backends.ascendc.compile import lower
    from backends.ascendc.project import write_project

    op = _load("apply_adam_w")
    compiled = lower(op, cann="9.0", warn_builtin=False)
    project = write_project(tmp_path, compiled.plan, compiled.files, {})
    host = (project / "op_host" / "apply_adam_w.cpp").read_text()
    kernel = (project / "op_kernel" / "apply_adam_w.cpp").read_text()
    assert "SetSimdNumBlocks(" in host and "SetBlockDim(" not in host
    assert "return Cast(value);" in kernel and "ToFloat" not in kernel
    rng = np.random.default_rng(0)
    n = 3000
    var, m, g = (rng.uniform(-1, 1, n).astype(ml_dtypes.bfloat16) for _ in range(3))
    v = np.abs(rng.uniform(-1, 1, n)).astype(ml_dtypes.bfloat16)
    args = (var, m, v, 0.5, 0.25, 0.001, 0.01, 0.9, 0.999, 1e-8, g, None)
    got = op.simulate(*args, project=project)
    for a, b in zip(got, op.reference(*args)):
        np.testing.assert_array_equal(a.view(np.uint16), b.view(np.uint16))


@pytest.mark.parametrize(
    "cann, api",
    [
        ("9.0", "BlockReduceMax(dst, src, repeats, mask, 1, 1, 8)"),
        ("9.1", "ReduceDataBlock<ReduceType::MAX>(dst, src, mask, repeats, 1, 1, 8)"),
    ],
)
def test_row_reductions_use_the_releases_block_reduce_spelling(tmp_path, cann, api):
    """ReduceRows' block levels: BlockReduceMax/Sum up to 9.0, ReduceDataBlock<ReduceType::...> (mask
    before repeatTime) from 9.1; both run on the emulator (rows of 1000 columns: two levels and a
    masked tail block) within softmax's tolerance."""
    import numpy as np

    from backends.ascendc.compile import lower
    from backends.ascendc.project import write_project

    op = _load("softmax")
    compiled = lower(op, cann=cann, warn_builtin=False)
    project = write_project(tmp_path, compiled.plan, compiled.files, {})
    kernel = (project / "op_kernel" / "softmax.cpp").read_text()
    assert api in kernel
    x = np.random.default_rng(0).uniform(-4, 4, (5, 1000)).astype(np.float32)
    np.testing.assert_allclose(op.simulate(x, project=project), op.reference(x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("stem", ["bias_add", "add_layer_norm"])
def test_generated_text_does_not_depend_on_hash_seeds(tmp_path, stem):
    """The same DSL source gives the same project under any PYTHONHASHSEED (bias_add's and
    add_layer_norm's buffer conditionals once ranked tied bindings in set order)."""
    import subprocess

    texts = []
    for seed in ("1", "2", "3"):
        out = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "dsl.cli",
                "compile",
                str(ROOT / "examples" / f"{stem}.py"),
                "-o",
                str(out),
            ],
            check=True,
            env=env,
            capture_output=True,
            cwd=ROOT,
        )
        texts.append({p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert texts[0] == texts[1] == texts[2]
