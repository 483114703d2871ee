"""The row examples as test cases: inputs, attribute combinations and an independent numpy golden.

Each case's golden is written here from the operator's definition (not from the IR), so a test
checks ``reference`` against it as well as ``simulate`` against ``reference``.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def load_example(name: str):
    module = f"row_case_{name}"
    if module not in sys.modules:
        spec = importlib.util.spec_from_file_location(module, ROOT / "examples" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[module] = mod
        spec.loader.exec_module(mod)
    return getattr(sys.modules[module], name)


def _u(rng, t, shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(t.np)


def _f(a):
    return None if a is None else np.asarray(a).astype(np.float32)


def _layer_norm(x, eps):
    mean = x.mean(axis=-1, keepdims=True, dtype=np.float32)
    d = x - mean
    var = (d * d).mean(axis=-1, keepdims=True, dtype=np.float32)
    rstd = np.float32(1) / np.sqrt(var + np.float32(eps))
    return mean, d, rstd


@dataclass
class RowCase:
    name: str
    make: Callable  # (rng, T, shape, **attrs) -> arguments
    golden: Callable  # (T, *arguments, **attrs) -> [(f32 array or exact array, numpy dtype) or None]
    attrs: list  # attribute combinations (every static combination)
    transcendental: bool = False

    @property
    def op(self):
        return load_example(self.name)


def _rms_make(rng, t, shape, **_):
    return [_u(rng, t, shape), _u(rng, t, shape[-1], 0.5, 1.5)]


def _rms_golden(t, x, g, epsilon=1e-6):
    x, g = _f(x), _f(g)
    rstd = np.float32(1) / np.sqrt(
        (x * x).mean(axis=-1, keepdims=True, dtype=np.float32) + np.float32(epsilon)
    )
    return [(x * rstd * g, t.np)]


def _softmax_make(rng, t, shape, **_):
    return [_u(rng, t, shape, -6, 6)]


def _softmax_golden(t, x):
    x = _f(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return [(e / e.sum(axis=-1, keepdims=True, dtype=np.float32), t.np)]


def _log_softmax_golden(t, x):
    x = _f(x)
    s = x - x.max(axis=-1, keepdims=True)
    return [(s - np.log(np.exp(s).sum(axis=-1, keepdims=True, dtype=np.float32)), t.np)]


def _ln_make(rng, t, shape, **_):
    c = shape[-1]
    return [_u(rng, t, shape), _u(rng, t, c, 0.5, 1.5), _u(rng, t, c, -0.5, 0.5)]


def _ln_golden(t, x, g, b, epsilon=1e-5, with_beta=False):
    mean, d, rstd = _layer_norm(_f(x), epsilon)
    y = d * rstd * _f(g)
    if with_beta:
        y = y + _f(b)
    return [(y, t.np), (mean, t.np), (rstd, t.np)]


def _aln_make(rng, t, shape, **_):
    c = shape[-1]
    return [
        _u(rng, t, shape, -1, 1),
        _u(rng, t, shape, -1, 1),
        _u(rng, t, c, 0.5, 1.5),
        _u(rng, t, c, -0.5, 0.5),
        _u(rng, t, c, -0.2, 0.2),
    ]


def _aln_golden(t, x1, x2, g, b, bias, epsilon=1e-5, with_bias=False, additional_output=False):
    x = _f(x1) + _f(x2)
    if with_bias:
        x = x + _f(bias)
    mean, d, rstd = _layer_norm(x, epsilon)
    y = d * rstd * _f(g) + _f(b)
    return [(y, t.np), (mean, t.np), (rstd, t.np), (x, t.np) if additional_output else None]


def _gelu_make(rng, t, shape, **_):
    return [_u(rng, t, shape, -4, 4), _u(rng, t, shape[-1], -1, 1)]


def _gelu_golden(t, x, bias):
    h = _f(x) + _f(bias)
    return [(0.5 * h * (1 + np.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h))), t.np)]


def _q_make(rng, t, shape, quant_mode="per_channel", **_):
    c = shape[-1]
    scales = rng.uniform(0.02, 0.06, c).astype(np.float32)
    return [
        _u(rng, t, shape, -1, 1),
        _u(rng, t, shape, -1, 1),
        _u(rng, t, c, 0.5, 1.5),
        _u(rng, t, c, -0.5, 0.5),
        _u(rng, t, c, -0.2, 0.2),
        1 / scales if quant_mode == "mul" else scales,
        rng.integers(-3, 4, c).astype(np.float32),
        np.array([30.0], np.float32),
        np.array([1.0], np.float32),
    ]


def _q_golden(
    t,
    x1,
    x2,
    g,
    b,
    bias,
    scales,
    zp,
    scale,
    zero_point,
    quant_mode="per_channel",
    epsilon=1e-5,
    additional_output=False,
    with_zero_points=False,
):
    x = _f(x1) + _f(x2) + _f(bias)
    mean, d, rstd = _layer_norm(x, epsilon)
    norm = d * rstd * _f(g) + _f(b)
    if quant_mode == "per_channel":
        q = norm / scales
    elif quant_mode == "mul":
        q = norm * scales
    else:
        q = norm * scale[0]
    if with_zero_points:
        q = q + (zero_point[0] if quant_mode == "per_tensor" else zp)
    y = np.clip(np.rint(q), -128, 127).astype(np.int8)
    return [(y, np.int8), (x, t.np) if additional_output else None]


def _combos(**choices):
    keys = list(choices)
    return [dict(zip(keys, vals)) for vals in itertools.product(*(choices[k] for k in keys))]


CASES = [
    RowCase("rms_norm", _rms_make, _rms_golden, [{}, {"epsilon": 0.5}], transcendental=True),
    RowCase("softmax", _softmax_make, _softmax_golden, [{}], transcendental=True),
    RowCase("log_softmax", _softmax_make, _log_softmax_golden, [{}], transcendental=True),
    RowCase("layer_norm", _ln_make, _ln_golden, _combos(with_beta=(False, True)), transcendental=True),
    RowCase(
        "add_layer_norm",
        _aln_make,
        _aln_golden,
        _combos(with_bias=(False, True), additional_output=(False, True)),
        transcendental=True,
    ),
    RowCase("bias_gelu", _gelu_make, _gelu_golden, [{}], transcendental=True),
    RowCase(
        "quantize_add_layer_norm",
        _q_make,
        _q_golden,
        _combos(
            quant_mode=("per_channel", "per_tensor", "mul"),
            additional_output=(False, True),
            with_zero_points=(False, True),
        ),
        transcendental=True,
    ),
]
BY_NAME = {c.name: c for c in CASES}
