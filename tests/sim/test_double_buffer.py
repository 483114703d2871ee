"""The hand-written double-buffered kernel passes, equals numpy bit for bit, and removing any one
of its SetFlag/WaitFlag calls is reported."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dsl.errors import SimulationError

from .conftest import KERNELS, T950, make_project, run

SOURCE = (KERNELS / "double_buffer.cpp").read_text()
FLAG_LINES = [i for i, line in enumerate(SOURCE.splitlines()) if re.search(r"\b(SetFlag|WaitFlag)<", line)]


def _inputs(rng, n):
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("strict", [False, True])
def test_double_buffer_equals_numpy(projects, rng, strict):
    x, y = _inputs(rng, 4 * 4096)
    res = run(projects("double_buffer"), x, y, tile=1024, blocks=4, alpha=1.7, strict=strict)
    expected = x * np.float32(1.7) + y
    assert res.outputs[0].dtype == np.float32
    assert np.array_equal(res.outputs[0].view(np.uint32), expected.view(np.uint32))
    assert (res.block_dim, res.tiling_key) == (4, 0)


def test_double_buffer_on_950(projects, rng):
    x, y = _inputs(rng, 2048)
    res = run(projects("double_buffer"), x, y, tile=512, blocks=2, alpha=-3.0, target=T950, strict=True)
    assert np.array_equal(res.outputs[0], x * np.float32(-3.0) + y)


def test_counters(projects, rng):
    x, y = _inputs(rng, 2 * 4096)
    c = run(projects("double_buffer"), x, y, tile=1024, blocks=2).counters
    tiles = 8
    assert c["MTE2"]["dma"] == 2 * tiles and c["MTE2"]["bytes_in"] == 2 * x.nbytes
    assert c["MTE3"]["dma"] == tiles and c["MTE3"]["bytes_out"] == x.nbytes
    assert c["V"]["repeats"] == 2 * tiles * (1024 * 4 // 256)
    # per block: 4 pre-issued + 3 per tile set on V/MTE2/MTE3 ... all waited
    sets = sum(c[p]["set_flags"] for p in ("S", "V", "MTE2", "MTE3"))
    waits = sum(c[p]["wait_flags"] for p in ("S", "V", "MTE2", "MTE3"))
    assert sets == waits == 2 * (4 + 4 * 4)
    assert c["ub_peak_bytes"] == 3 * 2 * 1024 * 4
    assert len(c["per_block"]) == 2


def test_absent_optional_input_is_a_null_gm_address(projects, rng):
    x, _ = _inputs(rng, 1024)
    with pytest.raises(SimulationError, match="null pointer"):
        run(projects("double_buffer"), x, None, tile=256)


@pytest.mark.parametrize("line_no", FLAG_LINES, ids=lambda i: f"line{i + 1}")
def test_deleting_any_flag_is_reported(tmp_path, rng, line_no):
    lines = SOURCE.splitlines()
    removed = lines[line_no].strip()
    del lines[line_no]
    proj = make_project(tmp_path, "double_buffer", "\n".join(lines) + "\n")
    x, y = _inputs(rng, 2 * 2048)
    with pytest.raises(SimulationError) as info:
        run(proj, x, y, tile=512, blocks=2)
    assert "op_kernel/sim_ew.cpp:" in str(info.value), removed


def test_deletion_test_covers_every_flag():
    assert len(FLAG_LINES) == 16  # 4 pre-issued, 8 in the loop, 4 drained
