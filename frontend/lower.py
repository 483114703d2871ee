"""Python AST of an @dsl.op body -> tensor-level IR for one dtype T.

The body is never executed. Each statement is checked against what the DSL allows; anything
else is a DslError at the offending node that says what to write instead.
"""

from __future__ import annotations

import ast
import builtins
import math
import types
from dataclasses import dataclass, field
from typing import Any

import dsl as _dsl_pkg
from dsl.dtypes import BY_NAME, DType, bool_, f32, i32
from dsl.errors import DslError
from dsl.names import param_name_problem, spelling_clash
from dsl.ir.ops import MATMUL_OPERAND_DTYPES, matmul_dims
from dsl.ir import (
    OPS,
    PRED,
    AttrDecl,
    Func,
    Namer,
    Op,
    Output,
    Param,
    PredType,
    ScalarType,
    Shape,
    TensorType,
    TypeInferenceError,
    Value,
)
from dsl.surface import INTRINSICS, ElementType, Intrinsic

from .signature import InputDecl
from .source import Source

# ----------------------------------------------------------------------------------------------
# Frontend-only values


@dataclass(frozen=True)
class Weak:
    """A Python number or a run-time int/float attribute: takes the type of what it is
    combined with (so ``x * alpha`` keeps x's dtype)."""

    value: int | float
    attr: str | None = None
    node: ast.AST | None = field(default=None, compare=False)  # where the number is written


@dataclass(frozen=True)
class DTypeRef:
    dtype: DType


@dataclass(frozen=True)
class Undefined:
    reason: str


@dataclass(frozen=True)
class MaybeOutput:
    """``x if <static> else None`` in a return: an output present only on some paths."""

    pred: Value
    value: Any
    name_node: ast.expr


BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}
LOGIC_OPS = {ast.BitAnd: ("and", "&"), ast.BitOr: ("or", "|")}
BOOL_OPERANDS = "bool_ values (comparisons or bool_ inputs)"
INFINITIES = ("inf", "-inf", "+inf", "infinity", "-infinity", "+infinity")
CMPOPS = {ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le", ast.Eq: "eq", ast.NotEq: "ne"}
UNARY_INTRINSICS = {"sqrt", "rsqrt", "exp", "log", "abs", "relu", "tanh", "sigmoid", "reciprocal", "round"}
REDUCTIONS = {"sum", "mean", "max", "min"}
DSL_FUNCS = ", ".join(f"dsl.{n}" for n in INTRINSICS)

_BINOP_HINTS = {
    ast.Mod: "'%' is not supported; the DSL has + - * / and ** 2 / ** 0.5",
    ast.FloorDiv: "'//' is not supported; use '/' and dsl.cast(..., i32) to truncate",
    ast.BitXor: "'^' is not supported; the DSL has + - * / and ** 2 / ** 0.5",
    ast.LShift: "'<<' is not supported; the DSL has + - * / and ** 2 / ** 0.5",
    ast.RShift: "'>>' is not supported; the DSL has + - * / and ** 2 / ** 0.5",
}

_STMT_HINTS = {
    ast.For: "loops are not allowed; operators are written on whole tensors (dslc generates the loops)",
    ast.AsyncFor: "loops are not allowed; operators are written on whole tensors",
    ast.While: "'while' loops are not allowed; operators are written on whole tensors",
    ast.With: "'with' is not allowed in an operator body",
    ast.AsyncWith: "'async with' is not allowed in an operator body",
    ast.Try: "try/except is not allowed; errors are reported at compile time or by host tiling",
    ast.Raise: "'raise' is not allowed in an operator body",
    ast.Assert: "'assert' is not allowed; shapes are checked by the annotations and host tiling",
    ast.Delete: "'del' is not allowed; just stop using the name",
    ast.Import: "imports belong at module level, not in the operator body",
    ast.ImportFrom: "imports belong at module level, not in the operator body",
    ast.Global: "'global' is not allowed; operators are pure functions of their inputs and attributes",
    ast.Nonlocal: "'nonlocal' is not allowed; operators are pure functions of their inputs and attributes",
    ast.FunctionDef: "nested functions are not allowed; write the math inline",
    ast.AsyncFunctionDef: "nested functions are not allowed; write the math inline",
    ast.ClassDef: "classes are not allowed in an operator body",
    ast.AnnAssign: "annotated assignments are not allowed; write 'name = expression'",
}
if hasattr(ast, "TryStar"):
    _STMT_HINTS[ast.TryStar] = _STMT_HINTS[ast.Try]
if hasattr(ast, "Match"):
    _STMT_HINTS[ast.Match] = "'match' is not allowed; use 'if <bool or Literal attribute>:'"

_EXPR_HINTS = {
    ast.Lambda: "lambda is not allowed; write the expression inline",
    ast.ListComp: "list comprehensions are not allowed; operators work on whole tensors",
    ast.SetComp: "set comprehensions are not allowed; operators work on whole tensors",
    ast.DictComp: "dict comprehensions are not allowed; operators work on whole tensors",
    ast.GeneratorExp: "generator expressions are not allowed; operators work on whole tensors",
    ast.Subscript: "indexing and slicing are not allowed; operators work on whole tensors "
    "(reductions: dsl.sum(x, axis=-1, keepdims=True))",
    ast.List: "lists are not allowed as values; operators work on tensors, scalars and numbers",
    ast.Tuple: "tuples are only allowed in 'return a, b'",
    ast.Dict: "dicts are not allowed in an operator body",
    ast.Set: "sets are not allowed in an operator body",
    ast.JoinedStr: "strings are not values in an operator body",
    ast.Await: "'await' is not allowed in an operator body",
    ast.Yield: "'yield' is not allowed; an operator returns its outputs with one 'return'",
    ast.YieldFrom: "'yield from' is not allowed; an operator returns its outputs with one 'return'",
    ast.NamedExpr: "':=' is not allowed; write 'name = expression' on its own line",
    ast.Starred: "'*' unpacking is not allowed in an operator body",
    ast.Slice: "slicing is not allowed; operators work on whole tensors",
}


class Lowerer:
    """Lowers one function body for one dtype ``T``."""

    def __init__(
        self,
        src: Source,
        fn,
        inputs: list[InputDecl],
        attrs: list[AttrDecl],
        T: DType,
        broadcast: bool,
        op_name: str,
    ):
        self.src, self.fn, self.T, self.broadcast, self.op_name = src, fn, T, broadcast, op_name
        self.inputs, self.attr_decls = inputs, attrs
        self.attr_by_name = {a.name: a for a in attrs}
        self.body: list[Op] = []
        self.params: list[Param] = []
        self.env: dict[str, Any] = {}
        self.input_values: dict[str, Value] = {}
        self.optional_inputs: set[str] = set()
        self.guard = 0
        self.hints: dict[int, str] = {}
        self.matmul_op: Op | None = None  # the operator's one '@'
        self.op_nodes: dict[int, ast.AST] = {}  # id(op) -> the node it was lowered from
        self.params_by_name: dict[str, Param] = {}
        for d in inputs:
            v = Value(d.name, self._input_type(d))
            self.params.append(Param(v, d.optional, d.spec.dtype is not None))
            self.params_by_name[d.name] = self.params[-1]
            self.input_values[d.name] = v
            if d.optional:
                self.optional_inputs.add(d.name)

    # -- helpers --------------------------------------------------------------------------------

    def err(self, node: ast.AST, msg: str) -> DslError:
        return self.src.error(node, msg)

    def _input_type(self, d: InputDecl):
        dtype = d.spec.dtype or self.T
        if d.is_scalar:
            return ScalarType(dtype)
        if d.spec.dims is None:
            return TensorType(dtype, Shape.star())
        return TensorType(dtype, Shape(tuple(d.spec.dims), d.spec.ellipsis))

    def emit(
        self, opname: str, operands: list[Value], node: ast.AST, attrs: dict | None = None, rtype=None
    ) -> Value:
        spec = OPS[opname]
        attrs = attrs or {}
        if rtype is None:
            try:
                rtype = spec.infer([v.type for v in operands], attrs)
            except TypeInferenceError as e:
                raise self.err(node, str(e) + self.mixed_hint(operands)) from None
        op = Op(opname, operands, rtype, None, attrs, self.src.loc(node))
        self.body.append(op)
        self.op_nodes[id(op)] = node
        return op.result

    def const(self, w: Weak, like: DType | None, node: ast.AST) -> Value:
        v = w.value
        if isinstance(v, float) and math.isnan(v):
            raise self.err(w.node or node, "this number is NaN; NaN constants are not allowed in an operator")
        if isinstance(v, float) and math.isinf(v) and like is not None and like.is_int:
            raise self.err(
                w.node or node,
                f"an infinity cannot be combined with the {like} value it meets (integers have no "
                "infinity); cast that operand to a float type first, e.g. dsl.cast(t, f32)",
            )
        if like is None:
            # A number with nothing to take a type from takes T (so `dsl.where(c, 2, 3)` in a
            # float op is float); a float number in an integer op is f32.
            if self.T == bool_:
                dtype = f32 if isinstance(v, float) else i32
            elif isinstance(v, float) and not self.T.is_float:
                dtype = f32
            else:
                dtype = self.T
        elif like == bool_:
            raise self.err(node, "numbers cannot be combined with bool values; use dsl.where(cond, a, b)")
        elif isinstance(v, float) and not like.is_float:
            dtype = f32
        else:
            dtype = like
        if w.attr is not None:
            return self.emit("attr", [], node, {"name": w.attr}, ScalarType(dtype))
        value = float(v) if dtype.is_float else int(v)
        if dtype.is_int and not (int(dtype.np_info.min) <= value <= int(dtype.np_info.max)):
            partner = f"the {dtype} value it is combined with" if like is not None else f"T = {dtype}"
            raise self.err(
                w.node or node,
                f"the number {value} does not fit {dtype} ({dtype.np_info.min} to {dtype.np_info.max}), "
                f"the type it takes from {partner}; use a number in that range, or cast the other "
                f"operand to a wider type first (e.g. dsl.cast(t, i32))",
            )
        return self.emit("const", [], node, {"value": value}, ScalarType(dtype))

    def value(self, x, node: ast.AST, like: DType | None = None) -> Value:
        """Materialise a frontend value as an IR value."""
        if isinstance(x, Value):
            if isinstance(x.type, PredType):
                raise self.err(
                    node, "a static condition is not a value; use it in 'if' or 'a if cond else b'"
                )
            return x
        if isinstance(x, Weak):
            return self.const(x, like, node)
        if isinstance(x, DTypeRef):
            raise self.err(node, "a dtype is not a value; use it as dsl.cast(x, dtype)")
        raise AssertionError(x)

    @staticmethod
    def float_if_either(a: "Weak", b: "Weak") -> "Weak":
        """``a`` as a float when either weak value is one, so two weak values share a kind."""
        if isinstance(a.value, float) or isinstance(b.value, float):
            return Weak(float(a.value), a.attr, a.node)
        return a

    def pair(self, a, b, node) -> tuple[Value, Value]:
        if isinstance(a, Weak) and not isinstance(b, Weak):
            b = self.value(b, node)
            return self.const(a, b.type.dtype, node), b
        a = self.value(a, node)
        return a, self.value(b, node, like=a.type.dtype)

    # -- statements -----------------------------------------------------------------------------

    def lower(self) -> Func:
        stmts = list(self.src.tree.body)
        if (
            stmts
            and isinstance(stmts[0], ast.Expr)
            and isinstance(stmts[0].value, ast.Constant)
            and isinstance(stmts[0].value.value, str)
        ):
            stmts = stmts[1:]  # docstring
        if not stmts or not isinstance(stmts[-1], ast.Return):
            node = self.src.tree
            raise self.err(
                node,
                "the operator must end with 'return' of its outputs (names, or one expression)",
            )
        self.block(stmts[:-1])
        outputs, returns = self.ret(stmts[-1])
        if self.matmul_op is not None:
            self.check_epilogue(stmts[-1], outputs)
        return self.finish(outputs, returns)

    def check_epilogue(self, ret: ast.Return, outputs: list[Output]) -> None:
        """DESIGN.md section 2: around its '@' an operator is the product's epilogue, elementwise
        on [M, N] with inputs shaped [M, N], [N], [M, 1] or Scalars and reductions along N; its
        outputs are [M, N] (or [M, 1] / [M] after a reduction)."""
        m, n = self.matmul_op.result.type.shape.dims
        allowed = {(m, n), (n,), (m, 1)}
        shown = f"[{m}, {n}], [{n}] (per channel), [{m}, 1] (per token) or Scalars"
        for op in self.body:
            if op is self.matmul_op:
                continue
            for v in op.operands:
                t = v.type
                if v.owner is not None or not isinstance(t, TensorType):
                    continue
                if t.shape.unshaped or t.shape.ellipsis or t.shape.dims not in allowed:
                    got = "unshaped" if t.shape.unshaped else f"[{t.shape}]"
                    raise self.err(
                        self.op_nodes[id(op)],
                        f"in an operator with '@' the rest is the product's epilogue, which takes inputs "
                        f"shaped {shown}; '{v.name}' is {got}",
                    )
        elts = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
        for out, node in zip(outputs, elts):
            dims = out.type.shape.dims
            if out.type.shape.ellipsis or dims not in {(m, n), (m, 1), (m,)}:
                raise self.err(
                    node,
                    f"output '{out.name}' is [{out.type.shape}]; the outputs of an operator with '@' are "
                    f"its epilogue's, [{m}, {n}] (or [{m}, 1] / [{m}] after a reduction along {n})",
                )

    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.err(s, "chained assignment is not allowed; assign one name at a time")
            target = s.targets[0]
            self.assign(target, self.expr(s.value), s)
        elif isinstance(s, ast.AugAssign):
            op = BINOPS.get(type(s.op))
            if op is None:
                raise self.err(s, _BINOP_HINTS.get(type(s.op), "this augmented assignment is not supported"))
            if not isinstance(s.target, ast.Name):
                raise self.err(s.target, "only plain names can be assigned")
            current = self.name(ast.Name(s.target.id, ast.Load(), lineno=s.lineno, col_offset=s.col_offset))
            self.assign(s.target, self.binary(op, current, self.expr(s.value), s), s)
        elif isinstance(s, ast.If):
            self.if_stmt(s)
        elif isinstance(s, ast.Return):
            raise self.err(
                s,
                "'return' must be the last statement of the operator, outside if/else; "
                "assign in both branches and return once at the end",
            )
        elif isinstance(s, ast.Pass):
            return
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, (ast.Yield, ast.YieldFrom, ast.Await)):
                raise self.err(s.value, _EXPR_HINTS[type(s.value)])
            if (
                isinstance(s.value, ast.Call)
                and isinstance(s.value.func, ast.Name)
                and s.value.func.id == "print"
            ):
                raise self.err(
                    s.value, "print() is not available in an operator; inspect values with op.reference(...)"
                )
            raise self.err(s, "an expression on its own has no effect; assign it to a name or return it")
        else:
            raise self.err(s, _STMT_HINTS.get(type(s), f"'{type(s).__name__}' statements are not allowed"))

    def assign(self, target: ast.expr, value, s: ast.stmt) -> None:
        if isinstance(target, ast.Tuple):
            raise self.err(target, "tuple assignment is not allowed; assign one name at a time")
        if not isinstance(target, ast.Name):
            raise self.err(target, "only plain names can be assigned (not attributes, subscripts or slices)")
        name = target.id
        if name in self.attr_by_name:
            raise self.err(target, f"'{name}' is an attribute; attributes cannot be reassigned")
        if isinstance(value, MaybeOutput):
            raise self.err(s, "'x if cond else None' is only allowed in the return statement")
        if (
            isinstance(value, Value)
            and value.owner is not None
            and value.owner in self.body
            and id(value) not in self.hints
            and not isinstance(value.type, PredType)
        ):
            self.hints[id(value)] = name
        self.env[name] = value

    def if_stmt(self, s: ast.If) -> None:
        pred = self.cond(s.test)
        before = dict(self.env)
        self.guard += 1
        self.block(s.body)
        then_env = self.env
        self.env = dict(before)
        self.block(s.orelse)
        else_env = self.env
        self.guard -= 1
        merged = dict(before)
        for name in list(then_env) + [n for n in else_env if n not in then_env]:
            a, b = then_env.get(name), else_env.get(name)
            if a is b:
                merged[name] = a
            elif a is None or b is None or isinstance(a, Undefined) or isinstance(b, Undefined):
                merged[name] = Undefined(
                    f"'{name}' is assigned in only one branch of the 'if' at line {s.lineno}; "
                    "assign it in both branches (or before the 'if')"
                )
            else:
                merged[name] = self.select(pred, a, b, s, name)
        self.env = merged

    def select(self, pred: Value, a, b, node: ast.AST, name: str | None = None):
        if isinstance(a, Weak) and isinstance(b, Weak):
            a = self.const(a, None, node)
        a, b = self.pair(a, b, node)
        if a.type != b.type:
            what = f"'{name}'" if name else "the two branches"
            raise self.err(node, f"{what} has type {a.type} in one branch and {b.type} in the other")
        v = self.emit("static.select", [pred, a, b], node)
        if name:
            self.hints[id(v)] = name
        return v

    def ret(self, s: ast.Return) -> tuple[list[Output], list[Value]]:
        if s.value is None:
            raise self.err(s, "'return' needs the operator's outputs: names, or one expression")
        elts = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]
        single = not isinstance(s.value, ast.Tuple)
        outputs, returns, seen = [], [], set()
        for e in elts:
            opt_pred = None
            name_node = e
            if isinstance(e, ast.IfExp) and isinstance(e.orelse, ast.Constant) and e.orelse.value is None:
                opt_pred = self.cond(e.test)
                name_node = e.body
                self.guard += 1
            if (
                single
                and opt_pred is None
                and isinstance(name_node, ast.Name)
                and name_node.id in self.input_values
            ):
                # `return x` of an input: one expression, output `y`, a copy of the input
                oname, val = self.default_output_name(), self.expr(name_node)
            elif isinstance(name_node, ast.Name):
                oname = name_node.id
                problem = param_name_problem(oname, "output") or spelling_clash(
                    [*self.input_values, *self.attr_by_name, *(o.name for o in outputs)], oname
                )
                if problem is not None:
                    raise self.err(name_node, problem)
                if oname in self.input_values:
                    raise self.err(
                        name_node,
                        f"output '{oname}' would have the same name as an input; "
                        "assign the result to a new name and return that",
                    )
                val = self.expr(name_node)
            elif single and opt_pred is None:
                oname, val = self.default_output_name(), self.expr(name_node)
            else:
                raise self.err(
                    name_node,
                    "return names when returning several outputs "
                    "(outputs are named after them), e.g. 'return y, mean'",
                )
            if opt_pred is not None:
                self.guard -= 1
            if oname in seen:
                raise self.err(name_node, f"output '{oname}' is returned twice")
            seen.add(oname)
            if isinstance(val, Weak):
                raise self.err(name_node, "an output must be a tensor, not a number")
            val = self.value(val, name_node)
            if not isinstance(val.type, TensorType):
                raise self.err(
                    name_node,
                    f"output '{oname}' is a scalar ({val.type}); outputs must be "
                    "tensors (combine it with a tensor input)",
                )
            if opt_pred is not None:
                none = self.emit("none", [], e, rtype=val.type)
                val = self.emit("static.select", [opt_pred, val, none], e)
                self.hints[id(val)] = oname
            outputs.append(Output(oname, val.type, optional=opt_pred is not None))
            returns.append(val)
        return outputs, returns

    def default_output_name(self) -> str:
        """``y``, unless an input or attribute already has that name (OpDef names are unique)."""
        taken = [*self.input_values, *self.attr_by_name]
        return next(
            n
            for n in ("y", "out", "y_out", "result", "output")
            if n not in taken and not spelling_clash(taken, n)
        )

    def finish(self, outputs: list[Output], returns: list[Value]) -> Func:
        namer = Namer({p.value.name for p in self.params})
        for op in self.body:
            op.result.name = namer.fresh(self.hints.get(id(op.result)))
        return Func(
            self.op_name,
            self.params,
            list(self.attr_decls),
            outputs,
            self.body,
            returns,
            {"dtype": self.T, "broadcast": self.broadcast and not self.named_dims()},
            self.src.loc(self.src.tree),
        )

    def mixed_hint(self, operands: list[Value]) -> str:
        """With broadcast=True, an unshaped tensor meeting a named one: say both ways out."""
        shapes = [v.type.shape for v in operands if isinstance(v.type, TensorType)]
        if not (self.broadcast and any(s.unshaped for s in shapes) and any(not s.unshaped for s in shapes)):
            return ""
        named = next(s for s in shapes if not s.unshaped)
        return (
            f" (a row operator), or declare the [{named}] tensor a plain Tensor: with broadcast=True unshaped "
            "tensors broadcast as numpy does, e.g. an (M, 1) array along the rows of an (M, C) one"
        )

    def named_dims(self) -> bool:
        """A tensor input has named dims: a row operator, whose shapes the names fix (broadcast=True
        concerns unshaped tensors only)."""
        return any(
            isinstance(p.value.type, TensorType) and not p.value.type.shape.unshaped for p in self.params
        )

    # -- static conditions ----------------------------------------------------------------------

    def cond(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Name) and node.id in self.attr_by_name:
            decl = self.attr_by_name[node.id]
            if decl.kind == "bool":
                return self.emit("static.flag", [], node, {"name": decl.name}, PRED)
            if decl.kind == "literal":
                raise self.err(
                    node,
                    f"compare the Literal attribute with one of its choices, e.g. "
                    f"'if {decl.name} == \"{decl.choices[0]}\":'",
                )
            raise self.err(
                node,
                f"'{decl.name}' is a run-time {decl.kind} attribute; only bool and Literal "
                "attributes choose code paths (use dsl.where for values)",
            )
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.emit("static.not", [self.cond(node.operand)], node)
        if isinstance(node, ast.BoolOp):
            op = "static.and" if isinstance(node.op, ast.And) else "static.or"
            acc = self.cond(node.values[0])
            for v in node.values[1:]:
                acc = self.emit(op, [acc, self.cond(v)], node)
            return acc
        if isinstance(node, ast.Compare):
            pred = self.static_compare(node)
            if pred is not None:
                return pred
        value = self.expr(node)
        if isinstance(value, Value) and isinstance(value.type, PredType):
            return value
        if isinstance(value, Value):
            raise self.err(
                node,
                "'if' on a tensor or scalar value is not allowed (the kernel runs on all "
                "elements); use dsl.where(cond, a, b), or 'if' on a bool/Literal attribute",
            )
        raise self.err(node, "a condition must be a bool or Literal attribute (or not/and/or of them)")

    def static_compare(self, node: ast.Compare) -> Value | None:
        if len(node.ops) != 1:
            return None
        left, right = node.left, node.comparators[0]
        if isinstance(right, ast.Name) and right.id in self.attr_by_name:
            left, right = right, left
        if not (isinstance(left, ast.Name) and left.id in self.attr_by_name):
            return None
        decl = self.attr_by_name[left.id]
        if decl.kind != "literal":
            if decl.kind == "bool":
                raise self.err(
                    node, f"use the bool attribute directly: 'if {decl.name}:' or 'if not {decl.name}:'"
                )
            return None
        if not isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            raise self.err(node, f"compare the Literal attribute '{decl.name}' with == or != only")
        if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
            raise self.err(
                right, f"compare '{decl.name}' with a string constant, one of {list(decl.choices)}"
            )
        if right.value not in decl.choices:
            raise self.err(right, f"'{right.value}' is not a choice of '{decl.name}' ({list(decl.choices)})")
        p = self.emit("static.is", [], node, {"name": decl.name, "value": right.value}, PRED)
        if isinstance(node.ops[0], ast.NotEq):
            p = self.emit("static.not", [p], node)
        return p

    # -- expressions ----------------------------------------------------------------------------

    def expr(self, node: ast.expr):
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                raise self.err(
                    node, "True/False are not values in an operator; use a comparison or a bool attribute"
                )
            if isinstance(v, (int, float)):
                return Weak(v, node=node)
            if isinstance(v, str):
                raise self.err(
                    node,
                    "a string is only allowed as a Literal attribute's value in a comparison "
                    "or as a dtype name in dsl.cast",
                )
            raise self.err(node, f"the constant {v!r} is not a value; use numbers, inputs and attributes")
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            if isinstance(node.orelse, ast.Constant) and node.orelse.value is None:
                raise self.err(
                    node,
                    "'x if cond else None' is only allowed in the return statement " "(an optional output)",
                )
            pred = self.cond(node.test)
            self.guard += 1
            a, b = self.expr(node.body), self.expr(node.orelse)
            self.guard -= 1
            return self.select(pred, a, b, node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.BoolOp):
            raise self.err(
                node,
                "'and'/'or' combine static conditions on bool/Literal attributes only; "
                "for element-wise logic use dsl.where",
            )
        raise self.err(node, _EXPR_HINTS.get(type(node), f"'{type(node).__name__}' is not allowed here"))

    def name(self, node: ast.Name):
        n = node.id
        if n in self.env:
            v = self.env[n]
            if isinstance(v, Undefined):
                raise self.err(node, v.reason)
            return v
        if n in self.input_values:
            if n in self.optional_inputs and self.guard == 0:
                raise self.err(
                    node,
                    f"optional input '{n}' may be absent here; use it only under "
                    f"'if <attribute>:' or 'a if <attribute> else b' (that variant then requires it)",
                )
            return self.input_values[n]
        if n in self.attr_by_name:
            decl = self.attr_by_name[n]
            if decl.static:
                raise self.err(
                    node,
                    (
                        f"'{n}' is a static {decl.kind} attribute that selects code paths, not a "
                        f"value; use 'if {n}:' / 'a if {n} else b'"
                        if decl.kind == "bool"
                        else f"'{n}' is a Literal attribute; compare it: 'if {n} == \"{decl.choices[0]}\":'"
                    ),
                )
            return Weak(decl.default, attr=n, node=node)
        g = self.fn.__globals__.get(n, getattr(builtins, n, _MISSING))
        if g is _MISSING:
            raise self.err(node, f"undefined name '{n}'")
        if isinstance(g, DType):
            return DTypeRef(g)
        if isinstance(g, ElementType):  # dsl.T imported by name
            return DTypeRef(self.T)
        if isinstance(g, bool):
            raise self.err(node, f"global '{n}' is a bool; use a bool attribute instead")
        if isinstance(g, (int, float)):
            return Weak(g, node=node)
        raise self.err(
            node,
            f"'{n}' is not a value the DSL can use (inputs, attributes, local names, "
            "numbers and numeric module constants are)",
        )

    def binop(self, node: ast.BinOp):
        if isinstance(node.op, ast.Pow):
            return self.power(node)
        if type(node.op) in LOGIC_OPS:
            op, sym = LOGIC_OPS[type(node.op)]
            a = self.logic_operand(node.left, sym, node)
            b = self.logic_operand(node.right, sym, node)
            return self.emit(op, [a, b], node)
        if isinstance(node.op, ast.MatMult):
            return self.matmul(node)
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.err(node, _BINOP_HINTS.get(type(node.op), "this operator is not supported"))
        return self.binary(op, self.expr(node.left), self.expr(node.right), node)

    # -- matmul (DESIGN.md section 2: "Matrix product") -----------------------------------------

    def matmul(self, node: ast.BinOp) -> Value:
        """``a @ b`` / ``a @ w.T`` of two inputs: one per operator, f32 (i32 for i8) result."""
        if self.matmul_op is not None:
            raise self.err(
                node,
                f"an operator has at most one '@' (the first is at line {self.matmul_op.loc.line}); the "
                "rest of the body is that product's epilogue: write a second product as its own operator",
            )
        if isinstance(node.left, ast.Attribute) and node.left.attr == "T":
            raise self.err(
                node.left,
                "'.T' is allowed only on the right operand of '@' (a @ w.T with w: Tensor[\"N\", \"K\"]); "
                'declare the left operand as it is stored, a: Tensor["M", "K"]',
            )
        a = self.matmul_operand(node.left, "left")
        transpose = isinstance(node.right, ast.Attribute) and node.right.attr == "T"
        right = node.right.value if transpose else node.right
        b = self.matmul_operand(right, "right", transposed=transpose, where=node.right)
        what = f"{a.name} @ {b.name}{'.T' if transpose else ''}"
        da, db = a.type.dtype, b.type.dtype
        for v, n in ((a, node.left), (b, right)):
            dt = v.type.dtype
            if dt.name not in MATMUL_OPERAND_DTYPES:
                fix = (
                    ": declare it f16, bf16 or i8"
                    if self.params_by_name[v.name].pinned
                    else f" (T = {self.T}): generate the operator for f16/bf16, e.g. dtypes=(f16, bf16)"
                )
                raise self.err(
                    n,
                    f"'@' takes f16 x f16, bf16 x bf16 or i8 x i8 operands (the cube has no {dt} "
                    f"product); '{v.name}' is {dt}{fix}",
                )
        if da != db:
            raise self.err(
                node,
                f"'@' needs operands of one dtype (f16 x f16, bf16 x bf16 or i8 x i8); '{a.name}' is {da} "
                f"and '{b.name}' is {db}: pin both to the same dtype",
            )
        (m, k), (k2, n) = matmul_dims([a.type, b.type], {"transpose_b": transpose})
        if k != k2:
            rhs = (
                f"'{b.name}.T' is [{k2}, {n}] ('{b.name}' is [{n}, {k2}])"
                if transpose
                else f"'{b.name}' is [{k2}, {n}]"
            )
            raise self.err(
                node,
                f"'{what}' sums over '{k}' of '{a.name}' [{m}, {k}] and '{k2}' of the right operand: {rhs}; "
                f"'{k}' and '{k2}' name different sizes, so the product is not defined for any call: give "
                "the contracted dim one name in both annotations",
            )
        v = self.emit("matmul", [a, b], node, {"transpose_b": transpose})
        self.matmul_op = v.owner
        return v

    def matmul_operand(
        self, node: ast.expr, side: str, transposed: bool = False, where: ast.expr | None = None
    ) -> Value:
        """An operand of ``@``: an input's name (a 2-D tensor with named dims), never a value the
        body computed. ``where``: the operand as written (``w.T``), for errors about it."""
        shape = (
            '["K", "N"]'
            if side == "right" and not transposed
            else '["N", "K"]' if transposed else '["M", "K"]'
        )
        example = f"Tensor{shape}"
        x = self.expr(node) if isinstance(node, ast.Name) else None
        if not (isinstance(x, Value) and x.owner is None and x.name in self.input_values):
            if transposed:
                msg = (
                    f'\'.T\' applies only to an input of the operator (w: Tensor["N", "K"] in a @ w.T), '
                    "not to a computed value: the cube reads both operands from GM as they are stored"
                )
            else:
                msg = (
                    f"the {side} operand of '@' must be an input of the operator ({example}), not a "
                    "computed value: the cube reads both operands from GM; compute on the product instead "
                    "(the epilogue)"
                )
            raise self.err(where or node, msg)
        if isinstance(x.type, ScalarType):
            raise self.err(
                node, f"'{x.name}' is a Scalar; the operands of '@' are 2-D tensors, e.g. {x.name}: {example}"
            )
        shape = x.type.shape
        if shape.unshaped:
            raise self.err(node, f"the operands of '@' need two named dims; declare '{x.name}': {example}")
        if shape.ellipsis or len(shape.dims) > 2:
            raise self.err(
                node,
                f"batched matmul is not supported: '{x.name}' is [{shape}]; '@' takes 2-D operands, "
                f"e.g. {x.name}: {example} (one operator call per batch)",
            )
        if len(shape.dims) < 2:
            raise self.err(
                node, f"'{x.name}' is [{shape}]; the operands of '@' are 2-D, e.g. {x.name}: {example}"
            )
        if any(d == 1 for d in shape.dims):
            raise self.err(
                node,
                f"'{x.name}' is [{shape}]; the operands of '@' have two named dims (a literal 1 marks a "
                f"per-row value), e.g. {x.name}: {example}",
            )
        return x

    def binary(self, op: str, a, b, node: ast.AST):
        if isinstance(a, Weak) and isinstance(b, Weak) and (a.attr or b.attr):
            # Two weak values (one a run-time attribute): both take T's kind, so `1 - dampening`
            # stays a T scalar rather than dragging an f16 expression up to f32.
            a = self.const(self.float_if_either(a, b), None, node)
        if isinstance(a, Weak) and isinstance(b, Weak):
            x, y = a.value, b.value
            if op == "div" and y == 0:
                raise self.err(node, "division by the constant zero")
            r = {
                "add": x + y,
                "sub": x - y,
                "mul": x * y,
                "div": (x / y) if op == "div" else 0,
                "max": max(x, y),
                "min": min(x, y),
            }[op]
            return Weak(r, node=node)
        a, b = self.pair(a, b, node)
        return self.emit(op, [a, b], node)

    def power(self, node: ast.BinOp):
        exp = node.right
        if (
            isinstance(exp, ast.Constant)
            and not isinstance(exp.value, bool)
            and isinstance(exp.value, (int, float))
        ):
            base = self.expr(node.left)
            if exp.value == 2:
                if isinstance(base, Weak) and base.attr is None:  # a run-time attribute is no constant
                    return Weak(base.value**2, node=node)
                base = self.value(base, node.left)
                return self.emit("mul", [base, base], node)
            if exp.value == 0.5:
                base = self.value(base, node.left)
                return self.emit("sqrt", [base], node)
            raise self.err(
                exp,
                f"'** {exp.value}' is not supported; only '** 2' and '** 0.5' "
                "(write x * x * x, or dsl.exp(k * dsl.log(x)))",
            )
        raise self.err(exp, "the exponent of '**' must be the constant 2 or 0.5")

    def unary(self, node: ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            raise self.err(
                node,
                "'not' applies to static conditions in 'if'; for element-wise logic use "
                "a comparison and dsl.where",
            )
        if isinstance(node.op, ast.Invert):
            return self.emit("not", [self.logic_operand(node.operand, "~", node)], node)
        x = self.expr(node.operand)
        if isinstance(node.op, ast.UAdd):
            return x
        if isinstance(x, Weak) and x.attr is None:
            return Weak(-x.value, node=node)
        return self.emit("neg", [self.value(x, node.operand)], node)

    def logic_operand(self, operand: ast.expr, sym: str, node: ast.AST) -> Value:
        """An operand of ``&``, ``|`` or ``~``: a bool_ value (Python binds ``&`` tighter than
        ``>``, so ``a > 0 & m`` reads ``a > (0 & m)``: the hint says to parenthesize)."""
        x = self.expr(operand)
        if isinstance(x, Value) and not isinstance(x.type, PredType) and x.type.dtype == bool_:
            return x
        if isinstance(x, Weak) or isinstance(x, DTypeRef):
            got = "a number" if isinstance(x, Weak) else "a dtype"
        else:
            got = getattr(x.type, "dtype", "a static condition")
        raise self.err(
            node,
            f"'{sym}' takes {BOOL_OPERANDS}, got {got}; write comparisons in parentheses, "
            "e.g. (a > 0) & mask",
        )

    def compare(self, node: ast.Compare):
        if len(node.ops) != 1:
            raise self.err(
                node, "chained comparisons (a < b < c) are not allowed; compare two values at a time"
            )
        static = self.static_compare(node)
        if static is not None:
            return static
        op = CMPOPS.get(type(node.ops[0]))
        if op is None:
            raise self.err(node, "only > >= < <= == != comparisons are allowed ('is'/'in' are not)")
        a, b = self.expr(node.left), self.expr(node.comparators[0])
        if isinstance(a, Weak) and isinstance(b, Weak):
            if not (a.attr or b.attr):
                raise self.err(
                    node, "comparing two constants is not a value; compare a tensor or an attribute"
                )
            a = self.const(self.float_if_either(a, b), None, node)
        a, b = self.pair(a, b, node)
        return self.emit("cmp", [a, b], node, {"pred": op})

    def attribute(self, node: ast.Attribute):
        if node.attr == "dtype":
            base = self.expr(node.value)
            if isinstance(base, Value) and not isinstance(base.type, PredType):
                return DTypeRef(base.type.dtype)
            raise self.err(node, "'.dtype' applies to tensors and scalars")
        target = self._global_module(node.value)
        if node.attr == "T" and target is not _dsl_pkg:
            raise self.err(
                node,
                "'.T' is allowed only on an input as the right operand of '@' (a @ w.T with "
                'w: Tensor["N", "K"]); there is no transpose elsewhere',
            )
        if target is math and node.attr in ("inf", "nan"):
            if node.attr == "nan":
                raise self.err(node, "math.nan is not allowed; NaN constants are not allowed in an operator")
            return Weak(math.inf, node=node)
        if target is _dsl_pkg:
            if isinstance(getattr(_dsl_pkg, node.attr, None), DType):
                return DTypeRef(getattr(_dsl_pkg, node.attr))
            if isinstance(getattr(_dsl_pkg, node.attr, None), ElementType):  # dsl.T
                return DTypeRef(self.T)
            if node.attr in INTRINSICS:
                raise self.err(
                    node, f"dsl.{node.attr} is a function; call it: dsl.{INTRINSICS[node.attr].signature}"
                )
            raise self.err(node, f"'dsl.{node.attr}' is not part of the DSL")
        raise self.err(
            node,
            f"attribute '.{node.attr}' is not available; the attributes are x.dtype and w.T (in a @ w.T)",
        )

    def _global_module(self, node: ast.expr):
        if isinstance(node, ast.Name) and node.id not in self.env and node.id not in self.input_values:
            return self.fn.__globals__.get(node.id)
        return None

    # -- calls ----------------------------------------------------------------------------------

    def resolve_callee(self, node: ast.Call) -> str:
        f = node.func
        if isinstance(f, ast.Attribute):
            mod = self._global_module(f.value)
            if mod is _dsl_pkg:
                if f.attr in INTRINSICS:
                    return f.attr
                raise self.err(f, f"unknown function 'dsl.{f.attr}'; the DSL's functions are {DSL_FUNCS}")
            if isinstance(mod, types.ModuleType):
                raise self.err(
                    f,
                    f"calls into module '{f.value.id}' are not allowed; use the DSL's "
                    f"functions ({DSL_FUNCS})",
                )
            raise self.err(f, f"methods are not available; use the DSL's functions ({DSL_FUNCS})")
        if isinstance(f, ast.Name):
            g = self.fn.__globals__.get(f.id, getattr(builtins, f.id, None))
            if f.id in self.env or f.id in self.input_values or f.id in self.attr_by_name:
                raise self.err(f, f"'{f.id}' is a value, not a function")
            if isinstance(g, Intrinsic):
                return g.name
            if g is builtins.abs or g is builtins.round:
                return f.id
            if g is builtins.max or g is builtins.min:
                raise self.err(
                    f,
                    f"use dsl.{'maximum' if g is builtins.max else 'minimum'}(a, b) for the "
                    f"element-wise {f.id}, or dsl.{f.id}(x, axis=-1) to reduce",
                )
            raise self.err(f, f"unknown function '{f.id}'; the DSL's functions are {DSL_FUNCS}")
        raise self.err(f, "only calls to the DSL's functions are allowed")

    def float_literal(self, node: ast.Call) -> Weak:
        """``float("inf")`` / ``float("-inf")``: the only calls of ``float`` an operator has."""
        arg = node.args[0] if len(node.args) == 1 and not node.keywords else None
        text = (
            arg.value.strip().lower()
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            else None
        )
        if text in ("nan", "+nan", "-nan"):
            raise self.err(node, f"float({arg.value!r}) is NaN; NaN constants are not allowed in an operator")
        if text not in INFINITIES:
            raise self.err(
                node,
                'float(...) is only allowed as float("inf") or float("-inf"); write numbers directly '
                "and use dsl.cast(x, f32) for values",
            )
        return Weak(float(text), node=node)

    def call(self, node: ast.Call):
        f = node.func
        if (
            isinstance(f, ast.Name)
            and f.id not in self.env
            and f.id not in self.input_values
            and f.id not in self.attr_by_name
            and self.fn.__globals__.get(f.id, getattr(builtins, f.id, None)) is builtins.float
        ):
            return self.float_literal(node)
        name = self.resolve_callee(node)
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.err(a, _EXPR_HINTS[ast.Starred])
        if name in UNARY_INTRINSICS:
            self._arity(node, name, 1)
            x = self.expr(node.args[0])
            if isinstance(x, Weak) and x.attr is None and name in ("abs", "relu"):
                return Weak(abs(x.value) if name == "abs" else max(x.value, 0), node=node)
            if isinstance(x, Weak) and name not in ("abs", "relu"):
                x = Weak(float(x.value), x.attr, x.node)  # float-only math on a number: a float constant
            return self.emit(name, [self.value(x, node.args[0])], node)
        if name in ("maximum", "minimum"):
            self._arity(node, name, 2)
            return self.binary(
                "max" if name == "maximum" else "min", self.expr(node.args[0]), self.expr(node.args[1]), node
            )
        if name == "where":
            self._arity(node, name, 3)
            c = self.value(self.expr(node.args[0]), node.args[0])
            a, b = self.expr(node.args[1]), self.expr(node.args[2])
            if isinstance(a, Weak) and isinstance(b, Weak):
                a = self.const(self.float_if_either(a, b), None, node.args[1])
            a, b = self.pair(a, b, node)
            return self.emit("where", [c, a, b], node)
        if name == "cast":
            return self.cast(node)
        return self.reduction(name, node)

    def _arity(self, node: ast.Call, name: str, n: int) -> None:
        if len(node.args) != n or node.keywords:
            raise self.err(node, f"dsl.{INTRINSICS[name].signature} takes {n} positional argument(s)")

    def cast(self, node: ast.Call):
        args = list(node.args)
        kws = {k.arg: k.value for k in node.keywords}
        if set(kws) - {"dtype"} or len(args) + len(kws) != 2 or not args:
            raise self.err(node, "dsl.cast(x, dtype) takes a value and a dtype, e.g. dsl.cast(x, f32)")
        dnode = args[1] if len(args) > 1 else kws["dtype"]
        if isinstance(dnode, ast.Constant) and isinstance(dnode.value, str):
            if dnode.value not in BY_NAME:
                raise self.err(
                    dnode,
                    f"unknown dtype '{dnode.value}'; the DSL's dtypes are "
                    "f16, bf16, f32, i8, i32, u8, bool_",
                )
            dtype = BY_NAME[dnode.value]
        else:
            ref = self.expr(dnode)
            if not isinstance(ref, DTypeRef):
                raise self.err(
                    dnode,
                    "the second argument of dsl.cast must be a dtype (f16, bf16, f32, i8, i32, "
                    "u8, bool_, x.dtype, or dsl.T)",
                )
            dtype = ref.dtype
        x = self.value(self.expr(args[0]), args[0])
        if x.type.dtype == dtype and not (dtype.is_float and dtype.bits == 16):
            return x  # f32, integer and bool values are exact in their type
        return self.emit("cast", [x], node, {"from": x.type.dtype}, x.type.with_dtype(dtype))

    def reduction(self, name: str, node: ast.Call):
        if len(node.args) != 1:
            hint = (
                f"; use dsl.{'maximum' if name == 'max' else 'minimum'}(a, b) for element-wise"
                if name in ("max", "min") and len(node.args) == 2
                else ""
            )
            raise self.err(node, f"dsl.{INTRINSICS[name].signature} reduces one tensor{hint}")
        axis, keepdims, axis_node = -1, True, node
        x = self.value(self.expr(node.args[0]), node.args[0])
        for kw in node.keywords:
            if kw.arg == "axis":
                axis, axis_node = self._const_int(kw.value, "axis"), kw.value
            elif kw.arg == "keepdims":
                if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                    raise self.err(kw.value, "keepdims must be True or False")
                keepdims = kw.value.value
            else:
                raise self.err(kw, f"dsl.{name} takes axis= and keepdims= only")
        last = None
        if isinstance(x.type, TensorType) and x.type.shape.rank_known:
            last = len(x.type.shape.dims) - 1
        if axis != -1 and axis != last:
            raise self.err(axis_node, "reductions run along the last axis only: use axis=-1")
        return self.emit("reduce", [x], node, {"kind": name, "keepdims": keepdims})

    def _const_int(self, node: ast.expr, what: str) -> int:
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
        ):
            v = node.operand.value
            if isinstance(v, int) and not isinstance(v, bool):
                return -v
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            return node.value
        raise self.err(node, f"{what} must be an integer constant (axis=-1)")


_MISSING = object()
