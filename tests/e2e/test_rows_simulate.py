"""Row operators end to end: reference == an independent numpy golden, and the generated kernel run on
the emulator (strict sync mode, no fault) == reference, for every example x dtype x static-attribute
combination. The default run takes a representative set of shapes on both targets; ``--runslow``
runs the issue's matrix: C in {1, 7, 33, 64, 4095, 4097} x rows in {1, 3, 50, 8192} x cores
{1, 8, the target's} (longer rows: test_rows_long.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dsl
from backends.ascendc.simulate import simulate
from backends.ascendc.targets import TARGETS

from row_cases import BY_NAME, CASES

TRANSCENDENTAL_RTOL = 2e-4  # Exp/Ln/Rsqrt-based formulas differ from numpy's libm by a few ulps


def _check(case, t, shape, attrs, target="ascend910b", cores=8, seed=0):
    op = case.op
    rng = np.random.default_rng(seed)
    args = case.make(rng, t, shape, **attrs)
    ref = op.reference(*args, **attrs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    got, result = simulate(op, args, attrs, target=target, cores=cores, strict=True)
    gots = got if isinstance(got, tuple) else (got,)
    rtol = TRANSCENDENTAL_RTOL if case.transcendental else None
    for name, r, g in zip(op.outputs, refs, gots):
        if r is None:
            assert g is None
            continue
        c = dsl.precision.compare(g, r, rtol=rtol)
        assert c.ok, f"{case.name}.{name}[{t.name}, {attrs}, {shape}, {target}, cores={cores}]: {c}"
    return result


def _golden_check(case, t, shape, attrs, seed=0):
    op = case.op
    rng = np.random.default_rng(seed)
    args = case.make(rng, t, shape, **attrs)
    ref = op.reference(*args, **attrs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    for name, r, want in zip(op.outputs, refs, case.golden(t, *args, **attrs)):
        if want is None:
            assert r is None
            continue
        arr, dt = want
        c = dsl.precision.compare(r, np.asarray(arr).astype(dt), rtol=TRANSCENDENTAL_RTOL)
        assert c.ok, f"{case.name}.{name}[{t.name}, {attrs}, {shape}] reference vs numpy: {c}"


def _shape(case, rows: int, cols: int) -> tuple:
    if case.name == "bias_gelu":  # Tensor["R", "C"]: exactly two dims
        return (rows, cols)
    return (rows, cols) if rows != 1 else (cols,)


def _default():
    for case in CASES:
        for t in case.op.dtypes:
            for k, attrs in enumerate(case.attrs):
                yield pytest.param(case.name, t.name, attrs, (3, 33), id=f"{case.name}-{t.name}-a{k}-3x33")
            yield pytest.param(case.name, t.name, case.attrs[-1], (50, 64), id=f"{case.name}-{t.name}-50x64")


@pytest.mark.parametrize("name, tname, attrs, shape", list(_default()))
def test_row_example_simulates_equal_to_reference(name, tname, attrs, shape):
    case = BY_NAME[name]
    t = dsl.dtypes.dtype_from_name(tname)
    _golden_check(case, t, shape, attrs)
    _check(case, t, shape, attrs)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_row_example_on_ascend950_and_long_rows(name):
    """950 runs the same MemBase kernels; rows past 4096 columns; one core and an odd shape."""
    case = BY_NAME[name]
    t = case.op.dtypes[0]
    for attrs in case.attrs:
        _check(case, t, _shape(case, 3, 33), attrs, target="ascend950", cores=64)
    _check(case, t, _shape(case, 2, 4097), case.attrs[-1], cores=8)
    _check(case, t, _shape(case, 7, 1), case.attrs[0], cores=1)
    _check(case, t, _shape(case, 1, 7), case.attrs[0], cores=48)


def _matrix():
    for case in CASES:
        for t in case.op.dtypes:
            for k, attrs in enumerate(case.attrs):
                for target in ("ascend910b", "ascend950"):
                    yield pytest.param(
                        case.name,
                        t.name,
                        k,
                        target,
                        id=f"{case.name}-{t.name}-a{k}-{target}",
                        marks=pytest.mark.slow,
                    )


@pytest.mark.parametrize("name, tname, k, target", list(_matrix()))
def test_row_matrix(name, tname, k, target):
    case = BY_NAME[name]
    t = dsl.dtypes.dtype_from_name(tname)
    attrs = case.attrs[k]
    for cols in (1, 7, 33, 64, 4095, 4097):
        for rows in (1, 3, 50, 8192):
            if rows == 8192 and cols > 64 and (t.name != "f16" or k > 0):
                continue  # the 8192-row runs with wide rows take minutes each: one dtype and attrs
            for cores in (1, 8, TARGETS[target].aiv_cores):
                if rows == 8192 and cores == 1 and cols > 64:
                    continue
                _check(case, t, _shape(case, rows, cols), attrs, target=target, cores=cores, seed=cols + rows)


def test_one_slot_when_a_ping_pong_step_of_one_row_does_not_fit():
    """rms_norm f32 on 910B takes 4 B/column resident (gamma) + 12 B/column per row with two slots
    (x twice, one f32 temporary): 11760 columns at most. Past that the host drops to one slot
    (8 B/column per row: 15680 columns); past that it fails with the numbers."""
    case = BY_NAME["rms_norm"]
    t = dsl.dtypes.dtype_from_name("f32")
    ping_pong = _check(case, t, (5, 11000), {}, cores=1)
    one_slot = _check(case, t, (5, 14000), {}, cores=1)
    for result in (ping_pong, one_slot):  # one row per step: five x copies, five y copies
        assert result.counters["MTE2"]["dma"] == 5 + 1  # + gamma, once
        assert result.counters["MTE3"]["dma"] == 5
    with pytest.raises(dsl.SimulationError) as e:
        _check(case, t, (5, 16000), {}, cores=1)
    assert (
        "rows of 16000 columns (dtype 0) do not fit in UB: one row needs 194048 bytes (66016 fixed for "
        "columns and scratch + 128032 for the row), 188160 are available" in str(e.value)
    )
