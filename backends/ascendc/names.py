"""Identifiers derived from user names: validated, never trusted into paths or C++ unchecked."""

from __future__ import annotations

import keyword
import re

from dsl.errors import CompileError

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t
    class compl const constexpr const_cast continue decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable namespace new
    noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast
    return short signed sizeof static static_assert static_cast struct switch template this thread_local
    throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
    xor_eq half workspace tiling""".split()
)
# OpDef attribute names the framework reserves (asc-devkit OpDef/Attr.md).
RESERVED_ATTRS = frozenset({"options", "src", "op_type", "soc_version", "name", "type", "dtype"})
# Some CANN built-in OpTypes. A custom operator must not reuse one (OpDef guide, "算子原型定义");
# dslc warns so the user can pick @dsl.op(name=...). Not exhaustive.
CANN_BUILTIN_OPS = frozenset(
    """Abs Add AddLayerNorm Adds ApplyAdam ApplyAdamW Axpy Cast ClipByValue Div Equal Exp FakeQuantPerTensorAffine
    Gelu Greater GreaterEqual IsClose LayerNorm LeakyRelu Lerp Less LessEqual Log Maximum Minimum Mul Muls Neg
    NotEqual QuantizeAddLayerNorm RealDiv Reciprocal Relu RmsNorm Round Rsqrt Sigmoid Silu SoftmaxV2 Softplus Sqrt
    Sub Swish Tanh Threshold""".split()
)
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def op_type(name: str) -> str:
    """``apply_adam_w`` -> ``ApplyAdamW`` (CANN's OpType), checking the name survives the round trip
    CANN applies to file and kernel names (UpperCamelCase -> snake_case)."""
    if not _SNAKE.match(name):
        raise CompileError(
            f"operator name '{name}' must be snake_case ASCII (letters, digits, single '_'), e.g. "
            "'apply_adam_w'; pass @dsl.op(name=...) to choose one"
        )
    camel = "".join(part[:1].upper() + part[1:] for part in name.split("_"))
    if snake_case(camel) != name:
        raise CompileError(
            f"operator name '{name}' does not survive CANN's naming rule ({camel} -> {snake_case(camel)}); "
            f"name it '{snake_case(camel)}' instead"
        )
    return camel


def snake_case(camel: str) -> str:
    """CANN's OpType -> file/kernel name rule (AddCustom -> add_custom, Conv2DCustom -> conv2_d_custom)."""
    out = []
    for i, ch in enumerate(camel):
        if (
            ch.isupper()
            and i > 0
            and (not camel[i - 1].isupper() or (i + 1 < len(camel) and camel[i + 1].islower()))
        ):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def cpp_ident(name: str) -> str:
    """A C++ identifier for a user name (inputs, outputs, attributes)."""
    if not name.isidentifier() or not name.isascii():
        raise CompileError(f"'{name}' is not a valid C identifier")
    return name + "_" if name in CPP_KEYWORDS else name


def check_attr_name(name: str) -> None:
    if name in RESERVED_ATTRS or keyword.iskeyword(name):
        raise CompileError(f"attribute name '{name}' is reserved by CANN's OpDef; rename it")
