"""MemBase: vector ops as LocalTensor calls on UB (``Add(dst, a, b, n)``), the A2 API dslc targets."""

from __future__ import annotations

from dsl.dtypes import i32
from dsl.errors import CompileError
from dsl.ir import Op

from ...cann import DEFAULT_CANN
from ..api import A2_DTYPES, OP_API, ctype


class MemBase:
    path = "membase"

    def __init__(self, target=None, cann: str = DEFAULT_CANN):
        self.target, self.cann = target, cann

    def check(self, op: Op) -> None:
        """The op's element type is one its API takes on A2 (ops without an API entry pass)."""
        api = OP_API.get(op.opname)
        if api is None:
            return
        dt = (op.operands[0] if op.opname == "cmp" else op.result).type.dtype
        if op.opname == "cmp" and dt == i32 and op.attrs["pred"] != "eq":
            raise CompileError(
                f"Compare takes int32_t for equality only on A2, not '{op.attrs['pred']}'", op.loc
            )
        if ctype(dt) not in A2_DTYPES[api]:
            raise CompileError(
                f"{api} does not take {dt} in the A2 vector API dslc targets "
                f"(it takes {', '.join(sorted(A2_DTYPES[api]))}); cast to f32 first",
                op.loc,
            )
