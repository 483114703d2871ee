"""plant_bugs.py's bug descriptions still apply to the code (cheap: edits a copy of the few files
involved, runs no suite), and a pattern that no longer matches stops it loudly."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _load():
    name = "dslc_plant_bugs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "plant_bugs.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


P = _load()


def _copy_code(tmp_path: Path) -> Path:
    for top in ("backends", "dsl", "passes"):
        shutil.copytree(P.ROOT / top, tmp_path / top, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_the_five_bugs_are_described():
    assert [b.name for b in P.BUGS] == [
        "sub-as-add",
        "last-block-dropped",
        "round-half-away",
        "cast-round-on-store",
        "no-reverse-v-mte2",
    ]


@pytest.mark.parametrize("bug", P.BUGS, ids=[b.name for b in P.BUGS])
def test_each_bug_still_applies_and_is_undone(bug, tmp_path):
    root = _copy_code(tmp_path)
    before = {p: p.read_text() for p in root.rglob("*.py")}
    originals: dict[Path, str] = {}
    where = P.apply_bug(root, bug, originals)
    assert where and originals
    changed = {p for p in root.rglob("*.py") if p.read_text() != before[p]}
    assert changed == set(originals)
    for p in changed:
        compile(p.read_text(), str(p), "exec")  # the mutant is still Python
    P.restore(originals)
    assert all(p.read_text() == text for p, text in before.items())


def test_a_pattern_that_moved_stops_the_script(tmp_path):
    root = _copy_code(tmp_path)
    kernel = root / "backends" / "ascendc" / "kernel" / "api.py"
    kernel.write_text(kernel.read_text().replace('"sub": "Sub"', '"sub": SUB_NAME'))
    with pytest.raises(P.PatternError, match=r"sub-as-add: pattern .* matched 0 time\(s\), expected 1\.\.1"):
        P.apply_bug(root, P.BUGS[0])
