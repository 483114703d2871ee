"""Property tests: random elementwise programs through frontend, interpreter and canonicalize.

Each generated program is written as DSL source, compiled by the frontend, and its reference
result compared with numpy evaluating the same expression in float32 (bit for bit unless tanh
is in it, ``dsl.precision``). canonicalize must not
change a single bit of the interpreter's result, and IR must round-trip through text.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl import precision
from dsl.ir import Module, parse_module, print_module
from dsl.ir.interpreter import run_func
from passes import PassManager, parse_pipeline

LEAVES = ["a", "b", "s", "alpha", "1.5", "2", "0.25"]
NP = {  # every call computes in float32 (np.maximum(1.5, 1.5) alone would be a float64)
    "maximum": "f32_maximum",
    "minimum": "f32_minimum",
    "abs": "f32_abs",
    "tanh": "f32_tanh",
}
F32_FUNCS = {
    "f32_maximum": lambda x, y: np.maximum(np.float32(x), np.float32(y)),
    "f32_minimum": lambda x, y: np.minimum(np.float32(x), np.float32(y)),
    "f32_abs": lambda x: np.abs(np.float32(x)),
    "f32_tanh": lambda x: np.tanh(np.float32(x)),
}


@st.composite
def expressions(draw, depth=0):
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(LEAVES))
    kind = draw(st.sampled_from(["bin", "bin", "call2", "call1", "neg", "sq"]))
    a = draw(expressions(depth=depth + 1))
    if kind == "bin":
        op = draw(st.sampled_from(["+", "-", "*"]))
        b = draw(expressions(depth=depth + 1))
        return f"({a} {op} {b})"
    if kind == "call2":
        fn = draw(st.sampled_from(["maximum", "minimum"]))
        b = draw(expressions(depth=depth + 1))
        return f"dsl.{fn}({a}, {b})"
    if kind == "call1":
        fn = draw(st.sampled_from(["abs", "tanh"]))
        return f"dsl.{fn}({a})"
    if kind == "neg":
        return f"(-{a})"
    return f"({a}) ** 2"


def _numpy_eval(expr: str, a, b, s, alpha):
    code = expr
    for k, v in NP.items():
        code = code.replace(f"dsl.{k}", v)
    env = {"np": np, **F32_FUNCS, "a": a, "b": b, "s": np.float32(s[0]), "alpha": np.float32(alpha)}
    with np.errstate(all="ignore"):
        out = eval(code, env)  # noqa: S307 - our own generated expression
    return np.broadcast_to(np.asarray(out, dtype=np.float32), a.shape)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(expr=expressions(), seed=st.integers(0, 2**16))
def test_random_programs(write_module, expr, seed):
    src = f"""
import dsl
from dsl import Tensor, Scalar

@dsl.op
def prog(a: Tensor, b: Tensor, s: Scalar, *, alpha: float = 0.75):
    y = a + ({expr})
    return y
"""
    mod = write_module(src)
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, 37).astype(np.float32)
    b = rng.uniform(-2, 2, 37).astype(np.float32)
    s = np.array([rng.uniform(-2, 2)], np.float32)
    got = mod.prog.reference(a, b, s)
    want = a + _numpy_eval(expr, a, b, s, 0.75)
    # bit-exact unless tanh is in the expression (dsl.precision derives the class from the IR)
    tol = precision.output_tolerances(mod.prog, "f32")["y"]
    assert tol.exact == ("tanh" not in expr)
    precision.check(got, want, tol, what=expr)

    func = mod.prog.func("f32")
    inputs = {"a": a, "b": b, "s": s}
    before = run_func(func, inputs, {"alpha": 0.75})[0]
    module = Module([func])
    PassManager(parse_pipeline("specialize,canonicalize")).run(module)
    after = run_func(module.funcs[0], inputs, {"alpha": 0.75})[0]
    assert before.tobytes() == after.tobytes()
    text = print_module(module)
    assert print_module(parse_module(text)) == text
    for op in module.funcs[0].body:
        assert op.loc is not None, f"{op.opname} lost its location"
