"""The performance model of mixed AIC/AIV kernels (issue 21 item 5): the cube pipes priced from
asc-devkit's Cube instruction table (Mmad per 16 x 16 x k0 fractal, LoadData per byte into L0A /
L0B, Fixpipe L0C -> UB per byte), one joint replay per block in which each core has its own scalar
unit and pipes and a cross-core WaitFlag waits for the Sets the emulator paired it with, and a
timeline with an AIC and two AIV processes per block (the matmul fixtures of tests/sim/test_cube.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from backends.ascendc.perf.constants import A2, A5
from backends.ascendc.perf.costs import fix_ub_cycles, mmad_cycles, mte1_cycles
from backends.ascendc.profile import profile_project
from backends.ascendc.sim.trace import (
    CROSS_KEY,
    DTYPE_NAMES,
    L0A,
    L0B,
    NONE32,
    PIPE_FIX,
    PIPE_M,
    PIPE_MTE1,
    PIPE_V,
    SET,
    WAIT,
)

DT = {name: i for i, name in enumerate(DTYPE_NAMES)}
MM = Path(__file__).resolve().parents[1] / "sim" / "fixtures" / "mm"
MM950 = MM.parent / "kernels" / "mm950.cpp"


def test_mmad_costs_one_cycle_per_fractal_of_its_k0_plus_the_head():
    """Cube指令理论性能汇总.md tables 1-2: half/bfloat16 16 x 16 x 16 per cycle (k0 16), int8 16 x 16 x 32
    (k0 32): a fractal of the trace is one cycle for both, on both archs."""
    for arch in (A2, A5):
        head = arch["mmad_head_cycles"]
        assert mmad_cycles(arch, DT["f16"], 64) == head + 64
        assert mmad_cycles(arch, DT["bf16"], 8) == head + 8
        assert mmad_cycles(arch, DT["i8"], 8) == head + 8


def test_the_fp32_cube_rate_matches_c21():
    """perf-constants C21: a 910B3 (20 AIC at 1.8 GHz) ran fp32 4096^3 matmul at 72 TFLOPS; the table's
    float 16 x 16 x 4 MACs per cycle (a 16 x 16 x 8 fractal in 2 cycles) give 73.7 at full use."""
    fractal_macs = 16 * 16 * 8
    macs_per_cycle = fractal_macs / (mmad_cycles(A2, DT["f32"], 1000) - A2["mmad_head_cycles"]) * 1000
    peak = 2 * macs_per_cycle * 20 * 1.8e9
    assert macs_per_cycle == 1024 and abs(peak / 72e12 - 1) < 0.03
    assert mmad_cycles(A5, DT["f32"], 1) == A5["mmad_head_cycles"] + 8  # 3510: 16 x 16 x 1 per cycle


def test_loaddata_runs_at_the_l0a_and_l0b_rates_of_each_arch():
    """2201: L1 -> L0A 256 B/cycle, L1 -> L0B 128 (table 3); 3510 LoadData2DParamsV2: 256 both (table 5)."""
    assert mte1_cycles(A2, 8192, L0A) == A2["mte1_head_cycles"] + 32
    assert mte1_cycles(A2, 8192, L0B) == A2["mte1_head_cycles"] + 64
    assert mte1_cycles(A5, 8192, L0B) == A5["mte1_head_cycles"] + 32


def test_fixpipe_into_ub_runs_at_128_bytes_a_cycle_per_destination():
    assert fix_ub_cycles(A5, 16384, False) == A5["fix_head_cycles"] + 128
    assert fix_ub_cycles(A5, 16384, True) == A5["fix_head_cycles"] + 64  # DUAL_DST_SPLIT_M: both AIVs at once


def test_cube_constants_name_their_sources():
    for arch in (A2, A5):
        for name in ("l0a_bytes_per_cycle", "l0b_bytes_per_cycle", "fix_ub_bytes_per_cycle"):
            assert "[H]" in arch.c[name].source and "Cube指令理论性能汇总.md" in arch.c[name].source
        for name in ("mmad_head_cycles", "mte1_head_cycles", "fix_head_cycles"):
            assert "[G]" in arch.c[name].source


def profile_mm(tmp_path, target: str, m=128, n=128, k=64):
    proj = tmp_path / "mm"
    shutil.copytree(MM, proj)
    if target == "ascend950":
        (proj / "op_kernel" / "sim_mm.cpp").write_text(MM950.read_text())
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return profile_project(
        proj,
        "sim_mm",
        inputs=[a, b],
        outputs=[((m, n), np.float32)],
        attrs=[64, 64, 32, 2, 1, 0.5],
        target=target,
    )


@pytest.fixture(scope="module", params=["ascend910b", "ascend950"])
def mixed(request, tmp_path_factory):
    return request.param, profile_mm(tmp_path_factory.mktemp(request.param), request.param)


def test_a_mixed_kernel_profiles_with_each_core_of_each_block(mixed):
    target, p = mixed
    assert p.block_dim == 2 and len(p.per_core) == 2
    for block in p.per_core:
        cores = block["cores"]
        assert set(cores) == {"AIC", "AIV0", "AIV1"}
        assert {"MTE1", "M", "FIX"} <= set(cores["AIC"]) and "V" not in cores["AIC"]
        assert "V" in cores["AIV0"] and "M" not in cores["AIV0"]
        assert block["finish_us"] == pytest.approx(max(c["finish_us"] for c in cores.values()))
    text = p.describe()
    assert "    AIC: finishes at" in text and "    AIV1: finishes at" in text


def sets(recs, pipe) -> int:
    return int(((recs["pipe"] == pipe) & (recs["kind"] == SET)).sum())


def test_the_cube_pipes_are_priced_per_record(mixed):
    """The AIC's M busy time is exactly its Mmads' cycles (head + fractals) and its SetFlags', MTE1's
    its LoadDatas' and SetFlags'."""
    target, p = mixed
    r = p._run
    arch = A2 if target == "ascend910b" else A5
    clock = r.sku.clock_hz
    for core in r.cores:
        recs = core.records
        on = lambda pipe: (recs["pipe"] == pipe) & (recs["kind"] == 0)  # noqa: E731
        mm = recs[on(PIPE_M)]
        assert len(mm) and set(DTYPE_NAMES[d] for d in mm["dtype"]) == {"f16"}
        m_cycles = sum(mmad_cycles(arch, int(d), int(f)) for d, f in zip(mm["dtype"], mm["repeats"]))
        m_cycles += sets(recs, PIPE_M) * arch["flag_set_cycles"]
        assert core.timeline.per_core[0]["busy"]["M"] == pytest.approx(m_cycles / clock, rel=1e-9)
        ld = recs[on(PIPE_MTE1)]
        assert set(ld["key"]) == {L0A, L0B}
        ld_cycles = sum(mte1_cycles(arch, int(b), int(k)) for b, k in zip(ld["bytes"], ld["key"]))
        ld_cycles += sets(recs, PIPE_MTE1) * arch["flag_set_cycles"]
        assert core.timeline.per_core[0]["busy"]["MTE1"] == pytest.approx(ld_cycles / clock, rel=1e-9)


def test_cross_core_waits_wait_for_the_sets_the_emulator_paired(mixed):
    """Every cross-core WaitFlag starts no earlier than the Sets it consumed fire (on another core),
    and every AIV's first vector op comes after the AIC's first Fixpipe: the epilogue waits for the
    cube's tile."""
    target, p = mixed
    r = p._run
    for core in r.cores:
        recs, tl = core.records, core.timeline
        start = r.trace.block_starts[core.blocks[0]]
        waits = np.flatnonzero(
            (recs["kind"] == WAIT) & ((recs["key"] & CROSS_KEY) != 0) & (recs["key"] != NONE32)
        )
        assert len(waits)
        for w in waits:
            sets = [int(u) - start for u in recs["ub"][w][1:] if u != NONE32]
            assert sets and all(recs["kind"][s] == SET and recs["core"][s] != recs["core"][w] for s in sets)
            assert all(tl.start[w] >= tl.end[s] for s in sets)
        fix_end = min(tl.end[i] for i in np.flatnonzero(recs["pipe"] == PIPE_FIX) if recs["kind"][i] == 0)
        for aiv in (1, 2):
            v = [tl.start[i] for i in np.flatnonzero((recs["pipe"] == PIPE_V) & (recs["core"] == aiv))]
            assert min(v) >= fix_end


def test_the_timeline_has_an_aic_and_two_aivs_per_block(mixed):
    target, p = mixed
    events = p.timeline()["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name" and e["pid"]}
    assert sorted(procs.values()) == sorted(
        f"{c} of block {b}" for b in range(2) for c in ("AIC", "AIV0", "AIV1")
    )
    tracks = {
        (procs[e["pid"]].split()[0], e["args"]["name"])
        for e in events
        if e.get("name") == "thread_name" and e["pid"]
    }
    assert {("AIC", "MTE1"), ("AIC", "M"), ("AIC", "FIX"), ("AIV0", "V"), ("AIV1", "MTE3")} <= tracks
    slices = [e for e in events if e.get("ph") == "X" and e["pid"]]
    assert {procs[e["pid"]].split()[0] for e in slices if e["name"].startswith("Mmad")} == {"AIC"}
    # flow arrows from the AIC's Sets to the AIVs' Waits cross processes
    starts = {e["id"]: e["pid"] for e in events if e.get("ph") == "s"}
    ends = {e["id"]: e["pid"] for e in events if e.get("ph") == "f"}
    assert any(procs[starts[i]].startswith("AIC") and procs[ends[i]].startswith("AIV") for i in starts)


def test_a_timing_only_run_models_the_same_kernel(tmp_path):
    """``profile(cube_math=False)`` (the emulator's Mmads write 0 instead of computing, for
    matmuls too large to compute in it, benchmarks/matmul_report.py) records the same instructions:
    the same model, to the cycle, on both archs (linear_gelu: cube, Fixpipe, RegBase epilogue on 950)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "timing_linear_gelu", Path(__file__).resolve().parents[2] / "examples" / "linear_gelu.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    op = mod.linear_gelu
    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 600)).astype(np.float16)
    w = rng.standard_normal((300, 600)).astype(np.float16)
    b = rng.standard_normal(300).astype(np.float32)
    for target in ("ascend910b", "ascend950"):
        project = op.compile(out_dir=tmp_path / target, target=target)
        full = op.profile(x, w, b, target=target, cores=4, project=project)
        timing = op.profile(x, w, b, target=target, cores=4, project=project, cube_math=False)
        assert timing.predicted_us == full.predicted_us
        assert timing.per_core == full.per_core
        assert timing.bytes == full.bytes and timing.sync_count == full.sync_count
    # and the mode is on: the product is 0, so y is the epilogue of 0 (gelu(bias) on every row)
    from backends.ascendc.simulate import simulate

    y, _ = simulate(op, [x, w, b], {}, target="ascend950", cores=4, project=project, cube_math=False)
    zero = op.reference(np.zeros_like(x), w, b)
    assert np.array_equal(y, zero) and not np.array_equal(y, op.reference(x, w, b))
