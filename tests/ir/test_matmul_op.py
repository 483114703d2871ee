"""The IR's ``matmul`` op: textual round trip, the verifier's rules, and the reference
interpreter's numbers (DESIGN.md section 2: f16/bf16 products exact, sum in float64 rounded to
f32; i8 x i8 exact in i32)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from dsl import ArgumentError
from dsl.errors import VerifyError
from dsl.ir import parse_module, print_module
from dsl.ir.interpreter import run_func
from dsl.ir.verifier import verify_module
from dsl.precision import MATMUL, compare, matmul_bound

BF16 = ml_dtypes.bfloat16

LINEAR = """func @linear(%x: tensor<M, K, bf16>, %w: tensor<N, K, bf16>, %bias: tensor<N, f32>) -> (y: tensor<M, N, bf16>) attributes {dtype = bf16} loc("lin.py":5:1) {
  %0 = matmul %x, %w {transpose_b = true} : tensor<M, N, f32> loc("lin.py":6:9)
  %y = add %0, %bias : tensor<M, N, f32> loc("lin.py":6:9)
  %1 = cast %y {from = f32} : tensor<M, N, bf16> loc("lin.py":7:12)
  return %1
}
"""

QUANT = """func @quant(%x: tensor<M, K, i8>, %w: tensor<K, N, i8>) -> (y: tensor<M, N, i32>) {
  %0 = matmul %x, %w {transpose_b = false} : tensor<M, N, i32>
  return %0
}
"""


@pytest.mark.parametrize("text", [LINEAR, QUANT], ids=["linear", "quant"])
def test_roundtrip(text):
    m = parse_module(text)
    verify_module(m)
    assert print_module(m, full_paths=True) == text
    assert print_module(parse_module(print_module(m))) == print_module(m)


def _verify_error(text: str) -> str:
    with pytest.raises(VerifyError) as info:
        verify_module(parse_module(text))
    return str(info.value)


def _with(
    op_line: str, params: str = "%x: tensor<M, K, f16>, %w: tensor<K, N, f16>", out="tensor<M, N, f32>"
):
    return f"func @f({params}) -> (y: {out}) {{\n  {op_line}\n  return %0\n}}\n"


@pytest.mark.parametrize(
    "params,line,msg",
    [
        (
            "%x: tensor<M, K, f32>, %w: tensor<K, N, f32>",
            "%0 = matmul %x, %w {transpose_b = false} : tensor<M, N, f32>",
            "matmul operands are f16, bf16 or i8, got f32",
        ),
        (
            "%x: tensor<M, K, f16>, %w: tensor<K, N, bf16>",
            "%0 = matmul %x, %w {transpose_b = false} : tensor<M, N, f32>",
            "matmul operands have one dtype (f16 x f16, bf16 x bf16, i8 x i8), got f16 and bf16",
        ),
        (
            "%x: tensor<..., M, K, f16>, %w: tensor<K, N, f16>",
            "%0 = matmul %x, %w {transpose_b = false} : tensor<M, N, f32>",
            "matmul takes 2-D operands with named dims, got tensor<..., M, K, f16>",
        ),
        (
            "%x: tensor<M, K, f16>, %w: tensor<K, N, f16>",
            "%0 = matmul %x, %w {transpose_b = true} : tensor<M, N, f32>",
            "matmul contracts 'K' with 'N': the two K dims must have one name",
        ),
        (
            "%x: tensor<M, K, f16>, %w: tensor<K, N, f16>",
            "%0 = matmul %x, %w {transpose_b = false} : tensor<M, N, f16>",
            "result type should be tensor<M, N, f32>, not tensor<M, N, f16>",
        ),
        (
            "%x: tensor<M, K, i8>, %w: tensor<K, N, i8>",
            "%0 = matmul %x, %w {transpose_b = false} : tensor<M, N, f32>",
            "result type should be tensor<M, N, i32>, not tensor<M, N, f32>",
        ),
        (
            "%x: tensor<M, K, f16>, %w: tensor<K, N, f16>",
            "%0 = matmul %x, %w {transpose_b = 1} : tensor<M, N, f32>",
            "matmul needs a bool attribute transpose_b",
        ),
        (
            "%x: tensor<M, K, f16>, %w: tensor<K, N, f16>",
            "%0 = matmul %x, %w : tensor<M, N, f32>",
            "'matmul' needs attribute(s) transpose_b",
        ),
        (
            "%x: tensor<M, K, f16>, %w: tensor<K, N, f16>",
            "%0 = matmul %x : tensor<M, N, f32>",
            "'matmul' takes 2 operands, got 1",
        ),
    ],
)
def test_verifier_type_rules(params, line, msg):
    out = (
        "tensor<M, N, f16>"
        if ": tensor<M, N, f16>" in line
        else "tensor<M, N, i32>" if "i8" in params and "f32>" not in line else "tensor<M, N, f32>"
    )
    err = _verify_error(_with(line, params, out))
    assert err.endswith(msg), err
    assert err.startswith("in @f, at '%0 = matmul")


def test_verifier_operands_are_inputs():
    text = """func @f(%x: tensor<M, K, f16>, %w: tensor<K, N, f16>) -> (y: tensor<M, N, f32>) {
  %c = const {value = 2.0} : scalar<f16>
  %x2 = mul %x, %c : tensor<M, K, f16>
  %0 = matmul %x2, %w {transpose_b = false} : tensor<M, N, f32>
  return %0
}
"""
    assert _verify_error(text) == (
        "in @f, at '%0 = matmul %x2, %w {transpose_b = false} : tensor<M, N, f32>': matmul operand %x2 is "
        "not an input of @f"
    )


def test_verifier_one_matmul_per_function():
    text = """func @f(%x: tensor<M, K, f16>, %w: tensor<K, N, f16>) -> (y: tensor<M, N, f32>) {
  %0 = matmul %x, %w {transpose_b = false} : tensor<M, N, f32>
  %1 = matmul %x, %w {transpose_b = false} : tensor<M, N, f32>
  %2 = add %0, %1 : tensor<M, N, f32>
  return %2
}
"""
    assert _verify_error(text) == (
        "in @f, at '%1 = matmul %x, %w {transpose_b = false} : tensor<M, N, f32>': a function has at "
        "most one matmul"
    )


# ---------------------------------------------------------------------------------------------
# The reference interpreter
# ---------------------------------------------------------------------------------------------


def _run(text: str, **inputs):
    (func,) = parse_module(text).funcs
    return run_func(func, inputs, {})


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 33, 5), (16, 300, 17)])
def test_i8_is_exact_against_numpy_int32(m, k, n):
    rng = np.random.default_rng(m * k * n)
    x = rng.integers(-128, 128, (m, k), dtype=np.int8)
    w = rng.integers(-128, 128, (k, n), dtype=np.int8)
    (got,) = _run(QUANT, x=x, w=w)
    want = np.matmul(x.astype(np.int32), w.astype(np.int32))
    assert got.dtype == np.int32 and np.array_equal(got, want)


def test_i8_extremes_at_the_largest_k():
    """K = 2^17: every product -128 * 127 sums to -2^31 + 2^17 * 128, exact in i32."""
    k = 2**17
    x = np.full((1, k), -128, np.int8)
    w = np.full((k, 2), 127, np.int8)
    w[:, 1] = -127
    (got,) = _run(QUANT, x=x, w=w)
    assert got.tolist() == [[-128 * 127 * k, 128 * 127 * k]]


def test_i8_k_beyond_the_limit_is_an_argument_error():
    x = np.ones((1, 2**17 + 1), np.int8)
    w = np.ones((2**17 + 1, 1), np.int8)
    with pytest.raises(ArgumentError) as info:
        _run(QUANT, x=x, w=w)
    assert str(info.value) == (
        "matmul of i8 operands with K = 131073: K may be at most 131072 (2^17), beyond which an i32 sum "
        "could overflow"
    )


def _round_to_f32(s) -> np.float32:
    """The f32 nearest the rational ``s``, ties to even (float(s) is within one float64 ulp, so
    the answer is it rounded to f32 or one of that value's neighbours)."""
    from fractions import Fraction

    f = np.float32(float(s))
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    dist = [abs(Fraction(float(c)) - s) for c in cands]
    best = min(dist)
    ties = [c for c, d in zip(cands, dist) if d == best]
    return next((c for c in ties if c.view(np.uint32) % 2 == 0), ties[0])


def _exact_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each element's sum taken exactly (products of 16-bit floats are exact in float64; the
    sum in rationals), rounded once to f32."""
    from fractions import Fraction

    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    out = np.empty((a.shape[0], b.shape[1]), np.float32)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = _round_to_f32(sum((Fraction(float(p)) for p in a64[i] * b64[:, j]), Fraction(0)))
    return out


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("transpose", [False, True], ids=["a@b", "a@w.T"])
def test_half_sums_round_once_to_f32(dt, transpose):
    rng = np.random.default_rng(3)
    m, k, n = 6, 40, 7
    x = rng.standard_normal((m, k)).astype(dt)
    b = rng.standard_normal((k, n)).astype(dt)
    name = "f16" if dt == np.float16 else "bf16"
    w = np.ascontiguousarray(b.T) if transpose else b
    wtype = "tensor<N, K" if transpose else "tensor<K, N"
    text = (
        f"func @f(%x: tensor<M, K, {name}>, %w: {wtype}, {name}>) -> (y: tensor<M, N, f32>) {{\n"
        f"  %0 = matmul %x, %w {{transpose_b = {'true' if transpose else 'false'}}} : tensor<M, N, f32>\n"
        "  return %0\n}\n"
    )
    (got,) = _run(text, x=x, w=w)
    assert got.dtype == np.float32
    assert np.array_equal(got, _exact_f32(x, b))  # bit for bit
    f32_sum = x.astype(np.float32) @ b.astype(np.float32)  # what an f32 accumulator gives
    assert compare(f32_sum, got, MATMUL, bound=matmul_bound(x, b)).ok


def test_reference_of_an_operator(write_module):
    """op.reference: the f32 product, the epilogue in f32, rounded on store."""
    mod = write_module("""
import dsl
from dsl import Tensor, f16, bf16, f32, i8

@dsl.op(dtypes=(f16, bf16))
def linear(x: Tensor["M", "K"], w: Tensor["N", "K"], bias: Tensor[f32, "N"]):
    return dsl.cast(x @ w.T + bias, x.dtype)

@dsl.op(dtypes=(bf16, f16))
def quant(x: Tensor[i8, "M", "K"], w: Tensor[i8, "K", "N"], scale: Tensor[f32, "N"], t: Tensor[f32, "M", 1]):
    return dsl.cast(dsl.cast(x @ w, f32) * scale * t, dsl.T)
""")
    rng = np.random.default_rng(11)
    x = rng.standard_normal((5, 24)).astype(BF16)
    w = rng.standard_normal((3, 24)).astype(BF16)
    bias = rng.standard_normal(3).astype(np.float32)
    got = mod.linear.reference(x, w, bias)
    want = (_exact_f32(x, np.ascontiguousarray(w.T)) + bias).astype(BF16)
    assert got.dtype == BF16 and np.array_equal(got.view(np.uint16), want.view(np.uint16))

    xi = rng.integers(-128, 128, (4, 50), dtype=np.int8)
    wi = rng.integers(-128, 128, (50, 6), dtype=np.int8)
    scale = (rng.standard_normal(6) * 1e-3).astype(np.float32)  # keeps the f16 results finite
    t = rng.standard_normal((4, 1)).astype(np.float32)
    got = mod.quant.reference(xi, wi, scale, t, dtype="f16")
    acc = np.matmul(xi.astype(np.int32), wi.astype(np.int32)).astype(np.float32)
    want = ((acc * scale) * t).astype(np.float16)
    assert got.dtype == np.float16 and np.array_equal(got.view(np.uint16), want.view(np.uint16))
    with pytest.raises(ArgumentError, match="dim 'K' is 50 in input 'x' but 49 in input 'w'"):
        mod.quant.reference(xi, wi[:49], scale, t)


FRONT_HALF = (
    "specialize,canonicalize,promote-precision,compare-f16,expand-math,lower-bools,legalize-casts,"
    "materialize-bools,native-f16,canonicalize"
)


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_tensor_level_passes_keep_the_matmul_and_its_numbers(write_module, dt):
    """The tensor-level passes before tiling (what the backend will run) leave the matmul on the
    narrow inputs and the outputs bit-identical, epilogue casts and tanh included."""
    from dsl.ir import Module
    from passes import PassManager, parse_pipeline

    mod = write_module("""
import dsl
from dsl import Tensor, f16, bf16, f32

@dsl.op(dtypes=(f16, bf16))
def gelu_lin(x: Tensor["M", "K"], w: Tensor["N", "K"], bias: Tensor[f32, "N"], r: Tensor["M", "N"]):
    y = x @ w.T + bias
    g = 0.5 * y * (1 + dsl.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))
    return dsl.cast(g, x.dtype) + r
""")
    op = mod.gelu_lin
    npdt = np.float16 if dt == "f16" else BF16
    rng = np.random.default_rng(2)
    inputs = {
        "x": rng.standard_normal((5, 19)).astype(npdt),
        "w": rng.standard_normal((6, 19)).astype(npdt),
        "bias": rng.standard_normal(6).astype(np.float32),
        "r": rng.standard_normal((5, 6)).astype(npdt),
    }
    func = op.func(dt)
    (before,) = run_func(func, inputs, {})
    module = Module([func])
    PassManager(parse_pipeline(FRONT_HALF), verify_each=True).run(module)
    (after_func,) = module.funcs
    (mm,) = [o for o in after_func.walk() if o.opname == "matmul"]
    assert [v.name for v in mm.operands] == ["x", "w"]
    (after,) = run_func(after_func, inputs, {})
    assert np.array_equal(before.view(np.uint16), after.view(np.uint16))
