"""dslc run / profile (issue 10): what inputs are drawn (signs and zeros by default, --range,
--seed, said in the output), NaN-aware results, the memory check before anything is allocated,
empty and 0-d shapes, and the profile ratio for tiny inputs."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

import dsl
from backends.ascendc.verify import draw_inputs
from dsl.cli import main, run_memory_bytes
from dsl.loader import load_operators

ROOT = Path(__file__).resolve().parent.parent
LEAKY = ROOT / "examples" / "leaky_relu.py"
SILU = ROOT / "examples" / "silu.py"


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(
        "import dsl\nfrom dsl import Tensor, Scalar, f16, f32, i32, u8\n\n" + textwrap.dedent(body)
    )
    return path


MIXED = """
@dsl.op(dtypes=(f32,))
def mixed(x: Tensor, k: Tensor[i32], q: Tensor[u8], s: Scalar):
    y = x * s + dsl.cast(k, f32) + dsl.cast(q, f32)
    return y
"""


# -- what is drawn -----------------------------------------------------------------------------------


def test_default_inputs_cover_negative_zero_and_positive(tmp_path):
    op = load_operators(write(tmp_path, "mixed.py", MIXED))["mixed"]
    arrays, notes = draw_inputs(op, dsl.f32, op.check_attrs({}), [(4096,)], np.random.default_rng(0))
    x, k, q, s = arrays
    assert (x < 0).any() and (x == 0).any() and (x > 0).any()
    assert 0.03 < (x == 0).mean() < 0.1 and x.min() >= -2 and x.max() < 2
    assert (k < 0).any() and (k == 0).any() and (k > 0).any() and k.min() >= -8 and k.max() <= 7
    assert q.min() == 0 and q.max() == 15
    assert s.shape == (1,)
    assert notes == {
        "x": "f32 uniform in [-2, 2) with 1/16 exact zeros",
        "k": "i32 integers in [-8, 7]",
        "q": "u8 integers in [0, 15]",
        "s": "f32 uniform in [-2, 2) with 1/16 exact zeros",
    }


def test_ranges_per_input_and_for_all(tmp_path):
    op = load_operators(write(tmp_path, "mixed.py", MIXED))["mixed"]
    ranges = {None: (-1.0, 1.0), "x": (0.5, 4.0), "q": (250, 300)}
    arrays, notes = draw_inputs(op, dsl.f32, {}, [(2048,)], np.random.default_rng(1), ranges=ranges)
    x, k, q, _ = arrays
    assert x.min() >= 0.5 and x.max() < 4 and not (x == 0).any()
    assert set(np.unique(k)) == {-1, 0}
    assert q.min() >= 250 and q.max() == 255  # clipped to what u8 holds
    assert notes["x"] == "f32 uniform in [0.5, 4)" and notes["k"] == "i32 integers in [-1, 0]"
    assert (
        notes["q"] == "u8 integers in [250, 255]"
        and notes["s"] == "f32 uniform in [-1, 1) with 1/16 exact zeros"
    )
    with pytest.raises(
        dsl.ArgumentError, match=r"^--range: no i32 value lies in \[0.2, 0.8\) for input 'k'$"
    ):
        draw_inputs(op, dsl.f32, {}, [(8,)], np.random.default_rng(1), ranges={"k": (0.2, 0.8)})


def test_seed_decides_the_inputs(tmp_path):
    op = load_operators(write(tmp_path, "mixed.py", MIXED))["mixed"]

    def x(seed):
        return draw_inputs(op, dsl.f32, {}, [(256,)], np.random.default_rng(seed))[0][0]

    assert np.array_equal(x(5), x(5)) and not np.array_equal(x(5), x(6))


def test_run_says_what_it_drew(capsys):
    code, out, err = run(["run", LEAKY, "--shape", "1000", "--seed", "7"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "inputs (seed 7): x: f16 uniform in [-2, 2) with 1/16 exact zeros"
    assert lines[1] == "y: max abs err 0, max rel err 0 (exact) -> ok"
    assert lines[-1] == "leaky_relu[f16] matches the reference"
    code, out, err = run(["run", LEAKY, "--shape", "1000", "--range", "x=0.5,1"], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "inputs (seed 0): x: f16 uniform in [0.5, 1)"


SQRT = """
@dsl.op(dtypes=(f32,))
def root(x: Tensor):
    return dsl.sqrt(x)
"""


def test_nan_from_outside_the_domain_is_compared_nan_aware_and_said(tmp_path, capsys):
    src = write(tmp_path, "root.py", SQRT)
    op = load_operators(src)["root"]
    (x,), _ = draw_inputs(op, dsl.f32, {}, [(4096,)], np.random.default_rng(0))
    negatives = int((x < 0).sum())
    assert negatives > 1000
    code, out, err = run(["run", src], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert re.fullmatch(
        rf"y: max abs err \S+, max rel err \S+ \((exact|approx)\) -> ok \({negatives} of 4096 reference values are NaN/inf, "
        r"compared NaN-aware\)",
        lines[1],
    ), lines[1]
    assert lines[2] == (
        "note: NaN/inf come from inputs outside a function's domain (sqrt or log of a negative, division by 0); "
        "--range LO,HI or --range NAME=LO,HI draws from a narrower range"
    )
    assert lines[-1] == "root[f32] matches the reference"
    code, out, _ = run(["run", src, "--range", "0,4"], capsys)
    assert (
        code == 0
        and "NaN" not in out
        and out.splitlines()[0] == "inputs (seed 0): x: f32 uniform in [0, 4) with 1/16 exact zeros"
    )


def test_nan_compare_reports_finite_relative_error():
    nan = np.float32("nan")
    c = dsl.precision.compare(np.array([nan, 1.0], np.float32), np.array([nan, 1.0], np.float32))
    assert c.ok and c.max_rel == 0.0 and c.max_abs == 0.0
    c = dsl.precision.compare(np.array([1.0, 1.0], np.float32), np.array([nan, 1.0], np.float32))
    assert not c.ok and c.max_rel == np.inf


# -- the memory check ------------------------------------------------------------------------------


@pytest.fixture
def no_draw(monkeypatch):
    """Fail if the run gets as far as drawing inputs (the check must come first)."""
    import backends.ascendc.verify as verify

    def refuse(*a, **k):
        raise AssertionError("inputs were drawn")

    monkeypatch.setattr(verify, "draw_inputs", refuse)
    monkeypatch.delenv("DSLC_MAX_MEMORY", raising=False)


def _need(shape: int) -> str:
    from dsl.sizes import format_size

    op = load_operators(SILU)["silu"]
    return format_size(run_memory_bytes(op, dsl.f16, op.check_attrs({}), [(shape,)]))


def test_huge_shape_is_refused_before_allocating(no_draw, monkeypatch, capsys):
    import dsl.cli

    monkeypatch.setattr(dsl.cli, "available_memory", lambda: 16 << 30)
    for shape in ("2147483648", str(2**40)):
        code, out, err = run(["run", SILU, "--shape", shape], capsys)
        assert (code, out) == (1, "")
        assert err == (
            f"dslc: error: --shape {shape}: this run needs about {_need(int(shape))} of memory (inputs, outputs, "
            "the reference's intermediates and the emulator's copies), more than the limit of 8.0 GiB (half of "
            "the 16.0 GiB available); use a smaller --shape, or set the limit with --max-memory SIZE or "
            "DSLC_MAX_MEMORY=SIZE\n"
        )
    assert _need(2147483648) == "140.0 GiB"


def test_memory_limit_from_option_and_environment(no_draw, monkeypatch, capsys):
    monkeypatch.setenv("DSLC_MAX_MEMORY", "2M")
    code, _, err = run(["profile", SILU, "--shape", "100000"], capsys)
    assert code == 1
    assert f"needs about {_need(100000)} of memory" in err and "the limit of 2.0 MiB (DSLC_MAX_MEMORY)" in err
    code, _, err = run(["run", SILU, "--shape", "100000", "--max-memory", "1.5M"], capsys)
    assert code == 1 and "the limit of 1.5 MiB (--max-memory)" in err


def test_memory_estimate_counts_every_copy():
    op = load_operators(SILU)["silu"]
    n = 1 << 20
    need = run_memory_bytes(op, dsl.f16, op.check_attrs({}), [(n,)])
    # at least: input twice, output three times (f16), the f32 widened input, float64 temporaries
    assert need >= 2 * 2 * n + 3 * 2 * n + 4 * n + 6 * 8 * n


# -- empty and 0-d shapes ------------------------------------------------------------------------------


def test_empty_shape_runs_and_says_so(capsys):
    code, out, err = run(["run", SILU, "--shape", "0"], capsys)
    assert code == 0, err
    assert out.splitlines()[1] == "y: empty (shape (0,)), nothing to compare -> ok"


def test_zero_d_arrays_simulate_as_one_element(tmp_path):
    op = load_operators(write(tmp_path, "root.py", SQRT))["root"]
    x = np.array(2.25, np.float32)
    out = op.simulate(x)
    assert out.shape == () and out == np.float32(1.5)
    assert op.reference(x).shape == ()


# -- profile ---------------------------------------------------------------------------------------------


def _profile(predicted, roofline, floor):
    from backends.ascendc.profile import Profile

    return Profile(predicted, roofline, {}, {}, 0, 0, 0, 1, launch_us=3.0, floor_us=floor)


def test_profile_ratio_includes_the_launch_overhead():
    tiny = _profile(3.32, 0.0000026, 0.0000026)
    assert tiny.ratio == pytest.approx(3.32 / 3.0000026)
    lines = str(tiny).splitlines()
    assert lines[0] == "launch-bound: the launch overhead is 90% of the predicted 3.32 us"
    assert "(predicted/bound 1.11)" in lines[1] and "; bound 3.00 us = launch + copies" in lines[1]
    assert lines[2] == (
        "  (the 3.00 us launch overhead is most of the bound: the data moves in 0.00 us at HBM bandwidth; "
        "profile a larger --shape to judge the kernel itself)"
    )
    big = _profile(120.0, 100.0, 80.0)
    assert big.ratio == pytest.approx(120 / 83)
    assert "launch overhead is most" not in str(big)


def test_cli_profile_of_one_element(tmp_path, capsys):
    code, out, err = run(["profile", SILU, "--shape", "1", "--trace", tmp_path / "t.json"], capsys)
    assert code == 0, err
    ratio = float(re.search(r"predicted/bound ([\d.]+)\)", out).group(1))
    assert 1.0 <= ratio < 2.0
    assert "launch overhead is most of the bound" in out
    assert out.splitlines()[-1] == f"trace written to {tmp_path / 't.json'}"
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]  # no temporary left behind


def test_sizes_parse_and_print():
    from dsl.sizes import format_size, parse_size

    assert [parse_size(t) for t in ("4096", "512M", "2G", "1.5GiB", "10kb")] == [
        4096,
        512 << 20,
        2 << 30,
        3 << 29,
        10240,
    ]
    with pytest.raises(ValueError, match=r"^expected a size such as 4096, 512M or 2G, got '-1G'$"):
        parse_size("-1G")
    assert [format_size(n) for n in (100, 1536, 3 << 29, 2**40 * 70)] == [
        "100 B",
        "1.5 KiB",
        "1.5 GiB",
        "70.0 TiB",
    ]
    assert format_size(10**29) == "8.67e+10 EiB"


ROWS = """
@dsl.op(dtypes=(f32,))
def scale_rows(x: Tensor["R", "C"], g: Tensor["C"], p: Tensor["R", 1]):
    y = x * g + p
    return y
"""


def test_one_shape_fits_each_declaration(tmp_path, capsys):
    """One --shape for every tensor input: an input with named dims takes the trailing dims its
    declaration names (Tensor["C"] of 3,40 is [40], Tensor["R", 1] is [3, 1]); a shape shorter than a declaration is a
    usage error that names the input."""  # (it was: "input 'g' must have 1 dims [C]")
    path = write(tmp_path, "scale_rows.py", ROWS)
    code, out, err = run(["run", path, "--shape", "3,40"], capsys)
    assert code == 0, err
    assert "scale_rows[f32] matches the reference" in out
    from backends.ascendc.verify import input_shapes

    assert input_shapes(load_operators(path)["scale_rows"], [(3, 40)]) == [(3, 40), (40,), (3, 1)]
    ln = load_operators(ROOT / "examples" / "layer_norm.py")["layer_norm"]
    assert input_shapes(ln, [(4, 5, 100)]) == [(4, 5, 100), (100,), (100,)]
    code, out, err = run(["run", path, "--shape", "40"], capsys)
    assert code == 2
    assert "--shape 40 has 1 dims; input 'x' is declared with 2 (R, C)" in err
