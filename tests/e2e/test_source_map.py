"""The kernel's source-map comments (``// file.py:LINE  text``) never change the code."""

from __future__ import annotations

import numpy as np


def test_a_continued_dsl_line_does_not_comment_out_the_next_kernel_line(write_module, tmp_path):
    """A DSL line ending in a backslash: its source-map comment ended in one too, so the C++ line
    after it (a SetFlag) was part of the comment (-Wcomment here; on the NPU, a lost flag)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor


        @dsl.op
        def continued(x: Tensor):
            y = x * 2 + \\
                1
            return y
        """)
    x = np.linspace(-2, 2, 300).astype(np.float32)
    np.testing.assert_array_equal(mod.continued.simulate(x), mod.continued.reference(x))
    kernel = (mod.continued.compile(out_dir=tmp_path) / "op_kernel" / "continued.cpp").read_text()
    lines = [line.strip() for line in kernel.splitlines()]
    assert f"// {mod.__name__}.py:8  y = x * 2 +" in lines
    assert not any(line.startswith("//") and line.endswith("\\") for line in lines)
