"""Differential fuzzing report: N random programs through the oracle, the reference and the emulator.

    python benchmarks/fuzz_report.py [--programs 1000] [--start 0] [--family flat] [--target ascend910b] [--out FILE.md] [--jobs 1]

Each program comes from ``tests/e2e/dslfuzz.py`` (seed = its number; ``--family``: flat
elementwise programs, ``bcast`` broadcasting ones, ``rows`` named-dim row programs). Prints, and with --out
writes, the number of programs, how many passed, how many the backend refused (by documented
reason), how many were discarded (i32 arithmetic overflowing on every input draw), the failures
with their seeds and first lines of detail (must be 0), and the wall time.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import dslfuzz  # noqa: E402


def _run(job: tuple[list[int], str]) -> list:
    seeds, family, target = job
    with tempfile.TemporaryDirectory(prefix="dslfuzz-") as tmp:
        return dslfuzz.fuzz(seeds, Path(tmp), family=family, target=target)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--family", choices=dslfuzz.FAMILIES, default="flat", help="program family")
    ap.add_argument("--target", default="ascend910b", help="the target simulate compiles for")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (the machine is shared: 1)")
    ap.add_argument("--out", type=Path, help="write the report (markdown) here")
    ap.add_argument("--seeds", help="comma-separated seeds to run instead of --start/--programs (reruns)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    seeds = list(range(args.start, args.start + args.programs))
    if args.seeds:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    args.seed_list = seeds
    started = time.perf_counter()
    outcomes = []
    chunks = [seeds[i :: args.jobs] for i in range(args.jobs)]
    if args.jobs == 1:
        with tempfile.TemporaryDirectory(prefix="dslfuzz-") as tmp:

            def log(o):
                outcomes.append(o)
                if not args.quiet:
                    done = len(outcomes)
                    print(
                        f"[{done}/{len(seeds)}] seed {o.seed}: {o.status} {o.reason} ({o.seconds:.1f} s)",
                        flush=True,
                    )
                    if o.status == "failed":
                        print(o.detail[:2000] + "\n" + o.source, flush=True)

            dslfuzz.fuzz(seeds, Path(tmp), log, family=args.family, target=args.target)
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            for part in pool.map(_run, [(c, args.family, args.target) for c in chunks]):
                outcomes.extend(part)
    wall = time.perf_counter() - started
    report = render(outcomes, wall, args)
    print(report)
    if args.out:
        args.out.write_text(report)
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def render(outcomes, wall: float, args) -> str:
    by = collections.Counter(o.status for o in outcomes)
    runs = sum(o.runs for o in outcomes)
    exact = sum(1 for o in outcomes if o.exact)
    refused = collections.Counter(o.reason for o in outcomes if o.status == "refused")
    discarded = collections.Counter(o.reason for o in outcomes if o.status == "discarded")
    failed = [o for o in outcomes if o.status == "failed"]
    lines = [
        f"programs: {len(outcomes)} (family {args.family}, target {args.target}, seeds {seed_range(args.seed_list[: len(outcomes)])}; "
        f"{exact} with exact semantics, {len(outcomes) - exact} with exp/log/sqrt/tanh/...)",
        f"passed: {by['ok']} ({runs} simulated runs, one per dtype of each program)",
        f"refused by the backend (documented): {by['refused']}",
    ]
    lines += [f"  - {n} x {reason}" for reason, n in refused.most_common()]
    lines.append(f"discarded: {by['discarded']}")
    lines += [f"  - {n} x {reason}" for reason, n in discarded.most_common()]
    lines.append(f"failures: {len(failed)}")
    groups = collections.defaultdict(list)
    for o in failed:
        groups[signature(o)].append(o.seed)
    for sig, seeds in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(map(str, seeds[:12])) + (", ..." if len(seeds) > 12 else "")
        lines.append(f"  - {len(seeds)} x {sig} (seeds {shown})")
    lines.append(
        f"wall time: {wall:.0f} s ({wall / max(len(outcomes), 1):.2f} s per program, "
        f"{os.cpu_count()} cores, jobs={args.jobs})"
    )
    return "\n".join(lines) + "\n"


def seed_range(seeds: list[int]) -> str:
    contiguous = seeds == list(range(seeds[0], seeds[0] + len(seeds))) if seeds else True
    if contiguous:
        return f"{seeds[0]}..{seeds[-1]}" if seeds else "none"
    return ", ".join(map(str, seeds))


def signature(o) -> str:
    """What a failure is, without the names, numbers and shapes of its program: its reason and
    the first line of its detail that names an error (a compiler, emulator or value message)."""
    if "!=" in o.reason:  # a wrong answer: its shape/dtype or its values
        what = o.detail.split(", output ", 1)[-1]
        return f"{o.reason}: " + ("values differ" if "element" in what else "shapes/dtypes differ")
    lines = o.detail.splitlines()
    first = next(
        (ln for ln in lines if re.search(r"error:|Error|race|fault|uninitialised|null pointer", ln)),
        lines[1] if len(lines) > 1 else (lines[0] if lines else ""),
    )
    first = re.sub(r"\b[fbr]z\d+\b|\b[BR]z\d+\b", "OP", first.strip())
    first = re.sub(r"0x[0-9a-f]+|\d+", "N", first)
    return f"{o.reason}: {first[:150]}"


if __name__ == "__main__":
    raise SystemExit(main())
