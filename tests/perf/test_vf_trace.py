"""Vector functions in the emulator's trace and in the model's report: a VF launch record per
asc_vf_call / __VEC_SCOPE__, the Reg API records of its body with their LoadAlign/StoreAlign
distribution, one body per distinct VF of a block (later equal VFs refer back to it), and the
profile of the GELU tuning fixture in both vector paths (MemBase and RegBase) on ascend950."""

from __future__ import annotations

import numpy as np
import pytest

from backends.ascendc.perf.calibration import GELU_PROJECT
from backends.ascendc.perf.constants import A5
from backends.ascendc.profile import profile_project
from backends.ascendc.sim import simulate_project
from backends.ascendc.sim.trace import DTYPE_NAMES, OP, PIPE_V, REG_DIST, REG_KEY, VF, is_reg
from backends.ascendc.targets import TARGETS

from sim.conftest import T950, make_project, run

F32 = np.float32
CLOCK = 1.65e9  # 950PR
SHAPE = (8, 1024)  # 2 x 2 blocks of 4 rows x 512 columns, 512-element tiles: 4 tiles per block
ATTRS = [2, 2, 512]
REG_OPS = ["LoadAlign", "Mul", "Mul", "Muls", "Add", "Muls", "Exp", "Adds", "Div", "StoreAlign"]


def gelu(x):
    """The fixture's op sequence in f32 (Exp in double, rounded once, as the emulator does)."""
    y = x * x * x * F32(0.044715)
    y = (x + y) * F32(-1.595769)
    y = np.exp(y.astype(np.float64)).astype(F32) + F32(1)
    return x / y


def simulate_gelu(case: int):
    x = np.random.default_rng(case).uniform(-3, 3, SHAPE).astype(F32)
    res = simulate_project(
        GELU_PROJECT,
        "gelu_tuning",
        inputs=[x],
        outputs=[(SHAPE, F32)],
        attrs=[case, *ATTRS],
        target=TARGETS["ascend950"],
        ub_capacity=256 * 1024,
        trace=True,
    )
    return x, res


def test_a_vf_is_its_launch_then_its_body_once_per_distinct_body():
    """Each tile's asc_vf_call is a VF record on V; the first two (ping and pong slots: different UB
    addresses) carry their bodies, 8 VLs x 10 Reg instructions; tiles 3 and 4 repeat them and point
    back to them instead."""
    x, res = simulate_gelu(1)
    assert np.array_equal(res.outputs[0].view(np.uint32), gelu(x).view(np.uint32))
    tr = res.trace
    for b in range(tr.blocks):
        recs = tr.block(b)
        launches = np.flatnonzero(recs["kind"] == VF)
        assert len(launches) == 4
        assert all(tr.apis[recs["api"][i]] == "asc_vf_call" and recs["pipe"][i] == PIPE_V for i in launches)
        assert [int(recs["key"][i]) for i in launches] == [80] * 4
        first, second, third, fourth = launches
        assert recs["gm_off"][first] == recs["gm_off"][second] == 0
        assert third - recs["gm_off"][third] == first and fourth - recs["gm_off"][fourth] == second
        between = recs[third + 1 : fourth]  # the third's copy-out, flags, the next copy-in: no body
        assert len(between) and not any(is_reg(int(k)) for k in between["key"][between["kind"] == OP])
        for at in (first, second):
            body = recs[at + 1 : at + 81]
            assert [tr.apis[a] for a in body["api"]] == REG_OPS * 8
            assert set(body["kind"]) == {OP} and set(body["pipe"]) == {PIPE_V}
            assert all(DTYPE_NAMES[d] == "f32" for d in body["dtype"])
            dist = [REG_DIST.get(int(k) & ~REG_KEY) for k in body["key"][:10]]
            assert all(is_reg(int(k)) for k in body["key"])
            assert dist == ["DIST_NORM"] + [None] * 8 + ["DIST_NORM"]
        assert not np.array_equal(recs[first + 1]["ub"], recs[second + 1]["ub"])


def test_the_trace_names_each_load_and_store_distribution(tmp_path):
    """reg_numerics: key 0 loads DIST_UNPACK_B16 and stores DIST_PACK_B32; key 2 stores
    DIST_FIRST_ELEMENT_B32 per row and reloads it with DIST_BRC_B32."""
    rng = np.random.default_rng(0)
    x = (rng.integers(-64, 64, 7 * 40) / 8).astype(F32)
    a = rng.uniform(-2, 2, 1000).astype(np.float16)
    proj = make_project(tmp_path, "reg_numerics")
    seen = {}
    for key in (0, 2):
        if key == 0:
            res = run(proj, a, a.copy(), key=0, tile=1000, target=T950, trace=True)
        else:
            res = run(proj, x, None, key=2, tile=40, target=T950, trace=True)
        recs = res.trace.records
        reg = recs[(recs["kind"] == OP) & np.array([is_reg(int(k)) for k in recs["key"]], bool)]
        seen[key] = {
            (res.trace.apis[a], REG_DIST[int(k) & ~REG_KEY])
            for a, k in zip(reg["api"], reg["key"])
            if int(k) & ~REG_KEY
        }
    assert seen[0] == {("LoadAlign", "DIST_UNPACK_B16"), ("StoreAlign", "DIST_PACK_B32")}
    assert {("StoreAlign", "DIST_FIRST_ELEMENT_B32"), ("LoadAlign", "DIST_BRC_B32")} <= seen[2]


def test_a_vec_scope_is_a_vf_launch_too(tmp_path):
    """reg_numerics key 1 writes its VF inline as __VEC_SCOPE__ { ... } (ops-nn arch35's form)."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(1000).astype(F32), rng.standard_normal(1000).astype(F32)
    res = run(make_project(tmp_path, "reg_numerics"), x, y, key=1, target=T950, trace=True)
    recs = res.trace.records
    launches = recs[recs["kind"] == VF]
    assert len(launches) and {res.trace.apis[a] for a in launches["api"]} == {"__VEC_SCOPE__"}
    body = recs[np.flatnonzero(recs["kind"] == VF)[0] + 1 :][: int(launches["key"][0])]
    assert {"Compare", "Select"} <= {res.trace.apis[a] for a in body["api"]}


@pytest.fixture(scope="module")
def gelu_profiles():
    x = np.random.default_rng(0).uniform(-3, 3, SHAPE).astype(F32)
    return {
        case: profile_project(
            GELU_PROJECT,
            "gelu_tuning",
            inputs=[x],
            outputs=[(SHAPE, F32)],
            attrs=[case, *ATTRS],
            target="ascend950",
            sku="950PR",
            ub_capacity=256 * 1024,
        )
        for case in (0, 1)
    }


def test_profile_prices_each_vf_as_its_launch_plus_its_body(gelu_profiles):
    """RegBase: per block 4 VFs, each 35 launch cycles + 8 VLs x 7 cycles (the exec bound: 14 cycles
    of Mul..Div over 2 units); V is busy with them and its 10 SetFlags (2 per tile + 2 pre-issued)."""
    p = gelu_profiles[1]
    for core in p.per_core:
        assert core["vector_functions"] == 4 and core["reg_instructions"] == 320
        cycles = 4 * (A5["vf_launch_cycles"] + 8 * 7) + 10 * A5["flag_set_cycles"]
        assert core["V"] == pytest.approx(cycles / CLOCK * 1e6, rel=1e-9)
    text = p.describe()
    assert "(4 vector functions with 320 Reg instructions)" in text


def test_profile_of_the_membase_twin_prices_each_call_as_a_vf(gelu_profiles):
    """MemBase: 8 calls per tile, each a VF launch + 8 VLs at 2 (Mul, Mul, Add, Div, Exp), 1.5 (Muls,
    Muls, Adds) cycles, and the 7 PipeBarriers; no vector functions of the kernel's own."""
    p = gelu_profiles[0]
    per_tile = 8 * A5["vf_launch_cycles"] + 8 * (5 * 2 + 3 * 1.5) + 7 * A5["barrier_cycles"]
    for core in p.per_core:
        assert core["vector_functions"] == 0 and core["vector_ops"] == 32
        cycles = 4 * per_tile + 10 * A5["flag_set_cycles"]
        assert core["V"] == pytest.approx(cycles / CLOCK * 1e6, rel=1e-9)
    assert "vector functions" not in p.describe()
    assert gelu_profiles[1].slowest_core["V"] < 0.5 * p.slowest_core["V"]


def test_the_timeline_shows_a_vf_as_one_slice(gelu_profiles):
    events = gelu_profiles[1].timeline()["traceEvents"]
    vf = [e for e in events if e.get("ph") == "X" and e["name"].startswith("VF asc_vf_call")]
    assert len(vf) == 4 * 4  # 4 blocks x 4 tiles
    assert all(e["args"]["reg_instructions"] == 80 and e["args"]["cycles"]["exec"] == 56 for e in vf)
    assert all(e["dur"] == pytest.approx((A5["vf_launch_cycles"] + 56) / CLOCK * 1e6, rel=1e-9) for e in vf)
    assert all(e["tid"] == 1 for e in vf)  # the V track
    names = {e["name"].split()[0] for e in events if e.get("ph") == "X"}
    assert not names & {"LoadAlign", "StoreAlign", "Exp", "Div"}  # body instructions are inside the VF


def test_dslc_profile_takes_the_vector_path_on_ascend950(capsys):
    """DESIGN section 3: --vector-path is parsed by profile; membase profiles today's kernel (no vector
    functions of its own); regbase's report counts the kernel's vector functions."""
    from pathlib import Path

    from dsl.cli import main

    silu = Path(__file__).resolve().parents[2] / "examples" / "silu.py"
    base = ["profile", str(silu), "--target", "ascend950", "--shape", "65536"]
    assert main(base + ["--vector-path", "membase"]) == 0
    out = capsys.readouterr().out
    assert "vector ops" in out and "vector functions" not in out and "SKU 950PR" in out
    assert main(base + ["--vector-path", "regbase"]) == 0
    assert "vector functions with" in capsys.readouterr().out
