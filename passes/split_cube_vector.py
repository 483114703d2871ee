"""split-cube-vector: an operator with ``@`` as a cube part and a vector epilogue (DESIGN section 5).

Takes a tensor-level function with one ``matmul`` (after specialize). The matmul leaves the
function: its operands stop being parameters of it and its result becomes a new f32 (i32 for
i8) parameter ``%acc`` of the matmul's [M, N] type, which the vector cores read (910B: from a
GM workspace the cube cores write with Fixpipe; 950: from UB). What remains is the *epilogue*,
a row function over rows of N (``[M, N]`` values, ``[N]`` columns, ``[M, 1]`` per-row values,
Scalars) that the row passes tile from the UB as they do any row operator. The cube part is
recorded on the function:

    cube = {a = "x", b = "w", transpose_b = true, operand = f16, acc = "acc",
            base_m = 128, base_n = 128, base_k = 128, step_k = 4,
            l0c_slots = 2, l0ab_slots = 2, l1_slots = 2, order = "serpentine"}

Tiling, from the target's capacities (the pass options, ``targets.Target``'s l1/l0a/l0b/l0c):

* ``base_m`` x ``base_n`` is one output tile in L0C, f32/i32, with ``l0c_slots = 2`` (the Mmad of
  the next tile while Fixpipe drains this one): ``base_m = 128`` (8 fractal rows; M is split over
  the two AIVs of a block, 64 rows each) and ``base_n`` the largest multiple of 16 up to 256 with
  ``2 * base_m * base_n * 4 <= l0c`` (910B: 128, 950: 256);
* ``base_k``: the largest multiple of 16 elements up to 256 with both L0A (``base_m x base_k``)
  and L0B (``base_k x base_n``) double-buffered (``l0ab_slots = 2``) in their 64 KiB;
* ``step_k``: how many ``base_k`` slices one L1 load carries (kL1 = step_k * base_k), the
  largest power of two (at most 8) with A's and B's slices ping-ponged (``l1_slots = 2``) in L1.

* ``full_row`` (an epilogue with a reduction along N: RMSNorm, softmax, LayerNorm over the
  product's rows): one tile must hold every column, so ``base_m = 16`` (one fractal row) and
  ``base_n`` the widest multiple of 16 with two 16 x base_n f32 tiles in L0C and two base_n wide,
  one-fractal (32 bytes of K) deep slices in L0B: 1024 on both targets (910B's L0C would allow
  1024, 950's 2048; L0B allows 1024 for f16/bf16 and i8 alike), base_k = 16 (i8: 32). Host
  tiling rejects N > base_n (TilingFunc names N and the limit); N is never static in the DSL
  (only a literal 1 is), so there is no compile-time form of that error.

Host tiling shrinks base_m/base_n to the problem (M = 1 takes one 16-row fractal) and cuts M and
N into tiles with tails; ``order = "serpentine"`` names the tile walk (the AI cores take tiles
t = block, block + cores, ...; tile t is row-block t / tilesN and, in odd row-blocks, column
block tilesN - 1 - t % tilesN, so consecutive tiles share their A rows or their B columns).
Operands used by the epilogue too (``x @ w + x``) are a CompileError at that use: the cube
reads them as [M, K]/[K, N] operands, the epilogue only sees [M, N], [N] and [M, 1] values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.errors import CompileError
from dsl.ir import Func, Param, Value

from .manager import FunctionPass, register

FRACTAL = 16  # cube fractal edge (16 x 16 x C0): M and N tiles are whole fractals
ACC_BYTES = 4  # f32 / i32 in L0C
SLOTS = 2  # L0C, L0A/L0B and L1 each ping-pong
BASE_M = 128
MAX_BASE_N = 256
MAX_BASE_K = 256
MAX_STEP_K = 8


def full_row_n(operand_bytes: int, l0b: int, l0c: int) -> int:
    """The widest output tile (a multiple of 16) one 16-row fractal row high: L0C holds two
    16 x base_n f32/i32 tiles and L0B two base_n wide slices one fractal deep (32 bytes of K)."""
    c0 = max(FRACTAL, 32 // operand_bytes)
    by_l0c = l0c // (SLOTS * FRACTAL * ACC_BYTES)
    by_l0b = l0b // (SLOTS * c0 * operand_bytes)
    return min(by_l0c, by_l0b) // FRACTAL * FRACTAL


def cube_tiling(operand_bytes: int, l1: int, l0a: int, l0b: int, l0c: int, full_row: bool = False) -> dict:
    """base_m, base_n, base_k, step_k from the capacities (bytes) and the operand element size;
    ``full_row`` (a reduction along N in the epilogue): one tile spans every column, base_m = 16
    and base_n = ``full_row_n``."""
    base_m = FRACTAL if full_row else BASE_M
    base_n = min(MAX_BASE_N, l0c // (SLOTS * base_m * ACC_BYTES) // FRACTAL * FRACTAL)
    if full_row:
        base_n = full_row_n(operand_bytes, l0b, l0c)
    if base_n < FRACTAL:
        raise CompileError(f"L0C of {l0c} bytes holds no {SLOTS} x {base_m} x 16 f32 tiles")
    k_a = l0a // (SLOTS * base_m * operand_bytes)
    k_b = l0b // (SLOTS * base_n * operand_bytes)
    c0 = max(FRACTAL, 32 // operand_bytes)  # K per fractal row: 32 bytes (16 f16/bf16, 32 i8)
    base_k = min(MAX_BASE_K, k_a, k_b) // c0 * c0
    if base_k < FRACTAL:
        raise CompileError(f"L0A/L0B of {l0a}/{l0b} bytes hold no double-buffered 16-deep slice")
    step_k = MAX_STEP_K
    while step_k > 1 and SLOTS * step_k * (base_m + base_n) * base_k * operand_bytes > l1:
        step_k //= 2
    if SLOTS * step_k * (base_m + base_n) * base_k * operand_bytes > l1:
        raise CompileError(f"L1 of {l1} bytes holds no ping-ponged base_k slice of A and B")
    return {"base_m": base_m, "base_n": base_n, "base_k": base_k, "step_k": step_k}


def split(func: Func, l1: int, l0a: int, l0b: int, l0c: int) -> None:
    mms = [op for op in func.body if op.opname == "matmul"]
    if not mms:
        return
    mm = mms[0]
    a, b = mm.operands
    for op in func.walk():
        if op is mm:
            continue
        for v in op.operands:
            if v is a or v is b:
                raise CompileError(
                    f"input '{v.name}' is a matmul operand ([M, K] / [K, N]) and is used by the epilogue "
                    "too; the epilogue reads only [M, N], [N] and [M, 1] tensors and Scalars (pass it twice)",
                    op.loc,
                )
    if any(v is a or v is b for v in func.returns):
        raise CompileError("a matmul operand is returned as an output; the epilogue cannot copy it", mm.loc)
    taken = {p.value.name for p in func.params} | {op.result.name for op in func.walk() if op.result}
    name = "acc"
    while name in taken:
        name += "_"
    acc = Value(name, mm.result.type)
    func.replace_all_uses(mm.result, acc)
    func.body.remove(mm)
    func.params = [Param(acc, pinned=True)] + [
        p for p in func.params if p.value is not a and p.value is not b
    ]
    full_row = any(op.opname == "reduce" for op in func.walk())
    tiling = cube_tiling(a.type.dtype.bytes, l1, l0a, l0b, l0c, full_row)
    func.attributes["cube"] = {
        "a": a.name,
        "b": b.name,
        "transpose_b": bool(mm.attrs.get("transpose_b")),
        "operand": a.type.dtype.name,
        "acc": name,
        **tiling,
        **({"full_row": True} if full_row else {}),
        "l0c_slots": SLOTS,
        "l0ab_slots": SLOTS,
        "l1_slots": SLOTS,
        "order": "serpentine",
        "line": mm.loc.line if mm.loc is not None else 0,
    }


@register
@dataclass(frozen=True)
class SplitCubeVectorPass(FunctionPass):
    """Options: the AI Core's L1, L0A, L0B and L0C bytes (``targets.Target``; 910B defaults)."""

    name: ClassVar[str] = "split-cube-vector"
    level: ClassVar[str] = "tensor"
    l1: int = 512 * 1024
    l0a: int = 64 * 1024
    l0b: int = 64 * 1024
    l0c: int = 128 * 1024

    def run_on(self, func) -> None:
        split(func, self.l1, self.l0a, self.l0b, self.l0c)
