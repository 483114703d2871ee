"""Row layout: how a function with named dims maps onto rows of C elements (issue 7).

A row operator's tensors fall into four classes, read off their types (no new IR types):

* **row**     ``[..., C]`` / ``[R, C]``: the op's widest shape; rows = product of the leading dims;
* **col**     ``[C]`` when row tensors have leading dims: one row shared by all rows (gamma, bias),
  loaded once per core and resident in UB;
* **perrow**  ``[..., 1]`` (a keepdims reduction) or ``[...]`` (keepdims=False): one value per row;
* **scalar**  ``scalar<T>``: Scalar inputs, attributes, constants.

A *block* ``[S, C]`` (a suffix of at least two of the row shape's dims, e.g. a causal mask of
``[..., S, C]``) is a row value whose rows repeat along the missing leading dims: row r of the
flattened rows reads the block's row ``r % S``. Every pass treats it as a row (``kind`` says
ROW); only its copy-in differs (``is_block``: the kernel copies the step's block rows in pieces,
host tiling checks its dims against the row input's last ones).

An op whose operands mix classes runs one row at a time (``row (+) col``) or reads the per-row
value with the scalar unit (``row (+) perrow``); see ``row_forms``. Shapes outside these classes
(two different leading-dim structures, a dim of another name in the last place) are a
``CompileError`` at the line that makes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsl.errors import CompileError
from dsl.ir import Func, ScalarType, Shape, TensorType

ROW, COL, PERROW, SCALAR = "row", "col", "perrow", "scalar"


@dataclass(frozen=True)
class RowLayout:
    row: Shape  # the shape of row tensors, e.g. [..., C]

    @property
    def cols(self) -> str:
        return self.row.dims[-1]

    @property
    def has_leading(self) -> bool:
        return self.row.ellipsis or len(self.row.dims) > 1

    def kind(self, t) -> str | None:
        """The class of a value of type ``t``; None for a shape no class takes."""
        if isinstance(t, ScalarType):
            return SCALAR
        if not isinstance(t, TensorType):
            return None
        s = t.shape
        if s.unshaped:
            return None
        if s == self.row or self.is_block(t):
            return ROW
        if self.has_leading and s == Shape((self.cols,), False):
            return COL
        lead = self.row.dims[:-1]
        if s.ellipsis == self.row.ellipsis and s.dims in (lead + (1,), lead):
            return PERROW
        return None

    def is_block(self, t) -> bool:
        """A ``[S, C]`` block: a proper suffix (two dims or more, no '...') of the row shape."""
        if not isinstance(t, TensorType) or t.shape.unshaped or t.shape.ellipsis:
            return False
        dims, row = t.shape.dims, self.row.dims
        shorter = len(dims) < len(row) or (self.row.ellipsis and len(dims) == len(row))
        return len(dims) >= 2 and shorter and tuple(row[len(row) - len(dims) :]) == tuple(dims)


def is_row_func(func: Func) -> bool:
    return func.attributes.get("layout") == "rows"


def _shapes(func: Func):
    for p in func.params:
        if isinstance(p.value.type, TensorType):
            yield p.value.type.shape, None, f"input '{p.value.name}'"
    for op in func.walk():
        if op.result is not None and isinstance(op.result.type, TensorType):
            yield op.result.type.shape, op, "this value"


def row_layout(func: Func) -> RowLayout | None:
    """The row layout of a function with named dims (None for a flat elementwise function).

    The row shape is the widest shape whose last dim is a name; every other tensor must be a
    col, a per-row value or a row: anything else is a CompileError at its line."""
    shapes = list(_shapes(func))
    named = [s for s, _, _ in shapes if not s.unshaped]
    if not named:
        return None
    rows = [s for s in named if s.dims and isinstance(s.dims[-1], str)]
    if not rows:
        p = next(p for p in func.params if isinstance(p.value.type, TensorType))
        raise CompileError(
            f"input '{p.value.name}' has shape [{p.value.type.shape}]: a row operator needs a tensor whose last "
            'dim is a name (the row length), e.g. Tensor[..., "C"]',
            func.loc,
        )
    row = max(rows, key=lambda s: (s.ellipsis, len(s.dims)))
    layout = RowLayout(row)
    for s, op, what in shapes:
        if s.unshaped:
            loc = op.loc if op is not None else func.loc
            raise CompileError(
                f"{what} is unshaped (a plain Tensor) in a row operator over [{row}]; annotate every tensor "
                'with named dims, e.g. Tensor[..., "C"]',
                loc,
            )
        if layout.kind(TensorType(_any_dtype(), s)) is None:
            loc = op.loc if op is not None else func.loc
            lead = ", ".join(["..."] * row.ellipsis + [str(d) for d in row.dims[:-1]])
            raise CompileError(
                f"{what} has shape [{s}], which the row backend does not take: row operators handle rows "
                f"[{row}], columns [{layout.cols}] (shared by every row) and per-row values "
                f"[{lead + ', ' if lead else ''}1]",
                loc,
            )
    _check_blocks(func, layout)
    return layout


def _check_blocks(func: Func, layout: RowLayout) -> None:
    """Block inputs ([S, C] of [..., S, C]) share one shape (one period S)."""
    blocks = [p for p in func.params if layout.is_block(p.value.type)]
    for p in blocks[1:]:
        if p.value.type.shape != blocks[0].value.type.shape:
            raise CompileError(
                f"inputs '{blocks[0].value.name}' [{blocks[0].value.type.shape}] and '{p.value.name}' "
                f"[{p.value.type.shape}] are both repeated along the leading dims of [{layout.row}] with "
                "different shapes; a row operator takes repeated blocks of one shape",
                func.loc,
            )


def _any_dtype():
    from dsl.dtypes import f32

    return f32


def layout_of(func: Func) -> RowLayout:
    layout = row_layout(func)
    assert layout is not None, f"@{func.name} is not a row function"
    return layout
