"""The elementwise examples under test, their inputs, goldens and the tolerance policy.

One ``Case`` per example in ``examples/``: how to make inputs (normal and "stress" values), an
independent numpy golden (f32 math on inputs widened from T, in the order the DSL source writes
it), every value of every static attribute and some non-default run-time attribute values.
``test_elementwise_simulate.py`` builds its matrix from ``CASES``.

Tolerances
----------
None here: every comparison uses the precision standard of ``dsl/precision.py`` with the class
derived from the operator's IR (``tolerances``): an output whose data path has only exact ops
(+ - * / max min neg abs relu, comparisons, where, casts, round) must equal the reference
value for value (NaN == NaN, -0 == +0); one with exp/log/sqrt/rsqrt/tanh/sigmoid on its path
meets ``precision.APPROX``. ``assert_close`` raises with the first and worst mismatch.
"""

from __future__ import annotations

import importlib.util
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from dsl import precision

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


# ---------------------------------------------------------------------------------------------
# Tolerances (dsl/precision.py, derived from the IR)
# ---------------------------------------------------------------------------------------------


def tolerances(op, dtype, attrs: dict[str, Any]) -> dict[str, precision.Tolerance]:
    """Output name -> the precision class of that output in this specialization."""
    return precision.output_tolerances(op, dtype, **attrs)


def assert_close(actual, expected, tol: precision.Tolerance = precision.EXACT, what: str = "output") -> None:
    """``actual`` meets ``expected`` under ``tol`` (dsl/precision.py)."""
    assert isinstance(actual, np.ndarray), f"{what}: expected an ndarray, got {type(actual).__name__}"
    precision.check(actual, expected, tol, what=f"{what} [{tol}]")


# ---------------------------------------------------------------------------------------------
# Loading examples
# ---------------------------------------------------------------------------------------------


def load_op(stem: str):
    """The operator ``stem`` defined in ``examples/<stem>.py`` (imported once per session)."""
    name = f"dslc_e2e_example_{stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return getattr(sys.modules[name], stem)


def seed(*parts) -> int:
    """A per-case seed independent of PYTHONHASHSEED."""
    return zlib.crc32(repr(parts).encode())


def as_tuple(out) -> tuple:
    return out if isinstance(out, tuple) else (out,)


def w(a) -> np.ndarray:
    """Widen to f32 exactly as the interpreter loads an input."""
    return np.asarray(a).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# Input generators. ``gen(rng, t, shape, attrs, stress)`` -> positional inputs for the op.
# ``stress`` mixes in zeros (both signs), negatives, tiny and large magnitudes where legal.
# ---------------------------------------------------------------------------------------------


def uniform(rng, t, shape, lo, hi) -> np.ndarray:
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(t.np)


def sprinkle(rng, t, x: np.ndarray, specials) -> np.ndarray:
    """Replace about a third of ``x`` with values drawn from ``specials`` (rounded to T)."""
    x = x.copy()
    flat = x.reshape(-1)
    k = max(1, flat.size // 3)
    idx = rng.choice(flat.size, size=min(k, flat.size), replace=False)
    flat[idx] = np.asarray(rng.choice(np.asarray(specials, dtype=np.float64), size=idx.size)).astype(t.np)
    return x


def scalar(t, v) -> np.ndarray:
    return np.array([v], dtype=t.np)


def gen_adamw(rng, t, shape, attrs, stress):
    var = uniform(rng, t, shape, -1, 1)
    m = uniform(rng, t, shape, -0.1, 0.1)
    v = uniform(rng, t, shape, 0, 0.01)
    grad = uniform(rng, t, shape, -1, 1)
    mgn = uniform(rng, t, shape, 0, 0.01)
    eps = 1e-6
    if stress:
        var = sprinkle(rng, t, var, [0.0, -0.0, -50.0, 50.0, 1e-3])
        m = sprinkle(rng, t, m, [0.0, -0.0, -1.0])
        v = sprinkle(rng, t, v, [0.0])
        grad = sprinkle(rng, t, grad, [0.0, -0.0, -10.0, 10.0])
        mgn = sprinkle(rng, t, mgn, [0.0, 1.0])
        eps = 1e-3
    # beta2_power 0.99: 0.999 rounds to 1.0 in bf16 and beta2_power*beta2 == 1 divides by zero.
    scalars = [scalar(t, x) for x in (0.81, 0.99, 1e-3, 1e-2, 0.9, 0.999, eps)]
    return [var, m, v, *scalars, grad, mgn if attrs["amsgrad"] else None]


def golden_adamw(inputs, attrs):
    var, m, v, beta1_power, beta2_power, lr, wd, beta1, beta2, eps, grad, mgn = (
        None if a is None else w(a) for a in inputs
    )
    gt = -grad if attrs["maximize"] else grad
    m_out = m * beta1 - (beta1 - 1) * gt
    v_out = v * beta2 - (beta2 - 1) * gt * gt
    var_t = var * (1 - lr * wd)
    b1p, b2p = beta1_power * beta1, beta2_power * beta2
    v_hat = np.maximum(mgn, v_out) if attrs["amsgrad"] else v_out
    denom = np.sqrt(-v_hat / (b2p - 1)) + eps
    return [var_t + lr / (b1p - 1) * (m_out / denom), m_out, v_out]


def gen_gelu(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -5, 5)
    if stress:
        x = sprinkle(rng, t, x, [0.0, -0.0, 1e-3, -1e-3, 3.0, -3.0, 10.0, -10.0, 50.0, -50.0, 300.0, -300.0])
    return [x]


def golden_gelu(inputs, attrs):
    x = w(inputs[0])
    inner = np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x * x * x)
    return [np.float32(0.5) * x * (np.float32(1) + np.tanh(inner))]


def gen_silu(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -8, 8)
    if stress:
        x = sprinkle(rng, t, x, [0.0, -0.0, 1e-3, -1e-3, 20.0, -20.0, 100.0, -100.0, 1000.0, -1000.0])
    return [x]


def golden_silu(inputs, attrs):
    x = w(inputs[0])
    with np.errstate(over="ignore"):
        return [x * (np.float32(1) / (np.float32(1) + np.exp(-x)))]


def gen_leaky(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -4, 4)
    if stress:
        x = sprinkle(rng, t, x, [0.0, -0.0, 1e-4, -1e-4, 1000.0, -1000.0])
    return [x]


def golden_leaky(inputs, attrs):
    x = w(inputs[0])
    return [np.maximum(x, x * np.float32(attrs["negative_slope"]))]


def gen_lerp(rng, t, shape, attrs, stress):
    start = uniform(rng, t, shape, -2, 2)
    end = uniform(rng, t, shape, -2, 2)
    weight = rng.uniform(0, 1)
    if stress:
        start = sprinkle(rng, t, start, [0.0, -0.0, 100.0, -100.0])
        end = sprinkle(rng, t, end, [0.0, -0.0, 100.0, -100.0])
        weight = float(rng.choice([0.0, 1.0, -0.5, 1.5]))
    return [start, end, scalar(t, weight)]


def golden_lerp(inputs, attrs):
    s, e, wt = (w(a) for a in inputs)
    return [s + wt * (e - s)]


def gen_sgd(rng, t, shape, attrs, stress):
    param = uniform(rng, t, shape, -1, 1)
    grad = uniform(rng, t, shape, -1, 1)
    buf = uniform(rng, t, shape, -0.5, 0.5)
    if stress:
        param = sprinkle(rng, t, param, [0.0, -0.0, 100.0, -100.0])
        grad = sprinkle(rng, t, grad, [0.0, -0.0, 50.0, -50.0])
        buf = sprinkle(rng, t, buf, [0.0, -0.0, 10.0, -10.0])
    return [param, grad, buf, scalar(t, 0.05)]


def golden_sgd(inputs, attrs):
    param, grad, buf, lr = (w(a) for a in inputs)
    mom, damp = np.float32(attrs["momentum"]), np.float32(attrs["dampening"])
    g = -grad if attrs["maximize"] else grad
    buf_out = buf * mom + (np.float32(1) - damp) * g
    step = g + buf_out * mom if attrs["nesterov"] else buf_out
    return [param - lr * step, buf_out]


def gen_clamp(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -3, 3)
    if stress:
        lo, hi = attrs["min_val"], attrs["max_val"]
        x = sprinkle(rng, t, x, [0.0, -0.0, lo, hi, np.inf, -np.inf, 1e4, -1e4])
    return [x]


def golden_clamp(inputs, attrs):
    x = w(inputs[0])
    return [np.minimum(np.maximum(x, np.float32(attrs["min_val"])), np.float32(attrs["max_val"]))]


def gen_axpby(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -2, 2)
    other = uniform(rng, t, shape, -2, 2)
    alpha = np.array([rng.uniform(-2, 2)], dtype=np.float32)  # pinned Scalar[f32]
    if stress:
        x = sprinkle(rng, t, x, [0.0, -0.0, 1000.0, -1000.0])
        other = sprinkle(rng, t, other, [0.0, -0.0, 1000.0, -1000.0])
        alpha = np.array([rng.choice([0.0, -1.0, 1 / 3])], dtype=np.float32)
    return [x, other, alpha]


def golden_axpby(inputs, attrs):
    x, other, alpha = (w(a) for a in inputs)
    beta = np.float32(attrs["beta"])
    acc = alpha * x + beta * other if attrs["mode"] == "add" else alpha * x - beta * other
    return [acc]


def gen_softplus(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -20, 20)
    if stress:
        x = sprinkle(rng, t, x, [0.0, -0.0, 1e-3, -1e-3, 100.0, -100.0, 1000.0, -1000.0])
    return [x]


def golden_softplus(inputs, attrs):
    x = w(inputs[0])
    beta = np.float32(attrs["beta"])
    bx = x * beta
    return [(np.maximum(bx, 0) + np.log(np.float32(1) + np.exp(-np.abs(bx)))) * (np.float32(1) / beta)]


def gen_rms_prop(rng, t, shape, attrs, stress):
    var = uniform(rng, t, shape, -1, 1)
    ms = uniform(rng, t, shape, 0, 0.1)
    mom = uniform(rng, t, shape, -0.01, 0.01)
    grad = uniform(rng, t, shape, -1, 1)
    if stress:
        var = sprinkle(rng, t, var, [0.0, -0.0, 10.0, -10.0])
        ms = sprinkle(rng, t, ms, [0.0, 4.0])
        mom = sprinkle(rng, t, mom, [0.0, -0.0, 1.0])
        grad = sprinkle(rng, t, grad, [0.0, -0.0, 30.0, -30.0])
    return [var, ms, mom, grad, scalar(t, 1e-3)]


def golden_rms_prop(inputs, attrs):
    var, ms, mom, grad, lr = (w(a) for a in inputs)
    rho, momentum, eps = (np.float32(attrs[k]) for k in ("rho", "momentum", "epsilon"))
    ms_out = ms * rho + (np.float32(1) - rho) * grad * grad
    if attrs["form"] == "tf":
        scale = np.float32(1) / np.sqrt(ms_out + eps)
    else:
        scale = np.float32(1) / (np.sqrt(ms_out) + eps)
    mom_out = mom * momentum + lr * grad * scale
    return [var - mom_out, ms_out, mom_out]


def gen_fake_quant(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -8, 8)
    scale = np.array([rng.uniform(0.01, 0.1)], dtype=np.float32)  # pinned Scalar[f32]
    if stress:
        # scale 0.25: every (k + 1/2) * 0.25 is exact in f16/bf16, so x / scale lands on ties
        scale = np.array([0.25], dtype=np.float32)
        ties = [(k + 0.5) * 0.25 for k in range(-6, 6)]
        x = sprinkle(rng, t, x, [0.0, -0.0, 1000.0, -1000.0, *ties])
    return [x, scale]


def golden_fake_quant(inputs, attrs):
    x, scale = (w(a) for a in inputs)
    zp, lo, hi = (np.float32(attrs[k]) for k in ("zero_point", "quant_min", "quant_max"))
    q = np.minimum(np.maximum(np.rint(x / scale) + zp, lo), hi)
    return [(q - zp) * scale]


def gen_threshold(rng, t, shape, attrs, stress):
    x = uniform(rng, t, shape, -1, 1)
    if stress:
        x = sprinkle(rng, t, x, [0.0, -0.0, attrs["threshold"], -attrs["threshold"], 1e4, -1e4])
    return [x]


def golden_threshold(inputs, attrs):
    x = w(inputs[0])
    return [np.where(x > np.float32(attrs["threshold"]), x, np.float32(attrs["value"]))]


def gen_is_close(rng, t, shape, attrs, stress):
    a = uniform(rng, t, shape, -1, 1)
    b = (a.astype(np.float32) + rng.normal(0, 1e-3, shape).astype(np.float32)).astype(t.np)
    if stress:
        same = rng.random(shape) < 0.3
        b = np.where(same, a, b).astype(t.np)
        a = sprinkle(rng, t, a, [0.0, -0.0])
        b = sprinkle(rng, t, b, [0.0, -0.0, 1e-8])
    return [a, b]


def golden_is_close(inputs, attrs):
    a, b = (w(x) for x in inputs)
    return [np.abs(a - b) <= np.float32(attrs["atol"]) + np.float32(attrs["rtol"]) * np.abs(b)]


# ---------------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    stem: str  # examples/<stem>.py defines the operator <stem>
    gen: Callable[..., list]
    golden: Callable[[list, dict], list]
    static: dict[str, tuple] = field(default_factory=dict)  # every value of every static attr
    runtime: tuple[dict[str, Any], ...] = ()  # non-default run-time attribute values to try

    @property
    def op(self):
        return load_op(self.stem)

    def attrs(self, **given) -> dict[str, Any]:
        """All attribute values: the op's defaults updated with ``given``."""
        out = dict(self.op.attrs)
        out.update(given)
        return out

    def inputs(self, t, shape, attrs: dict[str, Any], *, stress: bool = False, key=()) -> list:
        rng = np.random.default_rng(seed(self.stem, t.name, shape, sorted(attrs.items()), stress, key))
        return self.gen(rng, t, shape, attrs, stress)


CASES: list[Case] = [
    Case(
        "apply_adam_w",
        gen_adamw,
        golden_adamw,
        static={"amsgrad": (False, True), "maximize": (False, True)},
    ),
    Case("gelu_tanh", gen_gelu, golden_gelu),
    Case("silu", gen_silu, golden_silu),
    Case(
        "leaky_relu",
        gen_leaky,
        golden_leaky,
        runtime=({"negative_slope": 0.2}, {"negative_slope": 0.0}, {"negative_slope": 1.0}),
    ),
    Case("lerp", gen_lerp, golden_lerp),
    Case(
        "sgd_momentum",
        gen_sgd,
        golden_sgd,
        static={"nesterov": (False, True), "maximize": (False, True)},
        runtime=({"momentum": 0.5, "dampening": 0.1}, {"momentum": 0.0, "dampening": 0.0}),
    ),
    Case(
        "clamp",
        gen_clamp,
        golden_clamp,
        runtime=(
            {"min_val": 0.0, "max_val": 6.0},
            {"min_val": 0.5, "max_val": -0.5},  # min > max: everything becomes max_val
            {"min_val": -0.1, "max_val": 0.1},  # bounds not representable in f16/bf16
        ),
    ),
    Case(
        "axpby",
        gen_axpby,
        golden_axpby,
        static={"mode": ("add", "sub")},
        runtime=({"beta": -2.5}, {"beta": 0.0}),
    ),
    Case(
        "softplus",
        gen_softplus,
        golden_softplus,
        runtime=({"beta": 2.0}, {"beta": 0.5}),
    ),
    Case(
        "rms_prop",
        gen_rms_prop,
        golden_rms_prop,
        static={"form": ("tf", "torch")},
        runtime=({"rho": 0.99, "momentum": 0.9, "epsilon": 1e-3},),
    ),
    Case(
        "fake_quant",
        gen_fake_quant,
        golden_fake_quant,
        runtime=(
            {"zero_point": 128, "quant_min": 0, "quant_max": 255},  # uint8
            {"zero_point": -3, "quant_min": -8, "quant_max": 7},  # int4
        ),
    ),
    # examples/threshold.py and is_close.py: comparisons, dsl.where and a bool output
    Case(
        "threshold",
        gen_threshold,
        golden_threshold,
        runtime=({"threshold": 0.25, "value": -2.0}, {"threshold": -0.5, "value": 0.1}),
    ),
    Case(
        "is_close",
        gen_is_close,
        golden_is_close,
        runtime=({"rtol": 1e-3, "atol": 1e-4}, {"rtol": 0.0, "atol": 0.0}),
    ),
]
CASES_BY_STEM = {c.stem: c for c in CASES}


def attrs_id(attrs: dict[str, Any]) -> str:
    """Readable test-id fragment: ``amsgrad=T,maximize=F``, ``mode=sub``, ``beta=-2.5``."""
    if not attrs:
        return "default"

    def fmt(v):
        return "T" if v is True else "F" if v is False else f"{v:g}" if isinstance(v, float) else str(v)

    return ",".join(f"{k}={fmt(v)}" for k, v in attrs.items())
