"""ascend950 RegBase row kernels on the emulator (issue 19, seed 002's 950 design): every row example
compiles its full-load steps to one vector function per step (Reduce into a register,
DIST_FIRST_ELEMENT_B32 store, LocalMemBar, DIST_BRC_B32 reload), and simulate equals the reference
for every example x dtype x static attributes x shapes with tails x cores {1, 8, 64}.

The fast run takes a rotating subset (each example, each dtype and each core count at least once);
``--runslow`` the whole matrix. The long rows (column chunks) stay MemBase: test_rows_simulate's
ascend950 cases cover them. Deleting any single SetFlag/WaitFlag of a RegBase row kernel is reported
(``test_every_flag_of_a_regbase_row_kernel_is_needed``).
"""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import dsl
from backends.ascendc.compile import compile_op, lower
from backends.ascendc.simulate import simulate

from row_cases import BY_NAME, CASES

SHAPES = ((3, 33), (5, 100), (2, 4097), (1, 64), (17, 1000))
CORES = (1, 8, 64)
TRANSCENDENTAL_RTOL = 2e-4  # as test_rows_simulate: Exp/Ln/Rsqrt against numpy's libm


def _shape(case, rows: int, cols: int) -> tuple:
    if case.name == "bias_gelu":  # Tensor["R", "C"]: exactly two dims
        return (rows, cols)
    return (rows, cols) if rows != 1 else (cols,)


def _kernel(op, **kw) -> str:
    files = lower(op, "ascend950", warn_builtin=False, **kw).files
    return next(text for name, text in files.items() if name.startswith("op_kernel/"))


def check(case, t, shape, attrs, cores, seed=0, project=None):
    op = case.op
    args = case.make(np.random.default_rng(seed), t, shape, **attrs)
    ref = op.reference(*args, **attrs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    if project is None:
        got, _ = simulate(op, args, attrs, target="ascend950", cores=cores, strict=True)
    else:
        got = op.simulate(*args, target="ascend950", cores=cores, project=project, **attrs)
    gots = got if isinstance(got, tuple) else (got,)
    rtol = TRANSCENDENTAL_RTOL if case.transcendental else None
    for name, r, g in zip(op.outputs, refs, gots):
        if r is None:
            assert g is None
            continue
        c = dsl.precision.compare(g, r, rtol=rtol)
        assert c.ok, f"{case.name}.{name}[{t.name}, {attrs}, {shape}, ascend950 RegBase, cores={cores}]: {c}"


def _matrix():
    """Fast: two points per example (rotating dtype, attributes, shape and core count); slow: all."""
    params = []
    for ci, case in enumerate(CASES):
        dts = case.op.dtypes
        fast = {
            (dts[ci % len(dts)].name, len(case.attrs) - 1, SHAPES[ci % len(SHAPES)], CORES[ci % 3]),
            (dts[(ci + 1) % len(dts)].name, 0, SHAPES[(ci + 2) % len(SHAPES)], CORES[(ci + 1) % 3]),
        }
        for t in dts:
            for k, attrs in enumerate(case.attrs):
                for shape in SHAPES:
                    for cores in CORES:
                        pid = f"{case.name}-{t.name}-a{k}-{shape[0]}x{shape[1]}-c{cores}"
                        marks = () if (t.name, k, shape, cores) in fast else (pytest.mark.slow,)
                        params.append(pytest.param(case.name, t.name, k, shape, cores, id=pid, marks=marks))
    return params


@pytest.mark.parametrize("name, tname, k, shape, cores", _matrix())
def test_regbase_row_example_matches_reference(name, tname, k, shape, cores):
    case = BY_NAME[name]
    check(case, getattr(dsl, tname), _shape(case, *shape), case.attrs[k], cores, seed=sum(shape))


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_every_row_example_is_one_vf_per_step_on_ascend950(name):
    """Every variant's full-load step is RegBase (one asc_vf_call of a __simd_vf__ member, no V
    barrier); the per-row values go FIRST_ELEMENT -> LocalMemBar -> BRC where a reduction feeds
    later math; --vector-path membase still gives the MemBase kernel."""
    op = BY_NAME[name].op
    text = _kernel(op)
    assert "asc_vf_call<" in text and "__simd_vf__ static inline void" in text, name
    assert "PipeBarrier" not in text
    if name != "bias_gelu":  # the only row example without a reduction
        assert "Reg::Reduce<Reg::ReduceType::" in text
        assert "Reg::StoreDist::DIST_FIRST_ELEMENT_B32>" in text and "Reg::LoadDist::DIST_BRC_B32>" in text
        assert "Reg::LocalMemBar<Reg::MemType::VEC_STORE, Reg::MemType::VEC_LOAD>();" in text
    mem = _kernel(op, vector_path="membase")
    assert "asc_vf_call" not in mem and "Reg::" not in mem


def test_explain_names_regbase_for_every_full_load_row_variant(tmp_path, capsys):
    from dsl.cli import main
    from row_cases import ROOT

    for name in BY_NAME:
        code = main(
            ["compile", str(ROOT / "examples" / f"{name}.py"), "-o", str(tmp_path), "--target", "ascend950"]
            + ["--explain"]
        )
        out = capsys.readouterr().out
        assert code == 0
        paths = [line for line in out.splitlines() if line.startswith("  vector path: ")]
        assert paths and all(p.startswith("  vector path: RegBase: ") for p in paths), (name, paths)
        assert "column chunks stay MemBase" in out, name


def test_quant_chain_in_registers():
    """seed 002's quant tail in the VF: RINT -> f16 (CAST_ODD) -> int8 (SAT, RINT), the bytes
    packed from 32-bit lanes (DIST_PACK4_B32); per-channel scales by Div, per-tensor by Muls."""
    op = BY_NAME["quantize_add_layer_norm"].op
    text = _kernel(op)
    assert "constexpr Reg::CastTrait kCastOdd" in text and "constexpr Reg::CastTrait kCastRintSat" in text
    assert "Reg::StoreAlign<int8_t, Reg::StoreDist::DIST_PACK4_B32>" in text
    assert "Reg::Cast<int8_t, half, kCastRintSat>" in text


@pytest.mark.parametrize("name, tname", [("layer_norm", "f16"), ("softmax", "bf16")])
def test_vec_scope_form_of_a_row_kernel(tmp_path, name, tname):
    case = BY_NAME[name]
    project = compile_op(case.op, "ascend950", tmp_path, vf_form="__VEC_SCOPE__", warn_builtin=False)
    text = next((project / "op_kernel").glob("*.cpp")).read_text()
    assert "__VEC_SCOPE__ {" in text and "asc_vf_call" not in text
    t = getattr(dsl, tname)
    for attrs in case.attrs:
        check(case, t, _shape(case, 5, 100), attrs, 8, project=project)


def test_every_flag_of_a_regbase_row_kernel_is_needed(tmp_path):
    """layer_norm f16 (with beta) on ascend950: deleting any one SetFlag/WaitFlag the full-load
    instantiation executes is a SimulationError (a race or a flag fault)."""
    from test_sync_deletion import live_lines

    case = BY_NAME["layer_norm"]
    attrs = {"with_beta": True}
    project = case.op.compile(out_dir=tmp_path / "base", target="ascend950")
    kernel = next((project / "op_kernel").glob("*.cpp"))
    lines = kernel.read_text().splitlines()
    env = {"IS_FLOAT": False, "IS_HALF": True, "IS_BF16": False, "COLUMN_CHUNKS": False, "WITH_BETA": True}
    live = live_lines(lines, env)
    flags = [i for i in sorted(live) if re.search(r"\b(SetFlag|WaitFlag)<", lines[i])]
    assert len(flags) >= 8
    shape = (9, 1000)  # several steps on one core: the ping-pong slots and their reverse flags
    check(case, dsl.f16, shape, attrs, 1, project=project)
    args = case.make(np.random.default_rng(0), dsl.f16, shape, **attrs)
    missed = []
    for i in flags:
        dst = tmp_path / f"del{i}"
        shutil.copytree(project, dst)
        (dst / "op_kernel" / kernel.name).write_text("\n".join(lines[:i] + lines[i + 1 :]) + "\n")
        try:
            case.op.simulate(*args, target="ascend950", cores=1, project=dst, **attrs)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(dst)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)
