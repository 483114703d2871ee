"""Reference interpreter: runs a function with numpy under the DSL's numeric semantics.

Floats are computed in float32 (f16/bf16 inputs widened on load); outputs are rounded to
their dtype with round-to-nearest-even on store. Static ops are evaluated from the attribute
bindings, so generic (unspecialized) IR runs too. A value computed from an absent optional
input is itself absent; returning it for a required output is an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ArgumentError
from .core import Func
from .ops import compute_np
from .types import dtype_of


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT = _Absent()


def _static(op, env, attrs: dict[str, Any]):
    name = op.opname
    if name == "static.flag":
        return bool(attrs[op.attrs["name"]])
    if name == "static.is":
        return attrs[op.attrs["name"]] == op.attrs["value"]
    a = [env[id(v)] for v in op.operands]
    if name == "static.not":
        return not a[0]
    if name == "static.and":
        return a[0] and a[1]
    if name == "static.or":
        return a[0] or a[1]
    if name == "static.select":
        return a[1] if a[0] else a[2]
    raise AssertionError(name)


def _run_ops(ops, env: dict[int, Any], attrs: dict[str, Any], stored: dict[str, Any]) -> None:
    for op in ops:
        name = op.opname
        if name.startswith("static."):
            env[id(op.result)] = _static(op, env, attrs)
            continue
        if name == "none":
            env[id(op.result)] = ABSENT
            continue
        if name == "loop.tiles":  # elementwise: the whole range is one tile
            _run_ops(op.region, env, attrs, stored)
            continue
        if name.startswith("sync.") or name == "bcast.fill":  # the tile already holds the input's values
            continue
        args = [env[id(v)] for v in op.operands]
        if name == "dma.store":
            stored[op.attrs["output"]] = args[0]
            continue
        if any(a is ABSENT for a in args):
            env[id(op.result)] = ABSENT
            continue
        dt = dtype_of(op.result.type)
        if name == "const":
            env[id(op.result)] = np.full((1,), op.attrs["value"], dtype=compute_np(dt))
        elif name == "attr":
            env[id(op.result)] = np.full((1,), attrs[op.attrs["name"]], dtype=compute_np(dt))
        else:
            value = np.asarray(op.spec.interp(args, op.attrs, op.result.type))
            if op.attrs.get("rounds"):  # an f16 instruction's result (native-f16), rounded to f16
                with np.errstate(over="ignore"):
                    value = value.astype(dt.np).astype(value.dtype)
            env[id(op.result)] = value


def check_attr_values(func: Func, attrs: dict[str, Any]) -> None:
    """A run-time int attribute takes the integer type of what it is combined with; a value
    outside that type's range is an error (not a silent wrap-around)."""
    for op in func.walk():
        if op.opname != "attr":
            continue
        dt = dtype_of(op.result.type)
        name = op.attrs["name"]
        value = attrs.get(name)
        if dt.is_int and value is not None and not (dt.np_info.min <= value <= dt.np_info.max):
            where = f" (line {op.loc.line})" if op.loc is not None else ""
            raise ArgumentError(
                f"attribute '{name}' = {value} does not fit {dt} ({dt.np_info.min} to {dt.np_info.max}), "
                f"the type it takes in the operator{where}"
            )


def run_func(func: Func, inputs: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> list:
    """Outputs in storage dtypes (``None`` for an absent optional output).

    ``inputs`` holds arrays already in their storage dtype; Scalars as shape-(1,) arrays.
    ``attrs`` must bind every declared attribute.
    """
    check_attr_values(func, attrs)
    env: dict[int, Any] = {}
    for p in func.params:
        arr = inputs.get(p.value.name)
        if arr is None:
            env[id(p.value)] = ABSENT
        else:
            env[id(p.value)] = np.asarray(arr).astype(compute_np(dtype_of(p.value.type)), copy=False)
    stored: dict[str, Any] = {}
    _run_ops(func.body, env, attrs, stored)
    if func.attributes.get("level") == "tile":
        returns = [stored.get(out.name, ABSENT) for out in func.outputs]
    else:
        returns = [env[id(v)] for v in func.returns]
    outs = []
    for val, out in zip(returns, func.outputs):
        if val is ABSENT:
            if not out.optional:
                raise ArgumentError(f"output '{out.name}' needs an optional input that was not given (None)")
            outs.append(None)
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            outs.append(np.asarray(val).astype(dtype_of(out.type).np))
    return outs
