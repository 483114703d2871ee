"""End-to-end: the generated Ascend C of every elementwise example, run on the CPU emulator
(``op.simulate``), equals the reference interpreter (``op.reference``): bit for bit for outputs
whose IR path has only exact ops, within ``dsl.precision.APPROX`` otherwise (the class comes
from the IR: ``ew_cases.tolerances``/``assert_close``).

Matrix (DESIGN.md section 9): example x dtype x static-attribute combination x size x cores.
The full product (``SIZES`` x ``CORES``) is marked ``slow`` (``pytest --runslow``); the default
run keeps a representative sample per (example, dtype, static combination), rotating the small
and boundary sizes and the core counts so that together the fast cases still touch every size
below 1M and every core count (see ``fast_points``). Every static combination of every example
(all four AdamW tiling keys included) is in the fast run.

Further cases: non-default run-time attributes, "stress" inputs (zeros of both signs, negatives,
tiny and huge magnitudes, infinities for clamp), absent/present optional inputs, Scalars given as
Python numbers, multi-dimensional unshaped tensors, ``project=`` runs of a compiled (and edited)
project, and the faults a host tiling must report.

The emulator caches compiled binaries by source hash, so only the first simulate of an
(example, dtype) pays for the build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import dsl


import ew_cases as C  # tests/e2e is on sys.path: pytest's default (prepend) import mode

CASES = C.CASES

DTYPES = ("f16", "f32", "bf16")
SMALL = (1, 7, 31, 32, 33)  # below / at / around one 32-byte block
MID = (4095, 4096 + 17)  # around a power of two, with tails
MULTI_TILE = 3 * 6144 + 17  # several UB tiles per core plus a tail
LARGE = (1 << 20) + 37  # > 1M elements: many tiles on every core
SIZES = (*SMALL, *MID, MULTI_TILE, LARGE)
CORES = (1, 8, None)  # None: the target's default core count (48 AIV on ascend910b)


def cores_id(cores) -> str:
    return "cdefault" if cores is None else f"c{cores}"


def fast_points(case_idx: int, dtype_idx: int, combo_idx: int) -> set[tuple[int, int | None]]:
    """The (size, cores) points of one (example, dtype, static combination) in the fast run: a
    small size, a boundary size and the multi-tile size. Which small/boundary size and which
    core count each gets rotates with the indices, so the fast run as a whole covers all sizes
    below 1M with all core counts."""
    r = case_idx + dtype_idx + combo_idx
    return {
        (SMALL[r % len(SMALL)], CORES[r % 3]),
        (MID[r % len(MID)], CORES[(r + 1) % 3]),
        (MULTI_TILE, CORES[(r + 2) % 3]),
    }


def static_combos(case) -> list[dict]:
    """Every combination of static attribute values; by convention (checked below) the first
    value of each is the default, so the first combination is the defaults'."""
    import itertools

    keys = list(case.static)
    return [dict(zip(keys, vals)) for vals in itertools.product(*(case.static[k] for k in keys))]


def _matrix():
    params = []
    for ci, case in enumerate(CASES):
        for di, dt in enumerate(DTYPES):
            for ki, combo in enumerate(static_combos(case)):
                fast = fast_points(ci, di, ki)
                for n in SIZES:
                    for cores in CORES:
                        marks = () if (n, cores) in fast else (pytest.mark.slow,)
                        pid = f"{case.stem}-{dt}-{C.attrs_id(combo)}-n{n}-{cores_id(cores)}"
                        params.append(pytest.param(case, dt, combo, n, cores, id=pid, marks=marks))
    return params


def _dtype(name):
    return getattr(dsl, name)


def check_simulate(case, dt: str, attrs: dict, shape, cores=None, *, stress=False, key=(), inputs=None):
    """simulate == reference for one call; returns the simulated outputs."""
    op = case.op
    t = _dtype(dt)
    full = case.attrs(**attrs)
    if inputs is None:
        inputs = case.inputs(t, shape, full, stress=stress, key=key)
    with np.errstate(all="ignore"):
        expected = C.as_tuple(op.reference(*inputs, **attrs))
    actual = C.as_tuple(op.simulate(*inputs, target="ascend910b", cores=cores, **attrs))
    assert len(actual) == len(expected) == len(op.outputs)
    tols = C.tolerances(op, t, attrs)
    for name, a, e in zip(op.outputs, actual, expected):
        C.assert_close(a, e, tols[name], what=f"{op.name}.{name}[{dt}, {C.attrs_id(attrs)}, shape={shape}]")
    return actual


# ---------------------------------------------------------------------------------------------
# The matrix
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case, dt, attrs, n, cores", _matrix())
def test_simulate_matches_reference(case, dt, attrs, n, cores):
    check_simulate(case, dt, attrs, (n,), cores)


# ---------------------------------------------------------------------------------------------
# Attributes other than the defaults, stress values, shapes
# ---------------------------------------------------------------------------------------------


def _runtime_params():
    params = []
    for case in CASES:
        for i, attrs in enumerate(case.runtime):
            # every variant in f32 and in one rotating half type; the last static combination
            # (a non-default tiling key where there is one) is used for odd variants
            combos = static_combos(case)
            combo = combos[-1] if i % 2 else combos[0]
            for dt in ("f32", ("f16", "bf16")[i % 2]):
                full = {**combo, **attrs}
                pid = f"{case.stem}-{dt}-{C.attrs_id(full)}"
                params.append(pytest.param(case, dt, full, id=pid))
    return params


@pytest.mark.parametrize("case, dt, attrs", _runtime_params())
def test_runtime_attribute_values(case, dt, attrs):
    check_simulate(case, dt, attrs, (4096 + 17,), cores=8)


def _stress_params():
    params = []
    for case in CASES:
        combos = static_combos(case)
        for dt in DTYPES:
            for combo in {0: combos[0], len(combos) - 1: combos[-1]}.values():
                params.append(pytest.param(case, dt, combo, id=f"{case.stem}-{dt}-{C.attrs_id(combo)}"))
    return params


@pytest.mark.parametrize("case, dt, attrs", _stress_params())
def test_stress_values(case, dt, attrs):
    """Zeros (+-0), negatives, tiny and large magnitudes (and +-inf for clamp)."""
    check_simulate(case, dt, attrs, (4096 + 17,), cores=8, stress=True)


@pytest.mark.parametrize(
    "stem, dt, shape",
    [
        ("lerp", "f16", (3, 5, 7)),
        ("gelu_tanh", "bf16", (2, 4096 + 17)),
        ("apply_adam_w", "f32", (17, 33)),
        ("sgd_momentum", "bf16", (1, 1, 31)),
    ],
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v),
)
def test_multidimensional_unshaped_tensors(stem, dt, shape):
    """Unshaped tensors of any rank run as one flat range; outputs keep the input shape."""
    out = check_simulate(C.CASES_BY_STEM[stem], dt, {}, shape, cores=8)
    assert all(o.shape == shape for o in out)


def test_default_cores_use_the_whole_target():
    """cores=None means the target's AIV core count; a size that fills every core still matches."""
    check_simulate(C.CASES_BY_STEM["lerp"], "f32", {}, (48 * 64 + 5,), cores=None)


# ---------------------------------------------------------------------------------------------
# Inputs: optional, Scalars as numbers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", DTYPES)
def test_optional_input_present_but_unused(dt):
    """amsgrad=False never reads max_grad_norm: passing it changes nothing."""
    case = C.CASES_BY_STEM["apply_adam_w"]
    t = _dtype(dt)
    inputs = case.inputs(t, (4096 + 17,), case.attrs(amsgrad=True))  # includes max_grad_norm
    with_mgn = check_simulate(case, dt, {"amsgrad": False}, None, cores=8, inputs=inputs)
    without = check_simulate(case, dt, {"amsgrad": False}, None, cores=8, inputs=inputs[:-1] + [None])
    for a, b in zip(with_mgn, without):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("maximize", [False, True], ids=["maximize=F", "maximize=T"])
def test_optional_input_missing_where_required(maximize):
    """amsgrad=True needs max_grad_norm: the call is rejected, not run on garbage."""
    case = C.CASES_BY_STEM["apply_adam_w"]
    inputs = case.inputs(dsl.f32, (33,), case.attrs(amsgrad=True))[:-1] + [None]
    with pytest.raises((dsl.ArgumentError, dsl.SimulationError), match="max_grad_norm"):
        case.op.simulate(*inputs, amsgrad=True, maximize=maximize)


@pytest.mark.parametrize("dt", DTYPES)
def test_scalars_as_python_numbers(dt):
    """A Scalar accepts a Python number; the result equals passing the shape-(1,) array."""
    case = C.CASES_BY_STEM["lerp"]
    t = _dtype(dt)
    start, end, weight = case.inputs(t, (4096 + 17,), {})
    check_simulate(case, dt, {}, None, cores=8, inputs=[start, end, 0.25])
    case = C.CASES_BY_STEM["axpby"]
    x, other, _ = case.inputs(t, (33,), case.attrs())
    check_simulate(case, dt, {"mode": "sub"}, None, cores=1, inputs=[x, other, 1 / 3])


def test_division_by_scalar_rounds_like_reference():
    """``round(x / scale)`` must see the quotient the reference sees: x / s and x * (1/s) differ
    in the last f32 bit for some x, and round() turns that bit into a whole quantization step.
    The inputs are chosen so that x / s is exactly a tie k + 1/2 while x * (1/s) is not."""
    case = C.CASES_BY_STEM["fake_quant"]
    rng = np.random.default_rng(7)
    xs = []
    while len(xs) < 8:
        s = np.float32(rng.uniform(0.01, 0.1))
        k = rng.integers(-120, 120)
        x = np.float32((k + 0.5) * np.float64(s))
        if x / s == np.float32(k + 0.5) and x * (np.float32(1) / s) != np.float32(k + 0.5):
            xs.append((x, s))
    # a Scalar holds one scale per call, so each (x, scale) pair is its own call
    for x, s in xs:
        inputs = [np.full(33, x, dtype=np.float32), np.array([s], dtype=np.float32)]
        C.assert_close(
            case.op.simulate(*inputs, cores=1),
            case.op.reference(*inputs),
            C.tolerances(case.op, dsl.f32, {})["y"],
            what=f"fake_quant(x={x!r}, scale={s!r})",
        )


# ---------------------------------------------------------------------------------------------
# Bad calls
# ---------------------------------------------------------------------------------------------


def test_mismatched_shapes_rejected():
    x = np.zeros(33, np.float32)
    with pytest.raises((dsl.ArgumentError, dsl.SimulationError)):
        C.load_op("lerp").simulate(x, np.zeros(32, np.float32), 0.5)


def test_mixed_dtypes_rejected():
    with pytest.raises(dsl.ArgumentError):
        C.load_op("lerp").simulate(np.zeros(33, np.float32), np.zeros(33, np.float16), 0.5)


def test_bad_core_count_rejected():
    with pytest.raises((dsl.ArgumentError, ValueError)):
        C.load_op("silu").simulate(np.zeros(33, np.float32), cores=0)


# The host TilingFunc itself must reject bad calls (a user of the generated project on a real NPU
# has no Python layer in front of it). These drive the compiled project through the emulator
# driver directly; OpDef order is: inputs and attributes in declaration order, outputs in
# return order (adjust ``_run_host`` if the backend declares them differently).


def _run_host(stem: str, project: Path, inputs: list, attrs: dict):
    from backends.ascendc.sim import simulate_project
    from backends.ascendc.targets import get_target

    op = C.load_op(stem)
    values = {**op.attrs, **attrs}
    shape = next(a.shape for a in inputs if a is not None and a.size > 1)
    dtype = next(a.dtype for a in inputs if a is not None)
    return simulate_project(
        project,
        op.name,
        inputs=inputs,
        outputs=[(shape, dtype) for _ in op.outputs],
        attrs=[values[k] for k in op.attrs],
        target=get_target("ascend910b"),
        cores=8,
    )


@pytest.fixture(scope="module")
def host_projects(tmp_path_factory):
    out = tmp_path_factory.mktemp("e2e_host_projects")
    return {
        stem: Path(C.load_op(stem).compile(target="ascend910b", out_dir=out))
        for stem in ("lerp", "apply_adam_w")
    }


def test_host_tiling_accepts_a_good_call(host_projects):
    """Sanity check of ``_run_host``'s conventions: a good call runs and matches the reference."""
    case = C.CASES_BY_STEM["lerp"]
    inputs = case.inputs(dsl.f32, (4096 + 17,), {})
    res = _run_host("lerp", host_projects["lerp"], inputs, {})
    tol = C.tolerances(case.op, dsl.f32, {})["y"]
    C.assert_close(res.outputs[0], case.op.reference(*inputs), tol, what="lerp.y[host]")


def test_host_tiling_rejects_mismatched_shapes(host_projects):
    case = C.CASES_BY_STEM["lerp"]
    start, end, weight = case.inputs(dsl.f32, (4096 + 17,), {})
    with pytest.raises(dsl.SimulationError):
        _run_host("lerp", host_projects["lerp"], [start, end[:-1], weight], {})


def test_host_tiling_rejects_missing_optional_input(host_projects):
    case = C.CASES_BY_STEM["apply_adam_w"]
    inputs = case.inputs(dsl.f32, (4096 + 17,), case.attrs(amsgrad=True))
    _run_host("apply_adam_w", host_projects["apply_adam_w"], inputs, {"amsgrad": True})  # conventions ok
    with pytest.raises(dsl.SimulationError):
        _run_host("apply_adam_w", host_projects["apply_adam_w"], inputs[:-1] + [None], {"amsgrad": True})


# ---------------------------------------------------------------------------------------------
# project=: run the sources of a compiled (and user-edited) project
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sgd_project(tmp_path_factory):
    out = tmp_path_factory.mktemp("e2e_projects")
    return Path(C.load_op("sgd_momentum").compile(target="ascend910b", out_dir=out))


@pytest.mark.parametrize("dt", DTYPES)
def test_simulate_compiled_project(sgd_project, dt):
    case = C.CASES_BY_STEM["sgd_momentum"]
    attrs = {"nesterov": True, "maximize": False, "momentum": 0.8}
    t = _dtype(dt)
    inputs = case.inputs(t, (4096 + 17,), case.attrs(**attrs))
    expected = case.op.reference(*inputs, **attrs)
    actual = case.op.simulate(*inputs, project=sgd_project, cores=8, **attrs)
    tols = C.tolerances(case.op, t, attrs)
    for name, a, e in zip(case.op.outputs, actual, expected):
        C.assert_close(a, e, tols[name], what=f"sgd_momentum.{name}[project]")


def test_simulate_edited_project(sgd_project, tmp_path):
    """A user edit to the kernel source is what runs: a harmless edit keeps the results; an edit
    that changes the math shows in the outputs (so the edited sources are really rebuilt)."""
    import shutil

    case = C.CASES_BY_STEM["sgd_momentum"]
    inputs = case.inputs(dsl.f32, (4096 + 17,), case.attrs())
    expected = case.op.reference(*inputs)
    tols = C.tolerances(case.op, dsl.f32, {})

    harmless = tmp_path / "harmless" / sgd_project.name
    shutil.copytree(sgd_project, harmless)
    kernel = harmless / "op_kernel" / f"{case.op.name}.cpp"
    kernel.write_text(kernel.read_text() + "\n// edited by test_simulate_edited_project\n")
    actual = case.op.simulate(*inputs, project=harmless, cores=1)
    for name, a, e in zip(case.op.outputs, actual, expected):
        C.assert_close(a, e, tols[name], what=f"sgd_momentum.{name}[edited project]")

    # param_out = param - lr * step: turn the (only) vector Sub of the default variant into Add
    wrong = tmp_path / "wrong" / sgd_project.name
    shutil.copytree(sgd_project, wrong)
    kernel = wrong / "op_kernel" / f"{case.op.name}.cpp"
    text, count = re.subn(r"\bSub\(", "Add(", kernel.read_text())
    assert count, "no vector Sub( in the kernel to edit; adjust this test to the kernel's spelling"
    kernel.write_text(text)
    param_out, buf_out = case.op.simulate(*inputs, project=wrong, cores=1)
    C.assert_close(buf_out, expected[1], tols["buf_out"], what="sgd_momentum.buf_out[Sub->Add]")
    with pytest.raises(AssertionError):
        C.assert_close(param_out, expected[0], tols["param_out"], what="sgd_momentum.param_out[Sub->Add]")


# ---------------------------------------------------------------------------------------------
# Cheap checks that need no backend: the case table and the reference against numpy goldens
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.stem)
def test_case_table_matches_operator(case):
    """Every bool/Literal attribute is declared in the case with all its values, the default
    first; every example uses the dtypes the matrix runs."""
    op = case.op
    static = {k for k, v in op.attrs.items() if isinstance(v, (bool, str))}
    assert set(case.static) == static
    for k, values in case.static.items():
        assert values[0] == op.attrs[k], f"{case.stem}: list the default of '{k}' first"
    ir_head = op.ir().splitlines()[0]
    for k, values in case.static.items():
        if isinstance(values[0], str):
            literal = "literal<" + ", ".join(f'"{v}"' for v in values) + ">"
            assert literal in ir_head, f"{case.stem}: '{k}' values {values} vs {ir_head}"
    assert [d.name for d in op.dtypes] == list(DTYPES)
    for attrs in case.runtime:
        assert set(attrs) <= set(op.attrs) - static


def _golden_params():
    params = []
    for case in CASES:
        for dt in DTYPES:
            for combo in static_combos(case):
                for stress in (False, True):
                    pid = f"{case.stem}-{dt}-{C.attrs_id(combo)}" + ("-stress" if stress else "")
                    params.append(pytest.param(case, dt, combo, stress, id=pid))
    return params


@pytest.mark.parametrize("case, dt, attrs, stress", _golden_params())
def test_reference_matches_numpy_golden(case, dt, attrs, stress):
    """op.reference equals an independent numpy formula; every float output has dtype T, every
    comparison output is bool."""
    t = _dtype(dt)
    full = case.attrs(**attrs)
    inputs = case.inputs(t, (4096 + 17,), full, stress=stress)
    with np.errstate(all="ignore"):
        outs = C.as_tuple(case.op.reference(*inputs, **attrs))
        golden = case.golden(inputs, full)
    assert len(outs) == len(golden)
    tols = C.tolerances(case.op, t, attrs)
    for name, a, g in zip(case.op.outputs, outs, golden):
        g = np.asarray(g)
        with np.errstate(all="ignore"):
            expected = g if g.dtype == np.bool_ else g.astype(np.float32).astype(t.np)
        C.assert_close(a, expected, tols[name], what=f"{case.stem}.{name}[{dt}, {C.attrs_id(attrs)}]")
