"""Helpers for the emulator self-tests: every test kernel is the op_kernel of one small operator
project ("sim_ew": inputs x, optional y; output z; attrs tile, blocks, key, alpha)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from backends.ascendc.sim import SimResult, simulate_project
from backends.ascendc.targets import TARGETS

FIXTURES = Path(__file__).parent / "fixtures"
KERNELS = FIXTURES / "kernels"
OP = "sim_ew"
T910B = TARGETS["ascend910b"]
T950 = TARGETS["ascend950"]


def make_project(root: Path, name: str, kernel_text: str | None = None) -> Path:
    """A project under ``root/name`` with the shared host and ``kernels/<name>.cpp`` (or text)."""
    proj = root / name
    shutil.rmtree(proj, ignore_errors=True)
    (proj / "op_kernel").mkdir(parents=True)
    shutil.copytree(FIXTURES / "host", proj / "op_host")
    text = kernel_text if kernel_text is not None else (KERNELS / f"{name}.cpp").read_text()
    (proj / "op_kernel" / f"{OP}.cpp").write_text(text)
    return proj


def run(
    project: Path,
    x: np.ndarray,
    y: np.ndarray | None = None,
    *,
    tile: int = 256,
    blocks: int = 1,
    key: int = 0,
    alpha: float = 2.0,
    out_dtype=None,
    out_shape=None,
    target=T910B,
    **kwargs,
) -> SimResult:
    out = (tuple(out_shape) if out_shape is not None else x.shape, np.dtype(out_dtype or x.dtype))
    return simulate_project(
        project,
        OP,
        inputs=[x, y],
        outputs=[out],
        attrs=[tile, blocks, key, alpha],
        target=target,
        **kwargs,
    )


@pytest.fixture(scope="session")
def projects(tmp_path_factory):
    """Builds (once per session) the project of a named fixture kernel."""
    root = tmp_path_factory.mktemp("sim_projects")
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in made:
            made[name] = make_project(root, name)
        return made[name]

    return get


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
