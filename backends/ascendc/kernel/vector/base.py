"""The data a schedule passes to a vector code path, and the ``VectorCode`` protocol.

A schedule (``variant.VariantRenderer``, ``rows.RowVariantRenderer``) owns every name, buffer and
flag; it describes each vector op as a ``VecOp``: the IR op (for its opname, attributes and
source location only), its operands as the C++ text it bound with their ``Form``, and the
``Extent`` one call covers, in the schedule's own words (``n``, ``cols_``, ``rows``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol

from dsl.dtypes import DType
from dsl.ir import Op

from ..merge import Stmt


def where(op) -> str | None:
    """``file.py:LINE`` of an op (or function): the source-map label of its statements."""
    if op.loc is None:
        return None
    return f"{op.loc.filename}:{op.loc.line}"


class Form(enum.Enum):
    """How an operand is laid out for the op."""

    TILE = "tile"  # contiguous from the view's start: flat/broadcast tiles, rows' whole-step calls
    REPEAT = "repeat"  # flat: a resident broadcast, one 256 B repeat read with repeat stride 0
    ROW = "row"  # rows: inside the per-row loop, element 0 of row r is name[r * pitch]
    COLUMN = "column"  # rows: one row (cols) reused by every row
    PER_ROW = "per_row"  # rows: row r's value at name[r * per_row] (MemBase: GetValue, S flags)
    BLOCKS = "blocks"  # rows: per-row values spread by Brcb (a vec.brcb result)
    SCALAR = "scalar"  # by value: a member (beta2_), a literal, LoadScalar(...)
    REGISTER = "register"  # RegBase only: an intermediate with no UB view


@dataclass(frozen=True)
class Operand:
    text: str  # the C++ text the schedule bound: a view, a resident member; "" for a SCALAR
    dtype: DType  # IR element or scalar type
    form: Form
    ctype: str | None = None  # agreed C++ type of the view (view_types), when known
    buffer: str | None = None  # the variant's buffer (RegBase: __ubuf__ argument, LocalMemBar)
    value: object = None  # the IR value (SCALAR: MemBase asks ctx.scalar_for(value, dt, like))
    ub: str | None = None  # RegBase: the UB view a TILE operand is loaded from or stored to


@dataclass(frozen=True)
class Extent:
    """How much one op covers, in the schedule's words."""

    count: str  # "n" | "nPerRow" | "cols_" | ...
    whole: str  # the count Compare/Select take (whole repeats): "nAligned" | ...
    rows: str | None = None  # per-row loop bound ("rows"); None: one call over ``count``
    pitch: str = "pitch_"  # ROW operand stride inside the loop
    per_row: str = "PER_ROW"  # PER_ROW/BLOCKS stride
    family: str = "flat"  # error wording: "flat" (910B elementwise backend) or "rows" (row backend)


@dataclass
class VecOp:
    op: Op  # for opname/attrs/loc (errors, source map); never for names
    dst: Operand
    srcs: list[Operand]  # IR operand order (tensor and SCALAR)
    extent: Extent


@dataclass
class Region:
    """A run of a tile body's V-pipe work between two non-V statements (DMA, flag, S op): VecOps
    and sync.barrier Ops in program order, one guard (rows' chunk passes) for all."""

    items: list  # VecOp | Op (sync.barrier)
    guard: Op | None = None
    live_in: list[Operand] = field(default_factory=list)
    live_out: list[Operand] = field(default_factory=list)
    path: str = "membase"  # select-vector-path's choice: keys the VectorCodes


@dataclass
class Needs:
    """What one variant's vector code asked for: the helpers, members and buffers the class
    template then writes (set while rendering, read by KernelText/RowKernelText)."""

    repeat: set = field(default_factory=set)  # (api, "Lhs" | "Rhs"): <Api>Repeat<Side> helpers
    has_compare: bool = False  # Compare/Select read whole 256-byte repeats (nAligned)
    spreads: bool = False  # SpreadPerRow: per-row values as Brcb blocks
    row_ops: set = field(default_factory=set)  # the binary ops RowsByValue runs (add, sub, ...)
    row_reduces: set = field(default_factory=set)  # the ReduceRows kinds (SUM, MAX, MIN)
    chunk_helpers: set = field(default_factory=set)  # the ReduceChunk kinds (chunked twins)
    mean_reduce: bool = False  # ReduceRows<..., true>: a mean (kernels with column-chunked twins)
    uses_mean: bool = False  # invCols_
    uses_part: bool = False  # partBuf_: a chunk's partial reduction (chunked twins)
    uses_welford: bool = False  # Welford statistics of a chunked row (welfordBuf_)
    welford_blocks: bool = False  # WelfordVar reads the mean as Brcb blocks (else -mean, by the scalar unit)
    online_sum: bool = False  # OnlineSum: a sum of exp(x - max) kept at the running max (chunked twins)
    vfs: dict = field(default_factory=dict)  # RegBase: placeholder -> regbase.VectorFunction
    cast_traits: set = field(default_factory=set)  # RegBase: the CastTrait constants the VFs use


class Ctx(Protocol):
    """What a code path asks the schedule back (VariantRenderer and RowVariantRenderer)."""

    needs: Needs
    chunked: bool  # rows: a column-chunked twin
    twinned: bool  # rows: a full-load variant that writes its twin's guards

    def scalar_for(self, v, dt: DType, view: str) -> str: ...  # a member or a typed literal

    def typed_for(self, expr: str, dt: DType, view: str) -> str: ...  # static_cast<T> for a T view


class VectorCode(Protocol):
    path: str  # "membase" | "regbase"

    def check(self, op: Op) -> None: ...  # dtype/API legality; CompileError

    def op(self, vop: VecOp, ctx: Ctx) -> Stmt: ...  # one vector op (MemBase: one statement)

    def render_region(self, region: Region, ctx: Ctx) -> list[Stmt]: ...

    def barrier(self, loc: str | None = None, note: str | None = None, weight: int = 1) -> list[Stmt]: ...

    def barrier_line(self) -> str | None: ...  # the same for helper writers (None: no line)

    def resident_broadcast(
        self, member: str, ctype: str, value: str, loc: str | None = None
    ) -> list[Stmt]: ...

    def helpers(self, w, needs: list[Needs], where: str) -> None: ...  # the helpers ``needs`` ask for
