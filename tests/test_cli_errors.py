"""The CLI's rough edges (issue 10): --version and --help, bad usage (exit 2, argparse style),
user errors (exit 1, one message naming the option and path, no traceback), every diagnostic
prefixed ``dslc:``, files with invalid operators, and the compile summary."""

from __future__ import annotations

import argparse
import importlib.metadata
import textwrap
from pathlib import Path

import pytest

from dsl.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
SILU = ROOT / "examples" / "silu.py"


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(
        "import dsl\nfrom dsl import Tensor, Scalar, f16, f32\n\n" + textwrap.dedent(body).lstrip("\n")
    )
    return path


# -- --version, --help ------------------------------------------------------------------------------


def test_version(capsys):
    code, out, err = run(["--version"], capsys)
    assert (code, out, err) == (0, f"dslc {importlib.metadata.version('dslc')}\n", "")


def _options(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from ((f"{name} {o}", a) for o, a in _options(sub))
        elif action.option_strings and not isinstance(
            action, (argparse._HelpAction, argparse._VersionAction)
        ):
            yield action.option_strings[-1], action


def test_every_option_has_help_and_states_its_default():
    seen = 0
    for name, action in _options(build_parser()):
        seen += 1
        assert action.help, f"{name} has no help text"
        if action.default not in (None, False):
            default = ",".join(action.default) if isinstance(action.default, list) else action.default
            assert (
                f"(default: {default or 'none'})" in action.help
            ), f"{name}: default {action.default!r} not shown"
    assert seen >= 25


def test_help_lists_exit_statuses_and_environment(capsys):
    code, out, _ = run(["run", "--help"], capsys)
    assert code == 0
    assert "exit status: 0 success, 1 user error (a message, no traceback), 2 bad usage." in out
    assert "DSLC_CACHE" in out and "DSLC_CACHE_MAX" in out and "DSLC_MAX_MEMORY" in out


# -- bad usage: exit 2, the subcommand's usage line, then one dslc: error: line --------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--shape", "-5"], "argument --shape: sizes must be >= 0, got '-5'"),
        (
            ["--shape", ""],
            "argument --shape: expected sizes separated by commas, such as 4096 or 32,128, got ''",
        ),
        (
            ["--shape", "2**40"],
            "argument --shape: expected sizes separated by commas, such as 4096 or 32,128, got '2**40'",
        ),
        (["--shape", "1,2,3,4,5,6,7,8,9"], "argument --shape: at most 8 dims, got 9 in '1,2,3,4,5,6,7,8,9'"),
        (["--cores", "0"], "argument --cores: expected a positive integer, got '0'"),
        (["--cores", "two"], "argument --cores: expected a positive integer, got 'two'"),
        (["--seed", "-1"], "argument --seed: expected an integer >= 0, got '-1'"),
        (["--range", "1,1"], "argument --range: expected finite bounds with LO < HI, got '1,1'"),
        (
            ["--range", "x=a,b"],
            "argument --range: expected LO,HI or NAME=LO,HI, such as -1,1 or x=0.1,4, got 'x=a,b'",
        ),
        (
            ["--max-memory", "lots"],
            "argument --max-memory: expected a size such as 4096, 512M or 2G, got 'lots'",
        ),
        (["--attr", "novalue"], "argument --attr: expected key=value, got 'novalue'"),
        (["--no-such-option"], "unrecognized arguments: --no-such-option"),
    ],
)
@pytest.mark.parametrize("command", ["run", "profile"])
def test_bad_usage_exits_2_argparse_style(command, argv, message, capsys):
    code, out, err = run([command, SILU, *argv], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"usage: dslc {command} [-h]")
    assert err.endswith(f"\ndslc: error: {message}\n")
    assert "Traceback" not in err


def test_bad_target_is_usage(capsys):
    code, _, err = run(["compile", SILU, "--target", "npu9"], capsys)
    assert code == 2
    assert err.splitlines()[-1].startswith("dslc: error: argument --target: invalid choice: 'npu9'")


def test_negative_range_bounds_need_no_equals_sign(monkeypatch, capsys):
    # "--range -1,1" is a value, not an option; stop before simulating (the memory check)
    code, _, err = run(["run", SILU, "--range", "-1,1", "--max-memory", "1"], capsys)
    assert code == 1 and "this run needs about" in err


def test_bad_memory_limit_in_environment_is_usage(monkeypatch, capsys):
    monkeypatch.setenv("DSLC_MAX_MEMORY", "lots")
    code, _, err = run(["run", SILU], capsys)
    assert code == 2
    assert err.startswith("usage: dslc run [-h]")
    assert err.endswith(
        "\ndslc: error: DSLC_MAX_MEMORY: expected a size such as 4096, 512M or 2G, got 'lots'\n"
    )


# -- user errors: exit 1, one message naming the option and the path ---------------------------------


def test_output_options_name_the_option_and_path(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("")
    cases = [
        (["compile", SILU, "-o", afile], f"dslc: error: -o {afile}: not a directory\n"),
        (
            ["compile", SILU, "-o", afile / "sub"],
            f"dslc: error: -o {afile}/sub: {afile} is not a directory\n",
        ),
        (
            ["compile", SILU, "-o", tmp_path / "out", "--dump-ir", afile],
            f"dslc: error: --dump-ir {afile}: not a directory\n",
        ),
        (["profile", SILU, "--trace", tmp_path], f"dslc: error: --trace {tmp_path}: is a directory\n"),
        (
            ["profile", SILU, "--trace", tmp_path / "no" / "t.json"],
            f"dslc: error: --trace {tmp_path}/no/t.json: no such directory: {tmp_path}/no\n",
        ),
        (["ir", tmp_path], f"dslc: error: {tmp_path} is a directory, not a Python file\n"),
        (["opt", tmp_path], f"dslc: error: {tmp_path}: is a directory\n"),
        (["ir", tmp_path / "missing.py"], f"dslc: error: no such file: {tmp_path}/missing.py\n"),
        (
            ["ir", SILU, "--dtype", ""],
            "dslc: error: unknown dtype '' (known: f16, bf16, f32, i8, i32, u8, bool)\n",
        ),
    ]
    for argv, expected in cases:
        code, out, err = run(argv, capsys)
        assert (code, out, err) == (1, "", expected), argv
    assert not (tmp_path / "out").exists()  # nothing written when an option is bad


def test_unwritable_output_directory_names_the_option_not_a_temporary(tmp_path, monkeypatch, capsys):
    import backends.ascendc.project as project

    out = tmp_path / "ro"
    out.mkdir()

    def refuse(prefix="", dir=None, **kw):  # what a read-only OUT does (as non-root)
        raise PermissionError(13, "Permission denied", str(Path(dir) / f"{prefix}k2j3h4"))

    monkeypatch.setattr(project.tempfile, "mkdtemp", refuse)
    code, out_text, err = run(["compile", SILU, "-o", out], capsys)
    assert code == 1 and out_text == ""
    assert err.splitlines()[-1] == f"dslc: error: -o {out}: cannot write into it: permission denied"
    assert "k2j3h4" not in err and "Errno" not in err and "Traceback" not in err
    assert list(out.iterdir()) == []


def test_frontend_and_ir_errors_carry_the_dslc_prefix(tmp_path, capsys):
    bad = write(
        tmp_path,
        "bad.py",
        """
        @dsl.op
        def f(x: Tensor):
            return x[0]
        """,
    )
    code, out, err = run(["ir", bad], capsys)
    assert (code, out) == (1, "")
    first, *excerpt = err.splitlines()
    assert first.startswith(f"dslc: {bad}:6:12: error: indexing and slicing are not allowed")
    assert excerpt == ["        return x[0]", "               ^"]
    ir = tmp_path / "bad.ir"
    ir.write_text(
        "func @f(%x: tensor<*, f32>) -> (y: tensor<*, f32>) {\n  %0 = exp %q : tensor<*, f32>\n  return %0\n}\n"
    )
    code, out, err = run(["opt", ir], capsys)
    assert (code, out) == (1, "")
    assert err == (
        f"dslc: {ir}:2:12: error: use of undefined value %q\n"
        "      %0 = exp %q : tensor<*, f32>\n"
        "               ^\n"
    )


def test_every_error_line_starts_with_dslc(tmp_path, capsys):
    attr = write(
        tmp_path,
        "attr.py",
        """
        @dsl.op
        def scale(x: Tensor, *, alpha: float = 1.0):
            return x * alpha
        """,
    )
    for argv in (
        ["ir", attr, "--attr", "nope=1"],
        ["ir", attr, "--dtype", "i8"],
        ["ir", attr, "--dtype", "f64"],
        ["ir", attr, "--op", "other"],
        ["run", attr, "--range", "q=0,1"],
    ):
        code, _, err = run(argv, capsys)
        assert code == 1
        assert err.startswith("dslc: error: ") and err.count("\n") == 1, (argv, err)
    _, _, err = run(["run", attr, "--range", "q=0,1"], capsys)
    assert err == "dslc: error: --range: scale has no input 'q' (inputs: x)\n"


# -- invalid operators in a file ---------------------------------------------------------------------

MULTI = """
@dsl.op
def aa_op(x: Tensor):
    return x * 2

@dsl.op
def my__op(x: Tensor):
    return x * 3

@dsl.op
def half_it(half: Tensor):
    return half * 0.5

@dsl.op
def zz_op(x: Tensor):
    return x + 1
"""


def test_compile_reports_every_invalid_operator_at_its_line_and_writes_the_others(tmp_path, capsys):
    src = write(tmp_path, "multi.py", MULTI)
    out = tmp_path / "out"
    code, stdout, err = run(["compile", src, "-o", out], capsys)
    assert code == 1
    assert err == (
        f"dslc: {src}:9:5: error: operator name 'my__op' must be snake_case ASCII (lower-case letters, "
        "digits, single '_' between them), e.g. 'apply_adam_w'; pass @dsl.op(name=...) to choose one\n"
        "    def my__op(x: Tensor):\n"
        "        ^\n"
        f"dslc: {src}:13:13: error: input 'half' is reserved (an Ascend C type) and would break the "
        "generated C++; rename it\n"
        "    def half_it(half: Tensor):\n"
        "                ^\n"
        "dslc: error: 2 of 4 operators failed (my__op, half_it); wrote the other 2\n"
    )
    assert stdout == (
        f"dslc: wrote {out}/aa_op (1 kernel variant: dtypes f32 x tiling key 0)\n"
        f"dslc: wrote {out}/zz_op (1 kernel variant: dtypes f32 x tiling key 0)\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["aa_op", "zz_op"]


def test_an_invalid_operator_does_not_block_the_others(tmp_path, capsys):
    src = write(tmp_path, "multi.py", MULTI)
    code, out, err = run(["run", src, "--op", "zz_op", "--shape", "64"], capsys)
    assert code == 0, err
    assert out.splitlines()[-1] == "zz_op[f32] matches the reference"
    code, out, err = run(["ir", src, "--op", "my__op"], capsys)
    assert (code, out) == (1, "")
    assert err.startswith(f"dslc: {src}:9:5: error: operator name 'my__op' must be snake_case")
    code, _, err = run(["ir", src], capsys)
    assert code == 1
    assert err == (
        f"dslc: error: {src} defines several operators (aa_op, my__op, half_it, zz_op); choose one with --op\n"
    )


def test_without_the_cli_an_invalid_operator_raises_at_decoration(tmp_path):
    import dsl
    from dsl.loader import load_operators

    src = write(tmp_path, "multi.py", MULTI)
    ops = load_operators(src)
    assert isinstance(ops["aa_op"], dsl.Operator)
    with pytest.raises(dsl.DslError, match="my__op"):
        ops["my__op"].reference  # noqa: B018 - any use raises the stored error
    assert not hasattr(ops["my__op"], "__wrapped__")  # protocol lookups do not raise it
    assert repr(ops["my__op"]).startswith("<dsl.InvalidOperator my__op: operator name 'my__op' must be")
    import importlib.util

    spec = importlib.util.spec_from_file_location("multi_plain", src)
    with pytest.raises(dsl.DslError) as e:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert (e.value.lineno, e.value.offset) == (9, 5)


# -- the compile summary: tiling key = static-attribute index (what dslc ir prints) -------------------


def test_compile_summary_tiling_keys_agree_with_ir(tmp_path, capsys):
    src = write(
        tmp_path,
        "flag.py",
        """
        @dsl.op(dtypes=(f16, f32))
        def scale_or_shift(x: Tensor, *, shift: bool = False):
            y = x + 1 if shift else x * 2
            return y
        """,
    )
    code, out, err = run(["compile", src, "-o", tmp_path / "out"], capsys)
    assert code == 0, err
    assert (
        out
        == f"dslc: wrote {tmp_path}/out/scale_or_shift (4 kernel variants: dtypes f16, f32 x tiling keys 0, 1)\n"
    )
    for value, key in (("false", 0), ("true", 1)):
        code, out, _ = run(["ir", src, "--dtype", "f32", "--attr", f"shift={value}"], capsys)
        assert code == 0 and f"tiling_key = {key}" in out


def test_verify_each_prints_a_summary_when_every_pass_agrees(tmp_path, capsys):
    from backends.ascendc.targets import get_target, select_vector_path_spelling
    from passes.pipelines import elementwise_pipeline

    src = write(
        tmp_path,
        "flag.py",
        """
        @dsl.op(dtypes=(f16, f32))
        def scale_or_shift(x: Tensor, *, shift: bool = False):
            y = x + 1 if shift else x * 2
            return y
        """,
    )
    code, out, err = run(["compile", src, "-o", tmp_path / "out", "--verify-each"], capsys)
    assert code == 0, err
    passes = [
        p.spelling()
        for p in elementwise_pipeline(
            get_target("ascend910b").ub_usable_bytes,
            select_vector_path_spelling(get_target("ascend910b"), "auto"),
            stagger=get_target("ascend910b").ub_bank_stagger,
        )
    ]
    # each pass: two static combinations x one output compared, for each of two dtypes
    assert out.splitlines()[1] == (
        f"dslc: --verify-each: scale_or_shift: the IR after each of {len(passes)} passes ({', '.join(passes)}) "
        f"matches the reference for f16, f32 on 2 static-attribute combinations ({len(passes) * 2 * 2} output "
        "comparisons)"
    )


def test_uncreatable_output_directory(tmp_path, monkeypatch, capsys):
    out = tmp_path / "new"

    def refuse(self, *a, **k):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    code, _, err = run(["compile", SILU, "-o", out], capsys)
    assert code == 1
    assert err.splitlines()[-1] == f"dslc: error: -o {out}: cannot create it: permission denied"
