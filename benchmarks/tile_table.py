"""Tile length, UB bytes per element, vector ops and PIPE_V barriers per tile of every example x
dtype x static-attribute variant (910B), before and after: the table of issue 11 ("tile sizes and
vector-op counts per tile are unchanged or better for every example").

    git worktree add --detach /work/wt/style-base f3387a9^1     # "before", with its own venv
    (cd /work/wt/style-base && python3 -m venv .venv && .venv/bin/pip install -q -e .)
    python benchmarks/tile_table.py --before /work/wt/style-base [--markdown benchmarks/tile_table.md]

"after" is this checkout; "before" is collected by running this file with ``--collect`` under the
other checkout's Python (``DIR/.venv/bin/python`` unless ``--before-python``), so the counts come
from the same code on both sides, read from the final tile-level IR. "unscheduled" is this
checkout's pipeline without schedule-vector: the tile the schedule may never shrink. Row operators
size their tile at run time from the row length; their column is "rows".
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve()


def load(root: Path, stem: str):
    spec = importlib.util.spec_from_file_location(f"bench_{stem}", root / "examples" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, stem)


def shape(func) -> dict:
    """Tile, B/element, vector ops and barriers per tile of one final tile-level function. A row
    kernel's B/element counts its row buffers only (bytes per column of one row of a step; the
    resident columns and the per-row values are not per element)."""
    body = list(func.loop().region)
    bufs = func.attributes.get("buffers", {})
    return {
        "tile": func.loop().attrs.get("tile", "rows"),
        "bpe": sum(b["bytes"] * b["slots"] for b in bufs.values() if b.get("kind", "row") == "row"),
        "ops": sum(1 for op in body if not op.opname.startswith(("dma.", "sync."))),
        "barriers": sum(1 for op in body if op.opname == "sync.barrier"),
    }


def key_of(stem: str, func) -> str:
    bind = func.attributes.get("bind", {})
    attrs = ", ".join(f"{k}={v}" for k, v in bind.items()) or "-"
    return f"{stem} | {func.attributes['dtype'].name} | {attrs}"


def collect(root: Path) -> dict:
    """key -> shape for every example of the checkout at ``root`` (imported from there)."""
    sys.path.insert(0, str(root))
    from backends.ascendc.compile import lower
    from dsl.errors import CompileError

    warnings.simplefilter("ignore")
    out = {}
    for path in sorted((root / "examples").glob("*.py")):
        try:
            compiled = lower(load(root, path.stem), "ascend910b")
        except CompileError:  # an example that checkout cannot compile yet: no rows
            continue
        for module in compiled.modules.values():
            for func in module.funcs:
                out[key_of(path.stem, func)] = shape(func)
    return out


def unscheduled(root: Path) -> dict:
    """key -> tile of this checkout's elementwise examples with schedule-vector left out."""
    sys.path.insert(0, str(root))
    from backends.ascendc.host_broadcast import ub_reserve
    from backends.ascendc.targets import get_target
    from dsl.ir import Module
    from passes import PassManager
    from passes.pipelines import elementwise_pipeline
    from passes.rows import row_layout

    warnings.simplefilter("ignore")
    usable = get_target("ascend910b").ub_usable_bytes
    out = {}
    for path in sorted((root / "examples").glob("*.py")):
        op = load(root, path.stem)
        for dt in op.dtypes:
            func = op.func(dt)
            if row_layout(func) is not None:
                continue
            pipeline = elementwise_pipeline(usable - ub_reserve(func))
            module = Module([func])
            PassManager([p for p in pipeline if p.name != "schedule-vector"]).run(module)
            for f in module.funcs:
                out[key_of(path.stem, f)] = f.loop().attrs["tile"]
    return out


def cell(before, after, better_if_larger: bool) -> str:
    if before is None:
        return f"{after} (new)"
    if before == after or not isinstance(after, int):
        return str(after)
    better = (after > before) == better_if_larger
    return f"{before} -> **{after}**" if better else f"{before} -> {after} (worse)"


def table(before: dict, after: dict, plain: dict) -> list[str]:
    lines = [
        "| op | dtype | static attributes | tile | unscheduled tile | B/elem | vector ops/tile | barriers/tile |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, a in after.items():
        b = before.get(key, {})
        lines.append(
            f"| {key} | {cell(b.get('tile'), a['tile'], True)} | {plain.get(key, '-')} | "
            f"{cell(b.get('bpe'), a['bpe'], False)} | {cell(b.get('ops'), a['ops'], False)} | "
            f"{cell(b.get('barriers'), a['barriers'], False)} |"
        )
    gone = [k for k in before if k not in after]
    if gone:
        lines += ["", "Only before: " + "; ".join(gone)]
    return lines


def worse(before: dict, after: dict, plain: dict) -> list[str]:
    """Rows whose tile shrank or whose vector ops grew (against before or the unscheduled order)."""
    bad = []
    for key, a in after.items():
        b = before.get(key)
        if isinstance(a["tile"], int) and key in plain and a["tile"] < plain[key]:
            bad.append(f"{key}: tile {a['tile']} < unscheduled {plain[key]}")
        if b is None:
            continue
        if isinstance(a["tile"], int) and isinstance(b["tile"], int) and a["tile"] < b["tile"]:
            bad.append(f"{key}: tile {b['tile']} -> {a['tile']}")
        if a["ops"] > b["ops"]:
            bad.append(f"{key}: vector ops {b['ops']} -> {a['ops']}")
    return bad


def revision(tree: Path) -> str:
    """The commit checked out at ``tree`` (with "+ changes" when its tracked files differ)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True).stdout.strip()

    rev = git("log", "-1", "--format=%h %s")[:90]
    return f"`{rev}`" + (" + uncommitted changes" if git("status", "--porcelain", "-uno") else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="a checkout of the 'before' commit")
    ap.add_argument("--before-python", type=Path, help="its Python (default DIR/.venv/bin/python)")
    ap.add_argument("--markdown", type=Path, help="write the table to this file")
    ap.add_argument("--collect", type=Path, help=argparse.SUPPRESS)  # internal: print one side as JSON
    args = ap.parse_args(argv)
    if args.collect:
        print(json.dumps(collect(args.collect.resolve())))
        return 0
    root = HERE.parents[1]
    before = {}
    if args.before:
        python = args.before_python or args.before / ".venv" / "bin" / "python"
        run = subprocess.run(
            [str(python), str(HERE), "--collect", str(args.before.resolve())],
            capture_output=True,
            text=True,
            cwd=args.before,
        )
        if run.returncode:
            print(run.stderr, file=sys.stderr)
            return 1
        before = json.loads(run.stdout)
    after = collect(root)
    plain = unscheduled(root)
    lines = [
        "# Tiles, vector ops and barriers per tile: before and after",
        "",
        f"Generated by `python benchmarks/tile_table.py --before DIR` (ascend910b). before: "
        f"{revision(args.before) if args.before else '(none)'}; after: {revision(root)}. "
        "A cell `a -> b` changed from a (before) to b (after), bold when better; `(new)` rows "
        "did not compile before; `unscheduled tile`: after's pipeline without schedule-vector.",
        "",
    ]
    lines += table(before, after, plain)
    bad = worse(before, after, plain)
    lines += ["", "Worse: " + ("; ".join(bad) if bad else "none")]
    text = "\n".join(lines) + "\n"
    if args.markdown:
        args.markdown.write_text(text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
