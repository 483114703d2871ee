"""The error hierarchy every dslc layer raises.

User mistakes are exceptions that carry a source location; ``assert`` is kept for
internal invariants only.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A position in a user's source file (1-based line, 1-based column)."""

    filename: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}"


def format_caret(filename: str, lineno: int, offset: int, source_line: str | None = None) -> str:
    """The source line with a caret under column ``offset`` (1-based)."""
    text = source_line if source_line is not None else linecache.getline(filename, lineno)
    text = text.rstrip("\n")
    if not text:
        return ""
    caret = " " * max(offset - 1, 0) + "^"
    return f"    {text}\n    {caret}"


class DslError(SyntaxError):
    """A construct the DSL does not accept, located at the user's line and column.

    ``str(err)`` is ``file:line:col: error: message`` followed by the source line and a
    caret; ``err.msg`` is the bare message.
    """

    def __init__(
        self, message: str, filename: str = "<dsl>", lineno: int = 0, offset: int = 0, text: str | None = None
    ):
        if text is None and lineno:
            text = linecache.getline(filename, lineno) or None
        super().__init__(message, (filename, lineno, offset, text))
        self.msg = message

    @classmethod
    def at(cls, message: str, loc: Loc | None, text: str | None = None) -> "DslError":
        if loc is None:
            return cls(message)
        return cls(message, loc.filename, loc.line, loc.col, text)

    def __str__(self) -> str:
        head = f"{self.filename}:{self.lineno}:{self.offset}: error: {self.msg}"
        if not self.lineno:
            return f"error: {self.msg}"
        excerpt = format_caret(self.filename, self.lineno, self.offset or 1, self.text)
        return f"{head}\n{excerpt}" if excerpt else head


class IRParseError(ValueError):
    """Malformed textual IR, with the line and column in the IR text."""

    def __init__(self, message: str, line: int = 0, col: int = 0, source: str | None = None):
        self.line, self.col, self.msg = line, col, message
        text = f"{line}:{col}: error: {message}" if line else f"error: {message}"
        if source and line:
            lines = source.splitlines()
            if 0 < line <= len(lines):
                text += "\n" + format_caret("<ir>", line, col, lines[line - 1])
        super().__init__(text)


class VerifyError(ValueError):
    """IR that breaks an op's rules (types, shapes, SSA order)."""


class CompileError(RuntimeError):
    """A valid program the compiler cannot build for the chosen target (for example, UB budget)."""

    def __init__(self, message: str, loc: Loc | None = None):
        self.loc = loc
        self.msg = message
        text = f"{loc}: error: {message}" if loc else message
        excerpt = format_caret(loc.filename, loc.line, loc.col) if loc and loc.line else ""
        super().__init__(f"{text}\n{excerpt}" if excerpt else text)


class ArgumentError(ValueError):
    """Bad arguments to ``Operator.reference``/``simulate`` (wrong shape, dtype, missing input)."""


class SimulationError(RuntimeError):
    """A fault the CPU emulator detected while running generated Ascend C."""


class RaceError(SimulationError):
    """Two pipes touched the same UB/GM range with no happens-before path."""


class DeadlockError(SimulationError):
    """A WaitFlag with no pending SetFlag: the hardware would hang."""


class SyncError(SimulationError):
    """Flag misuse that is not a hang by itself: leaked flags, double SetFlag, bad event id."""


class MemoryFaultError(SimulationError):
    """UB over capacity, misaligned or out-of-bounds copies, reads of unwritten UB."""


class UnsupportedError(SimulationError):
    """An API used with a dtype or form the target does not support."""


class TilingError(SimulationError):
    """The host TilingFunc failed (GRAPH_FAILED) or asked for an unusable launch (block dim 0 or > cores)."""


class InferShapeError(SimulationError):
    """The host InferShape failed or disagreed with the output shapes the caller allocated."""


class BuildError(SimulationError):
    """The generated or user-edited sources did not compile for the emulator."""
