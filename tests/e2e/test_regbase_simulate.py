"""ascend950 RegBase kernels on the emulator (issue 19): every flat example the select-vector-path
rule gives to RegBase compiles to one vector function per tile, and simulate equals the
reference (bit for bit where the IR path is exact, within dsl.precision.APPROX otherwise).

The fast run takes one dtype per example (rotating) at one size with a tail on 8 cores, plus
f16 stress values for a few; ``--runslow`` adds every dtype x the sizes and core counts of the
910B matrix (``test_elementwise_simulate.SIZES``/``CORES``). Deleting any single
SetFlag/WaitFlag of a RegBase kernel is reported (``test_every_flag_of_a_regbase_kernel_is_needed``).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import dsl

ROOT = Path(__file__).resolve().parents[2]


import ew_cases as C  # tests/e2e is on sys.path: pytest's default (prepend) import mode

DTYPES = ("f16", "f32", "bf16")
SIZES = (1, 33, 4096 + 17, 3 * 6144 + 17, (1 << 20) + 37)
CORES = (1, 8, None)


def _kernel_text(op, dt) -> str:
    from backends.ascendc.compile import lower

    files = lower(op, "ascend950", warn_builtin=False).files
    return next(text for name, text in files.items() if name.startswith("op_kernel/"))


def _matrix():
    params = []
    for ci, case in enumerate(C.CASES):
        for di, dt in enumerate(DTYPES):
            for n in SIZES:
                for cores in CORES:
                    fast = di == ci % 3 and n == 4096 + 17 and cores == 8
                    marks = () if fast else (pytest.mark.slow,)
                    pid = f"{case.stem}-{dt}-n{n}-c{cores or 'default'}"
                    params.append(pytest.param(case, dt, n, cores, id=pid, marks=marks))
    return params


def check(case, dt: str, n: int, cores, stress=False):
    op = case.op
    t = getattr(dsl, dt)
    attrs = {}
    inputs = case.inputs(t, (n,), case.attrs(), stress=stress)
    with np.errstate(all="ignore"):
        expected = C.as_tuple(op.reference(*inputs))
    actual = C.as_tuple(op.simulate(*inputs, target="ascend950", cores=cores))
    tols = C.tolerances(op, t, attrs)
    for name, a, e in zip(op.outputs, actual, expected):
        C.assert_close(a, e, tols[name], what=f"{op.name}.{name}[{dt}, n={n}, ascend950 RegBase]")


@pytest.mark.parametrize("case, dt, n, cores", _matrix())
def test_regbase_simulate_matches_reference(case, dt, n, cores):
    check(case, dt, n, cores)


@pytest.mark.parametrize("stem", ["apply_adam_w", "gelu_tanh", "clamp", "threshold", "fake_quant"])
def test_regbase_stress_values(stem):
    """Zeros of both signs, negatives, tiny and huge magnitudes (and +-inf for clamp; round's ties
    k + 1/2 for fake_quant), f16."""
    check(C.CASES_BY_STEM[stem], "f16", 4096 + 17, 8, stress=True)


def test_every_flat_example_is_regbase_where_the_rule_says():
    """Every flat example (fake_quant's round too): one VF per tile (asc_vf_call of a static
    __simd_vf__ member), no V barrier, no MemBase vector call."""
    from backends.ascendc.compile import lower

    for case in C.CASES:
        compiled = lower(case.op, "ascend950", warn_builtin=False)
        text = next(t for name, t in compiled.files.items() if name.startswith("op_kernel/"))
        assert "asc_vf_call<" in text and "__simd_vf__ static inline void" in text, case.stem
        assert "PipeBarrier" not in text, case.stem
        body = text[text.index("ProcessTile(uint64_t t)") :]
        body = body[: body.index("__simd_vf__")]
        assert not re.search(r"\n\s+(Add|Sub|Mul|Div|Muls|Adds|Exp|Cast|Select|Compare)\(", body), case.stem


def test_round_is_one_truncate_in_the_vf(tmp_path, capsys):
    """fake_quant's round (half to even) is Reg::Truncate<float, RoundMode::CAST_RINT> inside the VF
    (the 3510 TruncateImpl, vtrc), not a MemBase Cast: --explain gives the rule's RegBase reason."""
    from dsl.cli import main

    code = main(
        ["compile", str(ROOT / "examples" / "fake_quant.py"), "-o", str(tmp_path)]
        + ["--target", "ascend950", "--explain"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "  vector path: RegBase: 9 ops, 8 intermediates kept in registers" in out.splitlines()
    text = next((tmp_path / "fake_quant" / "op_kernel").glob("*.cpp")).read_text()
    vf = text[text.index("__simd_vf__") :]
    assert "Reg::Truncate<float, RoundMode::CAST_RINT>(" in vf


def test_every_flag_of_a_regbase_kernel_is_needed(tmp_path):
    """silu f16 on ascend950: deleting any one SetFlag/WaitFlag the instantiation executes is a
    SimulationError (a race or a flag fault), as for the MemBase kernels."""
    from test_sync_deletion import live_lines

    op = C.CASES_BY_STEM["silu"].op
    project = op.compile(out_dir=tmp_path / "base", target="ascend950")
    kernel = next((project / "op_kernel").glob("*.cpp"))
    lines = kernel.read_text().splitlines()
    live = live_lines(lines, {"IS_FLOAT": False, "IS_HALF": True, "IS_BF16": False})
    flags = [i for i in sorted(live) if re.search(r"\b(SetFlag|WaitFlag)<", lines[i])]
    assert len(flags) >= 6
    x = np.random.default_rng(3).uniform(-4, 4, 3 * 63488 + 77).astype(np.float16)
    want = op.reference(x)
    np.testing.assert_allclose(
        op.simulate(x, cores=1, target="ascend950", project=project), want, rtol=2e-3, atol=1e-3
    )
    missed = []
    for i in flags:
        case = tmp_path / f"del{i}"
        shutil.copytree(project, case)
        (case / "op_kernel" / kernel.name).write_text("\n".join(lines[:i] + lines[i + 1 :]) + "\n")
        try:
            op.simulate(x, cores=1, target="ascend950", project=case)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(case)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)


@pytest.mark.parametrize(
    "stem, dt",
    [("silu", "f16"), ("apply_adam_w", "f32"), ("threshold", "bf16")]
    + [pytest.param(s, "f16", marks=pytest.mark.slow) for s in ("gelu_tanh", "clamp", "rms_prop", "lerp")],
)
def test_vec_scope_form_matches_reference(tmp_path, stem, dt):
    """The inline ``__VEC_SCOPE__ { ... }`` form (ops-nn arch35 style) of the same IR: the VF's
    parameters become locals of a block, scalars copied by value, registers named ``<value>Reg``."""
    from backends.ascendc.compile import compile_op

    case = C.CASES_BY_STEM[stem]
    project = compile_op(case.op, "ascend950", tmp_path, vf_form="__VEC_SCOPE__", warn_builtin=False)
    text = next((project / "op_kernel").glob("*.cpp")).read_text()
    assert "__VEC_SCOPE__ {" in text and "asc_vf_call" not in text and "__simd_vf__" not in text
    t = getattr(dsl, dt)
    inputs = case.inputs(t, (4096 + 17,), case.attrs())
    with np.errstate(all="ignore"):
        expected = C.as_tuple(case.op.reference(*inputs))
    actual = C.as_tuple(case.op.simulate(*inputs, target="ascend950", cores=8, project=project))
    tols = C.tolerances(case.op, t, {})
    for name, a, e in zip(case.op.outputs, actual, expected):
        C.assert_close(a, e, tols[name], what=f"{stem}.{name}[{dt}, __VEC_SCOPE__]")


def test_vf_launch_form_follows_the_release_table():
    from backends.ascendc.cann import VF_FORMS, spelling
    from backends.ascendc.kernel.vector import RegBase

    assert spelling("vf_launch", "9.0") == spelling("vf_launch", "9.1") == "asc_vf_call"
    assert (
        RegBase(cann="9.0").form == "asc_vf_call"
        and RegBase(cann="9.1", form="__VEC_SCOPE__").form == VF_FORMS[1]
    )
    with pytest.raises(ValueError, match="unknown vector-function form 'VF_CALL'"):
        RegBase(cann="9.0", form="VF_CALL")


def test_two_register_operands_of_one_op_keep_their_own_registers(tmp_path):
    """Fuzz seed 9728 on ascend950 (silent wrong numbers before the fix): ``abs(g)`` and ``g + g``
    both flowed into one ``sub``, and the in-place naming gave them one register (``v01``), so
    Add overwrote Abs's result before Sub read it. Registers never share a name by chaining."""
    path = tmp_path / "abs_minus_double.py"
    path.write_text(
        "import dsl\nfrom dsl import Tensor, f32, bf16\n\n\n"
        "@dsl.op(dtypes=(f32, bf16))\n"
        "def abs_minus_double(g: Tensor):\n"
        "    v0 = dsl.abs(g) - (g + g)\n"
        "    return v0 ** 2\n"
    )
    from dsl.loader import load_operators as load

    op = load(path)["abs_minus_double"]
    g = np.random.default_rng(5).uniform(-3, 3, 4096 + 17).astype(np.float32)
    want = op.reference(g)
    np.testing.assert_array_equal(op.simulate(g, target="ascend950", cores=4), want)
    text = next(
        iter(op.compile(out_dir=tmp_path / "p", target="ascend950").glob("op_kernel/*.cpp"))
    ).read_text()
    assert "asc_vf_call" in text


def _load_source(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.py"
    path.write_text("import dsl\nfrom dsl import Tensor, f16, f32, i8\n\n\n" + body)
    from dsl.loader import load_operators as load

    return load(path)[name]


def test_plus_and_minus_inf_splats_keep_their_own_registers(tmp_path):
    """Flat fuzz seed 30096 on ascend950 (silent wrong numbers before the fix): ``+inf`` and
    ``-inf`` both became the register ``cinfVec``, so the second Duplicate overwrote the first
    and every element took -inf. Distinct numbers get distinct words (``minusinf``)."""
    op = _load_source(
        tmp_path,
        "inf_select",
        "@dsl.op(dtypes=(f16,))\n"
        "def inf_select(s: Tensor[i8], n: Tensor[f16], *, k: int = 0):\n"
        "    return (dsl.where(s != k, float('+inf'), float('-inf')) + k) * n\n",
    )
    rng = np.random.default_rng(30096)
    s = rng.integers(-128, 127, 4096 + 17).astype(np.int8)
    s[:3] = [-94, 1, 0]
    n = rng.uniform(0.5, 2, s.size).astype(np.float16)
    want = op.reference(s, n, k=1)
    assert np.isposinf(want).any() and np.isneginf(want).any()
    for target in ("ascend950", "ascend910b"):
        np.testing.assert_array_equal(op.simulate(s, n, k=1, target=target, cores=4), want)


def test_two_splats_of_one_scalar_are_one_duplicate(tmp_path):
    """``where(x > 0, k, cast(cast(k, f16), f32))`` splats ``k`` twice (once per branch): the VF
    makes the register once, and the f16 rounding of the other branch still happens."""
    op = _load_source(
        tmp_path,
        "k_twice",
        "@dsl.op(dtypes=(f32,))\n"
        "def k_twice(x: Tensor[f32], *, k: int = 0):\n"
        "    return dsl.where(x > 0, dsl.cast(k, f32), dsl.cast(dsl.cast(k, f16), f32))\n",
    )
    text = next(
        iter(op.compile(out_dir=tmp_path / "p", target="ascend950").glob("op_kernel/*.cpp"))
    ).read_text()
    # (k's member is k2_: the cube kernel declares k_ itself, naming.KERNEL_MEMBERS)
    assert len(re.findall(r"Reg::Duplicate\(k\d*Vec, k\d*\);", text)) == 1
    x = np.random.default_rng(3).uniform(-2, 2, 4096 + 5).astype(np.float32)
    want = op.reference(x, k=2049)  # 2049 rounds to 2048 in f16
    assert set(np.unique(want)) == {2048.0, 2049.0}
    np.testing.assert_array_equal(op.simulate(x, k=2049, target="ascend950", cores=4), want)


@pytest.mark.parametrize("tname", ["f16", "f32"])
def test_float_to_8bit_casts_are_one_vf(tname):
    """tests/corpus/cast_int on ascend950: f32 -> f16 to odd, then f16 -> i8/u8 toward zero and
    saturating (kCastTruncSat), stored packed from 32-bit lanes (DIST_PACK4_B32), round as
    Truncate: one VF, bit for bit on ties, saturation bounds and small negatives."""
    import importlib.util

    from backends.ascendc.compile import lower

    path = ROOT / "tests" / "corpus" / "cast_int.py"
    spec = importlib.util.spec_from_file_location("corpus_cast_int", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t = getattr(dsl, tname)
    text = next(
        x
        for n, x in lower(mod.OP, "ascend950", warn_builtin=False).files.items()
        if n.startswith("op_kernel/")
    )
    assert "Reg::StoreAlign<int8_t, Reg::StoreDist::DIST_PACK4_B32>(" in text
    assert "Reg::Cast<int8_t, half, kCastTruncSat>(" in text or "Reg::Cast<int8_t, T, kCastTruncSat>(" in text
    rng = np.random.default_rng(3)
    for attrs in ({}, {"scale": 3.0}):
        (x,) = mod.make_inputs(rng, t, (4096 + 17,))
        want = mod.OP.reference(x, dtype=t, **attrs)
        got = mod.OP.simulate(x, target="ascend950", cores=8, dtype=t, **attrs)
        for name, g, w in zip(mod.OP.outputs, got, want):
            assert g.dtype == w.dtype, name
            np.testing.assert_array_equal(g, w, err_msg=f"cast_int.{name}[{tname}, {attrs}]")
