"""IR verifier: SSA order, unique names, op type rules, attribute references, returns."""

from __future__ import annotations

from ..errors import VerifyError
from .core import Func, Module, Op
from .ops import OPS
from .printer import print_op
from .types import TypeInferenceError


def _fail(func: Func, op: Op | None, msg: str) -> VerifyError:
    where = f"in @{func.name}"
    if op is not None:
        where += f", at '{print_op(op, locs=False)}'"
        if op.loc is not None:
            where += f" ({op.loc})"
    return VerifyError(f"{where}: {msg}")


def _check_attr_refs(func: Func, op: Op) -> None:
    if op.opname in ("static.flag", "static.is", "attr"):
        decl = func.attr_decl(op.attrs.get("name", ""))
        if decl is None:
            raise _fail(func, op, f"no attribute named {op.attrs.get('name')!r} is declared")
        if op.opname == "static.flag" and decl.kind != "bool":
            raise _fail(func, op, f"static.flag needs a bool attribute, '{decl.name}' is {decl.kind}")
        if op.opname == "static.is" and (decl.kind != "literal" or op.attrs["value"] not in decl.choices):
            raise _fail(func, op, f"'{op.attrs['value']}' is not a choice of attribute '{decl.name}'")
        if op.opname == "attr" and decl.static:
            raise _fail(func, op, f"attribute '{decl.name}' is static; use static.flag/static.is")


def _verify_ops(func: Func, ops: list[Op], defined: set[int], names: set[str], in_loop: bool) -> None:
    for op in ops:
        spec = OPS.get(op.opname)
        if spec is None:
            raise _fail(func, op, f"unknown op '{op.opname}'")
        for v in op.operands:
            if id(v) not in defined:
                raise _fail(func, op, f"%{v.name} is used before it is defined (or outside its region)")
        if spec.arity is not None and len(op.operands) != spec.arity:
            raise _fail(func, op, f"'{op.opname}' takes {spec.arity} operands, got {len(op.operands)}")
        missing = [a for a in spec.attrs if a not in op.attrs]
        if missing:
            raise _fail(func, op, f"'{op.opname}' needs attribute(s) {', '.join(missing)}")
        if spec.has_result != (op.result is not None):
            raise _fail(func, op, f"'{op.opname}' {'has' if spec.has_result else 'has no'} result")
        if (op.region is not None) != spec.has_region:
            raise _fail(func, op, f"'{op.opname}' {'needs' if spec.has_region else 'takes no'} region")
        if spec.in_loop is not None and spec.in_loop != in_loop:
            where = "inside" if spec.in_loop else "outside"
            raise _fail(func, op, f"'{op.opname}' belongs {where} the tile loop")
        types = [v.type for v in op.operands]
        rtype = op.result.type if op.result is not None else None
        try:
            if spec.check is not None:
                spec.check(types, op.attrs, rtype)
            if spec.infer is not None:
                want = spec.infer(types, op.attrs)
                if want != rtype:
                    raise TypeInferenceError(f"result type should be {want}, not {rtype}")
        except TypeInferenceError as e:
            raise _fail(func, op, str(e)) from None
        if op.opname == "const" and not isinstance(op.attrs["value"], (int, float)):
            raise _fail(func, op, "const value must be a number")
        _check_attr_refs(func, op)
        if op.result is not None:
            if op.result.name in names:
                raise _fail(func, op, f"value %{op.result.name} defined twice")
            names.add(op.result.name)
            defined.add(id(op.result))
        if op.region is not None:
            _verify_ops(func, op.region, set(defined), names, True)


def _verify_stores(func: Func) -> None:
    stored: dict[str, Op] = {}
    for op in func.walk():
        if op.opname != "dma.store":
            continue
        name = op.attrs["output"]
        out = next((o for o in func.outputs if o.name == name), None)
        if out is None:
            raise _fail(func, op, f"no output named '{name}'")
        if name in stored:
            raise _fail(func, op, f"output '{name}' is stored twice")
        if op.operands[0].type != out.type:
            raise _fail(
                func, op, f"output '{name}' is {out.type} but the stored value is {op.operands[0].type}"
            )
        stored[name] = op
    for out in func.outputs:
        if out.name not in stored and not out.optional:
            raise _fail(func, None, f"output '{out.name}' is never stored")


def _verify_matmul(func: Func) -> None:
    """DESIGN.md section 2: at most one matmul per operator; at tensor level its operands are
    inputs (the cube reads them from GM), never computed values."""
    matmuls = [op for op in func.walk() if op.opname == "matmul"]
    if len(matmuls) > 1:
        raise _fail(func, matmuls[1], "a function has at most one matmul")
    if func.attributes.get("level") == "tile":
        return
    params = {id(p.value) for p in func.params}
    for op in matmuls:
        for v in op.operands:
            if id(v) not in params:
                raise _fail(func, op, f"matmul operand %{v.name} is not an input of @{func.name}")


def verify_func(func: Func) -> None:
    names: set[str] = set()
    for p in func.params:
        if p.value.name in names:
            raise _fail(func, None, f"parameter %{p.value.name} declared twice")
        names.add(p.value.name)
    defined: set[int] = {id(p.value) for p in func.params}
    _verify_ops(func, func.body, defined, names, False)
    _verify_matmul(func)
    if func.attributes.get("level") == "tile":
        if func.returns:
            raise _fail(func, None, "a tile-level function stores its outputs with dma.store; return nothing")
        _verify_stores(func)
        return
    if len(func.returns) != len(func.outputs):
        raise _fail(func, None, f"returns {len(func.returns)} values for {len(func.outputs)} outputs")
    for v, out in zip(func.returns, func.outputs):
        if id(v) not in defined:
            raise _fail(func, None, f"returned %{v.name} is not defined")
        if v.type != out.type:
            raise _fail(func, None, f"output '{out.name}' is {out.type} but %{v.name} is {v.type}")
        if v.owner is not None and v.owner.opname == "none" and not out.optional:
            raise _fail(func, None, f"output '{out.name}' is not optional but may be absent")


def verify_module(module: Module) -> None:
    seen: set[str] = set()
    for f in module.funcs:
        if f.name in seen:
            raise VerifyError(f"function @{f.name} defined twice")
        seen.add(f.name)
        verify_func(f)
