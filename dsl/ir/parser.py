"""Textual IR -> ``Module`` with a lark LALR parser. Errors carry the IR line and column."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..dtypes import dtype_from_name
from ..errors import IRParseError, Loc
from .core import AttrDecl, Func, Module, Op, Output, Param, Value
from .ops import OPS
from .types import PRED, ScalarType, Shape, TensorType, Type


@lru_cache(maxsize=1)
def _parser():
    import lark  # only when IR text is parsed (dslc opt, tests): compiling from Python does not

    grammar = (Path(__file__).with_name("grammar.lark")).read_text()
    return lark.Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _err(msg: str, meta_or_tok, src: str) -> IRParseError:
    line = getattr(meta_or_tok, "line", 0) or 0
    col = getattr(meta_or_tok, "column", 0) or 0
    return IRParseError(msg, line, col, src)


def _dtype(tok, src):
    try:
        return dtype_from_name(str(tok))
    except ValueError as e:
        raise _err(str(e), tok, src) from None


def _value(tree, src):
    kind = tree.data
    if kind == "string":
        return json.loads(tree.children[0])
    if kind == "int":
        return int(tree.children[0])
    if kind == "float":
        return float(tree.children[0])
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "inf":
        return float("inf")
    if kind == "neg_inf":
        return float("-inf")
    if kind == "nan":
        return float("nan")
    if kind == "name":
        return _dtype(tree.children[0], src)  # bare names in attributes are dtypes
    if kind == "dict_value":
        return _dict(tree.children[0], src)
    if kind == "list":
        return [_value(c, src) for c in tree.children if c is not None]
    raise AssertionError(kind)


def _dict(tree, src) -> dict:
    out = {}
    for entry in tree.children:
        if entry is None:
            continue
        key, val = entry.children
        if str(key) in out:
            raise _err(f"duplicate attribute '{key}'", key, src)
        out[str(key)] = _value(val, src)
    return out


def _type(tree, src) -> Type:
    if tree.data == "pred_type":
        return PRED
    if tree.data == "scalar_type":
        return ScalarType(_dtype(tree.children[0], src))
    items = [c.children[0] for c in tree.children]
    dtype = _dtype(items[-1], src)
    dims = items[:-1]
    if len(dims) == 1 and dims[0].type == "STAR":
        return TensorType(dtype, Shape.star())
    ellipsis = bool(dims) and dims[0].type == "ELLIPSIS"
    if ellipsis:
        dims = dims[1:]
    out = []
    for d in dims:
        if d.type == "INT":
            if int(d) != 1:
                raise _err("only the literal dim 1 is allowed; name other dims", d, src)
            out.append(1)
        elif d.type == "NAME":
            out.append(str(d))
        else:
            raise _err(f"'{d}' may only stand alone ('*') or first ('...')", d, src)
    return TensorType(dtype, Shape(tuple(out), ellipsis))


def _loc(tree) -> Loc | None:
    if tree is None:
        return None
    name, line, col = tree.children
    return Loc(json.loads(name), int(line), int(col))


def _ops(trees, scope: dict[str, Value], src: str) -> list[Op]:
    body = []
    for o in trees:
        res, opname_tree, operands, attrs, ty, region, loc = o.children
        opname = str(opname_tree.children[0])
        if opname not in OPS:
            raise _err(f"unknown op '{opname}'", opname_tree.children[0], src)
        args = []
        for tok in operands.children if operands is not None else []:
            vname = str(tok)[1:]
            if vname not in scope:
                raise _err(f"use of undefined value %{vname}", tok, src)
            args.append(scope[vname])
        rtype = _type(ty, src) if ty is not None else None
        rname = str(res.children[0])[1:] if res is not None else None
        if (rname is None) != (rtype is None):
            raise _err("an op with a result needs both '%name =' and ': type'", opname_tree.children[0], src)
        inner = _ops(region.children, scope, src) if region is not None else None
        op = Op(opname, args, rtype, rname, _dict(attrs, src) if attrs is not None else {}, _loc(loc), inner)
        if rname is not None:
            if rname in scope:
                raise _err(f"value %{rname} defined twice", res.children[0], src)
            scope[rname] = op.result
        body.append(op)
    return body


def _func(tree, src) -> Func:
    name_tok, params_t, attr_tree, outputs_t, fattrs_tree, loc_tree, body_t, ret_tree = tree.children
    params_trees = [c for c in params_t.children if c is not None]
    outputs_trees = [c for c in outputs_t.children if c is not None]
    ops_trees = body_t.children

    scope: dict[str, Value] = {}
    params = []
    for p in params_trees:
        tok, ty, opt = p.children
        vname = str(tok)[1:]
        if vname in scope:
            raise _err(f"parameter %{vname} declared twice", tok, src)
        v = Value(vname, _type(ty, src))
        scope[vname] = v
        params.append(Param(v, optional=opt is not None))

    decls = []
    if attr_tree is not None:
        for d in attr_tree.children:
            if d is None:
                continue
            aname, atype, default = d.children
            default = _value(default, src)
            if atype.data == "literal_attr_type":
                choices = tuple(json.loads(s) for s in atype.children)
                decls.append(AttrDecl(str(aname), "literal", default, choices))
            else:
                kind = {"bool": "bool", "i64": "int", "f32": "float"}.get(str(atype.children[0]))
                if kind is None:
                    raise _err(
                        "attribute type must be bool, i64, f32 or literal<...>", atype.children[0], src
                    )
                decls.append(AttrDecl(str(aname), kind, default))

    outputs = []
    for o in outputs_trees:
        oname, ty, opt = o.children
        outputs.append(Output(str(oname), _type(ty, src), optional=opt is not None))

    body = _ops(ops_trees, scope, src)

    returns = []
    for tok in ret_tree.children:
        if tok is None:
            continue
        vname = str(tok)[1:]
        if vname not in scope:
            raise _err(f"use of undefined value %{vname}", tok, src)
        returns.append(scope[vname])

    fattrs = _dict(fattrs_tree.children[0], src) if fattrs_tree is not None else {}
    return Func(str(name_tok)[1:], params, decls, outputs, body, returns, fattrs, _loc(loc_tree))


def parse_scalar_text(text: str):
    """A command-line value (``--attr k=v``, pass options): bool, int, float or the string."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_module(src: str) -> Module:
    import lark

    try:
        tree = _parser().parse(src)
    except lark.exceptions.UnexpectedInput as e:
        expected = ""
        exp = getattr(e, "expected", None) or getattr(e, "allowed", None)
        if exp:
            expected = " (expected one of: " + ", ".join(sorted(exp)[:8]) + ")"
        tok = getattr(e, "token", None)
        what = f"unexpected '{tok}'" if tok is not None else "unexpected input"
        raise IRParseError(what + expected, e.line, e.column, src) from None
    return Module([_func(f, src) for f in tree.children])
