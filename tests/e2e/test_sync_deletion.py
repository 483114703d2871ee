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


def live_lines(lines: list[str], env: dict[str, bool]) -> set[int]:
    """Indices of the lines a template instantiation executes: ``if constexpr`` conditions over
    the template's flags (IS_FLOAT, AMSGRAD, ...) evaluated with ``env``."""

    def holds(cond: str) -> bool:
        expr = cond.replace("&&", " and ").replace("||", " or ").replace("::", "__")
        expr = re.sub(r"!(?!=)", " not ", expr)  # `!=` stays; `QuantMode::X` is the env's QuantMode__X
        return bool(eval(expr, {}, dict(env)))

    live, stack = set(), []  # stack: (this branch live, some branch of the chain taken)
    start = next(i for i, line in enumerate(lines) if line.startswith("class Kernel"))
    for i, line in enumerate(lines):
        if i < start:
            continue
        m, e = _GUARD.match(line), _ELSE.match(line)
        if m and m.group(1):  # } else if constexpr (...) {
            outer, taken = stack.pop()
            now = not taken and holds(m.group(2))
            stack.append((now, taken or now))
        elif m:
            now = holds(m.group(2))
            stack.append((now, now))
        elif e:
            outer, taken = stack.pop()
            stack.append((not taken, True))
        elif line.strip() == "}" and stack and line.startswith(" " * 8) and _closes_guard(lines, i, stack):
            stack.pop()
        elif all(s[0] for s in stack):
            live.add(i)
    return live


def _closes_guard(lines, i, stack) -> bool:
    """A lone '}' closes the innermost guard when its indent is the guard's."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    for j in range(i - 1, -1, -1):
        if _GUARD.match(lines[j]) or _ELSE.match(lines[j]):
            return len(lines[j]) - len(lines[j].lstrip()) == indent
        if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) < indent:
            return False
    return False


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
