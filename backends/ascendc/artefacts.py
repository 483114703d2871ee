"""The project writer's last check: generated C++ holds no Python values (``None``, ``True``,
``[]``, ``{'k': v}``, reprs) and no empty dtype lists, and the json describes every input and
output with at least one dtype. The emitters must never write them (each such case is a dslc
bug, fixed at its root); this backstop turns one that slips through into a CompileError naming the
operator and the generated line instead of a project that does not build."""

from __future__ import annotations

import json
import re

from dsl.errors import CompileError

# (pattern, what it is) on C++ with comments and string literals blanked out
_ARTEFACTS = (
    (re.compile(r"\bNone\b"), "Python's None"),
    (re.compile(r"\b(?:True|False)\b"), "a Python bool"),
    (re.compile(r"[=(,{]\s*\[[^\[\]]*\]\s*[,;)}]"), "a Python list"),  # a lambda's [] is followed by ( or {
    (re.compile(r"\{\s*'[^']*'\s*:"), "a Python dict"),
    (re.compile(r"<(?:class|function|module) |\bobject at 0x"), "a Python repr"),
    (re.compile(r"\bdtype\('|\bDType\("), "a Python dtype repr"),
    (re.compile(r"\.(?:DataType|Format)\(\s*\{\s*\}\s*\)"), "an empty list of types"),  # OpDef
    (re.compile(r"\[\s*\]\s*=\s*\{\s*\}"), "an empty array"),  # zero-size arrays are not C++
)
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def _blank(m: re.Match) -> str:
    """A comment or string literal replaced by spaces (newlines kept, so line numbers hold)."""
    return re.sub(r"[^\n]", " ", m.group(0))


def cpp_problems(text: str) -> list[tuple[int, str, str]]:
    """(line number, what, the line) for every Python artefact in C++ source ``text``."""
    code = _COMMENT_OR_STRING.sub(_blank, text)
    lines, found = text.splitlines(), []
    for pattern, what in _ARTEFACTS:
        for m in pattern.finditer(code):
            k = code.count("\n", 0, m.start())
            found.append((k + 1, what, lines[k].strip() if k < len(lines) else ""))
    return sorted(found)


def json_problems(text: str) -> list[str]:
    """What is wrong with the op json: not json, a null, an input or output with no dtype."""
    try:
        ops = json.loads(text)
    except ValueError as e:
        return [f"not valid json ({e})"]
    out = []
    for op in ops:
        for desc in op.get("input_desc", []) + op.get("output_desc", []):
            types = desc.get("type")
            if not types or not all(isinstance(t, str) for t in types):
                out.append(f"'{desc.get('name')}' has the dtype list {types!r}")
        for attr in op.get("attr", []):
            if attr.get("default_value") is None:
                out.append(f"attribute '{attr.get('name')}' has no default value")
    return out


def check_generated(op_name: str, files: dict[str, str], loc=None) -> None:
    """Raise a CompileError (at ``loc``, the operator's definition) when a generated file of
    ``op_name`` holds something that cannot be valid there."""
    for rel, text in files.items():
        if rel.endswith((".cpp", ".h")):
            problems = [f"{rel}:{n}: {what}: {line}" for n, what, line in cpp_problems(text)]
        elif rel.endswith(".json"):
            problems = [f"{rel}: {p}" for p in json_problems(text)]
        else:
            continue
        if problems:
            raise CompileError(
                f"{op_name}: dslc generated a project that cannot build (a dslc bug; please report it "
                f"with the operator): {problems[0]}"
                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                loc,
            )
