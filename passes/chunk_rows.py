"""chunk-rows: the column-chunked form of a row function, for rows too long for UB (issue 7).

Takes a planned and synced row function (after ``insert-sync``); produces the function a kernel
runs when not even one whole row fits: one row at a time, in chunks of ``colsPerLoop`` columns
(host tiling picks it at run time), each reduction level a pass over the row's chunks.

A value's *level* is the number of reductions it depends on in sequence: ``mean(x)`` has level 1,
``mean((x - mean(x)) ** 2)`` level 2. A reduction whose source has level ``d`` runs in phase
``d``, one partial result per chunk folded into its per-row accumulator; what the outputs
need runs in the last phase ``F`` (the deepest reduction's level). Per row the kernel makes
``F + 1`` passes over the chunks; every pass copies in (again) the chunks it needs: rows and
columns alike (a column chunk is no longer resident), so the inputs are read ``F + 1`` times.
A variance around a mean (``mean((x - mean(x)) ** 2)``) does not take a level of its own: both
come from one pass of Welford statistics (``welford`` below, seed 002), so layer norm reads its
rows twice (statistics, output), not three times.

On every op of the step loop:

* ``phases = [..]``: the passes that execute it, every chunk (row and column values, loads and
  stores of rows, the chunk reductions, which accumulate);
* ``once = p``: executed once per row, in the first chunk of pass ``p`` (per-row values computed
  from finished reductions, per-row loads and stores).

The columns' copies and the ops computed from them move from before the loop into it (first).
Every per-row value gets its own buffer: a per-row value lives across passes, so the full-load
plan's sharing (by liveness inside one step) does not hold. The flags are planned again for the
new body (``insert-sync``); they run unconditionally, every chunk, so each SetFlag keeps its
WaitFlag whatever the guards skip. The function records ``path = "chunked"`` and
``phases = F + 1``.

    before:  %g_t = dma.load %g                    after:  loop.tiles do {
             loop.tiles do {                                %g_t = dma.load %g {phases = [1]}
               %x_t = dma.load %x                           %x_t = dma.load %x {phases = [0, 1]}
               %m = reduce %x_t {kind = "mean"}             %m = reduce %x_t {phases = [0]}
               %n = neg %m                                  %n = neg %m {once = 1}
               %d = vec.adds %x_t, %n                       %d = vec.adds %x_t, %n {phases = [1]}
               %y = mul %d, %g_t                            %y = mul %d, %g_t {phases = [1]}
               dma.store %y                                 dma.store %y {phases = [1]}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.errors import CompileError
from dsl.ir import Func, Op, TensorType

from .insert_sync import insert
from .manager import FunctionPass, register
from .rows import COL, PERROW, ROW, is_row_func, layout_of


def chunk(func: Func) -> None:
    loop = func.loop()
    if loop is None or not is_row_func(func) or func.attributes.get("path") == "chunked":
        return
    if "buffers" not in func.attributes:
        raise CompileError("chunk-rows needs a planned row function (run plan-rows first)", func.loc)
    kind = layout_of(func).kind
    columns = [
        op
        for op in func.body
        if op is not loop and op.result is not None and isinstance(op.result.type, TensorType)
    ]
    func.body = [
        op for op in func.body if not op.opname.startswith("sync.") and not any(op is c for c in columns)
    ]
    body = columns + [op for op in loop.region if not op.opname.startswith("sync.")]
    welford(body)
    online(body)

    level: dict[int, int] = {}
    for op in body:
        d = max((level.get(id(v), 0) for v in op.operands), default=0)
        if op.opname == "reduce":
            op.attrs["phases"] = [d]
            d += 1
        elif op.opname == ONLINE:  # in the pass of the max it reads, chunk by chunk
            op.attrs["phases"] = [d - 1]
        if op.result is not None:
            level[id(op.result)] = d
    last = max((level[id(op.result)] for op in body if op.opname in ("reduce", ONLINE)), default=0)

    need: dict[int, set[int]] = {}  # id(op) -> passes that execute it
    owner = {id(op.result): op for op in body if op.result is not None}
    for op in reversed(body):
        if op.opname in ("reduce", ONLINE):
            passes = set(op.attrs["phases"])
        elif op.opname == "dma.store":
            v = op.operands[0]
            if kind(v.type) == PERROW:
                op.attrs["once"] = level[id(v)]
                continue
            passes = {last}
        else:
            passes = need.get(id(op), set())
            if op.result is not None and kind(op.result.type) == PERROW and not passes:
                op.attrs["once"] = level[id(op.result)]
                continue
            if not passes:
                raise CompileError(f"chunk-rows: {op.opname} is not needed by any output", op.loc)
        op.attrs["phases"] = sorted(passes)
        for v in op.operands:
            src = owner.get(id(v))
            if src is None:
                continue
            if kind(v.type) in (ROW, COL):
                need.setdefault(id(src), set()).update(passes)
            elif kind(v.type) == PERROW and any(p < level[id(v)] for p in passes):
                # read in the pass its reduction runs in (online.sum's exp(x - m)): the running
                # value, every chunk of that pass; the last chunk leaves the final one for later passes
                need.setdefault(id(src), set()).update(p for p in passes if p < level[id(v)])

    # Per-row values live across passes: one buffer each (tiny: a few bytes per row). One that a
    # later step reads (an accumulator, a value the next chunks apply, a per-row input) keeps one
    # slot, whichever slot the chunk reading it has; one made and used in one step (a per-row
    # output's cast and its copy out) keeps its slots. A column is copied in chunk by chunk like a
    # row: its buffers (the copy, and what is computed from it) alternate between the loop's slots
    # with the chunks (the kernel's colLen_ then holds them all). Row and column buffers no op
    # holds any more (a variance's squares, under Welford) are dropped.
    held = {op.attrs.get("buf") for op in body}
    buffers = {n: dict(b) for n, b in func.attributes["buffers"].items() if b["kind"] != PERROW and n in held}
    slots = loop.attrs.get("slots", 1)
    for op in columns:  # each column buffer holds one value (plan-rows)
        if slots > 1:
            op.attrs["slots"] = buffers[op.attrs["buf"]]["slots"] = slots
    readers: dict[int, list[Op]] = {}
    for op in body:
        for v in op.operands:
            readers.setdefault(id(v), []).append(op)
    for op in body:
        if op.result is not None and kind(op.result.type) == PERROW and "buf" in op.attrs:
            k = 0
            while f"b{k}" in buffers:
                k += 1
            name = f"b{k}"
            once = op.attrs.get("once")
            if once is None or any(r.attrs.get("once") != once for r in readers.get(id(op.result), [])):
                op.attrs.pop("slots", None)
            width = 32 if op.opname == "vec.brcb" else op.result.type.dtype.bytes  # Brcb: a block per element
            buffers[name] = {"bytes": width, "slots": op.attrs.get("slots", 1), "kind": PERROW}
            op.attrs["buf"] = name
    func.attributes["buffers"] = dict(sorted(buffers.items(), key=lambda kv: int(kv[0][1:])))
    loop.region = body
    func.attributes["path"] = "chunked"
    func.attributes["phases"] = last + 1
    insert(func)


ONLINE = "online.sum"


def _deviation(d: Op | None, kind: str):
    """``(x, m, shift)`` when ``d`` is ``x`` less ``m = reduce x {kind}`` (f32) as row-forms
    leaves it: ``vec.adds x, neg(m)`` (shift: ``-m``) or ``sub x, vec.brcb(m)`` (shift: m's Brcb
    blocks); else None."""
    if d is None or d.opname not in ("vec.adds", "sub") or d.operands[1].owner is None:
        return None
    shift = d.operands[1].owner
    if shift.opname != {"vec.adds": "neg", "sub": "vec.brcb"}[d.opname] or shift.operands[0].owner is None:
        return None
    m, x = shift.operands[0], d.operands[0]
    r = m.owner
    if r.opname != "reduce" or r.attrs.get("kind") != kind or r.operands[0] is not x:
        return None
    if m.type.dtype.name != "f32" or x.type.dtype.name != "f32":
        return None
    return x, m, shift


def online(body: list[Op]) -> int:
    """Softmax's two passes (online softmax): ``s = reduce sum e`` with ``e = exp(d)``, ``d = x +
    (-m)`` (``vec.adds x, neg(m)``) or ``d = x - b``, ``b = vec.brcb m`` (an f32 ``x - m``), and
    ``m = reduce max x`` becomes ``s = online.sum e, m``, which runs in the max's pass: each chunk
    computes ``e`` with the running max and rescales the sum so far by ``exp(m before - m)``, so
    after the last chunk ``s`` is the sum of ``exp(x - max)``; the outputs' pass then reads the rows
    once more (two passes, not three). Exact for a sum of exponentials, up to the roundings of the
    scale factors: ``online.sum`` is in the approximate class (dsl/precision.py), as the
    ``exp`` and the reordered sum it replaces already are. Returns how many sums it rewrote."""
    done = 0
    for r in body:
        if r.opname != "reduce" or r.attrs.get("kind") != "sum" or r.operands[0].owner is None:
            continue
        e = r.operands[0].owner
        found = _deviation(e.operands[0].owner if e.opname == "exp" else None, "max")
        if found is None or r.result.type != found[1].type:
            continue
        m = found[1]
        r.opname, r.operands = ONLINE, [e.result, m]
        r.attrs = {k: r.attrs[k] for k in ("slots", "buf") if k in r.attrs}
        done += 1
    return done


def welford(body: list[Op]) -> int:
    """Single-pass statistics: ``m = mean(x)`` and ``v = mean(d * d)`` with ``d = x + (-m)`` (the
    variance as row-forms leaves it, ``(x - m) ** 2`` and ``(x - m) * (x - m)`` alike) become
    Welford's running statistics of ``x``: ``m``'s reduction gets ``welford = true`` (per chunk
    the lane-wise Welford update, after the last chunk the lanes' Chan merge into the mean) and
    ``v = welford.var %x, %n`` (the lanes' Chan merge into the variance, reading the shift
    ``n = -m`` with the scalar unit, as ``d`` does right after it) moves before ``d``, so the
    variance no longer waits for a pass of its own. With ``d = x - b``, ``b = vec.brcb m`` (the
    row-forms of an f32 ``x - m``) it reads ``b`` instead (``{blocks = true}``: the vector unit,
    no scalar read).
    The square goes when nothing else reads it. Returns how many variances it
    rewrote."""
    users: dict[int, list[Op]] = {}
    for op in body:
        for v in op.operands:
            users.setdefault(id(v), []).append(op)
    done = 0
    for r2 in list(body):
        if r2.opname != "reduce" or r2.attrs.get("kind") != "mean":
            continue
        chain = [r2]
        sq = r2.operands[0].owner
        if sq is None or sq.opname != "mul" or sq.operands[0] is not sq.operands[1]:
            continue
        chain.append(sq)
        d = sq.operands[0].owner
        found = _deviation(d, "mean")
        if found is None or r2.result.type != found[1].type:
            continue
        x, m, neg = found
        r1 = m.owner
        if any(users.get(id(op.result)) != [user] for op, user in zip(chain[1:], chain)):
            continue  # the squares are read elsewhere too
        if all(u is sq for u in users.get(id(d.result), [])):
            chain.append(d)  # the deviations fed the squares only
        at = body.index(d)
        for op in chain[1:]:
            body.remove(op)
        body.remove(r2)
        r1.attrs["welford"] = True
        r2.opname, r2.operands = "welford.var", [x, neg.result]
        r2.attrs = {k: r2.attrs[k] for k in ("slots", "buf") if k in r2.attrs}
        if neg.opname == "vec.brcb":
            r2.attrs["blocks"] = True  # the shift is m's Brcb blocks, read by the vector unit
        body.insert(at, r2)
        done += 1
    return done


@register
@dataclass(frozen=True)
class ChunkRowsPass(FunctionPass):
    level: ClassVar[str] = "tile"
    name: ClassVar[str] = "chunk-rows"

    def run_on(self, func) -> None:
        chunk(func)


def chunked_twin(func: Func) -> Func:
    """A copy of the planned row function ``func`` in its column-chunked form."""
    from dsl.ir.parser import parse_module
    from dsl.ir.printer import print_func

    twin = parse_module(print_func(func, full_paths=True)).funcs[0]
    twin.name = f"{func.name}_chunked"
    chunk(twin)
    return twin


__all__ = ["ChunkRowsPass", "chunk", "chunked_twin", "online", "welford"]
