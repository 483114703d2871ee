"""Generated projects follow the umask (directories 0777 & ~umask, files 0666 & ~umask), like
files any other tool writes; replacing a project is atomic."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dsl.cli import main

ROOT = Path(__file__).resolve().parents[2]
SILU = ROOT / "examples" / "silu.py"


@pytest.fixture
def umask():
    old = os.umask(0o022)
    os.umask(old)

    def set_(mask: int) -> None:
        os.umask(mask)

    yield set_
    os.umask(old)


def modes(root: Path) -> dict[str, set[int]]:
    found = {"dirs": set(), "files": set()}
    for p in [root, *root.rglob("*")]:
        found["dirs" if p.is_dir() else "files"].add(stat.S_IMODE(p.stat().st_mode))
    return found


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_project_modes_follow_the_umask(tmp_path, umask, mask, capsys):
    umask(mask)
    code = main(["compile", str(SILU), "-o", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    found = modes(tmp_path / "out" / "silu")
    assert found == {"dirs": {0o777 & ~mask}, "files": {0o666 & ~mask}}


def test_profile_trace_follows_the_umask(tmp_path, umask, capsys):
    umask(0o027)
    trace = tmp_path / "t.json"
    assert main(["profile", str(SILU), "--shape", "64", "--trace", str(trace)]) == 0
    assert stat.S_IMODE(trace.stat().st_mode) == 0o640


def test_recompiling_replaces_the_project_whole(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compile", str(SILU), "-o", str(out)]) == 0
    stale = out / "silu" / "op_host" / "stale.txt"
    stale.write_text("from an earlier compile")
    assert main(["compile", str(SILU), "-o", str(out)]) == 0
    assert not stale.exists()
    assert sorted(p.name for p in out.iterdir()) == ["silu"]  # no temporaries or old copies left
