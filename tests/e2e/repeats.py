"""Repeated runs of lines in generated C++: the same lines, or the same shape with other names
and numbers (a reader sees copy-paste either way).

A line's shape is its code with comments dropped, identifiers replaced by ``I``, numbers by
``N`` and strings by ``S``; blank lines, comment-only lines and lone punctuation are skipped.
Two runs of ``min_lines`` consecutive shapes that are equal and do not overlap are a repeat,
unless the span they cover is one periodic list (declarations, table rows).
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\b\d[\w.]*\b|\b[A-Za-z_]\w*\b')
_KEYWORDS = frozenset(
    "if else for while return const constexpr static inline template typename class struct "
    "public private case switch break continue do".split()
)


def shape(line: str) -> str | None:
    code = line.split("//", 1)[0].strip()
    if not code or re.fullmatch(r"[{}();,\s]*", code):
        return None

    def token(m: re.Match) -> str:
        t = m.group(0)
        if t.startswith('"'):
            return "S"
        if t[0].isdigit():
            return "N"
        return t if t in _KEYWORDS else "I"

    return _TOKEN.sub(token, code)


def repeats(text: str, min_lines: int = 6) -> list[tuple[int, int]]:
    """(line, line) starts of pairs of non-overlapping runs with equal shapes (1-based)."""
    rows = [(i + 1, s) for i, line in enumerate(text.splitlines()) if (s := shape(line)) is not None]
    seen: dict[tuple, int] = {}
    found = []
    for k in range(len(rows) - min_lines + 1):
        key = tuple(s for _, s in rows[k : k + min_lines])
        first = seen.get(key)
        if first is None:
            seen[key] = k
        elif k - first >= min_lines and not _periodic(rows, first, k + min_lines, min_lines):
            found.append((rows[first][0], rows[k][0]))
    return found


def _periodic(rows, start: int, stop: int, min_lines: int) -> bool:
    """One list of like items (member declarations, a table's rows) rather than a copy: the
    whole span repeats with a period shorter than a run."""
    shapes = [s for _, s in rows[start:stop]]
    return any(all(shapes[i] == shapes[i + p] for i in range(len(shapes) - p)) for p in range(1, min_lines))
