"""Contract tests for the ``dslc`` CLI commands that need no backend (DESIGN.md section 3):
``dslc ir`` prints one specialization's IR; exit status 0 on success, 1 on a user error (a
message, no traceback), 2 on bad usage."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _dslc_cmd():
    exe = pathlib.Path(sys.executable).parent / "dslc"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("dslc")
    assert found, "the dslc console script is not installed (pip install -e .)"
    return [found]


def dslc(*args, cwd=None):
    return subprocess.run(
        [*_dslc_cmd(), *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.mark.parametrize("dtype", ["f16", "f32", "bf16", "i8", "i32", "u8"])
def test_ir_greater(dtype):
    r = dslc("ir", EXAMPLES / "greater.py", "--op", "greater", "--dtype", dtype)
    assert r.returncode == 0, r.stderr
    assert "x1" in r.stdout and "x2" in r.stdout and "greater" in r.stdout


@pytest.mark.parametrize("mode", ["per_channel", "per_tensor", "mul"])
def test_ir_attrs(mode):
    r = dslc(
        "ir",
        EXAMPLES / "quantize_add_layer_norm.py",
        "--dtype",
        "bf16",
        "--attr",
        f"quant_mode={mode}",
        "--attr",
        "additional_output=true",
    )
    assert r.returncode == 0, r.stderr
    assert "quantize_add_layer_norm" in r.stdout
    assert "gamma" in r.stdout


def test_ir_user_error_exit_1(tmp_path):
    bad = tmp_path / "bad_op.py"
    bad.write_text(
        "import dsl\n"
        "from dsl import Tensor, f32\n"
        "\n"
        "\n"
        "@dsl.op(dtypes=(f32,))\n"
        "def bad(x: Tensor):\n"
        "    for i in range(3):\n"
        "        x = x + 1\n"
        "    return x\n"
    )
    r = dslc("ir", bad)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    out = r.stdout + r.stderr
    assert "Traceback" not in out
    assert "bad_op.py:7:5" in out, out
    assert "for i in range(3):" in out and "^" in out


def test_ir_unknown_dtype_is_user_error(tmp_path):
    r = dslc("ir", EXAMPLES / "greater.py", "--dtype", "f64")
    assert r.returncode in (1, 2), (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stdout + r.stderr


def test_missing_file_is_user_error():
    r = dslc("ir", EXAMPLES / "does_not_exist.py")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stdout + r.stderr


def test_bad_usage_exit_2():
    r = dslc("ir", EXAMPLES / "greater.py", "--no-such-option")
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    r = dslc("no-such-command")
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
