"""Mixed (__mix__) kernels on the emulator: one AIC and two AIVs per block, what each core sees,
and cross-core flags (CrossCoreSetFlag/WaitFlag): each planted mistake is reported with its kind
and kernel line, the correct protocol computes the right values in every interleaving."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dsl.errors import DeadlockError, RaceError, SyncError, UnsupportedError

from .conftest import KERNELS, T950, make_project, run

TILE = 256
BLOCKS = 2


def _line(name: str, text: str) -> int:
    """The 1-based line of the kernel fixture `name` that contains `text` (exactly one)."""
    lines = [i + 1 for i, s in enumerate((KERNELS / f"{name}.cpp").read_text().splitlines()) if text in s]
    assert len(lines) == 1, (text, lines)
    return lines[0]


@pytest.fixture(scope="module")
def flags_project(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("cc"), "mix_flags")


def _expected(x):
    z = x * np.float32(2.0)
    z[::TILE] += np.float32(1.0)
    return z


def _x():
    return np.arange(TILE * BLOCKS, dtype=np.float32) - 100


@pytest.mark.parametrize("key", [1, 8])
def test_protocol_computes(flags_project, key):
    x = _x()
    res = run(flags_project, x, tile=TILE, blocks=BLOCKS, key=key)
    np.testing.assert_array_equal(res.outputs[0], _expected(x))
    blk = res.counters["per_block"][0]
    # The AIC's scalar GM accesses plus both AIVs' work, all in one block's counters.
    assert blk["MTE2"]["dma"] == 2 and blk["MTE3"]["dma"] == 2


@pytest.mark.parametrize("seed", [1, 2, 3, 7])
def test_protocol_under_interleavings(flags_project, seed):
    x = _x()
    res = run(flags_project, x, tile=TILE, blocks=BLOCKS, key=1, interleave=seed)
    np.testing.assert_array_equal(res.outputs[0], _expected(x))


W = "CrossCoreWaitFlag(AIC_DONE);"
CASES = [
    # key, error, first line, fragments
    (
        0,
        DeadlockError,
        "CrossCoreWaitFlag(AIV_DONE + 1);",
        [
            "cross-core deadlock",
            "CrossCoreWaitFlag(4) on the AIC",
            "every live core of the block is waiting",
            "counter 4 of the AIC is 0, never set",
        ],
    ),
    (2, DeadlockError, W, ["CrossCoreWaitFlag(4) on the AIV0", "the AIC has ended", "never set"]),
    (
        3,
        SyncError,
        "CrossCoreSetFlag<2, PIPE_MTE2>(AIC_DONE);",
        ["cross-core flag leak", "counter 4 of the AIV0 is 1", "by the AIC was never waited for"],
    ),
    (
        4,
        RaceError,
        "DataCopy(zGm[off], t, half);",
        [
            "write-after-write race on GM bytes [0, 4) of output 0 'z'",
            "AIV0 MTE3 DataCopy(UB->GM)",
            "AIC S GlobalTensor::SetValue",
            "CrossCoreWaitFlag on AIV0",
        ],
    ),
    (
        5,
        SyncError,
        "CrossCoreSetFlag<2, PIPE_MTE2>(AIC_DONE);",
        ["CrossCoreSetFlag<2>(4) overflows counter 4 of the " "AIV0", "15 Sets"],
    ),
    (
        6,
        DeadlockError,
        "CrossCoreWaitFlag(AIV_DONE);",
        [
            "CrossCoreWaitFlag(3) on the AIC",
            "the AIV0's " "CrossCoreSetFlag<2>(3) at op_kernel/sim_ew.cpp:",
            "waits for the other AIV's",
        ],
    ),
    (
        7,
        SyncError,
        "SyncAll<false>();",
        ["SyncAll uses cross-core flag ids 11-14", "already used one of them at " "op_kernel/sim_ew.cpp:"],
    ),
]


@pytest.mark.parametrize("key,err,line_text,fragments", CASES, ids=[str(c[0]) for c in CASES])
def test_planted_mistakes(flags_project, key, err, line_text, fragments):
    with pytest.raises(err) as e:
        run(flags_project, _x(), tile=TILE, blocks=BLOCKS, key=key)
    msg = str(e.value)
    first = msg.splitlines()[0]
    assert first.startswith(f"op_kernel/sim_ew.cpp:{_line('mix_flags', line_text)}: "), msg
    for f in fragments:
        assert f in msg, (f, msg)
    assert "(block 0 of 2, " in first


@pytest.mark.parametrize("key", [0, 2, 6])
def test_deadlocks_found_in_any_interleaving(flags_project, key):
    for seed in (1, 5):
        with pytest.raises(DeadlockError, match="cross-core deadlock"):
            run(flags_project, _x(), tile=TILE, blocks=BLOCKS, key=key, interleave=seed)


@pytest.mark.parametrize(
    "mix,ratio,subs",
    [("__mix__(1, 2)", 2, 2), ("__mix__(1, 1)", 1, 1), ("", 1, 1)],
    ids=["mix12", "mix11", "aiv_only"],
)
def test_core_views(tmp_path, mix, ratio, subs):
    text = (KERNELS / "mix_views.cpp").read_text().replace("__mix__(1, 2)", mix)
    proj = make_project(tmp_path, "mix_views", text)
    blocks = 3
    z = run(proj, np.zeros(blocks * 3 * 8, np.float32), blocks=blocks, key=1).outputs[0].reshape(blocks, 3, 8)
    for b in range(blocks):
        if mix:
            # GetBlockIdx, GetSubBlockIdx, GetTaskRatio, GetBlockNum, ASCEND_IS_AIC, GetSubBlockNum
            assert list(z[b, 0, :6]) == [b, 0, 1, blocks, 1, 1]
        for s in range(subs):
            assert list(z[b, 1 + s, :6]) == [b * ratio + s, s, ratio, blocks, 0, subs]


def test_aiv_only_kernel_cannot_use_cross_core_flags(tmp_path):
    text = (KERNELS / "mix_flags.cpp").read_text().replace("__mix__(1, 2) ", "")
    proj = make_project(tmp_path, "mix_flags", text)
    with pytest.raises(UnsupportedError, match=re.escape("in a kernel that is not __mix__")):
        run(proj, _x(), tile=TILE, blocks=BLOCKS, key=1)


def test_mode4_needs_950_and_maps_aiv1_to_id_plus_16(tmp_path):
    text = (KERNELS / "mix_flags.cpp").read_text()
    # Mode 4: the AIC waits for each AIV on its own id (AIV1's at + 16) and answers each separately.
    text = text.replace(
        "CrossCoreWaitFlag(AIV_DONE);",
        "CrossCoreWaitFlag<4, PIPE_S>(AIV_DONE); " "CrossCoreWaitFlag<4, PIPE_S>(AIV_DONE + 16);",
    )
    text = text.replace(
        "CrossCoreSetFlag<2, PIPE_MTE2>(AIC_DONE);",
        "{ CrossCoreSetFlag<4, PIPE_MTE2>(AIC_DONE); " "CrossCoreSetFlag<4, PIPE_MTE2>(AIC_DONE + 16); }",
    )
    text = text.replace(
        "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_DONE);", "CrossCoreSetFlag<4, PIPE_MTE3>(AIV_DONE);"
    )
    text = text.replace("CrossCoreWaitFlag(AIC_DONE);", "CrossCoreWaitFlag<4, PIPE_S>(AIC_DONE);")
    proj = make_project(tmp_path, "mix_flags", text)
    x = _x()
    np.testing.assert_array_equal(
        run(proj, x, tile=TILE, blocks=BLOCKS, key=1, target=T950).outputs[0], _expected(x)
    )
    with pytest.raises(UnsupportedError, match=re.escape("mode 4 needs arch 3510")):
        run(proj, x, tile=TILE, blocks=BLOCKS, key=1)


MISUSE = [
    # replace in mix_flags.cpp, error, message
    (
        "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_DONE);",
        "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_DONE + 14);",
        SyncError,
        "CrossCoreSetFlag<2>(17): flag ids are 0-15 (the hardware keeps the low 4 bits, 1: another flag); id + 16 "
        "addresses AIV1 only in mode 4",
    ),
    (
        "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_DONE);",
        "CrossCoreSetFlag<0, PIPE_MTE3>(AIV_DONE);",
        UnsupportedError,
        "CrossCoreSetFlag<0>: mode 0 synchronises every AIC (or AIV) of the launch",
    ),
    (
        "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_DONE);",
        "CrossCoreSetFlag<2, PIPE_S>(AIV_DONE);",
        SyncError,
        "CrossCoreSetFlag<2, PIPE_S>: the pipe cannot be PIPE_ALL or PIPE_S (modes 0-2)",
    ),
    (
        "for (int i = 0; i < sets; i++) CrossCoreSetFlag<2, PIPE_MTE2>(AIC_DONE);",
        "for (int i = 0; i < sets; i++) CrossCoreSetFlag<2, PIPE_V>(AIC_DONE);",
        UnsupportedError,
        "CrossCoreSetFlag<2, PIPE_V> on the AIC: it has no such pipe",
    ),
    (
        "float v = zGm.GetValue(first);",
        "SetFlag<HardEvent::V_MTE3>(0); float v = zGm.GetValue(first);",
        UnsupportedError,
        "SetFlag<HardEvent::V_MTE3> on the AIC: it has no V pipe (a vector-side event",
    ),
    (
        "    DataCopy(t, xGm[off], half);",
        "    SetFlag<HardEvent::M_FIX>(0);\n    DataCopy(t, xGm[off], half);",
        UnsupportedError,
        "SetFlag<HardEvent::M_FIX> on the AIV0: it has no M pipe (a cube-side event",
    ),
]


@pytest.mark.parametrize("old,new,err,msg", MISUSE, ids=[str(i) for i in range(len(MISUSE))])
def test_cross_core_misuse(tmp_path, old, new, err, msg):
    text = (KERNELS / "mix_flags.cpp").read_text()
    assert text.count(old) == 1, old
    proj = make_project(tmp_path, "mix_flags", text.replace(old, new))
    with pytest.raises(err) as e:
        run(proj, _x(), tile=TILE, blocks=BLOCKS, key=1)
    assert msg in str(e.value), str(e.value)
    assert str(e.value).startswith("op_kernel/sim_ew.cpp:")


def test_each_core_has_its_own_current_tpipe(tmp_path):
    # AIV0 waits in the mode-1 meeting while AIV1 builds its TPipe: GetTPipePtr() must still be AIV0's.
    text = (KERNELS / "mix_flags.cpp").read_text()
    old = "        CrossCoreWaitFlag(5);\n"
    assert text.count(old) == 1
    proj = make_project(
        tmp_path, "mix_flags", text.replace(old, old + "        ASSERT(GetTPipePtr() == &pipe);\n")
    )
    x = _x()
    np.testing.assert_array_equal(run(proj, x, tile=TILE, blocks=BLOCKS, key=8).outputs[0], _expected(x))
