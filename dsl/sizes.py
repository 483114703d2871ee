"""Byte sizes as users write them (``512M``, ``2G``, ``1.5GiB``, ``4096``) and as dslc prints them."""

from __future__ import annotations

import re

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes in ``text``: a number with an optional K, M, G or T suffix (powers of 1024; ``B`` and
    ``iB`` allowed after it). Raises ValueError with a message for anything else."""
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"expected a size such as 4096, 512M or 2G, got '{text}'")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def format_size(n: float) -> str:
    """``1536`` -> ``1.5 KiB``."""
    if n >= 1 << 70:
        return f"{n / (1 << 60):.3g} EiB"
    units = (
        ("EiB", 1 << 60),
        ("PiB", 1 << 50),
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    )
    for unit, scale in units:
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"
