"""The numbers behind a generated project, checked against an independent model: tiling keys
(README table and the key the host tiling picks at run time), tile lengths against the target's
usable UB, and the core split and DMA traffic the emulator counts per core.

The split model is seed 000's (3.2.1.1), as split-cores documents it: the flat range is cut into
32-byte blocks of the narrowest GM tensor; ``used = min(cores, ceil(n / (4 KiB / narrowest)))``
cores take part, each gets ``blocks // used`` blocks and the first ``blocks % used`` one more;
the last block may be partial. Every core copies its slice in ``ceil(count / tile)`` tiles,
one DMA per tensor input and per output each.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import dsl
from backends.ascendc.simulate import simulate
from backends.ascendc.targets import get_target


import ew_cases as C  # tests/e2e is on sys.path: pytest's default (prepend) import mode

TARGET = "ascend910b"
USABLE_UB = get_target(TARGET).ub_usable_bytes


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiling_numbers")
    made = {}

    def get(stem):
        if stem not in made:
            made[stem] = C.load_op(stem).compile(target=TARGET, out_dir=root / stem)
        return made[stem]

    return get


def readme_keys(project: Path) -> dict[tuple[str, int], tuple[str, int, int]]:
    """(T, key) -> (static attributes, tile, UB bytes per element) from the project README (the
    tiling key is the static attributes' index; T is the binary's element type)."""
    rows = re.findall(
        r"^\| (\d+) \| (\w+) \| ([^|]*) \| (\d+) \| (\d+) \|$", (project / "README.md").read_text(), re.M
    )
    return {(t, int(k)): (attrs.strip(), int(tile), int(bpe)) for k, t, attrs, tile, bpe in rows}


def static_combos(op) -> list[dict]:
    """Every static-attribute combination, first attribute varying fastest (the tiling-key order)."""
    decls = [a for a in op._def.attrs if a.static]
    values = [(False, True) if a.kind == "bool" else a.choices for a in decls]
    combos = [dict(zip((a.name for a in decls), reversed(c))) for c in itertools.product(*reversed(values))]
    return combos


def _fmt(attrs: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in attrs.items())


@pytest.mark.parametrize("stem", [c.stem for c in C.CASES])
def test_readme_lists_every_tiling_key_and_a_tile_that_fills_the_ub(projects, stem):
    op = C.load_op(stem)
    keys = readme_keys(projects(stem))
    combos = static_combos(op)
    want = {}
    for t in op.dtypes:
        for i, combo in enumerate(combos):
            want[(t.name, i)] = _fmt(combo) or "-"
    assert {k: v[0] for k, v in keys.items()} == want
    for key, (_, tile, bpe) in keys.items():
        assert tile % 64 == 0, (key, tile)  # a whole 256-byte repeat of the narrowest buffer (<= 4 B)
        # the largest that fits in whole 512-byte GM units of the narrowest GM tensor (<= 512 elements)
        assert tile * bpe <= USABLE_UB < (tile + 512) * bpe, (key, tile, bpe)


def test_adamw_tiles():
    """AdamW f32: 36 B per element, 5120-element tiles, whole 512-byte GM units (the hand-written
    kernel uses 4912)."""
    op = C.load_op("apply_adam_w")
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as d:
        keys = readme_keys(op.compile(target=TARGET, out_dir=d))
    assert keys[("f32", 0)][1:] == (5120, 36) and keys[("f32", 3)][1:] == (4224, 44)
    assert keys[("f16", 0)][1:] == (5632, 32)  # schedule-vector: the widened inputs die sooner


def _tiles(op, dt, target: str, skip: str = "") -> dict[int, int]:
    """Tiling key -> tile of one dtype after the elementwise pipeline (without the pass ``skip``)."""
    from backends.ascendc.host_broadcast import ub_reserve
    from dsl.ir import Module
    from passes import PassManager
    from passes.pipelines import elementwise_pipeline

    func = op.func(dt)
    module = Module([func])
    pipeline = elementwise_pipeline(get_target(target).ub_usable_bytes - ub_reserve(func))
    PassManager([p for p in pipeline if p.name != skip]).run(module)
    return {f.attributes["tiling_key"]: f.loop().attrs["tile"] for f in module.funcs}


def _flat_examples() -> list[str]:
    """Every example the elementwise pipeline compiles (not the row or matmul operators)."""
    from passes.rows import row_layout

    def flat(stem: str) -> bool:
        func = C.load_op(stem).func(C.load_op(stem).dtypes[0])
        return not any(op.opname == "matmul" for op in func.walk()) and row_layout(func) is None

    return [s for s in sorted(p.stem for p in C.EXAMPLES.glob("*.py")) if flat(s)]


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("stem", _flat_examples())
def test_schedule_vector_never_shrinks_a_tile(stem, target):
    """Every variant's tile is at least the one the unscheduled program order gets (issue 11:
    schedule-vector once took greater f32 from 7680 to 7168 elements for one barrier less)."""
    op = C.load_op(stem)
    for dt in op.dtypes:
        scheduled, plain = _tiles(op, dt, target), _tiles(op, dt, target, skip="schedule-vector")
        assert scheduled.keys() == plain.keys()
        for key, tile in scheduled.items():
            assert tile >= plain[key], (stem, dt.name, key, tile, plain[key])


def _sample_static(op, k: int) -> dict:
    combos = static_combos(op)
    return combos[k % len(combos)]


@pytest.mark.parametrize("stem", [c.stem for c in C.CASES])
def test_host_tiling_picks_the_readme_key(projects, stem):
    """For every dtype and static combination the host TilingFunc reports the README's key."""
    op = C.load_op(stem)
    case = C.CASES_BY_STEM[stem]
    keys = readme_keys(projects(stem))
    for t in op.dtypes:
        for i, combo in enumerate(static_combos(op)):
            inputs = case.inputs(t, (40,), case.attrs(**combo))
            _, result = simulate(op, inputs, combo, target=TARGET, cores=2, project=projects(stem))
            assert result.tiling_key == i and keys[(t.name, i)][0] == (_fmt(combo) or "-")


def expected_split(n: int, cores: int, narrowest: int) -> list[int]:
    granule = 512 // narrowest  # 512-byte GM units of the narrowest tensor (split-cores)
    used = max(1, min(cores, math.ceil(n / (4096 // narrowest))))
    blocks = math.ceil(n / granule)
    small, tail = divmod(blocks, used)
    counts = []
    for i in range(used):
        start = (i * small + min(i, tail)) * granule
        stop = min(start + (small + (i < tail)) * granule, n)
        counts.append(max(0, stop - start))
    return counts


SPLIT_CASES = [
    ("lerp", "f32", 1, 8),
    ("lerp", "f32", 33, 8),
    ("lerp", "f16", 2048 * 3 + 5, 8),  # three cores, a partial block on the last
    ("lerp", "bf16", 48 * 2048 + 17, None),  # every core, remainder blocks to the first
    ("lerp", "f32", 4 * 11712 + 100, 1),  # one core, several tiles and a tail
    ("sgd_momentum", "f16", 100003, 8),  # two outputs
    ("is_close", "f32", 3 * 4096 + 1, 8),  # bool output: 1-byte units of 512 elements
    ("axpby", "bf16", 70001, 5),  # a pinned Scalar[f32] (no DMA)
]


@pytest.mark.parametrize(
    "stem, dt, n, cores", SPLIT_CASES, ids=[f"{s}-{d}-n{n}-c{c}" for s, d, n, c in SPLIT_CASES]
)
def test_core_split_and_dma_counts(projects, stem, dt, n, cores):
    op = C.load_op(stem)
    case = C.CASES_BY_STEM[stem]
    t = getattr(dsl, dt)
    inputs = case.inputs(t, (n,), case.attrs())
    tensors = [a for a, d in zip(inputs, op._def.inputs) if a is not None and not d.is_scalar]
    outs, result = simulate(op, inputs, {}, target=TARGET, cores=cores, project=projects(stem))
    outs = outs if isinstance(outs, tuple) else (outs,)
    narrowest = min(a.dtype.itemsize for a in (*tensors, *outs))
    counts = expected_split(n, cores or get_target(TARGET).aiv_cores, narrowest)
    tile = readme_keys(projects(stem))[(dt, result.tiling_key)][1]
    assert result.block_dim == len(counts)
    per_block = result.counters["per_block"]
    assert len(per_block) == len(counts)
    in_bytes = sum(a.dtype.itemsize for a in tensors)
    out_bytes = sum(o.dtype.itemsize for o in outs)
    got = [
        (b["MTE2"]["bytes_in"], b["MTE3"]["bytes_out"], b["MTE2"]["dma"], b["MTE3"]["dma"]) for b in per_block
    ]
    want = [
        (c * in_bytes, c * out_bytes, math.ceil(c / tile) * len(tensors), math.ceil(c / tile) * len(outs))
        for c in counts
    ]
    assert got == want
    assert result.counters["MTE2"]["bytes_in"] == n * in_bytes
    assert result.counters["MTE3"]["bytes_out"] == n * out_bytes


def test_ub_peak_is_the_planned_tile(projects):
    """A core with at least one full tile uses exactly tile x UB bytes per element, plus one
    256-byte pad that starts the subtraction's second source in the other bank groups."""
    op = C.load_op("lerp")
    case = C.CASES_BY_STEM["lerp"]
    keys = readme_keys(projects("lerp"))
    for dt in ("f16", "f32"):
        t = getattr(dsl, dt)
        inputs = case.inputs(t, (3 * 12000,), {})
        _, result = simulate(op, inputs, {}, target=TARGET, cores=1, project=projects("lerp"))
        _, tile, bpe = keys[(dt, result.tiling_key)]
        assert result.counters["ub_peak_bytes"] == tile * bpe + 256
        assert result.counters["MTE2"]["dma"] == 2 * math.ceil(3 * 12000 / tile)
    np.testing.assert_array_equal(C.as_tuple(op.simulate(*inputs, cores=1))[0], op.reference(*inputs))


@pytest.mark.parametrize("stem", [c.stem for c in C.CASES])
def test_three_tiles_on_one_core_reuse_every_slot(projects, stem):
    """With three tiles per core the third reuses the first one's ping-pong slot, so every
    reverse dependency (V_MTE2, MTE3_MTE2, MTE3_V) is exercised; strict emulation (auto-sync
    off) reports a missing one as a race. Every dtype, the last static combination."""
    op = C.load_op(stem)
    case = C.CASES_BY_STEM[stem]
    keys = readme_keys(projects(stem))
    combo = static_combos(op)[-1]
    for t in op.dtypes:
        key = len(static_combos(op)) - 1
        tile = keys[(t.name, key)][1]
        n = 2 * tile + tile // 2 + 17
        inputs = case.inputs(t, (n,), case.attrs(**combo))
        outs, result = simulate(
            op, inputs, combo, target=TARGET, cores=1, project=projects(stem), strict=True
        )
        assert result.tiling_key == key and result.counters["MTE3"]["dma"] == 3 * len(op.outputs)
        tols = C.tolerances(op, t, combo)
        with np.errstate(all="ignore"):
            refs = C.as_tuple(op.reference(*inputs, **combo))
        for name, got, want in zip(op.outputs, C.as_tuple(outs), refs):
            C.assert_close(got, want, tols[name], what=f"{stem}.{name}[{t}, n={n}]")
