import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the full (slow) matrix")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: the full matrix; run with --runslow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow matrix: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def write_module(tmp_path):
    """Write DSL source to a fresh module file and import it (inspect needs a real file)."""
    import importlib.util
    import textwrap
    import uuid

    def load(source: str):
        name = f"dslmod_{uuid.uuid4().hex[:10]}"
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod

    return load
