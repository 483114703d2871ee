"""The CLI/API rough edges of issue 18: duplicate operator names, the reserved names of the API,
unknown targets, tracebacks of a bad operator in plain Python, --vector-path and --cann,
declared input ranges, and the profile verdict."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import dsl
from dsl.cli import main

ROOT = Path(__file__).resolve().parent.parent
SILU = ROOT / "examples" / "silu.py"
ADAMW = ROOT / "examples" / "apply_adam_w.py"
HEAD = "import dsl\nfrom dsl import Tensor, Scalar, f16, f32\n\n"


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    return path


def load(path: Path) -> dict:
    namespace = {"__name__": path.stem}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


# -- 10: two operators of a file with one name ---------------------------------------------------------

SAME_NAME = """
@dsl.op(dtypes=(f32,))
def twice(x: Tensor):
    return x * 2


@dsl.op(dtypes=(f32,), name="twice")
def thrice(x: Tensor):
    return x * 3
"""

SAME_FUNCTION = """
@dsl.op(dtypes=(f32,))
def scale(x: Tensor):
    return x * 2


@dsl.op(dtypes=(f32,))
def scale(x: Tensor):
    return x * 3
"""


@pytest.mark.parametrize(
    "body, where, line, caret",
    [
        (SAME_NAME, "9:29", '    @dsl.op(dtypes=(f32,), name="twice")', " " * 28 + "^"),
        (SAME_FUNCTION, "10:5", "    def scale(x: Tensor):", " " * 4 + "^"),
    ],
    ids=["name=", "def"],
)
@pytest.mark.parametrize("command", [["compile", "-o", "OUT"], ["ir"], ["run", "--shape", "8"]])
def test_two_operators_with_one_name_are_an_error(tmp_path, capsys, body, where, line, caret, command):
    path = write(tmp_path, "dup.py", body)
    name = "twice" if body is SAME_NAME else "scale"
    first = 5  # the def line of the first operator
    argv = [command[0], path, *[str(tmp_path / "out") if a == "OUT" else a for a in command[1:]]]
    code, out, err = run(argv, capsys)
    assert (code, out) == (1, "")
    assert err == (
        f"dslc: {path}:{where}: error: operator name '{name}' is already used by the operator at line {first}; "
        "the operators of a file need different names (rename the function or pass @dsl.op(name=...))\n"
        f"{line}\n    {caret}\n"
    )
    assert not (tmp_path / "out").exists()


# -- 11: names the API reserves; vector_path= and cann= ------------------------------------------------

RESERVED = (
    "is reserved: it is a keyword argument of op.simulate/op.profile/op.compile (reserved names: target, "
    "cores, project, dtype, vector_path, sku, l2, cann); rename it"
)


def test_an_input_named_target_is_a_dsl_error(tmp_path, capsys):
    path = write(
        tmp_path,
        "shift.py",
        "@dsl.op(dtypes=(f32,))\ndef shift(x: Tensor, target: Tensor):\n    return x + target\n",
    )
    code, _, err = run(["ir", path], capsys)
    assert code == 1
    assert err == (
        f"dslc: {path}:5:22: error: input name 'target' {RESERVED}\n"
        "    def shift(x: Tensor, target: Tensor):\n" + " " * 25 + "^\n"
    )
    with pytest.raises(dsl.DslError) as info:
        load(
            write(
                tmp_path, "attr.py", "@dsl.op\ndef f(x: Tensor, *, sku: float = 1.0):\n    return x * sku\n"
            )
        )
    assert (info.value.lineno, info.value.offset, info.value.msg) == (
        5,
        21,
        f"attribute name 'sku' {RESERVED}",
    )


@pytest.fixture(scope="module")
def relu2(tmp_path_factory):
    path = tmp_path_factory.mktemp("relu2") / "relu2.py"
    path.write_text(HEAD + "@dsl.op(dtypes=(f16,))\ndef relu2(x: Tensor):\n    return dsl.relu(x * 2)\n")
    return load(path)["relu2"]


def test_vector_path_and_cann_keywords(relu2, tmp_path):
    x = np.linspace(-3, 3, 1000).astype(np.float16)
    want = relu2.reference(x)
    for kw in ({"vector_path": "membase"}, {"vector_path": "auto", "cann": "9.1"}):
        np.testing.assert_array_equal(relu2.simulate(x, **kw), want)
    np.testing.assert_array_equal(relu2.simulate(x, target="ascend950", vector_path="regbase"), want)
    with pytest.raises(
        dsl.ArgumentError, match=r"^vector_path='regbase' is for ascend950: ascend910b is MemBase only$"
    ):
        relu2.compile(out_dir=tmp_path, vector_path="regbase")
    with pytest.raises(
        dsl.ArgumentError, match=r"^unknown vector_path 'simd' \(known: auto, membase, regbase\)$"
    ):
        relu2.profile(x, vector_path="simd")
    with pytest.raises(
        dsl.ArgumentError,
        match=r"^CANN 8\.5 does not support ascend950 \(asc-devkit 8\.5 has no ascend950 implementation\); "
        r"use 9\.0 or later$",
    ):
        relu2.compile(target="ascend950", out_dir=tmp_path, cann="8.5")
    with pytest.raises(dsl.ArgumentError, match=r"^unknown CANN release '8\.0' \(known: 8\.5, 9\.0, 9\.1\)$"):
        relu2.simulate(x, cann="8.0")


# -- 12: an unknown target ----------------------------------------------------------------------------


@pytest.mark.parametrize("call", ["compile", "simulate", "profile"])
@pytest.mark.parametrize("target", ["npu9", ["ascend910b"]])
def test_unknown_target_is_an_argument_error(relu2, tmp_path, call, target):
    x = np.ones(8, np.float16)
    args = {"compile": ((), {"out_dir": tmp_path}), "simulate": ((x,), {}), "profile": ((x,), {})}[call]
    with pytest.raises(dsl.ArgumentError) as info:
        getattr(relu2, call)(*args[0], target=target, **args[1])
    assert str(info.value) == f"unknown target {target!r} (known targets: ascend910b, ascend950)"
    assert not any(tmp_path.iterdir())


# -- 13: a bad operator imported in plain Python -------------------------------------------------------


def test_plain_python_shows_the_dsl_error_without_frontend_frames(tmp_path):
    path = write(
        tmp_path, "bad.py", "@dsl.op(dtypes=(f32,))\ndef bad(x: Tensor):\n    y = x.foo\n    return y\n"
    )
    res = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 1
    lines = res.stderr.splitlines()
    assert lines[-4:] == [
        f'  File "{path}", line 6',
        "    y = x.foo",
        "        ^",
        "dsl.errors.DslError: attribute '.foo' is not available; the attributes are x.dtype and w.T (in a @ w.T)",
    ]
    assert (
        len(lines) <= 10
    ), res.stderr  # Traceback, the @dsl.op line, the raise in dsl/operator.py, the error
    assert "frontend" not in res.stderr and "lower.py" not in res.stderr


# -- CLI: --vector-path and --cann ---------------------------------------------------------------------


@pytest.mark.parametrize("command", [["compile", "-o", "OUT"], ["run"], ["profile"]])
@pytest.mark.parametrize(
    "options, message",
    [
        (
            ["--cann", "8.5", "--target", "ascend950"],
            "--cann 8.5 does not support --target ascend950 (CANN 8.5 has no ascend950 implementation); "
            "use --cann 9.0 or later",
        ),
        (
            ["--vector-path", "regbase"],
            "--vector-path regbase is for --target ascend950; ascend910b is MemBase only",
        ),
        (["--cann", "9.2"], "argument --cann: invalid choice: '9.2' (choose from '8.5', '9.0', '9.1')"),
        (
            ["--vector-path", "simd"],
            "argument --vector-path: invalid choice: 'simd' (choose from 'auto', 'membase', 'regbase')",
        ),
    ],
)
def test_backend_option_usage_errors_exit_2(tmp_path, capsys, command, options, message):
    argv = [command[0], SILU, *[str(tmp_path / "out") if a == "OUT" else a for a in command[1:]], *options]
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"usage: dslc {command[0]} [-h]")
    assert err.endswith(f"\ndslc: error: {message}\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", [["compile", "-o", "OUT"], ["run"], ["profile"]])
def test_regbase_on_950_runs_every_command(tmp_path, capsys, command):
    """silu's tile is one vector function on ascend950 (issue 19): compile, run and profile take it."""
    argv = [command[0], SILU, *[str(tmp_path / "out") if a == "OUT" else a for a in command[1:]]]
    code, out, err = run(argv + ["--target", "ascend950", "--vector-path", "regbase"], capsys)
    assert code == 0, err
    if command[0] == "compile":
        kernel = next((tmp_path / "out").glob("*/op_kernel/*.cpp")).read_text()
        assert "asc_vf_call<" in kernel and "__simd_vf__ static inline void" in kernel
    if command[0] == "run":
        assert "matches the reference" in out


def test_regbase_asked_for_a_row_kernel_it_cannot_write_is_an_error(tmp_path, capsys):
    src = tmp_path / "row_scale.py"
    src.write_text(textwrap.dedent("""\
            import dsl
            from dsl import Tensor, f16

            @dsl.op(dtypes=(f16,))
            def row_scale(x: Tensor[..., "C"], s: Tensor[..., 1]):
                return x * s
            """))
    code, out, err = run(
        [
            "compile",
            str(src),
            "-o",
            str(tmp_path / "out"),
            "--target",
            "ascend950",
            "--vector-path",
            "regbase",
        ],
        capsys,
    )
    assert (code, out) == (1, "")
    assert "vector_path='regbase' was asked for, but RegBase loads per-row inputs as f32 only" in err
    assert "row_scale.py:5:1: error: @row_scale" in err
    assert not (tmp_path / "out").exists()


def test_regbase_asked_for_a_row_kernel_writes_its_vector_function(tmp_path, capsys):
    code, out, err = run(
        [
            "compile",
            str(ROOT / "examples" / "rms_norm.py"),
            "-o",
            str(tmp_path / "out"),
            "--target",
            "ascend950",
        ]
        + ["--vector-path", "regbase"],
        capsys,
    )
    assert code == 0, err
    text = (tmp_path / "out" / "rms_norm" / "op_kernel" / "rms_norm.cpp").read_text()
    assert "asc_vf_call<RmsNormVF" in text and "DIST_FIRST_ELEMENT_B32" in text


def test_cann_defaults_to_the_oldest_release_of_the_target(tmp_path, capsys):
    """8.5 spellings on 910B, 9.x spellings on 950 (asc-devkit 8.5 has no 950 implementation)."""
    threshold = ROOT / "examples" / "threshold.py"  # a Scalar compare: CompareScalar, 9.1's Compares
    found = {}
    for target, cann in (
        ("ascend910b", None),
        ("ascend950", None),
        ("ascend910b", "9.1"),
        ("ascend950", "9.1"),
    ):
        out = tmp_path / f"{target}-{cann}"
        argv = ["compile", threshold, "-o", out, "--target", target] + (["--cann", cann] if cann else [])
        argv += ["--vector-path", "membase"] if target == "ascend950" else []  # the MemBase spellings
        code, _, err = run(argv, capsys)
        assert code == 0, err
        host = (out / "threshold" / "op_host" / "threshold.cpp").read_text()
        kernel = (out / "threshold" / "op_kernel" / "threshold.cpp").read_text()
        found[target, cann] = (
            "SetSimdNumBlocks(" in host,
            "SetBlockDim(" in host,
            "Compares(" in kernel,
            "CompareScalar(" in kernel,
        )
    assert found == {
        ("ascend910b", None): (False, True, False, True),
        ("ascend950", None): (True, False, False, True),
        ("ascend910b", "9.1"): (True, False, True, False),
        ("ascend950", "9.1"): (True, False, True, False),
    }


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_run_takes_cann_and_vector_path(capsys, target):
    threshold = ROOT / "examples" / "threshold.py"
    argv = [
        "run",
        threshold,
        "--shape",
        "3000",
        "--target",
        target,
        "--cann",
        "9.1",
        "--vector-path",
        "membase",
    ]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.splitlines()[-1] == "threshold[f16] matches the reference"


# -- 17: declared input ranges -------------------------------------------------------------------------


def test_adam_w_declares_its_ranges_and_a_bare_run_has_no_nan(capsys):
    code, out, err = run(["run", ADAMW, "--dtype", "bf16", "--shape", "3000"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert "; v: bf16 uniform in [0, 2) with 1/16 exact zeros (declared);" in lines[0]
    assert "beta1_power, beta2_power: bf16 uniform in [0.1, 0.9) (declared)" in lines[0]
    assert "var, m, grad: bf16 uniform in [-2, 2) with 1/16 exact zeros;" in lines[0]
    assert lines[1] == (
        "(declared: the range the operator's @dsl.op(ranges=...) gives; --range NAME=LO,HI overrides it)"
    )
    assert "NaN" not in out
    assert lines[-1] == "apply_adam_w[bf16] matches the reference"


def test_range_option_overrides_a_declared_range():
    from backends.ascendc.verify import draw_inputs
    from dsl.loader import load_operators

    op = load_operators(ADAMW)["apply_adam_w"]
    assert op.ranges["v"] == (0.0, 2.0)
    rng = np.random.default_rng(0)
    arrays, notes = draw_inputs(
        op, dsl.f32, op.check_attrs({}), [(4096,)], rng, ranges={"v": (5, 6), None: (-1, 1)}
    )
    v, lr = arrays[2], arrays[5]
    assert v.min() >= 5 and notes["v"] == "f32 uniform in [5, 6)"
    assert 1e-4 <= lr.min() and notes["lr"] == "f32 uniform in [0.0001, 0.01) (declared)"
    assert notes["var"] == "f32 uniform in [-1, 1) with 1/16 exact zeros"
    arrays, _ = draw_inputs(op, dsl.f32, op.check_attrs({}), [(4096,)], np.random.default_rng(0))
    assert arrays[2].min() >= 0 and np.count_nonzero(arrays[2] == 0) > 0  # [0, 2) keeps the zeros


@pytest.mark.parametrize(
    "ranges, message",
    [
        ('{"w": (0, 1)}', "@dsl.op(ranges=...): 'w' is not an input (inputs: x, y)"),
        ('{"x": (1, 0)}', "@dsl.op(ranges=...): input 'x' needs finite (lo, hi) with lo < hi, got (1, 0)"),
        (
            '{"x": (0, float("inf"))}',
            "@dsl.op(ranges=...): input 'x' needs finite (lo, hi) with lo < hi, got (0, inf)",
        ),
        (
            '[("x", 0, 1)]',
            '@dsl.op(ranges=...) takes a dict of input name -> (lo, hi), e.g. ranges={"v": (0, 2)}, got list',
        ),
    ],
)
def test_bad_range_declarations_are_dsl_errors(tmp_path, ranges, message):
    path = write(
        tmp_path,
        "r.py",
        f"@dsl.op(dtypes=(f32,), ranges={ranges})\ndef f(x: Tensor, y: Scalar):\n    return x * y\n",
    )
    with pytest.raises(dsl.DslError) as info:
        load(path)
    assert (info.value.lineno, info.value.offset, info.value.msg) == (4, 31, message)


# -- 15: the profile verdict ---------------------------------------------------------------------------


def _profile(**kw):
    from backends.ascendc.profile import Profile

    core = {"core": 3, "finish_us": 40.0, "S": 1.0, "V": 10.0, "MTE2": 37.2, "MTE3": 20.0}
    core.update(vector_ops=5, barriers=2, wait_us=1.0)
    fields = dict(predicted_us=44.0, roofline_us=30.0, launch_us=4.0, floor_us=35.0, per_core=[core])
    fields.update(kw)
    return Profile(
        dma={"MTE2": 10, "MTE3": 5},
        bytes={},
        ub_peak_bytes=0,
        sync_count=0,
        tiling_key=0,
        block_dim=1,
        **fields,
    )


def test_profile_verdict_names_the_limiting_pipe():
    p = _profile()
    assert p.limit == "MTE2"
    assert str(p).splitlines()[0] == "MTE2-bound: MTE2 is busy 93% of the slowest core's 40.00 us (block 3)"
    tiny = _profile(
        predicted_us=4.5,
        launch_us=4.0,
        per_core=[dict(p.per_core[0], finish_us=0.5, S=0.05, V=0.4, MTE2=0.1, MTE3=0.1)],
    )
    assert tiny.limit == "launch"
    assert str(tiny).splitlines()[0] == (
        "launch-bound: the launch overhead is 89% of the predicted 4.50 us; the slowest core (block 3) keeps V "
        "busy 80% of its 0.50 us"
    )
    hbm = _profile(hbm_floor_us=60.0, predicted_us=64.0)
    assert hbm.limit == "HBM"
    assert (
        str(hbm)
        .splitlines()[0]
        .startswith(
            "HBM-bound: the HBM traffic after the L2 plan takes 60.00 us, longer than the slowest core's 40.00 us"
        )
    )


def test_cli_profile_prints_the_verdict_first_and_constants_only_when_verbose(capsys):
    code, out, err = run(["profile", SILU, "--shape", "3000000", "--dtype", "f32"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("inputs (seed 0)")
    assert lines[1].split(":")[0] in ("MTE2-bound", "MTE3-bound", "V-bound")
    assert "% of the slowest core's " in lines[1]
    assert sum("bound " in line for line in lines[2:]) == 1  # one bound, not a roofline too
    assert "roofline" not in out and "model constants" not in out and len(lines) <= 8
    assert lines[-1].endswith("(--verbose: its constants)")
    code, verbose, _ = run(["profile", SILU, "--shape", "3000000", "--dtype", "f32", "--verbose"], capsys)
    assert code == 0
    assert verbose.startswith(out.replace(" (--verbose: its constants)", ""))
    assert "HBM roofline " in verbose and "    launch_s = 2e-06: " in verbose


def test_a_bare_run_of_an_op_with_two_named_dims_draws_rows(capsys):
    """Tensor["R", "C"] inputs: without --shape, rows of 8 in front of the 4096 elements."""
    code, out, err = run(["run", ROOT / "examples" / "bias_gelu.py"], capsys)
    assert code == 0, err
    assert "bias_gelu[f16] matches the reference" in out


def test_run_into_a_closed_pipe_is_not_an_error():
    """`dslc run ... | head -1`: the reader leaves early; no 'broken pipe' error, status 141."""
    script = (
        "import sys; from dsl.cli import main; "
        f"sys.exit(main(['run', {str(ROOT / 'examples' / 'rms_norm.py')!r}]))"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141
    assert "broken pipe" not in err and "Traceback" not in err, err
