"""Held-out-style operators at realistic sizes: the model's time against its bound, per target.

Issues 19 and 20 judge dslc by operators an outside reviewer wrote (AdamW, softplus, sgd,
RmsNorm, softmax, AddLayerNorm, dynamic row quant, broadcast bias + GELU, a column compare,
seed 003's Greater C2) at realistic sizes, with a cold L2: predicted / bound, where the bound is
launch + every copy at full bandwidth (``Profile.bound_us``). The bars: within 1.25x on 910B1
(issue 20), within 1.10x on ascend950 (issue 19). Figures are model outputs, not measurements.

The operators not among the examples are written here from DESIGN alone, as a user would.

Usage::

    python benchmarks/heldout_report.py [--target ascend910b|ascend950|both] [--op NAME ...]
        [--scale 1.0] [--markdown FILE]

Figures: ``benchmarks/heldout_report.md``. ``--scale`` shrinks the leading dimension (rows, or
elements for flat operators) for a quick run.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import dsl  # noqa: E402
from dsl import Scalar, Tensor, bf16, f16, f32, i8, i32  # noqa: E402

from backends.ascendc.profile import profile  # noqa: E402
from elementwise_report import make_inputs  # noqa: E402

BARS = {"ascend910b": 1.25, "ascend950": 1.10}
SKUS = {"ascend910b": "910B1", "ascend950": None}


@dsl.op(dtypes=(f16, bf16, f32))
def dynamic_row_quant(x: Tensor["R", "C"]):
    scale = dsl.max(dsl.abs(x), axis=-1, keepdims=True) / 127.0
    y = dsl.cast(dsl.round(x / scale), i8)
    return y, scale


@dsl.op(dtypes=(f16, bf16, f32), broadcast=True)
def bcast_bias_gelu(x: Tensor, bias: Tensor):
    h = x + bias
    inner = 0.7978845608028654 * (h + 0.044715 * h * h * h)
    return 0.5 * h * (1.0 + dsl.tanh(inner))


@dsl.op(dtypes=(f16, bf16, f32), broadcast=True)
def column_compare(x: Tensor, threshold: Tensor):
    return x > threshold


def _example(stem: str):
    spec = importlib.util.spec_from_file_location(f"heldout_{stem}", ROOT / "examples" / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, stem)


@dataclass(frozen=True)
class Case:
    name: str
    op: Callable[[], object]
    dtype: object
    inputs: Callable[[np.random.Generator, float], list]
    attrs: dict


def _u(rng, shape, lo=-1.0, hi=1.0, dt=np.float32):
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(dt)


def cases(scale: float) -> tuple[list[Case], int]:
    n = int(16_777_216 * scale) // 512 * 512 or 512
    rows = max(int(8192 * scale), 8)
    c = 4096
    rowmaj = lambda *shapes: lambda rng, dt: [_u(rng, s, dt=dt) for s in shapes]  # noqa: E731
    greater_rows = max(int(40320 * scale), 8)
    return [
        Case("apply_adam_w", lambda: _example("apply_adam_w"), f16, None, {}),
        Case("softplus", lambda: _example("softplus"), f16, None, {}),
        Case("sgd_momentum", lambda: _example("sgd_momentum"), f32, None, {}),
        Case("rms_norm", lambda: _example("rms_norm"), bf16, rowmaj((rows, c), (c,)), {}),
        Case("softmax", lambda: _example("softmax"), f16, rowmaj((rows, c)), {}),
        Case(
            "add_layer_norm",
            lambda: _example("add_layer_norm"),
            bf16,
            rowmaj((rows, c), (rows, c), (c,), (c,)),
            {},
        ),
        Case("dynamic_row_quant", lambda: dynamic_row_quant, f16, rowmaj((rows, c)), {}),
        Case("bcast_bias_gelu", lambda: bcast_bias_gelu, f16, rowmaj((rows, c), (c,)), {}),
        Case("column_compare", lambda: column_compare, f16, rowmaj((rows, c), (rows, 1)), {}),
        Case(
            "greater_c2",
            lambda: _example("greater"),
            i32,
            lambda rng, dt: [
                rng.integers(-1000, 1000, (greater_rows, 1023)).astype(np.int32),
                rng.integers(-1000, 1000, (1, 1023)).astype(np.int32),
            ],
            {},
        ),
    ], n


def run(case: Case, n: int, target: str) -> dict:
    op = case.op()
    rng = np.random.default_rng(0)
    arrays = case.inputs(rng, case.dtype.np) if case.inputs else make_inputs(op, case.dtype, n, {}, rng)
    t0 = time.perf_counter()
    prof = profile(op, arrays, case.attrs, target=target, sku=SKUS[target], l2="cold", dtype=case.dtype)
    core = prof.slowest_core
    return {
        "op": case.name,
        "dtype": case.dtype.name,
        "shape": " x ".join(str(a.shape) for a in arrays if a is not None and a.size > 1),
        "predicted": prof.predicted_us,
        "bound": prof.bound_us,
        "ratio": prof.ratio,
        "limit": prof.limit,
        "busy": core,
        "seconds": time.perf_counter() - t0,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="both", choices=["ascend910b", "ascend950", "both"])
    ap.add_argument("--op", nargs="*")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args(argv)
    targets = ["ascend910b", "ascend950"] if args.target == "both" else [args.target]
    all_cases, n = cases(args.scale)
    chosen = [c for c in all_cases if not args.op or c.name in args.op]
    lines = []
    for target in targets:
        bar = BARS[target]
        lines += [
            f"### {target} (cold L2; bar: predicted / bound <= {bar})",
            "",
            "| op | dtype | shapes | predicted us | bound us | predicted / bound | within bar | limit |",
            "|---|---|---|---|---|---|---|---|",
        ]
        within = 0
        for case in chosen:
            try:
                r = run(case, n, target)
            except Exception as e:  # a refusal is a row of the report, not a crash
                lines.append(
                    f"| {case.name} | {case.dtype.name} | | error: {type(e).__name__}: {str(e).splitlines()[0][:120]} | | | no | |"
                )
                print(lines[-1], flush=True)
                continue
            ok = r["ratio"] <= bar
            within += ok
            shape = r["shape"] or f"({n},)"
            lines.append(
                f"| {r['op']} | {r['dtype']} | {shape} | {r['predicted']:.2f} | {r['bound']:.2f} | "
                f"{r['ratio']:.2f} | {'yes' if ok else 'no'} | {r['limit']} |"
            )
            print(lines[-1], f"({r['seconds']:.0f} s)", flush=True)
        lines += ["", f"{within} of {len(chosen)} within {bar}x.", ""]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
