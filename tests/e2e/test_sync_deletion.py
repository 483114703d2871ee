"""Deleting any single SetFlag/WaitFlag from a generated kernel is caught by the emulator."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import dsl

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"del_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, name)


CASES = [
    ("f32", np.float32, 0),
    pytest.param("bf16", ml_dtypes.bfloat16, 3, marks=pytest.mark.slow),  # ~45 s of rebuilds
]

_GUARD = re.compile(r"^\s*(\} else )?if constexpr \((.*)\) \{\s*$")
_ELSE = re.compile(r"^\s*\} else \{\s*$")


def _bare_branch(text: str, chain):
    """A brace-less branch of an `if constexpr` chain: (None, the text from the condition's `(`)
    for `[else ]if constexpr (...)`, (whether it runs, the statement) for an `else` of a chain;
    None for any other line."""
    if text.endswith("{") or text.startswith("}"):
        return None
    m = re.match(r"(else )?if constexpr (\(.*)", text)
    if m and (m.group(1) is None or chain is not None):
        if m.group(2).count("(") > m.group(2).count(")"):  # a condition clang-format wrapped: a block's
            return None
        return None, m.group(2)
    if chain is not None and (
        text == "else" or (text.startswith("else ") and not text.startswith("else if"))
    ):
        return not chain, text[4:].strip()
    return None


def _condition(text: str) -> tuple[str, str]:
    """``(cond) rest``: the balanced condition and what follows it."""
    depth = 0
    for j, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return text[1:j], text[j + 1 :].strip()
    raise AssertionError(f"unbalanced condition: {text}")


def live_lines(lines: list[str], env: dict[str, bool]) -> set[int]:
    """Indices of the lines a template instantiation executes: ``if constexpr`` conditions over
    the template's flags (IS_FLOAT, AMSGRAD, ...) evaluated with ``env``; braces are matched, so
    run-time ``if``/``else`` blocks inside (a row kernel's guards) keep their chain apart."""

    def holds(cond: str) -> bool:
        expr = cond.replace("&&", " and ").replace("||", " or ").replace("::", "__")
        expr = re.sub(r"!(?!=)", " not ", expr)  # `!=` stays; `QuantMode::X` is the env's QuantMode__X
        try:
            return bool(eval(expr, {}, dict(env)))
        except NameError:  # a member template's own parameter (ReduceChunk's KIND): any branch may run
            return True

    # stack: one entry per open brace: (live, taken) for an `if constexpr` chain, (True, None) else
    live, stack = set(), []
    # a brace-less chain (`if constexpr (c) statement;`, clang-format may put the statement on the
    # next line; `else if constexpr (d) ...`, `else ...`): taken so far, and the next statement's
    # liveness while it is still to come (or not finished: no `;` yet)
    chain, pending = None, None
    start = next(i for i, line in enumerate(lines) if line.startswith("class Kernel"))
    for i, line in enumerate(lines):
        if i < start:
            continue
        text = line.split("//", 1)[0].strip()
        if pending is not None and text:
            if pending and all(s[0] for s in stack):
                live.add(i)
            if text.endswith(";"):
                pending = None
            continue
        bare = _bare_branch(text, chain)
        if bare is not None:
            now, rest = bare
            if now is None:  # the condition: `if constexpr (c)` / `else if constexpr (c)`
                cond, rest = _condition(rest)
                now = holds(cond) and not (chain and text.startswith("else"))
            chain = now or bool(chain and text.startswith("else"))
            if rest:
                if now and all(s[0] for s in stack):
                    live.add(i)
                pending = None if rest.endswith(";") else now
            else:
                pending = now
            continue
        chain = None
        closes, opens = text.startswith("}"), text.endswith("{")
        top = stack.pop() if closes and stack else None
        m, e = _GUARD.match(line), _ELSE.match(line)
        if closes and (m or e):  # } else if constexpr (...) {  /  } else {
            if top is not None and top[1] is not None:  # the chain of an `if constexpr`
                now = not top[1] and (holds(m.group(2)) if m else True)
                stack.append((now, top[1] or now))
            else:
                stack.append((True, None))
            continue
        if m:  # if constexpr (...) {
            now = holds(m.group(2))
            stack.append((now, now))
            continue
        if closes and not opens:
            continue
        if all(s[0] for s in stack):
            live.add(i)
        if opens:
            stack.append((True, None))
    return live


@pytest.mark.parametrize("label, np_dtype, key", CASES, ids=["f32", "bf16-amsgrad-maximize"])
def test_every_flag_of_apply_adam_w_is_needed(tmp_path, label, np_dtype, key):
    op = _load("apply_adam_w")
    project = op.compile(out_dir=tmp_path / "base")
    kernel_path = project / "op_kernel" / "apply_adam_w.cpp"
    lines = kernel_path.read_text().splitlines()
    env = {
        "IS_FLOAT": label == "f32",
        "IS_HALF": False,
        "IS_BF16": label == "bf16",
        "AMSGRAD": key in (1, 3),
        "MAXIMIZE": key in (2, 3),
    }
    live = live_lines(lines, env)
    flags = [i for i in sorted(live) if re.search(r"\b(SetFlag|WaitFlag)<", lines[i])]
    assert len(flags) >= 10  # pre-issue and drain loops, the tile's flags, CopyOut's handshake

    rng = np.random.default_rng(1)
    n = 4 * 4224 + 77  # several tiles per core so every reverse dependency is exercised
    var, m, g, mgn = (rng.uniform(-1, 1, n).astype(np_dtype) for _ in range(4))
    v = np.abs(rng.uniform(-1, 1, n)).astype(np_dtype)
    amsgrad = key in (1, 3)
    maximize = key in (2, 3)
    args = (var, m, v, 0.5, 0.25, 0.001, 0.01, 0.9, 0.999, 1e-8, g, mgn if amsgrad else None)
    attrs = dict(amsgrad=amsgrad, maximize=maximize)
    ref = op.reference(*args, **attrs)
    got = op.simulate(*args, cores=1, project=project, **attrs)
    tols = dsl.precision.output_tolerances(op, label, **attrs)
    for name, a, b in zip(op.outputs, ref, got):
        dsl.precision.check(b, a, tols[name], what=name)

    missed = []
    for i in flags:
        case = tmp_path / f"del{i}"
        shutil.copytree(project, case)
        edited = lines[:i] + lines[i + 1 :]
        (case / "op_kernel" / "apply_adam_w.cpp").write_text("\n".join(edited) + "\n")
        try:
            op.simulate(*args, cores=1, project=case, **attrs)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(case)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)
