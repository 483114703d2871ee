"""Frontend: the Python AST of an @dsl.op function -> tensor-level IR (one function per dtype)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from dsl.dtypes import DType
from dsl.ir import AttrDecl, Func
from dsl.ir.verifier import verify_func

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


def build_definition(fn, dtypes: tuple[DType, ...], broadcast: bool, name: str) -> OpDefinition:
    src = read_source(fn)
    inputs, attrs = read_signature(src, fn)
    definition = OpDefinition(name, src, fn, inputs, attrs, dtypes, broadcast)
    for dt in dtypes:  # reject bad programs at decoration time, for every dtype
        definition.func(dt)
    return definition
