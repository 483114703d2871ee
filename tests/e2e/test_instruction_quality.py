"""Issue 9 part 4, instruction quality: the counts the issue names, and that each rewrite keeps
the results (bit-exact where dsl/precision.py says exact, the precision standard otherwise) on
the emulator in strict sync mode (auto-sync off: a missing PipeBarrier<PIPE_V> is a race)."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

import dsl
from backends.ascendc.compile import lower
from backends.ascendc.simulate import simulate
from dsl.precision import check, output_tolerances


import ew_cases as C  # tests/e2e is on sys.path: pytest's default (prepend) import mode

SOURCE = """
import dsl
from dsl import Tensor, Scalar, f16, f32, bf16

@dsl.op(dtypes=(f16, f32, bf16))
def add2(x: Tensor, y: Tensor):
    return x + y

@dsl.op(dtypes=(f16,))
def half_ops(x: Tensor, y: Tensor):
    s = x - y
    p = x * y
    q = x / y
    r = dsl.sqrt(x)
    h = x * 0.5
    m = dsl.maximum(x, y)
    return s, p, q, r, h, m

@dsl.op(dtypes=(f32, f16))
def by_scalar(x: Tensor, s: Scalar[f32]):
    a = -x / s
    b = s / x
    return a, b

@dsl.op(dtypes=(f32,))
def div_only(x: Tensor, s: Scalar[f32]):
    return x / s
"""


def vector_ops(func) -> list[str]:
    return [
        op.opname
        for op in func.loop().region
        if not op.opname.startswith(("dma.", "sync.")) and op.opname != "loop.tiles"
    ]


def barriers(func) -> int:
    return sum(1 for op in func.loop().region if op.opname == "sync.barrier")


def funcs(op, dtype_name: str):
    compiled = lower(op, "ascend910b")
    return next(m.funcs for dt, m in compiled.modules.items() if dt.name == dtype_name)


def half_bits(rng, n: int) -> np.ndarray:
    """Random f16 bit patterns: normals, subnormals, zeros, infinities and NaNs alike."""
    return rng.integers(0, 1 << 16, n, dtype=np.uint16).view(np.float16)


def run_strict(op, args, cores=1):
    outs, _ = simulate(op, tuple(args), {}, cores=cores, strict=True)
    return C.as_tuple(outs)


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    path = tmp_path_factory.mktemp("iq") / "iq_ops.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("iq_ops", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_f16_single_add_is_one_vector_op_and_bit_exact(ops):
    (func,) = funcs(ops.add2, "f16")
    assert vector_ops(func) == ["add"]
    rng = np.random.default_rng(0)
    n = 3 * func.loop().attrs["tile"] + 77
    x, y = half_bits(rng, n), half_bits(rng, n)
    (got,) = run_strict(ops.add2, [x, y])
    check(got, ops.add2.reference(x, y), "exact", what="add2[f16]")
    (bfunc,) = funcs(ops.add2, "bf16")  # A2 has no bf16 arithmetic: widened, added, rounded
    assert vector_ops(bfunc) == ["cast", "cast", "add", "cast"]


def test_f16_single_ops_stay_native_and_match(ops):
    (func,) = funcs(ops.half_ops, "f16")
    assert [o for o in vector_ops(func) if o == "cast"] == []
    rng = np.random.default_rng(1)
    n = 40000
    x, y = half_bits(rng, n), half_bits(rng, n)
    tols = output_tolerances(ops.half_ops, dsl.f16)
    assert not tols["r"].exact and all(tols[k].exact for k in ("s", "p", "q", "h", "m"))
    for name, got, want in zip(
        ops.half_ops.outputs, run_strict(ops.half_ops, [x, y]), ops.half_ops.reference(x, y)
    ):
        check(got, want, tols[name], what=f"half_ops.{name}")


def test_scalar_divisor_is_broadcast_once_per_core(ops):
    """-x / s divides by a resident broadcast of -s; s / x reads the broadcast of s; neither is
    re-broadcast per tile; the level-0 loop over more than 255 repeats is exact."""
    for dt in ("f32", "f16"):
        (func,) = funcs(ops.by_scalar, dt)
        assert "vec.dup" not in vector_ops(func) and "neg" not in vector_ops(func)
        assert len(func.attributes["resident"]) == 2
    (func,) = funcs(ops.div_only, "f32")
    tile = func.loop().attrs["tile"]
    assert tile // 64 > 255  # the helper splits a tile's repeats into <= 255 per instruction
    rng = np.random.default_rng(2)
    for op, t in ((ops.div_only, np.float32), (ops.by_scalar, np.float32), (ops.by_scalar, np.float16)):
        n = 2 * tile + tile // 2 + 13
        x = rng.uniform(-4, 4, n).astype(t)
        x[::9] = 0
        s = np.array([-0.37], np.float32)
        for got, want in zip(run_strict(op, [x, s]), C.as_tuple(op.reference(x, s))):
            check(got, want, "exact", what=op.name)


def test_adamw_f32_vector_ops_and_barriers():
    op = C.load_op("apply_adam_w")
    by_key = {f.attributes["tiling_key"]: f for f in funcs(op, "f32")}
    k0 = by_key[0]
    assert len(vector_ops(k0)) <= 14 and barriers(k0) <= 8, (vector_ops(k0), barriers(k0))
    assert k0.loop().attrs["tile"] == 5120  # whole 512-byte GM units


@pytest.mark.parametrize("dt", ["f16", "f32", "bf16"])
def test_gelu_tanh_is_cheap_and_meets_the_precision_standard(dt):
    op = C.load_op("gelu_tanh")
    (func,) = funcs(op, dt)
    assert len(vector_ops(func)) <= 12
    t = getattr(dsl, dt)
    rng = np.random.default_rng(3)
    x = rng.uniform(-12, 12, 3 * func.loop().attrs["tile"] + 5).astype(t.np)
    x[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-3]
    (got,) = run_strict(op, [x])
    with np.errstate(all="ignore"):
        want = op.reference(x)
    check(got, want, output_tolerances(op, t)["y"], what=f"gelu_tanh[{dt}]")


def test_identity_cast_chains_are_folded():
    """axpby's explicit cast to T, widened again and narrowed on store: one cast is left."""
    op = C.load_op("axpby")
    for func in funcs(op, "f16"):
        region = func.loop().region
        for o in region:
            if (
                o.opname == "cast"
                and o.operands[0].owner is not None
                and o.operands[0].owner.opname == "cast"
            ):
                inner = o.operands[0].owner
                assert inner.operands[0].type.dtype != o.result.type.dtype, o


def test_a_single_tile_uses_one_slot():
    """A core with one tile pre-issues and drains the reverse flags of one slot only."""
    op = C.load_op("silu")
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    outs, one = simulate(op, (x,), {}, cores=1, strict=True)
    check(outs, op.reference(x), output_tolerances(op, dsl.f32)["y"])
    (func,) = funcs(op, "f32")
    x3 = np.linspace(-3, 3, 3 * func.loop().attrs["tile"], dtype=np.float32)
    _, three = simulate(op, (x3,), {}, cores=1, strict=True)
    # MTE3 sets MTE3_MTE2 once per tile plus once per pre-issued slot
    assert one.counters["MTE3"]["set_flags"] == 1 + 1
    assert three.counters["MTE3"]["set_flags"] == 3 + 2
