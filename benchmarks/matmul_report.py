"""The matmul examples under the performance model (issue 22): per example and target, the model's
time, its bound (HBM bytes at the SKU's bandwidth, the cube's MACs at the SKU's rate), the cube
and vector busy time of the slowest block, and the tile the kernel chose.

    python benchmarks/matmul_report.py           # the table of benchmarks/matmul_report.md
    python benchmarks/matmul_report.py --big     # and linear_gelu at [4096, 4096] x [4096, 4096]

* **model**: ``op.profile`` (the emulator's trace replayed by ``backends/ascendc/perf``; a model,
  not a measurement) on the target's reference SKU, every core, warm L2, in its timing-only mode
  (``cube_math=False``: the emulator's Mmads write 0 instead of computing; the same instructions,
  so the same report to the cycle: tests/perf/test_cube_model.py).
* **HBM bound**: the bytes a kernel must move at least (inputs read once, outputs written once)
  over the SKU's HBM bandwidth. **cube bound**: M x N x K MACs over (AICs x clock x the MACs of
  one 16 x 16 x k0 fractal a cycle: 4096 for f16/bf16, 8192 for i8; ``perf/costs.py``
  ``mmad_cycles``, asc-devkit's Cube instruction table).
* **cube busy** / **vector busy**: the slowest block's AIC M pipe (Mmad) and the busier of its
  AIVs' V pipe; the epilogue is hidden when vector busy < cube busy.
* **tile**: BASE_M x BASE_N x BASE_K, STEP_K (the kernel's constants from split-cube-vector and
  the epilogue's UB).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXAMPLES = ("matmul", "linear_gelu", "matmul_add", "matmul_rms_norm", "quant_matmul")
TARGETS = ("ascend910b", "ascend950")


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def inputs(op, m: int, k: int, n: int, rng) -> list[np.ndarray]:
    """Random inputs for an example in the order of its parameters (from their shapes)."""
    func = op.func(op.dtypes[0])
    dims = {"M": m, "K": k, "N": n}
    T = op.dtypes[0]
    out = []
    for p in func.params:
        t = p.value.type
        dt = t.dtype
        if getattr(t, "shape", None) is None:  # a Scalar
            out.append(np.array([0.5], dt.np))
            continue
        shape = tuple(dims.get(d, d) if isinstance(d, str) else d for d in t.shape.dims)
        if dt.name == "i8":
            out.append(rng.integers(-128, 128, shape).astype(np.int8))
        elif dt == T:
            out.append(rng.standard_normal(shape).astype(dt.np))
        else:
            out.append(rng.uniform(0.5, 1.5, shape).astype(dt.np))
    return out


def tile_of(kernel: str) -> str:
    c = {k: int(v) for k, v in re.findall(r"constexpr uint32_t (BASE_[MNK]|STEP_K) = (\d+);", kernel)}
    return f"{c['BASE_M']}x{c['BASE_N']}x{c['BASE_K']}, STEP_K {c['STEP_K']}"


def cube_rate(target: str, operand: str) -> float:
    """MACs a second of the whole chip's cubes (one fractal a cycle per AIC)."""
    from backends.ascendc.perf.constants import get_sku

    sku = get_sku(None, target)
    fractal = 16 * 16 * (32 if operand == "i8" else 16)
    return sku.aic_cores * sku.clock_hz * fractal


def row(op, target: str, m: int, k: int, n: int, out_dir: Path) -> dict:
    from backends.ascendc.perf.constants import get_sku

    rng = np.random.default_rng(0)
    arrays = inputs(op, m, k, n, rng)
    project = op.compile(out_dir=out_dir / target, target=target)
    kernel = (project / "op_kernel" / f"{op.name}.cpp").read_text()
    t0 = time.time()
    p = op.profile(*arrays, target=target, project=project, dtype=op.dtypes[0], cube_math=False)
    wall = time.time() - t0
    sku = get_sku(None, target)
    out_bytes = sum(
        m * n * (4 if op.name == "matmul" else op.dtypes[0].bytes) for _ in op.func(op.dtypes[0]).outputs
    )
    hbm_us = (sum(a.nbytes for a in arrays) + out_bytes) / sku.hbm_bw * 1e6
    operand = arrays[0].dtype.name if arrays[0].dtype == np.int8 else "f16"
    cube_us = m * n * k / cube_rate(target, "i8" if operand == "int8" else "f16") * 1e6
    slow = p.slowest_core
    cores = slow.get("cores", {})
    cube_busy = cores.get("AIC", {}).get("M", 0.0)
    if not cores:  # an AIC-only kernel (identity epilogue): the block's M pipe
        run = next(c for c in p._run.cores if slow["core"] in c.blocks)
        cube_busy = run.timeline.busy.get("M", 0.0) * 1e6
    vec_busy = max((c.get("V", 0.0) for name, c in cores.items() if name.startswith("AIV")), default=0.0)
    return {
        "op": op.name,
        "target": target,
        "shape": f"{m}x{k}x{n}",
        "model_us": p.predicted_us,
        "hbm_us": hbm_us,
        "cube_us": cube_us,
        "cube_busy": cube_busy,
        "vec_busy": vec_busy,
        "tile": tile_of(kernel),
        "blocks": p.block_dim,
        "verdict": p.verdict().split(":")[0],
        "wall_s": wall,
    }


def table(rows: list[dict]) -> str:
    head = (
        "| op | target | M x K x N | model us | HBM bound us | cube bound us | cube busy us | vector busy us "
        "| hidden | tile (BASE_M x BASE_N x BASE_K) | blocks | verdict |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    body = ""
    for r in rows:
        hidden = "-" if r["vec_busy"] == 0 else ("yes" if r["vec_busy"] < r["cube_busy"] else "no")
        body += (
            f"| {r['op']} | {r['target']} | {r['shape']} | {r['model_us']:.2f} | {r['hbm_us']:.2f} | "
            f"{r['cube_us']:.2f} | {r['cube_busy']:.2f} | {r['vec_busy']:.2f} | {hidden} | {r['tile']} | "
            f"{r['blocks']} | {r['verdict']} |\n"
        )
    return head + body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1024, help="M = K = N of the per-example rows")
    ap.add_argument("--big", action="store_true", help="also linear_gelu at 4096^3 on both targets")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXAMPLES:
            op = load(name)
            for target in TARGETS:
                s = args.size
                rows.append(row(op, target, s, s, s, Path(tmp) / name))
                print(table(rows[-1:]).splitlines()[-1], f"({rows[-1]['wall_s']:.0f} s)", flush=True)
        if args.big:
            op = load("linear_gelu")
            for target in TARGETS:
                rows.append(row(op, target, 4096, 4096, 4096, Path(tmp) / "big"))
                print(table(rows[-1:]).splitlines()[-1], f"({rows[-1]['wall_s']:.0f} s)", flush=True)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
