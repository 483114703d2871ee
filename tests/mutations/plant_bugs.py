"""Plant known bugs one at a time in a copy of the tree and report which tests catch each.

    python tests/mutations/plant_bugs.py                 # every bug, the default (fast) suite
    python tests/mutations/plant_bugs.py --only cast-round-on-store --only sub-as-add
    python tests/mutations/plant_bugs.py --tests tests/e2e tests/passes   # a subset (say so!)
    python tests/mutations/plant_bugs.py --list          # the bugs and where they apply, no runs

Never edits this checkout: the tracked and untracked (not ignored) files are copied to a
temporary directory, each bug is applied there in turn (and undone after its run), and
``python -m pytest`` runs there with ``PYTHONPATH`` pointing at the copy (checked: ``import dsl``
must resolve inside it, also for the ``dslc`` console script the tests start). The clean copy is
run first (``--no-baseline`` skips it) so that a failure can be blamed on the bug. Emulator
binaries are cached by a hash of their sources and compiler flags (which include the copy's
path, kept the same for every bug), so a bug rebuilds only the kernels it changes.

Each bug is a list of search/replace edits on code patterns (regular expressions), searched in
a set of files rather than at a line number, so that it survives code movement; an edit whose
pattern matches fewer or more times than it expects stops the script (exit 2) and names the
pattern and the files searched: then the bug's description here needs updating, the tests were
not shown to catch it.

Exit status: 0 when every bug was caught by at least one test, 1 when one was not, 2 on a
pattern that no longer matches or a failing baseline. Not part of the default suite (it is not
a ``test_*.py`` file, and it runs the suite once per bug: about 4-20 minutes each on 2 cores,
depending on how many kernels the bug changes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Where backend code may live (Python emitters and C++ templates of the kernel emitter; the
# emulator under backends/ascendc/sim is not part of any bug).
BACKEND_CODE = ("backends/ascendc/**/*.py", "backends/ascendc/**/*.h", "backends/ascendc/**/*.cpp")
BACKEND_EXCLUDE = ("backends/ascendc/sim/",)


@dataclass(frozen=True)
class Edit:
    """Replace ``pattern`` (a Python regex, MULTILINE) by ``repl`` in the files matching
    ``globs``; the total number of matches must lie in ``[min_count, max_count]``."""

    globs: tuple[str, ...]
    pattern: str
    repl: str
    min_count: int = 1
    max_count: int = 1
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Bug:
    name: str
    what: str
    edits: tuple[Edit, ...]
    note: str = ""


# A blocks count expression of the kernel's core split:
# "tiling.smallBlocks + (core < tiling.tailCores ? 1 : 0)"
_BLOCKS = r"tiling\.smallBlocks \+ \(core < tiling\.tailCores \? 1 : 0\)"

BUGS: tuple[Bug, ...] = (
    Bug(
        "sub-as-add",
        "the kernel emitter emits a vector Sub as Add",
        (Edit(BACKEND_CODE, r'("sub"\s*:\s*)"Sub"', r'\1"Add"', exclude=BACKEND_EXCLUDE),),
    ),
    Bug(
        "last-block-dropped",
        "the last core skips its final block (its slice is one block short)",
        (
            Edit(
                BACKEND_CODE,
                rf"(const uint64_t blocks = )({_BLOCKS});",
                r"\1\2 - (core + 1 == static_cast<uint64_t>(GetBlockNum()) && (\2) > 0 ? 1 : 0);",
                exclude=BACKEND_EXCLUDE,
            ),
        ),
    ),
    Bug(
        "round-half-away",
        "the reference interpreter's dsl.round rounds half away from zero instead of half to even",
        (
            Edit(
                ("dsl/ir/ops.py",),
                r'"round":\s*np\.rint\b',
                '"round": lambda x: np.copysign(np.floor(np.abs(x.astype(np.float64)) + 0.5), x)',
            ),
        ),
    ),
    Bug(
        "cast-round-on-store",
        "f32 -> f16/bf16 casts (every narrowing store) use CAST_ROUND (half away from zero) instead "
        "of CAST_RINT (half to even)",
        (
            # the emitter's cast table: (f32, f16): "CAST_RINT" and (f32, bf16): "CAST_RINT"
            Edit(
                BACKEND_CODE,
                r'(\(f32,\s*b?f16\)\s*:\s*)"CAST_RINT"',
                r'\1"CAST_ROUND"',
                min_count=2,
                max_count=2,
                exclude=BACKEND_EXCLUDE,
            ),
        ),
        note="dsl.round's own f32 -> f32 CAST_RINT is left alone (that is another bug)",
    ),
    Bug(
        "no-reverse-v-mte2",
        "insert-sync no longer emits the reverse V_MTE2 event (the next tile's load may overwrite a "
        "buffer the vector pipe still reads)",
        (
            Edit(
                ("passes/insert_sync.py",),
                r"^(\s*)for (\w+) in sorted\(reverse\):\n",
                r'\g<0>\1    if \2 == "V_MTE2":\n\1        continue\n',
            ),
        ),
    ),
)


# ---------------------------------------------------------------------------------------------


def tree_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.decode()
    return [f for f in out.split("\0") if f and (root / f).is_file()]


def copy_tree(src: Path, dst: Path, files: list[str]) -> None:
    for f in files:
        (dst / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / f, dst / f)


def _files(root: Path, edit: Edit) -> list[Path]:
    found = set()
    for g in edit.globs:
        found.update(p for p in root.glob(g) if p.is_file())
    rel = sorted(p.relative_to(root).as_posix() for p in found)
    return [root / r for r in rel if not any(r.startswith(x) for x in edit.exclude)]


class PatternError(Exception):
    pass


def apply_bug(root: Path, bug: Bug, originals: dict[Path, str] | None = None) -> list[str]:
    """Apply ``bug`` to the tree at ``root``; returns ``file:line`` of every change. The text
    each file had before is recorded in ``originals`` (for ``restore``)."""
    where = []
    originals = {} if originals is None else originals
    for edit in bug.edits:
        files = _files(root, edit)
        rx = re.compile(edit.pattern, re.M)
        hits = [(f, m) for f in files for m in rx.finditer(f.read_text())]
        if not edit.min_count <= len(hits) <= edit.max_count:
            raise PatternError(
                f"{bug.name}: pattern {edit.pattern!r} matched {len(hits)} time(s), expected "
                f"{edit.min_count}..{edit.max_count}; searched {len(files)} file(s): "
                + ", ".join(str(f.relative_to(root)) for f in files[:20])
                + (" ..." if len(files) > 20 else "")
                + "\n  -> the code moved or changed: update this bug's description in "
                "tests/mutations/plant_bugs.py"
            )
        for f in sorted({f for f, _ in hits}):
            text = f.read_text()
            for m in rx.finditer(text):
                where.append(f"{f.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}")
            new = rx.sub(edit.repl, text)
            assert new != text
            originals.setdefault(f, text)
            f.write_text(new)
    return where


def restore(originals: dict[Path, str]) -> None:
    for f, text in originals.items():
        f.write_text(text)


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def check_isolation(root: Path) -> None:
    """``import dsl`` (in Python and in the dslc console script's interpreter) is the copy's."""
    code = "import dsl, passes, backends; print(dsl.__file__, passes.__file__, backends.__file__)"
    r = subprocess.run([sys.executable, "-c", code], cwd=root, env=_env(root), capture_output=True, text=True)
    paths = r.stdout.split()
    if (
        r.returncode
        or len(paths) != 3
        or not all(Path(p).resolve().is_relative_to(root.resolve()) for p in paths)
    ):
        raise SystemExit(
            f"plant_bugs: the copy at {root} does not shadow the installed dslc: {r.stdout}{r.stderr}"
        )


@dataclass
class Run:
    seconds: float
    status: int
    failed: list[str] = field(default_factory=list)
    summary: str = ""


def run_suite(root: Path, tests: list[str], extra: list[str], log: Path, timeout: float) -> Run:
    junit = log.with_suffix(".xml")
    # tests/mutations checks these bug descriptions against the code: a planted bug fails it by
    # construction, which says nothing about the suite catching the bug
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"]
    cmd += ["--ignore=tests/mutations", *extra, *tests]
    t0 = time.monotonic()
    with open(log, "w") as fh:
        p = subprocess.run(
            cmd, cwd=root, env=_env(root), stdout=fh, stderr=subprocess.STDOUT, timeout=timeout
        )
    seconds = time.monotonic() - t0
    failed = []
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                cls = case.get("classname", "").replace(".", "/")
                failed.append(f"{cls}.py::{case.get('name')}")
    tail = log.read_text().strip().splitlines()
    return Run(seconds, p.returncode, failed, tail[-1] if tail else "")


def _group(failed: list[str]) -> list[str]:
    """Parametrized ids folded per test function: ``file::test (n cases)``."""
    counts: dict[str, int] = {}
    for f in failed:
        counts[f.split("[", 1)[0]] = counts.get(f.split("[", 1)[0], 0) + 1
    return [f"{k} ({n})" if n > 1 else k for k, n in counts.items()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", choices=[b.name for b in BUGS], help="plant only these bugs")
    ap.add_argument("--tests", nargs="+", default=[], help="pytest paths/ids (default: the whole suite)")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments, e.g. '-k elementwise'")
    ap.add_argument("--no-baseline", action="store_true", help="skip the run of the unmodified copy")
    ap.add_argument(
        "--list", action="store_true", help="apply each bug to the copy, print where, run nothing"
    )
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees and logs")
    ap.add_argument("--json", type=Path, help="also write the report as JSON")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per suite run")
    args = ap.parse_args(argv)

    bugs = [b for b in BUGS if not args.only or b.name in args.only]
    extra = args.pytest_args.split()
    work = Path(tempfile.mkdtemp(prefix="dslc-plant-bugs-"))
    files = tree_files(ROOT)
    base = work / "tree"
    copy_tree(ROOT, base, files)
    suite = " ".join(args.tests + extra) or "the default suite (python -m pytest)"
    print(f"plant_bugs: {len(files)} files copied to {base}; suite: {suite}", flush=True)
    report: dict = {"suite": suite, "bugs": {}}
    status = 0
    try:
        check_isolation(base)
        if not args.list and not args.no_baseline:
            r = run_suite(base, args.tests, extra, work / "baseline.log", args.timeout)
            report["baseline"] = {"seconds": round(r.seconds), "failed": r.failed, "summary": r.summary}
            print(f"baseline: {r.summary} ({r.seconds:.0f} s)", flush=True)
            if r.status != 0:
                print("plant_bugs: the unmodified copy fails; fix that first:\n  " + "\n  ".join(r.failed))
                return 2
        for bug in bugs:
            originals: dict[Path, str] = {}
            try:
                try:
                    where = apply_bug(base, bug, originals)
                except PatternError as e:
                    print(f"\n{e}", flush=True)
                    report["bugs"][bug.name] = {"error": str(e)}
                    status = 2
                    continue
                print(f"\n{bug.name}: {bug.what}\n  planted at {', '.join(where)}", flush=True)
                entry = {"what": bug.what, "planted_at": where}
                if args.keep:
                    for f in originals:
                        shutil.copy2(f, work / f"{bug.name}.{f.name}")
                if not args.list:
                    r = run_suite(base, args.tests, extra, work / f"{bug.name}.log", args.timeout)
                    entry.update(seconds=round(r.seconds), caught_by=r.failed, summary=r.summary)
                    if r.failed:
                        print(f"  CAUGHT by {len(r.failed)} test(s) ({r.summary}, {r.seconds:.0f} s):")
                        for line in _group(r.failed):
                            print(f"    {line}")
                    else:
                        print(f"  NOT CAUGHT ({r.summary}, {r.seconds:.0f} s)")
                        status = max(status, 1)
                report["bugs"][bug.name] = entry
            finally:
                restore(originals)
    finally:
        if args.json:
            args.json.write_text(json.dumps(report, indent=2) + "\n")
        if args.keep:
            print(f"\ntrees and logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
