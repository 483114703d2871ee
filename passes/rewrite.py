"""Small IR rewriting helpers shared by passes."""

from __future__ import annotations

from dsl.ir import Func, Op


def erase_dead_ops(func: Func) -> bool:
    """Remove ops whose results are unused (all tensor-level ops are pure). True if any went."""
    changed = False
    while True:
        uses = func.uses()
        keep = [op for op in func.body if op.result is None or uses.get(id(op.result), 0) > 0]
        if len(keep) == len(func.body):
            return changed
        func.body = keep
        changed = True


def replace_op(func: Func, op: Op, new_value) -> None:
    """Make every use of ``op``'s result use ``new_value``; the dead op goes at the next DCE."""
    func.replace_all_uses(op.result, new_value)
