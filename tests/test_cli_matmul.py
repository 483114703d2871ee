"""The backend compiles ``@`` (issue 22), i8 operands on both targets (w as [N, K] or [K, N]),
except what the matmul schedule does not take yet (here: an optional input without a static
attribute that says whether it is read): compile, run, profile and simulate of such
an operator stop with a CompileError at its DSL line naming what is missing, exit 1, no traceback,
and write or print nothing for it; ``dslc ir`` and ``op.reference`` work, and ``dslc compile``
writes the projects of the file's other operators."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dsl import CompileError
from dsl.cli import main

SOURCE = """\
import dsl
from dsl import Tensor, f16, bf16, f32, i8


@dsl.op(dtypes=(f16, bf16))
def linear(x: Tensor[i8, "M", "K"], w: Tensor[i8, "N", "K"], bias: Tensor[f32, "N"]):
    y = dsl.cast(x @ w.T, f32) + bias
    return dsl.cast(y, dsl.T)


@dsl.op(dtypes=(f32,))
def twice(x: Tensor):
    return x * 2


@dsl.op(dtypes=(f16, bf16))
def linear_opt(x: Tensor[i8, "M", "K"], w: Tensor[i8, "N", "K"], bias: Tensor[f32, "N"] | None = None):
    y = dsl.cast(x @ w.T, f32)
    return dsl.cast(y, dsl.T)
"""
MESSAGE = (
    "error: input 'bias' of operator linear_opt: an optional input of a matmul operator needs a static "
    "attribute that says whether it is read"
)


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "lin.py"
    path.write_text(SOURCE)
    return path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _refusal(err: str, path: Path) -> None:
    assert err.startswith(f"dslc: {path}:18:18: {MESSAGE}\n"), err
    assert "        y = dsl.cast(x @ w.T, f32)\n                     ^\n" in err
    assert "Traceback" not in err


def test_compile_refuses_and_writes_nothing_for_it(source, tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, out, err = run(
        ["compile", source, "--op", "linear_opt", "-o", out_dir, "--target", "ascend950"], capsys
    )
    assert code == 1 and out == ""
    _refusal(err, source)
    assert err.endswith("dslc: error: 1 of 1 operators failed (linear_opt); wrote nothing\n")
    assert not out_dir.exists()


def test_compile_of_the_file_writes_the_other_operator(source, tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, out, err = run(["compile", source, "-o", out_dir, "--target", "ascend950"], capsys)
    assert code == 1
    _refusal(err, source)
    assert sorted(p.name for p in out_dir.iterdir()) == ["linear", "twice"]  # i8 x w.T on 950 too
    assert "wrote the other 2" in err


@pytest.mark.parametrize("cmd", ["run", "profile"])
def test_run_and_profile_refuse_before_drawing_inputs(source, capsys, cmd):
    code, out, err = run(
        [
            cmd,
            source,
            "--op",
            "linear_opt",
            "--shape",
            "4,8",
            "--shape",
            "3,8",
            "--shape",
            "3",
            "--target",
            "ascend950",
        ],
        capsys,
    )
    assert (code, out) == (1, "")
    _refusal(err, source)


def test_ir_prints_the_matmul(source, capsys):
    code, out, err = run(["ir", source, "--op", "linear", "--dtype", "bf16"], capsys)
    assert (code, err) == (0, "")
    assert "%0 = matmul %x, %w {transpose_b = true} : tensor<M, N, i32>" in out


def _load(path: Path):
    spec = importlib.util.spec_from_file_location("lin_mm", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_python_api_refuses_with_the_line(source, tmp_path, target):
    mod = _load(source)
    x = np.ones((4, 8), np.int8)
    w = np.ones((3, 8), np.int8)
    b = np.zeros(3, np.float32)
    assert mod.linear_opt.reference(x, w, b).tolist() == [[8.0] * 3] * 4
    calls = [
        lambda: mod.linear_opt.compile(out_dir=tmp_path / "api", target=target),
        lambda: mod.linear_opt.simulate(x, w, b, target=target),
        lambda: mod.linear_opt.simulate(x, w, b, project=tmp_path / "nowhere", target=target),
        lambda: mod.linear_opt.profile(x, w, b, target=target),
    ]
    for call in calls:
        with pytest.raises(CompileError) as info:
            call()
        assert info.value.loc.line == 18 and info.value.loc.col == 18
        assert info.value.msg == MESSAGE.removeprefix("error: ")
    assert not (tmp_path / "api").exists()


def test_compile_for_910b_writes_the_cv_kernel(source, tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, out, err = run(["compile", source, "--op", "linear", "-o", out_dir], capsys)
    assert code == 0, err
    kernel = (out_dir / "linear" / "op_kernel" / "linear.cpp").read_text()
    assert "__global__ __mix__(1, 2) void linear(" in kernel
    assert "CrossCoreSetFlag<2, PIPE_FIX>(AIC_TO_AIV);" in kernel
    assert "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_TO_AIC);" in kernel
    host = (out_dir / "linear" / "op_host" / "linear.cpp").read_text()
    assert "GetCoreNumAic()" in host and "GetLibApiWorkSpaceSize() +" in host


def test_run_past_the_full_row_limit_names_n_and_the_limit(capsys):
    # a reduction along N keeps the whole row in one cube tile: 1024 columns at most (L0B/L0C)
    example = Path(__file__).resolve().parents[1] / "examples" / "matmul_rms_norm.py"
    code, out, err = run(["run", example, "--shape", "3,16", "--shape", "1040,16", "--shape", "1040"], capsys)
    assert code == 1
    assert "dslc: error: TilingFunc returned GRAPH_FAILED" in err
    assert "N = 1040: a reduction along N needs the whole row in one cube tile, at most 1024 columns" in err
    assert "Traceback" not in err
    code, out, err = run(["run", example, "--shape", "3,16", "--shape", "1024,16", "--shape", "1024"], capsys)
    assert code == 0, err
    assert "matmul_rms_norm[f16] matches the reference" in out


EXAMPLE_LINEAR_GELU = Path(__file__).resolve().parents[1] / "examples" / "linear_gelu.py"


@pytest.mark.parametrize(
    "target,path,why",
    [
        ("ascend950", "auto", "RegBase: 10 ops, 9 intermediates kept in registers"),
        ("ascend950", "regbase", "RegBase: asked for (vector_path='regbase')"),
        ("ascend950", "membase", "MemBase: asked for (vector_path='membase')"),
        ("ascend910b", "auto", "MemBase: the target has no RegBase"),
    ],
)
def test_explain_names_the_epilogue_vector_path(tmp_path, capsys, target, path, why):
    """select-vector-path's rule (seed 004 section 3) on the epilogue, as --explain prints it, and
    the kernel it gives: on 950 RegBase (one vector function per half tile) for linear_gelu's
    chain unless MemBase is asked for; 910B is MemBase."""
    argv = ["compile", EXAMPLE_LINEAR_GELU, "-o", tmp_path, "--target", target, "--vector-path", path]
    code, out, err = run([*argv, "--explain"], capsys)
    assert code == 0, err
    assert out.count(f"  vector path: {why}\n") == 2  # f16 and bf16
    tile = "128 x 256 x 64" if target == "ascend950" else "128 x 128 x 128"
    assert out.count(f"a matmul with an epilogue, cube tile {tile} (BASE_M x BASE_N x BASE_K), STEP_K 4") == 2
    assert ("  epilogue: one vector function per half tile" in out) == why.startswith("RegBase")
    assert "rows per step" not in out and "column chunks" not in out  # the row kernels' host tiling
    kernel = (tmp_path / "linear_gelu" / "op_kernel" / "linear_gelu.cpp").read_text()
    regbase = why.startswith("RegBase")
    assert ("__simd_vf__ static inline void LinearGeluVF(" in kernel) == regbase
    assert ("asc_vf_call<LinearGeluVF>(" in kernel) == regbase
    assert ("Exp(" in kernel and "Reg::Exp(" not in kernel) == (not regbase)  # MemBase: LocalTensor calls
