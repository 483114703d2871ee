"""Who touches which tile value, on which pipe: the facts buffer planning and sync insertion use."""

from __future__ import annotations

from dataclasses import dataclass

from dsl.ir import Op, TensorType


def pipe_of(op: Op) -> str:
    if op.opname == "dma.load":
        return "MTE2"
    if op.opname == "dma.store":
        return "MTE3"
    if op.opname.startswith("sync."):
        return "S"
    return "V"


SCALAR_FORMS = ("vec.adds", "vec.muls", "vec.maxs", "vec.mins")


def read_pipe(op: Op, k: int) -> str:
    """The pipe that reads operand ``k`` of ``op``: in a row function the scalar unit reads a
    per-row value once per row (``GetValue``) for ``vec.adds %row, %m`` and ``vec.brc %m``; a
    vector function (``vf``) loads it into a register (V)."""
    if "vf" in op.attrs:
        return pipe_of(op)
    if op.opname in SCALAR_FORMS and k == 1 and isinstance(op.operands[1].type, TensorType):
        return "S"
    if op.opname == "vec.brc" and op.attrs.get("of") == "perrow":
        return "S"
    if (
        op.opname == "welford.var" and k == 1 and not op.attrs.get("blocks")
    ):  # -mean, once per row (chunk_rows)
        return "S"
    return pipe_of(op)


@dataclass(frozen=True)
class Access:
    index: int  # position in the loop body
    pipe: str
    value: object  # the tile Value
    write: bool


def tile_values(op: Op) -> list:
    return [v for v in op.operands if isinstance(v.type, TensorType)]


def accesses(body: list[Op]) -> list[Access]:
    out = []
    for i, op in enumerate(body):
        if op.opname.startswith("sync."):
            continue
        pipe = pipe_of(op)
        for v in tile_values(op):
            if op.opname != "dma.load":
                out.append(Access(i, pipe, v, False))
        if op.result is not None and isinstance(op.result.type, TensorType):
            out.append(Access(i, pipe, op.result, True))
    return out


def stored_values(body: list[Op]) -> set[int]:
    return {id(op.operands[0]) for op in body if op.opname == "dma.store"}


def mte_values(body: list[Op]) -> set[int]:
    """Values a DMA touches: loaded ones and stored ones."""
    loaded = {id(op.result) for op in body if op.opname == "dma.load"}
    return loaded | stored_values(body)
