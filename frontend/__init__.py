"""Frontend: the Python AST of an @dsl.op function -> tensor-level IR (one function per dtype)."""

from __future__ import annotations

import ast
import copy
import dataclasses
from dataclasses import dataclass, field

from dsl.dtypes import DType
from dsl.errors import DslError
from dsl.ir import AttrDecl, Func, TensorType
from dsl.ir.verifier import verify_func
from dsl.names import op_name_problem
from dsl.surface import ScalarSpec

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

    def scalar_twin(self, dtype: DType, index: int) -> Func | None:
        """The IR for ``dtype`` with tensor input ``index`` read as a Scalar (one value, used by the
        vector-scalar instructions): what a ``broadcast=True`` op computes when that input has one
        element. None when the body cannot take it as a Scalar (e.g. every output would be a
        scalar, or a reduction reads it); the kernel then splats the value instead."""
        decl = self.inputs[index]
        if decl.is_scalar or decl.optional or decl.spec.dims is not None:
            return None
        twin = dataclasses.replace(decl, spec=ScalarSpec(decl.spec.dtype))
        inputs = self.inputs[:index] + [twin] + self.inputs[index + 1 :]
        try:
            f = Lowerer(self.source, self.fn, inputs, self.attrs, dtype, self.broadcast, self.name).lower()
            verify_func(f)
        except (DslError, ValueError):
            return None
        if not any(isinstance(o.type, TensorType) for o in f.outputs):
            return None
        return f


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
