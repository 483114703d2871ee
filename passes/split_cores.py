"""split-cores: how host tiling divides the flat range between AI cores.

Takes a tile-level function; records ``split = {granule = G, min_per_core = M}`` for the host:
the range is cut into blocks of G elements (512 bytes of the narrowest GM tensor, so every
core's slice starts 512-byte aligned; 32 bytes in a broadcast kernel), ``used = min(cores, ceil(N / M))`` cores take part (tiny
inputs use fewer cores; M is 4 KiB of the narrowest tensor), each gets ``blocks / used``
blocks and the first ``blocks % used`` cores one more (seed 000, 3.2.1.1). The last block may
be partial; a core with no elements still pairs every flag it pre-issues.

    after:  attributes {..., split = {granule = 8, min_per_core = 1024}}
"""

from __future__ import annotations

from dsl.ir import Func

from .manager import function_pass

MIN_BYTES_PER_CORE = 4096
BLOCK_BYTES = 32
# A flat kernel's core slices are whole 512-byte units of the narrowest GM tensor: a GM address
# not 512 B aligned can fall to 70% of a core's copy rate (perf-constants pc section 3,
# "GM地址尽量512B对齐"). Broadcast kernels keep 32-byte blocks (their row pitch is built from them).
SLICE_BYTES = 512


def narrowest_gm_bytes(loop) -> int:
    """The element size of the narrowest tensor the tile loop copies in or out (4 with none)."""
    widths = [op.result.type.dtype.bytes for op in loop.region if op.opname == "dma.load"]
    widths += [op.operands[0].type.dtype.bytes for op in loop.region if op.opname == "dma.store"]
    return min(widths, default=4)


def split(func: Func) -> None:
    """``split = {granule, min_per_core}`` from the narrowest GM tensor of the tile loop."""
    loop = func.loop()
    if loop is None:
        return
    narrowest = narrowest_gm_bytes(loop)
    unit = BLOCK_BYTES if func.attributes.get("broadcast") else SLICE_BYTES
    func.attributes["split"] = {
        "granule": unit // narrowest,
        "min_per_core": MIN_BYTES_PER_CORE // narrowest,
    }


SplitCoresPass = function_pass("split-cores", "any", split)
