"""Every fault kind: a minimal kernel with exactly that bug is reported (with the kernel line,
buffer, pipes, event), and its corrected twin passes and computes the right values."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from dsl.errors import (
    DeadlockError,
    MemoryFaultError,
    RaceError,
    SyncError,
    UnsupportedError,
)

from .conftest import T950, run

N = 1024


def _x(rng, n=N, dtype=np.float32):
    return rng.standard_normal(n).astype(dtype)


# name, bug key, fixed key, error, message fragments, run options
CASES = [
    ("ub_capacity", 0, 1, MemoryFaultError, ["UB over capacity", "TBuf<VECCALC>#0", "188160"], {}),
    ("datacopy_len", 0, 1, MemoryFaultError, ["not a multiple of 32 B", "DataCopyPad"], {"n": 7}),
    ("datacopy_align", 0, 1, MemoryFaultError, ["not 32-byte aligned", "TBuf<VECCALC>#0"], {}),
    (
        "pad_position",
        0,
        1,
        UnsupportedError,
        ["TBuf<TPosition::VECCALC>", "documented DataCopyPad paths are GM <-> VECIN/VECOUT (strict mode"],
        {"strict": True},
    ),
    ("gm_oob", 0, 1, MemoryFaultError, ["out of bounds of input 0 'x'", "32 B past the end"], {}),
    (
        "race_mte2_v",
        0,
        1,
        RaceError,
        ["MTE2 DataCopy(GM->UB)", "V Muls", "HardEvent::MTE2_V", "TBuf<VECCALC>#0"],
        {},
    ),
    ("race_v_mte3", 0, 1, RaceError, ["V Muls", "MTE3 DataCopy(UB->GM)", "HardEvent::V_MTE3"], {}),
    ("race_reuse", 0, 1, RaceError, ["write-after-read", "HardEvent::V_MTE2"], {"tile": 256}),
    ("race_gm", 0, 1, RaceError, ["GM bytes", "output 0 'z'", "HardEvent::MTE3_MTE2"], {}),
    (
        "race_scalar",
        0,
        1,
        RaceError,
        ["S LocalTensor::SetValue", "HardEvent::S_V"],
        {"strict": True},
    ),
    ("race_vv", 0, 1, RaceError, ["V Adds", "V Muls", "PipeBarrier<PIPE_V>"], {"strict": True}),
    (
        "flags",
        0,
        1,
        DeadlockError,
        ["WaitFlag<HardEvent::MTE2_MTE3>(0)", "no SetFlag", "MTE3 pipe"],
        {},
    ),
    (
        "flags",
        2,
        3,
        SyncError,
        ["still set when the kernel ends", "SetFlag<HardEvent::MTE3_MTE2>(1)"],
        {},
    ),
    ("flags", 4, 5, SyncError, ["ids 6 and 7 are reserved", "0-5"], {}),
    (
        "flags",
        6,
        7,
        SyncError,
        ["SetFlag<HardEvent::MTE2_MTE3>(2) while the flag set at", "still pending"],
        {},
    ),
    (
        "flag_reuse",
        0,
        1,
        SyncError,
        [
            "op_kernel/sim_ew.cpp:37: SetFlag<HardEvent::V_MTE3>(0) reuses event id 0, whose previous SetFlag "
            "at op_kernel/sim_ew.cpp:33 was waited by WaitFlag at op_kernel/sim_ew.cpp:34 on the MTE3 pipe",
            "nothing orders that WaitFlag before this SetFlag on the V pipe",
        ],
        {"tile": 256},
    ),
    (
        "shared_ids",
        0,
        1,
        SyncError,
        [
            "op_kernel/sim_ew.cpp:35: SetFlag<HardEvent::MTE2_V>(0) while id 0 is live for HardEvent::MTE3_V "
            "(set at op_kernel/sim_ew.cpp:27, not yet waited)",
            "shared by every event type (shared_event_ids)",
        ],
        {"tile": 256, "shared_event_ids": True},
    ),
    (
        "flag_reuse_scalar",
        0,
        1,
        SyncError,
        [
            "SetFlag<HardEvent::S_V>(0) reuses event id 0",
            "nothing orders that WaitFlag before this SetFlag on the S pipe",
        ],
        {"tile": 256, "strict": True},
    ),
    (
        "library_flag",
        0,
        1,
        SyncError,
        [
            "op_kernel/sim_ew.cpp:30: ReduceSum sets and waits HardEvent::V_S(0) itself (TPipe::FetchEventID",
            "while the kernel's SetFlag<HardEvent::V_S>(0) at op_kernel/sim_ew.cpp:29 is still pending",
        ],
        {},
    ),
    (
        "several_faults",
        0,
        1,
        RaceError,
        [
            "op_kernel/sim_ew.cpp:25: read-after-write race",
            "2 more fault(s) in this run:\n  - SyncError: op_kernel/sim_ew.cpp:30: SetFlag<HardEvent::V_MTE3>(0) "
            "reuses event id 0",
            "\n  - SyncError: op_kernel/sim_ew.cpp:33: flag(s) still set when the kernel ends",
        ],
        {},
    ),
    (
        "uninit",
        0,
        1,
        MemoryFaultError,
        [
            "op_kernel/sim_ew.cpp:26: MTE3 DataCopy(UB->GM) at op_kernel/sim_ew.cpp:26 copies undefined data to "
            "output 0 'z' bytes [0, 4096)",
            "left undefined by V Add at op_kernel/sim_ew.cpp:23",
            "TBuf<VECCALC>#1",
            "which nothing had written (uninitialised UB)",
        ],
        {},
    ),
    (
        "bf16_add",
        0,
        1,
        UnsupportedError,
        ["Add does not support bfloat16_t on arch 2201"],
        {"dtype": "bf16"},
    ),
    (
        "compare_count",
        0,
        1,
        UnsupportedError,
        ["Compares", "not a whole number of 256 B repeats"],
        {"n": 40},
    ),
    ("tque", 0, 1, RaceError, ["TQue", "V Muls", "MTE2_V"], {"tile": 256}),
    (
        "core_overlap",
        0,
        1,
        RaceError,
        ["written by block 1", "already written by block 0"],
        {"blocks": 2},
    ),
]


def _expected(name, x, y, alpha):
    if name == "bf16_add":
        return (x.astype(np.float32) + y.astype(np.float32)).astype(ml_dtypes.bfloat16)
    if name == "compare_count":
        return np.where(x >= 0, x, x * np.float32(alpha))
    if name == "race_vv":
        return x * np.float32(alpha) + np.float32(1.0)
    if name == "race_scalar":
        return np.arange(x.size, dtype=np.float32) * np.float32(alpha)
    if name in ("ub_capacity", "datacopy_align", "gm_oob", "flags", "core_overlap", "uninit"):
        return x
    return x * np.float32(alpha)


def _run(projects, rng, name, key, opts):
    opts = dict(opts)
    n = opts.pop("n", N)
    dtype = ml_dtypes.bfloat16 if opts.pop("dtype", None) == "bf16" else np.float32
    x = _x(rng, n, dtype)
    y = _x(rng, n, dtype)
    return x, y, run(projects(name), x, y, key=key, alpha=1.5, **opts)


@pytest.mark.parametrize("name,bug,fix,err,fragments,opts", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_fault_is_reported(projects, rng, name, bug, fix, err, fragments, opts):
    with pytest.raises(err) as info:
        _run(projects, rng, name, bug, opts)
    msg = str(info.value)
    assert "op_kernel/sim_ew.cpp:" in msg
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in:\n{msg}"


@pytest.mark.parametrize("name,bug,fix,err,fragments,opts", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_corrected_twin_passes(projects, rng, name, bug, fix, err, fragments, opts):
    x, y, res = _run(projects, rng, name, fix, opts)
    got = res.outputs[0]
    assert np.array_equal(got, _expected(name, x, y, 1.5)), name


def test_shared_ids_are_one_pool_per_event_type_by_default(projects, rng):
    """Without shared_event_ids the key-0 kernel is correct: CANN's TPipe keeps one id pool per
    HardEvent (asc-devkit impl/basic_api/kernel_tpipe_impl.h, AllocEventID: eventPool_ +
    EventToIndex(evt); InitBuffer pre-issues an input and an output TQue's free events V_MTE2(0)
    and MTE3_V(0) together, as this kernel does), and so does the emulator."""
    x, y, res = _run(projects, rng, "shared_ids", 0, {"tile": 256})
    assert np.array_equal(res.outputs[0], _expected("shared_ids", x, y, 1.5))


def test_shared_ids_reuse_of_a_waited_id_needs_happens_before(projects, rng, tmp_path):
    """The second shared-id rule: the id was waited for another event type, but nothing orders that
    WaitFlag before this SetFlag on the setting pipe (V waits MTE2_V(0), MTE3 then sets
    MTE3_MTE2(0) with no V -> MTE3 edge in between)."""
    from .conftest import make_project

    kernel = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void sim_ew(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, td.totalLength);
    zGm.SetGlobalBuffer((__gm__ float*)z, td.totalLength);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, td.totalLength * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    const int32_t id = TILING_KEY_IS(0) ? 0 : 1;
    DataCopy(t, xGm, td.totalLength);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    Muls(t, t, td.alpha, td.totalLength);
    SetFlag<HardEvent::MTE2_MTE3>(id);
    WaitFlag<HardEvent::MTE2_MTE3>(id);
    SetFlag<HardEvent::V_MTE3>(2);
    WaitFlag<HardEvent::V_MTE3>(2);
    DataCopy(zGm, t, td.totalLength);
}
"""
    project = make_project(tmp_path, "shared_reuse", kernel)
    x = _x(rng)
    with pytest.raises(SyncError) as info:
        run(project, x, key=0, tile=N, shared_event_ids=True)
    msg = str(info.value)
    assert (
        "op_kernel/sim_ew.cpp:17: SetFlag<HardEvent::MTE2_MTE3>(0) reuses id 0 of HardEvent::MTE2_V" in msg
    ), msg
    assert "waited at op_kernel/sim_ew.cpp:15 on the V pipe" in msg
    res = run(project, x, key=1, tile=N, shared_event_ids=True)
    assert np.array_equal(res.outputs[0], x * np.float32(2.0))


@pytest.mark.parametrize("name", ["race_scalar", "race_vv", "pad_position"])
def test_strict_only_faults_pass_in_default_mode(projects, rng, name):
    """Auto-sync orders scalar and V->V by default; a DataCopyPad GM <-> TBuf<VECCALC> on A2 is
    outside the documented paths only (the hardware sees UB addresses, not positions)."""
    x, y, res = _run(projects, rng, name, 0, {})
    assert np.array_equal(res.outputs[0], _expected(name, x, y, 1.5))


def test_tque_deque_handle_and_reference_forms(projects, rng):
    """Key 2 of tque.cpp: `TBufHandle DeQue()` (its handle discarded) and `DeQue(LocalTensor&)`
    give the same MTE2 -> V and V -> MTE3 order as `DeQue<T>()` (without them key 0 races)."""
    x, y, res = _run(projects, rng, "tque", 2, {"tile": 256})
    assert np.array_equal(res.outputs[0], _expected("tque", x, y, 1.5))


def test_vv_ordering_is_hardware_on_950(projects, rng):
    x, y, res = _run(projects, rng, "race_vv", 0, {"strict": True, "target": T950})
    assert np.array_equal(res.outputs[0], _expected("race_vv", x, y, 1.5))


def test_bf16_add_is_supported_on_950(projects, rng):
    x, y, res = _run(projects, rng, "bf16_add", 0, {"dtype": "bf16", "target": T950})
    assert np.array_equal(res.outputs[0], _expected("bf16_add", x, y, 1.5))


def test_ub_capacity_can_be_overridden(projects, rng):
    with pytest.raises(MemoryFaultError, match="> 65504 B usable"):
        _run(projects, rng, "ub_capacity", 1, {"ub_capacity": 65536 - 32})


def test_library_flag_on_950_is_reduce_sums_v_s(projects, rng):
    """On 950 the count-form ReduceSum of float syncs with AllocEventID<V_S> (asc-devkit
    dav_3510 kernel_operator_vec_reduce_impl.h): library_flag.cpp's key 0 clashes there too."""
    with pytest.raises(SyncError) as info:
        _run(projects, rng, "library_flag", 0, {"target": T950})
    assert "ReduceSum sets and waits HardEvent::V_S(0) itself" in str(info.value)
    x, y, res = _run(projects, rng, "library_flag", 1, {"target": T950})
    assert np.array_equal(res.outputs[0], _expected("library_flag", x, y, 1.5))
