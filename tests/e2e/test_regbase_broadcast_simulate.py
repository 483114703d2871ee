"""ascend950 RegBase kernels of ``broadcast=True`` operators (issue 19): where select-vector-path
gives a broadcast tile to RegBase, its vector math is one vector function over the padded tile
(insert-sync's Fills before it; the RESIDENT modes' resident row and the SCALAR twins' scalar are
read in place), and simulate equals the reference bit for bit in every broadcast mode.

The fast run takes the modes that differ in what feeds the VF for one dtype of each example the
rule gives to RegBase, the SCALAR twin and a bool output; ``--runslow`` adds every broadcast
example x dtype x ``test_broadcast_simulate.MODE_CASES`` x cores {1, 8, the target's}. Deleting
any single SetFlag/WaitFlag of a RegBase broadcast kernel is reported.
"""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import dsl
from backends.ascendc.simulate import simulate
from backends.ascendc.targets import get_target
from tests.e2e.test_broadcast_simulate import (
    MODE_CASES,
    MODES,
    NP,
    _live_flag_lines,
    _values,
    bias_add,
    greater,
    masked_fill,
    outer_max,
)

TARGET = "ascend950"
EXAMPLES = {"bias_add": bias_add, "outer_max": outer_max, "greater": greater, "masked_fill": masked_fill}
CORES = (1, 8, get_target(TARGET).aiv_cores)
# dtypes whose tile the rule gives to RegBase (the others: one Add/Max with a LocalTensor API)
REGBASE_DTYPES = {
    "bias_add": ("bf16",),
    "outer_max": ("bf16",),
    "greater": ("f16", "f32", "bf16", "i8", "u8"),  # and i32
    "masked_fill": ("f16", "f32"),  # the i8 mask loaded unpacked (DIST_UNPACK_B8 / DIST_UNPACK4_B8)
}


def _inputs(name: str, sa, sb, tname: str, rng):
    if name == "masked_fill":
        x = _values(rng, sa, NP[tname])
        mask = (rng.uniform(0, 1, sb) < 0.3).astype(np.int8)
        return (x, mask), {"value": -2.5}
    return (_values(rng, sa, NP[tname]), _values(rng, sb, NP[tname])), {}


def _mode(res) -> str:
    return {v: k for k, v in MODES.items()}[res.tiling_key]


def check(name: str, tname: str, sa, sb, cores: int, mode: str | None = None):
    """simulate == reference, bit for bit (every example's math is exact: one rounding)."""
    op = EXAMPLES[name]
    rng = np.random.default_rng(len(sa) * 31 + len(sb) * 7 + sum(sa))
    args, attrs = _inputs(name, sa, sb, tname, rng)
    y, res = simulate(op, args, attrs, target=TARGET, cores=cores, strict=True, dtype=getattr(dsl, tname))
    want = op.reference(*args, **attrs)
    assert y.shape == want.shape and y.dtype == want.dtype
    what = f"{name}[{tname}] {sa} with {sb} on {cores} cores ({_mode(res)})"
    np.testing.assert_array_equal(y.view(np.uint8), want.view(np.uint8), err_msg=what)
    if mode is not None:
        assert _mode(res) == mode, what


MEMBASE_CALL = (
    r"(?m)^\s+(Add|Sub|Mul|Div|Max|Min|Adds|Muls|Maxs|Mins|Compare|CompareScalar|Select|Cast|Duplicate)\("
)


def _kernel(op) -> str:
    from backends.ascendc.compile import lower

    files = lower(op, TARGET, warn_builtin=False).files
    return next(text for name, text in files.items() if name.startswith("op_kernel/"))


# -- fast: the modes that feed the VF differently ----------------------------------------------

FAST = [
    ("bias_add", "bf16", (5, 33), (33,), "ROW"),  # row by row, the resident row read in place
    ("bias_add", "bf16", (40, 300), (300,), "RESIDENT1"),  # the resident row itself, row by row
    ("bias_add", "bf16", (300,), (9, 1, 300), "RESIDENT0"),
    ("bias_add", "bf16", (5, 33), (5, 1), "COL"),  # one value per row
    ("bias_add", "bf16", (4113,), (1,), "SCALAR_X2"),  # the twin: bias by value into the VF
    ("bias_add", "bf16", (37,), (37,), "FLAT"),
    ("greater", "f16", (5, 33), (33,), "ROW"),  # bool output: Cast<uint8_t, half>, DIST_PACK_B16
    ("greater", "f32", (5, 33), (5, 1), "COL"),  # 64 lanes: DIST_PACK4_B32; the row padding stored
    ("greater", "f32", (30000,), (1,), "SCALAR_X2"),  # the twin: Compares with x2 by value
    ("greater", "bf16", (40, 300), (300,), "RESIDENT1"),
    ("greater", "i8", (5, 33), (33,), "ROW"),  # 8-bit inputs: DIST_UNPACK_B8, Cast to half
    ("masked_fill", "f16", (2, 64, 64), (2, 1, 64), "GENERAL"),  # the example's shapes
    ("masked_fill", "f32", (40, 300), (300,), "RESIDENT1"),  # 64 lanes: DIST_UNPACK4_B8
    ("outer_max", "bf16", (1, 9), (300, 1), "GENERAL"),  # a column and a resident row
    ("outer_max", "bf16", (2, 3, 9000), (3, 1), "GENERAL"),  # rows longer than a tile: chunks
]


@pytest.mark.parametrize("name, tname, sa, sb, mode", FAST, ids=[f"{c[0]}-{c[1]}-{c[4]}" for c in FAST])
def test_regbase_broadcast_fast(name, tname, sa, sb, mode):
    check(name, tname, sa, sb, 8, mode)


def test_broadcast_examples_are_regbase_where_the_rule_says():
    """The RegBase dtypes' tiles call a VF in every mode (the kernel body is mode-independent):
    no MemBase vector call and no V barrier on those branches; Fill keeps no PipeBarrier on 950."""
    for name, op in EXAMPLES.items():
        text = _kernel(op)
        assert "PipeBarrier<PIPE_V>" not in text, name
        if not REGBASE_DTYPES[name]:
            assert "asc_vf_call" not in text, name
            continue
        assert "asc_vf_call<" in text and "__simd_vf__ static inline void" in text, name
        body = text[text.index("ProcessTile(uint64_t t)") :]
        body = body[: body.index("__simd_vf__")]
        for tname in REGBASE_DTYPES[name]:
            flag = {
                "bf16": "IS_BF16",
                "f16": "IS_HALF",
                "f32": "IS_FLOAT",
                "i8": "IS_INT8T",
                "u8": "IS_UINT8T",
            }[tname]
            branches = re.findall(rf"if constexpr \({flag}\b[^)]*\) \{{\n(.*?)\n\s*\}}", body, re.S)
            # a one-statement branch is brace-less (`if constexpr (c) statement;`, maybe wrapped)
            branches += re.findall(rf"if constexpr \({flag}\b[^)]*\)\s+(?!\{{)([^;]*;)", body)
            assert any("asc_vf_call" in b for b in branches), (name, tname)
            for b in branches:  # no MemBase vector call on this dtype's branches
                assert not re.search(MEMBASE_CALL, b), (name, tname, b)


@pytest.mark.parametrize(
    "op, sa, sb, mode",
    [(bias_add, (64, 100), (100,), "ROW"), (outer_max, (1, 9), (300, 1), "GENERAL")],
    ids=["ROW", "GENERAL"],
)
def test_resident_row_read_in_place(op, sa, sb, mode):
    """bf16 with a resident row (ROW: short rows; GENERAL: a row and a column): the VF runs row by
    row and loads the resident row where it is, so V copies nothing UB -> UB (the Fill replicated
    it into the tile: log2(rows) DataCopy calls per tile); every VF step is a row's."""
    from collections import Counter

    from backends.ascendc.sim.trace import OP, PIPE_V

    rng = np.random.default_rng(4)
    a, b = _values(rng, sa, NP["bf16"]), _values(rng, sb, NP["bf16"])
    y, res = simulate(op, (a, b), {}, target=TARGET, cores=1, strict=True, trace=True, dtype=dsl.bf16)
    np.testing.assert_array_equal(y.view(np.uint16), op.reference(a, b).view(np.uint16))
    assert _mode(res) == mode
    tr = res.trace
    calls = Counter(tr.apis[r["api"]] for r in tr.records if r["kind"] == OP and r["pipe"] == PIPE_V)
    assert not any(name.startswith("DataCopy") for name in calls), calls
    rows, cols = int(np.prod(y.shape[:-1])), y.shape[-1]
    assert calls["StoreAlign"] == rows * -(-cols // 64), calls  # 64 lanes: f32 math


def test_broadcast_vector_path_reason(tmp_path, capsys):
    """--explain names the path and its reason per tile loop: RegBase for the bf16 bias add (two
    widening casts, the add, the narrowing cast), MemBase for the f32 one (one Add)."""
    from dsl.cli import main

    code = main(["compile", "examples/bias_add.py", "-o", str(tmp_path), "--target", TARGET, "--explain"])
    out = capsys.readouterr().out
    assert code == 0
    blocks = out.split("@bias_add (")
    bf16 = [b for b in blocks if b.startswith("T = bf16")]
    f32 = [b for b in blocks if b.startswith("T = f32")]
    assert bf16 and all(
        "  vector path: RegBase: 4 ops, 3 intermediates kept in registers" in b for b in bf16[:1]
    )
    assert f32 and "  vector path: MemBase: one Add with a LocalTensor API" in f32[0]


def test_membase_path_on_950_keeps_the_membase_kernel():
    """``vector_path='membase'`` gives no VF at all (the kernel the 950 ran before)."""
    from backends.ascendc.compile import lower

    for op in (bias_add, outer_max):
        files = lower(op, TARGET, warn_builtin=False, vector_path="membase").files
        text = next(t for n, t in files.items() if n.startswith("op_kernel/"))
        assert "asc_vf_call" not in text and "Reg::" not in text


# -- slow: every example x dtype x mode case x cores ---------------------------------------------


def _matrix():
    params = []
    for name, op in EXAMPLES.items():
        for tname in (t.name for t in op.dtypes):
            for sa, sb, mode in MODE_CASES:
                for cores in CORES:
                    pid = f"{name}-{tname}-{mode}-{sa}-{sb}-c{cores}"
                    params.append(pytest.param(name, tname, sa, sb, cores, id=pid, marks=pytest.mark.slow))
    return params


@pytest.mark.parametrize("name, tname, sa, sb, cores", _matrix())
def test_regbase_broadcast_matrix(name, tname, sa, sb, cores):
    check(name, tname, sa, sb, cores)


# -- every flag of a RegBase broadcast kernel is needed -------------------------------------------

FLAG_CASES = [
    ((64, 1023), (1023,), "RESIDENT1"),
    ((64, 100), (100,), "ROW"),
    ((3000, 33), (3000, 1), "COL"),
    ((30000,), (1,), "SCALAR_X2"),
]


@pytest.mark.parametrize("sa, sb, mode", FLAG_CASES, ids=[c[2] for c in FLAG_CASES])
def test_every_flag_of_a_regbase_broadcast_kernel_is_needed(tmp_path, sa, sb, mode):
    """bias_add bf16 on ascend950 (a VF per tile): deleting any one SetFlag/WaitFlag its
    instantiation runs is a SimulationError (a race or a flag fault)."""
    from backends.ascendc.compile import compile_op

    project = compile_op(bias_add, TARGET, tmp_path / "base", warn_builtin=False)
    kernel = project / "op_kernel" / "bias_add.cpp"
    lines = kernel.read_text().splitlines()
    twin = mode.startswith("SCALAR_")
    env = dict(
        IS_HALF=False, IS_FLOAT=False, IS_BF16=True, IS_INT32=False, MODE=MODES["FLAT" if twin else mode]
    )
    env.update(MODES)
    env.update(BcScalar__TENSOR=0, BcScalar__SCALAR_X=1, BcScalar__SCALAR_BIAS=2)
    env.update(BC_SCALAR={"SCALAR_X1": 1, "SCALAR_X2": 2}.get(mode, 0))
    env.update(RES_INPUT=MODES[mode] - 5 if mode.startswith("RESIDENT") else -1)
    env.update(ROWWISE=mode.startswith("RESIDENT"))
    live = _live_flag_lines(lines, env)
    if mode == "COL":  # no resident row: InitBroadcast's `if (resident)` flags do not run
        start = next(i for i, line in enumerate(lines) if line.strip() == "if (resident) {")
        live = [i for i in live if not start < i < start + 3]
    assert len(live) >= 6
    rng = np.random.default_rng(8)
    a, b = _values(rng, sa, NP["bf16"]), _values(rng, sb, NP["bf16"])
    want = bias_add.reference(a, b)
    y, res = simulate(bias_add, (a, b), {}, target=TARGET, cores=1, project=project, strict=True)
    assert res.tiling_key == MODES[mode]
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))
    missed = []
    for i in live:
        case = tmp_path / f"del{i}"
        shutil.copytree(project, case)
        (case / "op_kernel" / "bias_add.cpp").write_text("\n".join(lines[:i] + lines[i + 1 :]) + "\n")
        try:
            simulate(bias_add, (a, b), {}, target=TARGET, cores=1, project=case, strict=True)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(case)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)


def test_vec_scope_form_of_a_broadcast_kernel(tmp_path):
    """The inline ``__VEC_SCOPE__ { ... }`` form of bias_add bf16, RESIDENT and ROW modes."""
    from backends.ascendc.compile import compile_op

    project = compile_op(bias_add, TARGET, tmp_path, vf_form="__VEC_SCOPE__", warn_builtin=False)
    text = (project / "op_kernel" / "bias_add.cpp").read_text()
    assert "__VEC_SCOPE__ {" in text and "asc_vf_call" not in text
    rng = np.random.default_rng(5)
    for sa, sb, mode in (((40, 300), (300,), "RESIDENT1"), ((5, 33), (33,), "ROW")):
        a, b = _values(rng, sa, NP["bf16"]), _values(rng, sb, NP["bf16"])
        y, res = simulate(bias_add, (a, b), {}, target=TARGET, cores=8, project=project, strict=True)
        assert _mode(res) == mode
        np.testing.assert_array_equal(y.view(np.uint16), bias_add.reference(a, b).view(np.uint16))
