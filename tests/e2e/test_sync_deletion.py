"""Deleting any single SetFlag/WaitFlag from a generated kernel is caught by the emulator."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import dsl

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"del_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, name)


CASES = [
    ("f32", np.float32, 2000),
    pytest.param("bf16", ml_dtypes.bfloat16, 3003, marks=pytest.mark.slow),  # ~45 s of rebuilds
]


@pytest.mark.parametrize("label, np_dtype, key", CASES, ids=["f32", "bf16-amsgrad-maximize"])
def test_every_flag_of_apply_adam_w_is_needed(tmp_path, label, np_dtype, key):
    op = _load("apply_adam_w")
    project = op.compile(out_dir=tmp_path / "base")
    kernel_path = project / "op_kernel" / "apply_adam_w.cpp"
    lines = kernel_path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if f"class KernelApplyAdamWKey{key} " in line)
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("};"))
    flags = [i for i in range(start, end) if re.search(r"\b(SetFlag|WaitFlag)<", lines[i])]
    assert len(flags) >= 16

    rng = np.random.default_rng(1)
    n = 4 * 4224 + 77  # several tiles per core so every reverse dependency is exercised
    var, m, g, mgn = (rng.uniform(-1, 1, n).astype(np_dtype) for _ in range(4))
    v = np.abs(rng.uniform(-1, 1, n)).astype(np_dtype)
    amsgrad = key % 1000 in (1, 3)
    maximize = key % 1000 in (2, 3)
    args = (var, m, v, 0.5, 0.25, 0.001, 0.01, 0.9, 0.999, 1e-8, g, mgn if amsgrad else None)
    attrs = dict(amsgrad=amsgrad, maximize=maximize)
    ref = op.reference(*args, **attrs)
    got = op.simulate(*args, cores=1, project=project, **attrs)
    tols = dsl.precision.output_tolerances(op, label, **attrs)
    for name, a, b in zip(op.outputs, ref, got):
        dsl.precision.check(b, a, tols[name], what=name)

    missed = []
    for i in flags:
        case = tmp_path / f"del{i}"
        shutil.copytree(project, case)
        edited = lines[:i] + lines[i + 1 :]
        (case / "op_kernel" / "apply_adam_w.cpp").write_text("\n".join(edited) + "\n")
        try:
            op.simulate(*args, cores=1, project=case, **attrs)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(case)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)
