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


def test_golden_shapes_per_input_for_a_row_operator(tmp_path):
    """golden.py takes --shape as `dslc run` does: one for all tensor inputs (Tensor["C"] takes the
    trailing dim) or one per tensor input; a shape wrong for an input names that input."""
    op = _load(ROOT / "examples" / "rms_norm.py").rms_norm
    project = op.compile(out_dir=tmp_path / "build")
    script = project / "golden" / "golden.py"

    def golden(*args):
        return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True)

    for shapes, data in (((["8,1024"]), tmp_path / "one"), ((["8,1024", "1024"]), tmp_path / "each")):
        gen = golden("gen", *(a for s in shapes for a in ("--shape", s)), "-o", data)
        assert gen.returncode == 0, gen.stderr
        meta = json.loads((data / "meta.json").read_text())
        assert [e["shape"] for e in meta["inputs"]] == [[8, 1024], [1024]]
        arrays = [
            np.fromfile(data / f"input_{e['name']}.bin", dtype=np.dtype(e["dtype"])).reshape(e["shape"])
            for e in meta["inputs"]
        ]
        op.simulate(*arrays, project=project).tofile(data / "output_y.bin")  # stands in for the NPU run
        ok = golden("compare", data)
        assert ok.returncode == 0 and ok.stdout.endswith("-> ok\n"), ok.stdout + ok.stderr

    bad = golden("gen", "--shape", "8,1024", "--shape", "8,1024", "-o", tmp_path / "bad")
    assert bad.returncode == 1
    assert bad.stderr == "golden.py: error: input 'gamma' must have 1 dims [C], got shape (8, 1024)\n"
    bad = golden("gen", "--shape", "8,1024", "--shape", "1000", "-o", tmp_path / "bad")
    assert (bad.returncode, bad.stderr) == (
        1,
        "golden.py: error: dim 'C' is 1024 in input 'x' but 1000 in input 'gamma'\n",
    )
    bad = golden("gen", "--shape", "8,1024", "--shape", "1024", "--shape", "4", "-o", tmp_path / "bad")
    assert bad.returncode == 2
    assert bad.stderr.endswith(
        "golden.py gen: error: give one --shape for all tensor inputs or one per tensor input (2), got 3\n"
    )
    assert not (tmp_path / "bad").exists()
