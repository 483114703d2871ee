"""The precision standard (dsl/precision.py): the op table, the per-output class derived from
the IR, and the comparison each class makes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import dsl
from dsl import precision
from dsl.precision import APPROX, EXACT, OP_PRECISION, compare

BF16 = ml_dtypes.bfloat16


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------


def test_every_ir_op_has_a_precision_class():
    from dsl.ir import tile_ops  # noqa: F401  (declares the tile-level ops)
    from dsl.ir.ops import OPS

    keys = {name for name in OPS if name not in ("reduce", "matmul")}
    keys |= {f"reduce.{k}" for k in ("sum", "mean", "max", "min")}
    keys |= {"matmul.float", "matmul.int"}
    assert keys == set(
        OP_PRECISION
    ), f"unclassified: {sorted(keys - set(OP_PRECISION))}; stale: {sorted(set(OP_PRECISION) - keys)}"
    assert set(OP_PRECISION.values()) == {"exact", "approx", "matmul"}
    assert OP_PRECISION["matmul.float"] == "matmul" and OP_PRECISION["matmul.int"] == "exact"


def test_the_approximated_ops_are_the_contracts():
    """DESIGN.md section 2 names exp/log/sqrt/rsqrt/tanh/sigmoid; sums/means have no fixed order.
    Everything else (reciprocal and round included) is exact."""
    approx = {k for k, v in OP_PRECISION.items() if v == "approx"}
    sums = {"reduce.sum", "reduce.mean"}
    sums.add("welford.var")  # chunked rows: the variance merged from Welford statistics
    sums.add("online.sum")  # chunked rows: a sum of exp(x - max) rescaled to the running max
    assert approx == {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid"} | sums


# ---------------------------------------------------------------------------------------------
# Per-output class from the ops on its path
# ---------------------------------------------------------------------------------------------


def test_each_output_takes_the_class_of_its_own_path(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32, i32

        @dsl.op(dtypes=(f16, f32))
        def mixed(x: Tensor, s: Scalar, *, use_exp: bool = False):
            lin = x * s + 1 / s
            e = dsl.exp(x) if use_exp else dsl.abs(x)
            both = lin + e
            q = dsl.cast(dsl.round(e), i32)
            flag = e > lin
            root = dsl.reciprocal(dsl.maximum(x, s)) - dsl.where(flag, x, -x)
            return lin, both, q, flag, root
        """)
    op = mod.mixed
    want_plain = dict(lin=EXACT, both=EXACT, q=EXACT, flag=EXACT, root=EXACT)
    assert precision.output_tolerances(op, "f16") == want_plain
    assert precision.output_tolerances(op, dsl.f32, use_exp=False) == want_plain
    assert precision.output_tolerances(op, "f32", use_exp=True) == dict(
        lin=EXACT, both=APPROX, q=APPROX, flag=APPROX, root=APPROX
    )
    assert precision.approximated_ops(op.variant(dsl.f32, op.check_attrs({"use_exp": True})))["q"] == [
        "exp@line 8"
    ]


def test_examples_classes():
    """The examples' outputs: sqrt/rsqrt/tanh/sigmoid/exp/log make an output approximated,
    nothing else does (per output: AdamW's m_out and v_out are exact, var_out is not)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "e2e"))
    try:
        import ew_cases as C
    finally:
        sys.path.pop(0)
    got = {c.stem: {k: str(v) for k, v in precision.output_tolerances(c.op, "f16").items()} for c in C.CASES}
    assert got == {
        "apply_adam_w": {"var_out": "approx", "m_out": "exact", "v_out": "exact"},
        "gelu_tanh": {"y": "approx"},
        "silu": {"y": "approx"},
        "leaky_relu": {"y": "exact"},
        "lerp": {"y": "exact"},
        "sgd_momentum": {"param_out": "exact", "buf_out": "exact"},
        "clamp": {"y": "exact"},
        "axpby": {"y": "exact"},
        "softplus": {"y": "approx"},
        "rms_prop": {"var_out": "approx", "ms_out": "exact", "mom_out": "approx"},
        "fake_quant": {"y": "exact"},
        "threshold": {"y": "exact"},
        "is_close": {"y": "exact"},
    }


def test_tile_level_functions_give_the_same_classes():
    """After the whole pipeline (tanh expanded into Exp/Reciprocal, stores as dma.store) the
    classes are those of the tensor-level IR."""
    import sys
    from pathlib import Path

    from dsl.ir import Module
    from passes import PassManager
    from passes.pipelines import elementwise_pipeline

    sys.path.insert(0, str(Path(__file__).parent / "e2e"))
    try:
        import ew_cases as C
    finally:
        sys.path.pop(0)
    for stem in ("apply_adam_w", "gelu_tanh", "rms_prop", "threshold", "fake_quant"):
        op = C.load_op(stem)
        module = Module([op.func(dsl.f32)])
        PassManager(elementwise_pipeline(192 * 1024)).run(module)
        for func in module.funcs:
            assert func.attributes.get("level") == "tile"
            want = precision.func_tolerances(op.variant(dsl.f32, op.check_attrs(func.attributes["bind"])))
            assert precision.func_tolerances(func) == want, (stem, func.attributes["bind"])


# ---------------------------------------------------------------------------------------------
# EXACT
# ---------------------------------------------------------------------------------------------


def _next_up(a: np.ndarray) -> np.ndarray:
    bits = a.view(np.uint16 if a.itemsize == 2 else np.uint32).copy()
    bits[...] += 1
    return bits.view(a.dtype)


@pytest.mark.parametrize("dt", [np.float32, np.float16, BF16], ids=["f32", "f16", "bf16"])
def test_exact_rejects_one_ulp(dt):
    ref = np.linspace(-3, 3, 101).astype(dt)
    assert compare(ref.copy(), ref).ok
    assert compare(ref.copy(), ref, EXACT).ok
    out = ref.copy()
    out[40:41] = _next_up(out[40:41])
    c = compare(out, ref)
    assert not c.ok and c.mismatches == 1 and c.tolerance is EXACT
    assert "1/101 elements violate exact equality" in c.detail and "first at flat index 40" in c.detail
    assert compare(out, ref, APPROX).ok  # one ulp is within the precision standard


@pytest.mark.parametrize("dt", [np.float32, np.float16, BF16], ids=["f32", "f16", "bf16"])
def test_exact_special_values(dt):
    nan, inf = np.nan, np.inf
    ref = np.array([nan, inf, -inf, 0.0, -0.0, 1.0], dtype=dt)
    same = np.array([nan, inf, -inf, -0.0, 0.0, 1.0], dtype=dt)  # signed zeros swapped: equal
    assert compare(same, ref).ok
    for i, wrong in [(0, 0.0), (1, -inf), (2, 6e4), (3, nan), (5, inf)]:
        out = ref.copy()
        out[i] = wrong
        assert not compare(out, ref).ok, (i, wrong)
        assert not compare(out, ref, APPROX).ok, (i, wrong)


def test_exact_integers_and_bools():
    ref = np.array([-128, 0, 5, 127], np.int8)
    assert compare(ref.copy(), ref).ok
    assert not compare(ref + np.int8(1) * (ref == 5), ref).ok
    b = np.array([True, False, True])
    assert not compare(~b, b).ok
    assert not compare(b.astype(np.uint8), b).ok  # dtype differs
    assert not compare(ref[:3], ref).ok  # shape differs


def test_a_comparison_is_not_a_truth_value():
    """``assert compare(a, b)`` would pass whatever a and b are: it is an error instead."""
    with pytest.raises(TypeError, match="Comparison.ok"):
        bool(compare(np.zeros(3, np.float32), np.ones(3, np.float32)))


# ---------------------------------------------------------------------------------------------
# APPROX
# ---------------------------------------------------------------------------------------------


def test_approx_f32_bounds():
    ref = np.array([1.0, 100.0, 1e-7, -3.0], np.float32)
    ok = ref * np.float32(1 + 0.9e-4) + np.float32([0, 0, 0.9e-5, 0])
    assert compare(ok.astype(np.float32), ref, APPROX).ok
    bad = ref.copy()
    bad[1] = np.float32(100.0 * (1 + 1.2e-4))
    c = compare(bad, ref, APPROX)
    assert not c.ok and c.mismatches == 1
    assert compare(bad, ref, APPROX, rtol=2e-4).ok  # an explicit caller's choice


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=["f16", "bf16"])
def test_approx_half_is_one_ulp(dt):
    ref = np.linspace(1, 2, 50).astype(dt)
    one = _next_up(ref.copy())
    assert compare(one, ref, APPROX).ok
    assert not compare(_next_up(one), ref, APPROX).ok


def test_approx_integers_and_bools_allow_a_small_share():
    ref = np.arange(2000, dtype=np.int32)
    out = ref.copy()
    out[[3, 700]] += 1  # 2 of 2000 = 0.1%
    assert compare(out, ref, APPROX).ok
    out[900] += 1
    assert not compare(out, ref, APPROX).ok
    out = ref.copy()
    out[3] += 2
    assert not compare(out, ref, APPROX).ok
    flags = np.zeros(33, bool)
    one = flags.copy()
    one[5] = True
    assert compare(one, flags, APPROX).ok and not compare(one, flags, EXACT).ok
    one[6] = True
    assert not compare(one, flags, APPROX).ok


# ---------------------------------------------------------------------------------------------
# Matmul (DESIGN.md section 2): |got - ref| <= rtol_T * |ref| + K * 2^-22 * sum_k |a_ik * b_kj|
# ---------------------------------------------------------------------------------------------


def test_matmul_bound_is_the_formula():
    a = np.array([[1, -2, 3]], np.float16)  # M = 1, K = 3
    w = np.array([[4, 5, -6], [0.5, 0, 1]], np.float16)  # N = 2: a @ w.T
    got = precision.matmul_bound(a, w, transpose_b=True)
    want = 3 * 2.0**-22 * np.array([[4 + 10 + 18, 0.5 + 0 + 3]])
    assert got.dtype == np.float64 and np.array_equal(got, want)
    assert np.array_equal(precision.matmul_bound(a, w.T), want)


def test_matmul_rtol_per_stored_dtype():
    assert precision.MATMUL_RTOL == {"float32": 1e-4, "float16": 2.0**-10, "bfloat16": 2.0**-7}
    ref = np.array([1000.0, -3.0], np.float32)
    zero = np.zeros(2)
    edge = ref + np.float32(1e-4) * np.abs(ref) * np.float32(0.999)  # inside the rtol alone
    assert compare(edge.astype(np.float32), ref, precision.MATMUL, bound=zero).ok
    past = ref.copy()
    past[0] = np.float32(1000.0 * (1 + 1.05e-4))
    assert not compare(past, ref, precision.MATMUL, bound=zero).ok
    # the operands' term lets the same difference pass
    assert compare(past, ref, precision.MATMUL, bound=np.array([0.006, 0.0])).ok
    assert not compare(past, ref, precision.MATMUL, bound=np.array([0.004, 0.0])).ok


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=["f16", "bf16"])
def test_matmul_half_outputs_allow_one_ulp_without_bound(dt):
    ref = np.linspace(1, 2, 50).astype(dt)  # [1, 2): one ulp is rtol_T at 1, less above
    one = _next_up(ref.copy())
    zero = np.zeros(ref.shape)
    assert compare(one, ref, precision.MATMUL, bound=zero).ok
    assert not compare(_next_up(one), ref, precision.MATMUL, bound=zero).ok


def test_matmul_needs_the_bound():
    ref = np.ones(3, np.float32)
    with pytest.raises(ValueError, match=r"needs bound=matmul_bound\(a, b\)"):
        compare(ref, ref, precision.MATMUL)
    assert compare(ref, ref, "matmul", bound=0.0).ok


def test_f32_accumulation_meets_the_matmul_tolerance():
    """The f32 sum in k order (what an accumulator does) against the reference's float64 sum:
    within the rule, and an error of one more unit in the worst element is not."""
    rng = np.random.default_rng(5)
    m, k, n = 9, 700, 11
    a = rng.standard_normal((m, k)).astype(np.float16)
    w = rng.standard_normal((n, k)).astype(np.float16)
    ref = (a.astype(np.float64) @ w.astype(np.float64).T).astype(np.float32)
    acc = np.zeros((m, n), np.float32)
    for i in range(k):  # f32 products are exact for f16 inputs; one rounding per add
        acc += a[:, i : i + 1].astype(np.float32) * w[:, i].astype(np.float32)
    bound = precision.matmul_bound(a, w, transpose_b=True)
    assert compare(acc, ref, precision.MATMUL, bound=bound).ok
    assert not np.array_equal(acc, ref)  # the order does show
    bad = acc.copy()
    bad[2, 3] = ref[2, 3] + 1.01 * (1e-4 * abs(float(ref[2, 3])) + bound[2, 3])
    c = compare(bad, ref, precision.MATMUL, bound=bound)
    assert not c.ok and c.mismatches == 1


def test_matmul_outputs_take_the_matmul_class(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16, f32, i8

        @dsl.op(dtypes=(f16, bf16))
        def lin(x: Tensor["M", "K"], w: Tensor["N", "K"], b: Tensor[f32, "N"], r: Tensor["M", "N"]):
            y = x @ w.T
            g = dsl.cast(dsl.tanh(y + b), x.dtype)
            r2 = r * 2
            return g, r2

        @dsl.op(dtypes=(bf16,))
        def quant(x: Tensor[i8, "M", "K"], w: Tensor[i8, "K", "N"], s: Tensor[f32, "N"]):
            acc = x @ w
            deq = dsl.cast(dsl.cast(acc, f32) * s, dsl.T)
            e = dsl.cast(dsl.exp(dsl.cast(acc, f32)), dsl.T)
            return acc, deq, e
        """)
    y, out = mod.lin.outputs
    assert precision.output_tolerances(mod.lin, "bf16") == {y: precision.MATMUL, out: EXACT}
    assert str(precision.MATMUL) == "matmul"
    func = mod.lin.variant(dsl.bf16, {})
    assert precision.approximated_ops(func)[y] == ["matmul.float@line 7", "tanh@line 8"]
    assert precision.output_tolerances(mod.lin, "f16")[y] is precision.MATMUL
    a, b, c = mod.quant.outputs
    assert precision.output_tolerances(mod.quant, "bf16") == {a: EXACT, b: EXACT, c: APPROX}


def test_func_matmul_bound(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16

        @dsl.op(dtypes=(f16,))
        def lin(x: Tensor["M", "K"], w: Tensor["N", "K"]):
            return x @ w.T
        """)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5)).astype(np.float16)
    w = rng.standard_normal((4, 5)).astype(np.float16)
    got = precision.func_matmul_bound(mod.lin.func(dsl.f16), {"x": x, "w": w})
    assert np.array_equal(got, precision.matmul_bound(x, w.T))
    assert precision.func_matmul_bound(mod.lin.func(dsl.f16), {"x": x, "w": w}).shape == (3, 4)
