"""The performance model's prices for RegBase vector functions (VF) on 950: Reg instructions per VL
from asc-devkit's Reg throughput table, LoadAlign/StoreAlign per distribution, the VF's issue /
execution / UB-port bounds, the launch, and 950 MemBase calls priced as the VF the 3510 impl runs.
Exact values: each is a product of table entries (constants.py)."""

from __future__ import annotations

import pytest

from backends.ascendc.perf.constants import A2, A5, REG_LOAD_DIST, REG_STORE_DIST
from backends.ascendc.perf.costs import (
    VfBody,
    membase_vf_cycles_per_vl,
    reg_cycles_per_vl,
    reg_move_cost,
    vf_body,
)
from backends.ascendc.sim.trace import DTYPE_NAMES, NONE8, REG_DIST, REG_KEY

DT = {name: i for i, name in enumerate(DTYPE_NAMES)}
CODE = {}
for code, name in REG_DIST.items():
    CODE.setdefault(("LoadAlign" if code < 16 else "StoreAlign", name), REG_KEY | code)


@pytest.mark.parametrize(
    "api, dtype, dtype2, cycles",
    [
        ("Add", "f32", None, 1), ("Add", "f16", None, 1), ("Add", "i32", None, 2), ("Add", "i8", None, 2),
        ("Mul", "i32", None, 2), ("Max", "i8", None, 1), ("Exp", "f32", None, 4), ("Exp", "f16", None, 8),
        ("Div", "f32", None, 4), ("Sqrt", "f16", None, 8), ("Compare", "f32", None, 1), ("Select", "i16", None, 1),
        ("Reduce", "f32", None, 1), ("Duplicate", "u8", None, 1),
        ("Cast", "f32", "f16", 1), ("Cast", "f16", "f32", 1), ("Cast", "f32", "i32", 2), ("Cast", "i8", "f16", 2),
        ("Cast", "i32", "f32", 2), ("Cast", "bf16", "f32", 1),
        ("LoadAlign", "f32", None, 1), ("LoadAlign", "u8", None, 1),
    ],
)  # fmt: skip
def test_a_reg_instruction_costs_its_lanes_over_its_elements_per_cycle(api, dtype, dtype2, cycles):
    """Reg矢量计算接口理论性能汇总.md: e.g. Add int32 32 elements/cycle over 64 lanes = 2 cycles, Exp
    half 16/cycle over 128 lanes = 8; a Cast covers one VL of its wider type (int32 -> float: 32/cycle
    over 64 lanes = 2)."""
    d2 = DT[dtype2] if dtype2 else NONE8
    assert reg_cycles_per_vl(api, DT[dtype], d2) == cycles


def test_unlisted_instructions_take_the_defaults():
    assert reg_cycles_per_vl("Not", NONE8) == 1  # a mask op: 1 cycle (table 5)
    assert reg_cycles_per_vl("Cast", DT["f16"], DT["bf16"]) == 128 / 32  # an unlisted pair: 32/cycle [G]


def body(*instrs):
    """A VfBody from (api, dtype[, distribution]) triples, as the trace records them."""
    names = sorted({i[0] for i in instrs})
    apis = [names.index(i[0]) for i in instrs]
    keys = [CODE[(i[0], i[2])] if len(i) > 2 else REG_KEY for i in instrs]
    return vf_body(names, apis, keys, [DT[i[1]] for i in instrs], [NONE8] * len(instrs))


GELU_STEP = (
    [("LoadAlign", "f32", "DIST_NORM")]
    + [(op, "f32") for op in ("Mul", "Mul", "Muls", "Add", "Muls", "Exp", "Adds", "Div")]
    + [("StoreAlign", "f32", "DIST_NORM")]
)


def test_the_gelu_vf_is_bound_by_its_execution_units():
    """C11's loop body: 10 instructions (issue: 5 cycles), 6 one-cycle ops + Exp + Div at 4 (exec:
    14 / 2 units = 7 cycles), one VL read and one written (UB: 1 cycle) per VL."""
    b = body(*GELU_STEP * 128)
    assert b == VfBody(1280, 128, 14 * 128, 128, 128)
    assert b.bounds(A5) == {"issue": 640, "exec": 896, "UB": 128}
    assert b.cycles(A5) == 896


def test_loads_and_stores_are_priced_per_distribution():
    """Stores issue singly in every distribution, loads dual (not DIST_DS); each takes one UB slot:
    4 FIRST_ELEMENT stores take 4 cycles, 4 BRC loads 2 (dual issue, 2 reads per cycle)."""
    assert set(REG_LOAD_DIST) == {
        "DIST_NORM",
        "DIST_BRC_B16",
        "DIST_BRC_B32",
        "DIST_UNPACK_B16",
        "DIST_UNPACK_B8",
        "DIST_UNPACK4_B8",
    }
    assert set(REG_STORE_DIST) == {
        "DIST_NORM",
        "DIST_FIRST_ELEMENT_B8",
        "DIST_FIRST_ELEMENT_B16",
        "DIST_FIRST_ELEMENT_B32",
        "DIST_PACK_B32",
        "DIST_PACK4_B32",
        "DIST_PACK_B16",
    }
    assert body(*[("StoreAlign", "f32", "DIST_FIRST_ELEMENT_B32")] * 4).cycles(A5) == 4
    assert body(*[("LoadAlign", "f32", "DIST_BRC_B32")] * 4).cycles(A5) == 2
    assert (
        reg_move_cost("StoreAlign", CODE[("StoreAlign", "DIST_PACK_B32")]) is REG_STORE_DIST["DIST_PACK_B32"]
    )
    assert (
        reg_move_cost("LoadAlign", CODE[("LoadAlign", "DIST_UNPACK_B16")]) is REG_LOAD_DIST["DIST_UNPACK_B16"]
    )
    # seed 002's bf16 step: UNPACK load, Cast up, Add, Cast down, PACK store, per 64 lanes
    step = [("LoadAlign", "bf16", "DIST_UNPACK_B16"), ("Add", "f32"), ("StoreAlign", "bf16", "DIST_PACK_B32")]
    b = body(*step * 8)
    assert (b.single_issue, b.ub_reads, b.ub_writes) == (8, 8, 8)
    assert b.bounds(A5) == {"issue": 12, "exec": 4, "UB": 8}


def test_two_reads_and_one_write_per_vl_are_port_bound():
    """Per cycle the UB reads 2 VL or reads 1 and writes 1: x + y -> z needs 1.5 cycles per VL."""
    step = [("LoadAlign", "f32", "DIST_NORM"), ("LoadAlign", "f32", "DIST_NORM"), ("Add", "f32")]
    b = body(*(step + [("StoreAlign", "f32", "DIST_NORM")]) * 2)
    assert b.bounds(A5)["UB"] == 3


@pytest.mark.parametrize(
    "api, dtype, cycles",
    [("Add", "f16", 2), ("Mul", "f32", 2), ("Muls", "f32", 1.5), ("Exp", "f32", 2), ("Exp", "f16", 4),
     ("Div", "f32", 2), ("Duplicate", "f32", 1), ("Add", "i32", 2)],
)  # fmt: skip
def test_a_950_membase_call_costs_the_vf_the_3510_impl_runs(api, dtype, cycles):
    """Per VL: a LoadAlign per source, the op, a StoreAlign. Add f16: 4 instructions over 2 issue
    slots = 2 cycles, the C9 fit (pc section 4); Muls: 3 / 2 = 1.5; Exp f32: 4 cycles over 2 units."""
    assert membase_vf_cycles_per_vl(A5, api, DT[dtype]) == cycles


def test_membase_calls_without_a_reg_figure_keep_their_class_price():
    assert membase_vf_cycles_per_vl(A5, "Reciprocal", DT["f32"]) is None
    assert membase_vf_cycles_per_vl(A5, "Cast", DT["f32"]) is None
    assert membase_vf_cycles_per_vl(A2, "Add", DT["f16"]) is None  # A2 runs no VFs


def test_vf_constants_name_their_sources():
    for name in ("vf_launch_cycles", "vf_issue_width", "vf_exec_units", "vf_ub_reads_per_cycle"):
        c = A5.c[name]
        assert c.value > 0 and ("[H]" in c.source or "[M]" in c.source), name
    assert "vf_launch_cycles" not in A2.c
