"""dslc's on-disk cache: where it is, and its size bound (least-recently-used eviction).

Location: ``$DSLC_CACHE``, else ``$XDG_CACHE_HOME/dslc``, else ``~/.cache/dslc``. It holds

* ``projects/<op>-<digest>/`` — the projects ``op.simulate``/``dslc run`` generate, one per
  distinct source (content-addressed);
* ``sim/rt-<digest>/`` — the emulator runtime compiled once per emulator version and compiler;
* ``sim/obj/host-<key>.o``, ``sim/obj/kernel-<key>.o`` and ``sim/exe-<key>/`` — each project's
  objects and emulator executable, keyed by a hash of every source (source-map comments left
  out: ``sim/build.py::source_key_text``), header and flag;
* ``format/<formatter>-<digest>`` — clang-format's and black's output for an input they have
  formatted before (``formatted.py``), keyed by the formatter, its style and the input.

Everything in it can be rebuilt: deleting the folder is always safe. Each entry (one project,
one object, one executable folder) is written under a temporary name and renamed into place, so
processes that share the cache never see half of one. Using an entry touches its mtime; after a
process adds something, the cache is measured and, when it exceeds ``DSLC_CACHE_MAX`` (default
1 GiB; a size such as ``500M`` or ``4G``), the least recently used entries are removed until it
is below 80% of that. Entries used in the last minute are never removed (another process may be
about to run them), nor is the emulator runtime in use.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from dsl.errors import ArgumentError
from dsl.sizes import parse_size

DEFAULT_MAX_BYTES = 1 << 30
LOW_WATER = 0.8  # eviction goes down to this share of the cap
GRACE_S = 60.0  # entries used more recently than this are kept whatever the size


def cache_base() -> Path:
    root = os.environ.get("DSLC_CACHE")
    if root:
        return Path(root).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dslc"


def cache_dir(sub: str) -> Path:
    path = cache_base() / sub
    path.mkdir(parents=True, exist_ok=True)
    return path


def max_bytes() -> int:
    text = os.environ.get("DSLC_CACHE_MAX")
    if not text:
        return DEFAULT_MAX_BYTES
    try:
        return parse_size(text)
    except ValueError as e:
        raise ArgumentError(f"DSLC_CACHE_MAX: {e}") from None


_IN_USE: set[Path] = set()


def in_use(path: Path) -> None:
    """Never evict ``path`` from this process (the emulator runtime its executables link)."""
    _IN_USE.add(Path(path).resolve())


def touch(path: Path) -> None:
    """Mark an entry as used now (its mtime is its last use)."""
    try:
        os.utime(path)
    except OSError:
        pass


def _size(path: str) -> int:
    try:
        st = os.lstat(path)
    except OSError:
        return 0
    if not os.path.isdir(path) or os.path.islink(path):
        return st.st_size
    total = 0
    try:
        with os.scandir(path) as it:
            for e in it:
                total += _size(e.path)
    except OSError:
        pass
    return total


def entries(base: Path | None = None) -> list[tuple[Path, int, float]]:
    """(path, bytes, last use) of every removable unit of the cache."""
    base = base or cache_base()
    out = []
    for group in (base / "projects", base / "sim", base / "sim" / "obj", base / "format"):
        try:
            children = list(os.scandir(group))
        except OSError:
            continue
        for e in children:
            if group.name == "sim" and e.name == "obj":
                continue
            try:
                mtime = e.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            out.append((Path(e.path), _size(e.path), mtime))
    return out


def _remove(path: Path, base: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        trash = Path(tempfile.mkdtemp(prefix=".trash-", dir=base))
        try:
            os.replace(path, trash / path.name)  # leaves the cache in one step
        except OSError:
            pass
        shutil.rmtree(trash, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def enforce_limit(keep: tuple[Path, ...] = ()) -> list[Path]:
    """Remove least recently used entries while the cache exceeds ``max_bytes()``; returns them.
    One process evicts at a time (the others skip); recently used and ``keep`` entries stay."""
    base = cache_base()
    cap = max_bytes()
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        fcntl = None
    try:
        lock = open(base / ".evict.lock", "a")
    except OSError:
        return []
    removed: list[Path] = []
    with lock:
        if fcntl is not None:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return []  # another process is evicting
        found = entries(base)
        total = sum(size for _, size, _ in found)
        if total <= cap:
            return []
        kept = {Path(k).resolve() for k in keep} | _IN_USE
        now = time.time()
        for path, size, used in sorted(found, key=lambda e: e[2]):
            if total <= cap * LOW_WATER:
                break
            if now - used < GRACE_S or path.resolve() in kept:
                continue
            _remove(path, base)
            total -= size
            removed.append(path)
    return removed
