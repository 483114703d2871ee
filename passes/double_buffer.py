"""double-buffer: give every tile a DMA touches two UB slots (ping-pong).

Takes a tile-level function; marks ``slots = 2`` on each ``dma.load`` and on each op whose
result is stored, so tile t+1's copy-in (MTE2) and tile t-1's copy-out (MTE3) overlap tile t's
vector work. Values only the vector unit touches keep one slot. ``double-buffer{slots=1}``
turns it off (one slot everywhere, the loop then runs the pipes in lock step).

Whether a core has more than one tile is known only at run time (the host splits the range), so
the kernel decides: with ``tiles_ < 2`` it pre-issues and drains the reverse flags of slot 0
only (``slotsUsed``) and never touches the second slot; the UB of the second slot stays reserved
(the tile length is a compile-time constant).

    before:  %x_t = dma.load %x : tensor<*, f32>
    after:   %x_t = dma.load %x {slots = 2} : tensor<*, f32>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dsl.ir import Module

from .analysis.access import mte_values
from .manager import Pass, PassError, register


@register
@dataclass(frozen=True)
class DoubleBufferPass(Pass):
    name: ClassVar[str] = "double-buffer"
    slots: int = 2

    def run(self, module: Module) -> None:
        if self.slots not in (1, 2):
            raise PassError("double-buffer{slots=...} takes 1 or 2")
        for func in module.funcs:
            loop = func.loop()
            if loop is None:
                continue
            dma = mte_values(loop.region)
            for op in loop.region:
                if op.result is not None and id(op.result) in dma:
                    op.attrs["slots"] = self.slots
            loop.attrs["slots"] = self.slots
