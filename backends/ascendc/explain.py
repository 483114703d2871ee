"""The UB ledger: every buffer of a kernel variant, the DSL values it holds, its size and slots."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from dsl.ir import Func


@dataclass
class BufferRow:
    name: str
    dsl_values: list[str]  # value names with their DSL line
    bytes_per_elem: int
    slots: int

    @property
    def bytes_per_tile_elem(self) -> int:
        return self.bytes_per_elem * self.slots


@dataclass
class Ledger:
    func: str
    tiling_key: int
    tile_elems: int
    ub_usable_bytes: int
    buffers: list[BufferRow]
    dtype: str = ""
    resident: list[tuple[str, list[str], int]] = None  # (name, values, bytes): one repeat each
    phased: int = 0  # buffers with a bank-group phase: plan-buffers reserved 256 B of padding each

    @property
    def resident_bytes(self) -> int:
        return sum(n for _, _, n in self.resident or [])

    @property
    def ub_used_bytes(self) -> int:
        tiles = sum(b.bytes_per_tile_elem for b in self.buffers) * self.tile_elems
        return tiles + self.resident_bytes + 256 * self.phased

    def lines(self) -> list[str]:
        out = [
            f"@{self.func} (T = {self.dtype}, tiling key {self.tiling_key}): tile = {self.tile_elems} elements"
        ]
        for b in self.buffers:
            size = b.bytes_per_tile_elem * self.tile_elems
            out.append(
                f"  {b.name}: {b.bytes_per_elem} B x {b.slots} slot(s) x {self.tile_elems} = {size:>7} B"
                f"  {', '.join(b.dsl_values)}"
            )
        for name, values, n in self.resident or []:
            out.append(f"  {name}: resident broadcast, one repeat = {n:>7} B  {', '.join(values)}")
        if self.phased:
            out.append(f"  bank-group pads: up to {self.phased} x 256 B = {256 * self.phased:>7} B  reserved")
        share = 100.0 * self.ub_used_bytes / self.ub_usable_bytes
        out.append(f"  total {self.ub_used_bytes} B of {self.ub_usable_bytes} B usable UB ({share:.1f}%)")
        return out


def func_ledger(func: Func, key: int, usable: int) -> Ledger:
    if func.attributes.get("layout") == "rows":  # row kernels: a UB formula in the run-time C
        from .explain_rows import row_ledger

        return row_ledger(func, key, usable)
    loop = func.loop()
    held: dict[str, list[str]] = {}
    for op in loop.region:
        if op.result is not None and "buf" in op.attrs:
            where = f" ({os.path.basename(op.loc.filename)}:{op.loc.line})" if op.loc else ""
            held.setdefault(op.attrs["buf"], []).append(f"%{op.result.name}{where}")
    rows = [
        BufferRow(name, held.get(name, []), b["bytes"], b["slots"])
        for name, b in func.attributes["buffers"].items()
    ]
    resident = []
    for op in func.body:
        if op.opname == "vec.dup" and "buf" in op.attrs:
            where = f" ({os.path.basename(op.loc.filename)}:{op.loc.line})" if op.loc else ""
            n = func.attributes["resident"][op.attrs["buf"]]["bytes"]
            resident.append((op.attrs["buf"], [f"%{op.result.name}{where}"], n))
    phased = sum(1 for b in func.attributes["buffers"].values() if "bank" in b)
    return Ledger(
        func.name,
        key,
        loop.attrs["tile"],
        usable,
        rows,
        str(func.attributes.get("dtype", "")),
        resident,
        phased,
    )


def matmul_lines(func: Func, key: int, target) -> list[str]:
    """A matmul variant: the cube tile and the epilogue's UB buffers (per AIV: 950 holds half a
    tile from the Fixpipe, 910B chunks of rows read from the workspace)."""
    from .kernel.cube import EpilogueRenderer, direct_output, epilogue_plan

    cube = func.attributes["cube"]
    T = func.attributes.get("dtype", "")
    head = f"@{func.name} (T = {T}, tiling key {key}): a matmul"
    if direct_output(func) is not None:
        return [
            f"{head}, cube tile {cube['base_m']} x {cube['base_n']} x {cube['base_k']} (BASE_M x BASE_N x "
            f"BASE_K), STEP_K {cube['step_k']}; an identity epilogue: the Fixpipe writes the output, no vector core"
        ]
    ep = epilogue_plan(func, EpilogueRenderer(func, T, target).render(), target)
    where = (
        "half a tile from the Fixpipe per AIV"
        if target.name == "ascend950"
        else f"{ep['chunk']} rows a step from the workspace"
    )
    lines = [
        f"{head} with an epilogue, cube tile {ep['base_m']} x {cube['base_n']} x {cube['base_k']} (BASE_M x "
        f"BASE_N x BASE_K), STEP_K {cube['step_k']}; the epilogue's UB: rows of PITCH = {ep['pitch']}, {where}"
    ]
    rows = func_ledger(func, key, target.ub_usable_bytes).lines()
    return lines + [x for x in rows if re.match(r"  b\d+: ", x)]


def explain_lines(func: Func, key: int, usable: int, target=None) -> list[str]:
    """What ``dslc compile --explain`` prints for one variant: its UB ledger (a matmul's: the cube
    tile and the epilogue's buffers, ``target`` given), then the vector path select-vector-path
    chose for its compute region, with the reason."""
    matmul = "cube" in func.attributes and target is not None
    lines = matmul_lines(func, key, target) if matmul else func_ledger(func, key, usable).lines()
    loop = func.loop()
    why = loop.attrs.get("vector_why") if loop is not None else None
    if why:
        lines.append(f"  vector path: {why}")
    if matmul and why and why.startswith("RegBase"):
        lines.append("  epilogue: one vector function per half tile (rows from UB, the chain in registers)")
    elif why and why.startswith("RegBase") and func.attributes.get("layout") == "rows":
        lines.append(
            "  column chunks stay MemBase: Welford per column in registers is not emitted yet (the chunked twin's"
            " steps are MemBase calls)"
        )
    return lines


def ledger(op, dtype, /, target: str = "ascend910b", **attrs) -> Ledger:
    """The ledger of the kernel variant ``op`` runs for ``dtype`` and ``attrs``."""
    from .compile import lower
    from .targets import get_target

    compiled = lower(op, target)
    values = op.check_attrs(attrs)
    static = {a.name: values[a.name] for a in op._def.attrs if a.static}
    dt = op.func(dtype).attributes["dtype"]
    for v in compiled.plan.variants:
        if v.dtype == dt and v.bind == static:
            return func_ledger(v.func, v.key, get_target(target).ub_usable_bytes)
    raise KeyError(f"no variant for {dtype} {static}")
