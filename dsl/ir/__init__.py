"""The IR core: types, the op table, printer, lark parser, verifier, interpreter."""

from .core import AttrDecl, Func, Module, Namer, Op, Output, Param, Value
from .ops import OPS, OpSpec
from . import tile_ops  # noqa: F401  (registers the tile-level ops)
from .parser import parse_module
from .printer import print_func, print_module, print_op
from .types import PRED, PredType, ScalarType, Shape, TensorType, Type, TypeInferenceError

__all__ = [
    "AttrDecl",
    "Func",
    "Module",
    "Namer",
    "Op",
    "Output",
    "Param",
    "Value",
    "OPS",
    "OpSpec",
    "parse_module",
    "print_func",
    "print_module",
    "print_op",
    "PRED",
    "PredType",
    "ScalarType",
    "Shape",
    "TensorType",
    "Type",
    "TypeInferenceError",
]
