"""specialize: one function per combination of static (bool / Literal) attributes.

Takes tensor-level IR with ``static.*`` ops; produces functions where every static condition
is resolved, the untaken branches are gone, and each function carries ``bind`` (the static
values) and ``tiling_key``. The key is the mixed-radix index of the combination in attribute
declaration order, so it does not depend on which subset was requested.

    before:  %p = static.flag {name = "maximize"} : pred
             %gt = static.select %p, %0, %grad : tensor<*, f32>
    after (maximize = false), attributes {bind = {maximize = false}, tiling_key = 0}:
             (uses of %gt now use %grad; %p, %0 and %gt are erased)
    (maximize = true): %0 takes the select's name, %gt: an anonymous value chosen by a named
    select is what the user named.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dsl.ir import Func, Module

from .manager import Pass, PassError, register
from .rewrite import erase_dead_ops


def static_choices(func: Func) -> list[tuple[str, tuple]]:
    out = []
    for a in func.attr_decls:
        if a.kind == "bool":
            out.append((a.name, (False, True)))
        elif a.kind == "literal":
            out.append((a.name, a.choices))
    return out


def tiling_key(func: Func, bind: dict[str, Any]) -> int:
    key, stride = 0, 1
    for name, choices in static_choices(func):
        key += choices.index(bind[name]) * stride
        stride *= len(choices)
    return key


def resolve(func: Func, bind: dict[str, Any]) -> Func:
    """A copy of ``func`` with static ops folded under ``bind`` and dead ops removed."""
    f = copy.deepcopy(func)
    values: dict[int, bool] = {}
    for op in f.body:
        name = op.opname
        if name == "static.flag":
            values[id(op.result)] = bool(bind[op.attrs["name"]])
        elif name == "static.is":
            values[id(op.result)] = bind[op.attrs["name"]] == op.attrs["value"]
        elif name == "static.not":
            values[id(op.result)] = not values[id(op.operands[0])]
        elif name in ("static.and", "static.or"):
            a, b = (values[id(v)] for v in op.operands)
            values[id(op.result)] = (a and b) if name == "static.and" else (a or b)
        elif name == "static.select":
            chosen = op.operands[1] if values[id(op.operands[0])] else op.operands[2]
            f.replace_all_uses(op.result, chosen)
            if chosen.owner is not None and chosen.name.isdigit() and not op.result.name.isdigit():
                chosen.name = op.result.name  # `x = a + b if p else a`: the sum is x (the select goes)
    erase_dead_ops(f)
    return f


@register
@dataclass(frozen=True)
class SpecializePass(Pass):
    """Options are static attribute values to fix (e.g. ``specialize{amsgrad=true}``); the
    remaining static attributes are enumerated."""

    name: ClassVar[str] = "specialize"
    accepts_any_option: ClassVar[bool] = True
    bind: tuple = field(default=())

    @classmethod
    def from_options(cls, opts: dict[str, Any]) -> "SpecializePass":
        return cls(tuple(sorted(opts.items())))

    def spelling(self) -> str:
        if not self.bind:
            return self.name

        def fmt(v):
            return ("true" if v else "false") if isinstance(v, bool) else str(v)

        return self.name + "{" + ",".join(f"{k}={fmt(v)}" for k, v in self.bind) + "}"

    def run(self, module: Module) -> None:
        fixed = dict(self.bind)
        out = []
        for func in module.funcs:
            if "bind" in func.attributes:
                out.append(func)  # already specialized
                continue
            choices = static_choices(func)
            names = {n for n, _ in choices}
            for k, v in fixed.items():
                if k not in names:
                    raise PassError(f"@{func.name} has no static attribute '{k}'")
                allowed = dict(choices)[k]
                if v not in allowed:
                    raise PassError(f"'{v}' is not a value of static attribute '{k}' ({list(allowed)})")
            axes = [(n, (fixed[n],) if n in fixed else c) for n, c in choices]
            binds = [
                dict(zip((n for n, _ in axes), combo)) for combo in itertools.product(*(c for _, c in axes))
            ]
            binds.sort(key=lambda b: tiling_key(func, b))
            combos = binds
            for bind in binds:
                f = resolve(func, bind)
                key = tiling_key(func, bind)
                if len(combos) > 1:
                    f.name = f"{func.name}_k{key}"
                f.attributes = {**func.attributes, "bind": bind, "tiling_key": key}
                out.append(f)
        module.funcs = out
