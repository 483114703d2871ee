"""Differential fuzzing of dslc: random DSL programs, an independent numpy oracle, a runner.

``generate(seed)`` writes a random ``@dsl.op`` over everything DESIGN.md section 2 allows for flat
elementwise operators: inputs in any order (Scalars first or mixed, pinned dtypes, an optional
input, unused inputs), one or more dtypes T (f16, bf16, f32, i32), int/float mixes, number
literals of both kinds, int/float run-time attributes, bool/Literal static attributes in
``if``/``else`` statements and ``a if cond else b``, casts between every pair of dtypes (also
``dsl.cast(x, y.dtype)``), comparisons and ``dsl.where``, outputs that are inputs or other
outputs unchanged, optional outputs, a single-expression return.

Two oracles check a program:

1. ``Oracle`` evaluates the generated program with numpy from the typing rules and numeric
   semantics of DESIGN.md section 2, written here without ``dsl.ir`` (it shares no code with the
   interpreter). Where the semantics are exact (no exp/log/sqrt/rsqrt/tanh/sigmoid/reciprocal)
   ``op.reference`` must equal it bit for bit (NaN-aware, signed zeros distinct).
2. ``op.simulate`` (the generated C++ on the emulator, strict sync) must equal the reference bit
   for bit where exact, and meet the precision standard otherwise.

A program the backend refuses with a documented "not supported yet" CompileError is counted as
refused (``REFUSALS`` lists the reasons); any other error or mismatch is a failure.
"""

from __future__ import annotations

import importlib.util
import math
import random
import re
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from dsl.names import spelling_clash

BF16 = np.dtype(ml_dtypes.bfloat16)
NP = {
    "f16": np.dtype(np.float16),
    "bf16": BF16,
    "f32": np.dtype(np.float32),
    "i8": np.dtype(np.int8),
    "i32": np.dtype(np.int32),
    "u8": np.dtype(np.uint8),
    "bool": np.dtype(np.bool_),
}
FLOATS = ("f16", "bf16", "f32")
INTS = ("i8", "i32", "u8")
ALL = FLOATS + INTS + ("bool",)
INEXACT = ("sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "reciprocal")

# Documented "not supported yet" CompileErrors (README "What works today"): pattern -> reason.
REFUSALS = {
    r"(Add|Sub|Mul|Muls|Adds|Abs) does not take (i8|u8)": "i8/u8 arithmetic (A2 has no 8-bit Add/Sub/Mul)",
    r"Duplicate does not take (i8|u8)": "math on an i8/u8 Scalar input (A2 has no 8-bit Duplicate)",
    r"dsl\.(sum|max|min) of (i8|i32|u8) values is not supported by the row backend": (
        "an integer reduction in a row operator (the vector unit reduces half/float)"
    ),
    r"no output depends on the product; a tiling key without the matmul": (
        "a static attribute under which a matmul operator's product is unused"
    ),
    r"'vec\.brc' \(a per-row value over whole rows": (
        "a per-row value spread over whole rows in a matmul epilogue (vec.brc: a compare or where with a row)"
    ),
    r"reads a per-row \(\[M, 1\]\) value with the scalar unit, which the matmul epilogue": (
        "a per-row value the scalar unit would read in a matmul epilogue (Adds/Muls/Maxs of a row by it)"
    ),
    r"a matmul epilogue stores \[M, N\] outputs, and \[M, 1\] ones of a tile that holds whole rows": (
        "an [M, 1] output of a matmul epilogue without a reduction along N"
    ),
    r"the epilogue of \w+ differs between dtypes": (
        "a matmul epilogue whose instructions depend on T (one epilogue text serves every dtype)"
    ),
}


def inexact_node(n) -> bool:
    """exp/log/sqrt/... meet the precision standard only; so do float sums and means (the
    order of the additions is not part of the contract)."""
    return (isinstance(n, Un) and n.fn in INEXACT) or (isinstance(n, Red) and n.kind in ("sum", "mean"))


def is_float(dt: str) -> bool:
    return dt in FLOATS


def is_int(dt: str) -> bool:
    return dt in INTS


def promote(a: str, b: str) -> str:
    """DESIGN.md 2: equal stays; f16 with bf16 -> f32; int with float -> the float; two
    different integer types -> i32."""
    if a == b:
        return a
    if is_float(a) and is_float(b):
        return "f32"
    if is_float(a):
        return a
    if is_float(b):
        return b
    return "i32"


def compute_np(dt: str) -> np.dtype:
    """Values of type dt are held as float32 (every float type) or their own integer/bool type."""
    return np.dtype(np.float32) if is_float(dt) else NP[dt]


class Invalid(Exception):
    """The program breaks a typing rule: the frontend must reject it (a DslError)."""


class Overflow(Exception):
    """Integer arithmetic left its type's range on these inputs (wrap-around is not tested)."""


@dataclass(frozen=True)
class Weak:
    """A Python number or a run-time int/float attribute: it takes its partner's type."""

    value: int | float
    isfloat: bool
    attr: str | None = None


@dataclass
class Val:
    kind: str  # "scalar", "tensor" (flat/broadcast), or in row programs "row" / "col" / "prow" / "blk"
    dt: str
    arr: np.ndarray | None  # None when only types are computed

    def same_type(self, other: "Val") -> bool:
        return self.kind == other.kind and self.dt == other.dt


class _Absent:
    pass


ABSENT = _Absent()


# -- exact conversions (dsl.cast) --------------------------------------------------------------


def float_to_int(x: np.ndarray, dt: str) -> np.ndarray:
    info = np.iinfo(NP[dt])
    with np.errstate(invalid="ignore"):
        t = np.nan_to_num(np.trunc(np.asarray(x, np.float64)), nan=0.0, posinf=info.max, neginf=info.min)
    return np.clip(t, info.min, info.max).astype(NP[dt])


def int_to_16bit_float(x: np.ndarray, dt: str) -> np.ndarray:
    """Round integers once to nearest even: f16 through float64 (exact for these integers),
    bf16 (8 significant bits) with Python integer arithmetic."""
    if dt == "f16":
        with np.errstate(over="ignore"):
            return np.asarray(x).astype(np.float64).astype(np.float16).astype(np.float32)
    out = []
    for v in np.asarray(x).ravel().tolist():
        m = abs(int(v))
        shift = max(m.bit_length() - 8, 0)
        q, rem = divmod(m, 1 << shift)
        half = (1 << shift) >> 1
        if shift and (rem > half or (rem == half and q & 1)):
            q += 1
        out.append(math.copysign(float(q << shift), v))
    return np.array(out, np.float64).reshape(np.shape(x)).astype(np.float32)


def cast_np(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """``dsl.cast``: float -> int truncates and saturates (NaN -> 0), int -> int saturates,
    -> f16/bf16 rounds once to nearest even, -> bool is != 0, bool -> 1/0."""
    if dst == "bool":
        return x != 0
    if src == "bool":
        return x.astype(compute_np(dst))
    if is_float(dst):
        if is_float(src):
            if dst == "f32":
                return x
            with np.errstate(over="ignore"):
                return x.astype(NP[dst]).astype(np.float32)
        return x.astype(np.float32) if dst == "f32" else int_to_16bit_float(x, dst)
    if is_float(src):
        return float_to_int(x, dst)
    info = np.iinfo(NP[dst])
    return np.clip(x.astype(np.int64), info.min, info.max).astype(NP[dst])


# -- program representation ----------------------------------------------------------------------


class Node:
    def src(self) -> str:
        raise NotImplementedError

    def children(self) -> list["Node"]:
        return []

    def walk(self):
        yield self
        for c in self.children():
            yield from c.walk()


@dataclass
class In(Node):
    name: str

    def src(self):
        return self.name


@dataclass
class Attr(Node):
    name: str

    def src(self):
        return self.name


@dataclass
class Lit(Node):
    value: int | float
    text: str | None = None  # an infinity's spelling: float("inf"), -math.inf, ...

    def src(self):
        r = self.text or repr(self.value)
        return f"({r})" if r.startswith("-") else r


INF_SPELLINGS = {
    math.inf: ['float("inf")', "math.inf", 'float("+inf")'],
    -math.inf: ['float("-inf")', "-math.inf", '-float("inf")'],
}


@dataclass
class Logic(Node):
    op: str  # & |
    a: Node
    b: Node

    def src(self):
        return f"({self.a.src()} {self.op} {self.b.src()})"

    def children(self):
        return [self.a, self.b]


@dataclass
class Not(Node):
    a: Node

    def src(self):
        return f"(~{self.a.src()})"

    def children(self):
        return [self.a]


@dataclass
class Var(Node):
    name: str

    def src(self):
        return self.name


@dataclass
class Bin(Node):
    op: str  # + - * / max min
    a: Node
    b: Node

    def src(self):
        if self.op in ("max", "min"):
            return f"dsl.{'maximum' if self.op == 'max' else 'minimum'}({self.a.src()}, {self.b.src()})"
        return f"({self.a.src()} {self.op} {self.b.src()})"

    def children(self):
        return [self.a, self.b]


@dataclass
class Neg(Node):
    a: Node

    def src(self):
        return f"(-{self.a.src()})"

    def children(self):
        return [self.a]


@dataclass
class Un(Node):
    fn: str  # abs relu round sqrt rsqrt exp log tanh sigmoid reciprocal

    a: Node

    def src(self):
        return f"dsl.{self.fn}({self.a.src()})"

    def children(self):
        return [self.a]


@dataclass
class Sq(Node):
    a: Node

    def src(self):
        return f"({self.a.src()} ** 2)"

    def children(self):
        return [self.a]


@dataclass
class Cmp(Node):
    op: str  # > >= < <= == !=
    a: Node
    b: Node

    def src(self):
        return f"({self.a.src()} {self.op} {self.b.src()})"

    def children(self):
        return [self.a, self.b]


@dataclass
class Where(Node):
    c: Node
    a: Node
    b: Node

    def src(self):
        return f"dsl.where({self.c.src()}, {self.a.src()}, {self.b.src()})"

    def children(self):
        return [self.c, self.a, self.b]


@dataclass
class Red(Node):
    kind: str  # sum mean max min
    a: Node

    def src(self):
        return f"dsl.{self.kind}({self.a.src()}, axis=-1, keepdims=True)"

    def children(self):
        return [self.a]


@dataclass
class Cast(Node):
    a: Node
    dt: str | None  # None: the dtype of `like`
    like: str | None = None  # an input or variable name: dsl.cast(a, like.dtype); "dsl.T": T

    def src(self):
        target = f"{self.like}.dtype" if self.dt is None else ("bool_" if self.dt == "bool" else self.dt)
        if self.like == "dsl.T":  # the op's element type T (an op without inputs of type T)
            target = "dsl.T"
        return f"dsl.cast({self.a.src()}, {target})"

    def children(self):
        return [self.a]


@dataclass
class Mm(Node):
    """``a @ b`` or ``a @ b.T`` of two 2-D inputs (the mm family's first statement)."""

    a: str
    b: str
    transpose: bool = False

    def src(self):
        return f"({self.a} @ {self.b}{'.T' if self.transpose else ''})"


@dataclass
class Cond:
    """A static condition: a bool attribute (maybe negated) or a Literal attribute test."""

    name: str
    choice: str | None = None  # None: bool flag
    negate: bool = False

    def src(self):
        if self.choice is None:
            return f"not {self.name}" if self.negate else self.name
        return f'{self.name} {"!=" if self.negate else "=="} "{self.choice}"'

    def value(self, attrs) -> bool:
        v = bool(attrs[self.name]) if self.choice is None else attrs[self.name] == self.choice
        return v != self.negate


@dataclass
class IfExp(Node):
    cond: Cond
    a: Node
    b: Node

    def src(self):
        return f"({self.a.src()} if {self.cond.src()} else {self.b.src()})"

    def children(self):
        return [self.a, self.b]


@dataclass
class Assign:
    name: str
    expr: Node


@dataclass
class IfStmt:
    cond: Cond
    then: list[Assign]
    orelse: list[Assign]


# Named dims of a tensor input (row programs) and the shape class of its values.
DIMS = {None: "", "row": '..., "C"', "rc": '"R", "C"', "col": '"C"'}
DIM_KIND = {None: "tensor", "row": "row", "rc": "row", "col": "col"}
# The rowin family adds inputs of one value per row ([..., 1], ["R", 1], [..., "S", 1]) and rows
# [..., "S", "C"] with a block ["S", "C"] that repeats along their leading dims.
DIMS.update(
    {"prow": "..., 1", "rprow": '"R", 1', "srow": '..., "S", "C"', "sprow": '..., "S", 1', "blk": '"S", "C"'}
)
DIM_KIND.update({"prow": "prow", "rprow": "prow", "srow": "row", "sprow": "prow", "blk": "blk"})
# The mm family: x ["M", "K"] @ w ["K", "N"] (or w ["N", "K"] with .T), then an epilogue on
# [M, N] values with inputs [M, N], [N] (per channel) and [M, 1] (per token).
DIMS.update(
    {"mk": '"M", "K"', "kn": '"K", "N"', "nk": '"N", "K"', "mn": '"M", "N"', "n": '"N"', "m1": '"M", 1'}
)
DIM_KIND.update({"mk": "mat", "kn": "mat", "nk": "mat", "mn": "row", "n": "col", "m1": "prow"})
ROW_FAMILIES = ("rows", "rowin", "mm")


@dataclass
class InputDecl:
    name: str
    kind: str  # tensor | scalar
    pinned: str | None = None
    optional: bool = False
    dims: str | None = None  # None (unshaped) | row ([..., "C"]) | rc (["R", "C"]) | col (["C"])

    def src(self):
        ann = "Tensor" if self.kind == "tensor" else "Scalar"
        pinned = "bool_" if self.pinned == "bool" else self.pinned
        sub = ", ".join(x for x in (pinned, DIMS[self.dims]) if x)
        if sub:
            ann += f"[{sub}]"
        return f"{self.name}: {ann} | None = None" if self.optional else f"{self.name}: {ann}"


@dataclass
class AttrDecl:
    name: str
    kind: str  # bool | literal | int | float
    default: object
    choices: tuple = ()

    def src(self):
        if self.kind == "literal":
            lit = ", ".join(f'"{c}"' for c in self.choices)
            return f'{self.name}: Literal[{lit}] = "{self.default}"'
        return f"{self.name}: {self.kind} = {self.default!r}"


@dataclass
class Output:
    name: str  # output name ('y' for a single expression)
    expr: Node  # a Var or In for named returns, any expression for a single-expression return
    cond: Cond | None = None  # `name if cond else None`


@dataclass
class Program:
    seed: int
    name: str
    dtypes: tuple[str, ...]
    inputs: list[InputDecl]
    attrs: list[AttrDecl]
    body: list
    outputs: list[Output]
    single: bool = False  # `return <expr>`
    family: str = "flat"  # flat | bcast (broadcast=True) | rows (named dims, reductions)

    @property
    def has_T_input(self) -> bool:
        return any(d.pinned is None for d in self.inputs)

    @property
    def exact(self) -> bool:
        return not any(inexact_node(n) for n in self.nodes())

    @property
    def reduces_to_zero_sign(self) -> bool:
        """A max/min reduction: which of +0.0 and -0.0 it returns is not part of the contract."""
        return any(isinstance(n, Red) and n.kind in ("max", "min") for n in self.nodes())

    def nodes(self):
        for s in self.body:
            for a in [s] if isinstance(s, Assign) else s.then + s.orelse:
                yield from a.expr.walk()
        for o in self.outputs:
            yield from o.expr.walk()

    def source(self) -> str:
        params = ", ".join(d.src() for d in self.inputs)
        if self.attrs:
            params += ", *, " + ", ".join(a.src() for a in self.attrs)
        uses_math = any(isinstance(n, Lit) and n.text and "math." in n.text for n in self.nodes())
        lines = [
            *(["import math"] if uses_math else []),
            "import dsl",
            "from typing import Literal",
            "from dsl import Tensor, Scalar, f16, bf16, f32, i8, i32, u8, bool_",
            "",
            "",
            f"@dsl.op(dtypes=({', '.join(self.dtypes)},){', broadcast=True' if self.family == 'bcast' else ''})",
            f"def {self.name}({params}):",
        ]
        for s in self.body:
            if isinstance(s, Assign):
                lines.append(f"    {s.name} = {s.expr.src()}")
            else:
                lines.append(f"    if {s.cond.src()}:")
                lines += [f"        {a.name} = {a.expr.src()}" for a in s.then]
                lines.append("    else:")
                lines += [f"        {a.name} = {a.expr.src()}" for a in s.orelse]
        if self.single:
            lines.append(f"    return {self.outputs[0].expr.src()}")
        else:
            rets = [
                o.name if o.cond is None else f"{o.name} if {o.cond.src()} else None" for o in self.outputs
            ]
            lines.append(f"    return {', '.join(rets)}")
        return "\n".join(lines) + "\n"


# -- the oracle: DESIGN.md section 2 in numpy ----------------------------------------------------


class Oracle:
    """Evaluates a program for one T. With ``values=False`` only types are computed (the
    generator uses that to keep programs valid); ``Invalid`` means a DslError is due."""

    def __init__(self, prog: Program, T: str, inputs: dict, attrs: dict, values: bool = True):
        self.prog, self.T, self.inputs, self.attrs, self.values = prog, T, inputs, attrs, values
        self.decls = {d.name: d for d in prog.inputs}
        self.attr_decls = {a.name: a for a in prog.attrs}

    # numbers take a type
    def materialize(self, w: Weak, like: str | None) -> Val:
        if isinstance(w.value, float) and math.isnan(w.value):
            raise Invalid("a NaN constant")
        if isinstance(w.value, float) and math.isinf(w.value) and like is not None and is_int(like):
            raise Invalid("an infinity with an integer partner")
        if like is None:
            dt = "f32" if w.isfloat and not is_float(self.T) else self.T
        elif like == "bool":
            raise Invalid("numbers cannot be combined with bool values")
        elif w.isfloat and not is_float(like):
            dt = "f32"
        else:
            dt = like
        if is_int(dt):
            v = int(w.value)
            info = np.iinfo(NP[dt])
            if not info.min <= v <= info.max:
                raise Invalid(f"{v} does not fit {dt}")
            return Val("scalar", dt, np.array([v], NP[dt]))
        return Val("scalar", dt, np.array([w.value], np.float32))

    def value(self, x, like: str | None = None) -> Val:
        return self.materialize(x, like) if isinstance(x, Weak) else x

    @staticmethod
    def float_if_either(a: Weak, b: Weak) -> Weak:
        return Weak(float(a.value), True, a.attr) if (a.isfloat or b.isfloat) else a

    def pair(self, a, b) -> tuple[Val, Val]:
        if isinstance(a, Weak) and not isinstance(b, Weak):
            b = self.value(b)
            return self.materialize(a, b.dt), b
        a = self.value(a)
        return a, self.value(b, a.dt)

    def conv(self, v: Val, dt: str) -> np.ndarray:
        return v.arr.astype(compute_np(dt))

    @staticmethod
    def kind(*vals: Val) -> str:
        """Combined shape class: a row with a column or a per-row value is a row, and so is a
        column with a per-row value ([C] with [..., 1])."""
        kinds = {v.kind for v in vals} - {"scalar"}
        if not kinds:
            return "scalar"
        if kinds == {"blk", "col"}:  # [S, C] with [C]: still the block
            return "blk"
        return kinds.pop() if len(kinds) == 1 else "row"

    def int_result(self, r64: np.ndarray, dt: str) -> np.ndarray:
        info = np.iinfo(NP[dt])
        if r64.size and (r64.min() < info.min or r64.max() > info.max):
            raise Overflow(dt)
        return r64.astype(NP[dt])

    # operations
    def binary(self, op: str, a, b):
        if isinstance(a, Weak) and isinstance(b, Weak) and (a.attr or b.attr):
            a = self.materialize(self.float_if_either(a, b), None)
        if isinstance(a, Weak) and isinstance(b, Weak):
            x, y = a.value, b.value
            if op == "/" and y == 0:
                raise Invalid("division by the constant zero")
            r = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y}.get(
                op, lambda: max(x, y) if op == "max" else min(x, y)
            )()
            return Weak(r, isinstance(r, float))
        a, b = self.pair(a, b)
        if "bool" in (a.dt, b.dt):
            raise Invalid("arithmetic on bool")
        dt = promote(a.dt, b.dt)
        if op == "/" and not is_float(dt):
            raise Invalid("division needs floating-point operands")
        out = Val(self.kind(a, b), dt, None)
        if self.values:
            x, y = self.conv(a, dt), self.conv(b, dt)
            fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}.get(op)
            fn = fn or (np.maximum if op == "max" else np.minimum)
            if is_float(dt):
                with np.errstate(all="ignore"):
                    out.arr = fn(x, y).astype(np.float32)
            else:
                out.arr = self.int_result(fn(x.astype(np.int64), y.astype(np.int64)), dt)
        return out

    def neg(self, a):
        if isinstance(a, Weak) and a.attr is None:
            return Weak(-a.value, a.isfloat)
        a = self.value(a)
        if a.dt == "bool":
            raise Invalid("neg of bool")
        out = Val(a.kind, a.dt, None)
        if self.values:
            out.arr = -a.arr if is_float(a.dt) else self.int_result(-a.arr.astype(np.int64), a.dt)
        return out

    def unary(self, fn: str, a):
        if fn in ("abs", "relu"):
            if isinstance(a, Weak) and a.attr is None:
                r = abs(a.value) if fn == "abs" else max(a.value, 0)
                return Weak(r, isinstance(r, float))
            a = self.value(a)
            if a.dt == "bool":
                raise Invalid(f"{fn} of bool")
            out = Val(a.kind, a.dt, None)
            if self.values:
                if fn == "relu":
                    out.arr = np.maximum(a.arr, np.zeros((), a.arr.dtype))
                elif is_float(a.dt):
                    out.arr = np.abs(a.arr)
                else:
                    out.arr = self.int_result(np.abs(a.arr.astype(np.int64)), a.dt)
            return out
        if isinstance(a, Weak):
            a = Weak(float(a.value), True, a.attr)
        a = self.value(a)
        if not is_float(a.dt):
            raise Invalid(f"{fn} needs a float operand")
        out = Val(a.kind, a.dt, None)
        if self.values:
            x = a.arr
            one = np.float32(1)
            with np.errstate(all="ignore"):
                r = {
                    "round": np.rint,
                    "sqrt": np.sqrt,
                    "rsqrt": lambda v: one / np.sqrt(v),
                    "exp": np.exp,
                    "log": np.log,
                    "tanh": np.tanh,
                    "sigmoid": lambda v: one / (one + np.exp(-v)),
                    "reciprocal": lambda v: one / v,
                }[fn](x)
            out.arr = np.asarray(r, np.float32)
        return out

    def compare(self, op: str, a, b):
        if isinstance(a, Weak) and isinstance(b, Weak):
            if not (a.attr or b.attr):
                raise Invalid("comparing two constants")
            a = self.materialize(self.float_if_either(a, b), None)
        a, b = self.pair(a, b)
        dt = promote(a.dt, b.dt)
        out = Val(self.kind(a, b), "bool", None)
        if self.values:
            fn = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal}.get(op)
            fn = fn or (np.equal if op == "==" else np.not_equal)
            out.arr = fn(self.conv(a, dt), self.conv(b, dt))
        return out

    def where(self, c, a, b):
        c = self.value(c)
        if c.dt != "bool":
            raise Invalid("where needs a bool condition")
        if isinstance(a, Weak) and isinstance(b, Weak):
            a = self.materialize(self.float_if_either(a, b), None)
        a, b = self.pair(a, b)
        dt = a.dt if a.dt == b.dt else promote(a.dt, b.dt)
        out = Val(self.kind(c, a, b), dt, None)
        if self.values:
            out.arr = np.where(c.arr, self.conv(a, dt), self.conv(b, dt))
        return out

    def logic(self, n, args):
        """``&``, ``|``, ``~`` take bool values (comparisons, bool_ inputs) only."""
        if any(isinstance(a, Weak) or a.dt != "bool" for a in args):
            raise Invalid("& | ~ take bool values")
        out = Val(self.kind(*args), "bool", None)
        if self.values:
            if isinstance(n, Not):
                out.arr = ~args[0].arr
            else:
                out.arr = (np.logical_and if n.op == "&" else np.logical_or)(args[0].arr, args[1].arr)
        return out

    def reduce(self, kind: str, a):
        """``dsl.<kind>(a, axis=-1, keepdims=True)`` of a row: a per-row value of a's type
        (mean: floats only); f32 accumulation for floats, exact for integers."""
        if isinstance(a, Weak) or a.kind != "row":
            raise Invalid("reductions take a row")
        if a.dt == "bool" or (kind == "mean" and not is_float(a.dt)):
            raise Invalid(f"dsl.{kind} of {a.dt}")
        out = Val("prow", a.dt, None)
        if self.values:
            x = a.arr
            if kind in ("max", "min"):
                out.arr = (np.max if kind == "max" else np.min)(x, axis=-1, keepdims=True)
            elif is_float(a.dt):  # numpy's f32 sum (the order of the additions is not fixed)
                with np.errstate(all="ignore"):
                    r = np.sum(x.astype(np.float32), axis=-1, keepdims=True, dtype=np.float32)
                    out.arr = r / np.float32(x.shape[-1]) if kind == "mean" else r
            else:
                out.arr = self.int_result(np.sum(x.astype(np.int64), axis=-1, keepdims=True), a.dt)
        return out

    def matmul(self, n: Mm):
        """DESIGN 2: f16 x f16, bf16 x bf16 or i8 x i8; an f32 result summed in float64 and
        rounded (the runner draws operands whose sums are exact in f32), i8: exact i32."""
        a, b = self.ev(In(n.a), {}), self.ev(In(n.b), {})
        if a is ABSENT or b is ABSENT:
            return ABSENT
        if a.dt != b.dt or a.dt not in ("f16", "bf16", "i8"):
            raise Invalid("@ takes f16 x f16, bf16 x bf16 or i8 x i8")
        dt = "i32" if a.dt == "i8" else "f32"
        out = Val("row", dt, None)
        if self.values:
            wide = np.int64 if dt == "i32" else np.float64
            x, w = a.arr.astype(wide), b.arr.astype(wide)
            out.arr = (x @ (w.T if n.transpose else w)).astype(NP[dt])
        return out

    def cast(self, a, dt: str):
        a = self.value(a)
        if a.dt == dt and dt not in ("f16", "bf16"):
            return a
        # DESIGN 2: an f16/bf16 value holds its f32 result until a cast rounds it, even a cast to
        # its own type (rounding an input or an already rounded value again changes nothing)
        out = Val(a.kind, dt, None)
        if self.values:
            out.arr = cast_np(a.arr, a.dt, dt)
        return out

    def select(self, pred: bool, a, b):
        """A static choice; both sides are typed (the frontend lowers both)."""
        if isinstance(a, Weak) and isinstance(b, Weak):
            a = self.materialize(a, None)
        a, b = self.pair(a, b)
        if not a.same_type(b):
            raise Invalid("the two branches have different types")
        return a if pred else b

    # evaluation
    def ev(self, n: Node, env: dict):
        if isinstance(n, In):
            d = self.decls[n.name]
            dt = d.pinned or self.T
            arr = None
            if self.values:
                arr = self.inputs.get(n.name)
                if arr is None:
                    return ABSENT
                arr = np.asarray(arr)
                # a bool_ input: any nonzero byte is true
                arr = arr.view(np.uint8) != 0 if dt == "bool" else arr.astype(compute_np(dt))
            return Val(DIM_KIND[d.dims] if d.kind == "tensor" else "scalar", dt, arr)
        if isinstance(n, Attr):
            a = self.attr_decls[n.name]
            v = self.attrs[n.name]
            return Weak(float(v) if a.kind == "float" else int(v), a.kind == "float", n.name)
        if isinstance(n, Lit):
            return Weak(n.value, isinstance(n.value, float))
        if isinstance(n, Var):
            return env[n.name]
        if isinstance(n, Mm):
            return self.matmul(n)
        if isinstance(n, IfExp):
            pred = n.cond.value(self.attrs)
            taken, other = (n.a, n.b) if pred else (n.b, n.a)
            tv = self.ev(taken, env)
            ov = self.typed(other, env)
            if tv is ABSENT:
                return ABSENT
            a, b = (tv, ov) if pred else (ov, tv)
            return self.select(pred, a, b)
        args = [self.ev(c, env) for c in n.children()]
        if any(a is ABSENT for a in args):
            return ABSENT
        if isinstance(n, Bin):
            return self.binary(n.op, *args)
        if isinstance(n, Neg):
            return self.neg(args[0])
        if isinstance(n, Un):
            return self.unary(n.fn, args[0])
        if isinstance(n, Sq):
            a = args[0]
            if isinstance(a, Weak) and a.attr is None:
                r = a.value**2
                return Weak(r, isinstance(r, float))
            a = self.value(a)
            return self.binary("*", a, a)
        if isinstance(n, Cmp):
            return self.compare(n.op, *args)
        if isinstance(n, Red):
            return self.reduce(n.kind, args[0])
        if isinstance(n, Where):
            return self.where(*args)
        if isinstance(n, (Logic, Not)):
            return self.logic(n, args)
        if isinstance(n, Cast):
            dt = n.dt
            if n.like == "dsl.T":
                dt = self.T
            elif dt is None:
                like = self.typed(In(n.like) if n.like in self.decls else Var(n.like), env)
                if isinstance(like, Weak):
                    raise Invalid("'.dtype' of a number")
                dt = like.dt
            return self.cast(args[0], dt)
        raise AssertionError(n)

    def typed(self, n: Node, env: dict):
        """``n`` evaluated for its type only (an untaken branch)."""
        saved = self.values
        self.values = False
        try:
            tenv = {k: (Val(v.kind, v.dt, None) if isinstance(v, Val) else v) for k, v in env.items()}
            return self.ev(n, tenv)
        finally:
            self.values = saved

    def run_body(self, env: dict) -> None:
        for s in self.prog.body:
            if isinstance(s, Assign):
                env[s.name] = self.ev(s.expr, env)
                continue
            pred = s.cond.value(self.attrs)
            blocks = {}
            for branch, stmts in ((True, s.then), (False, s.orelse)):
                benv = dict(env)
                if branch == pred:
                    for a in stmts:
                        benv[a.name] = self.ev(a.expr, benv)
                else:
                    tenv = {
                        k: (Val(v.kind, v.dt, None) if isinstance(v, Val) else v) for k, v in benv.items()
                    }
                    saved, self.values = self.values, False
                    try:
                        for a in stmts:
                            tenv[a.name] = self.ev(a.expr, tenv)
                    finally:
                        self.values = saved
                    benv = tenv
                blocks[branch] = benv
            for name in dict.fromkeys([a.name for a in s.then] + [a.name for a in s.orelse]):
                a, b = blocks[True].get(name), blocks[False].get(name)
                if a is None or b is None:
                    raise Invalid(f"'{name}' assigned in one branch only")
                if blocks[pred][name] is ABSENT:
                    env[name] = ABSENT
                    continue
                env[name] = self.select(pred, a, b)

    def outputs(self) -> list:
        """Output arrays in their storage dtypes (None: an absent optional output); in type
        mode, the outputs' Vals."""
        env: dict = {}
        self.run_body(env)
        outs = []
        for o in self.prog.outputs:
            v = self.ev(o.expr, env)
            if v is ABSENT:
                if o.cond is None or o.cond.value(self.attrs):
                    raise Invalid(f"output {o.name} needs an absent optional input")
                outs.append(None)
                continue
            if isinstance(v, Weak) or v.kind in ("scalar", "col", "blk"):
                raise Invalid(f"output {o.name} is not a tensor (or only a column or block)")
            if not self.values:
                outs.append(v)
            elif o.cond is not None and not o.cond.value(self.attrs):
                outs.append(None)
            else:
                with np.errstate(over="ignore"):
                    outs.append(v.arr.astype(NP[v.dt]))
        return outs


# -- the generator --------------------------------------------------------------------------------

TENSOR_NAMES = ["x", "a", "b", "w", "v", "g", "h", "p", "q", "m", "n", "z"]
# C library functions that are also CANN operator names or plain words users pick (no Python
# builtin the generated source calls: float, abs, max, min, round stay free)
C_LIBRARY_NAMES = ["div", "exp", "log", "sqrt", "tanh", "floor", "fma", "index", "time", "read", "write"]
C_LIBRARY_NAMES += ["signal", "free", "malloc", "select", "remove", "rand", "printf", "stdout", "erf"]
SCALAR_NAMES = ["s", "t", "scale", "shift", "lr"]
# Parameter names of the Operator API that are not keywords users pass (those are reserved,
# DESIGN 2): an attribute or input of one of these names must still be passed by keyword
API_PARAM_NAMES = ["self", "op", "arrays", "attrs", "args", "kwargs", "strict", "inputs", "values"]
# Words the generated kernels use for their own members and locals (rows_, step_, tile_, m_, ...):
# a user name like one of them must get a C++ name of its own
KERNEL_WORDS = ["rows", "cols", "step", "tile", "pitch", "inner", "block", "first", "last", "offset"]
KERNEL_WORDS += ["count", "chunks", "slots", "pack", "k", "scratch", "len", "slot", "tiles", "col0"]
# and the host's TilingFunc locals
KERNEL_WORDS += ["shape", "value", "key", "split", "want", "needed", "plat", "choice", "attrs"]
FLOAT_LITS = [0.5, 1.5, 2.0, -0.5, 0.25, 3.0, -1.25, 0.1, 0.0, -0.0, 1e-3, 100.0]
INT_LITS = [0, 1, 2, 3, 5, 7, 9, -1, -2, -3]


class Gen:
    """Builds a random valid program; every node is type-checked for every T as it is made."""

    def __init__(
        self,
        seed: int,
        family: str = "flat",
        bools: bool | None = None,
        api_and_no_T: bool = True,
        kernel_names: bool | None = None,
    ):
        self.seed = seed
        self.family = family
        self.rng = random.Random(seed if family == "flat" else f"{family}-{seed}")
        self.no_opt = False  # set while making the branch where the optional input may be absent
        self.probe_int_reduce = False
        # bool_ inputs, & | ~ and infinity literals: drawn from a second generator, so programs
        # without them (extended False) are exactly those of the earlier runs' seeds
        self.xrng = random.Random(f"bools-{family}-{seed}")
        self.extended = self.xrng.random() < 0.4 if bools is None else bools
        # explicit roundings of computed values to T (dsl.cast(v, x.dtype)): a third generator, in
        # half the seeds; bools=False turns them off too (the earlier runs' programs)
        self.crng = random.Random(f"casts-{family}-{seed}")
        self.tcasts = bools is not False and self.crng.random() < 0.5
        # C library names for the operator and its inputs (real CANN op names: div, exp, ...): a
        # fourth generator, a quarter of the seeds
        self.nrng = random.Random(f"names-{family}-{seed}")
        self.c_names = bools is not False and self.nrng.random() < 0.25
        # no input of type T (every tensor and Scalar pinned, outputs cast to dsl.T, the runner
        # passes dtype=): a fifth generator, about 15% of the seeds
        self.trng = random.Random(f"no-T-{family}-{seed}")
        self.no_T = bools is not False and api_and_no_T and self.trng.random() < 0.15
        # attributes and inputs named like parameters of op.reference/simulate/profile (self,
        # op, arrays, ...): a sixth generator, about 20% of the seeds
        self.krng = random.Random(f"api-names-{family}-{seed}")
        self.api_names = bools is not False and api_and_no_T and self.krng.random() < 0.2
        # inputs and attributes named like the kernel's own members: a seventh generator, about
        # 20% of the seeds
        self.mrng = random.Random(f"kernel-names-{family}-{seed}")
        # 20% of the seeds; by default only in the mm family (the other families' seeds keep the
        # programs the reproducers and CI seeds were found with; the fuzz runner turns it on)
        on = family == "mm" if kernel_names is None else kernel_names
        self.kernel_names = on and bools is not False and api_and_no_T and self.mrng.random() < 0.2

    def pick(self, seq):
        return self.rng.choice(seq)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def xchance(self, p: float) -> bool:
        return self.extended and self.xrng.random() < p

    def add_bool_input(self, inputs: list, dims: str | None) -> None:
        """A ``Tensor[bool_]`` mask (rows: with the row inputs' dims) at a random position."""
        if self.xchance(0.75):
            d = InputDecl(self.xrng.choice(["mask", "keep", "pad"]), "tensor", "bool", dims=dims)
            inputs.insert(self.xrng.randint(0, len(inputs)), d)

    def bool_inputs(self) -> list[str]:
        return [d.name for d in self.prog.inputs if d.pinned == "bool"]

    # typing of a candidate node under every T
    def types(self, node: Node) -> list | None:
        out = []
        for T in self.prog.dtypes:
            o = Oracle(self.prog, T, {}, self.attr_vals, values=False)
            try:
                out.append(o.ev(node, self.env[T]))
            except Invalid:
                return None
        return out

    def program(self) -> Program:
        if self.family == "mm":
            return self.mm_program()
        return self.shaped_program() if self.family != "flat" else self.flat_program()

    def name_like_libc(self, prog: Program) -> None:
        """Give the operator and some inputs C library names (before the body is drawn)."""
        if not self.c_names:
            return
        if self.nrng.random() < 0.7:
            prog.name = self.nrng.choice(C_LIBRARY_NAMES)
        taken = {d.name for d in prog.inputs} | {a.name for a in prog.attrs} | {prog.name}
        for d in prog.inputs:
            if d.name != "opt" and self.nrng.random() < 0.5:
                free = [n for n in C_LIBRARY_NAMES if n not in taken]
                d.name = self.nrng.choice(free)
                taken.add(d.name)

    def name_like_api(self, prog: Program) -> None:
        """Rename some attributes and inputs after Operator API parameters (before the body)."""
        if not self.api_names:
            return
        taken = {d.name for d in prog.inputs} | {a.name for a in prog.attrs} | {prog.name}
        for decl in list(prog.attrs) + [d for d in prog.inputs if d.name != "opt"]:
            if self.krng.random() < (0.6 if isinstance(decl, AttrDecl) else 0.25):
                free = [n for n in API_PARAM_NAMES if n not in taken]
                decl.name = self.krng.choice(free)
                taken.add(decl.name)

    def name_like_kernel(self, prog: Program) -> None:
        """Rename some inputs and attributes after the kernel's own members (before the body)."""
        if not self.kernel_names:
            return
        taken = {d.name for d in prog.inputs} | {a.name for a in prog.attrs} | {prog.name}
        for decl in list(prog.attrs) + [d for d in prog.inputs if d.name != "opt"]:
            if self.mrng.random() < 0.5:
                free = [n for n in KERNEL_WORDS if n not in taken and not spelling_clash(sorted(taken), n)]
                decl.name = self.mrng.choice(free)
                taken.add(decl.name)

    def pin_every_input(self, inputs: list) -> None:
        """No input of type T: pin each tensor (rows: to types the row backend reduces) and Scalar."""
        if not self.no_T:
            return
        pins = ["f32", "f16", "i32"] if self.family in ROW_FAMILIES else ["f32", "i32", "f16", "i8", "u8"]
        for d in inputs:
            if d.pinned is None:
                d.pinned = self.trng.choice(["f32", "i32"] if d.kind == "scalar" else pins)

    def flat_program(self) -> Program:
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            dtypes = tuple(sorted(rng.sample(FLOATS, rng.randint(1, 3)), key=FLOATS.index))
        elif r < 0.7:
            dtypes = ("i32",)
        else:
            dtypes = (self.pick(FLOATS), "i32")
        self.inexact = self.chance(0.2)
        self.probe_8bit = self.chance(0.02)  # exercise the documented 8-bit-arithmetic refusal
        names = rng.sample(TENSOR_NAMES, rng.randint(1, 4))
        inputs = [InputDecl(n, "tensor") for n in names]
        for d in inputs[1:]:
            if self.chance(0.15):
                d.pinned = self.pick(["f32", "i32", "f16", "i8", "u8"])
        for n in rng.sample(SCALAR_NAMES, rng.choice([0, 0, 1, 1, 2])):
            inputs.append(InputDecl(n, "scalar", self.pick(["f32", "i32"]) if self.chance(0.2) else None))
        rng.shuffle(inputs)
        self.add_bool_input(inputs, None)
        attrs: list[AttrDecl] = []
        for n in rng.sample(["flag", "fast"], rng.choice([0, 1, 1, 2])):
            attrs.append(AttrDecl(n, "bool", self.chance(0.5)))
        if self.chance(0.3):
            choices = ("p", "q", "r")[: rng.randint(2, 3)]
            attrs.append(AttrDecl("mode", "literal", self.pick(choices), choices))
        if self.chance(0.4):
            attrs.append(AttrDecl("k", "int", rng.randint(0, 4)))
        if self.chance(0.4):
            attrs.append(AttrDecl("alpha", "float", self.pick([0.5, 0.75, -1.5, 2.0])))
        rng.shuffle(attrs)
        bools = [a.name for a in attrs if a.kind == "bool"]
        if bools and self.chance(0.3):
            inputs.append(InputDecl("opt", "tensor", optional=True))
        self.pin_every_input(inputs)
        self.prog = Program(self.seed, f"fz{self.seed}", dtypes, inputs, attrs, [], [])
        self.name_like_libc(self.prog)
        self.name_like_api(self.prog)
        self.name_like_kernel(self.prog)
        self.attr_vals = {a.name: a.default for a in attrs}
        self.env = {T: {} for T in dtypes}
        self.vars: list[str] = []
        for _ in range(rng.randint(1, 5)):
            self.statement()
        self.make_outputs()
        return self.prog

    def shaped_program(self) -> Program:
        """A broadcasting program (``broadcast=True``: 2-3 unshaped tensors that numpy-broadcast
        at run time) or a row program (rows ``[..., "C"]`` or ``["R", "C"]``, columns ``["C"]``,
        reductions along the last axis used as per-row operands)."""
        rng = self.rng
        rows = self.family in ROW_FAMILIES
        r = rng.random()
        if rows:  # reductions take half/float on the vector unit: mostly float T
            dtypes = (
                tuple(sorted(rng.sample(FLOATS, rng.randint(1, 3)), key=FLOATS.index))
                if r < 0.8
                else ((self.pick(FLOATS), "i32") if r < 0.92 else ("i32",))
            )
        elif r < 0.5:
            dtypes = tuple(sorted(rng.sample(FLOATS, rng.randint(1, 3)), key=FLOATS.index))
        elif r < 0.75:
            dtypes = ("i32",)
        else:
            dtypes = (self.pick(FLOATS), "i32")
        self.inexact = self.chance(0.2)
        self.probe_8bit = False
        self.probe_int_reduce = rows and self.chance(0.05)
        names = rng.sample(TENSOR_NAMES, 4)
        if rows:
            style = "rc" if self.chance(0.25) else "row"
            if self.family == "rowin" and style == "row" and self.chance(0.5):
                style = "srow"
            inputs = [InputDecl(n, "tensor", dims=style) for n in names[: rng.randint(1, 2)]]
            inputs += [InputDecl(n, "tensor", dims="col") for n in names[2 : 2 + rng.choice([0, 1, 1, 2])]]
            if self.family == "rowin":  # one value per row, and (with [..., S, C]) a block [S, C]
                extra = [n for n in TENSOR_NAMES if n not in names]
                prow = {"row": "prow", "rc": "rprow", "srow": "sprow"}[style]
                inputs += [InputDecl(extra[0], "tensor", dims=prow)] if self.chance(0.8) else []
                if style == "srow" and self.chance(0.8):
                    inputs.append(InputDecl(extra[1], "tensor", dims="blk"))
        else:
            inputs = [InputDecl(n, "tensor") for n in names[: rng.randint(2, 3)]]
        for d in inputs[1:]:
            if self.chance(0.15):
                d.pinned = self.pick(["f32", "i32", "f16", "i8", "u8"] if not rows else ["f32", "f16", "i32"])
        for n in rng.sample(SCALAR_NAMES, rng.choice([0, 0, 1, 1, 2])):
            inputs.append(InputDecl(n, "scalar", self.pick(["f32", "i32"]) if self.chance(0.2) else None))
        rng.shuffle(inputs)
        self.add_bool_input(inputs, style if rows else None)
        attrs: list[AttrDecl] = []
        for n in rng.sample(["flag", "fast"], rng.choice([0, 1, 1, 2])):
            attrs.append(AttrDecl(n, "bool", self.chance(0.5)))
        if self.chance(0.25):
            choices = ("p", "q", "r")[: rng.randint(2, 3)]
            attrs.append(AttrDecl("mode", "literal", self.pick(choices), choices))
        if self.chance(0.35):
            attrs.append(AttrDecl("k", "int", rng.randint(0, 4)))
        if self.chance(0.35):
            attrs.append(AttrDecl("alpha", "float", self.pick([0.5, 0.75, -1.5, 2.0])))
        rng.shuffle(attrs)
        if any(a.kind == "bool" for a in attrs) and self.chance(0.25):
            inputs.append(InputDecl("opt", "tensor", optional=True, dims="col" if rows else None))
        prefix = "q" if self.family == "rowin" else self.family[0]
        self.pin_every_input(inputs)
        self.start(f"{prefix}z{self.seed}", dtypes, inputs, attrs)
        for _ in range(rng.randint(1, 5)):
            self.statement()
        self.make_outputs()
        return self.prog

    def start(self, name: str, dtypes: tuple, inputs: list, attrs: list) -> None:
        """The program of the shaped families with its declarations and no body yet (its names
        drawn from the side streams)."""
        self.prog = Program(self.seed, name, dtypes, inputs, attrs, [], [])
        self.prog.family = self.family
        self.name_like_libc(self.prog)
        self.name_like_api(self.prog)
        self.name_like_kernel(self.prog)
        self.attr_vals = {a.name: a.default for a in attrs}
        self.env = {T: {} for T in dtypes}
        self.vars: list[str] = []

    def mm_program(self) -> Program:
        """``v0 = x @ w`` (or ``x @ w.T``; f16/bf16, a fifth i8) and an epilogue on [M, N]
        values: inputs [M, N], [N] (per channel), [M, 1] (per token), Scalars, a bool_ mask,
        reductions along N, the attributes and casts of the other families."""
        rng = self.rng
        dtypes = tuple(sorted(rng.sample(["f16", "bf16"], rng.randint(1, 2)), key=FLOATS.index))
        names = rng.sample(TENSOR_NAMES, 6)
        transpose = self.chance(0.5)
        x = InputDecl(names[0], "tensor", dims="mk")
        w = InputDecl(names[1], "tensor", dims="nk" if transpose else "kn")
        if self.chance(0.2):
            x.pinned = w.pinned = "i8"
        inputs = [x, w]
        for n, dims in zip(names[2:], ["mn", "n", "n", "m1"]):
            if self.chance(0.4):
                pinned = self.pick(["f32", "f16", "i32"]) if self.chance(0.3) else None
                inputs.append(InputDecl(n, "tensor", pinned, dims=dims))
        for n in rng.sample(SCALAR_NAMES, rng.choice([0, 0, 1, 1, 2])):
            inputs.append(InputDecl(n, "scalar", self.pick(["f32", "i32"]) if self.chance(0.2) else None))
        rng.shuffle(inputs)
        self.add_bool_input(inputs, "mn")
        attrs: list[AttrDecl] = []
        for n in rng.sample(["flag", "fast"], rng.choice([0, 1, 1, 2])):
            attrs.append(AttrDecl(n, "bool", self.chance(0.5)))
        if self.chance(0.25):
            choices = ("p", "q", "r")[: rng.randint(2, 3)]
            attrs.append(AttrDecl("mode", "literal", self.pick(choices), choices))
        if self.chance(0.35):
            attrs.append(AttrDecl("alpha", "float", self.pick([0.5, 0.75, -1.5, 2.0])))
        rng.shuffle(attrs)
        if any(a.kind == "bool" for a in attrs) and self.chance(0.25):
            inputs.append(InputDecl("opt", "tensor", optional=True, dims="n"))
        self.inexact = self.chance(0.2)
        self.probe_8bit = False
        if not any(d.pinned is None and not d.optional for d in inputs):
            self.no_T = True  # i8 operands and no required input of type T: outputs cast to dsl.T
        if self.no_T:  # no input of type T: the operands pinned too (i8, or f16 for T = bf16)
            if x.pinned is None:
                x.pinned = w.pinned = "i8" if dtypes != ("bf16",) or self.trng.random() < 0.5 else "f16"
            self.pin_every_input(inputs)
        self.start(f"mz{self.seed}", dtypes, inputs, attrs)
        self.assign("v0", Mm(x.name, w.name, transpose), self.prog.body)
        for _ in range(rng.randint(0, 4)):
            self.statement()
        self.make_outputs()
        if not any(self.uses_product(o.expr) for o in self.prog.outputs):  # the product reaches an output
            node = Cast(Var("v0"), None, "dsl.T") if self.no_T else Var("v0")
            if self.prog.single:
                self.prog.outputs[0].expr = node
            else:
                self.assign("o_mm", node, self.prog.body)
                self.prog.outputs.append(Output("o_mm", Var("o_mm")))
        return self.prog

    def uses_product(self, node: Node) -> bool:
        """``node`` reads ``v0`` (the product), through the variables it reads."""
        for n in node.walk():
            if isinstance(n, Mm) or (isinstance(n, Var) and n.name == "v0"):
                return True
            if isinstance(n, Var):
                for st in self.prog.body:
                    for asg in [st] if isinstance(st, Assign) else st.then + st.orelse:
                        if asg.name == n.name and self.uses_product(asg.expr):
                            return True
        return False

    # statements
    def assign(self, name: str, node: Node, into: list) -> None:
        for T, t in zip(self.prog.dtypes, self.types(node)):
            self.env[T][name] = t
        into.append(Assign(name, node))
        if name not in self.vars:
            self.vars.append(name)

    def statement(self) -> None:
        conds = self.conds()
        name = f"v{len(self.vars)}"
        if conds and self.chance(0.2):
            cond = self.pick(conds)
            a = self.expr(2)
            b = self.matching(a, 2)
            if b is not None:
                names = [name]
                stmt = IfStmt(cond, [Assign(name, a)], [Assign(name, b)])
                node = IfExp(cond, a, b)  # same typing as the merged if/else
                for T, t in zip(self.prog.dtypes, self.types(node)):
                    self.env[T][name] = t
                self.prog.body.append(stmt)
                self.vars.extend(names)
                return
        self.assign(name, self.expr(3), self.prog.body)

    def conds(self) -> list[Cond]:
        out = []
        for a in self.prog.attrs:
            if a.kind == "bool":
                out += [Cond(a.name), Cond(a.name, negate=True)]
            elif a.kind == "literal":
                out += [Cond(a.name, c, self.chance(0.3)) for c in a.choices]
        return out

    def matching(self, a: Node, depth: int) -> Node | None:
        """Another expression of a's type under every T (for the other branch)."""
        ta = self.types(a)
        if ta is None:
            return None
        for _ in range(12):
            b = self.expr(depth)
            tb = self.types(b)
            if tb is not None and all(self.same(x, y) for x, y in zip(ta, tb)):
                return b
        for b in (Neg(a), Bin("*", a, Lit(2)), a):
            if self.no_opt and any(isinstance(n, In) and n.name == "opt" for n in b.walk()):
                break
            tb = self.types(b)
            if tb is not None and all(self.same(x, y) for x, y in zip(ta, tb)) and self.allowed(b):
                return b
        return None

    @staticmethod
    def same(x, y) -> bool:
        if isinstance(x, Weak) or isinstance(y, Weak):
            return False  # numbers on both sides take types by rules the generator avoids
        return x.same_type(y)

    # expressions
    def leaf(self) -> Node:
        ins = [d for d in self.prog.inputs if not d.optional and d.pinned != "bool"]
        tensors = [d.name for d in ins if d.kind == "tensor" and DIM_KIND[d.dims] != "mat"]
        if self.xchance(0.06):
            value = self.xrng.choice([math.inf, -math.inf])
            return Lit(value, self.xrng.choice(INF_SPELLINGS[value]))
        scalars = [d.name for d in ins if d.kind == "scalar"]
        run_attrs = [a.name for a in self.prog.attrs if a.kind in ("int", "float")]
        r = self.rng.random()
        if (r < 0.45 or not (scalars or run_attrs or self.vars)) and tensors:
            return In(self.pick(tensors))
        if r < 0.45 and not tensors:  # an mm program without [M, N], [N] or [M, 1] inputs
            return Var(self.pick(self.vars))
        if r < 0.6 and self.vars:
            return Var(self.pick(self.vars))
        if r < 0.7 and scalars:
            return In(self.pick(scalars))
        if r < 0.8 and run_attrs:
            return Attr(self.pick(run_attrs))
        return Lit(self.pick(FLOAT_LITS) if self.chance(0.5) else self.pick(INT_LITS))

    def expr(self, depth: int) -> Node:
        for _ in range(20):
            node = self.candidate(depth)
            if self.types(node) is not None and self.allowed(node):
                return node
        for _ in range(50):
            node = self.leaf()
            if self.types(node) is not None:
                return node
        return In(next(d.name for d in self.prog.inputs if d.kind == "tensor" and not d.optional))

    def candidate(self, depth: int) -> Node:
        if depth > 0 and self.xchance(0.08):
            return self.condition(depth - 1)  # a bool value (an output, a cast, a where branch)
        if depth > 0 and self.tcasts and self.crng.random() < 0.1:
            return self.rounding_cast(self.expr(depth - 1))
        if depth <= 0 or self.chance(0.25):
            return self.leaf()
        k = self.pick(
            ["bin"] * 6
            + ["maxmin", "neg", "abs", "relu", "round", "sq", "where", "where", "cast", "cast"]
            + ["cast", "ifexp", "div", "cmpcast"]
            + (["math", "math"] if self.inexact else [])
            + (["opt"] if any(d.optional for d in self.prog.inputs) else [])
            + (["red"] * 3 if self.family in ROW_FAMILIES else [])
        )
        a = self.expr(depth - 1)
        if k == "red":
            kind = self.pick(["sum", "mean", "max", "min", "max", "min"])
            if not self.row_typed(a):
                a = Bin(self.pick("+*"), a, self.row_leaf())
            return Red(kind, a)
        if k == "bin":
            return Bin(self.pick("+-*"), a, self.expr(depth - 1))
        if k == "div":
            return Bin("/", a, self.divisor(depth - 1))
        if k == "maxmin":
            return Bin(self.pick(["max", "min"]), a, self.expr(depth - 1))
        if k == "neg":
            return Neg(a)
        if k in ("abs", "relu"):
            return Un(k, a)
        if k == "round":
            return Un("round", self.as_float(a))
        if k == "sq":
            return Sq(a)
        if k == "math":
            fn = self.pick(["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "reciprocal"])
            a = self.as_float(a)
            if fn == "exp":
                return Un("exp", Bin("min", a, Lit(8.0)))
            if fn in ("log", "sqrt", "rsqrt", "reciprocal"):
                return Un(fn, Bin("+", Un("abs", a), Lit(1.0)))
            return Un(fn, a)
        if k == "where":
            return Where(self.condition(depth - 1), a, self.expr(depth - 1))
        if k in ("cast", "cmpcast"):
            if k == "cmpcast":
                a = self.condition(depth - 1)
            if self.chance(0.15):
                like = [d.name for d in self.prog.inputs if not d.optional] + self.vars
                return Cast(a, None, self.pick(like))
            if self.no_T and self.trng.random() < 0.3:
                return Cast(a, None, "dsl.T")
            return Cast(a, self.pick(ALL))
        if k == "ifexp":
            conds = self.conds()
            if not conds:
                return Bin("+", a, self.expr(depth - 1))
            b = self.matching(a, depth - 1)
            return IfExp(self.pick(conds), a, b) if b is not None else a
        if k == "opt" and not self.no_opt:
            # the optional input only where a bool attribute is true (the runner passes it then)
            flag = self.pick([c for c in self.conds() if c.choice is None and not c.negate])
            used = Bin(self.pick("+-*"), a, In("opt"))
            if self.types(used) is None:
                return a
            self.no_opt = True
            try:
                b = self.matching(used, depth - 1)
            finally:
                self.no_opt = False
            return IfExp(flag, used, b) if b is not None else a
        if k == "opt":
            return a
        raise AssertionError(k)

    def rounding_cast(self, a: Node) -> Node:
        """An explicit rounding of a computed value to T (DESIGN 2): ``dsl.cast(v, x.dtype)`` or
        the round trip ``dsl.cast(dsl.cast(v, f32), x.dtype)``, x an input of type T."""
        like = [d.name for d in self.prog.inputs if d.kind == "tensor" and not d.optional and not d.pinned]
        if self.no_T:
            like = ["dsl.T"]
        if not like:
            return Cast(a, self.crng.choice(FLOATS))
        if self.crng.random() < 0.5:
            a = Cast(a, "f32")
        return Cast(a, None, self.crng.choice(like))

    def condition(self, depth: int) -> Node:
        masks = self.bool_inputs()
        if masks and self.xchance(0.3):
            return In(self.xrng.choice(masks))
        if depth > 0 and self.xchance(0.3):
            return Logic(self.xrng.choice("&|"), self.condition(depth - 1), self.condition(depth - 1))
        if depth > 0 and self.xchance(0.12):
            return Not(self.condition(depth - 1))
        a = self.expr(depth)
        return Cmp(self.pick([">", ">=", "<", "<=", "==", "!="]), a, self.expr(depth))

    def divisor(self, depth: int) -> Node:
        r = self.rng.random()
        if r < 0.3:
            return Lit(self.pick([2.0, 4.0, 0.5, -3.0, 8.0]))
        if r < 0.5:
            return Bin("+", Un("abs", self.as_float(self.expr(depth))), Lit(1.0))
        return self.expr(depth)

    def as_float(self, a: Node) -> Node:
        ts = self.types(a)
        if ts is not None and all(isinstance(t, Val) and is_float(t.dt) for t in ts):
            return a
        return Cast(a, self.pick(["f32", "f16", "bf16"]))

    def allowed(self, node: Node) -> bool:
        """What the generator avoids: arithmetic on bools and (unless probing) on i8/u8, inexact
        values flowing into comparisons, casts, round or conditions (the precision standard
        does not carry through those), and Weak-only outputs."""
        ts = self.types(node)
        if ts is None:
            return False
        for T in self.prog.dtypes:
            for sub in node.walk():
                st = Oracle(self.prog, T, {}, self.attr_vals, values=False)
                if isinstance(sub, (Bin, Neg, Sq)) or (isinstance(sub, Un) and sub.fn == "abs"):
                    try:
                        t = st.ev(sub, self.env[T])
                    except Invalid:
                        return False
                    small = isinstance(t, Val) and t.dt in ("i8", "u8")
                    if small and not (self.probe_8bit and isinstance(sub, Bin)):
                        return False
                if isinstance(sub, Red) and not self.probe_int_reduce:
                    try:
                        t = st.ev(sub.a, self.env[T])
                    except Invalid:
                        return False
                    if isinstance(t, Val) and not is_float(t.dt):
                        return False  # (the row backend reduces half/float: refused)
                if isinstance(sub, (Cmp, Cast, Where, Logic, Not)) or (
                    isinstance(sub, Un) and sub.fn == "round"
                ):
                    kids = [sub.c] if isinstance(sub, Where) else sub.children()
                    if any(self.tainted(c) for c in kids):
                        return False
        return True

    def tainted(self, node: Node) -> bool:
        for n in node.walk():
            if inexact_node(n):
                return True
            if isinstance(n, Var) and self.var_tainted(n.name):
                return True
        return False

    def var_tainted(self, name: str) -> bool:
        for s in self.prog.body:
            for a in [s] if isinstance(s, Assign) else s.then + s.orelse:
                if a.name == name and self.tainted(a.expr):
                    return True
        return False

    def tensor_typed(self, node: Node) -> bool:
        """An output can hold it: a tensor (in row programs a row or a per-row value)."""
        ts = self.types(node)
        return ts is not None and all(
            isinstance(t, Val) and t.kind not in ("scalar", "col", "blk") for t in ts
        )

    def row_typed(self, node: Node) -> bool:
        ts = self.types(node)
        return ts is not None and all(isinstance(t, Val) and t.kind == "row" for t in ts)

    def row_inputs(self) -> list[str]:
        return [
            d.name
            for d in self.prog.inputs
            if d.kind == "tensor"
            and not d.optional
            and DIM_KIND[d.dims] in ("tensor", "row")
            and d.pinned != "bool"
        ]

    def row_leaf(self, choose=None) -> Node:
        """A row operand: a row input, or in an mm program without [M, N] inputs the product."""
        tensors = self.row_inputs()
        if not tensors:
            return Var("v0")
        return In((choose or self.pick)(tensors))

    def make_outputs(self) -> None:
        prog, rng = self.prog, self.rng
        taken = {d.name for d in prog.inputs} | {a.name for a in prog.attrs}
        if self.chance(0.12):  # a single expression (or a single input): output y
            prog.single = True
            node = self.row_leaf() if self.chance(0.25) else self.expr(3)
            if not self.tensor_typed(node):
                node = Bin("+", node, self.row_leaf())
                if not (self.tensor_typed(node) and self.allowed(node)):
                    node = self.row_leaf(lambda names: names[0])
            if self.no_T:
                node = Cast(node, None, "dsl.T")
                if not self.allowed(node):
                    node = Cast(self.row_leaf(self.trng.choice), None, "dsl.T")
            name = next(n for n in ("y", "out", "y_out", "result") if n not in taken)
            prog.outputs = [Output(name, node)]
            return
        outs = [v for v in self.vars if self.tensor_typed(Var(v))]
        rng.shuffle(outs)
        outs = outs[: rng.randint(1, 3)]
        extra = 0
        if self.chance(0.25) and outs:  # another output holding the same value
            alias = f"o{extra}"
            self.assign(alias, Var(self.pick(outs)), prog.body)
            outs.append(alias)
            extra += 1
        if self.chance(0.25):  # an output holding an input unchanged
            alias = f"o{extra}"
            x = self.row_leaf()
            self.assign(alias, Bin("*", Lit(1), x) if self.chance(0.5) else x, prog.body)
            outs.append(alias)
            extra += 1
        if self.bool_inputs() and self.xchance(0.3):  # a bool_ input returned: a copy of its bytes
            alias = f"o{extra}"
            self.assign(alias, In(self.xrng.choice(self.bool_inputs())), prog.body)
            outs.append(alias)
            extra += 1
        if not outs:
            alias = f"o{extra}"
            self.assign(alias, Bin("+", self.row_leaf(), Lit(1)), prog.body)
            outs.append(alias)
        if self.no_T:  # an output of type T: a cast of a value the program computed
            alias = "o_t"
            src = self.trng.choice(outs)
            node = Cast(Var(src), None, "dsl.T")
            if not self.allowed(node):  # (an inexact value: cast before the approximate math)
                node = Cast(self.row_leaf(self.trng.choice), None, "dsl.T")
            self.assign(alias, node, prog.body)
            outs.append(alias)
        flags = [c for c in self.conds() if c.choice is None]
        prog.outputs = [Output(o, Var(o)) for o in outs]
        if flags and self.chance(0.2):
            prog.outputs[-1].cond = self.pick(flags)


FAMILIES = ("flat", "bcast", "rows", "rowin", "mm")


def generate(
    seed: int,
    family: str = "flat",
    bools: bool | None = None,
    api_and_no_T: bool = True,
    kernel_names: bool | None = None,
) -> Program:
    """The program of ``seed`` in ``family`` (the flat family's seeds are those of earlier runs).
    About 40% of the seeds (a draw of their own) also use bool_ inputs, & | ~ and infinity
    literals; ``bools=False`` gives every seed its program from before those existed (the
    reproducer seeds of tests/e2e/test_fuzz_family_reproducers.py), ``True`` forces them.
    ``api_and_no_T=False`` turns off the later no-T and API-names streams only (the programs of
    seeds found with every other stream on)."""
    return Gen(seed, family, bools, api_and_no_T, kernel_names).program()


# -- running one program ---------------------------------------------------------------------------


def same_bits(a, b, zero_sign: bool = True) -> bool:
    """Equal dtypes, shapes and values; NaN equals NaN (any payload); -0.0 differs from 0.0
    (unless ``zero_sign`` is False: a max/min reduction may return either)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or a.dtype == BF16:
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        nan = np.isnan(fa) & np.isnan(fb)
        sign = (np.signbit(fa) == np.signbit(fb)) | (not zero_sign)
        return bool(np.all(nan | ((fa == fb) & sign)))
    return bool(np.array_equal(a, b))


@dataclass
class Outcome:
    seed: int
    status: str  # ok | refused | failed | discarded
    reason: str = ""
    detail: str = ""
    runs: int = 0
    exact: bool = True
    seconds: float = 0.0
    source: str = ""


def draw_shapes(prog: Program, rng: np.random.Generator) -> dict | None:
    """Run-time shapes of the tensor inputs: None for flat programs (one length n for all).
    Broadcasting: a result shape of 1-8 dims (sizes 1..130, now and then 0) and, per input, a
    suffix of it with some axes 1. Rows: R rows (one to three leading dims, or exactly one for
    ["R", "C"]) of C columns (now and then more than UB holds: the column-chunked kernel)."""
    if prog.family == "flat":
        return None
    tensors = [d for d in prog.inputs if d.kind == "tensor"]
    shapes = {}
    if prog.family == "bcast":
        nd = int(rng.choice([1, 2, 2, 3, 3, 4, 5, 6, 8]))
        out, total = [], 1
        for _ in range(nd):
            size = int(rng.choice([1, 2, 3, 4, 5, 7, 8, 16, 33, 64, 130]))
            size = max(1, min(size, 6000 // total))
            out.append(0 if rng.random() < 0.03 else size)
            total *= max(size, 1)
        for d in tensors:
            k = int(rng.integers(1, nd + 1)) if rng.random() < 0.5 else nd
            shapes[d.name] = tuple(1 if rng.random() < 0.3 else s for s in out[nd - k :])
        return shapes
    if prog.family == "mm":
        M = int(rng.choice([1, 2, 7, 16, 33, 64, 100]))
        K = int(rng.choice([1, 16, 33, 64, 200, 512]))
        N = int(rng.choice([1, 8, 16, 33, 70, 128, 300]))
        sizes = {"M": M, "K": K, "N": N}
        return {d.name: tuple(sizes.get(x.strip('" '), 1) for x in DIMS[d.dims].split(",")) for d in tensors}
    rc = any(d.dims == "rc" for d in tensors)
    S = [int(rng.choice([1, 2, 5, 7]))] if any(d.dims == "srow" for d in tensors) else []
    C = int(rng.choice([1, 5, 16, 33, 100, 255, 1000, 1024, 3000] + [20000] * (len(prog.dtypes) < 3)))
    lead = (
        [int(rng.choice([1, 2, 3, 7, 33]))]
        if rc
        else [int(rng.choice([1, 2, 3, 5, 17])) for _ in range(rng.integers(1, 4))]
    )
    while np.prod(lead) * C * max(S + [1]) > 40000 and max(lead) > 1:
        lead[int(np.argmax(lead))] //= 2
    for d in tensors:
        if d.dims == "col":
            shapes[d.name] = (C,)
        elif d.dims == "blk":
            shapes[d.name] = tuple(S) + (C,)
        elif DIM_KIND[d.dims] == "prow":
            shapes[d.name] = tuple(lead) + tuple(S) + (1,)
        else:
            shapes[d.name] = tuple(lead) + tuple(S) + (C,)
    return shapes


def draw_inputs(
    prog: Program,
    T: str,
    rng: np.random.Generator,
    n: int,
    scale: float,
    attrs: dict,
    shapes: dict | None = None,
) -> dict:
    arrays: dict = {}
    for d in prog.inputs:
        dt = d.pinned or T
        size = (n if shapes is None else shapes[d.name]) if d.kind == "tensor" else 1
        if d.optional:
            flag_true = any(a.kind == "bool" and attrs[a.name] for a in prog.attrs)
            if not flag_true and rng.random() < 0.5:
                arrays[d.name] = None
                continue
        if is_float(dt) and DIM_KIND.get(d.dims) == "mat":
            # multiples of 0.5 up to 4: every partial sum of K <= 512 products is exact in f32,
            # so the product is bit-exact whatever order the cube sums in
            arrays[d.name] = (rng.integers(-8, 9, size) * 0.5).astype(NP[dt])
            continue
        if is_float(dt):
            if d.kind == "scalar":
                v = rng.uniform(0.25, 3.0) * rng.choice([-1, 1]) * scale
                arr = np.array([v])
            else:
                arr = rng.uniform(-4, 4, size) * scale
                arr = np.where(rng.random(size) < 0.2, np.round(arr * 2) / 2, arr)  # ties for round
                arr[rng.random(size) < 0.03] = -0.0
                arr[rng.random(size) < 0.03] = 0.0
            arrays[d.name] = arr.astype(NP[dt])
        elif dt == "bool":  # one byte per element, any nonzero byte true
            arrays[d.name] = rng.choice(np.array([0, 1, 2, 255], np.uint8), size).view(np.bool_)
        elif dt == "i32":
            hi = max(int(20 * scale), 2)
            arr = rng.integers(-hi, hi + 1, size)
            if d.kind == "scalar" and arr[0] == 0:
                arr[0] = 3
            arrays[d.name] = arr.astype(np.int32)
        else:
            info = np.iinfo(NP[dt])
            arrays[d.name] = rng.integers(info.min, info.max + 1, size).astype(NP[dt])
    return arrays


def draw_attrs(prog: Program, rng: np.random.Generator) -> dict:
    out = {}
    for a in prog.attrs:
        if a.kind == "bool":
            out[a.name] = bool(rng.random() < 0.5)
        elif a.kind == "literal":
            out[a.name] = str(rng.choice(a.choices))
        elif a.kind == "int":
            out[a.name] = int(rng.integers(0, 5))
        else:
            out[a.name] = float(np.round(rng.uniform(-3, 3), 2))
    return out


def classify_refusal(message: str) -> str | None:
    for pattern, reason in REFUSALS.items():
        if re.search(pattern, message):
            return reason
    return None


def load(prog: Program, workdir: Path):
    path = Path(workdir) / f"{prog.name}.py"
    path.write_text(prog.source())
    name = f"dslfuzz_{prog.name}_{abs(hash(str(path))) % 10**8}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, prog.name)


def run_program(
    prog: Program, workdir: Path, runs_per_dtype: int = 1, strict: bool = True, target: str = "ascend910b"
) -> Outcome:
    import dsl
    from backends.ascendc.simulate import simulate

    started = time.perf_counter()
    out = Outcome(prog.seed, "ok", exact=prog.exact, source=prog.source())

    def done(status, reason="", detail=""):
        out.status, out.reason, out.detail = status, reason, detail
        out.seconds = time.perf_counter() - started
        return out

    try:
        op = load(prog, workdir)
    except dsl.DslError as e:
        return done("failed", "frontend rejected a program the oracle types as valid", str(e))
    rng = np.random.default_rng(prog.seed)
    zs = not prog.reduces_to_zero_sign
    for T in prog.dtypes:
        for _ in range(runs_per_dtype):
            n = int(rng.choice([1, 7, 33, 256, 4113, 30001]))
            cores = rng.choice([1, 2, 3, None])
            cores = None if cores is None else int(cores)
            attrs = draw_attrs(prog, rng)
            shapes = draw_shapes(prog, rng)
            for scale in (1.0, 0.25, 0.05):
                args = draw_inputs(prog, T, rng, n, scale, attrs, shapes)
                try:
                    expected = Oracle(prog, T, args, attrs).outputs()
                    break
                except Overflow:
                    continue
                except Invalid as e:
                    return done("failed", "the oracle rejects a generated program", str(e))
            else:
                return done("discarded", "i32 arithmetic overflows on every input draw")
            call = [args[d.name] for d in prog.inputs]
            size = f"n={n}" if shapes is None else f"shapes={shapes}"
            where = f"T={T}, {size}, cores={cores}, attrs={attrs}"
            # dtype= picks T: needed without an input of type T, else it must agree (odd seeds pass it)
            pick_T = {"dtype": T} if not prog.has_T_input or prog.seed % 2 else {}
            try:
                ref = op.reference(*call, **pick_T, **attrs)
            except Exception as e:  # noqa: BLE001 - every error is a finding
                return done("failed", f"reference raised {type(e).__name__}", f"{where}\n{e}")
            refs = list(ref) if isinstance(ref, tuple) else [ref]
            for k, (r, x) in enumerate(zip(refs, expected)):
                if (r is None) != (x is None):
                    return done("failed", "reference and oracle disagree on an absent output", where)
                if r is None:
                    continue
                ok = same_bits(r, x, zs) if prog.exact else dsl.precision.compare(r, x).ok
                if not ok:
                    bad = _first_difference(r, x, call)
                    return done("failed", "reference != numpy oracle", f"{where}, output {k}: {bad}")
            try:
                got, _ = simulate(op, tuple(call), attrs, cores=cores, strict=strict, target=target, **pick_T)
            except dsl.CompileError as e:
                reason = classify_refusal(str(e))
                if reason is not None:
                    return done("refused", reason, str(e))
                return done("failed", "CompileError", f"{where}\n{e}")
            except Exception as e:  # noqa: BLE001
                return done("failed", f"simulate raised {type(e).__name__}", f"{where}\n{e}")
            gots = list(got) if isinstance(got, tuple) else [got]
            for k, (g, r) in enumerate(zip(gots, refs)):
                if (g is None) != (r is None):
                    return done("failed", "simulate and reference disagree on an absent output", where)
                if g is None:
                    continue
                ok = (
                    same_bits(g, r, zs)
                    if prog.exact
                    else dsl.precision.compare(g, r, sim_tolerance(prog, r)).ok
                )
                if not ok:
                    bad = _first_difference(g, r, call)
                    return done("failed", "simulate != reference", f"{where}, output {k}: {bad}")
            out.runs += 1
    return done("ok")


def sim_tolerance(prog: Program, ref):
    """The precision standard with an f32 relative tolerance of 2e-4; with a float sum or mean,
    whose order of additions is not part of the contract (cancellation makes the relative error
    of a small sum unbounded), also an absolute 1e-3 of the output's largest magnitude."""
    from dataclasses import replace

    import dsl

    tol = dsl.precision.APPROX.with_rtol(2e-4)
    if not any(isinstance(n, Red) and n.kind in ("sum", "mean") for n in prog.nodes()):
        return tol
    r = np.asarray(ref).astype(np.float64)
    finite = r[np.isfinite(r)]
    atol = 1e-3 * max(1.0, float(np.abs(finite).max()) if finite.size else 1.0)
    return replace(tol, f32_atol=atol, half_atol=atol, half_ulps=2, name=f"{tol.name}+atol {atol:g}")


def _first_difference(a, b, call) -> str:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"{a.dtype}{a.shape} vs {b.dtype}{b.shape}"
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    differ = ~((fa == fb) & (np.signbit(fa) == np.signbit(fb)) | (np.isnan(fa) & np.isnan(fb)))
    i = int(np.flatnonzero(differ)[0])
    inputs = ", ".join(
        f"{np.asarray(c).ravel()[min(i, np.size(c) - 1)]!r}" if np.size(c) else "(empty)"
        for c in call
        if c is not None
    )
    return f"element {i}: {a.ravel()[i]!r} vs {b.ravel()[i]!r} (inputs there: {inputs})"


def fuzz(seeds, workdir: Path, log=None, family: str = "flat", target: str = "ascend910b") -> list[Outcome]:
    outcomes = []
    for seed in seeds:
        prog = generate(seed, family, kernel_names=True)
        try:
            o = run_program(prog, workdir, target=target)
        except Exception:  # noqa: BLE001 - a crash of the runner itself
            o = Outcome(seed, "failed", "runner crashed", traceback.format_exc(), source=prog.source())
        outcomes.append(o)
        if log is not None:
            log(o)
    return outcomes


__all__ = [
    "FAMILIES",
    "draw_shapes",
    "generate",
    "run_program",
    "fuzz",
    "Oracle",
    "Program",
    "Outcome",
    "same_bits",
    "REFUSALS",
]
