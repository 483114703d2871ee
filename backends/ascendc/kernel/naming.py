"""C++ names in the generated kernel, derived from the DSL's names.

Tile values become ``LocalTensor`` views named after what they hold (``mOut``, ``gradF32``,
``denom``); a scalar computed once per core becomes a member named after its expression
(``lrTimesWeightDecay_``); numbers never become names.
"""

from __future__ import annotations

import math
import re

from dsl.names import camel  # noqa: F401  (one definition: dsl/names.py)

# Names the kernel itself uses; a user name that would clash gets a suffix.
RESERVED = frozenset(
    """t n len slot nAligned TILE GRANULE T tiling workspace pipe offset count tiles op Run Init
    Process ProcessTile SetCoreSlice LoadScalar ToF32""".split()
)
# Members the schedules' kernel classes declare themselves (template.py, broadcast.py, rows.py,
# cube.py, as ``stem_``): a member for a user's per-core value (a Scalar ``rows`` -> ``rows_``)
# is numbered past them.
KERNEL_MEMBERS = frozenset(
    """pitch cols tiling rows n r0 chunks tiles clen pack inner col0 wideBytes rowStep m k invCols count
    offset slots pipe colsPerLoop wideBuf welfordBuf rowCols scratchBuf firstRow colLen wsGm partBuf last
    tilesN steps slotLen rowIn first epilogue block blockRows baseN baseM wsTile tile step rowEnd rowBase
    perRowLen scratch tileElems""".split()
)
_WORDS = {0: "zero", 1: "one", 2: "two", 3: "three", 4: "four", 10: "ten", 0.5: "half"}


# Names in the kernel entry, Run and Init besides RESERVED: the bundled address array and the
# tiling struct.
_ENTRY_NAMES = RESERVED | {"gm", "tilingData"}


def gm_param(name: str) -> str:
    """The C++ parameter of input/output ``name`` (a GM address): its camelCase name, with the
    suffix Gm where that is a name the kernel uses itself (``op`` -> ``opGm``, ``tiling_`` ->
    ``tilingGm``)."""
    c = camel(name)
    return c + "Gm" if c in _ENTRY_NAMES else c


def pascal(name: str) -> str:
    c = camel(name)
    return c[:1].upper() + c[1:]


def is_user_name(name: str) -> bool:
    """SSA names the user wrote (or derived from user names); numbers are anonymous."""
    return not name.isdigit()


def literal_word(value) -> str:
    """A C++ word for a number: distinct numbers get distinct words (``-inf`` is ``minusinf``,
    ``-0.0`` ``minus0``), so two constants never share a register or buffer name."""
    v = float(value)
    negative = math.copysign(1.0, v) < 0
    if v in _WORDS and not negative:
        return _WORDS[v]
    sign = "minus" if negative else "c"
    if v.is_integer() and abs(v) < 1000:
        return sign + str(int(abs(v)))
    return sign + re.sub(r"[^0-9a-zA-Z]", "p", repr(abs(v)))


_OP_WORDS = {"add": "Plus", "sub": "Minus", "mul": "Times", "div": "Over", "max": "Max", "min": "Min"}
MAX_NAME = 28


def expression_name(opname: str, operand_names: list[str]) -> str | None:
    """A readable name for a scalar computed from named operands, or None when too long."""
    if opname in _OP_WORDS and len(operand_names) == 2:
        a, b = operand_names
        name = a + _OP_WORDS[opname] + b[:1].upper() + b[1:]
    elif opname == "neg" and operand_names:
        name = "neg" + operand_names[0][:1].upper() + operand_names[0][1:]
    elif opname == "reciprocal" and operand_names:
        name = "inv" + operand_names[0][:1].upper() + operand_names[0][1:]
    elif opname == "cast" and operand_names:
        name = operand_names[0]
    else:
        return None
    return name if len(name) <= MAX_NAME else None


class NameTable:
    """Unique C++ names: the first holder of a name keeps it, later ones get a number."""

    def __init__(self, taken: set[str] | None = None):
        self.taken = set(RESERVED) | set(taken or ())

    def claim(self, name: str) -> str:
        if not name[:1].isalpha():  # a name made from a number: 8 -> c8
            name = "c" + name
        if name not in self.taken:
            self.taken.add(name)
            return name
        k = 2
        while f"{name}{k}" in self.taken:
            k += 1
        self.taken.add(f"{name}{k}")
        return f"{name}{k}"

    def member(self, name: str) -> str:
        """``name_``: a member for a value computed once per core, never one of KERNEL_MEMBERS."""
        if name in KERNEL_MEMBERS:
            self.taken.add(name)  # claim() numbers it: rows -> rows2
        return self.claim(name) + "_"
