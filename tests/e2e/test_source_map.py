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


def test_no_comment_points_at_the_def_line(tmp_path):
    """Issue 20 item 11: a Scalar input's read (the SCALAR twins of the broadcast examples) is
    labelled by the statement that reads it, not by the ``def`` line where the input is declared."""
    import importlib.util
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for stem in ("greater", "outer_max", "bias_add", "masked_fill"):
        spec = importlib.util.spec_from_file_location(f"srcmap_{stem}", root / "examples" / f"{stem}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        project = getattr(mod, stem).compile(out_dir=tmp_path / stem)
        kernel = (project / "op_kernel" / f"{stem}.cpp").read_text()
        labels = re.findall(rf"// {stem}\.py:\d+  (.*)", kernel)
        assert labels, stem
        assert not [t for t in labels if t.startswith("def ")], stem
        if stem != "masked_fill":  # its mask is never a Scalar twin
            assert "LoadScalar<" in kernel, stem
