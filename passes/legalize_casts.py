"""legalize-casts: rewrite casts the target has no instruction for into chains it has.

Atlas A2 converts float -> int8/uint8 only from half, and int8/uint8 -> float only through
half (ascendc-api.md, Cast table). Takes tensor-level IR after promote-precision; produces:

* f32 -> i8/u8:  truncate to i32, back to f32 (exact below 2^24), clamp to the target range
  (the DSL saturates), to f16 (exact for these integers), then to i8/u8;
* i8/u8 -> f32:  through f16;
* f32 -> bool:   ``x != 0`` (a comparison; ``materialize-bools`` stores it as bytes);
* comparisons of integer tensors (A2's Compare takes half/float): i8/u8 compare exactly as f16;
  i32 compares its f32 roundings (rounding is monotonic, so unequal roundings order correctly)
  and, where the roundings tie (then |a - b| <= 256), the exact difference ``a - b`` against 0.

    before:  %q = cast %x {from = f32} : tensor<*, i8>
    after:   %0 = cast %x {from = f32} : tensor<*, i32>
             %1 = cast %0 {from = i32} : tensor<*, f32>
             %2 = max %1, %lo ; %3 = min %2, %hi        (lo = -128.0, hi = 127.0)
             %4 = cast %3 {from = f32} : tensor<*, f16>
             %q = cast %4 {from = f16} : tensor<*, i8>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.dtypes import bool_, f16, f32, i8, i32, u8
from dsl.ir import Func, Namer, Op, ScalarType, TensorType

from .manager import FunctionPass, register

RANGES = {i8: (-128.0, 127.0), u8: (0.0, 255.0)}


def legalize(func: Func) -> None:
    namer = Namer.of(func)
    body: list[Op] = []
    for op in func.body:
        if op.opname == "cmp" and _integer_tile_compare(op):
            body.extend(_legalize_compare(op, namer))
            continue
        if op.opname != "cast":
            body.append(op)
            continue
        src, dst = op.operands[0].type.dtype, op.result.type.dtype
        x, loc = op.operands[0], op.loc

        def make(name, operands, rtype, attrs=None):
            new = Op(name, operands, rtype, namer.fresh(), attrs or {}, loc)
            body.append(new)
            return new.result

        if src == f32 and dst in RANGES:
            t = make("cast", [x], x.type.with_dtype(i32), {"from": f32})
            f = make("cast", [t], x.type, {"from": i32})
            lo, hi = RANGES[dst]
            f = make("max", [f, make("const", [], ScalarType(f32), {"value": lo})], x.type)
            f = make("min", [f, make("const", [], ScalarType(f32), {"value": hi})], x.type)
            h = make("cast", [f], x.type.with_dtype(f16), {"from": f32})
            op.operands, op.attrs = [h], {"from": f16}
        elif src in RANGES and dst == f32:
            h = make("cast", [x], x.type.with_dtype(f16), {"from": src})
            op.operands, op.attrs = [h], {"from": f16}
        elif src == f32 and dst == bool_:
            zero = make("const", [], ScalarType(f32), {"value": 0.0})
            op.opname, op.operands, op.attrs = "cmp", [x, zero], {"pred": "ne"}
        body.append(op)
    func.body = body


def _integer_tile_compare(op: Op) -> bool:
    a, b = op.operands
    return any(isinstance(v.type, TensorType) for v in op.operands) and a.type.dtype.is_int


def _legalize_compare(op: Op, namer: Namer) -> list[Op]:
    out: list[Op] = []
    loc, pred = op.loc, op.attrs["pred"]
    a, b = op.operands
    mask_type = op.result.type

    def make(name, operands, rtype, attrs=None):
        new = Op(name, operands, rtype, namer.fresh(), attrs or {}, loc)
        out.append(new)
        return new.result

    def cast(v, dt):
        return make("cast", [v], v.type.with_dtype(dt), {"from": v.type.dtype})

    def const(value, dt):
        return make("const", [], ScalarType(dt), {"value": value})

    if a.type.dtype.bits == 8:  # i8/u8 are exact in f16
        op.operands = [cast(a, f16), cast(b, f16)]
        out.append(op)
        return out
    fa, fb = cast(a, f32), cast(b, f32)
    rounded = make("cmp", [fa, fb], mask_type, {"pred": pred})
    tie = make("cmp", [fa, fb], mask_type, {"pred": "eq"})
    diff = cast(make("sub", [a, b], _combined(a, b)), f32)
    exact = make("cmp", [diff, const(0.0, f32)], mask_type, {"pred": pred})
    one, zero = const(1.0, f16), const(0.0, f16)
    value_type = mask_type.with_dtype(f16)
    chosen = make(
        "where",
        [tie, make("where", [exact, one, zero], value_type), make("where", [rounded, one, zero], value_type)],
        value_type,
    )
    op.operands, op.attrs = [chosen, const(0.5, f16)], {"pred": "gt"}
    out.append(op)
    return out


def _combined(a, b):
    from dsl.ir.types import combine

    return combine([a.type, b.type], a.type.dtype)


@register
@dataclass(frozen=True)
class LegalizeCastsPass(FunctionPass):
    level: ClassVar[str] = "tensor"
    name: ClassVar[str] = "legalize-casts"

    def run_on(self, func) -> None:
        legalize(func)
