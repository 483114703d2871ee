"""lower-bools: ``&``, ``|``, ``~`` and ``bool_`` inputs in the forms the vector unit has.

On the vector unit a comparison's result is a bit mask (Compare), which Select consumes; a
``bool_`` input is one byte per element in UB, any nonzero byte meaning true. Takes tensor-level
IR after expand-math (so every ``where`` of bool branches already selects on conditions) and
before legalize-casts; afterwards every tensor ``where`` condition, cast of a bool and stored
bool is a comparison again, which legalize-casts and materialize-bools handle as before.

A bool tensor value gets two forms, each built once, where it is first needed:

* its 0/1 value in f16 (``as01``): a comparison ``c`` is ``where(c, 1, 0)``; an input ``m`` is
  ``min(cast(m, f16), 1)`` (the bytes widen to half exactly, so 2 or 255 become 1); ``a & b``
  is ``min``, ``a | b`` is ``max`` of the operands' 0/1 values; ``~a`` is ``1 - a``
  (``where(a, 0, 1)`` for a comparison);
* a bit mask (``mask``): a comparison is itself; an input is ``cast(m, f16) != 0``, ``~m``
  ``cast(m, f16) == 0``; any other value compares its 0/1 value with 0.

A tensor ``cast(x, bool_)`` becomes ``x != 0`` first (legalize-casts' form). Then
``where(v, ..)`` takes ``mask(v)``, ``cast(v, T)`` is ``cast(as01(v), T)`` (exact), a
comparison of bools (comparisons among them: ``(a > 0) < (b > 0)``) compares their 0/1 values, and a stored ``&``/``|``/``~`` is
``as01(v) > 0.5`` (materialize-bools stores that 0/1 value as bytes). A stored input stays a
copy. Only this pass casts a ``bool_`` input (not a comparison) to f16: legalize-casts keeps
that cast, Cast uint8 -> half on the bytes, and the result is only ever compared with 0 or
clamped by ``min(., 1)``, so the interpreter's 0/1 and the kernel's bytes give equal results.
Bool scalars (comparisons of Scalars and attributes, their casts to bool) stay as they are: the
scalar unit computes ``&&``, ``||``, ``!`` and the casts; a ``where`` on such a value selects on
``(v ? 1.0f : 0.0f) > 0.5f``.

    before:  %2 = and %1, %mask : tensor<*, bool>      (%1 = cmp %a, %0 {pred = "gt"})
             %3 = where %2, %x, %ninf : tensor<*, f32>
    after:   %4 = where %1, %one, %zero : tensor<*, f16>
             %5 = cast %mask {from = bool} : tensor<*, f16>
             %6 = min %5, %one : tensor<*, f16>
             %7 = min %4, %6 : tensor<*, f16>
             %8 = cmp %7, %zero {pred = "ne"} : tensor<*, bool>
             %3 = where %8, %x, %ninf : tensor<*, f32>
"""

from __future__ import annotations

from dsl.dtypes import bool_, f16, f32
from dsl.errors import CompileError
from dsl.ir import Func, Namer, Op, ScalarType, TensorType, Value

from .manager import function_pass
from .rewrite import erase_dead_ops

LOGIC = ("and", "or", "not")


class _Bools:
    def __init__(self, func: Func):
        self.namer = Namer.of(func)
        self.out: list[Op] = []
        self.loc = func.loc
        self.zero_one: dict[int, Value] = {}
        self.masks: dict[int, Value] = {}
        self.consts: dict[tuple, Value] = {}

    def op(self, name, operands, rtype, attrs=None) -> Value:
        new = Op(name, operands, rtype, self.namer.fresh(), attrs or {}, self.loc)
        self.out.append(new)
        return new.result

    def const(self, value, dt=f16) -> Value:
        if (value, dt) not in self.consts:
            self.consts[(value, dt)] = self.op("const", [], ScalarType(dt), {"value": value})
        return self.consts[(value, dt)]

    def widened(self, m: Value) -> Value:
        """A bool_ input's bytes as half (0 stays 0, a nonzero byte stays nonzero)."""
        return self.op("cast", [m], m.type.with_dtype(f16), {"from": bool_})

    def as01(self, v: Value) -> Value:
        """v's truth as 0.0/1.0 in f16."""
        if id(v) in self.zero_one:
            return self.zero_one[id(v)]
        t = v.type.with_dtype(f16)
        owner = v.owner
        if owner is None:
            r = self.op("min", [self.widened(v), self.const(1.0)], t)
        elif owner.opname in ("and", "or"):
            a, b = (self.as01(x) for x in owner.operands)
            r = self.op("min" if owner.opname == "and" else "max", [a, b], t)
        elif owner.opname == "not" and _is_compare(owner.operands[0]):
            r = self.op("where", [owner.operands[0], self.const(0.0), self.const(1.0)], t)
        elif owner.opname == "not":
            r = self.op("sub", [self.const(1.0), self.as01(owner.operands[0])], t)
        else:
            r = self.op("where", [self.mask(v), self.const(1.0), self.const(0.0)], t)
        self.zero_one[id(v)] = r
        return r

    def mask(self, v: Value) -> Value:
        """v as a comparison (a bit mask on the vector unit)."""
        owner = v.owner
        if (owner is not None and owner.opname == "cmp") or (
            owner is None and isinstance(v.type, ScalarType)
        ):
            return v
        if id(v) in self.masks:
            return self.masks[id(v)]
        if isinstance(v.type, ScalarType):  # && || !, a cast to bool: on the scalar unit
            one = self.op("where", [v, self.const(1.0, f32), self.const(0.0, f32)], ScalarType(f32))
            self.masks[id(v)] = self.op("cmp", [one, self.const(0.5, f32)], v.type, {"pred": "gt"})
            return self.masks[id(v)]
        if owner is not None and owner.opname not in LOGIC:
            raise CompileError(
                f"a bool value computed by '{owner.opname}' cannot be used as a condition by the "
                "backend yet; use a comparison or a bool_ input",
                owner.loc,
            )
        t = v.type
        if owner is None:  # (only tensors get here)
            r = self.op("cmp", [self.widened(v), self.const(0.0)], t, {"pred": "ne"})
        elif owner.opname == "not" and owner.operands[0].owner is None:
            r = self.op("cmp", [self.widened(owner.operands[0]), self.const(0.0)], t, {"pred": "eq"})
        else:
            r = self.op("cmp", [self.as01(v), self.const(0.0)], t, {"pred": "ne"})
        self.masks[id(v)] = r
        return r


def _is_compare(v: Value) -> bool:
    return v.owner is not None and v.owner.opname == "cmp"


def _needs_lowering(v: Value) -> bool:
    """A bool tensor that is not a comparison (an input or a result of & | ~)."""
    return (
        isinstance(v.type, TensorType)
        and v.type.dtype == bool_
        and (v.owner is None or v.owner.opname in LOGIC)
    )


def _bool_tensor(v: Value) -> bool:
    return isinstance(v.type, TensorType) and v.type.dtype == bool_


def _scalar_logic(v: Value) -> bool:
    """A bool scalar computed by && || ! (the scalar unit): a where condition compares it."""
    return isinstance(v.type, ScalarType) and v.owner is not None and v.owner.opname in LOGIC


def lower(func: Func) -> None:
    b = _Bools(func)
    for op in func.body:
        b.loc = op.loc
        if op.opname in LOGIC and isinstance(op.result.type, TensorType):
            continue  # built on demand from its operands' forms
        if op.opname == "cast" and op.result.type.dtype == bool_ and isinstance(op.result.type, TensorType):
            src = op.operands[0].type.dtype  # x != 0 (as legalize-casts writes it), so & | ~ take it
            zero = b.const(0.0 if src.is_float else 0, src)
            op.opname, op.operands, op.attrs = "cmp", [op.operands[0], zero], {"pred": "ne"}
        if (
            op.opname == "cast"
            and op.operands[0].type.dtype == bool_
            and isinstance(op.result.type, TensorType)
        ):
            src = op.operands[0]
            if _needs_lowering(src):
                x = b.as01(src)
                if op.result.type.dtype == f16:
                    func.replace_all_uses(op.result, x)
                    continue
                op.operands, op.attrs = [x], {"from": f16}
        elif op.opname == "where" and (_needs_lowering(op.operands[0]) or _scalar_logic(op.operands[0])):
            op.operands = [b.mask(op.operands[0]), *op.operands[1:]]
        elif op.opname == "cmp" and any(_bool_tensor(v) for v in op.operands):
            op.operands = [b.as01(v) for v in op.operands]  # comparisons too: Compare takes no bool
        b.out.append(op)
    returns = []
    for v in func.returns:
        if _needs_lowering(v) and v.owner is not None:
            b.loc = v.owner.loc
            v = b.op("cmp", [b.as01(v), b.const(0.5)], v.type, {"pred": "gt"})
        returns.append(v)
    func.body = b.out
    func.returns = returns
    erase_dead_ops(func)


LowerBoolsPass = function_pass("lower-bools", "tensor", lower)
