"""Frontend: the Python AST of an @dsl.op function -> tensor-level IR (one function per dtype)."""

from __future__ import annotations

import ast
import copy
import math
import numbers
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
    ranges: dict = field(default_factory=dict)  # input name -> (lo, hi): @dsl.op(ranges=...)
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


def name_location(src: Source, explicit: bool) -> tuple[str, int, int, str | None]:
    """(file, line, column, source line) of an operator's name: ``name=...`` in the decorator when
    the name was given there, else the function's name on its ``def`` line."""
    if explicit:
        node = src.tree.decorator_list[0] if src.tree.decorator_list else src.tree
        for deco in src.tree.decorator_list:
            if isinstance(deco, ast.Call):
                node = next((kw.value for kw in deco.keywords if kw.arg == "name"), node)
        loc = src.loc(node)
        return (
            loc.filename,
            loc.line,
            loc.col,
            src.lines[loc.line - 1] if 0 < loc.line <= len(src.lines) else None,
        )
    line = src.lines[src.tree.lineno - 1] if 0 < src.tree.lineno <= len(src.lines) else ""
    col = line.find(src.tree.name, src.tree.col_offset + src.indent)
    loc = src.loc(src.tree)
    return loc.filename, loc.line, col + 1 if col >= 0 else loc.col, line or None


def check_op_name(src: Source, name: str, explicit: bool) -> None:
    """A DslError for an operator name CANN cannot use (``dsl.names``), at the name."""
    problem = op_name_problem(name)
    if problem is not None:
        raise DslError(problem, *name_location(src, explicit))


def check_ranges(src: Source, inputs: list[InputDecl], ranges) -> dict[str, tuple[float, float]]:
    """``@dsl.op(ranges={"v": (0, 2)})``: the half-open [lo, hi) that ``dslc run``/``profile`` and
    the project's golden script draw each named input from (where the op's math needs it, e.g.
    v >= 0 under a sqrt). A DslError at ``ranges=`` for anything else."""
    if ranges is None:
        return {}
    node = src.tree.decorator_list[0] if src.tree.decorator_list else src.tree
    for deco in src.tree.decorator_list:
        if isinstance(deco, ast.Call):
            node = next((kw.value for kw in deco.keywords if kw.arg == "ranges"), node)
    form = 'a dict of input name -> (lo, hi), e.g. ranges={"v": (0, 2)}'
    if not isinstance(ranges, dict):
        raise src.error(node, f"@dsl.op(ranges=...) takes {form}, got {type(ranges).__name__}")
    decls = {d.name: d for d in inputs}
    out = {}
    for name, bounds in ranges.items():
        if name not in decls:
            known = ", ".join(decls)
            raise src.error(node, f"@dsl.op(ranges=...): {name!r} is not an input (inputs: {known})")
        if decls[name].spec.dtype is not None and decls[name].spec.dtype.kind == "bool":
            raise src.error(node, f"@dsl.op(ranges=...): input '{name}' is bool_; it is drawn as 0/1")
        ok = isinstance(bounds, (tuple, list)) and len(bounds) == 2
        ok = ok and all(isinstance(b, numbers.Real) and not isinstance(b, bool) for b in bounds)
        if not ok or not all(math.isfinite(b) for b in bounds) or bounds[0] >= bounds[1]:
            raise src.error(
                node,
                f"@dsl.op(ranges=...): input '{name}' needs finite (lo, hi) with lo < hi, got {bounds!r}",
            )
        out[name] = (float(bounds[0]), float(bounds[1]))
    return out


def build_definition(
    fn, dtypes: tuple[DType, ...], broadcast: bool, name: str, explicit_name: bool = False, ranges=None
) -> OpDefinition:
    src = read_source(fn)
    check_op_name(src, name, explicit_name)
    inputs, attrs = read_signature(src, fn)
    definition = OpDefinition(
        name, src, fn, inputs, attrs, dtypes, broadcast, check_ranges(src, inputs, ranges)
    )
    for dt in dtypes:  # reject bad programs at decoration time, for every dtype
        definition.func(dt)
    return definition
