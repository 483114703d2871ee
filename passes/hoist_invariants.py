"""hoist-invariants: broadcast values that do not change from tile to tile are made once per core.

Takes a tile-level function after hoist-scalars; produces one where

1. ``div(neg t, dup s)`` is ``div(t, dup(-s))`` with ``-s`` computed once on the scalar unit:
   IEEE division is symmetric in sign, so (-a)/b and a/(-b) round to the same value (zeros and
   infinities included; a NaN stays a NaN). The per-tile negation (a Muls by -1) goes away.
2. every ``vec.dup`` whose users are all binary arithmetic (add sub mul div max min) moves out
   of the loop, one per scalar and dtype: a *resident* broadcast. It holds one 256-byte repeat
   (64 f32 / 128 f16 copies of the value), written once by ``Duplicate`` before the loop; the
   tile ops read it with a source repeat stride of 0 (the level-0 form of Add/Sub/Mul/Div/Max/
   Min, ascendc-api.md s5), so the same 256 bytes serve every repeat of every tile. The op still
   divides by the broadcast value (``t * (1/s)`` would round differently), it just stops
   re-broadcasting it.

The rule for when it pays: a resident costs 256 bytes of UB for the whole kernel (plan-buffers
takes them off the tile budget: under 0.2% of A2's usable UB each, so the tile shrinks by at most
one 256-byte step), and saves one Duplicate per tile plus the barrier that orders it, so it is
always done. A broadcast that a Compare or Select reads stays in the loop: those instructions
read whole tiles (their repeat strides are not free on A2 the way a binary op's are), and a
tile-sized resident buffer would cost as much UB as one more f32 temporary per element.

    before:  loop.tiles do {
               %n = neg %v : tensor<*, f32>
               %d = vec.dup %s : tensor<*, f32>
               %q = div %n, %d : tensor<*, f32>
             }
    after:   %ns = neg %s : scalar<f32>
             %d = vec.dup %ns : tensor<*, f32>
             loop.tiles do {
               %q = div %v, %d : tensor<*, f32>
             }
"""

from __future__ import annotations

from dsl.ir import Func, Namer, Op, ScalarType

from .manager import function_pass

# Binary tile ops with a level-0 form whose source repeat stride may be 0.
REPEAT_READERS = {"add", "sub", "mul", "div", "max", "min"}


def _users(ops: list[Op]) -> dict[int, list[Op]]:
    users: dict[int, list[Op]] = {}
    for op in ops:
        for v in op.operands:
            users.setdefault(id(v), []).append(op)
    return users


def fold_negated_dividend(func: Func, namer: Namer) -> None:
    loop = func.loop()
    users = _users(loop.region)
    outside: list[Op] = []
    for op in loop.region:
        if op.opname != "div":
            continue
        n, d = op.operands
        if n.owner is None or n.owner.opname != "neg" or len(users.get(id(n), [])) != 1:
            continue
        if d.owner is None or d.owner.opname != "vec.dup" or len(users.get(id(d), [])) != 1:
            continue
        s = d.owner.operands[0]
        if s.type.dtype != d.type.dtype or not s.type.dtype.is_float:
            continue
        neg = Op("neg", [s], ScalarType(s.type.dtype), namer.fresh(), {}, op.loc)
        outside.append(neg)
        d.owner.operands = [neg.result]
        op.operands = [n.owner.operands[0], d]
    if outside:
        at = func.body.index(loop)
        func.body[at:at] = outside
        users = _users(loop.region)
        loop.region = [op for op in loop.region if op.result is None or users.get(id(op.result))]


def hoist_broadcasts(func: Func) -> None:
    loop = func.loop()
    users = _users(loop.region)
    resident: dict[tuple, Op] = {}
    region: list[Op] = []
    for op in loop.region:
        if op.opname == "vec.dup" and all(u.opname in REPEAT_READERS for u in users.get(id(op.result), [])):
            key = (id(op.operands[0]), op.result.type.dtype)
            first = resident.get(key)
            if first is None:
                resident[key] = op
            else:
                func.replace_all_uses(op.result, first.result)
            continue
        region.append(op)
    loop.region = region
    at = func.body.index(loop)
    func.body[at:at] = list(resident.values())


def hoist(func: Func) -> None:
    if func.loop() is None:
        return
    namer = Namer.of(func)
    fold_negated_dividend(func, namer)
    hoist_broadcasts(func)


HoistInvariantsPass = function_pass("hoist-invariants", "tile", hoist)
