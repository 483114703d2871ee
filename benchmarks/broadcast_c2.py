"""Seed 003's C2 case on the emulator and the performance model: [40320, 1023] i32 > [1, 1023]
(and the mirror, [1, 1023] > [40320, 1023]) on 910B4 (40 cores). Prints a Markdown table: DMA
copies per direction, bytes, rows per packed block, L2 hints, and the model's time next to the
seed's measured 346 us: with a warm L2 (the model's default) and a flushed one (the L2 full of
a previous kernel's dirty lines, as in the seed's harness, which ran aclnnMul on 64 MiB tensors
before Greater: its section 8). Run: python benchmarks/broadcast_c2.py [ROWS]"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(rows: int = 40320, inner: int = 1023) -> None:
    spec = importlib.util.spec_from_file_location("greater_ex", ROOT / "examples" / "greater.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    greater = mod.greater
    rng = np.random.default_rng(0)
    big = rng.integers(-100, 100, (rows, inner)).astype(np.int32)
    row = rng.integers(-100, 100, (1, inner)).astype(np.int32)
    print(
        "| case | mode | MTE2 copies | MTE3 copies | rows per block | MTE2 bytes | MTE3 bytes | L2 | "
        "slowest core V / MTE2 busy (us) | model warm (us) | model flushed (us) | HBM roofline (us) | "
        "seed 003 (us) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, args in (("C2", (big, row)), ("mirror", (row, big))):
        p = greater.profile(*args, sku="910B4", cores=40)
        flushed = greater.profile(*args, sku="910B4", cores=40, l2="flushed").predicted_us
        blocks = p.dma.get("MTE3", 0)
        hint = p.l2["summary"].split("; ")[-1] if "SetL2CacheHint" in p.l2["summary"] else "-"
        core = p.slowest_core
        print(
            f"| {name} [{rows}, {inner}] i32 | {p.tiling_key} | {p.dma.get('MTE2')} | {blocks} | "
            f"{rows / max(blocks, 1):.1f} | {p.bytes['gm_to_ub']} | {p.bytes['ub_to_gm']} | {hint} | "
            f"{core['V']:.1f} / {core['MTE2']:.1f} | {p.predicted_us:.1f} | {flushed:.1f} | {p.roofline_us:.1f} | "
            "346.17 |"
        )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
