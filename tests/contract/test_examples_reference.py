"""Contract tests: ``op.reference`` of every example equals an independent numpy golden.

The goldens below are written from the operators' documented semantics (DESIGN.md section 2,
seed 002, reference-ops.md), not from dsl internals: float math in f32 on inputs widened from T,
one rounding to the output dtype (see contract_helpers for the tolerance policy).
"""

from __future__ import annotations

import re

import importlib.util
import itertools
import pathlib
import sys
import zlib

import numpy as np
import pytest


def _load_helpers():
    path = pathlib.Path(__file__).resolve().parent / "contract_helpers.py"
    name = "dslc_contract_helpers"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


H = _load_helpers()
import dsl  # noqa: E402  (a broken dsl fails these tests; it does not skip them)

DTYPE_NAMES = ("f16", "f32", "bf16")


def _dt(name):
    return getattr(dsl, name)


@pytest.fixture(scope="module")
def adamw():
    return H.load_example("apply_adam_w").apply_adam_w


@pytest.fixture(scope="module")
def qaln():
    return H.load_example("quantize_add_layer_norm").quantize_add_layer_norm


@pytest.fixture(scope="module")
def greater():
    return H.load_example("greater").greater


def _seed(*parts) -> int:
    """A per-case seed that does not depend on PYTHONHASHSEED."""
    return zlib.crc32(repr(parts).encode())


# ---------------------------------------------------------------------------------------------
# ApplyAdamW
# ---------------------------------------------------------------------------------------------

ADAMW_SHAPES = [(1,), (7,), (33,), (4096 + 17,), (3, 11)]
ADAMW_SCALARS = dict(
    beta1_power=0.81,
    beta2_power=0.997,
    lr=0.01,
    weight_decay=0.05,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-6,
)
ADAMW_SCALAR_ORDER = list(ADAMW_SCALARS)


def adamw_golden(var, m, v, s, grad, max_grad_norm, *, amsgrad, maximize):
    """AdamW in f32, in the order the DSL source writes it (s: dict of f32 (1,) arrays)."""
    var, m, v, grad = H.f32(var), H.f32(m), H.f32(v), H.f32(grad)
    beta1, beta2, lr = s["beta1"], s["beta2"], s["lr"]
    gt = -grad if maximize else grad
    m_out = m * beta1 - (beta1 - np.float32(1)) * gt
    v_out = v * beta2 - (beta2 - np.float32(1)) * gt * gt
    var_t = var * (np.float32(1) - lr * s["weight_decay"])
    b1p = s["beta1_power"] * beta1
    b2p = s["beta2_power"] * beta2
    v_hat = np.maximum(H.f32(max_grad_norm), v_out) if amsgrad else v_out
    denom = np.sqrt(-v_hat / (b2p - np.float32(1))) + s["epsilon"]
    var_out = var_t + lr / (b1p - np.float32(1)) * (m_out / denom)
    for a in (m_out, v_out, var_out):
        assert a.dtype == np.float32
    return var_out, m_out, v_out


def _adamw_inputs(rng, t, shape):
    def arr(lo, hi):
        return rng.uniform(lo, hi, shape).astype(t.np)

    scalars = {k: np.array([val], dtype=t.np) for k, val in ADAMW_SCALARS.items()}
    return dict(
        var=arr(-1, 1),
        m=arr(-0.1, 0.1),
        v=arr(1e-4, 0.01),
        grad=arr(-1, 1),
        max_grad_norm=arr(1e-4, 0.02),
        scalars=scalars,
    )


@pytest.mark.parametrize("shape", ADAMW_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("maximize", [False, True], ids=["min", "maximize"])
@pytest.mark.parametrize(
    "amsgrad,pass_mgn",
    [(False, False), (False, True), (True, True)],
    ids=["plain", "plain+mgn", "amsgrad"],
)
@pytest.mark.parametrize("tname", DTYPE_NAMES)
def test_adamw_reference(adamw, tname, amsgrad, pass_mgn, maximize, shape):
    t = _dt(tname)
    rng = np.random.default_rng(_seed("adamw", tname, amsgrad, pass_mgn, maximize, shape))
    d = _adamw_inputs(rng, t, shape)
    scal = [d["scalars"][k] for k in ADAMW_SCALAR_ORDER]
    args = [d["var"], d["m"], d["v"], *scal, d["grad"]]
    if pass_mgn:
        args.append(d["max_grad_norm"])
    copies = [a.copy() for a in args]
    out = adamw.reference(*args, amsgrad=amsgrad, maximize=maximize)
    var_out, m_out, v_out = H.as_tuple(out, 3)
    golden = adamw_golden(
        d["var"],
        d["m"],
        d["v"],
        {k: H.f32(a) for k, a in d["scalars"].items()},
        d["grad"],
        d["max_grad_norm"],
        amsgrad=amsgrad,
        maximize=maximize,
    )
    tols = dsl.precision.output_tolerances(adamw, t, amsgrad=amsgrad, maximize=maximize)
    for name, got, want in zip(("var_out", "m_out", "v_out"), (var_out, m_out, v_out), golden):
        H.assert_float_output(got, want, t.np, tols[name], what=f"{name}[{tname}]")
    for a, c in zip(args, copies):
        np.testing.assert_array_equal(a, c, err_msg="reference() modified an input array")


@pytest.mark.parametrize("tname", DTYPE_NAMES)
def test_adamw_optional_passed_as_none(adamw, tname):
    """An absent optional input may also be passed explicitly as None."""
    t = _dt(tname)
    rng = np.random.default_rng(_seed("adamw-none", tname))
    d = _adamw_inputs(rng, t, (33,))
    scal = [d["scalars"][k] for k in ADAMW_SCALAR_ORDER]
    args = [d["var"], d["m"], d["v"], *scal, d["grad"]]
    got = H.as_tuple(adamw.reference(*args, None), 3)
    want = H.as_tuple(adamw.reference(*args), 3)
    for g, w in zip(got, want):
        H.assert_exact(g, w)


@pytest.mark.parametrize("tname", DTYPE_NAMES)
def test_adamw_scalars_as_python_numbers(adamw, tname):
    """A Scalar accepts a Python number; values exactly representable in every T give the same
    result as shape-(1,) arrays."""
    t = _dt(tname)
    rng = np.random.default_rng(_seed("adamw-num", tname))
    d = _adamw_inputs(rng, t, (7,))
    nums = [0.5, 0.75, 0.125, 0.0625, 0.875, 0.9375, 2.0**-10]
    arrays = [np.array([x], dtype=t.np) for x in nums]
    base = [d["var"], d["m"], d["v"]]
    got = H.as_tuple(adamw.reference(*base, *nums, d["grad"], maximize=True), 3)
    want = H.as_tuple(adamw.reference(*base, *arrays, d["grad"], maximize=True), 3)
    for g, w in zip(got, want):
        H.assert_exact(g, w)
    golden = adamw_golden(
        *base,
        {k: np.array([x], np.float32) for k, x in zip(ADAMW_SCALAR_ORDER, nums)},
        d["grad"],
        None,
        amsgrad=False,
        maximize=True,
    )
    tols = dsl.precision.output_tolerances(adamw, t, maximize=True)
    for name, g, w in zip(adamw.outputs, got, golden):
        H.assert_float_output(g, w, t.np, tols[name], what=name)


def _adamw_args(t, n=7, shape2=None):
    a = np.linspace(0.1, 0.9, n).astype(t.np)
    b = np.linspace(0.1, 0.9, shape2 or n).astype(t.np)
    scal = [np.array([x], t.np) for x in ADAMW_SCALARS.values()]
    return [a, b, a.copy(), *scal, a.copy()]


def test_adamw_amsgrad_requires_max_grad_norm(adamw):
    with pytest.raises((ValueError, TypeError), match="max_grad_norm"):
        adamw.reference(*_adamw_args(dsl.f32), amsgrad=True)


def test_adamw_rejects_mismatched_shapes(adamw):
    with pytest.raises((ValueError, TypeError), match=r"(?i)shape"):
        adamw.reference(*_adamw_args(dsl.f32, 7, 8))


def test_adamw_rejects_mixed_dtypes(adamw):
    args = _adamw_args(dsl.f32)
    args[1] = args[1].astype(np.float16)
    with pytest.raises((ValueError, TypeError), match=r"(?i)dtype|type"):
        adamw.reference(*args)


def test_adamw_rejects_unlisted_dtype(adamw):
    args = [a.astype(np.float64) for a in _adamw_args(dsl.f32)]
    with pytest.raises((ValueError, TypeError), match=r"(?i)dtype|type|float64|f64"):
        adamw.reference(*args)


def test_adamw_rejects_unknown_attribute(adamw):
    with pytest.raises((ValueError, TypeError), match=r"(?i)bogus|attr"):
        adamw.reference(*_adamw_args(dsl.f32), bogus=True)


def test_adamw_rejects_missing_input(adamw):
    with pytest.raises((ValueError, TypeError), match=r"(?i)missing|input|argument|expect|grad"):
        adamw.reference(*_adamw_args(dsl.f32)[:5])


def test_adamw_rejects_non_scalar_scalar(adamw):
    args = _adamw_args(dsl.f32)
    args[3] = np.array([0.9, 0.8], np.float32)  # beta1_power must be shape (1,)
    with pytest.raises((ValueError, TypeError), match=r"(?i)shape|scalar|beta1_power"):
        adamw.reference(*args)


# ---------------------------------------------------------------------------------------------
# QuantizeAddLayerNorm
# ---------------------------------------------------------------------------------------------

QALN_SHAPES = [(1,), (7,), (1, 1), (3, 1), (4, 33), (5, 7), (2, 3, 16), (2, 4096 + 17)]
QALN_MODES = ("per_channel", "mul", "per_tensor")
QALN_MODES_DECLARED = ("per_channel", "per_tensor", "mul")  # Literal order (tiling key digit)


def qaln_golden(x1, x2, gamma, beta, bias, scale_row, zp_row, *, mode, epsilon, wide):
    """Returns (pre-rounding q, x) computed in float32 (wide=False) or float64 (wide=True).

    scale_row / zp_row: the per-channel rows, or shape-(1,) arrays for per_tensor, or None."""
    ft = np.float64 if wide else np.float32

    def w(a):
        return np.asarray(a).astype(np.float32).astype(ft)

    x = w(x1) + w(x2) + w(bias)
    mean = np.mean(x, axis=-1, keepdims=True, dtype=ft)
    d = x - mean
    var = np.mean(d * d, axis=-1, keepdims=True, dtype=ft)
    rstd = ft(1) / np.sqrt(var + ft(np.float32(epsilon)))
    norm = d * rstd * w(gamma) + w(beta)
    if mode == "per_channel":
        q = norm / w(scale_row)
    else:  # mul and per_tensor multiply (seed 002; CANN gen_data.py)
        q = norm * w(scale_row)
    if zp_row is not None:
        q = q + w(zp_row)
    assert q.dtype == ft and x.dtype == ft
    return q, x


def _qaln_data(rng, t, shape, mode):
    cols = shape[-1]

    def arr(lo, hi, shp):
        return rng.uniform(lo, hi, shp).astype(t.np)

    data = dict(
        x1=arr(-1, 1, shape),
        x2=arr(-1, 1, shape),
        gamma=arr(0.5, 1.5, (cols,)),
        beta=arr(-0.5, 0.5, (cols,)),
        bias=arr(-0.2, 0.2, (cols,)),
    )
    if mode == "per_channel":
        data["scale_row"] = rng.uniform(0.02, 0.06, cols).astype(np.float32)
        data["zp_row"] = rng.uniform(-4, 4, cols).astype(np.float32)
    elif mode == "mul":
        data["scale_row"] = rng.uniform(15, 50, cols).astype(np.float32)
        data["zp_row"] = rng.uniform(-4, 4, cols).astype(np.float32)
    else:
        data["scale_row"] = np.array([rng.uniform(20, 40)], np.float32)
        data["zp_row"] = np.array([rng.uniform(-4, 4)], np.float32)
    return data


def _qaln_call(op, data, mode, with_zp, **attrs):
    per_tensor = mode == "per_tensor"
    args = [data["x1"], data["x2"], data["gamma"], data["beta"], data["bias"]]
    scales = None if per_tensor else data["scale_row"]
    zero_points = data["zp_row"] if (with_zp and not per_tensor) else None
    scale = data["scale_row"] if per_tensor else None
    zero_point = data["zp_row"] if (with_zp and per_tensor) else None
    args += [scales, zero_points, scale, zero_point]
    return op.reference(*args, quant_mode=mode, with_zero_points=with_zp, **attrs)


@pytest.mark.parametrize("shape", QALN_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("epsilon", [None, 1e-3], ids=["eps-default", "eps1e-3"])
@pytest.mark.parametrize("additional_output", [False, True], ids=["y", "y+x"])
@pytest.mark.parametrize("with_zp", [False, True], ids=["nozp", "zp"])
@pytest.mark.parametrize("mode", QALN_MODES)
@pytest.mark.parametrize("tname", DTYPE_NAMES)
def test_qaln_reference(qaln, tname, mode, with_zp, additional_output, epsilon, shape):
    t = _dt(tname)
    rng = np.random.default_rng(_seed("qaln", tname, mode, with_zp, additional_output, epsilon, shape))
    data = _qaln_data(rng, t, shape, mode)
    attrs = dict(additional_output=additional_output)
    if epsilon is not None:
        attrs["epsilon"] = epsilon
    out = _qaln_call(qaln, data, mode, with_zp, **attrs)
    y, x_out = H.as_tuple(out, 2)
    eps = 1e-5 if epsilon is None else epsilon
    zp = data["zp_row"] if with_zp else None
    common = (
        data["x1"],
        data["x2"],
        data["gamma"],
        data["beta"],
        data["bias"],
        data["scale_row"],
        zp,
    )
    q32, x32 = qaln_golden(*common, mode=mode, epsilon=eps, wide=False)
    q64, _ = qaln_golden(*common, mode=mode, epsilon=eps, wide=True)
    H.assert_int8_quant(y, q32, q64, what=f"y[{tname},{mode}]")
    if additional_output:
        tol = dsl.precision.output_tolerances(qaln, t, quant_mode=mode, with_zero_points=with_zp, **attrs)[
            "x"
        ]
        H.assert_float_output(x_out, x32, t.np, tol, what=f"x[{tname}]")
    else:
        assert x_out is None, "additional_output=False: the x slot must be None"


@pytest.mark.parametrize("tname", DTYPE_NAMES)
def test_qaln_saturates_and_rounds_half_even(qaln, tname):
    """Hand-built case: one column, so norm == beta exactly; y = round(beta / scales) hits ties
    (+-0.5, 2.5) and both saturation bounds."""
    t = _dt(tname)
    beta_vals = [0.5, -0.5, 2.5, -2.5, 1.5, 1000.0, -1000.0, 0.0]
    rows = len(beta_vals)
    # Each row has one column: x = x1 + x2 + bias, mean == x, var == 0, norm == beta.
    # beta is per column, so use separate calls per value.
    for b in beta_vals:
        data = dict(
            x1=np.full((rows, 1), 0.25, t.np),
            x2=np.full((rows, 1), -0.75, t.np),
            gamma=np.ones(1, t.np),
            beta=np.array([b], t.np),
            bias=np.array([0.125], t.np),
            scale_row=np.ones(1, np.float32),
            zp_row=None,
        )
        y, x = H.as_tuple(_qaln_call(qaln, data, "per_channel", False, additional_output=True), 2)
        want = np.clip(np.rint(np.array(b, t.np).astype(np.float32)), -128, 127).astype(np.int8)
        H.assert_exact(y, np.full((rows, 1), want, np.int8), what=f"y for beta={b}")
        H.assert_float_output(x, np.full((rows, 1), -0.375, np.float32), t.np, dsl.precision.EXACT, what="x")


@pytest.mark.parametrize("mode", QALN_MODES)
def test_qaln_unused_optionals_are_ignored(qaln, mode):
    """Optional inputs a specialization does not read may still be passed; they change nothing."""
    t = dsl.bf16
    rng = np.random.default_rng(_seed("qaln-unused", mode))
    data = _qaln_data(rng, t, (4, 33), mode)
    cols = data["x1"].shape[-1]
    row = rng.uniform(0.5, 2, cols).astype(np.float32)
    one = np.array([3.0], np.float32)
    base = [data["x1"], data["x2"], data["gamma"], data["beta"], data["bias"]]
    if mode == "per_tensor":
        full = base + [row, row, data["scale_row"], one]
        lean = base + [None, None, data["scale_row"]]
    else:
        full = base + [data["scale_row"], row, one, one]
        lean = base + [data["scale_row"]]
    attrs = dict(quant_mode=mode, additional_output=True)
    got = H.as_tuple(qaln.reference(*full, **attrs), 2)
    want = H.as_tuple(qaln.reference(*lean, **attrs), 2)
    for g, w in zip(got, want):
        H.assert_exact(g, w)


def _qaln_small(t, cols=8):
    rng = np.random.default_rng(_seed("qaln-small", t.name, cols))
    return _qaln_data(rng, t, (3, cols), "per_channel")


def test_qaln_per_channel_requires_scales(qaln):
    d = _qaln_small(dsl.f32)
    with pytest.raises((ValueError, TypeError), match="scales"):
        qaln.reference(d["x1"], d["x2"], d["gamma"], d["beta"], d["bias"])


def test_qaln_zero_points_attr_requires_input(qaln):
    d = _qaln_small(dsl.f32)
    with pytest.raises((ValueError, TypeError), match="zero_points"):
        qaln.reference(
            d["x1"],
            d["x2"],
            d["gamma"],
            d["beta"],
            d["bias"],
            d["scale_row"],
            with_zero_points=True,
        )


def test_qaln_per_tensor_requires_scale(qaln):
    d = _qaln_small(dsl.f32)
    with pytest.raises((ValueError, TypeError), match=r"\bscale\b"):
        qaln.reference(
            d["x1"],
            d["x2"],
            d["gamma"],
            d["beta"],
            d["bias"],
            d["scale_row"],
            quant_mode="per_tensor",
        )


def test_qaln_rejects_column_mismatch(qaln):
    d = _qaln_small(dsl.f32)
    gamma = np.ones(9, np.float32)  # "C" is 8
    with pytest.raises((ValueError, TypeError), match=r"(?i)shape|\bC\b|gamma"):
        qaln.reference(d["x1"], d["x2"], gamma, d["beta"], d["bias"], d["scale_row"])


def test_qaln_rejects_x1_x2_mismatch(qaln):
    d = _qaln_small(dsl.f32)
    x2 = np.ones((4, 8), np.float32)
    with pytest.raises((ValueError, TypeError), match=r"(?i)shape|x2"):
        qaln.reference(d["x1"], x2, d["gamma"], d["beta"], d["bias"], d["scale_row"])


def test_qaln_rejects_wrong_pinned_dtype(qaln):
    d = _qaln_small(dsl.f16)
    scales = d["scale_row"].astype(np.float16)  # pinned to f32
    with pytest.raises((ValueError, TypeError), match=r"(?i)dtype|type|f32|float32|scales"):
        qaln.reference(d["x1"], d["x2"], d["gamma"], d["beta"], d["bias"], scales)


def test_qaln_rejects_literal_value(qaln):
    d = _qaln_small(dsl.f32)
    with pytest.raises((ValueError, TypeError), match=r"quant_mode|div"):
        qaln.reference(d["x1"], d["x2"], d["gamma"], d["beta"], d["bias"], d["scale_row"], quant_mode="div")


# ---------------------------------------------------------------------------------------------
# Greater
# ---------------------------------------------------------------------------------------------

GREATER_DTYPES = ("f16", "f32", "bf16", "i8", "i32", "u8")
GREATER_SHAPES = [
    ((1,), (1,)),
    ((7,), (7,)),
    ((33,), (33,)),
    ((4096 + 17,), (4096 + 17,)),
    ((1,), (33,)),  # scalar vs tensor
    ((4113,), (1,)),  # tensor vs scalar
    ((5, 33), (33,)),  # row broadcast
    ((33,), (5, 33)),
    ((5, 1), (5, 33)),  # column broadcast
    ((3, 1, 7), (1, 4, 7)),  # general
    ((2, 1, 4, 1), (3, 1, 5)),  # general, different ranks
    ((2, 1, 2, 1, 2, 1, 2, 1), (1, 2, 1, 2, 1, 2, 1, 2)),  # 8 dims
]


def _greater_data(rng, t, shape, ties):
    name = t.name
    if ties:  # a small value set so that equal elements (x1 == x2 -> False) are common
        raw = rng.integers(-3, 4, shape) if name not in ("u8",) else rng.integers(0, 5, shape)
        if name in ("f16", "f32", "bf16"):
            return (raw / 2).astype(t.np)
        return raw.astype(t.np)
    if name in ("f16", "f32", "bf16"):
        return rng.normal(0, 100, shape).astype(t.np)
    info = np.iinfo(t.np)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(t.np)


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "spread"])
@pytest.mark.parametrize("shapes", GREATER_SHAPES, ids=lambda s: f"{s[0]}-vs-{s[1]}".replace(" ", ""))
@pytest.mark.parametrize("tname", GREATER_DTYPES)
def test_greater_reference(greater, tname, shapes, ties):
    t = _dt(tname)
    rng = np.random.default_rng(_seed("greater", tname, shapes, ties))
    a = _greater_data(rng, t, shapes[0], ties)
    b = _greater_data(rng, t, shapes[1], ties)
    if tname in ("f16", "bf16"):
        want = H.f32(a) > H.f32(b)  # widening is exact
    else:
        want = np.greater(a, b)
    got = greater.reference(a, b)
    assert want.dtype == np.bool_
    H.assert_exact(got, want, what=f"greater[{tname}] {shapes}")


def test_greater_special_float_values(greater):
    a = np.array([0.0, -0.0, 1.0, -np.inf, np.inf, 65504.0, 1e-7], np.float32)
    b = np.array([-0.0, 0.0, 1.0, -np.inf, 1e38, 65504.0, 0.0], np.float32)
    H.assert_exact(greater.reference(a, b), a > b)


def test_greater_rejects_incompatible_broadcast(greater):
    a = np.zeros(3, np.float32)
    b = np.zeros(4, np.float32)
    with pytest.raises((ValueError, TypeError), match=r"(?i)shape|broadcast"):
        greater.reference(a, b)


def test_greater_rejects_mixed_dtypes(greater):
    with pytest.raises((ValueError, TypeError), match=r"(?i)dtype|type"):
        greater.reference(np.zeros(3, np.float32), np.zeros(3, np.int32))


# ---------------------------------------------------------------------------------------------
# Metadata and IR (Python API on an Operator, contract)
# ---------------------------------------------------------------------------------------------


_mentions = H.mentions


def test_adamw_metadata(adamw):
    assert isinstance(adamw, dsl.Operator)
    assert adamw.name == "apply_adam_w"
    assert list(adamw.inputs) == [
        "var",
        "m",
        "v",
        "beta1_power",
        "beta2_power",
        "lr",
        "weight_decay",
        "beta1",
        "beta2",
        "epsilon",
        "grad",
        "max_grad_norm",
    ]
    assert list(adamw.outputs) == ["var_out", "m_out", "v_out"]
    assert dict(adamw.attrs) == {"amsgrad": False, "maximize": False}
    assert tuple(adamw.dtypes) == (dsl.f16, dsl.f32, dsl.bf16)
    assert [d.name for d in adamw.dtypes] == ["f16", "f32", "bf16"]


def test_qaln_metadata(qaln):
    assert isinstance(qaln, dsl.Operator)
    assert qaln.name == "quantize_add_layer_norm"
    assert list(qaln.inputs) == [
        "x1",
        "x2",
        "gamma",
        "beta",
        "bias",
        "scales",
        "zero_points",
        "scale",
        "zero_point",
    ]
    assert list(qaln.outputs) == ["y", "x"]
    assert dict(qaln.attrs) == {
        "quant_mode": "per_channel",
        "epsilon": 1e-5,
        "additional_output": False,
        "with_zero_points": False,
    }
    assert [d.name for d in qaln.dtypes] == ["f16", "f32", "bf16"]


def test_greater_metadata(greater):
    assert isinstance(greater, dsl.Operator)
    assert greater.name == "greater"
    assert list(greater.inputs) == ["x1", "x2"]
    assert list(greater.outputs) == ["y"]
    assert dict(greater.attrs) == {}
    assert [d.name for d in greater.dtypes] == list(GREATER_DTYPES)


def test_dtype_objects():
    expected = {
        "f16": np.float16,
        "bf16": H.BF16,
        "f32": np.float32,
        "i8": np.int8,
        "i32": np.int32,
        "u8": np.uint8,
        "bool_": np.bool_,
    }
    for attr, np_type in expected.items():
        d = getattr(dsl, attr)
        assert d.name == ("bool" if attr == "bool_" else attr) or d.name == attr
        assert np.dtype(d.np) == np.dtype(np_type), attr


def _bool_combos(names):
    return [dict(zip(names, vals)) for vals in itertools.product([False, True], repeat=len(names))]


def _ir_parts(text: str) -> tuple[str, list[str], list[str]]:
    """(header line, body lines without locations, op names of the body)."""
    lines = text.strip().splitlines()
    body = [line.split(" loc(")[0].strip() for line in lines[1:-1]]
    ops = [line.split(" = ", 1)[1].split()[0] for line in body if " = " in line]
    return lines[0], body, ops


def _b(v: bool) -> str:
    return "true" if v else "false"


@pytest.mark.parametrize("tname", DTYPE_NAMES)
@pytest.mark.parametrize("attrs", _bool_combos(["amsgrad", "maximize"]), ids=repr)
def test_adamw_ir(adamw, tname, attrs):
    text = adamw.ir(dtype=_dt(tname), **attrs)
    assert isinstance(text, str) and text.strip()
    used = [n for n in adamw.inputs if n != "max_grad_norm" or attrs["amsgrad"]]
    for name in used:
        assert _mentions(text, name), f"IR does not mention input {name!r}:\n{text}"
    head, body, ops = _ir_parts(text)
    key = int(attrs["amsgrad"]) + 2 * int(attrs["maximize"])  # mixed radix over the static attrs
    bind = f"bind = {{amsgrad = {_b(attrs['amsgrad'])}, maximize = {_b(attrs['maximize'])}}}"
    assert f"dtype = {tname}, broadcast = false, {bind}, tiling_key = {key}}}" in head, head
    assert not any(op.startswith("static.") for op in ops), ops  # static conditions resolved
    assert ops.count("sqrt") == 1 and ops.count("div") == 3
    assert ops.count("max") == int(attrs["amsgrad"])  # v_hat = maximum(max_grad_norm, v_out)
    assert _mentions("\n".join(body), "max_grad_norm") == attrs["amsgrad"]
    # g = -grad if maximize: the static select's value (named %gt by specialize) negates grad
    assert any(re.match(r"%\w+ = neg %grad ", line) for line in body) == attrs["maximize"]
    assert body[-1] == "return %var_out, %m_out, %v_out"


@pytest.mark.parametrize("tname", DTYPE_NAMES)
@pytest.mark.parametrize("mode", QALN_MODES)
@pytest.mark.parametrize("attrs", _bool_combos(["additional_output", "with_zero_points"]), ids=repr)
def test_qaln_ir(qaln, tname, mode, attrs):
    text = qaln.ir(dtype=_dt(tname), quant_mode=mode, **attrs)
    assert isinstance(text, str) and text.strip()
    used = ["x1", "x2", "gamma", "beta", "bias"]
    used.append("scale" if mode == "per_tensor" else "scales")
    if attrs["with_zero_points"]:
        used.append("zero_point" if mode == "per_tensor" else "zero_points")
    for name in used:
        assert _mentions(text, name), f"IR does not mention input {name!r}:\n{text}"
    head, body, ops = _ir_parts(text)
    unused = {"scale", "scales", "zero_point", "zero_points"} - set(used)
    assert not [n for n in unused if _mentions("\n".join(body), n)], body
    add_out, with_zp = attrs["additional_output"], attrs["with_zero_points"]
    key = QALN_MODES_DECLARED.index(mode) + 3 * int(add_out) + 6 * int(with_zp)
    bind = f'bind = {{quant_mode = "{mode}", additional_output = {_b(add_out)}, with_zero_points = {_b(with_zp)}}}'
    assert f"{bind}, tiling_key = {key}}}" in head, head
    assert not any(op.startswith("static.") for op in ops), ops
    assert ops.count("reduce") == 2 and ops.count("rsqrt") == 1 and ops.count("round") == 1
    assert ops.count("div") == int(mode == "per_channel")  # per_channel divides, the others multiply
    assert body[-1] == "return %y, %x" if add_out else body[-1].startswith("return %y, %")
    assert ("none" in ops) == (not add_out)


@pytest.mark.parametrize("tname", GREATER_DTYPES)
def test_greater_ir(greater, tname):
    text = greater.ir(dtype=_dt(tname))
    assert isinstance(text, str) and text.strip()
    for name in greater.inputs:
        assert _mentions(text, name), f"IR does not mention input {name!r}:\n{text}"
    head, body, _ = _ir_parts(text)
    assert head.startswith(
        f"func @greater(%x1: tensor<*, {tname}>, %x2: tensor<*, {tname}>) -> (y: tensor<*, bool>) "
    ), head
    assert "broadcast = true" in head
    assert body == ['%0 = cmp %x1, %x2 {pred = "gt"} : tensor<*, bool>', "return %0"]


def test_ir_rejects_unlisted_dtype(adamw):
    with pytest.raises((ValueError, TypeError, dsl.DslError), match=r"(?i)dtype|i8|type"):
        adamw.ir(dtype=dsl.i8)
