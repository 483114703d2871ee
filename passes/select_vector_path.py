"""select-vector-path: MemBase (LocalTensor calls) or RegBase (vector functions) per compute region.

Takes a tile-level function; marks its tile loop (the compute region: one tile's or one row
step's vector work) with ``vector_path`` ("membase" or "regbase") and ``vector_why``, the
reason ``dslc compile --explain`` prints.

The rule is seed 004's section 3: RegBase by default, because its intermediates stay in
registers (no UB round trip per op, no V barriers); MemBase only for one simple vector op with a
LocalTensor API (Add, Mul, Div, Cast, Compare, ...), where a vector function buys nothing. A
region with no vector op at all (a copy) is MemBase too.

Options (target facts come from the backend, passes import none):

* ``regbase``: the target has RegBase (ascend950). Without it every region is MemBase.
* ``path``: ``auto`` (the rule), or ``membase`` / ``regbase`` as the user asked.

A region the rule gives to RegBase but a vector function cannot render yet goes back to MemBase
in form-vector-functions, with that reason.

    before:  loop.tiles do { ... 3 vector ops ... }
    after:   loop.tiles {vector_path = "regbase", vector_why = "RegBase: 3 ops, 2 intermediates
               kept in registers"} do { ... }
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.ir import Module, Op, TensorType

from .manager import Pass, PassError, register

PATHS = ("auto", "membase", "regbase")

# Tile ops with one LocalTensor call each (the instruction's name, for the reason text).
SIMPLE_OPS = {
    "add": "Add",
    "sub": "Sub",
    "mul": "Mul",
    "div": "Div",
    "max": "Max",
    "min": "Min",
    "vec.adds": "Adds",
    "vec.muls": "Muls",
    "vec.maxs": "Maxs",
    "vec.mins": "Mins",
    "neg": "Muls",
    "abs": "Abs",
    "exp": "Exp",
    "ln": "Ln",
    "sqrt": "Sqrt",
    "relu": "Relu",
    "cast": "Cast",
    "cmp": "Compare",
    "where": "Select",
    "vec.dup": "Duplicate",
}


def vector_ops(region: list[Op]) -> list[Op]:
    """The ops of a loop body the vector unit runs: every tensor result but the DMA's."""
    return [
        op
        for op in region
        if op.result is not None
        and isinstance(op.result.type, TensorType)
        and not op.opname.startswith("dma.")
    ]


def per_row(t: TensorType) -> bool:
    """A row kernel's per-row value (``[..., 1]``): RegBase stores it with DIST_FIRST_ELEMENT_B32
    and reloads it with DIST_BRC_B32, so it passes through UB."""
    s = t.shape
    return not s.unshaped and bool(s.dims) and s.dims[-1] == 1 and (s.ellipsis or len(s.dims) > 1)


def register_intermediates(region: list[Op]) -> int:
    """Vector results a vector function keeps in registers: every reader is a vector op of the
    same region (not a store, not the scalar unit, not a later step), and the value is not a
    reduction's partial or a per-row value (those go through UB)."""
    ops = vector_ops(region)
    vector = {id(op) for op in ops}
    readers: dict[int, list[Op]] = {}
    for op in region:
        for v in op.operands:
            readers.setdefault(id(v), []).append(op)
    kept = 0
    for op in ops:
        users = readers.get(id(op.result), [])
        through_ub = op.opname == "reduce" or per_row(op.result.type)
        if users and all(id(u) in vector for u in users) and not through_ub:
            kept += 1
    return kept


def rule(region: list[Op]) -> tuple[str, str]:
    """Seed 004's choice for one region, with its reason."""
    ops = vector_ops(region)
    if not ops:
        return "membase", "MemBase: no vector ops (copies only)"
    if len(ops) == 1 and ops[0].opname in SIMPLE_OPS:
        return "membase", f"MemBase: one {SIMPLE_OPS[ops[0].opname]} with a LocalTensor API"
    kept = register_intermediates(region)
    noun = "intermediate" if kept == 1 else "intermediates"
    return "regbase", f"RegBase: {len(ops)} ops, {kept} {noun} kept in registers"


def choose(region: list[Op], regbase: bool, path: str) -> tuple[str, str]:
    if not regbase:
        return "membase", "MemBase: the target has no RegBase"
    if path == "membase":
        return "membase", "MemBase: asked for (vector_path='membase')"
    if path == "regbase":
        return "regbase", "RegBase: asked for (vector_path='regbase')"
    return rule(region)


@register
@dataclass(frozen=True)
class SelectVectorPathPass(Pass):
    name: ClassVar[str] = "select-vector-path"
    regbase: bool = False
    path: str = "auto"

    def run(self, module: Module) -> None:
        if self.path not in PATHS:
            raise PassError(f"select-vector-path{{path=...}} takes one of {', '.join(PATHS)}")
        if self.path == "regbase" and not self.regbase:
            raise PassError("select-vector-path{path=regbase} needs regbase=true (a RegBase target)")
        for func in module.funcs:
            loop = func.loop()
            if loop is None:
                continue
            path, why = choose(loop.region, self.regbase, self.path)
            loop.attrs["vector_path"] = path
            loop.attrs["vector_why"] = why
