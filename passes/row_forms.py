"""row-forms: put a row function's ops in the forms the row kernel runs them in.

Takes a tile-level row function (``layout = "rows"``, after hoist-scalars); produces one where

1. columns (``[C]``: gamma, beta, a bias) and everything computed from columns and scalars only
   (``1 / scales``) sit before the step loop: loaded and computed once per core, resident in UB;
   a cast that widens a loaded column only rows read stays in the step, right before its first
   reader (the column stays resident in its narrow type; the f32 copy borrows a dead row buffer);
2. ``row (+) perrow`` arithmetic (``add/sub/mul/div/max/min`` of half/float, the per-row value on
   either side) reads the per-row value as 32-byte blocks: ``vec.brcb`` (Brcb: each per-row value
   over one block, once per value, shared by its later uses), then the op as written, which the
   kernel runs in the level-0 form with block stride 0 for the blocks, many rows per call; no
   scalar reads, and ``x - m``, ``x / s`` keep the reference's rounding;
3. what cannot take the blocks (integer per-row values) reads the per-row value with the scalar
   unit, one value per row: ``add/mul/max/min`` become ``vec.adds/muls/maxs/mins`` with the
   per-row operand in the scalar place, ``a - m`` becomes ``vec.adds a, -m``; comparisons and
   ``where`` with a per-row value or a column get it spread over whole rows first (``vec.brc``);
   a mask of columns or per-row values is compared again on the spreads of its operands;
4. what the row kernel cannot do is a CompileError at its line: reductions of columns or of
   integer values, outputs of shape [C].

    before:  %0 = sub %x, %mean : tensor<..., C, f32>
             %1 = div %e, %s : tensor<..., C, f32>
    after:   %m = vec.brcb %mean : tensor<..., 1, f32>
             %0 = sub %x, %m : tensor<..., C, f32>
             %b = vec.brcb %s : tensor<..., 1, f32>
             %1 = div %e, %b : tensor<..., C, f32>
"""

from __future__ import annotations

from dsl.errors import CompileError
from dsl.ir import Func, Namer, Op, TensorType

from .manager import function_pass
from .rows import COL, PERROW, ROW, SCALAR, is_row_func, layout_of

SCALAR_FORM = {"add": "vec.adds", "mul": "vec.muls", "max": "vec.maxs", "min": "vec.mins"}
VEC_SCALAR = set(SCALAR_FORM.values())


def _resident(op: Op, kind) -> bool:
    """Computed once per core: a column load, or an op over columns and scalars only."""
    if op.result is None or kind(op.result.type) != COL:
        return False
    if op.opname == "dma.load":
        return True
    return all(kind(v.type) in (COL, SCALAR) for v in op.operands)


BLOCK_FORM = {"vec.adds": "add", "vec.muls": "mul", "vec.maxs": "max", "vec.mins": "min"}


def _block_form(op: Op) -> bool:
    """``row (+) per-row`` the vector unit runs with the per-row value as a Brcb block: the binary
    ops Add/Sub/Mul/Div/Max/Min (level-0 form, half/float) of one row and one per-row operand."""
    if op.opname not in ("add", "sub", "mul", "div", "max", "min") and op.opname not in BLOCK_FORM:
        return False
    return len(op.operands) == 2 and all(v.type.dtype.name in ("f16", "f32") for v in op.operands)


def _per_step_widenings(region: list[Op], kind) -> list[Op]:
    """Casts that widen a column only rows read: kept in the step, each right before its first
    reader, so the column stays resident in its narrow type (seed 002: gamma/beta in T) and the
    f32 copy takes a row buffer's slot for a moment instead of a resident area of its own
    (``C * 4`` bytes of UB per column, minus one cast of C elements per step)."""
    out = []
    for op in region:
        if op.opname != "cast" or op.result is None or kind(op.result.type) != COL:
            continue
        src = op.operands[0]
        if src.owner is None or src.owner.opname != "dma.load" or kind(src.type) != COL:
            continue
        if op.result.type.dtype.bytes <= src.type.dtype.bytes:
            continue
        readers = [o for o in region if op.result in o.operands]
        if readers and all(o.result is not None and kind(o.result.type) == ROW for o in readers):
            out.append(op)
    return out


def forms(func: Func) -> None:
    loop = func.loop()
    if loop is None or not is_row_func(func):
        return
    layout = layout_of(func)
    kind = layout.kind
    namer = Namer.of(func)
    before: list[Op] = []
    body: list[Op] = []
    recompared: list[Op] = []

    def emit(name, operands, rtype, loc, attrs=None) -> Op:
        new = Op(name, operands, rtype, namer.fresh(), attrs or {}, loc)
        body.append(new)
        return new

    blocks: dict[int, object] = {}  # id(per-row value) -> its vec.brcb

    def spread(v, loc, like=None):
        """``v`` (a column or per-row value) over whole rows; over the block when the op that
        reads it computes on a block [S, C] (its rows are laid out in UB like the step's rows)."""
        shape = like.shape if like is not None and layout.is_block(like) else layout.row
        return emit("vec.brc", [v], TensorType(v.type.dtype, shape), loc, {"of": kind(v.type)}).result

    widen = _per_step_widenings(loop.region, kind)
    pending = {id(op.result): op for op in widen}
    for op in loop.region:
        if any(o is op for o in widen):
            continue
        for v in op.operands:  # a column widened per step: right before its first reader
            if id(v) in pending:
                body.append(pending.pop(id(v)))
        if _resident(op, kind):
            before.append(op)
            continue
        if op.opname == "dma.store" and kind(op.operands[0].type) == COL:
            raise CompileError(
                f"output '{op.attrs['output']}' has shape [{layout.cols}] (one row shared by all rows); row "
                "operators store rows or per-row values",
                op.loc,
            )
        if op.opname == "dma.store" and layout.is_block(op.operands[0].type):
            raise CompileError(
                f"output '{op.attrs['output']}' has shape [{op.operands[0].type.shape}], a block that repeats "
                f"along the leading dims of [{layout.row}]; row operators store rows or per-row values",
                op.loc,
            )
        if op.opname == "reduce":
            src = op.operands[0]
            if kind(src.type) != ROW:
                raise CompileError(
                    f"dsl.{op.attrs['kind']} of a {kind(src.type)} value: the row backend reduces rows "
                    f"([{layout.row}]) along the last axis",
                    op.loc,
                )
            if not src.type.dtype.is_float:
                raise CompileError(
                    f"dsl.{op.attrs['kind']} of {src.type.dtype} values is not supported by the row backend "
                    "(the vector unit reduces half/float); cast to f32 first",
                    op.loc,
                )
        result = op.result
        if result is None or kind(result.type) != ROW or op.opname in ("vec.brc",):
            body.append(op)
            continue
        kinds = [kind(v.type) for v in op.operands]
        name = op.opname
        if sorted(kinds) == [PERROW, ROW] and _block_form(op):
            # Brcb spreads each per-row value over a 32-byte block once; the op then reads that
            # block with block stride 0, many rows per vector call (no scalar reads).
            k = kinds.index(PERROW)
            m = op.operands[k]
            if id(m) not in blocks:
                blocks[id(m)] = emit("vec.brcb", [m], m.type, op.loc).result
            op.opname = BLOCK_FORM.get(name, name)
            op.operands[k] = blocks[id(m)]
            body.append(op)
            continue
        if PERROW in kinds and len(op.operands) == 2 and name in SCALAR_FORM | {"sub": None}:
            if kinds == [PERROW, PERROW]:
                body.append(op)
                continue
            a, b = op.operands
            if name == "sub" and kinds[1] == PERROW:  # a - m = a + (-m)
                neg = emit("neg", [b], b.type, op.loc)
                op.opname, op.operands = "vec.adds", [a, neg.result]
            elif name == "sub":  # m - b = (-b) + m; -b of a column is resident, like the column
                neg = emit("neg", [b], b.type, op.loc)
                if kinds[1] == COL and not any(o is b.owner for o in widen):  # (not of its per-step f32)
                    before.append(body.pop())
                op.opname, op.operands = "vec.adds", [neg.result, a]
            elif kinds[0] == PERROW:  # commutative: the per-row value goes to the scalar place
                op.opname, op.operands = SCALAR_FORM[name], [b, a]
            else:
                op.opname = SCALAR_FORM[name]
            body.append(op)
            continue
        if name in VEC_SCALAR and kinds[1] == PERROW:
            body.append(op)
            continue
        needs_rows = name in ("cmp", "where") or PERROW in kinds
        if needs_rows:
            for k, v in enumerate(op.operands):
                kv = kind(v.type)
                if kv == PERROW or (kv == COL and name in ("cmp", "where")):
                    if v.type.dtype.kind == "bool" and v.owner is not None and v.owner.opname == "cmp":
                        # a mask of columns or per-row values: compare their spreads (a row mask)
                        x, y = (
                            w if kind(w.type) in (ROW, SCALAR) else spread(w, op.loc, result.type)
                            for w in v.owner.operands
                        )
                        rmask = TensorType(
                            v.type.dtype, result.type.shape if layout.is_block(result.type) else layout.row
                        )
                        op.operands[k] = emit("cmp", [x, y], rmask, op.loc, dict(v.owner.attrs)).result
                        recompared.append(v.owner)
                        continue
                    if v.type.dtype.kind == "bool":
                        what = f"[{layout.cols}] (columns)" if kv == COL else "[..., 1] (per-row values)"
                        raise CompileError(
                            f"a comparison of {what} used on whole rows is not supported by the row "
                            "backend yet; compare the rows instead",
                            op.loc,
                        )
                    op.operands[k] = spread(v, op.loc, result.type)
        body.append(op)
    loop.region = body
    at = func.body.index(loop)
    func.body = func.body[:at] + before + func.body[at:]
    # masks compared again on rows, and the resident values only they read, go
    pure = {id(o) for o in recompared + before if o.result is not None}
    while True:
        uses = func.uses()
        dead = {id(o) for o in func.walk() if id(o) in pure and not uses.get(id(o.result), 0)}
        if not dead:
            break
        pure -= dead
        loop.region = [o for o in loop.region if id(o) not in dead]
        func.body = [o for o in func.body if id(o) not in dead]


RowFormsPass = function_pass("row-forms", "tile", forms)


__all__ = ["RowFormsPass", "forms", "ROW", "COL", "PERROW", "SCALAR"]
