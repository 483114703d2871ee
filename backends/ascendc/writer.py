"""A small indented code writer for the emitters."""

from __future__ import annotations

import contextlib


class CodeWriter:
    def __init__(self, indent: str = "    "):
        self.lines: list[str] = []
        self.level = 0
        self.unit = indent

    def line(self, text: str = "", comment: str | None = None) -> None:
        if not text and not comment:
            self.lines.append("")
            return
        pad = self.unit * self.level
        if comment and text:
            self.lines.append(f"{pad}{text}  // {comment}")
        elif comment:
            self.lines.append(f"{pad}// {comment}")
        else:
            self.lines.append(f"{pad}{text}")

    @contextlib.contextmanager
    def block(self, head: str, tail: str = "}"):
        self.line(head + " {")
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1
            self.line(tail)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
