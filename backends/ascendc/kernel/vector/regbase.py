"""RegBase: vector functions (``__simd_vf__``, Reg::RegTensor) for ascend950. Not implemented
yet: every entry refuses with a CompileError, so a region routed here never yields code."""

from __future__ import annotations

from dsl.errors import CompileError

from ...cann import DEFAULT_CANN
from .base import Region, VecOp

NOT_YET = "RegBase vector functions are not implemented yet"


class RegBase:
    path = "regbase"

    def __init__(self, target=None, cann: str = DEFAULT_CANN):
        self.target, self.cann = target, cann

    @staticmethod
    def refuse(op=None) -> CompileError:
        return CompileError(NOT_YET, op.loc if op is not None else None)

    def check(self, op) -> None:
        raise self.refuse(op)

    def op(self, vop: VecOp, ctx):
        raise self.refuse(vop.op)

    def render_region(self, region: Region, ctx):
        first = region.items[0] if region.items else None
        raise self.refuse(first.op if isinstance(first, VecOp) else first)

    def barrier(self, loc=None, note=None, weight: int = 1):
        raise self.refuse()

    def barrier_line(self):
        raise self.refuse()

    def resident_broadcast(self, member: str, ctype: str, value: str, loc=None):
        raise self.refuse()

    def helpers(self, w, needs: list, where: str) -> None:
        raise self.refuse()
