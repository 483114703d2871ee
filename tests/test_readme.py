"""README's Python example runs as written (docs match behaviour)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks
    path = tmp_path / "readme_example.py"
    path.write_text("\n".join(blocks))
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "readme_example", "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - our own README
    assert (tmp_path / "build" / "sgd_momentum" / "op_kernel" / "sgd_momentum.cpp").is_file()
    from dsl import precision

    # the simulated kernel equals the reference the first block computed (sgd_momentum is exact)
    op = namespace["sgd_momentum"]
    assert precision.output_tolerances(op, "f32", nesterov=True) == {
        "param_out": precision.EXACT,
        "buf_out": precision.EXACT,
    }
    for name, got, want in zip(op.outputs, namespace["outs"], (namespace["param_out"], namespace["buf_out"])):
        assert got.shape == (4096,)
        precision.check(got, want, precision.EXACT, what=name)
