"""``dslc check`` on the fixture operator ScaleAdd (tests/check/fixtures/scale_add: an ops-nn-style
op_host with OpDef, TilingFunc and InferShape, a TPipe/TQue kernel class, and a util header only
an include path reaches), its planted defects reported with their lines, its clean twin, and the
command's errors with their exact messages."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from backends.ascendc.check import kernel_file_name
from dsl.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
OP_DIR = FIXTURES / "scale_add"
INCLUDE = FIXTURES / "include"
GOLDEN = FIXTURES / "scale_add_golden.py"
KERNEL = "op_kernel/scale_add.cpp"


def check(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def scale_add(capsys, *extra: str, op_dir: Path = OP_DIR, include: Path = INCLUDE):
    return check(capsys, op_dir, "--op", "ScaleAdd", "-I", include, *extra)


# -- the clean twin and each planted defect -------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_clean_twin_has_no_faults_and_matches_the_golden(capsys, dtype):
    code, out, err = scale_add(capsys, "--dtype", dtype, "--golden", f"{GOLDEN}:scale_add")
    assert (code, err) == (0, "")
    assert f"ScaleAdd: inputs (random, seed 0): x {dtype}[4096], y {dtype}[4096]" in out
    assert f"outputs: z {dtype}[4096]" in out
    assert "attributes: alpha=1.5, tile=2048, defect=0" in out
    ub = {"f32": 49152, "f16": 24576}[dtype]  # 3 queues x 2 buffers x 2048 elements
    assert f"tiling key 0, block dim 4, UB peak {ub} B" in out
    assert "faults: none" in out
    assert "z: max abs err 0, max rel err 0 (approx) -> ok" in out
    assert out.rstrip().endswith("ScaleAdd: no faults, matches the golden")


def test_a_multi_core_size_with_a_tail_core(capsys):
    # 40 * 1024 + 8 elements: 41 cores of 5121 32-byte blocks (the first 37 one block more), tiles of
    # 2048 and a shorter last one
    code, out, _ = scale_add(capsys, "--shape", 40 * 1024 + 8, "--golden", f"{GOLDEN}:scale_add")
    assert code == 0, out
    assert "block dim 41" in out and "matches the golden" in out


def test_ub_over_capacity_is_reported_and_the_run_goes_on(capsys):
    code, out, _ = scale_add(capsys, "--attr", "defect=1", "--golden", f"{GOLDEN}:scale_add")
    assert code == 1
    assert (
        f"MemoryFaultError: {KERNEL}:32: UB over capacity: InitBuffer(TQue, 65536 B) brings the allocation to "
        "196608 B > 188160 B usable on this target (UB 196608 B)" in out
    )
    assert f"MemoryFaultError: {KERNEL}:33: UB over capacity" in out
    assert "UB peak 393216 B" in out  # served from the larger backing store
    assert "summary:\n  MemoryFaultError  2" in out
    # every block ran to its end in the backing store: the outputs are right
    assert "z: max abs err 0, max rel err 0 (approx) -> ok" in out
    assert out.rstrip().endswith("ScaleAdd: 2 fault(s), matches the golden")


def test_gm_read_past_the_end_is_reported_with_its_line_and_block(capsys):
    code, out, _ = scale_add(capsys, "--attr", "defect=2", "--golden", f"{GOLDEN}:scale_add")
    assert code == 1
    assert (
        f"MemoryFaultError: {KERNEL}:54: DataCopy(GM->UB): GM read [12288, 20480) B is out of bounds of "
        "input 0 'x' (16384 B): 4096 B past the end (block 3 of 4)" in out
    )
    # block 3 stopped at the fault: its outputs stay poisoned (NaN), the other blocks' are right
    assert (
        "z: max abs err inf" in out
        and "MISMATCH: 1024/4096 elements" in out
        and "first at flat index 3072" in out
    )
    assert out.rstrip().endswith("ScaleAdd: 1 fault(s), does NOT match the golden")


def test_race_is_reported_with_both_lines(capsys):
    code, out, _ = scale_add(capsys, "--attr", "defect=3")
    assert code == 1
    assert f"RaceError: {KERNEL}:67: read-after-write race on UB" in out
    assert f"MTE3 DataCopy(UB->GM) at {KERNEL}:67 reads it after V Add at {KERNEL}:65 wrote it" in out
    assert "missing SetFlag/WaitFlag<HardEvent::V_MTE3>" in out
    assert "summary:\n  RaceError  1" in out
    assert out.rstrip().endswith("ScaleAdd: 1 fault(s)")  # faults only: no golden given


def test_max_faults_stops_the_run(capsys):
    code, out, _ = scale_add(capsys, "--attr", "defect=1", "--max-faults", "1")
    assert code == 1
    assert "faults (1 distinct):" in out and f"{KERNEL}:33" not in out


def test_a_golden_that_disagrees_is_a_mismatch(capsys):
    code, out, _ = scale_add(capsys, "--golden", f"{GOLDEN}:wrong_scale")
    assert code == 1
    assert "z: max abs err" in out and "-> MISMATCH: " in out
    assert out.rstrip().endswith("ScaleAdd: no faults, does NOT match the golden")


# -- include paths ------------------------------------------------------------------------------------------


def test_without_the_include_path_the_util_header_is_not_found(capsys):
    code, out, err = check(capsys, OP_DIR, "--op", "ScaleAdd")
    assert code == 1 and out == ""
    assert err.startswith("dslc: error: operator project scale_add failed to compile for the emulator:")
    assert "fixture_util/math_util.h: No such file or directory" in err


def test_the_environment_variable_gives_include_paths(capsys, monkeypatch):
    monkeypatch.setenv("DSLC_CHECK_INCLUDE", str(INCLUDE))
    code, out, _ = check(capsys, OP_DIR, "--op", "ScaleAdd")
    assert code == 0, out


def test_an_include_folder_that_does_not_exist(capsys, monkeypatch, tmp_path):
    code, _, err = check(capsys, OP_DIR, "--op", "ScaleAdd", "-I", tmp_path / "nope")
    assert (code, err) == (1, f"dslc: error: -I {tmp_path / 'nope'}: no such include folder\n")
    monkeypatch.setenv("DSLC_CHECK_INCLUDE", str(tmp_path / "gone"))
    code, _, err = check(capsys, OP_DIR, "--op", "ScaleAdd", "-I", INCLUDE)
    assert (code, err) == (
        1,
        f"dslc: error: DSLC_CHECK_INCLUDE {tmp_path / 'gone'}: no such include folder\n",
    )


def test_an_edited_include_header_invalidates_the_build_cache(capsys, tmp_path):
    include = tmp_path / "include"
    shutil.copytree(INCLUDE, include)
    code, out, _ = scale_add(capsys, include=include)
    assert code == 0, out
    header = include / "fixture_util" / "math_util.h"
    header.write_text(
        header.read_text().replace("return b == 0 ? a : a / b * b;", "return b == 0 ? a : a / b * b / 2;")
    )
    code, out, _ = scale_add(capsys, "--golden", f"{GOLDEN}:scale_add", include=include)
    assert code == 0, out  # rebuilt: the host now tiles by 1024 (the kernel's CeilDiv is unchanged)
    assert "tiling key 0, block dim 4, UB peak 24576 B" in out


def test_warnings_are_reported_not_fatal(capsys, tmp_path):
    op_dir = tmp_path / "scale_add"
    shutil.copytree(OP_DIR, op_dir)
    kernel = op_dir / "op_kernel" / "scale_add.cpp"
    kernel.write_text(
        kernel.read_text().replace("    TPipe pipe;\n", "    TPipe pipe;\n    int unused = 0;\n")
    )
    code, out, _ = scale_add(capsys, op_dir=op_dir)
    assert code == 0, out
    assert "compiler warnings (not fatal): 1" in out
    assert "unused variable" in out and "[-Wunused-variable]" in out


def test_a_sibling_operators_kernel_header_resolves_as_in_the_cann_build(capsys, tmp_path):
    """`#include "../tile_copy/tile_copy.h"` names the kernel folder of the operator tile_copy next to
    this one, as CANN's build lays kernel folders out (ops-nn AddRmsNorm includes
    "../rms_norm/rms_norm_base.h"); it resolves unmodified, and a fault in that header reads
    ../tile_copy/op_kernel/tile_copy.h (relative to the operator folder, like op_kernel/...)."""
    op_dir = tmp_path / "ops" / "scale_add"
    shutil.copytree(OP_DIR, op_dir)
    sibling = tmp_path / "ops" / "tile_copy" / "op_kernel"
    sibling.mkdir(parents=True)
    (sibling / "tile_copy.h").write_text(
        "#pragma once\n"
        '#include "kernel_operator.h"\n'
        "template <typename T>\n"
        "__aicore__ inline void CopyTile(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,\n"
        "                                uint64_t n) {\n"
        "    AscendC::DataCopy(dst, src, n);\n"
        "}\n"
    )
    kernel = op_dir / "op_kernel" / "scale_add.cpp"
    text = kernel.read_text()
    text = text.replace(
        '#include "scale_add_tiling_data.h"\n',
        '#include "scale_add_tiling_data.h"\n#include "../tile_copy/tile_copy.h"\n',
    )
    kernel.write_text(
        text.replace("DataCopy(x, xGm_[i * tile_], copyLen);", "CopyTile(x, xGm_[i * tile_], copyLen);")
    )
    code, out, _ = scale_add(capsys, "--golden", f"{GOLDEN}:scale_add", op_dir=op_dir)
    assert code == 0, out
    assert out.rstrip().endswith("ScaleAdd: no faults, matches the golden")
    code, out, _ = scale_add(capsys, "--attr", "defect=2", op_dir=op_dir)
    assert code == 1
    assert (
        "MemoryFaultError: ../tile_copy/op_kernel/tile_copy.h:6: DataCopy(GM->UB): GM read [12288, 20480) B is "
        "out of bounds of input 0 'x' (16384 B): 4096 B past the end (block 3 of 4)" in out
    )


# -- errors -------------------------------------------------------------------------------------------------


def test_missing_folder(capsys, tmp_path):
    code, out, err = check(capsys, tmp_path / "none", "--op", "ScaleAdd")
    assert (code, out, err) == (1, "", f"dslc: error: {tmp_path / 'none'}: no such operator folder\n")


def test_folder_without_op_host(capsys, tmp_path):
    code, _, err = check(capsys, tmp_path, "--op", "ScaleAdd")
    assert (code, err) == (
        1,
        f"dslc: error: {tmp_path}: no op_host/*.cpp (an operator folder has op_host/ with the OpDef "
        "registration and TilingFunc, and op_kernel/ with the kernel)\n",
    )


def test_folder_without_opdef(capsys, tmp_path):
    (tmp_path / "op_host").mkdir()
    (tmp_path / "op_host" / "x_tiling.cpp").write_text("int f() { return 0; }\n")
    code, _, err = check(capsys, tmp_path, "--op", "ScaleAdd")
    assert (code, err) == (
        1,
        f"dslc: error: {tmp_path}: op_host/*.cpp registers no operator (no OP_ADD(OpType))\n",
    )


def test_unknown_op(capsys):
    code, _, err = check(capsys, OP_DIR, "--op", "ScaleAddV2", "-I", INCLUDE)
    assert (code, err) == (1, f"dslc: error: {OP_DIR}: no operator ScaleAddV2; op_host registers ScaleAdd\n")


def test_missing_kernel(capsys, tmp_path):
    shutil.copytree(OP_DIR / "op_host", tmp_path / "op_host")
    code, _, err = check(capsys, tmp_path, "--op", "ScaleAdd")
    assert (code, err) == (1, f"dslc: error: {tmp_path}: no kernel op_kernel/scale_add.cpp for ScaleAdd\n")


def test_bad_shape_count_is_bad_usage(capsys):
    code, _, err = scale_add(capsys, "--shape", "64", "--shape", "64", "--shape", "64")
    assert code == 2
    assert err.splitlines()[-1] == (
        "dslc: error: 3 --shape options for ScaleAdd's 2 inputs (x, y): give one for all required inputs, "
        "one per required input (2) or one per input (2)"
    )
    assert err.startswith("usage: dslc check")


def test_bad_shape_text_is_bad_usage(capsys):
    code, _, err = scale_add(capsys, "--shape", "4k")
    assert code == 2
    assert err.splitlines()[-1] == (
        "dslc: error: argument --shape: expected sizes separated by commas, such as 4096 or 32,128, got '4k'"
    )


def test_a_shape_the_tiling_refuses_is_a_tiling_fault(capsys):
    code, out, _ = scale_add(capsys, "--shape", "7")
    assert code == 1
    assert "TilingError: TilingFunc returned GRAPH_FAILED" in out
    assert "host/kernel output:" in out
    assert "7 elements are not a whole number of 32-byte blocks" in out


def test_unknown_attr_and_dtype_are_bad_usage(capsys):
    code, _, err = scale_add(capsys, "--attr", "beta=2")
    assert code == 2
    assert err.splitlines()[-1] == (
        "dslc: error: --attr beta: ScaleAdd has no attribute 'beta' (it has: alpha, tile, defect)"
    )
    code, _, err = scale_add(capsys, "--dtype", "bf16")
    assert code == 2
    assert (
        err.splitlines()[-1] == "dslc: error: --dtype bf16: ScaleAdd declares no such column; it has f16, f32"
    )
    code, _, err = scale_add(capsys, "--dtype", "f8")
    assert code == 2
    assert err.splitlines()[-1].startswith(
        "dslc: error: --dtype f8: unknown dtype; expected one of f32, f16, "
    )


def test_golden_errors(capsys, tmp_path):
    code, _, err = scale_add(capsys, "--golden", "scale_add")
    assert (code, err.splitlines()[-1]) == (
        2,
        "dslc: error: --golden scale_add: expected MODULE:FUNCTION, such as golden.py:apply_adam_w",
    )
    code, _, err = scale_add(capsys, "--golden", f"{GOLDEN}:nothing")
    assert (code, err) == (1, f"dslc: error: --golden {GOLDEN}:nothing: {GOLDEN} has no function nothing\n")
    code, _, err = scale_add(capsys, "--golden", f"{tmp_path}/g.py:f")
    assert (code, err) == (1, f"dslc: error: --golden {tmp_path}/g.py:f: no such file {tmp_path}/g.py\n")


def test_op_is_required(capsys):
    code, _, err = check(capsys, OP_DIR)
    assert code == 2 and err.splitlines()[-1] == "dslc: error: the following arguments are required: --op"


@pytest.mark.parametrize(
    "op_type,name",
    [
        ("ApplyAdamW", "apply_adam_w"),
        ("IsClose", "is_close"),
        ("AddRmsNorm", "add_rms_norm"),
        ("Greater", "greater"),
    ],
)
def test_kernel_file_name(op_type, name):
    assert kernel_file_name(op_type) == name


def test_golden_receives_inputs_and_attrs(tmp_path, capsys):
    seen = tmp_path / "seen.npz"
    golden = tmp_path / "g.py"
    golden.write_text(
        "import numpy as np\n"
        f"def g(x, y, alpha, tile, defect):\n    np.savez({str(seen)!r}, x=x, y=y, a=[alpha, tile, defect])\n"
        "    return (np.asarray(alpha, x.dtype) * x).astype(x.dtype) + y\n"
    )
    code, out, _ = scale_add(capsys, "--attr", "alpha=0.5", "--seed", "3", "--golden", f"{golden}:g")
    assert code == 0, out
    got = np.load(seen)
    assert list(got["a"]) == [0.5, 2048, 0]
    rng = np.random.default_rng(3)
    assert np.array_equal(got["x"], rng.uniform(-2.0, 2.0, size=(4096,)).astype(np.float32))
