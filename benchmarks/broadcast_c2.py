"""Seed 003's C2 case on the emulator and the performance model: [40320, 1023] i32 > [1, 1023]
(and the mirror, [1, 1023] > [40320, 1023]) on 910B4 (40 cores). Prints a Markdown table: DMA
copies per direction, bytes, rows per packed block, L2 hints, and the model's time next to the
seed's measured 346 us: with a warm L2 (the model's default) and a flushed one (the L2 full of
a previous kernel's dirty lines, as in the seed's harness, which ran aclnnMul on 64 MiB tensors
before Greater: its section 8).

Then two more tables: seed 003's double-buffering guard (rows of 511 vs 1023 in a RESIDENT
mode, one ping-pong slot vs two, the model's time next to the seed's measurement), and SCALAR
mode (a size-1 input) with the vector-scalar twin vs the per-tile splat: V instructions per tile
(emulator) and the model's time. Run: python benchmarks/broadcast_c2.py [ROWS] [c2|guard|scalar]"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def _edited(project: Path, out: Path, pattern: str, repl: str) -> Path:
    """A copy of a generated project with one host line changed (a policy switched off)."""
    shutil.copytree(project, out)
    host = next((out / "op_host").glob("*.cpp"))
    text, n = re.subn(pattern, repl, host.read_text())
    assert n == 1, pattern
    host.write_text(text)
    return out


def c2(rows: int = 40320, inner: int = 1023) -> None:
    greater = _load(ROOT / "examples" / "greater.py", "greater")
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


def guard(rows: int = 40320) -> None:
    """Seed 003's guard: RESIDENT rows shorter than 964 elements run with one slot. The same
    generated project with the guard switched off (two slots always) is the comparison."""
    from backends.ascendc.simulate import simulate

    greater = _load(ROOT / "examples" / "greater.py", "greater")
    tmp = Path(tempfile.mkdtemp(prefix="bench_guard_"))
    project = greater.compile(out_dir=tmp / "guard")
    two = _edited(project, tmp / "two", r"BC_PIPELINE_MAX_PACK =\s*16;", "BC_PIPELINE_MAX_PACK = 1000000;")
    rng = np.random.default_rng(0)
    print(
        "| case | slots | MTE2 / MTE3 copies | flags set | model warm (us) | model flushed (us) | seed 003 (us) |"
    )
    print("|---|---|---|---|---|---|---|")
    # Seed 003 section 4 (rows of 511; its text gives no row count) and its final C2 time.
    seed = {
        511: {1: "309 (one slot)", 2: "371 (two slots)"},
        1023: {1: "-", 2: "346.17 (final, two slots)"},
    }
    for inner in (511, 1023):
        big = rng.integers(-100, 100, (rows, inner)).astype(np.int32)
        row = rng.integers(-100, 100, (1, inner)).astype(np.int32)
        for proj in (project, two):
            y, res = simulate(greater, (big, row), {}, cores=40, project=proj)
            assert np.array_equal(y, big > row)
            flags = sum(res.counters[p]["set_flags"] for p in ("V", "MTE2", "MTE3"))
            warm = greater.profile(big, row, sku="910B4", cores=40, project=proj)
            flushed = greater.profile(big, row, sku="910B4", cores=40, project=proj, l2="flushed")
            slots = 2 if proj is two or inner >= 964 else 1
            print(
                f"| [{rows}, {inner}] i32 > [1, {inner}] | {slots}{' (guard)' if proj is project else ''} | "
                f"{warm.dma.get('MTE2')} / {warm.dma.get('MTE3')} | {flags} | {warm.predicted_us:.1f} | "
                f"{flushed.predicted_us:.1f} | {seed[inner][slots]} |"
            )
    shutil.rmtree(tmp)


SCALAR_OPS = """
import dsl
from dsl import Tensor, f16, f32, bf16, i32


@dsl.op(dtypes=(f16, f32, bf16, i32), broadcast=True)
def shift(x: Tensor, s: Tensor):
    return x - s


@dsl.op(dtypes=(f16, f32, bf16), broadcast=True)
def ratio(x: Tensor, s: Tensor):
    return x / s
"""


def scalar(n: int = 1 << 24) -> None:
    """A size-1 input: the SCALAR twin (vector-scalar instructions, the value read once per core)
    against the same project with the twin switched off (Duplicate into every tile)."""
    from backends.ascendc.simulate import simulate

    tmp = Path(tempfile.mkdtemp(prefix="bench_scalar_"))
    src = tmp / "scalar_bench.py"
    src.write_text(SCALAR_OPS)
    greater = _load(ROOT / "examples" / "greater.py", "greater")
    ops = [(greater, "f32", np.float32), (greater, "f16", np.float16)]
    ops += [(_load(src, "shift"), "f32", np.float32), (_load(src, "shift"), "i32", np.int32)]
    ops += [(_load(src, "ratio"), "f32", np.float32)]
    rng = np.random.default_rng(0)
    print("| op | dtype | form | tiling key | V instructions per tile | tiles | model warm (us) |")
    print("|---|---|---|---|---|---|---|")
    for op, tname, dt in ops:
        project = op.compile(out_dir=tmp / op.name)
        splat = tmp / f"{op.name}_splat"
        if not splat.exists():
            _edited(project, splat, r"if \(mode == MODE_SCALAR\) \{", "if (false) {")
        x = rng.integers(1, 9, (n,)).astype(dt)
        s = np.array([3], dtype=dt)
        for form, proj in (("twin", project), ("splat", splat)):
            y, res = simulate(op, (x, s), {}, cores=40, project=proj)
            assert np.array_equal(y, op.reference(x, s))
            tiles = res.counters["MTE3"]["dma"]
            p = op.profile(x, s, sku="910B4", cores=40, project=proj)
            print(
                f"| {op.name} [{n}] vs [1] | {tname} | {form} | {res.tiling_key} | "
                f"{res.counters['V']['instructions'] / tiles:.2f} | {tiles} | {p.predicted_us:.1f} |"
            )
    shutil.rmtree(tmp)


if __name__ == "__main__":
    args = sys.argv[1:]
    which = [a for a in args if not a.isdigit()] or ["c2", "guard", "scalar"]
    numbers = [int(a) for a in args if a.isdigit()]
    for name in which:
        {"c2": c2, "guard": guard, "scalar": scalar}[name](*numbers[:1])
        print()
