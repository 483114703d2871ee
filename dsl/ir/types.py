"""IR types: tensors with symbolic shapes, scalars, and static predicates.

Textual forms::

    tensor<*, f32>          unshaped: every unshaped tensor of the op has one run-time shape
    tensor<R, C, f16>       named symbolic dims; equal names are equal at run time
    tensor<..., C, bf16>    '...' = any number of leading dims
    tensor<..., R, 1, f32>  a literal 1 (after a keepdims reduction) broadcasts
    scalar<f32>             one value (a Scalar input, an attribute, a constant)
    pred                    a compile-time predicate over static attributes
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dtypes import DType, dtype_from_name, promote


class TypeInferenceError(ValueError):
    """Operand types an op does not accept. Callers turn it into DslError or VerifyError."""


@dataclass(frozen=True)
class Shape:
    dims: tuple = ()  # str symbols or the int 1
    ellipsis: bool = False  # leading '...'
    unshaped: bool = False  # the op-wide run-time shape '*'

    @staticmethod
    def star() -> "Shape":
        return Shape(unshaped=True)

    def __str__(self) -> str:
        if self.unshaped:
            return "*"
        parts = (["..."] if self.ellipsis else []) + [str(d) for d in self.dims]
        return ", ".join(parts)

    @property
    def rank_known(self) -> bool:
        return not self.unshaped and not self.ellipsis

    def with_last(self, dim) -> "Shape":
        return Shape(self.dims[:-1] + (dim,), self.ellipsis)

    def without_last(self) -> "Shape":
        return Shape(self.dims[:-1], self.ellipsis)


def broadcast_shapes(a: Shape, b: Shape) -> Shape:
    """Suffix broadcasting over symbolic dims; raises TypeInferenceError on a mismatch."""
    if a.unshaped and b.unshaped:
        return a
    if a.unshaped or b.unshaped:
        raise TypeInferenceError(
            f"cannot combine an unshaped tensor with a tensor of shape [{b if a.unshaped else a}]; "
            'give every tensor named dims, e.g. Tensor[..., "C"]'
        )
    out: list = []
    da, db = list(a.dims), list(b.dims)
    while da and db:
        x, y = da.pop(), db.pop()
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise TypeInferenceError(f"mismatched dims '{x}' and '{y}' in shapes [{a}] and [{b}]")
    rest = da or db
    out.extend(reversed(rest))
    return Shape(tuple(reversed(out)), a.ellipsis or b.ellipsis)


class Type:
    pass


@dataclass(frozen=True)
class TensorType(Type):
    dtype: DType
    shape: Shape

    def __str__(self) -> str:
        shape = str(self.shape)
        return f"tensor<{shape}, {self.dtype.name}>" if shape else f"tensor<{self.dtype.name}>"

    def with_dtype(self, dtype: DType) -> "TensorType":
        return TensorType(dtype, self.shape)


@dataclass(frozen=True)
class ScalarType(Type):
    dtype: DType

    def __str__(self) -> str:
        return f"scalar<{self.dtype.name}>"

    def with_dtype(self, dtype: DType) -> "ScalarType":
        return ScalarType(dtype)


@dataclass(frozen=True)
class PredType(Type):
    def __str__(self) -> str:
        return "pred"


PRED = PredType()


def dtype_of(t: Type) -> DType:
    if isinstance(t, (TensorType, ScalarType)):
        return t.dtype
    raise TypeInferenceError(f"a static predicate ({t}) cannot be used as a value")


def combine(types: list[Type], dtype: DType) -> Type:
    """The value type of an elementwise op over ``types`` with result element type ``dtype``."""
    shapes = [t.shape for t in types if isinstance(t, TensorType)]
    if not shapes:
        return ScalarType(dtype)
    shape = shapes[0]
    for s in shapes[1:]:
        shape = broadcast_shapes(shape, s)
    return TensorType(dtype, shape)


def promote_all(types: list[Type]) -> DType:
    dt = dtype_of(types[0])
    for t in types[1:]:
        dt = promote(dt, dtype_of(t))
    return dt


def parse_dtype(name: str) -> DType:
    return dtype_from_name(name)
