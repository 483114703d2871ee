"""What keeps `dslc compile` fast without changing what it writes: heavy modules are imported only
when needed, clang-format runs as its binary (not the wheel's Python wrapper), and formatter output
is remembered by content, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends.ascendc import formatted

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_clang_format_runs_once_per_text_and_gives_the_same_bytes(fresh_cache, tmp_path, monkeypatch):
    src = "int  main( ){return 0;}\n"
    a, b = tmp_path / "a.cpp", tmp_path / "b.cpp"
    a.write_text(src)
    formatted.clang_format([a])
    first = a.read_bytes()
    assert first != src.encode() and first.startswith(b"int main() {")
    runs = []
    real_run = subprocess.run
    monkeypatch.setattr(formatted.subprocess, "run", lambda *a, **k: runs.append(a) or real_run(*a, **k))
    b.write_text(src)
    formatted.clang_format([b])
    assert b.read_bytes() == first and runs == []  # remembered: no clang-format run
    b.write_text(src.replace("0", "1"))
    formatted.clang_format([b])
    assert len(runs) == 1  # a new text is formatted


def test_clang_format_binary_is_not_the_python_wrapper():
    exe = Path(formatted.clang_format_binary())
    assert not exe.read_bytes()[:2] == b"#!"  # the wheel's bin/clang-format is a Python script


def test_black_output_is_remembered(fresh_cache, monkeypatch):
    import black

    text = "x = [1,\n 2]\ndef f( a ):\n  return a\n"
    want = black.format_str(text, mode=black.Mode(line_length=110))
    assert formatted.black_format(text) == want
    monkeypatch.setattr(black, "format_str", lambda *a, **k: pytest.fail("black ran again"))
    assert formatted.black_format(text) == want


def test_compile_imports_no_black_lark_or_ml_dtypes_when_formats_are_known(fresh_cache, tmp_path):
    code = (
        "import sys, json; from dsl.cli import main; "
        "code = main(['compile', sys.argv[1], '-o', sys.argv[2]]); "
        "print(json.dumps([code, sorted(m for m in ('black', 'lark', 'ml_dtypes') if m in sys.modules)]))"
    )
    env = {**os.environ, "DSLC_CACHE": str(fresh_cache)}
    outs = []
    for out in ("first", "second"):
        r = subprocess.run(
            [sys.executable, "-c", code, str(ROOT / "examples" / "apply_adam_w.py"), str(tmp_path / out)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        outs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert outs[0] == [0, ["black"]]  # the golden script is formatted once...
    assert outs[1] == [0, []]  # ...and remembered; lark and ml_dtypes are never needed
    for f in (tmp_path / "first").rglob("*"):
        if f.is_file():
            assert f.read_bytes() == (tmp_path / "second" / f.relative_to(tmp_path / "first")).read_bytes()
