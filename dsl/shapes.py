"""Run-time shape checks of an operator's inputs against their symbolic annotations."""

from __future__ import annotations

import numpy as np

from .errors import ArgumentError

MAX_BROADCAST_RANK = 8


def check_shapes(op_name: str, decls, arrays: dict[str, np.ndarray | None], broadcast: bool) -> None:
    dims: dict[str, tuple[int, str]] = {}
    leading: tuple[tuple[int, ...], str] | None = None
    unshaped: list[tuple[str, tuple[int, ...]]] = []
    for d in decls:
        arr = arrays.get(d.name)
        if arr is None or d.is_scalar:
            continue
        shape = arr.shape
        if d.spec.dims is None:
            unshaped.append((d.name, shape))
            continue
        names = d.spec.dims
        if d.spec.ellipsis:
            if len(shape) < len(names):
                raise ArgumentError(
                    f"input '{d.name}' needs at least {len(names)} dims "
                    f"[..., {', '.join(map(str, names))}], got shape {shape}"
                )
            lead = shape[: len(shape) - len(names)]
            if leading is None:
                leading = (lead, d.name)
            elif leading[0] != lead:
                raise ArgumentError(
                    f"inputs '{leading[1]}' and '{d.name}' must have the same leading "
                    f"dims (the '...'), got {leading[0]} and {lead}"
                )
        elif len(shape) != len(names):
            raise ArgumentError(
                f"input '{d.name}' must have {len(names)} dims "
                f"[{', '.join(map(str, names))}], got shape {shape}"
            )
        for name, size in zip(names, shape[len(shape) - len(names) :]):
            if name == 1:
                if size != 1:
                    raise ArgumentError(
                        f"input '{d.name}' must have size 1 where its annotation says 1, "
                        f"got shape {shape}"
                    )
                continue
            if name in dims and dims[name][0] != size:
                other_size, other = dims[name]
                raise ArgumentError(
                    f"dim '{name}' is {other_size} in input '{other}' but {size} in " f"input '{d.name}'"
                )
            dims.setdefault(name, (size, d.name))
    if not unshaped:
        return
    if broadcast:
        out = broadcast_shape(op_name, unshaped)
        if len(out) > MAX_BROADCAST_RANK:
            raise ArgumentError(f"broadcasting supports up to {MAX_BROADCAST_RANK} dims, got {len(out)}")
        return
    first_name, first = unshaped[0]
    for n, s in unshaped[1:]:
        if s != first:
            raise ArgumentError(
                f"inputs '{first_name}' and '{n}' must have the same shape, got {first} and {s}"
                f" (declare broadcast=True on the op to broadcast)"
            )


def broadcast_shape(op_name: str, named: list[tuple[str, tuple[int, ...]]]) -> tuple[int, ...]:
    """numpy's broadcast shape of ``named`` (name, shape) pairs; the error names both inputs, their
    shapes and the axis (counted from the last, as broadcasting aligns them), as host tiling does."""
    rank = max((len(s) for _, s in named), default=0)
    dims = [1] * rank
    owner: list[tuple[str, tuple[int, ...]] | None] = [None] * rank
    for name, shape in named:
        for d, size in enumerate(shape):
            o = rank - len(shape) + d
            if size == 1 or size == dims[o]:
                continue
            if dims[o] == 1:
                dims[o], owner[o] = size, (name, shape)
                continue
            other, oshape = owner[o]
            raise ArgumentError(
                f"inputs of {op_name} do not broadcast: '{other}' {list(oshape)} and '{name}' {list(shape)} "
                f"differ at axis {o - rank} (counted from the last): {dims[o]} vs {size}"
            )
    return tuple(dims)


def output_shape(decls, arrays: dict[str, np.ndarray | None], out_type) -> tuple[int, ...] | None:
    """The run-time shape of an output of type ``out_type`` (named dims, '...'), from the inputs'
    shapes; None for an unshaped output (it has the inputs' shape)."""
    shape = out_type.shape
    if shape.unshaped:
        return None
    sizes: dict[str, int] = {}
    leading: tuple[int, ...] = ()
    for d in decls:
        arr = arrays.get(d.name)
        if arr is None or d.is_scalar or d.spec.dims is None:
            continue
        names = d.spec.dims
        if d.spec.ellipsis and len(arr.shape) >= len(names):
            leading = arr.shape[: len(arr.shape) - len(names)]
        for name, size in zip(names, arr.shape[len(arr.shape) - len(names) :]):
            if name != 1:
                sizes.setdefault(name, size)
    dims = tuple(1 if n == 1 else sizes[n] for n in shape.dims)
    return (leading if shape.ellipsis else ()) + dims
