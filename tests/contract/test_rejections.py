"""Contract tests: every construct outside DESIGN.md section 2 is rejected with ``dsl.DslError``
at the right file, line and column, with a message that says what is allowed instead.

Each case is a small module (written to a temporary file and imported, so ``inspect`` reads real
source). The offending line carries a ``#!`` marker; ``at`` is the text the reported column must
point at (the first occurrence on that line): ``offset == line.index(at) + 1``, the 1-based
column of the offending AST node (``col_offset + 1``). ``node`` names that node's AST type, and
``test_case_positions_are_ast_nodes`` checks (without dsl) that such a node really starts there.

Which node is "the offending one" (decided here; the lead may choose otherwise, see report):

* a disallowed statement (for, while, try, with, import, global, del, assert, raise, class,
  nested def, return inside if): the statement itself;
* a disallowed expression (lambda, comprehension, call of an unknown function, subscript,
  attribute other than ``.dtype``, string constant, literal list/dict, walrus): that expression;
* an operator the DSL lacks (``@ % // & |``, ``is``, chained comparison, ``and`` on tensors) or
  a type/shape clash: the whole BinOp/Compare/BoolOp node;
* a wrong operand: the operand (exponent of ``**``, the ``axis=`` value, the dtype argument of
  ``cast``, a non-static ``if`` condition, a Literal comparison value outside the choices, a
  non-None default of a Tensor input);
* a wrong parameter: the annotation for an unsupported annotation; the parameter (``ast.arg``)
  for ``*args``/``**kwargs`` and for an attribute without a default;
* a missing return: the ``def`` (FunctionDef) itself;
* a use of an optional input on a path where it may be absent, or of a bool attribute as a
  number: that Name.

Either decoration or the first ``op.ir(...)`` may raise: both run inside ``pytest.raises``.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import pathlib
import re
import sys
import textwrap
from dataclasses import dataclass, field

import numpy as np
import pytest

PREAMBLE = """\
import math
from typing import Literal

import numpy as np

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32, i8, i32, u8, bool_

COUNTER = 0

"""


@dataclass
class Case:
    id: str
    src: str
    at: str
    node: str
    msg: str  # regex (case-insensitive) the DslError message must match
    attrs: dict = field(default_factory=dict)

    @property
    def text(self) -> str:
        return PREAMBLE + textwrap.dedent(self.src).lstrip("\n")

    @property
    def position(self) -> tuple[int, int, str]:
        lines = self.text.splitlines()
        marked = [i for i, line in enumerate(lines) if line.rstrip().endswith("#!")]
        assert len(marked) == 1, f"{self.id}: exactly one '#!' marker expected"
        line = lines[marked[0]]
        col = line.index(self.at)
        return marked[0] + 1, col + 1, line


OP = "@dsl.op(dtypes=(f32,))"

CASES = [
    # --- statements ---------------------------------------------------------------------------
    Case(
        "for_loop",
        f"""
        {OP}
        def bad(x: Tensor):
            y = x
            for i in range(3):  #!
                y = y + x
            return y
        """,
        "for",
        "For",
        r"loop|for",
    ),
    Case(
        "while_loop",
        f"""
        {OP}
        def bad(x: Tensor):
            y = x
            while y:  #!
                y = y + x
            return y
        """,
        "while",
        "While",
        r"loop|while",
    ),
    Case(
        "try_except",
        f"""
        {OP}
        def bad(x: Tensor):
            try:  #!
                y = x + 1
            except Exception:
                y = x
            return y
        """,
        "try",
        "Try",
        r"try|except",
    ),
    Case(
        "with_stmt",
        f"""
        {OP}
        def bad(x: Tensor):
            with open("f") as fh:  #!
                y = x
            return y
        """,
        "with",
        "With",
        r"with",
    ),
    Case(
        "assert_stmt",
        f"""
        {OP}
        def bad(x: Tensor):
            assert x > 0  #!
            return x
        """,
        "assert",
        "Assert",
        r"assert",
    ),
    Case(
        "del_stmt",
        f"""
        {OP}
        def bad(x: Tensor):
            y = x + 1
            del y  #!
            return x
        """,
        "del",
        "Delete",
        r"del",
    ),
    Case(
        "import_in_body",
        f"""
        {OP}
        def bad(x: Tensor):
            import os  #!
            return x
        """,
        "import",
        "Import",
        r"import",
    ),
    Case(
        "global_stmt",
        f"""
        {OP}
        def bad(x: Tensor):
            global COUNTER  #!
            return x
        """,
        "global",
        "Global",
        r"global",
    ),
    Case(
        "nonlocal_stmt",
        f"""
        def make():
            counter = 0

            {OP}
            def bad(x: Tensor):
                nonlocal counter  #!
                return x

            return bad


        bad = make()
        """,
        "nonlocal",
        "Nonlocal",
        r"nonlocal",
    ),
    Case(
        "raise_stmt",
        f"""
        {OP}
        def bad(x: Tensor):
            raise ValueError("no")  #!
            return x
        """,
        "raise",
        "Raise",
        r"raise",
    ),
    Case(
        "class_def",
        f"""
        {OP}
        def bad(x: Tensor):
            class K:  #!
                pass
            return x
        """,
        "class",
        "ClassDef",
        r"class",
    ),
    Case(
        "nested_def",
        f"""
        {OP}
        def bad(x: Tensor):
            def helper(v):  #!
                return v + 1
            return helper(x)
        """,
        "def",
        "FunctionDef",
        r"def|function|nested",
    ),
    Case(
        "yield_expr",
        f"""
        {OP}
        def bad(x: Tensor):
            yield x  #!
            return x
        """,
        "yield",
        "Yield",
        r"yield|generator|return",
    ),
    Case(
        "print_call",
        f"""
        {OP}
        def bad(x: Tensor):
            print(x)  #!
            return x
        """,
        "print",
        "Call",
        r"print|call|function|statement",
    ),
    Case(
        "aug_assign_attribute",
        f"""
        {OP}
        def bad(x: Tensor):
            x.dtype += 1  #!
            return x
        """,
        "x.dtype",
        "AugAssign",
        r"assign|attribute|name",
    ),
    Case(
        "assign_attribute",
        f"""
        {OP}
        def bad(x: Tensor):
            x.dtype = f16  #!
            return x
        """,
        "x.dtype",
        "Assign",
        r"assign|attribute|name",
    ),
    Case(
        "return_inside_if",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor, *, flag: bool = False):
            if flag:
                return x  #!
            return x + 1
        """,
        "return",
        "Return",
        r"return",
    ),
    Case(
        "missing_return",
        f"""
        {OP}
        def bad(x: Tensor):  #!
            y = x + 1
        """,
        "def",
        "FunctionDef",
        r"return",
    ),
    Case(
        "async_def",
        f"""
        {OP}
        async def bad(x: Tensor):  #!
            return x
        """,
        "async",
        "AsyncFunctionDef",
        r"async|def",
    ),
    # --- expressions --------------------------------------------------------------------------
    Case(
        "lambda_expr",
        f"""
        {OP}
        def bad(x: Tensor):
            f = lambda a: a + 1  #!
            return f(x)
        """,
        "lambda",
        "Lambda",
        r"lambda",
    ),
    Case(
        "list_comprehension",
        f"""
        {OP}
        def bad(x: Tensor):
            ys = [x + i for i in range(3)]  #!
            return x
        """,
        "[x",
        "ListComp",
        r"comprehension|loop|list",
    ),
    Case(
        "dict_comprehension",
        f"""
        {OP}
        def bad(x: Tensor):
            d = {{i: x for i in range(3)}}  #!
            return x
        """,
        "{i",
        "DictComp",
        r"comprehension|loop|dict",
    ),
    Case(
        "set_comprehension",
        f"""
        {OP}
        def bad(x: Tensor):
            s = {{x + i for i in range(2)}}  #!
            return x
        """,
        "{x",
        "SetComp",
        r"comprehension|loop|set",
    ),
    Case(
        "generator_expression",
        f"""
        {OP}
        def bad(x: Tensor):
            g = (x + i for i in range(2))  #!
            return x
        """,
        "(x",
        "GeneratorExp",
        r"generator|comprehension|loop",
    ),
    Case(
        "list_literal",
        f"""
        {OP}
        def bad(x: Tensor):
            ys = [x, x]  #!
            return x
        """,
        "[x",
        "List",
        r"list",
    ),
    Case(
        "dict_literal",
        f"""
        {OP}
        def bad(x: Tensor):
            d = {{"k": x}}  #!
            return x
        """,
        "{",
        "Dict",
        r"dict",
    ),
    Case(
        "walrus",
        f"""
        {OP}
        def bad(x: Tensor):
            return (y := x + 1)  #!
        """,
        "y :=",
        "NamedExpr",
        r":=|walrus|assign",
    ),
    Case(
        "unknown_dsl_function",
        f"""
        {OP}
        def bad(x: Tensor):
            return dsl.foo(x)  #!
        """,
        "dsl.foo",
        "Call",
        r"foo",
    ),
    Case(
        "numpy_function",
        f"""
        {OP}
        def bad(x: Tensor):
            return np.sqrt(x)  #!
        """,
        "np.sqrt",
        "Call",
        r"dsl\.sqrt|dsl",
    ),
    Case(
        "math_function",
        f"""
        {OP}
        def bad(x: Tensor):
            return math.sqrt(x)  #!
        """,
        "math.sqrt",
        "Call",
        r"dsl\.sqrt|dsl",
    ),
    Case(
        "builtin_max",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return max(a, b)  #!
        """,
        "max",
        "Call",
        r"maximum|dsl",
    ),
    Case(
        "wrong_arity",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return dsl.sqrt(a, b)  #!
        """,
        "dsl.sqrt",
        "Call",
        r"argument|arg|sqrt",
    ),
    Case(
        "undefined_name",
        f"""
        {OP}
        def bad(x: Tensor):
            return x + z  #!
        """,
        "z",
        "Name",
        r"\bz\b",
    ),
    Case(
        "subscript",
        f"""
        {OP}
        def bad(x: Tensor):
            return x[0]  #!
        """,
        "x[0]",
        "Subscript",
        r"subscript|index|slic",
    ),
    Case(
        "attribute_shape",
        f"""
        {OP}
        def bad(x: Tensor):
            y = x * x.shape  #!
            return y
        """,
        "x.shape",
        "Attribute",
        r"dtype",
    ),
    Case(
        "string_constant_value",
        f"""
        {OP}
        def bad(x: Tensor):
            return x + "a"  #!
        """,
        '"a"',
        "Constant",
        r"string|str\b|number|numeric|constant",
    ),
    Case(
        "cast_unknown_dtype",
        f"""
        {OP}
        def bad(x: Tensor):
            return dsl.cast(x, "f64")  #!
        """,
        '"f64"',
        "Constant",
        r"f64|dtype|f16|f32|bf16",
    ),
    # --- operators ----------------------------------------------------------------------------
    Case(
        "pow_tensor_exponent",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor, p: Tensor):
            return x ** p  #!
        """,
        "p",
        "Name",
        r"0\.5|\b2\b|constant|exponent",
    ),
    Case(
        "pow_three",
        f"""
        {OP}
        def bad(x: Tensor):
            return x ** 3  #!
        """,
        "3",
        "Constant",
        r"0\.5|\b2\b",
    ),
    Case(
        "matmul",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return a @ b  #!
        """,
        "a @ b",
        "BinOp",
        r"@|matmul|operator|\+",
    ),
    Case(
        "modulo",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return a % b  #!
        """,
        "a % b",
        "BinOp",
        r"%|modulo|operator|\+",
    ),
    Case(
        "floordiv",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return a // b  #!
        """,
        "a // b",
        "BinOp",
        r"//|floor|operator|\+",
    ),
    Case(
        "bitwise_and",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return a & b  #!
        """,
        "a & b",
        "BinOp",
        r"&|bitwise|operator|\+",
    ),
    Case(
        "bitwise_or",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return a | b  #!
        """,
        "a | b",
        "BinOp",
        r"\||bitwise|operator|\+",
    ),
    Case(
        "invert_non_bool",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor):
            return ~a  #!
        """,
        "~a",
        "UnaryOp",
        r"~.*bool_",
    ),
    Case(
        "and_unparenthesized_comparison",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, m: Tensor[bool_]):
            return dsl.where(a > 0 & m, a, 0)  #!
        """,
        "0 & m",
        "BinOp",
        r"&.*bool_.*parenthes",
    ),
    Case(
        "float_nan_literal",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor):
            return a + float("nan")  #!
        """,
        'float("nan")',
        "Call",
        r"NaN",
    ),
    Case(
        "math_nan_literal",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor):
            return dsl.where(a > 0, a, math.nan)  #!
        """,
        "math.nan",
        "Attribute",
        r"NaN",
    ),
    Case(
        "folded_nan_constant",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor):
            return a + (math.inf - math.inf)  #!
        """,
        "math.inf - math.inf",
        "BinOp",
        r"NaN",
    ),
    Case(
        "float_of_a_number",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor):
            return a + float("1.5")  #!
        """,
        'float("1.5")',
        "Call",
        r"float\(\"inf\"\)",
    ),
    Case(
        "infinity_with_integer_partner",
        """
        @dsl.op(dtypes=(f32,))
        def bad(q: Tensor[i32]):
            return dsl.maximum(q, -float("inf"))  #!
        """,
        '-float("inf")',
        "UnaryOp",
        r"infinity.*i32",
    ),
    Case(
        "chained_comparison",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor, c: Tensor):
            return a < b < c  #!
        """,
        "a < b < c",
        "Compare",
        r"chain|compar",
    ),
    Case(
        "is_comparison",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            return dsl.where(a is b, a, b)  #!
        """,
        "a is b",
        "Compare",
        r"\bis\b|==|compar",
    ),
    Case(
        "and_on_tensors",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor, b: Tensor):
            m = a and b  #!
            return m
        """,
        "a and b",
        "BoolOp",
        r"and|static|attr|where",
    ),
    # --- control flow on non-static values ----------------------------------------------------
    Case(
        "if_on_tensor",
        f"""
        {OP}
        def bad(x: Tensor):
            if x > 0:  #!
                y = x
            else:
                y = -x
            return y
        """,
        "x > 0",
        "Compare",
        r"static|attr|where",
    ),
    Case(
        "ifexp_on_tensor",
        f"""
        {OP}
        def bad(x: Tensor):
            y = x if x > 0 else -x  #!
            return y
        """,
        "x > 0",
        "Compare",
        r"static|attr|where",
    ),
    Case(
        "if_on_float_attr",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor, *, alpha: float = 1.0):
            if alpha:  #!
                y = x
            else:
                y = -x
            return y
        """,
        "alpha",
        "Name",
        r"bool|Literal|static",
    ),
    Case(
        "bool_attr_as_number",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor, *, flag: bool = False):
            return x * flag  #!
        """,
        "flag",
        "Name",
        r"bool|static|condition|\bif\b",
    ),
    Case(
        "literal_value_not_a_choice",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor, *, mode: Literal["a", "b"] = "a"):
            if mode == "c":  #!
                y = x
            else:
                y = -x
            return y
        """,
        '"c"',
        "Constant",
        r"choice|Literal|'a'|\"a\"",
    ),
    # --- shapes and optional inputs -----------------------------------------------------------
    Case(
        "reduction_axis_0",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor["R", "C"]):
            s = dsl.sum(x, axis=0, keepdims=True)  #!
            return s
        """,
        "0",
        "Constant",
        r"-1|last",
    ),
    Case(
        "mismatched_symbolic_dims",
        """
        @dsl.op(dtypes=(f32,))
        def bad(a: Tensor["R", "C"], b: Tensor["R", "K"]):
            return a + b  #!
        """,
        "a + b",
        "BinOp",
        r"\bC\b|\bK\b|dim|shape",
    ),
    Case(
        "unguarded_optional_input",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor, bias: Tensor | None = None):
            return x + bias  #!
        """,
        "bias",
        "Name",
        r"optional|None|absent|guard",
    ),
    # --- signatures ---------------------------------------------------------------------------
    Case(
        "positional_int_annotation",
        f"""
        {OP}
        def bad(x: Tensor, n: int):  #!
            return x
        """,
        "int",
        "Name",
        r"Tensor|Scalar|keyword|attribute|\*",
    ),
    Case(
        "list_annotation",
        f"""
        {OP}
        def bad(x: list):  #!
            return x
        """,
        "list",
        "Name",
        r"Tensor|Scalar",
    ),
    Case(
        "attr_without_default",
        """
        @dsl.op(dtypes=(f32,))
        def bad(x: Tensor, *, alpha: float):  #!
            return x * alpha
        """,
        "alpha",
        "arg",
        r"default",
    ),
    Case(
        "star_args",
        f"""
        {OP}
        def bad(x: Tensor, *args):  #!
            return x
        """,
        "args",
        "arg",
        r"\*args|variadic|var|\*",
    ),
    Case(
        "star_star_kwargs",
        f"""
        {OP}
        def bad(x: Tensor, **kwargs):  #!
            return x
        """,
        "kwargs",
        "arg",
        r"\*\*|kwargs|variadic|var|keyword",
    ),
    Case(
        "tensor_default_not_none",
        f"""
        {OP}
        def bad(x: Tensor, y: Tensor = 1.0):  #!
            return x + y
        """,
        "1.0",
        "Constant",
        r"None|default|optional",
    ),
]

# The exact message of each case (the regex in the case says what any acceptable message must
# mention; this pins the wording users see, so a change to it is a deliberate one).
MESSAGES = {
    "for_loop": "loops are not allowed; operators are written on whole tensors (dslc generates the loops)",
    "while_loop": "'while' loops are not allowed; operators are written on whole tensors",
    "try_except": "try/except is not allowed; errors are reported at compile time or by host tiling",
    "with_stmt": "'with' is not allowed in an operator body",
    "assert_stmt": "'assert' is not allowed; shapes are checked by the annotations and host tiling",
    "del_stmt": "'del' is not allowed; just stop using the name",
    "import_in_body": "imports belong at module level, not in the operator body",
    "global_stmt": "'global' is not allowed; operators are pure functions of their inputs and attributes",
    "nonlocal_stmt": "'nonlocal' is not allowed; operators are pure functions of their inputs and attributes",
    "raise_stmt": "'raise' is not allowed in an operator body",
    "class_def": "classes are not allowed in an operator body",
    "nested_def": "nested functions are not allowed; write the math inline",
    "yield_expr": "'yield' is not allowed; an operator returns its outputs with one 'return'",
    "print_call": "print() is not available in an operator; inspect values with op.reference(...)",
    "aug_assign_attribute": "only plain names can be assigned",
    "assign_attribute": "only plain names can be assigned (not attributes, subscripts or slices)",
    "return_inside_if": "'return' must be the last statement of the operator, outside if/else; assign in both branches and return once at the end",
    "missing_return": "the operator must end with 'return' of its outputs (names, or one expression)",
    "async_def": "an operator must be a plain 'def' function, not 'async def'",
    "lambda_expr": "lambda is not allowed; write the expression inline",
    "list_comprehension": "list comprehensions are not allowed; operators work on whole tensors",
    "dict_comprehension": "dict comprehensions are not allowed; operators work on whole tensors",
    "set_comprehension": "set comprehensions are not allowed; operators work on whole tensors",
    "generator_expression": "generator expressions are not allowed; operators work on whole tensors",
    "list_literal": "lists are not allowed as values; operators work on tensors, scalars and numbers",
    "dict_literal": "dicts are not allowed in an operator body",
    "walrus": "':=' is not allowed; write 'name = expression' on its own line",
    "unknown_dsl_function": "unknown function 'dsl.foo'; the DSL's functions are dsl.sqrt, dsl.rsqrt, dsl.exp, dsl.log, dsl.abs, dsl.relu, dsl.tanh, dsl.sigmoid, dsl.reciprocal, dsl.round, dsl.maximum, dsl.minimum, dsl.where, dsl.cast, dsl.sum, dsl.mean, dsl.max, dsl.min",
    "numpy_function": "calls into module 'np' are not allowed; use the DSL's functions (dsl.sqrt, dsl.rsqrt, dsl.exp, dsl.log, dsl.abs, dsl.relu, dsl.tanh, dsl.sigmoid, dsl.reciprocal, dsl.round, dsl.maximum, dsl.minimum, dsl.where, dsl.cast, dsl.sum, dsl.mean, dsl.max, dsl.min)",
    "math_function": "calls into module 'math' are not allowed; use the DSL's functions (dsl.sqrt, dsl.rsqrt, dsl.exp, dsl.log, dsl.abs, dsl.relu, dsl.tanh, dsl.sigmoid, dsl.reciprocal, dsl.round, dsl.maximum, dsl.minimum, dsl.where, dsl.cast, dsl.sum, dsl.mean, dsl.max, dsl.min)",
    "builtin_max": "use dsl.maximum(a, b) for the element-wise max, or dsl.max(x, axis=-1) to reduce",
    "wrong_arity": "dsl.sqrt(x) takes 1 positional argument(s)",
    "undefined_name": "undefined name 'z'",
    "subscript": "indexing and slicing are not allowed; operators work on whole tensors (reductions: dsl.sum(x, axis=-1, keepdims=True))",
    "attribute_shape": "attribute '.shape' is not available; the attributes are x.dtype and w.T (in a @ w.T)",
    "string_constant_value": "a string is only allowed as a Literal attribute's value in a comparison or as a dtype name in dsl.cast",
    "cast_unknown_dtype": "unknown dtype 'f64'; the DSL's dtypes are f16, bf16, f32, i8, i32, u8, bool_",
    "pow_tensor_exponent": "the exponent of '**' must be the constant 2 or 0.5",
    "pow_three": "'** 3' is not supported; only '** 2' and '** 0.5' (write x * x * x, or dsl.exp(k * dsl.log(x)))",
    "matmul": "the operands of '@' need two named dims; declare 'a': Tensor[\"M\", \"K\"]",
    "modulo": "'%' is not supported; the DSL has + - * / and ** 2 / ** 0.5",
    "floordiv": "'//' is not supported; use '/' and dsl.cast(..., i32) to truncate",
    "bitwise_and": "'&' takes bool_ values (comparisons or bool_ inputs), got f32; write comparisons in parentheses, e.g. (a > 0) & mask",
    "bitwise_or": "'|' takes bool_ values (comparisons or bool_ inputs), got f32; write comparisons in parentheses, e.g. (a > 0) & mask",
    "invert_non_bool": "'~' takes bool_ values (comparisons or bool_ inputs), got f32; write comparisons in parentheses, e.g. (a > 0) & mask",
    "and_unparenthesized_comparison": "'&' takes bool_ values (comparisons or bool_ inputs), got a number; write comparisons in parentheses, e.g. (a > 0) & mask",
    "float_nan_literal": "float('nan') is NaN; NaN constants are not allowed in an operator",
    "math_nan_literal": "math.nan is not allowed; NaN constants are not allowed in an operator",
    "folded_nan_constant": "this number is NaN; NaN constants are not allowed in an operator",
    "float_of_a_number": 'float(...) is only allowed as float("inf") or float("-inf"); write numbers directly and use dsl.cast(x, f32) for values',
    "infinity_with_integer_partner": "an infinity cannot be combined with the i32 value it meets (integers have no infinity); cast that operand to a float type first, e.g. dsl.cast(t, f32)",
    "chained_comparison": "chained comparisons (a < b < c) are not allowed; compare two values at a time",
    "is_comparison": "only > >= < <= == != comparisons are allowed ('is'/'in' are not)",
    "and_on_tensors": "'and'/'or' combine static conditions on bool/Literal attributes only; for element-wise logic use dsl.where",
    "if_on_tensor": "'if' on a tensor or scalar value is not allowed (the kernel runs on all elements); use dsl.where(cond, a, b), or 'if' on a bool/Literal attribute",
    "ifexp_on_tensor": "'if' on a tensor or scalar value is not allowed (the kernel runs on all elements); use dsl.where(cond, a, b), or 'if' on a bool/Literal attribute",
    "if_on_float_attr": "'alpha' is a run-time float attribute; only bool and Literal attributes choose code paths (use dsl.where for values)",
    "bool_attr_as_number": "'flag' is a static bool attribute that selects code paths, not a value; use 'if flag:' / 'a if flag else b'",
    "literal_value_not_a_choice": "'c' is not a choice of 'mode' (['a', 'b'])",
    "reduction_axis_0": "reductions run along the last axis only: use axis=-1",
    "mismatched_symbolic_dims": "mismatched dims 'C' and 'K' in shapes [R, C] and [R, K]",
    "unguarded_optional_input": "optional input 'bias' may be absent here; use it only under 'if <attribute>:' or 'a if <attribute> else b' (that variant then requires it)",
    "positional_int_annotation": 'unsupported annotation for input \'n\'; inputs are Tensor, Tensor["R", "C"], Tensor[..., "C"], Tensor[f32, "C"], Scalar, Scalar[f32], or one of these \'| None = None\' (attributes go after \'*\')',
    "list_annotation": 'unsupported annotation for input \'x\'; inputs are Tensor, Tensor["R", "C"], Tensor[..., "C"], Tensor[f32, "C"], Scalar, Scalar[f32], or one of these \'| None = None\' (attributes go after \'*\')',
    "attr_without_default": 'attribute \'alpha\' needs a default value (bool, int, float or Literal["a", "b"] with a default)',
    "star_args": "*args is not allowed; declare each input by name",
    "star_star_kwargs": "**kwargs is not allowed; declare each attribute by name after '*'",
    "tensor_default_not_none": "input 'y' may only default to None (an optional input)",
}


BAD_DECORATORS = [
    ("dtype_string_f64", '@dsl.op(dtypes=("f64",))', r"(?i)f64|dtype"),
    ("unknown_decorator_kwarg", "@dsl.op(dtypes=(f32,), bogus=1)", r"(?i)bogus"),
    ("empty_dtypes", "@dsl.op(dtypes=())", r"(?i)dtype|empty"),
]
BAD_DECORATOR_ERRORS = {  # the exception type and exact message
    "dtype_string_f64": (
        "DslError",
        "@dsl.op(dtypes=...): unknown dtype 'f64' (known: f16, bf16, f32, i8, i32, u8, bool)",
    ),
    "unknown_decorator_kwarg": ("TypeError", "op() got an unexpected keyword argument 'bogus'"),
    "empty_dtypes": ("DslError", "@dsl.op(dtypes=...) needs at least one dtype"),
}

ACCEPTED = [
    (
        "docstring_and_comments",
        f'''
        {OP}
        def ok(x: Tensor):
            """A docstring is not a value."""
            # a comment
            y = x + 1  # trailing comment
            return y
        ''',
        {},
    ),
    (
        "not_or_and_static_conditions",
        """
        @dsl.op(dtypes=(f32,))
        def ok(x: Tensor, *, a: bool = False, b: bool = True, mode: Literal["p", "q"] = "p"):
            if not a:
                y = x * 2
            else:
                y = x
            if a or (b and mode == "q"):
                y = -y
            return y
        """,
        {"a": True, "b": True, "mode": "q"},
    ),
    (
        "dtype_attribute_and_powers",
        """
        @dsl.op(dtypes=(f16, f32, bf16))
        def ok(x: Tensor, s: Scalar[f32], q: Tensor[i8]):
            w = dsl.cast(q, f32) * s
            y = dsl.cast(x ** 2 + dsl.abs(x) ** 0.5 + w, x.dtype)
            return y
        """,
        {},
    ),
    (
        "parenthesized_return_tuple",
        """
        @dsl.op(dtypes=(f32,))
        def ok(x: Tensor[..., "C"], g: Tensor["C"]):
            a = x * g
            b = dsl.max(a, axis=-1, keepdims=True)
            return (a, b)
        """,
        {},
    ),
]


# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dsl():
    import dsl as module  # a broken dsl fails these tests; it does not skip them

    return module


_counter = itertools.count()


def _import_file(path: pathlib.Path):
    name = f"dslc_reject_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def _write(tmp_path, stem, text) -> pathlib.Path:
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    return path


def test_there_are_enough_cases():
    assert len({c.id for c in CASES}) == len(CASES) >= 30
    assert set(MESSAGES) == {c.id for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case_positions_are_ast_nodes(case):
    """Self-check of this file (needs no dsl): the module parses, and a node of the named type
    starts exactly at the expected line and column."""
    tree = ast.parse(case.text)
    line, col, _ = case.position
    starts = {(type(n).__name__, n.lineno, n.col_offset + 1) for n in ast.walk(tree) if hasattr(n, "lineno")}
    assert (case.node, line, col) in starts, sorted(s for s in starts if s[1] == line)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rejected(case, dsl, tmp_path):
    path = _write(tmp_path, f"bad_{case.id}", case.text)
    line, col, source_line = case.position
    with pytest.raises(dsl.DslError) as info:
        module = _import_file(path)
        module.bad.ir(dtype=dsl.f32, **case.attrs)
    err = info.value
    assert isinstance(err, SyntaxError)
    assert pathlib.Path(err.filename).name == path.name, err.filename
    assert (err.lineno, err.offset) == (line, col), (
        f"expected {line}:{col} (at {case.at!r}: {source_line.strip()!r}), "
        f"got {err.lineno}:{err.offset}; message: {err.msg}"
    )
    assert re.search(case.msg, err.msg, re.IGNORECASE), f"message {err.msg!r} !~ {case.msg!r}"
    assert err.msg == MESSAGES[case.id]
    rendered = str(err)
    assert source_line.split("#!")[0].strip() in rendered, rendered
    assert "^" in rendered, rendered


@pytest.mark.parametrize("case_id,decorator,pattern", BAD_DECORATORS, ids=[b[0] for b in BAD_DECORATORS])
def test_bad_decorator_arguments(case_id, decorator, pattern, dsl, tmp_path):
    text = PREAMBLE + f"{decorator}\ndef bad(x: Tensor):\n    return x\n"
    path = _write(tmp_path, f"bad_{case_id}", text)
    with pytest.raises((dsl.DslError, ValueError, TypeError), match=pattern) as info:
        module = _import_file(path)
        module.bad.ir(dtype=dsl.f32)
    kind, message = BAD_DECORATOR_ERRORS[case_id]
    assert type(info.value).__name__ == kind
    assert (info.value.msg if isinstance(info.value, SyntaxError) else str(info.value)) == message
    if isinstance(info.value, SyntaxError):
        assert (pathlib.Path(info.value.filename).name, info.value.lineno) == (
            path.name,
            text.count("\n", 0, text.index("@dsl.op")) + 1,
        )


def _w(a):
    return np.asarray(a).astype(np.float32)


def _accepted_static(x, a=False, b=True, mode="p"):
    y = _w(x) * np.float32(2) if not a else _w(x)
    return [-y if a or (b and mode == "q") else y]


# case id -> (inputs for T, golden in f32 (attrs given as keywords)): what the accepted body
# computes, written independently with numpy
ACCEPTED_VALUES = {
    "docstring_and_comments": (
        lambda t: [np.linspace(-2, 2, 9).astype(t.np)],
        lambda x: [_w(x) + np.float32(1)],
    ),
    "not_or_and_static_conditions": (lambda t: [np.linspace(-2, 2, 9).astype(t.np)], _accepted_static),
    "dtype_attribute_and_powers": (
        lambda t: [
            np.linspace(-3, 3, 13).astype(t.np),
            np.array([0.375], np.float32),
            np.arange(-6, 7, dtype=np.int8) * np.int8(20),
        ],
        lambda x, s, q: [_w(x) * _w(x) + np.sqrt(np.abs(_w(x))) + _w(q) * s],
    ),
    "parenthesized_return_tuple": (
        lambda t: [np.linspace(-2, 2, 15).reshape(3, 5).astype(t.np), np.linspace(1, 0, 5).astype(t.np)],
        lambda x, g: [_w(x) * _w(g), np.max(_w(x) * _w(g), axis=-1, keepdims=True)],
    ),
}


@pytest.mark.parametrize("case_id,src,attrs", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_accepted(case_id, src, attrs, dsl, tmp_path):
    """Accepted bodies lower to IR that names every input and computes what the body says."""
    text = PREAMBLE + textwrap.dedent(src).lstrip("\n")
    module = _import_file(_write(tmp_path, f"ok_{case_id}", text))
    make, golden = ACCEPTED_VALUES[case_id]
    for dtype in module.ok.dtypes:
        for given in ({}, attrs):
            ir = module.ok.ir(dtype=dtype, **given)
            assert "static." not in ir, ir  # every static condition is resolved
            for name in module.ok.inputs:
                assert re.search(rf"%{name}\b", ir), f"input {name} unused in:\n{ir}"
            inputs = make(dtype)
            got = module.ok.reference(*inputs, **given)
            got = got if isinstance(got, tuple) else (got,)
            want = golden(*inputs, **given)
            tols = dsl.precision.output_tolerances(module.ok, dtype, **given)
            assert len(got) == len(want) == len(module.ok.outputs)
            for out, g, w in zip(module.ok.outputs, got, want):
                expected = np.asarray(w, np.float32).astype(dtype.np)
                dsl.precision.check(g, expected, tols[out], what=f"{case_id}.{out}[{dtype}, {given}]")


def test_error_is_raised_by_the_frontend_without_running_the_body(dsl, tmp_path):
    """The body is never executed: a body that would raise at run time (division of a string)
    is still reported as a DslError at its line, not a Python TypeError."""
    text = PREAMBLE + textwrap.dedent(f"""
        {OP}
        def bad(x: Tensor):
            y = "s" / 2  #!
            return x
        """).lstrip("\n")
    path = _write(tmp_path, "bad_not_run", text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.rstrip().endswith("#!"))
    with pytest.raises(dsl.DslError) as info:
        module = _import_file(path)
        module.bad.ir(dtype=dsl.f32)
    assert info.value.lineno == line
