"""Numeric semantics of the reference interpreter (DESIGN.md section 2)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from dsl.ir import parse_module
from dsl.ir.interpreter import run_func


def run(text: str, inputs: dict, attrs: dict | None = None):
    return run_func(parse_module(text).funcs[0], inputs, attrs or {})


def test_f16_math_is_done_in_f32_and_rounded_once():
    # 2049 + 1 - 2049 in f16 steps would lose the 1; in f32 with one final rounding it stays 1.
    text = """func @f(%a: tensor<*, f16>, %b: tensor<*, f16>) -> (y: tensor<*, f16>) {
  %0 = add %a, %b : tensor<*, f16>
  %1 = sub %0, %a : tensor<*, f16>
  return %1
}"""
    a = np.array([2048.0], np.float16)
    b = np.array([1.0], np.float16)
    (y,) = run(text, {"a": a, "b": b})
    assert y.dtype == np.float16 and y[0] == 1.0


def test_bf16_store_rounds_to_nearest_even():
    text = """func @f(%a: tensor<*, bf16>, %s: scalar<f32>) -> (y: tensor<*, f32>, z: tensor<*, bf16>) {
  %0 = mul %a, %s : tensor<*, f32>
  %1 = cast %0 {from = f32} : tensor<*, bf16>
  return %0, %1
}"""
    a = np.array([1.0, 1.0], ml_dtypes.bfloat16)
    s = np.array([1.0 + 2**-8], np.float32)  # exactly halfway between two bf16 values: ties to even
    y, z = run(text, {"a": a, "s": s})
    assert y[0] == np.float32(1.0 + 2**-8)
    assert z.dtype == ml_dtypes.bfloat16 and float(z[0]) == 1.0
    s2 = np.array([1.0 + 3 * 2**-8], np.float32)
    _, z2 = run(text, {"a": a, "s": s2})
    assert float(z2[0]) == 1.0 + 2**-6


def test_float_to_int_truncates_and_saturates_and_round_is_half_even():
    text = """func @f(%x: tensor<*, f32>) -> (t: tensor<*, i8>, r: tensor<*, f32>, u: tensor<*, u8>) {
  %t = cast %x {from = f32} : tensor<*, i8>
  %r = round %x : tensor<*, f32>
  %u = cast %x {from = f32} : tensor<*, u8>
  return %t, %r, %u
}"""
    x = np.array([-1.7, 1.7, 2.5, -2.5, 0.5, 300.0, -300.0, np.nan], np.float32)
    t, r, u = run(text, {"x": x})
    assert t.tolist() == [-1, 1, 2, -2, 0, 127, -128, 0]
    assert r.tolist()[:5] == [-2.0, 2.0, 2.0, -2.0, 0.0]
    assert u.tolist() == [0, 1, 2, 0, 0, 255, 0, 0]


def test_integer_arithmetic_stays_in_type():
    text = """func @f(%a: tensor<*, i8>, %b: tensor<*, i8>) -> (y: tensor<*, i8>) {
  %0 = add %a, %b : tensor<*, i8>
  return %0
}"""
    (y,) = run(text, {"a": np.array([100], np.int8), "b": np.array([100], np.int8)})
    assert y.dtype == np.int8 and y[0] == np.int8(-56)


def test_compare_and_where_and_reductions():
    text = """func @f(%x: tensor<R, C, f32>, %g: tensor<C, f32>) -> (m: tensor<R, 1, f32>, w: tensor<R, C, f32>, b: tensor<R, C, bool>) {
  %b = cmp %x, %g {pred = "gt"} : tensor<R, C, bool>
  %w = where %b, %x, %g : tensor<R, C, f32>
  %m = reduce %w {kind = "mean", keepdims = true} : tensor<R, 1, f32>
  return %m, %w, %b
}"""
    x = np.array([[1, 5, 3], [7, 0, 2]], np.float32)
    g = np.array([2, 2, 2], np.float32)
    m, w, b = run(text, {"x": x, "g": g})
    assert b.dtype == np.bool_ and b.tolist() == [[False, True, True], [True, False, False]]
    assert w.tolist() == [[2, 5, 3], [7, 2, 2]]
    np.testing.assert_allclose(m[:, 0], [10 / 3, 11 / 3], rtol=1e-6)


def test_static_ops_run_from_bindings_and_absent_inputs_propagate():
    text = """func @f(%x: tensor<*, f32>, %h: tensor<*, f32> optional) attrs(use: bool = false) -> (y: tensor<*, f32>) {
  %p = static.flag {name = "use"} : pred
  %m = max %x, %h : tensor<*, f32>
  %y = static.select %p, %m, %x : tensor<*, f32>
  return %y
}"""
    x = np.array([1.0, -1.0], np.float32)
    (y,) = run(text, {"x": x, "h": None}, {"use": False})
    assert y.tolist() == [1.0, -1.0]
    (y,) = run(text, {"x": x, "h": np.zeros(2, np.float32)}, {"use": True})
    assert y.tolist() == [1.0, 0.0]
