"""The performance model's report on dslc's examples, and its calibration against Huawei's
published measurements (perf-constants.md section 6). Figures are model outputs, not measurements.

Per example x dtype (default static attributes, N random elements per tensor, 910B1): the tile and
UB the kernel uses, the vector ops and PipeBarriers per tile of core 0, the predicted time with a
warm and a cold L2, the HBM roofline (all GM bytes at HBM bandwidth), the bound (launch + the
copies at full bandwidth where the L2 plan sends them) and predicted/bound (cold). Then each
calibration point: published, predicted, error. Then dslc's own AcosGrad
(benchmarks/acos_grad_dsl.py) beside the hand-written structure of C18.

Usage::

    python benchmarks/perf_report.py [--size N] [--sku 910B1] [--op NAME ...] [--no-calibration]
        [--markdown benchmarks/perf_report.md]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from elementwise_report import STEMS, load_op, make_inputs  # noqa: E402

from backends.ascendc.explain import ledger  # noqa: E402
from backends.ascendc.perf.calibration import LATER, POINTS  # noqa: E402
from backends.ascendc.profile import report  # noqa: E402
from backends.ascendc.sim.trace import BARRIER, OP, PIPE_MTE2, PIPE_V  # noqa: E402
from backends.ascendc.simulate import simulate  # noqa: E402


def per_tile(trace) -> tuple[int, float, float]:
    """(tiles, vector ops per tile, PipeBarriers per tile) of block 0: a tile is one copy-in of
    the first tensor the kernel loads."""
    recs = trace.block(0)
    loads = recs[(recs["pipe"] == PIPE_MTE2) & (recs["kind"] == OP) & (recs["bytes"] > 0)]
    if not len(loads):
        return 0, 0.0, 0.0
    tiles = int((loads["gm"] == loads["gm"][0]).sum())
    vec = int(((recs["pipe"] == PIPE_V) & (recs["kind"] == OP)).sum())
    bars = int(((recs["pipe"] == PIPE_V) & (recs["kind"] == BARRIER)).sum())
    return tiles, vec / tiles, bars / tiles


def profile_example(op, t, n: int, sku: str) -> dict:
    rng = np.random.default_rng(0)
    arrays = make_inputs(op, t, n, {}, rng)
    t0 = time.perf_counter()
    _, result = simulate(op, arrays, {}, trace=True)
    warm = report(result, "ascend910b", sku, "warm")
    cold = report(result, "ascend910b", sku, "cold")
    led = ledger(op, t, "ascend910b")
    tiles, vec, bars = per_tile(result.trace)
    return {
        "op": op.name,
        "dtype": t.name,
        "tile": int(led.tile_elems),
        "ub": f"{int(led.ub_used_bytes):,} / {int(led.ub_usable_bytes):,}",
        "tiles": tiles,
        "vec": vec,
        "bars": bars,
        "warm": warm.predicted_us,
        "cold": cold.predicted_us,
        "roofline": cold.roofline_us,
        "bound": cold.bound_us,
        "ratio": cold.ratio,
        "blocks": warm.block_dim,
        "seconds": time.perf_counter() - t0,
    }


def example_table(rows: list[dict], n: int, sku: str) -> list[str]:
    out = [
        f"### dslc examples: {n:,} elements per tensor, {sku}, default attributes",
        "",
        "| op | dtype | tile | UB used / usable (B) | tiles/core | vector ops / tile | barriers / tile "
        "| predicted us (warm L2) | predicted us (cold L2) | HBM roofline us | bound us (cold) | predicted / bound "
        "(cold) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['op']} | {r['dtype']} | {r['tile']} | {r['ub']} | {r['tiles']} | {r['vec']:.0f} | {r['bars']:.0f} "
            f"| {r['warm']:.2f} | {r['cold']:.2f} | {r['roofline']:.2f} | {r['bound']:.2f} | {r['ratio']:.2f} |"
        )
    return out


def calibration_table() -> list[str]:
    out = [
        "### Calibration (perf-constants.md section 6)",
        "",
        "| point | chip | kernel | published us | predicted us | error |",
        "|---|---|---|---|---|---|",
    ]
    for p in POINTS:
        t0 = time.perf_counter()
        pred = p.run().predicted_us
        print(f"  {p.id}: {pred:.2f} us ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
        out.append(
            f"| {p.id} | {p.chip} | {p.what} | {p.published_us:g} | {pred:.2f} | {pred / p.published_us - 1:+.1%} |"
        )
    out += ["", "Not reproduced yet:", ""]
    out += [f"* {k}: {v}" for k, v in LATER.items()]
    return out


def acos_grad_table(sku: str) -> list[str]:
    """dslc's AcosGrad (the DSL formula, dslc's tiling) beside C18's published kernel."""
    import ml_dtypes

    spec = importlib.util.spec_from_file_location("acos_grad_dsl", ROOT / "benchmarks" / "acos_grad_dsl.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    published = {p.id.split()[-1]: p for p in POINTS if p.id.startswith("C18")}
    out = [
        "### AcosGrad 1024 x 1024: dslc's kernel vs the hand-written one (C18)",
        "",
        "| dtype | published us (hand-written) | model, hand-written structure | model, dslc's kernel | dslc vector ops"
        " / tile | dslc barriers / tile |",
        "|---|---|---|---|---|---|",
    ]
    for name, dt in (("f32", np.float32), ("f16", np.float16), ("bf16", ml_dtypes.bfloat16)):
        rng = np.random.default_rng(0)
        y = rng.uniform(-0.9, 0.9, 1 << 20).astype(dt)
        dy = rng.uniform(-1, 1, 1 << 20).astype(dt)
        _, result = simulate(mod.acos_grad, [y, dy], {}, trace=True)
        dslc = report(result, "ascend910b", sku, "warm")
        _, vec, bars = per_tile(result.trace)
        hand = published[name].run().predicted_us
        out.append(
            f"| {name} | {published[name].published_us} | {hand:.2f} | {dslc.predicted_us:.2f} | {vec:.0f} | {bars:.0f} |"
        )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1 << 22, help="elements per tensor (default 4194304)")
    ap.add_argument("--sku", default="910B1")
    ap.add_argument("--op", action="append", help="only these examples")
    ap.add_argument("--no-calibration", action="store_true")
    ap.add_argument("--markdown", type=Path, help="write the tables to this file")
    args = ap.parse_args(argv)
    rows = []
    for stem in STEMS:
        if args.op and stem not in args.op:
            continue
        op = load_op(stem)
        for t in op.dtypes:
            row = profile_example(op, t, args.size, args.sku)
            print(
                f"  {row['op']} {row['dtype']}: {row['warm']:.2f} us ({row['seconds']:.1f} s)",
                file=sys.stderr,
            )
            rows.append(row)
    lines = ["_Model outputs (a discrete-event replay of the emulator's trace), not measurements._", ""]
    lines += example_table(rows, args.size, args.sku)
    if not args.no_calibration:
        lines += [""] + calibration_table() + [""] + acos_grad_table(args.sku)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
