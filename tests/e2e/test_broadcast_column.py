"""COL mode of broadcast operators ([M, N] with [M, 1]): with tiles of 8 rows or more the column
values come in with one DataCopyPad and are spread by Brcb and a level-0 Copy with source block
stride 0, not read from GM by the scalar unit (GetValue) and splatted row by row; with fewer rows
per tile (long rows, row chunks) the values of a group of rows come by one DataCopyPad, one Brcb
puts each in a block and each row is a Copy of its block. Bit for bit against numpy with tails, on
1, 3, 8 and 48 cores: one block per row (Brcb alone), rows copied along, groups of long rows and of
row chunks (cores starting mid-row), more groups than the two halves of the row buffer."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import dsl
from backends.ascendc.sim.trace import PIPE_S
from backends.ascendc.simulate import simulate
from dsl.dtypes import dtype_from_name

ROOT = Path(__file__).resolve().parents[2]
COL = 3  # BcMode::COL's tiling key (one static-attribute key)


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bccol_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, name)


greater = _load("greater")
PICK = """
    import dsl
    from dsl import Tensor, f16, bf16, f32, i32

    @dsl.op(dtypes=(f16, f32, bf16, i32), broadcast=True)
    def pick(x: Tensor, c: Tensor):
        return dsl.where(x > 0, c, x)
    """

# (rows, cols): >= 8 rows per tile with one block per row (cols 5, 8) or more (33, 100, 257); tiles
# of fewer than 8 rows (long rows: 9 x 5000; 130 x 3000, 2 rows a tile, 2 groups on one core) and
# row chunks (a row longer than a tile: 3 x 70001; 130 x 8000, 2 chunks a row, 2 groups on one core)
SHAPES = [
    (37, 5),
    (1000, 8),
    (301, 33),
    (77, 100),
    (40, 257),
    (9, 5000),
    (130, 3000),
    (3, 70001),
    (130, 8000),
]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.itemsize])


def _column_values(rng, shape, np_type):
    """Values whose bits must survive: signed zeros, infinities, NaN, subnormals (floats)."""
    if np.issubdtype(np_type, np.integer):
        return rng.integers(-(2**31), 2**31 - 1, shape).astype(np_type)
    v = rng.standard_normal(shape).astype(np.float32).astype(np_type)
    flat = v.reshape(-1)
    special = np.array([-0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-38], np.float32).astype(np_type)
    flat[: min(flat.size, special.size)] = special[: flat.size]
    return v


@pytest.mark.parametrize("shape", SHAPES, ids=[f"{m}x{n}" for m, n in SHAPES])
@pytest.mark.parametrize("tname", ["f32", "f16", "bf16", "i32"])
def test_column_values_spread_bit_exact(write_module, shape, tname):
    pick = write_module(PICK).pick
    t = dtype_from_name(tname)
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    m, n = shape
    x = (rng.integers(-2, 3, (m, n))).astype(t.np)
    c = _column_values(rng, (m, 1), t.np)
    for cores in (1, 3, 8, 48):
        y, res = simulate(pick, (x, c), {}, cores=cores, dtype=t, strict=True)
        assert res.tiling_key == COL
        want = np.where(x > 0, np.broadcast_to(c, x.shape), x)
        np.testing.assert_array_equal(_bits(y), _bits(want), err_msg=f"{tname} {shape} on {cores} cores")


@pytest.mark.parametrize("tname", ["f32", "f16", "i8", "u8"])
def test_column_compare_both_sides(tname):
    """x > column and column > x; 8-bit columns (no Brcb/Copy on A2) keep the per-row splat."""
    t = dtype_from_name(tname)
    rng = np.random.default_rng(5)
    for m, n in [(37, 5), (77, 100), (9, 5000)]:
        a = rng.integers(0, 6, (m, n)).astype(t.np)
        b = rng.integers(0, 6, (m, 1)).astype(t.np)
        for x, y in ((a, b), (b, a)):
            got, res = simulate(greater, (x, y), {}, cores=3, dtype=t, strict=True)
            assert res.tiling_key == COL
            np.testing.assert_array_equal(got, x > y, err_msg=f"{tname} {x.shape} > {y.shape}")


@pytest.mark.parametrize("shape", [(4096, 16), (200, 3000), (100, 9000)], ids=["short", "long", "chunked"])
def test_no_scalar_read_per_row(shape):
    """f32 [M, N] > [M, 1] on 8 cores, short rows (8+ a tile), long rows (2 a tile) and row
    chunks: the scalar unit reads no GM value (it did one per row); Brcb and Copy spread the
    column."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal((shape[0], 1)).astype(np.float32)
    got, res = simulate(greater, (a, b), {}, cores=8, dtype=dsl.f32, strict=True, trace=True)
    np.testing.assert_array_equal(got, a > b)
    trace = res.trace
    names = trace.apis
    for block in range(trace.blocks):
        recs = trace.block(block)
        scalar_reads = [names[a] for a in recs["api"][recs["pipe"] == PIPE_S] if "GetValue" in names[a]]
        assert scalar_reads == [], (block, scalar_reads[:3])
        used = {names[a] for a in recs["api"]}
        assert {"Brcb", "Copy"} <= used, used


@pytest.mark.parametrize("tname", ["f16", "bf16", "f32"])
def test_column_compare_on_ascend950(tname):
    t = dtype_from_name(tname)
    rng = np.random.default_rng(9)
    for m, n in [(301, 33), (9, 5000), (3, 70001)]:
        a = rng.integers(-4, 5, (m, n)).astype(t.np)
        b = rng.integers(-4, 5, (m, 1)).astype(t.np)
        got, res = simulate(greater, (a, b), {}, target="ascend950", cores=4, dtype=t, strict=True)
        assert res.tiling_key == COL
        np.testing.assert_array_equal(got, a > b, err_msg=f"{tname} {a.shape}")


GENERAL = 4  # BcMode::GENERAL's tiling key
outer_max = _load("outer_max")


def _scalar_reads(trace) -> list[str]:
    names = trace.apis
    found = []
    for block in range(trace.blocks):
        recs = trace.block(block)
        found += [names[a] for a in recs["api"][recs["pipe"] == PIPE_S] if "GetValue" in names[a]]
    return found


@pytest.mark.parametrize(
    "n, m", [(300, 9), (1000, 16), (9, 5000), (3, 70001)], ids=["short", "pack", "long", "chunked"]
)
@pytest.mark.parametrize("tname", ["f32", "bf16", "i32"])
def test_outer_column_is_spread_in_general_mode(n, m, tname):
    """GENERAL's outer [N, 1] with [1, M] (outer_max): the column moves on every outer axis (kind
    COLUMN), so it comes in by one DataCopyPad per tile (or group) and Brcb/Copy spread it; the
    scalar unit reads no GM value per row (it read one per row). Bit-exact, on 1 and 8 cores."""
    t = dtype_from_name(tname)
    rng = np.random.default_rng(n + m)
    a = _column_values(rng, (n, 1), t.np)
    b = _column_values(rng, (1, m), t.np)
    if tname == "bf16":  # maximum of NaN is NaN either way; keep the comparison about the spread
        a, b = np.nan_to_num(a.astype(np.float32)).astype(t.np), np.nan_to_num(b.astype(np.float32)).astype(
            t.np
        )
    for cores in (1, 8):
        got, res = simulate(outer_max, (a, b), {}, cores=cores, dtype=t, strict=True, trace=True)
        assert res.tiling_key == GENERAL
        np.testing.assert_array_equal(
            _bits(got), _bits(np.maximum(a, b)), err_msg=f"{tname} on {cores} cores"
        )
        assert _scalar_reads(res.trace) == []


def test_a_column_broadcast_on_an_outer_axis_is_read_per_row():
    """[4, 3, 5] > [3, 1]: the column repeats along axis 0 (kind PER_ROW, the odometer finds each
    row's value): still right, in GENERAL mode."""
    rng = np.random.default_rng(2)
    for sa, sb in (((4, 3, 5), (3, 1)), ((2, 3, 9000), (3, 1)), ((5, 1, 7), (3, 1))):
        a = rng.integers(-3, 4, sa).astype(np.float32)
        b = rng.integers(-3, 4, sb).astype(np.float32)
        got, res = simulate(greater, (a, b), {}, cores=3, dtype=dsl.f32, strict=True)
        assert res.tiling_key == GENERAL
        np.testing.assert_array_equal(got, a > b, err_msg=f"{sa} > {sb}")
