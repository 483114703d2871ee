"""The quantization chain (legalize-casts): ``cast(round(v), i8/u8)`` and ``cast(v, i8/u8)`` of f32
values as two casts, f32 -> f16 rounding to odd (CAST_ODD), then f16 -> i8/u8 half to even
(CAST_RINT) or toward zero (CAST_TRUNC), saturating, NaN -> 0. Rounding twice is exact here: an
f32 value that is not an f16 lands on an odd f16, which is never an integer nor a half integer
while the f16 spacing is at most 1/4 (|v| < 512), so it stays on its side of every integer and
every midpoint; from 512 on, both roundings saturate.

Shown bit for bit against an independent numpy oracle (np.rint / np.trunc, clip, NaN -> 0) on
the generated kernels: every f16 value (an f16 operator), and for f32 every value within 4 ulps
of each integer and half integer in [-600, 600], the f16 overflow bounds, +-inf, NaNs, subnormals
and random bit patterns."""

from __future__ import annotations

import numpy as np
import pytest

from backends.ascendc.simulate import simulate

MODULE = """
    import dsl
    from dsl import Tensor, f16, f32, i8, u8

    @dsl.op(dtypes=(f16, f32))
    def quant(x: Tensor):
        rounded = dsl.cast(dsl.round(x), i8)
        rounded_u = dsl.cast(dsl.round(x), u8)
        truncated = dsl.cast(x, i8)
        truncated_u = dsl.cast(x, u8)
        return rounded, rounded_u, truncated, truncated_u
    """


def oracle(x: np.ndarray) -> list[np.ndarray]:
    """rint/trunc in f64, saturated, NaN -> 0: rounded, rounded_u, truncated, truncated_u."""
    out = []
    with np.errstate(invalid="ignore"):
        v = x.astype(np.float64)
        for f in (np.rint, np.trunc):
            for t in (np.int8, np.uint8):
                info = np.iinfo(t)
                r = np.nan_to_num(f(v), nan=0.0, posinf=info.max, neginf=info.min)
                out.append(np.clip(r, info.min, info.max).astype(t))
    return out


def f32_boundaries() -> np.ndarray:
    """Every f32 within 4 ulps of k/2 for |k/2| <= 600, the f16 overflow bounds, 2^k, specials."""
    centres = np.arange(-1200, 1201, dtype=np.float32) / np.float32(2)
    near = [centres]
    lo = hi = centres
    for _ in range(4):
        lo, hi = np.nextafter(lo, np.float32(-np.inf)), np.nextafter(hi, np.float32(np.inf))
        near += [lo, hi]
    powers = np.ldexp(np.float32(1), np.arange(-149, 128)).astype(np.float32)
    big = np.array([65504, 65504.5, 65519.996, 65520, 65536, 1e9, 3.4028235e38], np.float32)
    tiny = np.array(
        [0.0, 1e-45, 1e-40, 5.9604645e-08, 2.9802322e-08, 2.9802326e-08, 0.25, 0.4999999702], np.float32
    )
    special = np.array([np.inf, -np.inf, np.nan], np.float32)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF], np.uint32).view(np.float32)
    rng = np.random.default_rng(20)
    random_bits = rng.integers(0, 2**32, 50000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate(near + [powers, -powers, big, -big, tiny, -tiny, special, nans, random_bits])


def _check(x, dtype_name, cores):
    import dsl

    op = MODULE_OP["quant"]
    outs, _ = simulate(op, (x,), {}, cores=cores, dtype=dsl.dtypes.dtype_from_name(dtype_name), strict=True)
    ref = op.reference(x, dtype=dsl.dtypes.dtype_from_name(dtype_name))
    for name, got, want, r in zip(op.outputs, outs, oracle(x), ref):
        bad = np.nonzero(got != want)[0]
        assert (
            bad.size == 0
        ), f"{name}: {bad.size} differ, first x={x[bad[:5]]} got={got[bad[:5]]} want={want[bad[:5]]}"
        np.testing.assert_array_equal(r, want, err_msg=f"{name}: the reference")


MODULE_OP: dict = {}


@pytest.fixture(autouse=True)
def _op(write_module):
    MODULE_OP["quant"] = write_module(MODULE).quant


def test_every_f16_value_quantizes_bit_exact():
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    _check(x, "f16", cores=8)


def test_f32_rounding_boundaries_and_specials_quantize_bit_exact():
    _check(f32_boundaries(), "f32", cores=4)


def test_the_chain_is_one_cast_per_output_and_no_clamp(tmp_path):
    """f32: one CAST_ODD shared by the four outputs, then one cast each; f16: the odd cast of an
    f16 value is exact (canonicalize drops it), so one cast each. No i32 round trip, no clamp."""
    op = MODULE_OP["quant"]
    op.compile(out_dir=tmp_path)
    kernel = (tmp_path / op.name / "op_kernel" / f"{op.name}.cpp").read_text()
    assert "Maxs(" not in kernel and "Mins(" not in kernel and "LocalTensor<int32_t>" not in kernel
    counts = {m: kernel.count(f"RoundMode::CAST_{m}") for m in ("ODD", "RINT", "TRUNC", "NONE")}
    assert counts == {"ODD": 1, "RINT": 4, "TRUNC": 4, "NONE": 0}, counts


def test_the_interpreter_runs_the_legalized_chain_bit_exact():
    """The IR interpreter's ``round = "odd"`` and ``round = "rint"`` casts (what --verify-each
    runs after legalize-casts) agree with the oracle on the same f32 set."""
    from dsl.ir import parse_module
    from dsl.ir.interpreter import run_func
    from passes.legalize_casts import legalize

    text = """func @q(%x: tensor<*, f32>) -> (a: tensor<*, i8>, b: tensor<*, u8>, c: tensor<*, i8>, d: tensor<*, u8>) {
  %r = round %x : tensor<*, f32>
  %a = cast %r {from = f32} : tensor<*, i8>
  %b = cast %r {from = f32} : tensor<*, u8>
  %c = cast %x {from = f32} : tensor<*, i8>
  %d = cast %x {from = f32} : tensor<*, u8>
  return %a, %b, %c, %d
}"""
    func = parse_module(text).funcs[0]
    legalize(func)
    assert [o.attrs.get("round") for o in func.body] == [
        "odd",
        "rint",
        "odd",
        "rint",
        "odd",
        None,
        "odd",
        None,
    ]
    x = f32_boundaries()
    for name, got, want in zip("abcd", run_func(func, {"x": x}, {}), oracle(x)):
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_round_to_odd_f16():
    from dsl.ir.ops import round_to_odd_f16

    x = np.array(
        [
            1 + 2**-12,
            1 + 2**-11,
            1 + 3 * 2**-12,
            2.5,
            -(1 + 2**-12),
            65505,
            1e9,
            -1e9,
            1e-9,
            np.inf,
            -np.inf,
            np.nan,
            -0.0,
        ],
        np.float32,
    )
    want = np.array(
        [
            1 + 2**-10,
            1 + 2**-10,
            1 + 2**-10,
            2.5,
            -(1 + 2**-10),
            65504,
            65504,
            -65504,
            2**-24,
            np.inf,
            -np.inf,
            np.nan,
            -0.0,
        ],
        np.float32,
    )
    got = round_to_odd_f16(x)
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[-1])


@pytest.mark.slow
def test_every_f32_value_through_the_emulators_cast_model(tmp_path):
    """All 2^32 f32 bit patterns through the emulator's Cast (detail::convert): f32 -> f16
    CAST_ODD, then f16 -> i8/u8 CAST_RINT and CAST_TRUNC, against rint/trunc in double (about a
    minute of one core)."""
    import subprocess
    from pathlib import Path

    from backends.ascendc.sim.build import CXX

    root = Path(__file__).resolve().parents[2]
    src = root / "tests" / "sim" / "fixtures" / "quant_chain_exhaustive.cpp"
    exe = tmp_path / "exhaustive"
    include = root / "backends" / "ascendc" / "sim" / "include"
    subprocess.run([CXX, "-O2", "-std=c++17", f"-I{include}", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0 and "0 mismatches" in out.stdout, out.stdout[-2000:]
