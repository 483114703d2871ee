"""tile: wrap an elementwise function's tensor work in one tile loop with GM<->UB copies.

Takes specialized tensor-level IR over unshaped (flat) tensors; produces a tile-level function
(``level = "tile"``): every op runs inside ``loop.tiles`` on the current tile, each tensor input
is loaded once at the top of the body (``dma.load``, MTE2), and each output is stored right
after the op that produces it (``dma.store``, MTE3) so copy-out overlaps the remaining math.
The tile length is chosen later by ``plan-buffers``, once the buffers per element are known.

    before:  %0 = mul %x, %s : tensor<*, f32>
             return %0
    after:   loop.tiles do {
               %x_t = dma.load %x : tensor<*, f32>
               %0 = mul %x_t, %s : tensor<*, f32>
               dma.store %0 {output = "y"}
             }
             return
"""

from __future__ import annotations

from dsl.errors import CompileError
from dsl.ir import Func, Namer, Op, TensorType

from .manager import function_pass


def check_flat(func: Func) -> None:
    """The tile loop handles flat elementwise functions; say clearly what is not supported yet."""
    for p in func.params:
        t = p.value.type
        if isinstance(t, TensorType) and not t.shape.unshaped:
            raise CompileError(
                f"input '{p.value.name}' has named dims [{t.shape}]; the backend supports flat elementwise "
                "operators (unannotated Tensor) so far — row ops and reductions come next",
                func.loc,
            )


def tile(func: Func) -> None:
    from .rows import row_layout  # the row branch: same loop, whole rows per step (passes/rows.py)

    rows = row_layout(func) is not None
    if not rows:
        check_flat(func)
    namer = Namer.of(func)
    loads: list[Op] = []
    for p in func.params:
        v = p.value
        used = any(v in op.operands for op in func.body) or any(r is v for r in func.returns)
        if not isinstance(v.type, TensorType) or not used:  # an output may be an input unchanged
            continue
        load = Op("dma.load", [v], v.type, namer.fresh(f"{v.name}_t"), {}, func.loc)
        func.replace_all_uses(v, load.result)
        load.operands = [v]
        loads.append(load)
    stores_after: dict[int, list[Op]] = {}
    early: list[Op] = []
    for value, out in zip(func.returns, func.outputs):
        if value.owner is not None and value.owner.opname == "none":
            continue
        store = Op(
            "dma.store", [value], None, None, {"output": out.name}, value.owner.loc if value.owner else None
        )
        if value.owner is None or value.owner.opname == "dma.load":
            early.append(store)
        else:
            stores_after.setdefault(id(value.owner), []).append(store)
    inner: list[Op] = list(loads) + early
    for op in func.body:
        if op.opname == "none":
            continue
        inner.append(op)
        inner.extend(stores_after.get(id(op), []))
    func.body = [Op("loop.tiles", [], None, None, {}, func.loc, inner)]
    func.returns = []
    func.attributes["level"] = "tile"
    if rows:
        func.attributes["layout"] = "rows"
    locate_at_first_use(func)


def locate_at_first_use(func: Func) -> None:
    """An op that carries the ``def`` line (an input's load, its widening cast, a Scalar's read)
    takes the line of the first op that reads it, so the kernel's source-map comments and the
    emulator's fault reports name the DSL statement that uses the input, not the signature."""
    if func.loc is None:
        return
    ops = list(func.walk())
    users: dict[int, list[Op]] = {}
    for op in ops:
        for v in op.operands:
            users.setdefault(id(v), []).append(op)

    def at_def(op: Op) -> bool:
        return op.loc is not None and op.loc.line == func.loc.line and op.loc.filename == func.loc.filename

    for op in reversed(ops):  # users come later: their own lines are settled first
        if op.opname == "loop.tiles":  # not a DSL statement: the flags insert-sync hangs on it
            op.loc = None
            continue
        if op.result is None or not at_def(op):
            continue
        first = next((u for u in users.get(id(op.result), []) if u.loc is not None and not at_def(u)), None)
        if first is not None:
            op.loc = first.loc


TilePass = function_pass("tile", "tensor", tile)
