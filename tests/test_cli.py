from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dsl.cli import main

ROOT = Path(__file__).resolve().parent.parent
ADAMW = ROOT / "examples" / "apply_adam_w.py"


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ir_prints_one_specialization(capsys):
    code, out, err = run(["ir", str(ADAMW), "--dtype", "f32", "--attr", "amsgrad=true"], capsys)
    assert code == 0, err
    assert "bind = {amsgrad = true, maximize = false}, tiling_key = 1" in out
    assert "max %max_grad_norm" in out


def test_ir_then_opt_roundtrips(tmp_path, capsys):
    code, out, _ = run(["ir", str(ADAMW), "--dtype", "bf16"], capsys)
    assert code == 0
    path = tmp_path / "a.ir"
    path.write_text(out)
    code, out2, err = run(["opt", str(path), "--passes", ""], capsys)
    assert code == 0, err
    assert out2 == out
    code, out3, err = run(["opt", str(path), "--passes", "canonicalize", "--print-ir-after-all"], capsys)
    assert code == 0
    assert err.startswith("// -----// IR Dump After canonicalize //----- //\n")
    assert err.split("\n", 1)[1] == out3  # the dump is the IR the pipeline printed
    # the five equal constants 1.0 of AdamW's source (beta1 - 1, beta2 - 1, 1 - lr * wd, b2p - 1,
    # b1p - 1) become one (CSE); nothing else changes
    assert out.count("= const {value = 1.0} : scalar<bf16>") == 5
    assert out3.count("= const {value = 1.0} : scalar<bf16>") == 1
    assert len(out3.splitlines()) == len(out.splitlines()) - 4


@pytest.mark.parametrize(
    "argv, message",
    [
        (["ir", "missing.py"], "no such file: missing.py"),
        (["ir", str(ADAMW), "--attr", "nope=1"], "has no attribute 'nope'"),
        (["ir", str(ADAMW), "--dtype", "i8"], "not generated for i8"),
        (["ir", str(ADAMW), "--dtype", "f64"], "unknown dtype 'f64'"),
        (["ir", str(ADAMW), "--op", "other"], "has no operator 'other'"),
        (
            ["opt", str(ROOT / "tests" / "passes" / "tile" / "loads_and_stores.ir"), "--passes", "bogus"],
            "dslc: error: unknown pass 'bogus' (known: canonicalize, chunk-rows, compare-f16, "
            "double-buffer, expand-math, form-vector-functions, hoist-invariants, hoist-scalars, insert-sync, "
            "legalize-casts, lower-bools, materialize-bools, native-f16, plan-buffers, plan-rows, "
            "promote-precision, row-forms, schedule-vector, select-vector-path, specialize, split-cores, split-cube-vector, tile)",
        ),
        (["opt", str(ADAMW)], "apply_adam_w.py:1:1: error: unexpected '\"\"' (expected one of: FUNC)"),
    ],
)
def test_user_errors_exit_1_without_traceback(argv, message, capsys):
    code, out, err = run(argv, capsys)
    assert code == 1
    assert message in err
    assert "Traceback" not in err


def test_bad_usage_exits_2(capsys):
    code, _, err = run(["ir"], capsys)
    assert code == 2
    assert err.endswith("dslc: error: the following arguments are required: file\n")
    code, _, err = run(["ir", str(ADAMW), "--attr", "novalue"], capsys)
    assert code == 2
    assert err.endswith("dslc: error: argument --attr: expected key=value, got 'novalue'\n")


def test_dsl_error_in_user_file_points_at_line(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import dsl\nfrom dsl import Tensor\n\n@dsl.op\ndef f(x: Tensor):\n    return x[0]\n")
    code, _, err = run(["ir", str(bad)], capsys)
    assert code == 1
    assert f"{bad}:6:12: error: indexing and slicing are not allowed" in err
    assert "    return x[0]\n               ^" in err


def test_opt_parse_error_points_at_ir_line(tmp_path, capsys):
    bad = tmp_path / "bad.ir"
    bad.write_text(
        "func @f(%x: tensor<*, f32>) -> (y: tensor<*, f32>) {\n  %0 = exp %q : tensor<*, f32>\n  return %0\n}\n"
    )
    code, _, err = run(["opt", str(bad)], capsys)
    assert code == 1 and "2:" in err and "undefined value %q" in err


def test_console_script_is_installed():
    r = subprocess.run(
        [sys.executable, "-m", "dsl.cli", "ir", str(ADAMW), "--dtype", "f16"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("func @apply_adam_w(")


def test_run_and_profile_usage_errors(capsys):
    silu = ROOT / "examples" / "silu.py"
    code, _, err = run(["run", str(silu), "--shape", "4,a"], capsys)
    assert code == 2
    assert err.endswith(
        "dslc: error: argument --shape: expected sizes separated by commas, such as 4096 or 32,128, got '4,a'\n"
    )
    code, _, err = run(["run", str(silu), "--shape", "4", "--shape", "5"], capsys)
    assert code == 2
    assert err.endswith(
        "dslc: error: give one --shape for all tensor inputs or one per tensor input (1), got 2\n"
    )
    code, _, err = run(["profile", str(silu), "--dtype", "i8"], capsys)
    assert code == 1 and "not generated for i8" in err


def test_compile_goes_on_past_an_unsupported_operator(tmp_path, capsys):
    src = tmp_path / "multi.py"
    src.write_text(
        "import dsl\nfrom dsl import Tensor\n\n@dsl.op\ndef good_one(x: Tensor):\n    return x * 2\n\n"
        '@dsl.op\ndef row_one(x: Tensor[..., "C"], g: Tensor["C"]):\n    return x * dsl.sum(g, axis=-1)\n\n'
        "@dsl.op\ndef good_two(x: Tensor):\n    return x + 1\n"
    )
    code, out, err = run(["compile", str(src), "-o", str(tmp_path / "out")], capsys)
    assert code == 1
    assert f"{src}:10:16: error: this value has shape [1], which the row backend does not take" in err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["good_one", "good_two"]


def test_compile_quantize_add_layer_norm_as_the_readme_lists_it(tmp_path, capsys):
    """Issue 7: a new user's `dslc compile examples/quantize_add_layer_norm.py` writes the project."""
    code, out, err = run(
        ["compile", str(ROOT / "examples" / "quantize_add_layer_norm.py"), "-o", str(tmp_path)], capsys
    )
    assert code == 0, err
    assert "quantize_add_layer_norm (36 kernel variants: dtypes f16, f32, bf16 x tiling keys 0, 1, 2" in out
    kernel = (tmp_path / "quantize_add_layer_norm" / "op_kernel" / "quantize_add_layer_norm.cpp").read_text()
    assert "ReduceSum(" in kernel and "quantize_add_layer_norm.py:" in kernel


def test_explain_prints_the_row_ledger(tmp_path, capsys):
    """--explain on a row operator: buffers by class, the UB formula in C, rows per step."""
    code, out, err = run(
        ["compile", str(ROOT / "examples" / "rms_norm.py"), "-o", str(tmp_path), "--explain"], capsys
    )
    assert code == 0, err
    assert "Traceback" not in err
    lines = out.splitlines()
    head = lines.index(
        "@rms_norm (T = f16, tiling key 0): rows of C elements at a pitch of C rounded up to 16; a step of "
        "rowStep rows"
    )
    ledger = lines[head : head + 12]
    assert any(
        line.startswith("  b0: row    2 B x 2 slot(s) x rowStep x pitch    %x_t (rms_norm.py:15)")
        for line in ledger
    )
    # gamma resident in f16 (2 B), widened per step into the dead squares' row; the per-row rstd
    # (4 B) and its Brcb blocks (32 B per per-row element)
    assert any("%gamma_f32 (rms_norm.py:16) [column, widened per step]" in line for line in ledger)
    assert any(line.startswith("  b4: perrow 32 B") and "[Brcb blocks]" in line for line in ledger)
    # its f32 copy once per core instead (4 B per column) when that costs the step no rows: host tiling's
    # choice, shown per row length (issue 20 item 4)
    assert any(line.startswith("  wide:  4 B x pitch (resident)") for line in ledger)
    # the A2 bank-group pads, at most 480 B a buffer and the work area's 512 B (issue 20)
    assert any(line.startswith("  pads:  3872 B at most, fixed (UB bank groups") for line in ledger)
    assert (
        "  UB = pitch x 2 (+ 4 widened once) + scratch + pads + rowStep x (pitch x 12 + 8 x 36) <= 188160 B usable"
        in "\n".join(ledger)
    )
    assert (
        "  rows per step: C=1024: 14 (columns widened once), C=4096: 3 (columns widened once), "
        "C=8192: 1 (columns widened once), C=16384: none" in ledger
    )


@pytest.mark.parametrize(
    "argv,why",
    [
        ([], "MemBase: the target has no RegBase"),
        (
            ["--target", "ascend950"],
            "RegBase: 10 ops, 5 intermediates kept in registers",
        ),
        (["--target", "ascend950", "--vector-path", "membase"], "MemBase: asked for (vector_path='membase')"),
    ],
)
def test_explain_names_the_vector_path_and_its_reason(tmp_path, capsys, argv, why):
    """Issue 19 item 2: select-vector-path's choice per compute region, in --explain."""
    code, out, err = run(
        ["compile", str(ROOT / "examples" / "rms_norm.py"), "-o", str(tmp_path), "--explain", *argv], capsys
    )
    assert code == 0, err
    lines = out.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("@rms_norm (T = f16")]
    assert heads
    region = lines[heads[0] : next((i for i in range(heads[0] + 1, len(lines)) if lines[i].startswith("@")))]
    assert f"  vector path: {why}" in region


def test_an_internal_error_is_one_line_not_a_traceback(tmp_path, capsys, monkeypatch):
    import backends.ascendc.kernel.template as template

    def broken(*args, **kwargs):
        raise AssertionError("planted")

    monkeypatch.setattr(template.KernelText, "text", broken)
    assert main(["compile", str(ROOT / "examples" / "silu.py"), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "dslc: error: internal compiler error (AssertionError: planted); this is a bug in dslc"
    )
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "silu").exists()  # nothing left that looks complete
    monkeypatch.setenv("DSLC_TRACEBACK", "1")
    with pytest.raises(AssertionError, match="planted"):
        main(["compile", str(ROOT / "examples" / "silu.py"), "-o", str(tmp_path / "out")])
