"""The backend's vector-code layer (docs/vector-code-layer.md): what a schedule (flat, broadcast,
rows) hands over for each V-pipe op, and the code paths that render it (``MemBase``: LocalTensor
calls)."""

from .base import Extent, Form, Operand, Region, VecOp, VectorCode
from .membase import MemBase

__all__ = ["Extent", "Form", "MemBase", "Operand", "Region", "VecOp", "VectorCode"]
