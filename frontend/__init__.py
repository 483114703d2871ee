"""Frontend: the Python AST of an @dsl.op function -> tensor-level IR (one function per dtype)."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from dsl.dtypes import DType
from dsl.errors import DslError
from dsl.ir import AttrDecl, Func
from dsl.ir.verifier import verify_func
from dsl.names import op_name_problem

from .lower import Lowerer
from .signature import InputDecl, read_signature
from .source import Source, read_source


@dataclass
class OpDefinition:
    name: str
    source: Source
    fn: object
    inputs: list[InputDecl]
    attrs: list[AttrDecl]
    dtypes: tuple[DType, ...]
    broadcast: bool
    _funcs: dict = field(default_factory=dict)

    def func(self, dtype: DType) -> Func:
        """The tensor-level IR for element type ``dtype`` (a fresh copy each call)."""
        if dtype not in self._funcs:
            f = Lowerer(
                self.source, self.fn, self.inputs, self.attrs, dtype, self.broadcast, self.name
            ).lower()
            verify_func(f)
            self._funcs[dtype] = f
        return copy.deepcopy(self._funcs[dtype])


def check_op_name(src: Source, name: str, explicit: bool) -> None:
    """A DslError for an operator name CANN cannot use (``dsl.names``): at ``name=...`` in the
    decorator when the name was given there, else at the function's name on its ``def`` line."""
    problem = op_name_problem(name)
    if problem is None:
        return
    if explicit:
        for deco in src.tree.decorator_list:
            if isinstance(deco, ast.Call):
                for kw in deco.keywords:
                    if kw.arg == "name":
                        raise src.error(kw.value, problem)
        node = src.tree.decorator_list[0] if src.tree.decorator_list else src.tree
        raise src.error(node, problem)
    line = src.lines[src.tree.lineno - 1] if 0 < src.tree.lineno <= len(src.lines) else ""
    col = line.find(src.tree.name, src.tree.col_offset + src.indent)
    loc = src.loc(src.tree)
    raise DslError(problem, loc.filename, loc.line, col + 1 if col >= 0 else loc.col, line or None)


def build_definition(
    fn, dtypes: tuple[DType, ...], broadcast: bool, name: str, explicit_name: bool = False
) -> OpDefinition:
    src = read_source(fn)
    check_op_name(src, name, explicit_name)
    inputs, attrs = read_signature(src, fn)
    definition = OpDefinition(name, src, fn, inputs, attrs, dtypes, broadcast)
    for dt in dtypes:  # reject bad programs at decoration time, for every dtype
        definition.func(dt)
    return definition
