"""The emulator's RegBase (Reg API, ascend950) subset: bit-exact register arithmetic and casts against
numpy/ml_dtypes, and every VF rule fault with its corrected twin (fixtures reg_numerics, reg_faults,
reg_loops)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from backends.ascendc.sim import vf_rules
from dsl.errors import BuildError, MemoryFaultError, RaceError, SimulationError, UnsupportedError

from .conftest import KERNELS, OP, T910B, T950, make_project, run

F32 = np.float32
ALPHA = 1.5


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def _same(got: np.ndarray, expected: np.ndarray) -> bool:
    return got.dtype == expected.dtype and np.array_equal(_bits(got), _bits(expected))


# ---------------------------------------------------------------- numerics (reg_numerics.cpp)


@pytest.mark.parametrize("n", [1000, 64])
def test_flat_f16_in_f32_math_f16_out_is_bit_exact(projects, rng, n):
    """DIST_UNPACK_B16 + Cast<float, half>, f32 register math, Cast RINT + DIST_PACK_B32, a tail."""
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    got = run(projects("reg_numerics"), x, y, key=0, alpha=ALPHA, target=T950).outputs[0]
    xf, yf = x.astype(F32), y.astype(F32)
    a = np.abs(xf * F32(ALPHA) + yf)
    # Exp and Ln are evaluated in double and rounded once (as the MemBase ops, sim/README.md).
    c = np.exp(np.minimum(xf, F32(4)).astype(np.float64)).astype(F32) + F32(1)
    b = np.sqrt(a) / c - np.maximum(yf, F32(0))
    ln = -np.log((a + F32(1)).astype(np.float64)).astype(F32)
    assert _same(got, (b * ln).astype(np.float16))


def test_where_via_compare_and_select_in_vec_scope(projects, rng):
    """__VEC_SCOPE__ with the MicroAPI spelling; Compare<GT> into a MaskReg, Select by it."""
    x = rng.standard_normal(1000).astype(F32)
    y = rng.standard_normal(1000).astype(F32)
    y[:10] = x[:10]  # equal lanes take the false branch
    got = run(projects("reg_numerics"), x, y, key=1, alpha=ALPHA, target=T950).outputs[0]
    assert _same(got, np.where(x > y, x * F32(ALPHA), y - x))


@pytest.mark.parametrize("cols", [40, 64, 7])
def test_row_reduction_first_element_store_and_brc_reload(projects, rng, cols):
    """Reduce<SUM> under a tail mask, Muls on lane 0, StoreAlign<DIST_FIRST_ELEMENT_B32> per row,
    LocalMemBar, LoadAlign<DIST_BRC_B32> of the row's mean. Inputs are multiples of 1/8, so every
    partial sum is exact and the (undocumented) summation order cannot change the bits."""
    rows = 7
    x = (rng.integers(-64, 64, rows * cols) / 8).astype(F32)
    got = run(projects("reg_numerics"), x, None, key=2, tile=cols, target=T950).outputs[0]
    m = x.reshape(rows, cols).sum(axis=1, dtype=F32) * F32(1 / cols)
    assert _same(got, (x.reshape(rows, cols) - m[:, None]).reshape(-1))


@pytest.mark.parametrize("key,saturate", [(3, True), (4, False)])
def test_quant_chain_f32_rint_f16_then_int8_by_sat_mode(projects, rng, key, saturate):
    """f16 -> f32 * scale -> f16 (RINT) -> int8 (RINT; SatMode::SAT clamps, NO_SAT keeps the low 8
    bits) -> f16; values beyond the int8 range, halves and both signs are present."""
    x = (rng.standard_normal(2000) * 60).astype(np.float16)
    x[:6] = [0.5, 1.5, -2.5, 2.5, 51.2, -60.0]  # ties to even after * 2.5: 1.25, 3.75, ... and 128, -150
    got = run(projects("reg_numerics"), x, None, key=key, alpha=2.5, target=T950).outputs[0]
    h = (x.astype(F32) * F32(2.5)).astype(np.float16).astype(np.float64)
    r = np.rint(h)
    q = np.clip(r, -128, 127) if saturate else (r + 128) % 256 - 128
    assert np.abs(r).max() > 128  # the two modes differ on this input
    assert _same(got, q.astype(np.int8).astype(np.float16))


def test_cast_merging_keeps_unselected_lanes_and_bf16_rounds_to_even(projects, rng):
    x = rng.standard_normal(1000).astype(F32)
    got = run(projects("reg_numerics"), x, None, key=5, target=T950, out_dtype=ml_dtypes.bfloat16).outputs[0]
    expected = np.where(x >= 0, x.astype(ml_dtypes.bfloat16), ml_dtypes.bfloat16(-1))
    assert _same(got, expected)


def test_max_min_relu_log_reduce_max_min_merging_and_masked_duplicate(projects, rng):
    n = 1000
    x = rng.standard_normal(n).astype(F32)
    y = rng.standard_normal(n).astype(F32)
    got = run(projects("reg_numerics"), x, y, key=6, target=T950).outputs[0]
    lane = np.arange(n) % 64
    every4 = lane % 4 == 0
    chunk = np.arange(n) // 64
    vmax = np.array([x[chunk == c].max() for c in range(chunk.max() + 1)], F32)[chunk]
    vmin = np.array([y[chunk == c].min() for c in range(chunk.max() + 1)], F32)[chunk]
    a = np.where(every4, np.minimum(x, y) * F32(2), np.maximum(x, y))  # MERGING keeps Max elsewhere
    a = a + np.maximum(x - y, F32(0))
    a = a + vmax - vmin
    a = a + np.log((np.abs(x) + F32(1)).astype(np.float64)).astype(F32)
    a = a + np.where(every4, F32(3), F32(0))
    assert _same(got, a.astype(F32))


def test_widening_cast_layouts_zero_and_one_pick_even_and_odd_elements(projects, rng):
    n = 1000
    x = rng.standard_normal(n).astype(np.float16)
    got = run(projects("reg_numerics"), x, None, key=7, target=T950).outputs[0][: n // 2]  # z[n/2:] unused
    expected = (x[1::2].astype(F32) - x[0::2].astype(F32)).astype(np.float16)
    assert _same(got, expected)


def test_narrowing_cast_trunc_with_saturation(projects, rng):
    x = (rng.standard_normal(300) * 1000).astype(F32)
    x[:6] = [1e6, -1e6, np.inf, -np.inf, np.nan, 65519.0]
    got = run(projects("reg_numerics"), x, None, key=8, target=T950, out_dtype=np.float16).outputs[0]
    with np.errstate(invalid="ignore", over="ignore"):
        rne = x.astype(np.float16)
        toward = np.where(
            np.abs(rne.astype(np.float64)) > np.abs(x.astype(np.float64)),
            np.nextafter(rne, np.float16(0)),
            rne,
        )
    # SAT: NaN -> 0, beyond the range -> +-65504 (and TRUNC never rounds up to inf)
    expected = np.where(np.isnan(x), np.float16(0), np.clip(toward, -65504, 65504)).astype(np.float16)
    assert expected[2] == 65504 and expected[3] == -65504 and expected[5] == 65504
    assert _same(got, expected)


def test_where_over_maskreg_not_and_or_xor_and_mask_select(projects, rng):
    x = (rng.standard_normal(1000) * 2).astype(F32)
    y = (rng.standard_normal(1000) * 2).astype(F32)
    got = run(projects("reg_numerics"), x, y, key=9, target=T950).outputs[0]
    gt, big = x > y, x > 1
    c = (gt & ~big) | (y < -1)
    e = np.where(big, c, gt)
    w = np.where(c, x, y)
    assert (e ^ c).any() and c.any() and (~c).any()
    assert _same(got, np.where(e ^ c, w * F32(2), w))


def test_regbase_needs_arch_3510(projects, rng):
    x = rng.standard_normal(256).astype(F32)
    with pytest.raises(UnsupportedError) as info:
        run(projects("reg_numerics"), x, x, key=1, target=T910B)
    assert "op_kernel/sim_ew.cpp:" in str(info.value)
    assert (
        "__VEC_SCOPE__: RegBase vector functions (Reg API) need arch 3510 (ascend950); this is arch 2201"
        in str(info.value)
    )


# ---------------------------------------------------------------- run-time VF faults (reg_faults.cpp)

FAULTS_SRC = (KERNELS / "reg_faults.cpp").read_text().splitlines()


def _at(snippet: str, after: str | None = None) -> str:
    """`op_kernel/sim_ew.cpp:N` of the first reg_faults.cpp line holding `snippet` (below `after`)."""
    first = 0 if after is None else next(i for i, s in enumerate(FAULTS_SRC) if after in s)
    line = next(i for i, s in enumerate(FAULTS_SRC) if i >= first and snippet in s)
    return f"op_kernel/sim_ew.cpp:{line + 1}"


SCALE_LOAD = _at("Reg::LoadAlign(r, x + i * 64);")
SCALE_STORE = _at("Reg::StoreAlign(z + i * 64, r, mask);")

# bug key, error, message fragments; the corrected twin is key + 1
FAULTS = [
    (
        0,
        UnsupportedError,
        [
            f"{_at('Muls(zl, xl, alpha')}: Muls inside the vector function entered by __VEC_SCOPE__ at "
            f"{_at('__VEC_SCOPE__ {')}: a VF contains only Reg API calls and scalar code"
        ],
    ),
    (
        2,
        UnsupportedError,
        [f"{_at('if (key == 2) DataCopyPad')}: DataCopyPad(UB->GM) inside the vector function"],
    ),
    (
        4,
        UnsupportedError,
        [f"{_at('if (key == 4) SetFlag')}: SetFlag inside the vector function entered by __VEC_SCOPE__"],
    ),
    (
        6,
        UnsupportedError,
        [
            f"{_at('Reg::LoadAlign(r, xp + i * 64);', after='RegTensor<float> outer')}: Reg::LoadAlign uses a "
            f"RegTensor declared at {_at('RegTensor<float> outer')} outside any vector function: registers live "
            "only inside the vector function that declares them"
        ],
    ),
    (
        8,
        RaceError,
        [
            f"{_at('LoadAlign(back, tp')}: read-after-write race on UB [0x2000, 0x2100) of TBuf<VECCALC>#2",
            f"V LoadAlign at {_at('LoadAlign(back, tp')} reloads it after V StoreAlign at {_at('StoreAlign(tp + i')} "
            "stored it in the same VF, with no LocalMemBar<MemType::VEC_STORE, MemType::VEC_LOAD>()",
        ],
    ),
    (
        10,
        RaceError,
        [
            f"{SCALE_LOAD}: read-after-write race",
            f"V LoadAlign at {SCALE_LOAD} reads it after MTE2 DataCopyPad(GM->UB) at {_at('DataCopyPad(xl, xGm')}",
            "HardEvent::MTE2_V",
        ],
    ),
    (
        12,
        RaceError,
        [
            f"MTE3 DataCopyPad(UB->GM) at {_at('DataCopyPad(zGm, zl, copy);', after='if (!copied)')} reads it "
            f"after V StoreAlign at {SCALE_STORE} wrote it",
            "HardEvent::V_MTE3",
        ],
    ),
    (
        14,
        MemoryFaultError,
        [  # a stored undefined lane is no fault by itself (a tile's padding is): its copy out is
            "MTE3 DataCopyPad(UB->GM) at",
            "copies undefined data to output 0 'z' bytes [0, 4000): UB 0x1000",
            f"left undefined by V StoreAlign at {SCALE_STORE}",
        ],
    ),
    (
        16,
        UnsupportedError,
        [
            f"{_at('Reg::UpdateMask<float>(count)')}: Reg::UpdateMask outside a vector function: call it in a "
            "__simd_vf__ function"
        ],
    ),
    (
        18,
        MemoryFaultError,
        [
            f"{SCALE_LOAD}: LoadAlign: DIST_NORM UB [0xf00, 0x1000) (256 B) runs outside TBuf<VECCALC>#0 "
            f"(InitBuffer at {_at('pipe.InitBuffer(xb')}, UB [0x0, 0xfa0))"
        ],
    ),
    (
        20,
        MemoryFaultError,
        [f"{SCALE_LOAD}: Reg::LoadAlign<DIST_NORM>: address", "is not a UB address (pass (__ubuf__ T*)"],
    ),
]


@pytest.mark.parametrize("key,err,fragments", FAULTS, ids=[f"key{c[0]}" for c in FAULTS])
def test_vf_fault_is_reported_with_the_kernel_line(projects, rng, key, err, fragments):
    x = rng.standard_normal(1000).astype(F32)
    with pytest.raises(err) as info:
        run(projects("reg_faults"), x, None, key=key, alpha=ALPHA, target=T950)
    msg = str(info.value)
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in:\n{msg}"


@pytest.mark.parametrize("key", [c[0] + 1 for c in FAULTS])
def test_vf_fault_corrected_twin_passes(projects, rng, key):
    x = rng.standard_normal(1000).astype(F32)
    got = run(projects("reg_faults"), x, None, key=key, alpha=ALPHA, target=T950).outputs[0]
    assert _same(got, x * F32(ALPHA))


# ---------------------------------------------------------------- loop and argument rules (reg_loops.cpp)

LOOPS = (KERNELS / "reg_loops.cpp").read_text()
COLUMN_LOOP = "for (uint16_t i = 0; i < colRepeats; ++i) {  // COLUMN LOOP"
ROW_LOOP = "for (uint16_t row = 0; row < rows; ++row) {  // ROW LOOP"
COLUMN_LINE = LOOPS[: LOOPS.index(COLUMN_LOOP)].count("\n") + 1
ROW_LINE = LOOPS[: LOOPS.index(ROW_LOOP)].count("\n") + 1


def _nest(levels: int) -> str:
    """The column loop wrapped in `levels - 2` extra single-trip loops (the row loop is one level)."""
    extra = "".join(f"for (uint16_t k{d} = 0; k{d} < 1; ++k{d}) " for d in range(levels - 2))
    return extra + COLUMN_LOOP


# name, (old, new) text edit, message of the bug; the twin is the fixture itself or the "fix" edit
LOOP_RULES = [
    (
        "counter_uint32",
        (COLUMN_LOOP, COLUMN_LOOP.replace("uint16_t i", "uint32_t i")),
        f"op_kernel/sim_ew.cpp:{COLUMN_LINE}: loop counter 'i' is uint32_t: VF hardware loops need "
        "`for (uint16_t i = 0; i < n; ++i)`: a uint16_t counter from 0, step 1 (in the vector function RowsVF "
        "(__simd_vf__, line 7))",
    ),
    (
        "counter_int",
        (ROW_LOOP, ROW_LOOP.replace("uint16_t row", "int row")),
        f"op_kernel/sim_ew.cpp:{ROW_LINE}: loop counter 'row' is int:",
    ),
    (
        "counter_start",
        (COLUMN_LOOP, COLUMN_LOOP.replace("i = 0", "i = 1")),
        f"op_kernel/sim_ew.cpp:{COLUMN_LINE}: loop counter 'i' starts at 1:",
    ),
    (
        "counter_step",
        (COLUMN_LOOP, COLUMN_LOOP.replace("++i", "i += 2")),
        f"op_kernel/sim_ew.cpp:{COLUMN_LINE}: loop counter 'i' steps by 'i += 2':",
    ),
    (
        "five_nested",
        (COLUMN_LOOP, _nest(5)),
        f"op_kernel/sim_ew.cpp:{COLUMN_LINE}: 5 nested loops: a vector function allows at most 4",
    ),
    (
        "while",
        (ROW_LOOP, "while (false) {\n    }\n    " + ROW_LOOP),
        f"op_kernel/sim_ew.cpp:{ROW_LINE}: 'while' in a vector function: a VF has only for loops and if",
    ),
]


def _x_rows(rng, cols=40, rows=5):
    return rng.standard_normal(rows * cols).astype(F32), cols


@pytest.mark.parametrize("name,edit,message", LOOP_RULES, ids=[r[0] for r in LOOP_RULES])
def test_vf_loop_rule_is_reported_with_the_kernel_line(tmp_path, rng, name, edit, message):
    old, new = edit
    assert old in LOOPS
    proj = make_project(tmp_path, name, LOOPS.replace(old, new))
    x, cols = _x_rows(rng)
    with pytest.raises(UnsupportedError) as info:
        run(proj, x, tile=cols, alpha=ALPHA, target=T950)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "text", [LOOPS, LOOPS.replace(COLUMN_LOOP, _nest(4))], ids=["two_levels", "four_levels"]
)
def test_vf_loop_rule_twin_passes(tmp_path, rng, text):
    proj = make_project(tmp_path, "loops_ok", text)
    x, cols = _x_rows(rng)
    got = run(proj, x, tile=cols, alpha=ALPHA, target=T950).outputs[0]
    assert _same(got, x * F32(ALPHA))


def test_loop_rules_ignore_comments_strings_and_code_outside_vfs():
    text = (
        "// __simd_vf__ void F() { for (int i = 0; i < 3; i++) {} }\n"
        'const char* s = "__VEC_SCOPE__ { while (1) {} }";\n'
        "__aicore__ void G() { for (int i = 0; i < 3; i++) { while (true) {} } }\n"
        "__simd_vf__ inline void H(float* p);\n"
    )
    vf_rules.check_text(text, "op_kernel/x.cpp")


@pytest.mark.parametrize(
    "old,new",
    [
        ("(__ubuf__ float*)xl.GetPhyAddr(), td.alpha", "xl, td.alpha"),
        ("__ubuf__ float* x, float alpha", "LocalTensor<float>& x, float alpha"),
    ],
    ids=["localtensor_argument", "reference_parameter"],
)
def test_vf_arguments_other_than_ub_pointers_and_scalars_do_not_build(tmp_path, old, new):
    """asc_vf_call's static_assert (the kernel does not build, as on the NPU compiler)."""
    assert old in LOOPS
    proj = make_project(tmp_path, "vf_args", LOOPS.replace(old, new))
    x = np.zeros(80, F32)
    with pytest.raises(BuildError) as info:
        run(proj, x, tile=40, target=T950)
    assert "asc_vf_call: " in str(info.value)
    assert "raw __ubuf__ pointers and" in str(info.value)


# ---------------------------------------------------------------- the real headers (compile gate)

GATE = Path("/work/shared/tools/compile-gate/compile-gate")
HOST = KERNELS.parent / "host"


def _gate(tmp_path: Path, kernel_text: str) -> subprocess.CompletedProcess:
    op = tmp_path / "out" / OP
    (op / "op_kernel").mkdir(parents=True)
    shutil.copytree(HOST, op / "op_host")
    (op / "op_kernel" / f"{OP}.cpp").write_text(kernel_text)
    return subprocess.run(
        [sys.executable, str(GATE), "kernel", "--arch", "950", "-j", "1", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
    )


needs_gate = pytest.mark.skipif(
    not (GATE.is_file() and os.environ.get("ASC_DEVKIT")),
    reason="compile gate: set ASC_DEVKIT to an extracted asc-devkit (see the gate's README)",
)


@needs_gate
@pytest.mark.parametrize("fixture", ["reg_numerics", "reg_loops", "reg_double_buffer", "reg_tque"])
def test_fixture_kernels_compile_against_the_real_reg_headers(tmp_path, fixture):
    """The names and signatures the emulator models are the real ones: the fixtures type-check
    against asc-devkit's Reg headers (__NPU_ARCH__ 3510)."""
    proc = _gate(tmp_path, (KERNELS / f"{fixture}.cpp").read_text())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS  kernel[950] sim_ew/op_kernel/sim_ew.cpp" in proc.stdout


@needs_gate
def test_the_gate_rejects_a_wrong_store_distribution(tmp_path):
    text = (
        (KERNELS / "reg_numerics.cpp").read_text().replace("DIST_FIRST_ELEMENT_B32", "DIST_FIRST_ELEMENT_B33")
    )
    proc = _gate(tmp_path, text)
    assert proc.returncode == 1
    assert "'DIST_FIRST_ELEMENT_B33' is not a member of 'AscendC::Reg::StoreDist'" in proc.stdout


# ---------------------------------------------------------------- a double-buffered RegBase kernel

DOUBLE = (KERNELS / "reg_double_buffer.cpp").read_text()
DOUBLE_FLAGS = [i for i, line in enumerate(DOUBLE.splitlines()) if re.search(r"\b(SetFlag|WaitFlag)<", line)]


def test_double_buffered_regbase_kernel_equals_numpy(projects, rng):
    x, y = rng.standard_normal((2, 2 * 2048)).astype(F32)
    res = run(projects("reg_double_buffer"), x, y, tile=512, blocks=2, alpha=-3.0, target=T950, strict=True)
    assert _same(res.outputs[0], x * F32(-3.0) + y)
    assert len(DOUBLE_FLAGS) == 16  # 4 pre-issued, 8 in the loop, 4 drained


@pytest.mark.parametrize("line_no", DOUBLE_FLAGS, ids=lambda i: f"line{i + 1}")
def test_deleting_any_flag_of_the_regbase_kernel_is_reported(tmp_path, rng, line_no):
    lines = DOUBLE.splitlines()
    removed = lines[line_no].strip()
    del lines[line_no]
    proj = make_project(tmp_path, "reg_double_buffer", "\n".join(lines) + "\n")
    x, y = rng.standard_normal((2, 2 * 2048)).astype(F32)
    with pytest.raises(SimulationError) as info:
        run(proj, x, y, tile=512, blocks=2, target=T950, strict=True)
    assert "op_kernel/sim_ew.cpp:" in str(info.value), removed


def test_vf_on_tque_tensors_passes_and_a_vf_before_deque_races(projects, rng):
    """TQue's implicit sync covers the VF's UB accesses: with the DeQue (key 1) the kernel is exact;
    running the VF on the input tensor before its DeQue (key 0) drops the MTE2 -> V sync."""
    x = rng.standard_normal(8 * 320).astype(F32)
    got = run(projects("reg_tque"), x, tile=320, key=1, alpha=ALPHA, target=T950, strict=True).outputs[0]
    assert _same(got, x * F32(ALPHA))
    with pytest.raises(RaceError) as info:
        run(projects("reg_tque"), x, tile=320, key=0, alpha=ALPHA, target=T950)
    assert "V LoadAlign at op_kernel/sim_ew.cpp:" in str(info.value)
    assert "HardEvent::MTE2_V" in str(info.value)


def test_merging_where_the_3510_impl_refuses_it_does_not_build(tmp_path):
    """Muls (like Sub, Mul, Div, the unary and scalar ops, Reduce) is ZEROING-only on 3510; the impl's
    static_assert, mirrored here, names it. Add/Max/Min/Duplicate/Cast take MERGING (test above)."""
    old = "Reg::Muls(r, r, alpha, mask);"
    assert old in LOOPS
    text = LOOPS.replace(old, "Reg::Muls<float, float, Reg::MaskMergeMode::MERGING>(r, r, alpha, mask);")
    with pytest.raises(BuildError) as info:
        run(make_project(tmp_path, "merging", text), np.zeros(80, F32), tile=40, target=T950)
    assert "current Muls api only supported Mode ZEROING on current device!" in str(info.value)


# ---------------------------------------------------------------- element types per op (emulator vs real headers)

PROBE_TYPES = [
    "float",
    "half",
    "bfloat16_t",
    "int32_t",
    "int16_t",
    "uint16_t",
    "int8_t",
    "uint8_t",
    "uint32_t",
]
PROBE_CALLS = {
    **{op: f"Reg::{op}(a, a, a, m);" for op in ["Add", "Sub", "Mul", "Div", "Max", "Min"]},
    **{op: f"Reg::{op}(a, a, (T)1, m);" for op in ["Adds", "Muls", "Maxs", "Mins"]},
    **{op: f"Reg::{op}(a, a, m);" for op in ["Abs", "Relu", "Neg", "Exp", "Sqrt", "Ln", "Log"]},
    "Compare": "Reg::Compare<T, CMPMODE::GT>(m2, a, a, m);",
    "Compares": "Reg::Compares<T, CMPMODE::GT>(m2, a, (T)1, m);",
    "Select": "Reg::Select(a, a, a, m);",
    "ReduceSum": "Reg::Reduce<ReduceType::SUM>(a, a, m);",
    "ReduceMax": "Reg::Reduce<ReduceType::MAX>(a, a, m);",
    "Duplicate": "Reg::Duplicate(a, (T)1, m);",
}
FLOATS = {"float", "half"}
# What asc-devkit 9.1's 3510 impl refuses (its static_asserts), as the compile gate reports it.
REAL_REFUSES = {
    "Mul": {"int8_t", "uint8_t"},
    "Div": {"bfloat16_t", "int8_t", "uint8_t"},
    "Muls": {"bfloat16_t", "int8_t", "uint8_t"},
    "Abs": {"bfloat16_t", "uint16_t", "uint8_t", "uint32_t"},
    "Relu": {"bfloat16_t", "int16_t", "uint16_t", "int8_t", "uint8_t", "uint32_t"},
    "Neg": {"bfloat16_t", "uint16_t", "uint8_t", "uint32_t"},
    "Exp": set(PROBE_TYPES) - FLOATS,
    "Sqrt": set(PROBE_TYPES) - FLOATS,
    "Ln": set(PROBE_TYPES) - FLOATS,
    "ReduceSum": {"bfloat16_t", "int16_t", "uint16_t", "int8_t", "uint8_t"},
    "ReduceMax": {"bfloat16_t", "int8_t", "uint8_t"},
}
# The emulator is stricter here: Log of non-floats compiles against the real headers, but it is
# not a documented type (Log.md: half, float).
EMULATOR_ALSO_REFUSES = {"Log": set(PROBE_TYPES) - FLOATS}


def _probe_text() -> tuple[str, list[tuple[str, str]]]:
    lines = ['#include "kernel_operator.h"', "using namespace AscendC;"]
    cases = []
    for op, call in PROBE_CALLS.items():
        for t in PROBE_TYPES:
            cases.append((op, t))
            lines.append(
                f"__simd_vf__ inline void P{len(cases)}(__ubuf__ {t}* p) {{ using T = {t}; Reg::RegTensor<T> a; "
                f"Reg::MaskReg m = Reg::CreateMask<T>(); Reg::MaskReg m2; Reg::LoadAlign(a, p); {call} "
                "Reg::StoreAlign(p, a, m); }"
            )
    lines.append(
        'extern "C" __global__ __aicore__ void sim_ew(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR) {'
        + "".join(f" asc_vf_call<P{i + 1}>(({t}*)nullptr);" for i, (_, t) in enumerate(cases))
        + " }"
    )
    return "\n".join(lines) + "\n", cases


def _refusals(log: str, file_name: str, cases) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in re.finditer(rf"{re.escape(file_name)}:(\d+):\d+:(?:   required from here| error:)", log):
        line = int(m.group(1))
        if 3 <= line < 3 + len(cases):
            op, t = cases[line - 3]
            out.setdefault(op, set()).add(t)
    return out


def test_emulator_refuses_the_element_types_the_real_headers_refuse(tmp_path):
    from backends.ascendc.sim.build import INCLUDE_DIR

    text, cases = _probe_text()
    src = tmp_path / "probe.cpp"
    src.write_text(text)
    proc = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-fmax-errors=0", "-isystem", str(INCLUDE_DIR), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    expected = {op: REAL_REFUSES.get(op, set()) | EMULATOR_ALSO_REFUSES.get(op, set()) for op in PROBE_CALLS}
    got = _refusals(proc.stderr, "probe.cpp", cases)
    assert {op: got.get(op, set()) for op in PROBE_CALLS} == expected


@needs_gate
def test_the_real_headers_refuse_these_element_types(tmp_path):
    text, cases = _probe_text()
    op = tmp_path / "out" / OP
    (op / "op_kernel").mkdir(parents=True)
    shutil.copytree(HOST, op / "op_host")
    (op / "op_kernel" / f"{OP}.cpp").write_text(text)
    logs = tmp_path / "logs"
    subprocess.run(
        [sys.executable, str(GATE), "kernel", "--arch", "950", "--logs", str(logs), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = (logs / "kernel-950" / OP / f"{OP}.cpp.log").read_text()
    got = _refusals(log, f"{OP}.cpp", cases)
    assert {o: got.get(o, set()) for o in PROBE_CALLS} == {o: REAL_REFUSES.get(o, set()) for o in PROBE_CALLS}
