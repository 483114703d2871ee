"""Matmul operators on ascend910b (issue 22): the generated CV kernel (AIC cube part, GM workspace,
AIV epilogue) run on the emulator equals ``reference`` under DESIGN section 2's matmul tolerance,
and ``reference`` equals an independent numpy formula; shapes cover aligned 256^3, M = 1, odd M,
N not a multiple of 16, K over one L1 step (STEP_K * BASE_K = 512), more tiles than cores, on 1
and 8 cores (1 and 4 AI Cores), on ascend910b (GM workspace) and ascend950 (L0C -> UB split over M)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from dsl import CompileError
from dsl.errors import TilingError
from dsl.precision import compare, func_matmul_bound, output_tolerances

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_source(path: Path, source: str, module: str):
    """The module of a DSL ``source`` written to ``path`` (registered as ``module``: the
    operators' dataclasses and the emulator's source map need a real file)."""
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(module, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"mm_example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


matmul = load("matmul")
linear_gelu = load("linear_gelu")
matmul_add = load("matmul_add")
quant_linear = load("quant_linear")
OPS = {"matmul": matmul, "linear_gelu": linear_gelu, "matmul_add": matmul_add}

SHAPES = [  # M, K, N, cores
    (256, 256, 256, 8),
    (1, 64, 48, 1),
    (33, 40, 70, 8),
    (17, 600, 17, 1),
    (300, 48, 270, 8),
]


def _inputs(op, m, k, n, dt, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k)).astype(dt.np)
    if op is matmul:
        return [x, rng.standard_normal((k, n)).astype(dt.np)]
    if op is matmul_add:
        w = rng.standard_normal((k, n)).astype(dt.np)
        return [x, w, rng.standard_normal((m, n)).astype(dt.np), np.array([-0.75], dt.np)]
    w = rng.standard_normal((n, k)).astype(dt.np)
    return [x, w, rng.standard_normal(n).astype(np.float32)]


def _numpy(op, arrays):
    x = arrays[0].astype(np.float64)
    if op is matmul:
        return x @ arrays[1].astype(np.float64)
    if op is matmul_add:
        return float(arrays[3][0]) * (x @ arrays[1].astype(np.float64)) + arrays[2].astype(np.float64)
    h = x @ arrays[1].astype(np.float64).T + arrays[2]
    return 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))


@pytest.mark.parametrize(
    "target,path",
    [("ascend910b", "auto"), ("ascend950", "auto"), ("ascend950", "membase")],
    ids=["ascend910b", "ascend950", "ascend950-membase"],
)
@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("m,k,n,cores", SHAPES, ids=[f"{s[0]}x{s[1]}x{s[2]}-c{s[3]}" for s in SHAPES])
@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_simulate_equals_reference(name, m, k, n, cores, dt, target, path):
    """On 950 ``auto`` is the RegBase epilogue (one vector function per half tile) for
    linear_gelu and matmul_add, and the identity epilogue (matmul) takes no vector core."""
    op = OPS[name]
    T = next(d for d in op.dtypes if d.name == dt)
    arrays = _inputs(op, m, k, n, T)
    ref = op.reference(*arrays)
    got = op.simulate(*arrays, cores=cores, target=target, vector_path=path)
    tol = output_tolerances(op, T)["y"]
    names = op.inputs
    bound = func_matmul_bound(op.func(T), dict(zip(names, arrays)))
    c = compare(got, ref, tol, bound=bound)
    assert c.ok, c.detail
    # the reference against numpy (float64, then the output's rounding)
    want = _numpy(op, arrays)
    loose = op is not matmul  # rounded to x.dtype
    assert np.allclose(
        ref.astype(np.float64), want, rtol=2e-2 if loose else 1e-5, atol=5e-2 if loose else 1e-4
    )


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_all_the_targets_cores(target):
    """The core count the platform reports (48 AIV / 24 AIC on 910B, 64 / 32 on 950): more tiles
    than one core takes and cores with no tile, which still answer the cross-core protocol."""
    T = linear_gelu.dtypes[0]
    arrays = _inputs(linear_gelu, 700, 64, 520, T, seed=5)
    got = linear_gelu.simulate(*arrays, target=target)
    ref = linear_gelu.reference(*arrays)
    bound = func_matmul_bound(linear_gelu.func(T), dict(zip(linear_gelu.inputs, arrays)))
    assert compare(got, ref, output_tolerances(linear_gelu, T)["y"], bound=bound).ok


@pytest.mark.slow
def test_long_matrix():
    T = linear_gelu.dtypes[0]
    arrays = _inputs(linear_gelu, 1030, 1100, 520, T, seed=3)
    got = linear_gelu.simulate(*arrays, cores=8)
    ref = linear_gelu.reference(*arrays)
    bound = func_matmul_bound(linear_gelu.func(T), dict(zip(linear_gelu.inputs, arrays)))
    assert compare(got, ref, output_tolerances(linear_gelu, T)["y"], bound=bound).ok


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("m,k,n,cores", SHAPES, ids=[f"{s[0]}x{s[1]}x{s[2]}-c{s[3]}" for s in SHAPES])
@pytest.mark.parametrize("dt", ["bf16", "f16"])
def test_quant_linear_is_bit_exact(m, k, n, cores, dt, target):
    # i8 x i8 -> i32 (exact), then one f32 multiply and one rounding: bit-exact against reference
    T = next(d for d in quant_linear.dtypes if d.name == dt)
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, (m, k)).astype(np.int8)
    w = rng.integers(-128, 128, (n, k)).astype(np.int8)
    scale = rng.uniform(1e-3, 1e-2, n).astype(np.float32)
    got = quant_linear.simulate(x, w, scale, dtype=T, cores=cores, target=target)
    ref = quant_linear.reference(x, w, scale, dtype=T)
    np.testing.assert_array_equal(got.view(np.uint16), ref.view(np.uint16))
    exact = (x.astype(np.int64) @ w.astype(np.int64).T).astype(np.float32) * scale
    np.testing.assert_array_equal(ref.astype(np.float32), exact.astype(T.np).astype(np.float32))


quant_matmul = load("quant_matmul")

PER_TOKEN_SOURCE = """\
import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16))
def token_linear(x: Tensor["M", "K"], w: Tensor["N", "K"], s: Tensor[f32, "M", 1], r: Tensor[f32, "M", 1]):
    y = (x @ w.T) * s
    return dsl.cast(r - y, x.dtype)
"""


@pytest.fixture(scope="module")
def token_linear(tmp_path_factory):
    mod = load_source(
        tmp_path_factory.mktemp("pertoken") / "token_linear.py", PER_TOKEN_SOURCE, "mm_token_linear"
    )
    return mod.token_linear


def _quant_inputs(m, k, n, seed=7):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (m, k)).astype(np.int8)
    w = rng.integers(-128, 128, (n, k)).astype(np.int8)
    scale = rng.uniform(1e-3, 1e-2, n).astype(np.float32)
    per_token = rng.uniform(1e-2, 1e-1, (m, 1)).astype(np.float32)
    return x, w, scale, per_token


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("m,k,n,cores", SHAPES, ids=[f"{s[0]}x{s[1]}x{s[2]}-c{s[3]}" for s in SHAPES])
@pytest.mark.parametrize("dt", ["bf16", "f16"])
def test_quant_matmul_per_token_is_bit_exact(m, k, n, cores, dt, target):
    """On 950: int8 fractals L1 -> L0A/L0B with LoadData2DParamsV2 (not transposed), the i32 rows
    Fixpipe'd into UB, the RegBase epilogue's Cast<float, int32_t> of them."""
    # i8 x i8 -> i32 (exact), acc * scale[N] * per_token[M, 1] in f32 (in that order), one rounding
    T = next(d for d in quant_matmul.dtypes if d.name == dt)
    x, w, scale, per_token = _quant_inputs(m, k, n)
    got = quant_matmul.simulate(x, w, scale, per_token, dtype=T, cores=cores, target=target)
    ref = quant_matmul.reference(x, w, scale, per_token, dtype=T)
    np.testing.assert_array_equal(got.view(np.uint16), ref.view(np.uint16))
    acc = (x.astype(np.int64) @ w.astype(np.int64).T).astype(np.float32)
    exact = (acc * scale) * per_token
    np.testing.assert_array_equal(ref.astype(np.float32), exact.astype(T.np).astype(np.float32))


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("m,k,n,cores", SHAPES, ids=[f"{s[0]}x{s[1]}x{s[2]}-c{s[3]}" for s in SHAPES])
def test_per_token_inputs_on_both_targets(token_linear, m, k, n, cores, target):
    # a per-row value on each side of a row op (y * s: value second; r - y: value first)
    T = token_linear.dtypes[0]
    rng = np.random.default_rng(11)
    x = rng.standard_normal((m, k)).astype(T.np)
    w = rng.standard_normal((n, k)).astype(T.np)
    s = rng.uniform(0.5, 2, (m, 1)).astype(np.float32)
    r = rng.standard_normal((m, 1)).astype(np.float32)
    got = token_linear.simulate(x, w, s, r, cores=cores, target=target)
    ref = token_linear.reference(x, w, s, r)
    bound = func_matmul_bound(token_linear.func(T), {"x": x, "w": w, "s": s, "r": r})
    c = compare(got, ref, output_tolerances(token_linear, T)["y"], bound=bound)
    assert c.ok, c.detail
    want = r - (x.astype(np.float64) @ w.astype(np.float64).T) * s
    assert np.allclose(ref.astype(np.float64), want, rtol=2e-2, atol=5e-2)


matmul_rms_norm = load("matmul_rms_norm")

ROW_SOURCE = """\
import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16))
def linear_softmax(x: Tensor["M", "K"], w: Tensor["K", "N"]):
    y = x @ w
    e = dsl.exp(y - dsl.max(y, axis=-1, keepdims=True))
    return dsl.cast(e / dsl.sum(e, axis=-1, keepdims=True), x.dtype)


@dsl.op(dtypes=(f16,))
def linear_layer_norm(x: Tensor["M", "K"], w: Tensor["N", "K"], beta: Tensor[f32, "N"], *, epsilon: float = 1e-5):
    y = x @ w.T
    d = y - dsl.mean(y, axis=-1, keepdims=True)
    return d * dsl.rsqrt(dsl.mean(d * d, axis=-1, keepdims=True) + epsilon) + beta
"""


@pytest.fixture(scope="module")
def row_ops(tmp_path_factory):
    mod = load_source(tmp_path_factory.mktemp("rowops") / "row_ops.py", ROW_SOURCE, "mm_row_ops")
    return mod


ROW_SHAPES = [  # M, K, N, cores: N up to the full-row limit (1024 on both targets)
    (1, 64, 48, 1),
    (33, 40, 70, 8),
    (17, 600, 17, 1),
    (300, 48, 270, 8),
    (40, 72, 1024, 4),
]


def _check(op, T, arrays, target, cores, path="auto"):
    got = op.simulate(*arrays, cores=cores, target=target, dtype=T, vector_path=path)
    ref = op.reference(*arrays, dtype=T)
    bound = func_matmul_bound(op.func(T), dict(zip(op.inputs, arrays)))
    c = compare(got, ref, output_tolerances(op, T)["y"], bound=bound)
    assert c.ok, c.detail
    return ref


@pytest.mark.parametrize(
    "target,path",
    [("ascend910b", "auto"), ("ascend950", "auto"), ("ascend950", "membase")],
    ids=["ascend910b", "ascend950", "ascend950-membase"],
)
@pytest.mark.parametrize("m,k,n,cores", ROW_SHAPES, ids=[f"{s[0]}x{s[1]}x{s[2]}-c{s[3]}" for s in ROW_SHAPES])
@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_matmul_rms_norm(m, k, n, cores, dt, target, path):
    """On 950 ``auto`` is the RegBase epilogue: the row VF's two passes (the mean of squares,
    its Reduce stored FIRST_ELEMENT and reloaded BRC; then the scaled row)."""
    T = next(d for d in matmul_rms_norm.dtypes if d.name == dt)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((m, k)).astype(T.np)
    w = rng.standard_normal((n, k)).astype(T.np)
    gamma = rng.uniform(0.5, 1.5, n).astype(np.float32)
    ref = _check(matmul_rms_norm, T, [x, w, gamma], target, cores, path)
    h = x.astype(np.float64) @ w.astype(np.float64).T
    want = h / np.sqrt(np.mean(h * h, axis=-1, keepdims=True) + 1e-6) * gamma
    assert np.allclose(ref.astype(np.float64), want, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("target", ["ascend910b", pytest.param("ascend950", marks=pytest.mark.slow)])
@pytest.mark.parametrize("m,k,n,cores", ROW_SHAPES[1:3], ids=["33x40x70-c8", "17x600x17-c1"])
def test_softmax_and_layer_norm_along_n(row_ops, m, k, n, cores, target):
    # max and sum reductions (softmax), two means (LayerNorm) and a column after the per-row math
    rng = np.random.default_rng(9)
    sm, ln = row_ops.linear_softmax, row_ops.linear_layer_norm
    T = sm.dtypes[0]
    x = rng.standard_normal((m, k)).astype(T.np)
    w = (rng.standard_normal((k, n)) * 0.3).astype(T.np)
    ref = _check(sm, T, [x, w], target, cores)
    h = x.astype(np.float64) @ w.astype(np.float64)
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    assert np.allclose(ref.astype(np.float64), e / e.sum(axis=-1, keepdims=True), rtol=2e-2, atol=2e-3)
    beta = rng.standard_normal(n).astype(np.float32)
    wt = np.ascontiguousarray(w.T)
    ref = _check(ln, T, [x, wt, beta], target, cores)
    d = h - h.mean(axis=-1, keepdims=True)
    want = d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + 1e-5) + beta
    assert np.allclose(ref.astype(np.float64), want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_rms_norm_past_the_full_row_limit_is_a_host_error(target):
    T = matmul_rms_norm.dtypes[0]
    x = np.ones((3, 16), T.np)
    w = np.ones((1025, 16), T.np)
    with pytest.raises(TilingError) as e:
        matmul_rms_norm.simulate(x, w, np.ones(1025, np.float32), target=target)
    assert "N = 1025: a reduction along N needs the whole row in one cube tile, at most 1024 columns" in str(
        e.value
    )


@pytest.mark.slow
def test_rms_norm_long_matrix():
    T = matmul_rms_norm.dtypes[0]
    rng = np.random.default_rng(4)
    x = rng.standard_normal((530, 1100)).astype(T.np)
    w = rng.standard_normal((1000, 1100)).astype(T.np)
    _check(matmul_rms_norm, T, [x, w, rng.uniform(0.5, 1.5, 1000).astype(np.float32)], "ascend910b", 8)


KEYED_SOURCE = """\
from typing import Literal

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16))
def linear_act(
    x: Tensor["M", "K"],
    w: Tensor["N", "K"],
    bias: Tensor[f32, "N"],
    *,
    act: Literal["relu", "gelu", "none"] = "relu",
    scale: float = 1.0,
):
    y = x @ w.T + bias
    if act == "relu":
        y = dsl.relu(y)
    elif act == "gelu":
        y = 0.5 * y * (1 + dsl.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))
    return dsl.cast(y * scale, x.dtype)
"""


@pytest.fixture(scope="module")
def linear_act(tmp_path_factory):
    mod = load_source(tmp_path_factory.mktemp("keyed") / "linear_act.py", KEYED_SOURCE, "mm_linear_act")
    return mod.linear_act


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("act", ["relu", "gelu", "none"])
def test_static_attribute_picks_the_epilogue(linear_act, act, target, tmp_path):
    # one kernel, a namespace per tiling key (the Literal's index), TILING_KEY_IS in the entry; the
    # run-time float attribute next to it in the tiling data
    T = linear_act.dtypes[1]
    rng = np.random.default_rng(2)
    x = rng.standard_normal((33, 40)).astype(T.np)
    w = rng.standard_normal((70, 40)).astype(T.np)
    b = rng.standard_normal(70).astype(np.float32)
    got = linear_act.simulate(x, w, b, act=act, scale=-0.5, cores=8, target=target, dtype=T)
    ref = linear_act.reference(x, w, b, act=act, scale=-0.5, dtype=T)
    bound = func_matmul_bound(linear_act.func(T), {"x": x, "w": w, "bias": b})
    c = compare(got, ref, output_tolerances(linear_act, T)["y"], bound=bound)
    assert c.ok, c.detail
    h = x.astype(np.float64) @ w.astype(np.float64).T + b
    h = {"relu": np.maximum(h, 0), "none": h}.get(
        act, 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))
    )
    assert np.allclose(ref.astype(np.float64), -0.5 * h, rtol=2e-2, atol=5e-2)
    if act == "relu":
        kernel = (
            linear_act.compile(out_dir=tmp_path, target=target) / "op_kernel" / "linear_act.cpp"
        ).read_text()
        assert [f"TILING_KEY_IS({k})" in kernel for k in range(4)] == [True, True, True, False]
        assert kernel.count("class KernelLinearAct") == 3


OPTIONAL_SOURCE = """\
import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16))
def linear_res(
    x: Tensor["M", "K"], w: Tensor["N", "K"], r: Tensor["M", "N"] | None = None, *, residual: bool = False
):
    y = x @ w.T
    if residual:
        y = y + r
    return dsl.cast(y, x.dtype)
"""


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("residual", [False, True])
def test_optional_input_read_under_its_key(tmp_path, residual, target):
    # key 1 reads r (and on 950 leaves less UB: a smaller BASE_M, from host tiling's per-key table)
    mod = load_source(tmp_path / "linear_res.py", OPTIONAL_SOURCE, f"mm_linear_res_{residual}_{target}")
    op = mod.linear_res
    T = op.dtypes[0]
    rng = np.random.default_rng(6)
    x = rng.standard_normal((300, 40)).astype(T.np)
    w = rng.standard_normal((270, 40)).astype(T.np)
    r = rng.standard_normal((300, 270)).astype(T.np) if residual else None
    got = op.simulate(x, w, r, residual=residual, cores=8, target=target)
    ref = op.reference(x, w, r, residual=residual)
    bound = func_matmul_bound(op.func(T), {"x": x, "w": w, "r": r})
    c = compare(got, ref, output_tolerances(op, T)["y"], bound=bound)
    assert c.ok, c.detail
    want = x.astype(np.float64) @ w.astype(np.float64).T + (r.astype(np.float64) if residual else 0)
    assert np.allclose(ref.astype(np.float64), want, rtol=2e-2, atol=5e-2)


@pytest.mark.parametrize("name", ["linear_gelu", "matmul_rms_norm"])
def test_950_epilogue_in_the_inline_vf_form(tmp_path, name):
    """The RegBase epilogue as an inline ``__VEC_SCOPE__`` block (the 8.x form of the same VF)."""
    from backends.ascendc.compile import compile_op

    op = linear_gelu if name == "linear_gelu" else matmul_rms_norm
    project = compile_op(op, "ascend950", tmp_path, vf_form="__VEC_SCOPE__", warn_builtin=False)
    text = (project / "op_kernel" / f"{name}.cpp").read_text()
    assert "__VEC_SCOPE__ {" in text and "asc_vf_call" not in text
    T = op.dtypes[1]
    rng = np.random.default_rng(4)
    x = rng.standard_normal((33, 600)).astype(T.np)
    w = rng.standard_normal((70, 600)).astype(T.np)
    arrays = [x, w, rng.uniform(0.5, 1.5, 70).astype(np.float32)]
    got = op.simulate(*arrays, cores=8, target="ascend950", project=project, dtype=T)
    ref = op.reference(*arrays, dtype=T)
    bound = func_matmul_bound(op.func(T), dict(zip(op.inputs, arrays)))
    c = compare(got, ref, output_tolerances(op, T)["y"], bound=bound)
    assert c.ok, c.detail


ROW_OUTPUT_SOURCE = """\
import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16))
def linear_ms(x: Tensor["M", "K"], w: Tensor["N", "K"], *, epsilon: float = 1e-6):
    y = x @ w.T
    ms = dsl.mean(y * y, axis=-1, keepdims=True)
    out = dsl.cast(y * dsl.rsqrt(ms + epsilon), x.dtype)
    return out, ms
"""


@pytest.mark.parametrize(
    "target,path",
    [("ascend910b", "auto"), ("ascend950", "auto"), ("ascend950", "membase")],
    ids=["ascend910b", "ascend950", "ascend950-membase"],
)
@pytest.mark.parametrize(
    "m,k,n,cores",
    [ROW_SHAPES[0], ROW_SHAPES[1], ROW_SHAPES[4]],
    ids=["1x64x48-c1", "33x40x70-c8", "40x72x1024-c4"],
)
def test_per_row_output_of_the_epilogue(tmp_path, m, k, n, cores, target, path):
    """An [M, 1] output (the mean of squares the RMSNorm divides by): the tile holds whole rows, its
    per-row slots (RegBase: stored DIST_FIRST_ELEMENT_B32; MemBase: ReduceRows) are copied out a
    value per row, PER_ROW apart in UB; InferShape gives [M, 1]."""
    mod = load_source(tmp_path / "linear_ms.py", ROW_OUTPUT_SOURCE, "mm_linear_ms")
    op = mod.linear_ms
    T = op.dtypes[0]
    rng = np.random.default_rng(6)
    x = rng.standard_normal((m, k)).astype(T.np)
    w = rng.standard_normal((n, k)).astype(T.np)
    out, ms = op.simulate(x, w, cores=cores, target=target, vector_path=path)
    ref_out, ref_ms = op.reference(x, w)
    assert ms.shape == (m, 1) and ms.dtype == np.float32
    tol = output_tolerances(op, T)
    bound = func_matmul_bound(op.func(T), {"x": x, "w": w})
    c = compare(out, ref_out, tol["out"], bound=bound)
    assert c.ok, c.detail
    # ms: a mean of f32 squares, summed in another order than the reference's: relative 1e-4
    c = compare(ms, ref_ms, tol["ms"], bound=np.zeros_like(ref_ms, dtype=np.float64))
    assert c.ok, c.detail
    h = x.astype(np.float64) @ w.astype(np.float64).T
    assert np.allclose(ref_ms, np.mean(h * h, axis=-1, keepdims=True), rtol=1e-3)
