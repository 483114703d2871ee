"""op.profile / dslc profile: the performance model's report and timeline."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from dsl.cli import main

ROOT = Path(__file__).resolve().parents[2]

AXPY = """
    import dsl
    from dsl import Tensor, Scalar

    @dsl.op
    def axpy(x: Tensor, y: Tensor, a: Scalar):
        return x * a + y
    """


@pytest.fixture(scope="module")
def axpy_profile(tmp_path_factory):
    import importlib.util
    import textwrap

    path = tmp_path_factory.mktemp("prof") / "axpy_prof.py"
    path.write_text(textwrap.dedent(AXPY))
    spec = importlib.util.spec_from_file_location("axpy_prof", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    n = 1 << 18
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    return mod, n, mod.axpy.profile(x, y, 2.0, cores=8)


def test_profile_report_fields(axpy_profile, tmp_path):
    mod, n, p = axpy_profile
    assert p.block_dim == 8 and p.tiling_key == 0  # no static attributes: key 0
    assert p.bytes == {"gm_to_ub": 2 * 4 * n, "ub_to_gm": 4 * n}
    # 8 cores x 32768 elements, each in ceil(32768 / tile) tiles: one DMA per input/output each
    readme = (mod.axpy.compile(out_dir=tmp_path / "project") / "README.md").read_text()
    tile, bpe = map(int, re.search(r"^\| \d+ \| f32 \| - \| (\d+) \| (\d+) \|$", readme, re.M).groups())
    assert bpe == 16  # two f32 buffers (x * a + y computed in place), two slots each
    tiles = -(-(n // 8) // tile)
    assert p.dma == {"MTE2": 8 * tiles * 2, "MTE3": 8 * tiles}
    assert p.ub_peak_bytes == tile * bpe + 256  # x and y, the add's two sources, in other bank groups
    assert p.sync_count > 0 and p.sync_count % 2 == 0  # every SetFlag is waited
    assert p.predicted_us > p.roofline_us > 0  # 8 of 48 cores cannot reach the chip's HBM bandwidth
    assert p.predicted_us >= p.bound_us > p.launch_us > 0 and p.ratio >= 1
    assert p.ub_peak_bytes > 0 and len(p.per_core) == 8
    text = p.describe(verbose=True)
    assert "MODEL" in text and "not a measurement" in text and "SKU 910B1" in text
    assert "= 2e-06: " not in str(p)  # the constants only in the verbose report
    # every constant with its source
    for name, value in p.constants.items():
        assert f"{name} = {value:g}: " in text and p.sources[name]
    assert "perf-constants.md" in text


def test_profile_timeline(axpy_profile, tmp_path):
    """One process per core, one track per pipe, a slice per instruction named by its kernel and
    DSL line; WaitFlag slices run from when the pipe reached them to when the flag arrived."""
    mod, _, p = axpy_profile
    trace = json.loads(p.save_trace(tmp_path / "t.json").read_text())
    events = trace["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert [procs[pid] for pid in range(1, 9)] == [f"AIV core {b}" for b in range(8)]
    threads = defaultdict(set)
    for e in events:
        if e["name"] == "thread_name" and e["pid"] > 0:
            threads[e["pid"]].add(e["args"]["name"])
    assert all(threads[pid] == {"S", "V", "MTE2", "MTE3"} for pid in range(1, 9))
    slices = [e for e in events if e["ph"] == "X" and e["pid"] > 0]
    launch = p.launch_us
    assert all(e["dur"] >= 0 and e["ts"] >= launch - 1e-9 for e in slices)
    assert all("op_kernel/axpy.cpp:" in e["name"] for e in slices)
    dsl_file = Path(mod.__file__).name
    assert any(f" | {dsl_file}:" in e["name"] and e["args"]["dsl"].startswith(dsl_file) for e in slices)
    # each pipe's slices of one core are in order and do not overlap (in-order queues)
    for pid in range(1, 9):
        for tid in range(4):
            mine = sorted(
                (e["ts"], e["ts"] + e["dur"]) for e in slices if e["pid"] == pid and e["tid"] == tid
            )
            assert all(b[0] >= a[1] - 1e-6 for a, b in zip(mine, mine[1:]))
    waits = [e for e in slices if e["cat"] == "wait"]
    assert waits and any(e["args"]["waited_us"] > 0 for e in waits)
    assert all(e["dur"] >= e["args"]["waited_us"] - 1e-9 for e in waits)
    # flow arrows from each SetFlag to the WaitFlag that consumed it
    starts = {e["id"] for e in events if e["ph"] == "s"}
    ends = {e["id"] for e in events if e["ph"] == "f"}
    assert starts and starts == ends
    # the copies say where their bytes went
    copies = [e for e in slices if e["name"].startswith("DataCopy")]
    assert copies and all(e["args"]["memory"] in ("HBM", "L2") and e["args"]["bytes"] > 0 for e in copies)
    # the slowest core ends where the prediction says (launch + core)
    end = max(e["ts"] + e["dur"] for e in slices)
    assert end == pytest.approx(launch + p.slowest_core["finish_us"], rel=1e-6)


def test_profile_skus_and_l2(axpy_profile):
    mod, n, b1 = axpy_profile
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    b4 = mod.axpy.profile(x, y, 2.0, sku="910B4", l2="cold")
    assert b4.sku == "910B4" and b4.block_dim <= 40
    b1_cold = mod.axpy.profile(x, y, 2.0, l2="cold")
    # 910B4: 0.63 TB/s HBM, 1.5 GHz; the same kernel from a cold L2 is slower than on the 910B1
    assert b4.predicted_us > b1_cold.predicted_us
    assert "cold" in b1_cold.l2["summary"] and "warm" in b1.l2["summary"]
    with pytest.raises(ValueError, match="unknown SKU"):
        mod.axpy.profile(x, y, 2.0, sku="910X")


def test_cli_profile(tmp_path, capsys):
    code = main(
        [
            "profile",
            str(ROOT / "examples" / "silu.py"),
            "--shape",
            "100000",
            "--dtype",
            "bf16",
            "--sku",
            "910B3",
            "--l2",
            "cold",
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
    report = module.silu.profile(np.zeros(100000, ml_dtypes.bfloat16), sku="910B3", l2="cold")
    first = out.splitlines()[0]
    assert first.startswith("inputs (seed 0): x: bf16")
    assert out == f"{first}\n{report}\ntrace written to {tmp_path / 'trace.json'}\n"
    assert "SKU 910B3" in out and report.block_dim == 40  # the 910B3 has 40 vector cores
    assert report.bytes == {"gm_to_ub": 200000, "ub_to_gm": 200000}
    trace = json.loads((tmp_path / "trace.json").read_text())
    assert {e["ph"] for e in trace["traceEvents"]} >= {"X", "M", "s", "f"}
    assert main(["profile", str(ROOT / "examples" / "silu.py"), "--sku", "nope"]) == 2


def test_cli_profile_of_a_compiled_project(tmp_path, capsys):
    """--project profiles the sources `dslc compile` wrote (and a user may have edited)."""
    assert main(["compile", str(ROOT / "examples" / "silu.py"), "-o", str(tmp_path)]) == 0
    kernel = tmp_path / "silu" / "op_kernel" / "silu.cpp"
    text = kernel.read_text()
    assert text.count("Exp(") == 1
    # an edit the model must see: the exponential twice
    kernel.write_text(text.replace("Exp(tmp1, tmp0, n);", "Exp(tmp1, tmp0, n);\n        Exp(tmp1, tmp0, n);"))
    args = ["profile", str(ROOT / "examples" / "silu.py"), "--shape", "1000000"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert main(args + ["--project", str(tmp_path / "silu")]) == 0
    edited = capsys.readouterr().out

    def vector_ops(out: str) -> int:
        return int(out.split(" vector ops")[0].rsplit("; ", 1)[1])

    assert vector_ops(edited) > vector_ops(plain)
