"""SCALAR mode of broadcast=True operators (one size-1 tensor input): the SCALAR twin kernels
read that input once per core as a Scalar and use the vector-scalar instructions (Adds, Muls,
CompareScalar, ...), or one resident Duplicate where there is no scalar form (Div, Max, Min):
no splat per tile. Bit-exact against the reference interpreter on every dtype, either side, on
1, 8 and the target's cores; the vector instructions per tile drop against the splatting form
(the same project with the host's twin choice switched off)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from backends.ascendc.simulate import simulate
from dsl.dtypes import dtype_from_name
from backends.ascendc.targets import get_target

NP = {t: dtype_from_name(t).np.type for t in ("f16", "f32", "bf16", "i8", "i32", "u8")}
SCALAR, TWIN_X, TWIN_S = 1, 7, 8  # tiling keys: SCALAR (splat), twins with x / with s a Scalar

ARITH = """
import dsl
from dsl import Tensor, f16, f32, bf16, i32


@dsl.op(dtypes=(f16, f32, bf16, i32), broadcast=True)
def arith(x: Tensor, s: Tensor):
    a = x - s
    b = s - x
    c = x * s
    d = dsl.maximum(x, s)
    e = dsl.minimum(s, x)
    f = x + s
    g = x >= s
    return a, b, c, d, e, f, g


@dsl.op(dtypes=(f16, f32, bf16), broadcast=True)
def ratio(x: Tensor, s: Tensor):
    return x / s


@dsl.op(dtypes=(f16, f32, bf16, i32), broadcast=True)
def shift(x: Tensor, s: Tensor):
    return x - s


@dsl.op(dtypes=(f32, i32), broadcast=True)
def flipped(x: Tensor, s: Tensor, *, flip: bool = False):
    return s * 2 - x if flip else x * 3 + s
"""


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    import importlib.util
    import sys

    path = tmp_path_factory.mktemp("scalar") / "scalar_ops.py"
    path.write_text(ARITH)
    spec = importlib.util.spec_from_file_location("scalar_ops", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _values(rng, shape, dt):
    """Small exact values; the scalar is never 0 (ratio divides by it)."""
    if np.issubdtype(np.dtype(dt), np.integer):
        v = rng.integers(-9, 10, shape)
        return np.where(v == 0, 3, v).astype(dt)
    v = rng.integers(-40, 40, shape) / 8
    return np.where(v == 0, 0.625, v).astype(dt)


def _check(op, x, s, cores):
    outs, res = simulate(op, (x, s), {}, cores=cores, strict=True)
    want = op.reference(x, s)
    outs = outs if isinstance(outs, tuple) else (outs,)
    want = want if isinstance(want, tuple) else (want,)
    for name, got, exp in zip(op.outputs, outs, want):
        assert got.shape == exp.shape, name
        np.testing.assert_array_equal(got.view(np.uint8), exp.view(np.uint8), err_msg=f"{op.name}.{name}")
    return res


def _twin_keys(op) -> set:
    """(dtype name, key) of the SCALAR twins the host may pick (the compiler's per-dtype choice:
    fewer vector instructions per tile than the splatting form)."""
    from backends.ascendc.compile import lower

    return {(v.dtype.name, v.key) for v in lower(op, warn_builtin=False).plan.scalar_twins}


@pytest.mark.parametrize("tname", ["f16", "f32", "bf16", "i32"])
def test_arith_scalar_either_side_bit_exact(ops, tname):
    """Seven uses of the size-1 input (both operand orders, max/min, a comparison): exact on
    every dtype, with the twin where the compiler found it cheaper, else the splat."""
    twins = _twin_keys(ops.arith)
    rng = np.random.default_rng(len(tname))
    target = get_target("ascend910b").aiv_cores
    for k, (sx, ss) in enumerate([((3, 700), (1,)), ((1, 1), (5, 1, 301)), ((4113,), (1, 1))]):
        x, s = _values(rng, sx, NP[tname]), _values(rng, ss, NP[tname])
        res = _check(ops.arith, x, s, (1, 8, target)[k % 3])
        twin = TWIN_S if s.size == 1 else TWIN_X
        assert res.tiling_key == (twin if (tname, twin) in twins else SCALAR)


@pytest.mark.parametrize("tname", ["f16", "f32", "bf16", "i32"])
def test_subtraction_uses_adds_with_the_negated_scalar(ops, tname):
    """x - s as Adds(x, -s) (exact: negation is exact and the sum is rounded once) where it is
    cheaper than a splat (f32, bf16, i32; f16 keeps its native f16 Sub on the splat)."""
    twins = _twin_keys(ops.shift)
    assert {t for t, k in twins if k == TWIN_S} == {"f32", "bf16", "i32"}
    rng = np.random.default_rng(11)
    x, s = _values(rng, (2, 5000), NP[tname]), _values(rng, (1, 1), NP[tname])
    res = _check(ops.shift, x, s, 8)
    assert res.tiling_key == (TWIN_S if tname != "f16" else SCALAR)


@pytest.mark.parametrize("tname", ["f16", "f32", "bf16"])
def test_division_by_a_size1_tensor_bit_exact(ops, tname):
    """Div has no scalar form: the twin Duplicates s once per core into one resident repeat that
    every tile reads (f32, bf16); f16 keeps its native f16 Div on the splat."""
    twins = _twin_keys(ops.ratio)
    assert {t for t, k in twins} == {"f32", "bf16"}
    rng = np.random.default_rng(7)
    for sx, ss, twin in [((2, 3000), (1,), TWIN_S), ((1,), (2, 3000), TWIN_X)]:
        x, s = _values(rng, sx, NP[tname]), _values(rng, ss, NP[tname])
        res = _check(ops.ratio, x, s, 8)
        assert res.tiling_key == (twin if tname != "f16" else SCALAR)


def _without_twins(project: Path, out: Path) -> Path:
    """A copy of ``project`` whose host never picks a SCALAR twin (splat per tile instead)."""
    shutil.copytree(project, out)
    host = next((out / "op_host").glob("*.cpp"))
    text, n = re.subn(r"if \(mode == MODE_SCALAR\) \{", "if (false) {", host.read_text())
    assert n == 1
    host.write_text(text)
    return out


@pytest.mark.parametrize(
    "opname, tname", [("shift", "f32"), ("shift", "bf16"), ("shift", "i32"), ("ratio", "f32")]
)
def test_vector_instructions_per_tile_drop(ops, tmp_path, opname, tname):
    """x - s (Adds with -s) and x / s (Div against one resident repeat of s, made once per core):
    the twin issues at least one V instruction per tile fewer than the splatting form (which
    Duplicates the value into every tile), reads the size-1 input with no DMA, and both are
    exact."""
    op = getattr(ops, opname)
    rng = np.random.default_rng(3)
    x, s = _values(rng, (300000,), NP[tname]), _values(rng, (1,), NP[tname])
    project = op.compile(out_dir=tmp_path / "base")
    splat = _without_twins(project, tmp_path / "splat")
    seen = {}
    for name, proj in (("twin", project), ("splat", splat)):
        y, res = simulate(op, (x, s), {}, cores=8, project=proj, strict=True)
        np.testing.assert_array_equal(y.view(np.uint8), op.reference(x, s).view(np.uint8))
        tiles = res.counters["MTE3"]["dma"]  # one output copy per tile
        seen[name] = (
            res.tiling_key,
            res.counters["V"]["instructions"] / tiles,
            res.counters["MTE2"]["dma"],
            tiles,
        )
    (tk, tv, tdma, ttiles), (sk, sv, sdma, stiles) = seen["twin"], seen["splat"]
    assert tk == TWIN_S and sk == SCALAR
    assert tv <= sv - 1, seen  # the splat's Duplicate per tile is gone
    assert tdma == ttiles and sdma == stiles, seen  # one DMA per tile: only x is copied in


@pytest.mark.parametrize("flip", [False, True])
def test_twins_of_every_static_key(ops, flip):
    """Two static keys (flip): each has its own twins, after every mode's keys (twin key =
    ATTR_KEYS x (5 + inputs) + input x ATTR_KEYS + attribute index, here 2 x 7 + i x 2 + flip)."""
    twins = _twin_keys(ops.flipped)
    rng = np.random.default_rng(5)
    for tname in ("f32", "i32"):
        for sx, ss, i in [((3, 999), (1,), 1), ((1, 1), (2, 2000), 0)]:
            x, s = _values(rng, sx, NP[tname]), _values(rng, ss, NP[tname])
            res = _check_attrs(ops.flipped, x, s, 8, flip=flip)
            key = 14 + 2 * i + int(flip)
            assert res.tiling_key == (key if (tname, key) in twins else 1 * 2 + int(flip)), (tname, i)
    assert twins  # some dtype takes a twin


def _check_attrs(op, x, s, cores, **attrs):
    y, res = simulate(op, (x, s), attrs, cores=cores, strict=True)
    np.testing.assert_array_equal(y.view(np.uint8), op.reference(x, s, **attrs).view(np.uint8))
    return res
