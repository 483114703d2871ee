"""The UB ledger of a row kernel variant (``dslc compile --explain`` on a row operator).

A row kernel's UB is not one tile size: host tiling evaluates the plan-rows coefficients with
the run-time C. The ledger lists every buffer with its class (resident column, row, per-row
value), bytes x slots and the DSL values it holds, then the formula and the rows per step it
gives for a few row lengths (and, for the columns the step reads in f32, whether host tiling widens
them once per core or every step), and the longest row that still fits."""

from __future__ import annotations

import os
from dataclasses import dataclass

from dsl.ir import Func

from .host_rows import MAX_BLOCK_COUNT, row_plan_of
from .kernel.vector.membase_helpers import scratch_floats

SAMPLE_COLS = (1024, 4096, 8192, 16384)


def _round_up(x: int, to: int) -> int:
    return (x + to - 1) // to * to


def ub_bytes(rp: dict, pitch: int, cols: int, step: int, slots: int, wide: bool = False) -> int:
    """The generated TilingFunc's UbBytes: fixed area (``wide``: with the columns widened once)
    + ``step`` rows of ``slots`` slots."""
    scratch = scratch_floats(cols) * 4 if rp["scratch"] else 0
    row, perrow = (rp["row"], rp["perrow_bytes"]) if slots == 2 else (rp["row1"], rp["perrow_bytes1"])
    slot = _round_up(step * pitch, rp["count_align"])
    per_row = _round_up(step * rp["perrow"], rp["count_align"])
    return (
        _round_up(pitch, rp["count_align"]) * (rp["col"] + (rp.get("wide", 0) if wide else 0))
        + scratch
        + rp.get("extra", 0)
        + slot * row
        + per_row * perrow
    )


CHUNK_ALIGN = 64


def chunk_fit(rp: dict, cols: int, usable: int) -> tuple[int, int, int]:
    """(slots, colsPerLoop, chunks) of a column-chunked twin's plan ``rp`` for rows of ``cols``:
    chunks alternate between two slots when a chunk of 64 columns fits with two, else take one (the
    generated TilingFunc); (0, 0, 0) when not even one chunk of 64 columns fits (the host's error)."""
    for slots in (2, 1):
        fits = [
            k
            for k in range(1, (cols + CHUNK_ALIGN - 1) // CHUNK_ALIGN + 1)
            if ub_bytes(rp, _round_up(k * CHUNK_ALIGN, rp["align"]), k * CHUNK_ALIGN, 1, slots) <= usable
        ]
        if fits:
            per = min(fits[-1] * CHUNK_ALIGN, cols)
            chunks = -(-cols // per)
            if cols % chunks == 0:
                per = cols // chunks
            return slots, per, chunks
    return 0, 0, 0


def chunk_plan(rp: dict, cols: int, usable: int) -> tuple[int, int]:
    """(colsPerLoop, chunks) of ``chunk_fit``."""
    return chunk_fit(rp, cols, usable)[1:]


def row_step(
    rp: dict, cols: int, usable: int, rows_per_core: int = MAX_BLOCK_COUNT, wide: bool = False
) -> tuple[int, int]:
    """(slots, rowStep) host tiling picks for rows of ``cols`` elements; (0, 0) when none fits
    (the same arithmetic as the generated TilingFunc's FitStep; ``wide``: with the columns the step
    reads in f32 widened once)."""
    pitch = _round_up(max(cols, 1), rp["align"])
    scratch = scratch_floats(cols) * 4 if rp["scratch"] else 0
    col = rp["col"] + (rp.get("wide", 0) if wide else 0)
    fixed = _round_up(pitch, rp["count_align"]) * col + scratch + rp.get("extra", 0)  # colLen_, scratch
    for slots, row, perrow in ((2, rp["row"], rp["perrow_bytes"]), (1, rp["row1"], rp["perrow_bytes1"])):
        step = min(rows_per_core, MAX_BLOCK_COUNT)
        while step > 0:
            slot = _round_up(step * pitch, rp["count_align"])
            per_row = _round_up(step * rp["perrow"], rp["count_align"])
            if fixed + slot * row + per_row * perrow <= usable:
                return slots, step
            if step == 1:
                break
            # first guess from the linear part, then count down for the rounding to whole repeats
            guess = (usable - fixed) // (pitch * row + rp["perrow"] * perrow) if usable > fixed else 0
            step = min(step - 1, max(guess, 1))
    return 0, 0


def widens_once(rp: dict, cols: int, usable: int, rows_per_core: int = MAX_BLOCK_COUNT) -> bool:
    """Host tiling keeps f32 copies of the columns the step widens (only the first step widens)
    when they (``wide`` bytes per column) cost the step no rows and no slot (the TilingFunc)."""
    if not rp.get("wide"):
        return False
    narrow = row_step(rp, cols, usable, rows_per_core)
    return narrow[1] > 0 and row_step(rp, cols, usable, rows_per_core, wide=True) == narrow


def longest_row(rp: dict, usable: int, slots: int) -> int:
    """The largest C (a multiple of 8) for which one row fits with ``slots`` slots."""
    lo, hi = 0, usable
    while lo < hi:
        mid = (lo + hi + 1) // 2
        got = row_step(rp, mid * 8, usable, 1)
        if got[1] and (slots == 1 or got[0] == 2):
            lo = mid
        else:
            hi = mid - 1
    return lo * 8


@dataclass
class RowLedger:
    func: str
    tiling_key: int
    dtype: str
    usable: int
    plan: dict
    buffers: list[tuple[str, str, int, int, list[str]]]  # name, kind, bytes, slots, values
    chunked: dict | None = None  # the column-chunked twin's plan
    chunk_passes: str = ""  # the twin's passes over a row's chunks, and what shares one

    def lines(self) -> list[str]:
        rp = self.plan
        out = [
            f"@{self.func} (T = {self.dtype}, tiling key {self.tiling_key}): rows of C elements at a pitch of "
            f"C rounded up to {rp['align']}; a step of rowStep rows"
        ]
        per = {
            "col": "x pitch (resident)",
            "row": "x rowStep x pitch",
            "perrow": f"x rowStep x {rp['perrow']}",
        }
        for name, kind, width, slots, values in self.buffers:
            out.append(f"  {name}: {kind:<6} {width} B x {slots} slot(s) {per[kind]:<20} {', '.join(values)}")
        if rp.get("wide"):
            out.append(
                f"  wide:  {rp['wide']} B x pitch (resident)   f32 copies of the columns widened per step, kept "
                "for the core (widened once) when that costs the step no rows"
            )
        if rp["scratch"]:
            out.append("  scratch: reductions, 4 B x (8 x ceil(C / 64) + 8 x ceil(C / 512) + 8)")
        if rp.get("extra"):
            out.append(
                f"  pads:  {rp['extra']} B at most, fixed (UB bank groups: ReduceRows' work area, buffers "
                "starting at their phase)"
            )
        wide = f" (+ {rp['wide']} widened once)" if rp.get("wide") else ""
        out.append(
            f"  UB = pitch x {rp['col']}{wide} + scratch{' + pads' if rp.get('extra') else ''} + rowStep x (pitch x {rp['row']} + {rp['perrow']} x "
            f"{rp['perrow_bytes']}) <= {self.usable} B usable (one slot: pitch x {rp['row1']} + {rp['perrow']} x "
            f"{rp['perrow_bytes1']} per row)"
        )
        steps = []
        for cols in SAMPLE_COLS:
            slots, step = row_step(rp, cols, self.usable)
            once = " (columns widened once)" if widens_once(rp, cols, self.usable) else ""
            steps.append(
                f"C={cols}: " + (f"{step}" + (" (one slot)" if slots == 1 else "") + once if step else "none")
            )
        out.append("  rows per step: " + ", ".join(steps))
        longest = (
            f"  longest row: {longest_row(rp, self.usable, 2)} columns with two slots, "
            f"{longest_row(rp, self.usable, 1)} with one"
        )
        if self.chunked is None:
            out.append(longest + " (longer rows: a host error)")
            return out
        out.append(longest + "; longer rows go in column chunks, one row at a time:")
        chunks = []
        for cols in (16384, 131072, 200000):
            if row_step(rp, cols, self.usable)[1]:
                continue
            slots, per, n = chunk_fit(self.chunked, cols, self.usable)
            one = " (one slot)" if slots == 1 else ""
            chunks.append(f"C={cols}: {n} x {per}{one}" if per else f"C={cols}: none fits")
        c = self.chunked
        out.append(
            f"  chunk UB = pitch x ({c['col']} + {c['row']}) + scratch + {c.get('extra', 0)} + {c['perrow']} x "
            f"{c['perrow_bytes1']}, chunks alternating between two slots (one slot: pitch x ({c['col']} + "
            f"{c['row1']}) + ...); chunks x columns: " + (", ".join(chunks) or "-")
        )
        if self.chunk_passes:
            out.append(f"  {self.chunk_passes}")
        return out


def row_ledger(func: Func, key: int, usable: int) -> RowLedger:
    from passes.chunk_rows import ONLINE, chunked_twin

    from passes.rows import COL, layout_of

    layout = layout_of(func)
    kind = layout.kind
    kinds = {name: b["kind"] for name, b in func.attributes["buffers"].items()}
    held: dict[str, list[str]] = {}
    for op in func.walk():
        if op.result is not None and "buf" in op.attrs:
            where = f" ({os.path.basename(op.loc.filename)}:{op.loc.line})" if op.loc else ""
            what = ""
            if op.opname == "vec.brcb":
                what = " [Brcb blocks]"
            elif kind(op.result.type) == COL and kinds[op.attrs["buf"]] != COL:
                what = " [column, widened per step]"
            elif op.opname == "dma.load" and layout.is_block(op.operands[0].type):
                what = f" [block [{op.operands[0].type.shape}], repeated along the leading dims: copied per step]"
            held.setdefault(op.attrs["buf"], []).append(f"%{op.result.name}{where}{what}")
    bufs = [
        (name, b["kind"], b["bytes"], b["slots"], held.get(name, []))
        for name, b in func.attributes["buffers"].items()
    ]
    twin = chunked_twin(func)
    together = [
        what
        for what, found in (
            ("a mean and its variance (Welford)", any(op.attrs.get("welford") for op in twin.walk())),
            (
                "a max and the sum of exp(x - max) (online softmax)",
                any(op.opname == ONLINE for op in twin.walk()),
            ),
        )
        if found
    ]
    passes = (
        f"{twin.attributes['phases']} passes over each row's chunks (a reduction level each, then the outputs"
    )
    passes += f"; in one pass: {', '.join(together)})" if together else ")"
    return RowLedger(
        func.name,
        key,
        str(func.attributes.get("dtype", "")),
        usable,
        row_plan_of(func),
        bufs,
        row_plan_of(twin),
        passes,
    )


__all__ = [
    "RowLedger",
    "row_ledger",
    "row_step",
    "longest_row",
    "chunk_fit",
    "chunk_plan",
    "ub_bytes",
    "widens_once",
]
