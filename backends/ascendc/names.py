"""Identifiers derived from user names: validated, never trusted into paths or C++ unchecked."""

from __future__ import annotations

import keyword

from dsl.errors import CompileError
from dsl.names import RESERVED_ATTR_NAMES, RESERVED_NAMES, op_name_problem, op_type_of
from dsl.names import snake_case  # noqa: F401  (re-exported)

# The reserved names live in one list (dsl/names.py), which the frontend checks at the DSL line.
CPP_KEYWORDS = frozenset(RESERVED_NAMES)
RESERVED_ATTRS = RESERVED_ATTR_NAMES

# Some CANN built-in OpTypes. A custom operator must not reuse one (OpDef guide, "算子原型定义");
# dslc warns so the user can pick @dsl.op(name=...). Not exhaustive.
CANN_BUILTIN_OPS = frozenset(
    """Abs Add AddLayerNorm Adds ApplyAdam ApplyAdamW Axpy Cast ClipByValue Div Equal Exp FakeQuantPerTensorAffine
    Gelu Greater GreaterEqual IsClose LayerNorm LeakyRelu Lerp Less LessEqual Log Maximum Minimum Mul Muls Neg
    NotEqual QuantizeAddLayerNorm RealDiv Reciprocal Relu RmsNorm Round Rsqrt Sigmoid Silu SoftmaxV2 Softplus Sqrt
    Sub Swish Tanh Threshold""".split()
)


def op_type(name: str) -> str:
    """``apply_adam_w`` -> ``ApplyAdamW`` (CANN's OpType), checking the name survives the round trip
    CANN applies to file and kernel names (UpperCamelCase -> snake_case) and is not reserved
    (``dsl.names``; the frontend already rejects such names at the DSL line)."""
    problem = op_name_problem(name)
    if problem is not None:
        raise CompileError(problem)
    return op_type_of(name)


def cpp_ident(name: str) -> str:
    """A C++ identifier for a user name (inputs, outputs, attributes)."""
    if not name.isidentifier() or not name.isascii():
        raise CompileError(f"'{name}' is not a valid C identifier")
    return name + "_" if name in CPP_KEYWORDS else name


def check_attr_name(name: str) -> None:
    if name in RESERVED_ATTRS or keyword.iskeyword(name):
        raise CompileError(f"attribute name '{name}' is reserved by CANN's OpDef; rename it")
