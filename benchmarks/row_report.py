"""Row operators (issue 7): rows per UB step and DMA copies per MB moved, on both targets.

    python benchmarks/row_report.py [--markdown FILE]

For every row example (its first dtype, first static-attribute combination, plus bf16
QuantizeAddLayerNorm, seed 002's case) it runs the generated project on the emulator for
[480, 4096] on 48 cores (10 rows per core, several steps) and [8, 131072] (one row does not fit:
the column-chunked kernel) and reports what host tiling chose (slots and rows per step, or
colsPerLoop and chunks per row, from the plan coefficients the kernel's host code evaluates) and
the emulator's DMA counts: copies (MTE2 + MTE3) per MB moved (bytes in + out). The seed's
[8192, 4096] bf16 QuantizeAddLayerNorm rows per step come from the same plan (the seed: 2 on the
950). Figures, never asserted (tests/e2e/test_row_tiling_numbers.py checks the model).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "e2e")]

from backends.ascendc.compile import lower  # noqa: E402
from backends.ascendc.explain_rows import chunk_plan, row_step  # noqa: E402
from backends.ascendc.simulate import simulate  # noqa: E402
from backends.ascendc.targets import get_target  # noqa: E402
from dsl.dtypes import dtype_from_name  # noqa: E402

TARGETS = ("ascend910b", "ascend950")
SHAPES = ((480, 4096), (8, 131072))
CORES = 48


def load_cases():
    spec = importlib.util.spec_from_file_location("row_cases", ROOT / "tests" / "e2e" / "row_cases.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["row_cases"] = mod
    spec.loader.exec_module(mod)
    return mod.CASES


def plan_of(op, target: str, t, attrs: dict) -> tuple[dict, int]:
    plan = lower(op, target).plan
    key = next(
        v.key for v in plan.variants if v.dtype == t and all(v.bind.get(k, a) == a for k, a in attrs.items())
    )
    return plan.row_plans, key


def tiling(row_plans: dict, key: int, t, cols: int, rows_per_core: int, target: str) -> str:
    usable = get_target(target).ub_usable_bytes
    slots, step = row_step(row_plans[(t, key)], cols, usable, rows_per_core)
    if step:
        return f"{step} rows/step ({slots} slot{'s' if slots > 1 else ''})"
    per_loop, chunks = chunk_plan(row_plans[(t, key)], cols, usable)
    return f"chunks of {per_loop} x {chunks}"


def measure(case, t, shape, target: str) -> dict:
    attrs = case.attrs[0]
    args = case.make(np.random.default_rng(0), t, shape, **attrs)
    _, result = simulate(case.op, args, attrs, target=target, cores=CORES, strict=True)
    c = result.counters
    copies = c["MTE2"]["dma"] + c["MTE3"]["dma"]
    moved = c["MTE2"]["bytes_in"] + c["MTE3"]["bytes_out"]
    row_plans, key = plan_of(case.op, target, t, attrs)
    rows_per_core = math.ceil(shape[0] / result.block_dim)
    return {
        "tiling": tiling(row_plans, key, t, shape[1], rows_per_core, target),
        "copies": copies,
        "mb": moved / 2**20,
        "per_mb": copies / (moved / 2**20),
    }


def seed_case() -> dict:
    """Rows per step of [8192, 4096] bf16 QuantizeAddLayerNorm (per-channel, no extra output)."""
    case = next(c for c in load_cases() if c.name == "quantize_add_layer_norm")
    bf16 = dtype_from_name("bf16")
    out = {}
    for target in TARGETS:
        row_plans, key = plan_of(case.op, target, bf16, case.attrs[0])
        cores = get_target(target).aiv_cores
        out[target] = tiling(row_plans, key, bf16, 4096, math.ceil(8192 / cores), target)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", type=Path, help="write the table here")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    lines = [
        "| op | dtype | shape | target | host tiling | DMA copies | MB moved | copies per MB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    cases = load_cases()
    picks = [(c, c.op.dtypes[0]) for c in cases]
    picks.append((next(c for c in cases if c.name == "quantize_add_layer_norm"), dtype_from_name("bf16")))
    for case, t in picks:
        for shape in SHAPES:
            for target in TARGETS:
                m = measure(case, t, shape, target)
                lines.append(
                    f"| {case.name} | {t.name} | {shape[0]} x {shape[1]} | {target} | {m['tiling']} | "
                    f"{m['copies']} | {m['mb']:.2f} | {m['per_mb']:.1f} |"
                )
                print(lines[-1], flush=True)
    seed = seed_case()
    lines += [
        "",
        "Seed 002's [8192, 4096] bf16 QuantizeAddLayerNorm (per-channel scales, no extra output): "
        + ", ".join(f"{t}: {s}" for t, s in seed.items())
        + " (the seed: 2 rows per step on the 950).",
    ]
    print(lines[-1])
    if args.markdown:
        args.markdown.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
