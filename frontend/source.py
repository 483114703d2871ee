"""Reading a decorated function's source: the AST with absolute lines, and locations."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

from dsl.errors import DslError, Loc


@dataclass
class Source:
    filename: str
    tree: ast.FunctionDef
    indent: int  # columns removed by dedent
    lines: list[str]  # the file's lines (for error excerpts)

    def loc(self, node: ast.AST) -> Loc:
        return Loc(
            self.filename, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + self.indent + 1
        )

    def error(self, node: ast.AST, message: str) -> DslError:
        loc = self.loc(node)
        text = self.lines[loc.line - 1] if 0 < loc.line <= len(self.lines) else None
        return DslError(message, loc.filename, loc.line, loc.col, text)


def read_source(fn) -> Source:
    try:
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise DslError(
            f"cannot read the source of '{getattr(fn, '__name__', fn)}' ({e}); "
            "@dsl.op functions must be defined in a .py file"
        ) from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    first_line = lines[0]
    indent = len(first_line) - len(first_line.lstrip()) if dedented != text else 0
    tree = ast.parse(dedented)
    ast.increment_lineno(tree, first - 1)
    node = tree.body[0]
    try:
        with open(filename, encoding="utf-8") as fh:
            file_lines = fh.read().splitlines()
    except OSError:
        file_lines = []
    src = Source(filename, node, indent, file_lines)
    if isinstance(node, ast.AsyncFunctionDef):
        raise src.error(node, "an operator must be a plain 'def' function, not 'async def'")
    if not isinstance(node, ast.FunctionDef):
        raise src.error(node, "@dsl.op decorates a function definition")
    return src
