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


def _api_ir(stem: str, dtype: str, **attrs) -> str:
    """``op.ir(...)`` of the example (the CLI must print exactly this)."""
    import importlib.util

    import dsl

    spec = importlib.util.spec_from_file_location(f"dslc_cli_contract_{stem}", EXAMPLES / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, stem).ir(dtype=getattr(dsl, dtype), **attrs)


@pytest.mark.parametrize("dtype", ["f16", "f32", "bf16", "i8", "i32", "u8"])
def test_ir_greater(dtype):
    r = dslc("ir", EXAMPLES / "greater.py", "--op", "greater", "--dtype", dtype)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert r.stdout.rstrip("\n") == _api_ir("greater", dtype).rstrip("\n")
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith(
        f"func @greater(%x1: tensor<*, {dtype}>, %x2: tensor<*, {dtype}>) -> (y: tensor<*, bool>) "
        f"attributes {{dtype = {dtype}, broadcast = true, bind = {{}}, tiling_key = 0}}"
    ), lines[0]
    assert [line.split(" loc(")[0].strip() for line in lines[1:]] == [
        '%0 = cmp %x1, %x2 {pred = "gt"} : tensor<*, bool>',
        "return %0",
        "}",
    ]


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
    want = _api_ir("quantize_add_layer_norm", "bf16", quant_mode=mode, additional_output=True)
    assert r.stdout.rstrip("\n") == want.rstrip("\n")
    head = r.stdout.splitlines()[0]
    assert head.startswith(
        "func @quantize_add_layer_norm(%x1: tensor<..., C, bf16>, %x2: tensor<..., C, bf16>, "
    )
    bind = f'bind = {{quant_mode = "{mode}", additional_output = true, with_zero_points = false}}'
    assert bind in head, head
    assert "static." not in r.stdout  # the static attributes are resolved
    # per_tensor scales by the Scalar 'scale', the others by the row 'scales'
    body = r.stdout.split("\n", 1)[1]
    assert ("%scale " in body or "%scale\n" in body or "%scale," in body) == (mode == "per_tensor")
    assert ("%scales" in body) == (mode != "per_tensor")
    assert ("div " in body) == (mode == "per_channel")
    assert "%zero_point" not in body  # with_zero_points=false


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
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    assert r.stderr == "dslc: error: unknown dtype 'f64' (known: f16, bf16, f32, i8, i32, u8, bool)\n"


def test_missing_file_is_user_error():
    r = dslc("ir", EXAMPLES / "does_not_exist.py")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    assert r.stderr == f"dslc: error: no such file: {EXAMPLES / 'does_not_exist.py'}\n"


def test_bad_usage_exit_2():
    r = dslc("ir", EXAMPLES / "greater.py", "--no-such-option")
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and r.stderr.startswith("usage: dslc ")
    assert r.stderr.endswith("dslc: error: unrecognized arguments: --no-such-option\n"), r.stderr
    r = dslc("no-such-command")
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "invalid choice: 'no-such-command'" in r.stderr and r.stderr.startswith("usage: dslc"), r.stderr
