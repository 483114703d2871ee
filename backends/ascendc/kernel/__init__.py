"""Kernel emitter: the tile-level IR of every variant -> op_kernel/<op>.cpp, one class template.

The variants of an operator (element type x static attributes) become one class template,
``template <typename T, bool AMSGRAD, ...>``: each variant renders its statements with names from
the DSL (``variant``), ``merge`` prints what they share once and puts the rest under
``if constexpr``, and the entry instantiates the template per tiling key with the element type
CANN's per-dtype build defines (``DTYPE_<INPUT>``).
"""

from __future__ import annotations

from .api import ctype, float_literal
from .template import emit_kernel
from .variant import Signature, Variant, field_name, where

__all__ = ["Signature", "Variant", "emit_kernel", "field_name", "float_literal", "ctype", "where"]
