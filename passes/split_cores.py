"""split-cores: how host tiling divides the flat range between AI cores.

Takes a tile-level function; records ``split = {granule = G, min_per_core = M}`` for the host:
the range is cut into blocks of G elements (32 bytes of the narrowest GM tensor, so every
core's slice starts 32-byte aligned), ``used = min(cores, ceil(N / M))`` cores take part (tiny
inputs use fewer cores; M is 4 KiB of the narrowest tensor), each gets ``blocks / used``
blocks and the first ``blocks % used`` cores one more (seed 000, 3.2.1.1). The last block may
be partial; a core with no elements still pairs every flag it pre-issues.

    after:  attributes {..., split = {granule = 8, min_per_core = 1024}}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.ir import Module

from .manager import Pass, register

MIN_BYTES_PER_CORE = 4096
BLOCK_BYTES = 32


@register
@dataclass(frozen=True)
class SplitCoresPass(Pass):
    name: ClassVar[str] = "split-cores"

    def run(self, module: Module) -> None:
        for func in module.funcs:
            loop = func.loop()
            if loop is None:
                continue
            widths = [op.result.type.dtype.bytes for op in loop.region if op.opname == "dma.load"]
            widths += [op.operands[0].type.dtype.bytes for op in loop.region if op.opname == "dma.store"]
            narrowest = min(widths, default=4)
            func.attributes["split"] = {
                "granule": BLOCK_BYTES // narrowest,
                "min_per_core": MIN_BYTES_PER_CORE // narrowest,
            }
