"""What users write: ``Tensor``/``Scalar`` annotations and the ``dsl.*`` intrinsic functions.

The annotations are plain descriptors (the frontend reads them); the intrinsics are markers the
frontend recognises in the AST. Calling an intrinsic directly is a mistake, so it raises.
"""

from __future__ import annotations

from dataclasses import dataclass

from .dtypes import DType


@dataclass(frozen=True)
class _Optional:
    inner: "TensorSpec | ScalarSpec"


class _OrNone:
    def __or__(self, other):
        if other is None:
            return _Optional(self)
        return NotImplemented

    def __ror__(self, other):
        if other is None:
            return _Optional(self)
        return NotImplemented


@dataclass(frozen=True)
class TensorSpec(_OrNone):
    """``Tensor``, ``Tensor["R", "C"]``, ``Tensor[..., "C"]``, ``Tensor[f32, "C"]``, ``Tensor[i8]``."""

    dtype: DType | None = None
    dims: tuple | None = None  # None: unshaped
    ellipsis: bool = False


@dataclass(frozen=True)
class ScalarSpec(_OrNone):
    """``Scalar`` or ``Scalar[f32]``: a GM tensor of shape [1] read once per core."""

    dtype: DType | None = None


class _TensorMeta(type):
    def __or__(cls, other):
        return TensorSpec() | other

    def __ror__(cls, other):
        return other | TensorSpec()


class _ScalarMeta(type):
    def __or__(cls, other):
        return ScalarSpec() | other

    def __ror__(cls, other):
        return other | ScalarSpec()


class Tensor(metaclass=_TensorMeta):
    """Annotation for a GM tensor input. See ``TensorSpec`` for the forms."""

    def __class_getitem__(cls, items) -> TensorSpec:
        items = items if isinstance(items, tuple) else (items,)
        dtype = None
        if items and isinstance(items[0], DType):
            dtype, items = items[0], items[1:]
        ellipsis = bool(items) and items[0] is Ellipsis
        if ellipsis:
            items = items[1:]
        return TensorSpec(dtype, tuple(items) if (items or ellipsis) else None, ellipsis)


class Scalar(metaclass=_ScalarMeta):
    """Annotation for a shape-[1] GM input used as a scalar."""

    def __class_getitem__(cls, item) -> ScalarSpec:
        return ScalarSpec(item)


class ElementType:
    """``dsl.T``: the operator's element type T, the one ``@dsl.op(dtypes=...)`` chooses, usable in a
    body where a dtype is (``dsl.cast(v, dsl.T)``). It is how an op whose inputs all have pinned
    dtypes (``x: Tensor[i8, ..., "C"]`` dequantized to f16) names its output type; ``dtype=`` of
    ``op.reference``/``simulate``/``profile`` picks it."""

    def __repr__(self) -> str:
        return "dsl.T"


T = ElementType()


class Intrinsic:
    """A ``dsl.*`` function usable only inside an ``@dsl.op`` body."""

    def __init__(self, name: str, signature: str):
        self.name = name
        self.signature = signature
        self.__name__ = name
        self.__doc__ = f"dsl.{signature} (only inside an @dsl.op function)"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"dsl.{self.name} can only be used inside an @dsl.op function, which dslc compiles; "
            "call op.reference(...) to compute with numpy"
        )

    def __repr__(self) -> str:
        return f"<dsl intrinsic {self.name}>"


INTRINSICS: dict[str, Intrinsic] = {
    name: Intrinsic(name, sig)
    for name, sig in [
        ("sqrt", "sqrt(x)"),
        ("rsqrt", "rsqrt(x)"),
        ("exp", "exp(x)"),
        ("log", "log(x)"),
        ("abs", "abs(x)"),
        ("relu", "relu(x)"),
        ("tanh", "tanh(x)"),
        ("sigmoid", "sigmoid(x)"),
        ("reciprocal", "reciprocal(x)"),
        ("round", "round(x)"),
        ("maximum", "maximum(a, b)"),
        ("minimum", "minimum(a, b)"),
        ("where", "where(cond, a, b)"),
        ("cast", "cast(x, dtype)"),
        ("sum", "sum(x, axis=-1, keepdims=True)"),
        ("mean", "mean(x, axis=-1, keepdims=True)"),
        ("max", "max(x, axis=-1, keepdims=True)"),
        ("min", "min(x, axis=-1, keepdims=True)"),
    ]
}
