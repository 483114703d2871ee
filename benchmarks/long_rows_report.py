"""Column-chunked row kernels (rows too long for one UB step) in the performance model (issue 20
item 6): per case the chunk plan host tiling picks (slots, columns per chunk, chunks per row), the
passes over each row, GM bytes read, and the model's predicted time against its bound (launch + the
copies at full bandwidth) on 910B1, warm L2. Figures are model outputs, not measurements.

    python benchmarks/long_rows_report.py [--root DIR] [--case NAME ...]

``--root`` profiles another checkout's compiler (e.g. main, for a before/after table).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

CASES = {  # name: (example, dtype, shape)
    "softmax_f16_64x65536": ("softmax", "f16", (64, 65536)),
    "layer_norm_bf16_64x65536": ("layer_norm", "bf16", (64, 65536)),
    "rms_norm_f32_64x65536": ("rms_norm", "f32", (64, 65536)),
    "softmax_f32_48x60000": ("softmax", "f32", (48, 60000)),
    "layer_norm_f32_48x20000": ("layer_norm", "f32", (48, 20000)),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--case", nargs="*", default=list(CASES))
    args = ap.parse_args()
    root = Path(args.root)
    sys.path[:0] = [str(root), str(root / "tests" / "e2e")]
    import dsl
    from backends.ascendc.compile import lower
    from backends.ascendc.explain_rows import chunk_plan
    from backends.ascendc.targets import get_target
    from row_cases import BY_NAME

    print(
        "| case | chunks (slots x columns x chunks/row) | MTE2 copies | GM bytes in | predicted us | bound us | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in args.case:
        stem, tname, shape = CASES[name]
        case = BY_NAME[stem]
        t = dsl.dtypes.dtype_from_name(tname)
        attrs = case.attrs[0]
        arrays = case.make(np.random.default_rng(0), t, shape, **attrs)
        plan = lower(case.op, "ascend910b").plan
        twin = plan.row_plans[(t, plan.chunk_key_offset)]
        usable = get_target("ascend910b").ub_usable_bytes
        try:
            from backends.ascendc.explain_rows import chunk_fit

            slots, per, chunks = chunk_fit(twin, shape[-1], usable)
        except ImportError:  # before double-buffered chunks: one slot
            (per, chunks), slots = chunk_plan(twin, shape[-1], usable), 1
        p = case.op.profile(*arrays, target="ascend910b", sku="910B1", l2="warm", **attrs)
        print(
            f"| {name} | {slots} x {per} x {chunks} | {p.dma.get('MTE2')} | {p.bytes['gm_to_ub']} | "
            f"{p.predicted_us:.1f} | {p.bound_us:.1f} | {p.ratio:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
