"""Textual IR printer. ``parse(print(m))`` reproduces ``m`` and prints identically."""

from __future__ import annotations

import json
import math
import os
from typing import Any

from ..dtypes import DType
from ..errors import Loc
from .core import AttrDecl, Func, Module, Op


def format_attr(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, DType):
        return v.name
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = repr(v)
        return r if any(c in r for c in ".en") else r + ".0"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {format_attr(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_attr(x) for x in v) + "]"
    raise TypeError(f"cannot print attribute value {v!r}")


def format_loc(loc: Loc | None, full_paths: bool = False) -> str:
    if loc is None:
        return ""
    name = loc.filename if full_paths else os.path.basename(loc.filename)
    return f" loc({json.dumps(name)}:{loc.line}:{loc.col})"


def print_op(op: Op, locs: bool = True, full_paths: bool = False, indent: str = "") -> str:
    s = f"%{op.result.name} = " if op.result is not None else ""
    s += op.opname
    if op.operands:
        s += " " + ", ".join(f"%{v.name}" for v in op.operands)
    if op.attrs:
        s += " " + format_attr(op.attrs)
    if op.result is not None:
        s += f" : {op.result.type}"
    if op.region is not None:
        inner = "".join(f"{indent}  {print_op(o, locs, full_paths, indent + '  ')}\n" for o in op.region)
        s += " do {\n" + inner + indent + "}"
    if locs:
        s += format_loc(op.loc, full_paths)
    return s


def _attr_decl(a: AttrDecl) -> str:
    if a.kind == "literal":
        ty = "literal<" + ", ".join(json.dumps(c) for c in a.choices) + ">"
    else:
        ty = {"bool": "bool", "int": "i64", "float": "f32"}[a.kind]
    return f"{a.name}: {ty} = {format_attr(a.default)}"


def print_func(f: Func, locs: bool = True, full_paths: bool = False) -> str:
    params = ", ".join(
        f"%{p.value.name}: {p.value.type}" + (" optional" if p.optional else "") for p in f.params
    )
    head = f"func @{f.name}({params})"
    if f.attr_decls:
        head += " attrs(" + ", ".join(_attr_decl(a) for a in f.attr_decls) + ")"
    outs = ", ".join(f"{o.name}: {o.type}" + (" optional" if o.optional else "") for o in f.outputs)
    head += f" -> ({outs})"
    if f.attributes:
        head += " attributes " + format_attr(f.attributes)
    if locs:
        head += format_loc(f.loc, full_paths)
    lines = [head + " {"]
    lines += ["  " + print_op(op, locs, full_paths, "  ") for op in f.body]
    lines.append("  return" + ("" if not f.returns else " " + ", ".join(f"%{v.name}" for v in f.returns)))
    lines.append("}")
    return "\n".join(lines)


def print_module(m: Module, locs: bool = True, full_paths: bool = False) -> str:
    return "\n\n".join(print_func(f, locs, full_paths) for f in m.funcs) + "\n"
