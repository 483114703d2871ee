"""broadcast=True operators on the emulator (strict mode) against numpy: every kernel mode (FLAT,
SCALAR, ROW, COL, GENERAL), random shape pairs of 1-8 dims with 0-size and size-1 axes, every
dtype of the Greater family, cores {1, 8, the target's}; seed 003's C2 counters; shapes that do
not broadcast; every flag of a broadcast kernel needed (deleting one is reported)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import dsl
from dsl.dtypes import dtype_from_name
from backends.ascendc.simulate import generated_project, simulate
from backends.ascendc.sim import simulate_project
from backends.ascendc.targets import get_target

ROOT = Path(__file__).resolve().parents[2]
MODES = {"FLAT": 0, "SCALAR": 1, "ROW": 2, "COL": 3, "GENERAL": 4, "RESIDENT0": 5, "RESIDENT1": 6}
# SCALAR twins (two inputs, one static key): input i read as a Scalar, vector-scalar instructions
MODES.update(SCALAR_X1=7, SCALAR_X2=8)
TWIN_DTYPES = ("f16", "f32", "bf16")  # dtypes checked to take greater's twin (i32 keeps the splat)
NP = {t: dtype_from_name(t).np.type for t in ("f16", "f32", "bf16", "i8", "i32", "u8")}


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bc_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, name)


greater = _load("greater")
bias_add = _load("bias_add")
masked_fill = _load("masked_fill")
outer_max = _load("outer_max")


def _values(rng, shape, dt):
    """Small values, exact in every dtype, with many ties so equal elements are exercised."""
    if np.issubdtype(np.dtype(dt), np.integer):
        low = 0 if np.dtype(dt) == np.uint8 else -6
        return rng.integers(low, 6, shape).astype(dt)
    return (rng.integers(-24, 24, shape) / 4).astype(dt)


def _run(op, args, cores, **attrs):
    out, res = simulate(op, args, attrs, cores=cores, strict=True)
    return out, res


def _mode(res, op) -> str:
    return {v: k for k, v in MODES.items()}[res.tiling_key]


# -- every mode, named shapes ------------------------------------------------------------------

MODE_CASES = [
    ((37,), (37,), "FLAT"),
    ((3, 0), (1,), "FLAT"),  # 0-size output: one core, nothing to do
    ((4113,), (1,), "SCALAR"),
    ((1,), (2, 3, 5), "SCALAR"),
    ((5, 33), (33,), "ROW"),
    ((33,), (70, 33), "ROW"),  # left broadcast (the mirror)
    ((7, 1, 2, 33), (1, 33), "ROW"),  # size-1 axes dropped, leading axes merged
    ((40, 300), (300,), "RESIDENT1"),  # rows of >= 128: math row by row against the resident row
    ((300,), (9, 1, 300), "RESIDENT0"),
    ((3, 77, 1000), (1, 1, 1000), "RESIDENT1"),
    ((5, 33), (5, 1), "COL"),
    ((1, 9), (300, 1), "GENERAL"),  # outer: a row and a column
    ((4, 3, 5), (3, 1), "GENERAL"),
    ((2, 1, 4), (3, 1), "GENERAL"),
    ((2, 3, 9000), (3, 1), "GENERAL"),  # rows longer than a tile: chunks
    ((40, 3000), (3000,), "GENERAL"),  # row too long to keep resident: re-read per tile
]


@pytest.mark.parametrize("sa, sb, mode", MODE_CASES, ids=[f"{m}-{a}-{b}" for a, b, m in MODE_CASES])
@pytest.mark.parametrize("tname", ["f32", "i32"])
def test_greater_every_mode(sa, sb, mode, tname):
    rng = np.random.default_rng(len(sa) * 31 + len(sb))
    a, b = _values(rng, sa, NP[tname]), _values(rng, sb, NP[tname])
    y, res = _run(greater, (a, b), cores=8)
    if mode == "SCALAR" and tname in TWIN_DTYPES and a.size != b.size:
        mode = "SCALAR_X1" if a.size == 1 else "SCALAR_X2"
    assert _mode(res, greater) == mode
    assert y.shape == np.broadcast_shapes(sa, sb) and y.dtype == np.bool_
    np.testing.assert_array_equal(y, a > b)


# -- random shape pairs of 1-8 dims x every dtype x cores ---------------------------------------


def random_pair(rng, max_elems=3000):
    """Two shapes that broadcast: an output shape of 1-8 dims (sizes 0-9, often 1), each input a
    suffix of it with some axes set to 1."""
    while True:
        rank = int(rng.integers(1, 9))
        out = [
            int(rng.choice([1, 2, 3, 5, 7, 9, 0], p=[0.3, 0.2, 0.15, 0.15, 0.1, 0.07, 0.03]))
            for _ in range(rank)
        ]
        if int(np.prod(out)) <= max_elems:
            break
    shapes = []
    for _ in range(2):
        drop = int(rng.integers(0, rank))  # leading axes this input lacks
        s = [d if rng.random() < 0.6 else 1 for d in out[drop:]]
        shapes.append(tuple(s) if s else (1,))
    return tuple(shapes)


def _pairs(n, seed):
    rng = np.random.default_rng(seed)
    return [random_pair(rng) for _ in range(n)]


def _check_pairs(op_dtypes, pairs, seed):
    rng = np.random.default_rng(seed)
    target_cores = get_target("ascend910b").aiv_cores
    for k, (sa, sb) in enumerate(pairs):
        tname = op_dtypes[k % len(op_dtypes)]
        cores = (1, 8, target_cores)[k % 3]
        a, b = _values(rng, sa, NP[tname]), _values(rng, sb, NP[tname])
        y, _ = _run(greater, (a, b), cores=cores)
        assert y.shape == np.broadcast_shapes(sa, sb), (sa, sb)
        np.testing.assert_array_equal(y, a > b, err_msg=f"{tname} {sa} > {sb} on {cores} cores")


def test_random_shape_pairs_sample():
    _check_pairs(list(NP), _pairs(12, 0), 0)


@pytest.mark.slow
@pytest.mark.parametrize("tname", list(NP))
def test_random_shape_pairs_every_dtype(tname):
    _check_pairs([tname], _pairs(30, 100 + list(NP).index(tname)), 1)


@pytest.mark.parametrize("tname", list(NP))
def test_greater_resident_every_dtype(tname):
    """RESIDENT modes (row-by-row math against the resident row) on both sides, every dtype."""
    rng = np.random.default_rng(9)
    target_cores = get_target("ascend910b").aiv_cores
    for k, (sa, sb, mode) in enumerate(
        [((37, 300), (300,), "RESIDENT1"), ((1, 700), (5, 3, 700), "RESIDENT0")]
    ):
        a, b = _values(rng, sa, NP[tname]), _values(rng, sb, NP[tname])
        y, res = _run(greater, (a, b), cores=(1, 8, target_cores)[(k + len(tname)) % 3])
        assert _mode(res, greater) == mode
        np.testing.assert_array_equal(y, a > b, err_msg=f"{tname} {sa} > {sb}")


@pytest.mark.parametrize(
    "tname, mirror, cores",
    [("i32", False, 40), ("f16", True, 8), ("i8", False, 1)],
    ids=["C2", "mirror", "i8"],
)
def test_rows_longer_than_the_resident_cap(tname, mirror, cores):
    """[64, 50000] vs [50000]: the row (195 KiB as i32) is far over the 4 KiB resident cap and over
    a tile, so each row is cut into tile-sized chunks (mode GENERAL, bcChunks > 1) and the
    broadcast row's chunk is read next to each chunk of the moving input."""
    rng = np.random.default_rng(50000)
    big, row = _values(rng, (64, 50000), NP[tname]), _values(rng, (50000,), NP[tname])
    args = (row, big) if mirror else (big, row)
    y, res = _run(greater, args, cores=cores)
    assert _mode(res, greater) == "GENERAL" and res.block_dim == cores
    np.testing.assert_array_equal(y, args[0] > args[1])
    c, size = res.counters, np.dtype(NP[tname]).itemsize
    assert c["MTE3"]["bytes_out"] == 64 * 50000  # every output byte written once
    assert c["MTE2"]["bytes_in"] == 2 * 64 * 50000 * size  # each chunk and its row chunk, once


def _always_two_slots(project: Path, out: Path) -> Path:
    """A copy of ``project`` whose host never takes the one-slot guard."""
    shutil.copytree(project, out)
    host = out / "op_host" / "greater.cpp"
    text, n = re.subn(r"BC_PIPELINE_MAX_PACK =\s*16;", "BC_PIPELINE_MAX_PACK = 1000000;", host.read_text())
    assert n == 1
    host.write_text(text)
    return out


@pytest.mark.parametrize(
    "inner, slots, tname", [(511, 1, "i32"), (300, 1, "f16"), (1023, 2, "i32"), (2000, 2, "i8")]
)
def test_double_buffering_guard(tmp_path, inner, slots, tname):
    """Seed 003's guard: a RESIDENT mode runs rows shorter than 964 elements (more than 16 per
    16384-element block) with one ping-pong slot, longer rows with two. One slot pre-issues and
    drains one slot's reverse flags per core (two fewer SetFlags per core used for greater), and the
    results are exact either way."""
    project = greater.compile(out_dir=tmp_path / "base")
    two = _always_two_slots(project, tmp_path / "two")
    rng = np.random.default_rng(inner)
    a, b = _values(rng, (600, inner), NP[tname]), _values(rng, (inner,), NP[tname])  # blocks per core
    cores = 8
    counts = []
    for proj in (project, two):
        y, res = simulate(greater, (a, b), {}, cores=cores, project=proj, strict=True)
        assert _mode(res, greater) == "RESIDENT1"
        np.testing.assert_array_equal(y, a > b)
        counts.append(sum(res.counters[p]["set_flags"] for p in ("V", "MTE2", "MTE3")))
    # greater pre-issues two reverse flags per slot (V -> MTE2 and MTE3 -> V or MTE3 -> MTE2)
    assert counts[1] - counts[0] == (0 if slots == 2 else 2 * res.block_dim) and res.block_dim > 1


# -- other operators: float math, a pinned i8 mask, two broadcast inputs -------------------------


@pytest.mark.parametrize("tname", ["f32", "f16", "bf16", "i32"])
def test_bias_add(tname):
    rng = np.random.default_rng(3)
    x, bias = _values(rng, (3, 17, 40), NP[tname]), _values(rng, (40,), NP[tname])
    y, res = _run(bias_add, (x, bias), cores=8)
    assert _mode(res, bias_add) == "ROW"
    np.testing.assert_array_equal(y, (x.astype(np.float32) + bias.astype(np.float32)).astype(NP[tname]))
    x, bias = _values(rng, (2, 9, 768), NP[tname]), _values(rng, (768,), NP[tname])
    y, res = _run(bias_add, (x, bias), cores=8)
    assert _mode(res, bias_add) == "RESIDENT1"
    np.testing.assert_array_equal(y, (x.astype(np.float32) + bias.astype(np.float32)).astype(NP[tname]))


@pytest.mark.parametrize("tname", ["f32", "f16"])
def test_masked_fill(tname):
    rng = np.random.default_rng(4)
    x = _values(rng, (3, 20, 20), NP[tname])
    mask = (rng.uniform(0, 1, (3, 1, 20)) < 0.3).astype(np.int8)
    y, res = _run(masked_fill, (x, mask), cores=8, value=-100.0)
    assert _mode(res, masked_fill) == "GENERAL"
    np.testing.assert_array_equal(y, np.where(mask != 0, NP[tname](-100.0), x))


@pytest.mark.parametrize("tname", ["f32", "bf16", "i32"])
def test_outer_max(tname):
    rng = np.random.default_rng(5)
    a, b = _values(rng, (45, 1), NP[tname]), _values(rng, (1, 77), NP[tname])
    y, res = _run(outer_max, (a, b), cores=8)
    assert _mode(res, outer_max) == "GENERAL"
    np.testing.assert_array_equal(y, np.maximum(a, b))


def test_three_inputs_each_broadcast_differently(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32

        @dsl.op(dtypes=(f32,), broadcast=True)
        def pick(c: Tensor, a: Tensor, b: Tensor):
            return dsl.where(c > 0, a, b)
        """)
    rng = np.random.default_rng(6)
    c = _values(rng, (4, 1, 6), np.float32)
    a = _values(rng, (5, 1), np.float32)
    b = _values(rng, (1,), np.float32)
    y, res = _run(mod.pick, (c, a, b), cores=3)
    np.testing.assert_array_equal(y, np.where(c > 0, a, b))


# -- shapes that do not broadcast ----------------------------------------------------------------


def test_incompatible_shapes_are_an_argument_error():
    a, b = np.zeros((3, 4), np.float32), np.zeros((2, 3, 5), np.float32)
    with pytest.raises(
        dsl.ArgumentError,
        match=r"inputs of greater do not broadcast: 'x1' \[3, 4\] and 'x2' \[2, 3, 5\] differ at axis -1 "
        r"\(counted from the last\): 4 vs 5",
    ):
        greater.simulate(a, b)
    with pytest.raises(dsl.ArgumentError, match="do not broadcast"):
        greater.reference(a, b)


def test_host_rejects_incompatible_shapes_naming_them():
    """The generated host code checks the shapes itself (a caller on a real NPU has no Python):
    InferShape, which runs first, and TilingFunc share the check and its message."""
    project = generated_project(greater, "ascend910b")
    a, b = np.zeros((6, 4), np.float32), np.zeros((5, 1), np.float32)
    with pytest.raises((dsl.errors.InferShapeError, dsl.errors.TilingError)) as e:
        simulate_project(
            project,
            "greater",
            inputs=[a, b],
            outputs=[((6, 4), np.bool_)],
            attrs=[],
            target=get_target("ascend910b"),
        )
    assert "inputs x1 [6, 4] and x2 [5, 1] do not broadcast: axis -2 (counted from the last)" in str(e.value)
    assert "has size 6 in one and 5 in the other" in str(e.value)


# -- seed 003's C2 case: counters --------------------------------------------------------------


def _c2_counters(rows, inner, cores, mirror):
    rng = np.random.default_rng(7)
    big = rng.integers(-100, 100, (rows, inner)).astype(np.int32)
    row = rng.integers(-100, 100, (1, inner)).astype(np.int32)
    args = (row, big) if mirror else (big, row)
    y, res = simulate(greater, args, {}, cores=cores)
    np.testing.assert_array_equal(y, args[0] > args[1])
    return res


@pytest.mark.parametrize("mirror", [False, True], ids=["C2", "mirror"])
def test_c2_scaled_counters(mirror):
    """[4032, 1023] i32 vs [1, 1023] (seed 003's C2 with a tenth of the rows) on 40 cores: the
    broadcast row is copied in once per core, every input byte is read once, and each output copy
    is one 2-D write of a packed block of rows."""
    rows, inner, cores = 4032, 1023, 40
    res = _c2_counters(rows, inner, cores, mirror)
    c = res.counters
    assert res.block_dim == cores and res.tiling_key == MODES["RESIDENT0" if mirror else "RESIDENT1"]
    blocks = c["MTE3"]["dma"]
    assert c["MTE2"]["dma"] == blocks + cores  # one 2-D copy per block + the row once per core
    assert c["MTE2"]["bytes_in"] == rows * inner * 4 + cores * inner * 4
    assert c["MTE3"]["bytes_out"] == rows * inner
    assert c["MTE3"]["bursts"] == rows  # one burst per row inside the 2-D copies
    assert blocks <= rows / 14  # 16 rows of 1024 per block, split over 40 cores


@pytest.mark.slow
@pytest.mark.parametrize("mirror", [False, True], ids=["C2", "mirror"])
def test_c2_full_counters(mirror):
    rows, inner, cores = 40320, 1023, 40
    res = _c2_counters(rows, inner, cores, mirror)
    c = res.counters
    assert c["MTE2"]["dma"] == c["MTE3"]["dma"] + cores
    assert c["MTE2"]["bytes_in"] == rows * inner * 4 + cores * inner * 4  # 165 MiB + a row per core
    assert c["l2_hints"] == cores  # the 165 MiB stream bypasses L2; the row stays cached
    assert c["MTE3"]["dma"] <= 2688  # seed 003: one 2-D write per packed block


# -- every flag of a broadcast kernel is needed ---------------------------------------------------


def _live_flag_lines(lines, env):
    from tests.e2e.test_sync_deletion import live_lines

    text = [line.replace("BcMode::", "").replace("MODE != ", "MODE ^ ") for line in lines]
    # Guards on a helper's own template parameter (sizeof(U), IsSameType<U, ...>) hold no flags.
    text = [re.sub(r"constexpr \((sizeof|IsSameType).*\) \{$", "constexpr (True) {", line) for line in text]
    return [i for i in sorted(live_lines(text, env)) if re.search(r"\b(SetFlag|WaitFlag)<", lines[i])]


def _has_resident_row(*shapes) -> bool:
    """An input is one row for every output row (kind RESIDENT): size 1 on every outer axis."""
    out = np.broadcast_shapes(*shapes)
    padded = [(1,) * (len(out) - len(s)) + tuple(s) for s in shapes]
    return int(np.prod(out[:-1])) > 1 and any(
        s[-1] == out[-1] > 1 and all(d == 1 for d in s[:-1]) for s in padded
    )


@pytest.mark.parametrize(
    "sa, sb, mode",
    [
        ((64, 1023), (1023,), "RESIDENT1"),
        ((200, 300), (300,), "RESIDENT1"),  # short rows: one slot (seed 003's guard), 6 blocks
        ((64, 100), (100,), "ROW"),
        ((30, 1, 200), (4, 1), "GENERAL"),
        # an outer [300, 1] with [1, 200]: the column by DataCopyPad and Brcb, the row resident
        pytest.param((1, 200), (300, 1), "GENERAL", marks=pytest.mark.slow),
        ((30000,), (1,), "SCALAR_X2"),  # the SCALAR twin: x2 read as a Scalar, 3 tiles on one core
        ((3000, 33), (3000, 1), "COL"),  # column values by DataCopyPad into the row buffer, several tiles
        # 5 rows a tile: the values of 110-row groups by one DataCopyPad, 3 groups on the core
        pytest.param((240, 1500), (240, 1), "COL", marks=pytest.mark.slow),
    ],
    ids=[
        "RESIDENT",
        "RESIDENT-one-slot",
        "ROW",
        "GENERAL",
        "GENERAL-column",
        "SCALAR-twin",
        "COL",
        "COL-groups",
    ],
)
def test_every_flag_of_a_broadcast_kernel_is_needed(tmp_path, sa, sb, mode):
    project = greater.compile(out_dir=tmp_path / "base")
    kernel = project / "op_kernel" / "greater.cpp"
    lines = kernel.read_text().splitlines()
    flags = {f"IS_{n}": False for n in ("HALF", "FLOAT", "BF16", "INT8T", "INT32", "UINT8T")}
    twin = mode.startswith("SCALAR_")  # a twin runs the FLAT path of its own class instance
    env = dict(flags, IS_FLOAT=True, MODE=MODES["FLAT" if twin else mode], **MODES)
    env.update(BcScalar__TENSOR=0, BcScalar__SCALAR_X1=1, BcScalar__SCALAR_X2=2)
    env.update(BC_SCALAR={"SCALAR_X1": 1, "SCALAR_X2": 2}.get(mode, 0))
    env.update(RES_INPUT=MODES[mode] - 5 if mode.startswith("RESIDENT") else -1)
    env.update(ROWWISE=mode.startswith("RESIDENT"))
    live = _live_flag_lines(lines, env)
    if mode in ("GENERAL", "COL") and not _has_resident_row(sa, sb):
        # no input is a resident row: InitBroadcast's `if (resident)` flags do not run
        start = next(i for i, line in enumerate(lines) if line.strip() == "if (resident) {")
        live = [i for i in live if not start < i < start + 3]
    assert len(live) >= 8
    rng = np.random.default_rng(8)
    a, b = _values(rng, sa, np.float32), _values(rng, sb, np.float32)
    y, res = simulate(greater, (a, b), {}, cores=1, project=project, strict=True)
    assert res.tiling_key == MODES[mode]
    np.testing.assert_array_equal(y, a > b)
    missed = []
    for i in live:
        case = tmp_path / f"del{i}"
        shutil.copytree(project, case)
        (case / "op_kernel" / "greater.cpp").write_text("\n".join(lines[:i] + lines[i + 1 :]) + "\n")
        try:
            simulate(greater, (a, b), {}, cores=1, project=case, strict=True)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(case)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)
