"""op.profile / dslc profile: the performance model's report and trace."""

from __future__ import annotations

import json
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
    assert p.dma["MTE2"] > 0 and p.dma["MTE3"] > 0 and p.sync_count > 0
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
    assert "predicted" in out and "roofline" in out and (tmp_path / "trace.json").is_file()
