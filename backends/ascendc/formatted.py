"""Formatter output, remembered: generated C++ goes through clang-format and generated Python
through black; each output is kept in the dslc cache (``$DSLC_CACHE/format/``) under a digest of
the formatter (binary or version), its style and the input text. Formatting a text seen before
(recompiling an unchanged operator, the golden script of an op) is then a file read, not a
formatter run, and the result is byte-identical: it is what that formatter made of that input.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from functools import lru_cache
from pathlib import Path

from dsl.errors import CompileError

from .cache import cache_dir

CLANG_FORMAT_STYLE = (
    "{BasedOnStyle: Google, IndentWidth: 4, ColumnLimit: 120, AccessModifierOffset: -4, "
    "SortIncludes: false}"
)
BLACK_LINE_LENGTH = 110


def _key(kind: str, ident: str, text: bytes) -> str:
    h = hashlib.sha256()
    for part in (kind.encode(), ident.encode(), text):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return f"{kind}-{h.hexdigest()[:32]}"


def recall(kind: str, ident: str, text: bytes) -> bytes | None:
    try:
        return (cache_dir("format") / _key(kind, ident, text)).read_bytes()
    except OSError:
        return None


def remember(kind: str, ident: str, text: bytes, out: bytes) -> None:
    try:
        folder = cache_dir("format")
        fd, tmp = tempfile.mkstemp(prefix=".fmt.", dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(out)
        os.replace(tmp, folder / _key(kind, ident, text))
    except OSError:  # a read-only cache only costs the next run a formatter call
        pass


# -- clang-format ---------------------------------------------------------------------------------


def clang_format_binary() -> str | None:
    """The clang-format executable: the PyPI wheel's binary itself (its ``bin/clang-format`` is a
    Python script that starts an interpreter only to run it), else one on PATH."""
    spec = importlib.util.find_spec("clang_format")
    if spec is not None and spec.submodule_search_locations:
        exe = (
            Path(spec.submodule_search_locations[0])
            / "data"
            / "bin"
            / ("clang-format" + (sysconfig.get_config_var("EXE") or ""))
        )
        if exe.is_file() and os.access(exe, os.X_OK):
            return str(exe)
    local = Path(sys.prefix) / "bin" / "clang-format"
    if local.exists():
        return str(local)
    return shutil.which("clang-format")


def _identity(exe: str) -> str:
    st = os.stat(exe)
    return f"{os.path.realpath(exe)}:{st.st_size}:{st.st_mtime_ns}:{CLANG_FORMAT_STYLE}"


def clang_format(files: list[Path]) -> None:
    """Format ``files`` in place (one clang-format run for those it has not seen before)."""
    if not files:
        return
    exe = clang_format_binary()
    if exe is None:
        raise CompileError("clang-format is not installed (pip install clang-format)")
    ident = _identity(exe)
    todo = []
    for f in files:
        text = f.read_bytes()
        out = recall("clang-format", ident + f.suffix, text)
        if out is None:
            todo.append((f, text))
        elif out != text:
            f.write_bytes(out)
    if not todo:
        return
    r = subprocess.run(
        [exe, "-i", f"--style={CLANG_FORMAT_STYLE}", *(str(f) for f, _ in todo)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise CompileError(f"clang-format failed: {r.stderr.strip()}")
    for f, text in todo:
        remember("clang-format", ident + f.suffix, text, f.read_bytes())


# -- black ------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _black_identity() -> str:
    """black's version, read from its package without importing it (the import is the slow part)."""
    spec = importlib.util.find_spec("black")
    if spec is None or spec.origin is None:
        raise CompileError("black is not installed (pip install black)")
    root = Path(spec.origin).parent
    version = root / "_black_version.py"
    try:
        tag = version.read_text()
    except OSError:
        st = os.stat(spec.origin)
        tag = f"{spec.origin}:{st.st_size}:{st.st_mtime_ns}"
    return f"{tag}:line_length={BLACK_LINE_LENGTH}"


def black_format(text: str) -> str:
    """``black.format_str(text)`` with line length 110, remembered by content."""
    ident = _black_identity()
    data = text.encode()
    out = recall("black", ident, data)
    if out is not None:
        return out.decode()
    import black

    result = black.format_str(text, mode=black.Mode(line_length=BLACK_LINE_LENGTH))
    remember("black", ident, data, result.encode())
    return result
