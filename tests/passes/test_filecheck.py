"""Runs every ``*.ir`` file under tests/passes: its ``// RUN:`` line, piped into filecheck.

Cases in one file are separated by ``// -----``; each case is run on its own.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dsl.cli import main as dslc_main

HERE = Path(__file__).parent
CASES = sorted(HERE.rglob("*.ir"))


def _split(text: str) -> list[str]:
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if c.strip()]


def _run_dslc(argv: list[str], stdin: str, capsys, monkeypatch) -> tuple[int, str, str]:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    capsys.readouterr()
    code = dslc_main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(HERE)) for p in CASES])
def test_ir_file(path: Path, capsys, monkeypatch):
    text = path.read_text()
    run = re.search(r"^// RUN: (.*)$", text, flags=re.M)
    assert run, f"{path} has no RUN line"
    cmd = run.group(1)
    dslc_part, _, fc_part = cmd.partition("|")
    merge_stderr = "2>&1" in dslc_part
    argv = [a for a in shlex.split(dslc_part) if a != "2>&1"]
    assert argv[0] == "dslc"
    argv = ["-" if a == "%s" else a for a in argv[1:]]
    for i, case in enumerate(_split(text)):
        code, out, err = _run_dslc(argv, case, capsys, monkeypatch)
        check_input = out + err if merge_stderr else out
        fc_argv = [a for a in shlex.split(fc_part.replace("2>&1", "")) if a != "%s"]
        with open(path.parent / f".{path.stem}.case{i}.check", "w") as fh:
            fh.write(case)
        try:
            r = subprocess.run(
                [fc_argv[0], str(path.parent / f".{path.stem}.case{i}.check"), *fc_argv[1:]],
                input=check_input,
                capture_output=True,
                text=True,
            )
        finally:
            (path.parent / f".{path.stem}.case{i}.check").unlink()
        assert (
            r.returncode == 0
        ), f"case {i} of {path.name} failed:\n{r.stdout}{r.stderr}\n--- output:\n{out}{err}"
