"""op.profile / dslc profile: the performance model's report and trace."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from dsl.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_profile_report_fields_and_trace(write_module, tmp_path):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar

        @dsl.op
        def axpy(x: Tensor, y: Tensor, a: Scalar):
            return x * a + y
        """)
    n = 1 << 18
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    p = mod.axpy.profile(x, y, 2.0, cores=8)
    assert p.block_dim == 8 and p.tiling_key == 0  # no static attributes: key 0
    assert p.bytes == {"gm_to_ub": 2 * 4 * n, "ub_to_gm": 4 * n}
    # 8 cores x 32768 elements, each in ceil(32768 / tile) tiles: one DMA per input/output each
    readme = (mod.axpy.compile(out_dir=tmp_path / "project") / "README.md").read_text()
    tile, bpe = map(int, re.search(r"^\| 0 \| f32 \| - \| (\d+) \| (\d+) \|$", readme, re.M).groups())
    assert bpe == 16  # two f32 buffers (x * a + y computed in place), two slots each
    tiles = -(-(n // 8) // tile)
    assert p.dma == {"MTE2": 8 * tiles * 2, "MTE3": 8 * tiles}
    assert p.ub_peak_bytes == tile * bpe
    assert p.sync_count > 0 and p.sync_count % 2 == 0  # every SetFlag is waited
    assert p.predicted_us > p.roofline_us > 0  # 8 of 48 cores cannot reach the chip's HBM bandwidth
    assert "MODEL" in str(p)
    trace = json.loads(p.save_trace(tmp_path / "t.json").read_text())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == 2 * 8 and all(e["dur"] >= 0 for e in spans)


def test_cli_profile(tmp_path, capsys):
    code = main(
        [
            "profile",
            str(ROOT / "examples" / "silu.py"),
            "--shape",
            "100000",
            "--dtype",
            "bf16",
            "--trace",
            str(tmp_path / "trace.json"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    # the report depends on the shape, not on the values: it is op.profile's on any 100000 bf16
    import importlib.util

    import ml_dtypes

    spec = importlib.util.spec_from_file_location("dslc_profile_silu", ROOT / "examples" / "silu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = module.silu.profile(np.zeros(100000, ml_dtypes.bfloat16))
    assert (
        out
        == f"inputs (seed 0): x: bf16 uniform in [-2, 2) with 1/16 exact zeros\n{report}\ntrace written to {tmp_path / 'trace.json'}\n"
    )
    assert report.tiling_key == 0 and report.block_dim == 48  # ceil(100000 / 2048) > 48 cores
    assert report.bytes == {"gm_to_ub": 200000, "ub_to_gm": 200000}
    trace = json.loads((tmp_path / "trace.json").read_text())
    assert {e["ph"] for e in trace["traceEvents"]} >= {"X"}
