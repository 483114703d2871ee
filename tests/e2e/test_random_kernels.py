"""Fuzzing the backend: random elementwise programs are compiled, run on the emulator in strict
mode (every flag and barrier explicit; races, deadlocks and UB faults are errors) and compared
with the reference interpreter: bit for bit where an output's path has only exact ops, under
``dsl.precision.APPROX`` where it has exp/sigmoid/tanh/sqrt (the class comes from the IR)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dsl
from backends.ascendc.simulate import simulate

LEAVES = ["a", "b", "c", "s", "alpha", "0.5", "2"]


@st.composite
def expressions(draw, depth=0):
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(LEAVES))
    kind = draw(st.sampled_from(["bin", "bin", "bin", "max", "unary", "where", "div"]))
    a = draw(expressions(depth=depth + 1))
    if kind == "bin":
        b = draw(expressions(depth=depth + 1))
        return f"({a} {draw(st.sampled_from(['+', '-', '*']))} {b})"
    if kind == "max":
        b = draw(expressions(depth=depth + 1))
        return f"dsl.{draw(st.sampled_from(['maximum', 'minimum']))}({a}, {b})"
    if kind == "unary":
        fn = draw(st.sampled_from(["abs", "relu", "exp", "sigmoid", "tanh", "round", "sqrt"]))
        return f"dsl.sqrt(dsl.abs({a}))" if fn == "sqrt" else f"dsl.{fn}({a})"
    if kind == "div":
        return f"({a} / {draw(st.sampled_from(['s', 'alpha', '4', '(dsl.abs(b) + 1)']))})"
    b = draw(expressions(depth=depth + 1))
    return f"dsl.where((a + {a}) > {b}, {a}, {b})"


def _check(write_module, exprs, dtype_name, n, cores, seed):
    body = "\n    ".join(f"y{i} = a + ({e})" for i, e in enumerate(exprs))
    outs = ", ".join(f"y{i}" for i in range(len(exprs)))
    mod = write_module(f"""
import dsl
from dsl import Tensor, Scalar, f16, f32, bf16

@dsl.op(dtypes=(f16, f32, bf16))
def prog(a: Tensor, b: Tensor, c: Tensor, s: Scalar, *, alpha: float = 0.75):
    {body}
    return {outs}
""")
    rng = np.random.default_rng(seed)
    dt = dsl.dtypes.dtype_from_name(dtype_name).np
    a, b, c = (rng.uniform(-2, 2, n).astype(dt) for _ in range(3))
    args = (a, b, c, np.array([rng.uniform(-2, 2)]).astype(dt))
    ref = mod.prog.reference(*args)
    got, _ = simulate(mod.prog, args, {}, cores=cores, strict=True)
    refs = ref if isinstance(ref, tuple) else (ref,)
    gots = got if isinstance(got, tuple) else (got,)
    tols = dsl.precision.output_tolerances(mod.prog, dtype_name)
    for name, e, r, g in zip(mod.prog.outputs, exprs, refs, gots):
        dsl.precision.check(
            g, r, tols[name], what=f"{name} = a + ({e}) [{dtype_name}, n={n}, cores={cores}, {tols[name]}]"
        )


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    exprs=st.lists(expressions(), min_size=1, max_size=3),
    dtype=st.sampled_from(["f32", "f16", "bf16"]),
    n=st.sampled_from([1, 33, 4113, 30001]),
    cores=st.sampled_from([1, 3, None]),
    seed=st.integers(0, 1000),
)
def test_random_kernels(write_module, exprs, dtype, n, cores, seed):
    _check(write_module, exprs, dtype, n, cores, seed)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    exprs=st.lists(expressions(), min_size=1, max_size=4),
    dtype=st.sampled_from(["f32", "f16", "bf16"]),
    n=st.sampled_from([1, 7, 33, 4113, 30001, 100003]),
    cores=st.sampled_from([1, 2, 5, None]),
    seed=st.integers(0, 1000),
)
def test_random_kernels_many(write_module, exprs, dtype, n, cores, seed):
    _check(write_module, exprs, dtype, n, cores, seed)
