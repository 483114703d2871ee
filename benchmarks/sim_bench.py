"""Emulator throughput: a 7-stream AdamW-shaped f32 kernel (benchmarks/sim_adamw) with race
detection on and off. Reported, not asserted. Run: ``python benchmarks/sim_bench.py [N]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backends.ascendc.sim import simulate_project  # noqa: E402
from backends.ascendc.targets import TARGETS  # noqa: E402

PROJECT = Path(__file__).resolve().parent / "sim_adamw"
LR, B1, B2, WD, EPS, B1P, B2P = 1e-3, 0.9, 0.999, 0.01, 1e-8, 0.9**10, 0.999**10


def reference(var, m, v, g):
    f = np.float32
    m2 = m * f(B1) + g * f(1 - f(B1))
    v2 = v * f(B2) + (g * g) * f(1 - f(B2))
    step = f(-f(LR) / (f(1) - f(B1P)))
    denom = np.sqrt(v2 * f(f(1) / (f(1) - f(B2P)))) + f(EPS)
    var2 = var * f(f(1) - f(LR) * f(WD)) + (m2 * step) / denom
    return var2, m2, v2


def run(n: int, blocks: int, race: bool, repeats: int = 3):
    rng = np.random.default_rng(0)
    var, m, g = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    v = rng.random(n).astype(np.float32)
    best_wall = best_kernel = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = simulate_project(
            PROJECT,
            "sim_adamw",
            inputs=[var, m, v, g],
            outputs=[((n,), np.float32)] * 3,
            attrs=[LR, B1, B2, WD, EPS, B1P, B2P, blocks],
            target=TARGETS["ascend910b"],
            race_detection=race,
        )
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_kernel = min(best_kernel, res.counters["kernel_seconds"])
    exact = all(np.array_equal(a, b) for a, b in zip(res.outputs, reference(var, m, v, g)))
    return best_wall, best_kernel, exact


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    blocks = 32
    run(4096 * blocks, blocks, True, repeats=1)  # compile (cached by content hash)
    print(f"7-stream AdamW-shaped f32 kernel, {n} elements, {blocks} blocks, 4096-element tiles")
    print(
        f"{'race detection':>15} {'wall s':>8} {'kernel s':>9} {'Melem/s (wall)':>15} {'Melem/s (kernel)':>17} exact"
    )
    for race in (True, False):
        wall, kern, exact = run(n, blocks, race)
        print(
            f"{'on' if race else 'off':>15} {wall:8.3f} {kern:9.3f} {n / wall / 1e6:15.1f} {n / kern / 1e6:17.1f} {exact}"
        )


if __name__ == "__main__":
    main()
