"""The performance model's parts on their own: vector costs and UB bank conflicts, the L2 plan,
the discrete-event replay (in-order pipes, flag edges, shared bandwidth), the SKU table."""

from __future__ import annotations

import pytest

from backends.ascendc.perf.constants import A2, A5, SKUS, get_sku
from backends.ascendc.perf.costs import HBM, L2, BlockCosts, L2Plan, bank_conflict_beats, cycles_per_repeat
from backends.ascendc.perf.replay import replay
from backends.ascendc.sim.trace import (
    BARRIER,
    BARRIER_ALL,
    DTYPE_NAMES,
    NONE32,
    OP,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_S,
    PIPE_V,
    SET,
    WAIT,
)

F16, F32, BF16 = (DTYPE_NAMES.index(n) for n in ("f16", "f32", "bf16"))


# ---- vector costs (perf-constants.md section 4) ---------------------------------------------------


def test_vector_cycles_by_op_class_and_dtype():
    assert cycles_per_repeat(A2, "Add", F16, 0xFF) == cycles_per_repeat(A2, "Muls", F32, 0xFF) == 1
    assert cycles_per_repeat(A2, "Exp", F16, 0xFF) == 4 and cycles_per_repeat(A2, "Exp", F32, 0xFF) == 2
    assert cycles_per_repeat(A2, "Div", F32, 0xFF) == cycles_per_repeat(A2, "Sqrt", F32, 0xFF) == 2
    assert cycles_per_repeat(A2, "Cast", F32, F16) == 1
    assert cycles_per_repeat(A2, "Cast", F32, BF16) > cycles_per_repeat(A2, "Cast", F32, F16)
    assert cycles_per_repeat(A2, "ReduceSum", F32, 0xFF) == 7
    # 950 MemBase: 2 cycles per 256-byte VL for simple ops, 8 / 4 for f16 / f32 Exp.
    assert cycles_per_repeat(A5, "Add", F16, 0xFF) == 2
    assert (cycles_per_repeat(A5, "Exp", F16, 0xFF), cycles_per_repeat(A5, "Exp", F32, 0xFF)) == (8, 4)


def test_bank_conflicts_follow_the_a2_ub_layout():
    """asc-devkit 避免bank冲突（NPU架构版本2201）.md: 0x10000 is in bank 16, 0x10020 in bank 17, 0x20020
    in bank 33; banks 15, 31, 47 form a group. A repeat reads 8 rows of each source in one beat (the
    Add README's reasoning), so two sources conflict unless their rows fall in disjoint groups."""
    # read-read: two sources in one bank group take two beats per repeat
    assert bank_conflict_beats(NONE32, 0x10020, 0x20020) == 2
    assert bank_conflict_beats(NONE32, 0x10000, 0x10100) == 1  # 256 B apart: groups 0-7 and 8-15
    # read-write: src and dst in one bank
    assert bank_conflict_beats(0x10E20, 0x10020, NONE32) == 2
    assert bank_conflict_beats(0x10000, 0x10100, NONE32) == 1  # disjoint groups
    assert bank_conflict_beats(0x00000, 0x10000, NONE32) == 1  # same groups, other banks
    # the Add example: x at 0, y at 32 KiB (case 5: conflict) or 32 KiB - 256 B (case 6: none)
    assert bank_conflict_beats(65536, 0, 32768) == 2
    assert bank_conflict_beats(131072, 0, 32512) == 1
    # in place is not counted [G]
    assert bank_conflict_beats(4096, 4096, NONE32) == 1


def test_l2_plan():
    big = L2Plan(allocating_bytes=384 << 20, l2_bytes=192 << 20, warm=True, bypass=frozenset())
    assert big.memory(write=False, bypass=False) == HBM and big.memory(write=True, bypass=False) == HBM
    small = L2Plan(allocating_bytes=128 << 20, l2_bytes=192 << 20, warm=True, bypass=frozenset({0, 1}))
    assert small.memory(write=True, bypass=False) == L2  # outputs finish inside L2 (C7)
    assert small.memory(write=False, bypass=True) == HBM  # a bypassed input streams from HBM
    assert small.memory(write=False, bypass=False) == L2  # warm: inputs that fit are L2 hits
    cold = L2Plan(allocating_bytes=128 << 20, l2_bytes=192 << 20, warm=False, bypass=frozenset())
    assert cold.memory(write=False, bypass=False) == HBM
    assert cold.memory(write=True, bypass=False) == L2  # a clean cold L2 takes the output
    # flushed: the L2 is full of a previous kernel's dirty lines; each line written evicts one
    flushed = L2Plan(
        allocating_bytes=128 << 20, l2_bytes=192 << 20, warm=False, bypass=frozenset(), dirty=True
    )
    assert (
        flushed.memory(write=True, bypass=False) == HBM and flushed.memory(write=False, bypass=False) == HBM
    )


# ---- the replay ------------------------------------------------------------------------------------

US = 1e-6


def costs(*recs) -> BlockCosts:
    """Records (pipe, kind, key, fixed seconds, bytes, memory, cap B/s, t0 seconds)."""
    defaults = (None, OP, 0, 0.0, 0, -1, 0.0, 0.0)
    cols = list(zip(*[tuple(r) + defaults[len(r) :] for r in recs]))
    pipe, kind, key, fixed, nbytes, mem, cap, t0 = (list(c) for c in cols)
    return BlockCosts(pipe, kind, key, fixed, nbytes, mem, cap, t0, [0.0] * len(recs))


def copy(pipe, nbytes, mem=HBM, cap=1e12, t0=0.0):
    return (pipe, OP, 0, 0.0, nbytes, mem, cap, t0)


def test_pipes_run_in_order_and_in_parallel():
    c = costs((PIPE_V, OP, 0, 2 * US), (PIPE_V, OP, 0, 3 * US), copy(PIPE_MTE2, 4000, cap=1e9))
    tl = replay(c, hbm_share=1e12, l2_share=1e12, prop_s=0.0)
    assert tl.start[1] == pytest.approx(2 * US) and tl.end[1] == pytest.approx(5 * US)
    assert tl.start[2] == pytest.approx(0.0) and tl.end[2] == pytest.approx(4 * US)  # MTE2 beside V
    assert tl.finish == pytest.approx(5 * US)
    assert tl.busy["V"] == pytest.approx(5 * US) and tl.busy["MTE2"] == pytest.approx(4 * US)


def test_waitflag_is_an_edge_from_its_setflag():
    c = costs(
        copy(PIPE_MTE2, 3000, cap=1e9, t0=1 * US),  # 1 us fixed + 3 us of data
        (PIPE_MTE2, SET, 42),
        (PIPE_V, WAIT, 42),
        (PIPE_V, OP, 0, 2 * US),
    )
    tl = replay(c, hbm_share=1e12, l2_share=1e12, prop_s=0.5 * US)
    assert tl.end[0] == pytest.approx(4 * US) and tl.end[1] == pytest.approx(4 * US)
    assert tl.ready[2] == pytest.approx(0.0)  # V reached the wait at once...
    assert tl.start[2] == pytest.approx(4.5 * US)  # ...and it fired after the copy + propagation
    assert tl.start[3] == pytest.approx(4.5 * US) and tl.finish == pytest.approx(6.5 * US)


def test_copies_in_flight_share_the_cores_bandwidth():
    alone = replay(costs(copy(PIPE_MTE2, 1000)), hbm_share=1e9, l2_share=1e12, prop_s=0.0)
    both = replay(
        costs(copy(PIPE_MTE2, 1000), copy(PIPE_MTE3, 1000)), hbm_share=1e9, l2_share=1e12, prop_s=0.0
    )
    assert alone.finish == pytest.approx(1 * US)
    assert both.end[0] == pytest.approx(2 * US) and both.end[1] == pytest.approx(2 * US)  # fair halves
    # different memories do not share: a read from HBM beside a write into L2
    split = replay(costs(copy(PIPE_MTE2, 1000), copy(PIPE_MTE3, 1000, L2)), 1e9, 1e9, 0.0)
    assert split.finish == pytest.approx(1 * US)
    # a copy capped below its fair share leaves the rest to the other
    capped = replay(costs(copy(PIPE_MTE2, 1000, cap=0.25e9), copy(PIPE_MTE3, 750)), 1e9, 1e12, 0.0)
    assert capped.end[1] == pytest.approx(1 * US) and capped.end[0] == pytest.approx(4 * US)


def test_barriers():
    c = costs((PIPE_V, OP, 0, 3 * US), (PIPE_V, BARRIER, 1, 0.0), (PIPE_V, OP, 0, 1 * US))
    assert replay(c, 1e12, 1e12, 0.0).start[2] == pytest.approx(3 * US)
    # PIPE_ALL: the scalar unit waits for every pipe, so a later copy is issued after the vector op
    c = costs((PIPE_V, OP, 0, 3 * US), (PIPE_S, BARRIER_ALL, 6, 0.0), copy(PIPE_MTE2, 1000, cap=1e9))
    tl = replay(c, 1e12, 1e12, 0.0)
    assert tl.start[2] == pytest.approx(3 * US) and tl.finish == pytest.approx(4 * US)


def test_double_buffering_overlaps_copies_and_compute():
    """Two slots: tile t+1 loads while tile t computes; the time is the slower pipe's, plus fill."""

    def loop(slots: int, tiles: int = 8):
        recs = [(PIPE_V, SET, 100 + s) for s in range(slots)]  # reverse flags pre-issued
        for t in range(tiles):
            s = t % slots
            recs += [
                (PIPE_MTE2, WAIT, 100 + s),
                copy(PIPE_MTE2, 2000, cap=1e9),  # 2 us
                (PIPE_MTE2, SET, 200 + s),
                (PIPE_V, WAIT, 200 + s),
                (PIPE_V, OP, 0, 3 * US),  # 3 us
                (PIPE_V, SET, 100 + s),
            ]
        recs += [(PIPE_MTE2, WAIT, 100 + s) for s in range(slots)]
        return replay(costs(*recs), 1e12, 1e12, 0.0).finish

    assert loop(1) == pytest.approx(8 * 5 * US)
    assert loop(2) == pytest.approx(2 * US + 8 * 3 * US)


def test_a_wait_with_no_earlier_set_does_not_hang():
    """The emulator reports such a WaitFlag (a deadlock on hardware); the replay lets it pass."""
    assert replay(costs((PIPE_V, WAIT, 7), (PIPE_V, OP, 0, 1 * US)), 1e12, 1e12, 0.0).finish == pytest.approx(
        US
    )


# ---- SKUs --------------------------------------------------------------------------------------------


def test_sku_table():
    assert get_sku(None, "ascend910b").name == "910B1" and get_sku(None, "ascend950").name == "950PR"
    b4 = get_sku("910b4", "ascend910b")
    assert (b4.aiv_cores, b4.clock_hz, b4.l2_bytes) == (40, 1.5e9, 96 << 20)
    assert all(s.sources for s in SKUS.values())
    with pytest.raises(ValueError, match="unknown SKU"):
        get_sku("910C", "ascend910b")
    with pytest.raises(ValueError, match="runs ascend950 kernels"):
        get_sku("950PR", "ascend910b")


def test_every_constant_states_its_source():
    for arch in (A2, A5):
        for name, c in arch.c.items():
            assert c.source and c.unit, name
