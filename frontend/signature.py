"""The operator's signature: inputs from positional parameters, attributes from keyword-only ones."""

from __future__ import annotations

import ast
import typing
from dataclasses import dataclass

from dsl.dtypes import DType
from dsl.ir import AttrDecl
from dsl.names import param_name_problem, spelling_clash
from dsl.surface import ScalarSpec, Tensor, TensorSpec, Scalar, _Optional

from .source import Source


@dataclass
class InputDecl:
    name: str
    spec: TensorSpec | ScalarSpec
    optional: bool
    node: ast.arg

    @property
    def is_scalar(self) -> bool:
        return isinstance(self.spec, ScalarSpec)


ALLOWED_INPUTS = (
    'Tensor, Tensor["R", "C"], Tensor[..., "C"], Tensor[f32, "C"], Scalar, Scalar[f32], '
    "or one of these '| None = None'"
)
ALLOWED_ATTRS = 'bool, int, float or Literal["a", "b"] with a default'


def _eval_annotation(src: Source, fn, arg: ast.arg):
    if arg.annotation is None:
        raise src.error(arg, f"input '{arg.arg}' needs an annotation: {ALLOWED_INPUTS}")
    value = fn.__annotations__.get(arg.arg)
    if isinstance(value, str):
        try:
            value = eval(value, fn.__globals__)  # an annotation string, as typing.get_type_hints does
        except Exception as e:  # noqa: BLE001 - any failure is the user's annotation
            raise src.error(arg.annotation, f"cannot evaluate annotation '{value}': {e}") from None
    return value


def _input_spec(src: Source, value, arg: ast.arg):
    optional = False
    if isinstance(value, _Optional):
        optional, value = True, value.inner
    elif typing.get_origin(value) is typing.Union:
        members = [m for m in typing.get_args(value) if m is not type(None)]
        if len(members) == 1 and len(typing.get_args(value)) == 2:
            optional, value = True, members[0]
    if value is Tensor:
        value = TensorSpec()
    elif value is Scalar:
        value = ScalarSpec()
    if isinstance(value, ScalarSpec) and value.dtype is not None and not isinstance(value.dtype, DType):
        raise src.error(arg.annotation, f"Scalar[...] takes a dtype such as f32, got {value.dtype!r}")
    if isinstance(value, TensorSpec):
        for d in value.dims or ():
            if not (isinstance(d, str) and d.isidentifier()) and d != 1:
                raise src.error(
                    arg.annotation,
                    f'tensor dims are names like "R", "C" (or ... first), got {d!r}',
                )
        if any(d == 1 for d in (value.dims or ())[:-1]):
            raise src.error(
                arg.annotation,
                f"input '{arg.arg}': a literal 1 is allowed only as the last dim (one value per row, "
                'e.g. Tensor[..., 1] or Tensor["M", 1]); name the other dims',
            )
    if not isinstance(value, (TensorSpec, ScalarSpec)):
        raise src.error(
            arg.annotation,
            f"unsupported annotation for input '{arg.arg}'; inputs are {ALLOWED_INPUTS} "
            "(attributes go after '*')",
        )
    return value, optional


def _check_name(src: Source, arg: ast.arg, what: str) -> None:
    problem = param_name_problem(arg.arg, what)
    if problem is not None:
        raise src.error(arg, problem)


def _attr_decl(src: Source, fn, arg: ast.arg, default_node: ast.expr | None) -> AttrDecl:
    name = arg.arg
    _check_name(src, arg, "attribute")
    if default_node is None:
        raise src.error(arg, f"attribute '{name}' needs a default value ({ALLOWED_ATTRS})")
    if arg.annotation is None:
        raise src.error(arg, f"attribute '{name}' needs an annotation: {ALLOWED_ATTRS}")
    ann = fn.__annotations__.get(name)
    if isinstance(ann, str):
        try:
            ann = eval(ann, fn.__globals__)
        except Exception as e:  # noqa: BLE001
            raise src.error(arg.annotation, f"cannot evaluate annotation '{ann}': {e}") from None
    default = fn.__kwdefaults__.get(name) if fn.__kwdefaults__ else None
    if ann is bool:
        if not isinstance(default, bool):
            raise src.error(default_node, f"bool attribute '{name}' needs a True/False default")
        return AttrDecl(name, "bool", default)
    if ann is int:
        if isinstance(default, bool) or not isinstance(default, int):
            raise src.error(default_node, f"int attribute '{name}' needs an integer default")
        return AttrDecl(name, "int", default)
    if ann is float:
        if isinstance(default, bool) or not isinstance(default, (int, float)):
            raise src.error(default_node, f"float attribute '{name}' needs a number default")
        return AttrDecl(name, "float", float(default))
    if typing.get_origin(ann) is typing.Literal:
        choices = typing.get_args(ann)
        if not choices or not all(isinstance(c, str) for c in choices):
            raise src.error(arg.annotation, 'Literal attributes take string choices, e.g. Literal["a", "b"]')
        if default not in choices:
            raise src.error(default_node, f"default {default!r} is not one of {list(choices)}")
        return AttrDecl(name, "literal", default, tuple(choices))
    raise src.error(arg.annotation, f"unsupported attribute type for '{name}'; use {ALLOWED_ATTRS}")


def read_signature(src: Source, fn) -> tuple[list[InputDecl], list[AttrDecl]]:
    a = src.tree.args
    if a.vararg is not None:
        raise src.error(a.vararg, "*args is not allowed; declare each input by name")
    if a.kwarg is not None:
        raise src.error(a.kwarg, "**kwargs is not allowed; declare each attribute by name after '*'")
    positional = list(a.posonlyargs) + list(a.args)
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    inputs: list[InputDecl] = []
    for arg, default in zip(positional, defaults):
        _check_name(src, arg, "input")
        spec, optional = _input_spec(src, _eval_annotation(src, fn, arg), arg)
        if default is not None and not (isinstance(default, ast.Constant) and default.value is None):
            raise src.error(default, f"input '{arg.arg}' may only default to None (an optional input)")
        if optional and default is None:
            raise src.error(arg, f"optional input '{arg.arg}' needs '= None'")
        if default is not None and not optional:
            raise src.error(arg.annotation, f"input '{arg.arg}' defaults to None, so annotate it 'X | None'")
        inputs.append(InputDecl(arg.arg, spec, optional, arg))
    if not inputs:
        raise src.error(src.tree, "an operator needs at least one input")
    attrs = [_attr_decl(src, fn, arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults)]
    for k, arg in enumerate(positional + list(a.kwonlyargs)):
        problem = spelling_clash([b.arg for b in (positional + list(a.kwonlyargs))[:k]], arg.arg)
        if problem is not None:
            raise src.error(arg, problem)
    return inputs, attrs
