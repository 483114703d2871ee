"""Per example, dtype and tiling key: tile length, vector ops, barriers and flags per tile (from the
final tile-level IR), plus the generated kernel's line count. Prints a markdown table.

    python benchmarks/kernel_shape_report.py [--markdown]

The counts come from the IR every emitter prints, so the same script compares two versions of
the backend (e.g. before and after an emitter rewrite): tile and op counts must not regress.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def load(stem: str):
    spec = importlib.util.spec_from_file_location(f"bench_{stem}", ROOT / "examples" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, stem)


def counts(func) -> tuple[int, int, int, int]:
    loop = func.loop()
    ops = [op for op in loop.region]
    vector = sum(
        1 for op in ops if not op.opname.startswith(("dma.", "sync.")) and op.opname not in ("loop.tiles",)
    )
    barriers = sum(1 for op in ops if op.opname == "sync.barrier")
    flags = sum(1 for op in ops if op.opname in ("sync.set", "sync.wait"))
    return loop.attrs.get("tile", "rows"), vector, barriers, flags  # rows: sized at run time


def main() -> None:
    from backends.ascendc.compile import lower

    warnings.simplefilter("ignore")
    rows = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        op = load(path.stem)
        compiled = lower(op, "ascend910b")
        kernel = next(text for rel, text in compiled.files.items() if rel.startswith("op_kernel/"))
        for dt, module in compiled.modules.items():
            for func in module.funcs:
                bind = func.attributes.get("bind", {})
                attrs = ", ".join(f"{k}={v}" for k, v in bind.items()) or "-"
                tile, vec, bar, flags = counts(func)
                rows.append((path.stem, dt.name, attrs, tile, vec, bar, flags))
        rows.append((path.stem, "", "kernel lines", len(kernel.splitlines()), "", "", ""))
    print("| op | dtype | static attributes | tile | vector ops/tile | barriers/tile | flags/tile |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")


if __name__ == "__main__":
    main()
