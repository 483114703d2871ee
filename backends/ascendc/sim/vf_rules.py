"""The loop rules of RegBase vector functions, checked on the kernel text before the build.

A VF's `for` loops become hardware loops: the counter is a `uint16_t` that starts at 0 and steps
by 1, at most 4 loops nest, and a VF has no `while`, `do`, `switch` or `goto` (asc-devkit docs
`Reg矢量计算/关键特性说明/关键特性说明.md`; ascendc-api.md s7). The C++ the emulator compiles cannot
see a loop's counter type at run time, so these rules are checked here, on the text: the bodies
of `__simd_vf__` and `__simd_callee__` functions and of `__VEC_SCOPE__ { ... }` blocks in every
source under `op_kernel/`, after comments, string literals and preprocessor lines are removed.
A violation is an UnsupportedError naming `op_kernel/<file>:<line>`.

Not checked: that the loop bound is a uint16_t expression (its type is not in the text), and
nesting through calls (a `__simd_callee__` helper's loops are checked on their own).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dsl import errors

MAX_NESTED_LOOPS = 4
_SOURCES = (".cpp", ".cc", ".h", ".hpp")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|\+\+|--|\+=|-=|<<=|>>=|->|::|<=|>=|==|!=|&&|\|\||\S")
_VF_MARKS = ("__simd_vf__", "__simd_callee__")
_FORBIDDEN = ("while", "do", "switch", "goto")


@dataclass(frozen=True)
class _Tok:
    text: str
    line: int


def _strip(text: str) -> str:
    """Blanks comments, string/char literals and preprocessor lines, keeping every newline."""
    out: list[str] = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
            continue
        out.append(c)
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        i += 1
    return "".join(out)


def _tokens(text: str) -> list[_Tok]:
    toks = []
    for lineno, line in enumerate(_strip(text).split("\n"), start=1):
        toks.extend(_Tok(m.group(0), lineno) for m in _TOKEN.finditer(line))
    return toks


def _match(toks: list[_Tok], i: int, open_: str, close: str) -> int:
    """Index of the token closing the bracket at ``i``."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


class _Checker:
    def __init__(self, toks: list[_Tok], where: str, vf_desc: str):
        self.toks, self.where, self.vf = toks, where, vf_desc

    def fail(self, tok: _Tok, msg: str):
        raise errors.UnsupportedError(f"{self.where}:{tok.line}: {msg} (in the vector function {self.vf})")

    def block(self, i: int, end: int, depth: int) -> None:
        while i < end:
            i = self.statement(i, end, depth)

    def statement(self, i: int, end: int, depth: int) -> int:
        t = self.toks[i]
        if t.text == "{":
            close = _match(self.toks, i, "{", "}")
            self.block(i + 1, close, depth)
            return close + 1
        if t.text in _FORBIDDEN:
            self.fail(t, f"'{t.text}' in a vector function: a VF has only for loops and if (关键特性说明.md)")
        if t.text == "for":
            if depth + 1 > MAX_NESTED_LOOPS:
                self.fail(t, f"{depth + 1} nested loops: a vector function allows at most {MAX_NESTED_LOOPS}")
            close = _match(self.toks, i + 1, "(", ")")
            self.header(t, self.toks[i + 2 : close])
            return self.statement(close + 1, end, depth + 1)
        if t.text == "if":
            close = _match(self.toks, i + 1, "(", ")")
            j = self.statement(close + 1, end, depth)
            if j < end and self.toks[j].text == "else":
                j = self.statement(j + 1, end, depth)
            return j
        # An expression or declaration statement: up to ';' outside brackets.
        level = 0
        j = i
        while j < end:
            x = self.toks[j].text
            if x in "([{":
                level += 1
            elif x in ")]}":
                level -= 1
            elif x == ";" and level == 0:
                return j + 1
            j += 1
        return end

    def header(self, for_tok: _Tok, head: list[_Tok]) -> None:
        parts: list[list[str]] = [[]]
        for tok in head:
            if tok.text == ";":
                parts.append([])
            else:
                parts[-1].append(tok.text)
        rule = "VF hardware loops need `for (uint16_t i = 0; i < n; ++i)`: a uint16_t counter from 0, step 1"
        if len(parts) != 3:
            self.fail(for_tok, f"a range-for or malformed loop header: {rule}")
        init, cond, step = parts
        if len(init) < 2 or "=" not in init:
            self.fail(for_tok, f"the loop declares no counter: {rule}")
        eq = init.index("=")
        name = init[eq - 1]
        ctype = " ".join(init[: eq - 1]).replace(" :: ", "::")
        if ctype not in ("uint16_t", "std::uint16_t", "const uint16_t"):
            self.fail(for_tok, f"loop counter '{name}' is {ctype}: {rule}")
        if init[eq + 1 :] not in (["0"], ["0U"], ["0u"]):
            self.fail(for_tok, f"loop counter '{name}' starts at {' '.join(init[eq + 1:])}: {rule}")
        if len(cond) < 2 or cond[0] != name or cond[1] != "<":
            self.fail(for_tok, f"the loop condition is not '{name} < bound': {rule}")
        if step not in (["++", name], [name, "++"], [name, "+=", "1"]):
            self.fail(for_tok, f"loop counter '{name}' steps by '{' '.join(step)}': {rule}")


def _vf_bodies(toks: list[_Tok]):
    """(description, first token, end token) of each VF body."""
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.text == "__VEC_SCOPE__" and i + 1 < len(toks) and toks[i + 1].text == "{":
            close = _match(toks, i + 1, "{", "}")
            yield f"__VEC_SCOPE__ at line {t.line}", i + 2, close
            i = close + 1
            continue
        if t.text in _VF_MARKS:
            level = 0
            j = i + 1
            while j < len(toks):
                x = toks[j].text
                if x == "(":
                    level += 1
                elif x == ")":
                    level -= 1
                elif level == 0 and x in ("{", ";"):
                    break
                j += 1
            if j < len(toks) and toks[j].text == "{":
                name = next((toks[k - 1].text for k in range(i + 1, j) if toks[k].text == "("), "?")
                close = _match(toks, j, "{", "}")
                yield f"{name} ({t.text}, line {t.line})", j + 1, close
                i = close + 1
                continue
        i += 1


def check_text(text: str, where: str) -> None:
    """Raises UnsupportedError for the first VF loop rule ``text`` breaks; ``where`` names the file."""
    if "__simd_vf__" not in text and "__VEC_SCOPE__" not in text and "__simd_callee__" not in text:
        return
    toks = _tokens(text)
    for desc, start, end in _vf_bodies(toks):
        _Checker(toks, where, desc).block(start, end, 0)


def check_project(project_dir: Path) -> None:
    """Checks every kernel source of the project (``op_kernel/**``)."""
    project_dir = Path(project_dir)
    kernel_dir = project_dir / "op_kernel"
    for path in sorted(kernel_dir.rglob("*")):
        if path.is_file() and path.suffix in _SOURCES:
            check_text(path.read_text(errors="replace"), path.relative_to(project_dir).as_posix())
