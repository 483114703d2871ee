"""The generated project's golden script: gen -> (an NPU run; here the emulator) -> compare."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _load(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"golden_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_golden_gen_and_compare(tmp_path):
    op = _load(ROOT / "examples" / "sgd_momentum.py").sgd_momentum
    project = op.compile(out_dir=tmp_path / "build")
    script = project / "golden" / "golden.py"
    data = tmp_path / "data"
    gen = subprocess.run(
        [
            sys.executable,
            str(script),
            "gen",
            "--shape",
            "3000",
            "--dtype",
            "f16",
            "--attr",
            "nesterov=true",
            "-o",
            str(data),
        ],
        capture_output=True,
        text=True,
    )
    assert gen.returncode == 0, gen.stderr
    meta = json.loads((data / "meta.json").read_text())
    assert meta["attrs"] == {"nesterov": True}
    arrays = [
        np.fromfile(data / f"input_{e['name']}.bin", dtype=np.dtype(e["dtype"])).reshape(e["shape"])
        for e in meta["inputs"]
    ]
    outs = op.simulate(*arrays, project=project, nesterov=True)  # stands in for the NPU run
    for name, out in zip(op.outputs, outs):
        out.tofile(data / f"output_{name}.bin")
    ok = subprocess.run([sys.executable, str(script), "compare", str(data)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.splitlines() == [
        "param_out: max abs err 0, max rel err 0 (exact) -> ok",
        "buf_out: max abs err 0, max rel err 0 (exact) -> ok",
    ]

    # sgd_momentum has only exact ops: one element one ulp off is a mismatch
    bad = outs[0].copy()
    bad.view(np.uint16)[17] += 1
    bad.tofile(data / "output_param_out.bin")
    fail = subprocess.run([sys.executable, str(script), "compare", str(data)], capture_output=True, text=True)
    assert fail.returncode == 1, fail.stdout + fail.stderr
    assert fail.stdout.startswith("param_out: max abs err "), fail.stdout
    assert "(exact) -> MISMATCH: 1/3000 elements violate exact equality" in fail.stdout
    assert "first at flat index 17" in fail.stdout
    assert "buf_out: max abs err 0, max rel err 0 (exact) -> ok" in fail.stdout
    # --rtol loosens only outputs with approximated math; this one stays exact
    fail = subprocess.run(
        [sys.executable, str(script), "compare", str(data), "--rtol", "0.5"], capture_output=True, text=True
    )
    assert fail.returncode == 1 and "(exact) -> MISMATCH" in fail.stdout, fail.stdout
