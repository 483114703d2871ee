"""Runs every ``*.ir`` file under tests/passes: its ``// RUN:`` line, piped into filecheck.

Cases in one file are separated by ``// -----``; each case is run on its own, and checked as:

* A case with ``// EXPECT-ERROR: <text>`` lines is an error case: ``dslc`` must exit with
  status 1 (a user error), print nothing on stdout (no partial IR), print no traceback, and its
  stderr must start with ``dslc: `` and contain each ``<text>`` (a substring) in the order the
  lines are written. The RUN line need not redirect stderr (``2>&1``) for this.
* Any other case must exit with status 0, and (unless its RUN line has ``2>&1``) print nothing
  on stderr.
* ``// CHECK...`` lines (if any) are then handed to filecheck with the output (stdout, plus
  stderr when the RUN line has ``2>&1``). A case must have CHECK lines or EXPECT-ERROR lines:
  one with neither could not fail.
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
EXPECT_ERROR = re.compile(r"^// EXPECT-ERROR: (.+?)\s*$", re.M)
DIRECTIVE = re.compile(r"^// ?(EXPECT[\w-]*|RUN[\w-]*|CHECK[\w-]*)\b", re.M)
KNOWN = {
    "EXPECT-ERROR",
    "RUN",
    "CHECK",
    "CHECK-NEXT",
    "CHECK-NOT",
    "CHECK-SAME",
    "CHECK-LABEL",
    "CHECK-EMPTY",
}


def _split(text: str) -> list[str]:
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if c.strip()]


def _run_dslc(argv: list[str], stdin: str, capsys, monkeypatch) -> tuple[int, str, str]:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    capsys.readouterr()
    code = dslc_main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def check_case(case: str, code: int, out: str, err: str, merge_stderr: bool) -> list[str]:
    """What is wrong with one case's run (exit status, stdout, stderr); empty when all is well.
    The CHECK lines are left to filecheck."""
    problems = []
    unknown = sorted({d for d in DIRECTIVE.findall(case) if d not in KNOWN})
    if unknown:
        problems.append(f"unknown directive(s) {unknown}; known: {sorted(KNOWN)}")
    expected = EXPECT_ERROR.findall(case)
    has_checks = re.search(r"^// CHECK", case, flags=re.M) is not None
    if not expected and not has_checks:
        problems.append("the case has neither CHECK nor EXPECT-ERROR lines, so it cannot fail")
    if expected:
        if code != 1:
            problems.append(f"expected exit status 1 (user error), got {code}")
        if out:
            problems.append("a failing run printed output on stdout (partial IR?)")
        if "Traceback" in err:
            problems.append("stderr has a traceback")
        if not err.startswith("dslc: "):
            problems.append("stderr does not start with 'dslc: '")
        pos = 0
        for msg in expected:
            k = err.find(msg, pos)
            if k < 0:
                where = "at all" if msg not in err else "after the previous EXPECT-ERROR text"
                problems.append(f"stderr does not contain {msg!r} {where}")
            else:
                pos = k + len(msg)
    else:
        if code != 0:
            problems.append(f"exit status {code} (expected 0; mark an error case with // EXPECT-ERROR:)")
        if err and not merge_stderr:
            problems.append("unexpected output on stderr")
    return problems


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
        problems = check_case(case, code, out, err, merge_stderr)
        assert not problems, (
            f"case {i} of {path.name}:\n  "
            + "\n  ".join(problems)
            + f"\n--- stdout:\n{out}--- stderr:\n{err}"
        )
        if not re.search(r"^// CHECK", case, flags=re.M):
            continue
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


# ---------------------------------------------------------------------------------------------
# The runner's own rules
# ---------------------------------------------------------------------------------------------

ERROR_CASE = """
func @f(%x: tensor<*, f32>) -> (y: tensor<*, f32>) {
  return %x
}
// EXPECT-ERROR: needs 768 B of UB
// EXPECT-ERROR: b1: 4 B/elem
"""
GOOD_ERR = "dslc: @f needs 768 B of UB for one tile\n  b0: ...\n  b1: 4 B/elem x 1\n"


def test_runner_accepts_the_expected_error():
    assert check_case(ERROR_CASE, 1, "", GOOD_ERR, False) == []


@pytest.mark.parametrize(
    "code, out, err, problem",
    [
        (0, "func @f ...\n", "", "expected exit status 1 (user error), got 0"),
        (2, "", GOOD_ERR, "expected exit status 1 (user error), got 2"),
        (1, "func @f\n", GOOD_ERR, "a failing run printed output on stdout"),
        (1, "", "dslc: something else\n", "does not contain 'needs 768 B of UB' at all"),
        (1, "", "dslc: b1: 4 B/elem; needs 768 B of UB\n", "'b1: 4 B/elem' after the previous"),
        (1, "", GOOD_ERR + "Traceback (most recent call last)\n", "stderr has a traceback"),
        (1, "", "error: needs 768 B of UB b1: 4 B/elem", "stderr does not start with 'dslc: '"),
    ],
)
def test_runner_rejects_a_wrong_failure(code, out, err, problem):
    problems = check_case(ERROR_CASE, code, out, err, False)
    assert any(problem in p for p in problems), problems


def test_runner_rejects_a_failing_or_noisy_success_case():
    case = "func @f() -> () {\n  return\n}\n// CHECK: func @f\n"
    assert check_case(case, 0, "func @f\n", "", False) == []
    assert any("exit status 1" in p for p in check_case(case, 1, "func @f\n", "", False))
    assert any("stderr" in p for p in check_case(case, 0, "func @f\n", "dslc: warning\n", False))
    assert check_case(case, 0, "func @f\n", "dslc: warning\n", True) == []


def test_runner_rejects_cases_that_cannot_fail():
    assert any("cannot fail" in p for p in check_case("func @f() -> () {}\n", 0, "", "", False))
    typo = "func @f() -> () {}\n// EXPECT-ERRORS: x\n// CHECK: f\n"
    assert any("unknown directive" in p for p in check_case(typo, 0, "", "", False))
