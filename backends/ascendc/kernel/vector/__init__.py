"""The backend's vector-code layer (docs/vector-code-layer.md): what a schedule (flat, broadcast,
rows) hands over for each V-pipe op, and the code paths that render it: ``MemBase`` (LocalTensor
calls) and ``RegBase`` (a tile's ops as one vector function on registers, ascend950)."""

from ...cann import DEFAULT_CANN
from .base import Extent, Form, Needs, Operand, Region, VecOp, VectorCode
from .membase import MemBase
from .regbase import RegBase

__all__ = [
    "Extent",
    "Form",
    "MemBase",
    "Needs",
    "Operand",
    "RegBase",
    "Region",
    "VecOp",
    "VectorCode",
    "vector_codes",
]


def vector_codes(target=None, cann: str = DEFAULT_CANN, vf_form: str | None = None) -> dict[str, VectorCode]:
    """One kernel's code paths by ``Region.path``; ``vf_form``: how RegBase enters a vector
    function (``cann.VF_FORMS``; None: the release's spelling)."""
    return {"membase": MemBase(target, cann), "regbase": RegBase(target, cann, vf_form)}
