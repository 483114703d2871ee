"""C++ helper functions that more than one family's host code defines (written once here)."""

from __future__ import annotations

from .writer import CodeWriter


def emit_shape_text(w: CodeWriter, comment: str) -> None:
    """``ShapeText(shape, buf, cap)``: a gert::Shape as text for OP_LOGE messages."""
    w.line(comment=comment)
    with w.block("void ShapeText(const gert::Shape& s, char* buf, size_t cap)"):
        w.line("size_t used = 0;")
        w.line('used += std::snprintf(buf + used, cap - used, "[");')
        with w.block("for (size_t d = 0; d < s.GetDimNum() && used < cap; ++d)"):
            w.line(
                'used += std::snprintf(buf + used, cap - used, d ? ", %lld" : "%lld", '
                "static_cast<long long>(s.GetDim(d)));"
            )
        w.line('if (used < cap) std::snprintf(buf + used, cap - used, "]");')
