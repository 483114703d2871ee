"""Passes and the frontend never import a backend (issue 11 item 5): target facts reach a pass
through its options (``plan-buffers{ub=...}``, ``schedule-vector{ub=...}``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("passes", "frontend")


def backend_imports(path: Path) -> list[str]:
    """``line: statement`` of every import of ``backends`` in the file, at any depth (function-level
    imports too), absolute or relative."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + ([a.name for a in node.names] if node.level else [])
        else:
            continue
        if any(n == "backends" or n.startswith("backends.") for n in names):
            found.append((node.lineno, f"{node.lineno}: {ast.unparse(node)}"))
    return [text for _, text in sorted(found)]


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_imports_a_backend(layer):
    files = sorted((ROOT / layer).rglob("*.py"))
    assert files
    bad = {str(f.relative_to(ROOT)): b for f in files if (b := backend_imports(f))}
    assert not bad, bad


def test_the_check_sees_imports_inside_functions(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(
        "def g():\n    from backends.ascendc.targets import get_target\n\nfrom ..backends import x\n"
    )
    assert backend_imports(f) == [
        "2: from backends.ascendc.targets import get_target",
        "4: from ..backends import x",
    ]


def test_importing_them_loads_no_backend():
    code = (
        "import sys, passes, frontend; print(sorted(m for m in sys.modules if m.split('.')[0] == 'backends'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
