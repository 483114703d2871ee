"""IR objects: values, ops, functions, modules.

An ``Op`` is generic: its behaviour comes from its ``OpSpec`` in ``ops.OPS``. Values are SSA;
each has a unique name within its function (printed as ``%name``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from ..errors import Loc
from .ops import OPS, OpSpec
from .types import Type


class Value:
    __slots__ = ("name", "type", "owner")

    def __init__(self, name: str, type: Type, owner: "Op | None" = None):
        self.name, self.type, self.owner = name, type, owner

    def __repr__(self) -> str:
        return f"%{self.name}: {self.type}"


class Op:
    __slots__ = ("opname", "operands", "result", "attrs", "loc", "region")

    def __init__(
        self,
        opname: str,
        operands: list[Value],
        result_type: Type | None,
        result_name: str | None = None,
        attrs: dict[str, Any] | None = None,
        loc: Loc | None = None,
        region: "list[Op] | None" = None,
    ):
        self.opname = opname
        self.region = region
        self.operands = list(operands)
        self.attrs = dict(attrs or {})
        self.loc = loc
        self.result = Value(result_name or "", result_type, self) if result_type is not None else None

    @property
    def spec(self) -> OpSpec:
        return OPS[self.opname]

    def __repr__(self) -> str:
        from .printer import print_op

        return print_op(self)


@dataclass
class AttrDecl:
    """A keyword-only attribute: ``bool``/``literal`` are static, ``int``/``float`` run-time."""

    name: str
    kind: str  # bool | literal | int | float
    default: Any
    choices: tuple[str, ...] = ()

    @property
    def static(self) -> bool:
        return self.kind in ("bool", "literal")


@dataclass
class Param:
    value: Value
    optional: bool = False
    pinned: bool = False  # dtype fixed by the annotation rather than T


@dataclass
class Output:
    name: str
    type: Type
    optional: bool = False


@dataclass
class Func:
    name: str
    params: list[Param]
    attr_decls: list[AttrDecl]
    outputs: list[Output]
    body: list[Op] = field(default_factory=list)
    returns: list[Value] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)
    loc: Loc | None = None

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.value.name == name:
                return p
        raise KeyError(name)

    def attr_decl(self, name: str) -> AttrDecl | None:
        return next((a for a in self.attr_decls if a.name == name), None)

    def walk(self) -> Iterator[Op]:
        """Every op, nested regions included, in program order."""
        yield from walk_ops(self.body)

    def uses(self) -> dict[int, int]:
        """Use counts by ``id(value)`` (returns included)."""
        counts: dict[int, int] = {}
        for op in self.walk():
            for v in op.operands:
                counts[id(v)] = counts.get(id(v), 0) + 1
        for v in self.returns:
            counts[id(v)] = counts.get(id(v), 0) + 1
        return counts

    def replace_all_uses(self, old: Value, new: Value) -> None:
        for op in self.walk():
            op.operands = [new if v is old else v for v in op.operands]
        self.returns = [new if v is old else v for v in self.returns]

    def loop(self) -> "Op | None":
        """The tile loop (``loop.tiles``) of a tile-level function."""
        return next((op for op in self.body if op.opname == "loop.tiles"), None)


def walk_ops(ops: list[Op]) -> Iterator[Op]:
    for op in ops:
        yield op
        if op.region is not None:
            yield from walk_ops(op.region)


@dataclass
class Module:
    funcs: list[Func] = field(default_factory=list)

    def func(self, name: str) -> Func:
        for f in self.funcs:
            if f.name == name:
                return f
        raise KeyError(name)


class Namer:
    """Hands out unique SSA names: user names where possible, numbers otherwise."""

    def __init__(self, taken: set[str] | None = None):
        self.taken = set(taken or ())
        self.counter = 0

    def fresh(self, hint: str | None = None) -> str:
        if hint:
            name, n = hint, 1
            while name in self.taken:
                name = f"{hint}_{n}"
                n += 1
        else:
            while str(self.counter) in self.taken:
                self.counter += 1
            name = str(self.counter)
        self.taken.add(name)
        return name

    @staticmethod
    def of(func: Func) -> "Namer":
        names = {p.value.name for p in func.params}
        names |= {op.result.name for op in func.walk() if op.result is not None}
        return Namer(names)
