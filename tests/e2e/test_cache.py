"""The cache (backends/ascendc/cache.py): bounded by least-recently-used eviction, touched on use,
and shared safely by processes simulating at once on a cold cache."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import dsl
from backends.ascendc import cache

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cold_cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("DSLC_CACHE", str(root))
    monkeypatch.delenv("DSLC_CACHE_MAX", raising=False)
    return root


def make_entry(path: Path, size: int, age_s: float, directory: bool = True) -> Path:
    if directory:
        path.mkdir(parents=True)
        (path / "data").write_bytes(b"x" * size)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
    t = time.time() - age_s
    os.utime(path, (t, t))
    return path


def test_eviction_removes_least_recently_used_until_below_the_low_water_mark(cold_cache, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_MAX", "250K")
    k = 100 << 10
    oldest = make_entry(cold_cache / "projects" / "a-1", k, 3000)
    older = make_entry(cold_cache / "sim" / "exe-2", k, 2000)
    old = make_entry(cold_cache / "sim" / "obj" / "host-3.o", k, 1000, directory=False)
    fresh = make_entry(cold_cache / "sim" / "exe-4", k, 1)  # used within the grace period
    assert sum(size for _, size, _ in cache.entries()) == 4 * k
    removed = cache.enforce_limit()
    # 400K > 250K: remove oldest first until <= 200K (80% of the cap)
    assert removed == [oldest, older]
    assert not oldest.exists() and not older.exists() and old.exists() and fresh.exists()
    assert cache.enforce_limit() == []  # 200K is within the cap
    assert not list(cold_cache.glob(".trash-*"))


def test_recent_and_kept_entries_survive_even_over_the_cap(cold_cache, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_MAX", "10K")
    a = make_entry(cold_cache / "projects" / "a-1", 50 << 10, 3000)
    b = make_entry(cold_cache / "projects" / "b-1", 50 << 10, 10)
    assert cache.enforce_limit(keep=(a,)) == []
    assert a.exists() and b.exists()


def test_bad_cache_cap_is_a_user_error(cold_cache, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_MAX", "big")
    with pytest.raises(dsl.ArgumentError) as e:
        cache.max_bytes()
    assert str(e.value) == "DSLC_CACHE_MAX: expected a size such as 4096, 512M or 2G, got 'big'"
    monkeypatch.setenv("DSLC_CACHE_MAX", "1.5G")
    assert cache.max_bytes() == 3 << 29
    monkeypatch.delenv("DSLC_CACHE_MAX")
    assert cache.max_bytes() == 1 << 30


def test_cache_location(monkeypatch, tmp_path):
    monkeypatch.delenv("DSLC_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_base() == tmp_path / "xdg" / "dslc"
    monkeypatch.setenv("DSLC_CACHE", str(tmp_path / "mine"))
    assert cache.cache_base() == tmp_path / "mine"


OPS = """
import dsl
from dsl import Tensor, f32

@dsl.op(dtypes=(f32,))
def first_op(x: Tensor):
    return x * 2 + 1

@dsl.op(dtypes=(f32,))
def second_op(x: Tensor):
    return dsl.relu(x) - 3
"""


def test_simulation_evicts_old_entries_and_touches_used_ones(cold_cache, monkeypatch, write_module):
    mod = write_module(OPS)
    x = np.linspace(-2, 2, 300).astype(np.float32)
    np.testing.assert_array_equal(mod.first_op.simulate(x), mod.first_op.reference(x))
    first = sorted(p.name for p in cold_cache.glob("sim/exe-*"))
    assert len(first) == 1 and len(list((cold_cache / "projects").iterdir())) == 1
    # a use touches the entries it uses
    exe_dir = cold_cache / "sim" / first[0]
    t = time.time() - 5000
    os.utime(exe_dir, (t, t))
    mod.first_op.simulate(x)
    assert exe_dir.stat().st_mtime > time.time() - 60
    # a tiny cap with no grace: the second op's build evicts all of the first op's entries
    monkeypatch.setenv("DSLC_CACHE_MAX", "1")
    monkeypatch.setattr(cache, "GRACE_S", 0.0)
    np.testing.assert_array_equal(mod.second_op.simulate(x), mod.second_op.reference(x))
    assert not exe_dir.exists()
    assert [p.name.split("-")[0] for p in (cold_cache / "projects").iterdir()] == ["second_op"]
    assert len(list(cold_cache.glob("sim/rt-*/runtime.o"))) == 1  # the runtime in use stays
    # the first op rebuilds what was evicted
    np.testing.assert_array_equal(mod.first_op.simulate(x), mod.first_op.reference(x))


RUN = textwrap.dedent("""
    import os, sys, time
    from dsl.cli import main
    while not os.path.exists(sys.argv[1]):  # start together
        time.sleep(0.005)
    sys.exit(main(sys.argv[2:]))
""")


def test_concurrent_simulations_share_a_cold_cache(tmp_path, cold_cache):
    src = tmp_path / "ops.py"
    src.write_text(OPS)
    go = tmp_path / "go"
    env = {**os.environ, "DSLC_CACHE": str(cold_cache)}
    runs = [("first_op", "1000"), ("first_op", "1000"), ("second_op", "777")]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RUN, str(go), "run", str(src), "--op", name, "--shape", shape],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=str(ROOT),
        )
        for name, shape in runs
    ]
    time.sleep(0.5)
    go.write_text("")
    results = [p.communicate(timeout=600) for p in procs]
    for (name, _), p, (out, err) in zip(runs, procs, results):
        assert p.returncode == 0, err
        assert out.splitlines()[-1] == f"{name}[f32] matches the reference", out
    projects = sorted(p.name.split("-")[0] for p in (cold_cache / "projects").iterdir())
    assert projects == ["first_op", "second_op"]
    assert len(list(cold_cache.glob("sim/exe-*/dslc_sim"))) == 2
    assert len(list(cold_cache.glob("sim/rt-*/runtime.o"))) == 1
    leftovers = [
        p for p in cold_cache.rglob("*") if p.name.endswith(".tmp") or p.name.startswith((".trash", "."))
    ]
    assert [p.name for p in leftovers] == [".evict.lock"]


# -- the emulator build key leaves out the source map (issue 18 item 16) ----------------------------

MOVING_OP = """import dsl
from dsl import Tensor


@dsl.op
def twice(x: Tensor):
    y = x * 2
    return y + 1
"""


def load_ops(path: Path, text: str):
    """``path`` (re)written with ``text`` and imported as a fresh module."""
    import importlib.util
    import linecache

    path.write_text(text)
    linecache.checkcache(str(path))
    spec = importlib.util.spec_from_file_location(f"{path.stem}_{time.monotonic_ns()}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def missing_wait_fault(op, out_dir: Path) -> str:
    """The RaceError of ``op``'s project with the kernel's first MTE2 -> V WaitFlag deleted."""
    project = op.compile(out_dir=out_dir)
    kernel = project / "op_kernel" / f"{op.name}.cpp"
    lines = kernel.read_text().splitlines()
    wait = next(i for i, line in enumerate(lines) if "WaitFlag<HardEvent::MTE2_V>(slot)" in line)
    kernel.write_text("\n".join(lines[:wait] + lines[wait + 1 :]) + "\n")
    with pytest.raises(dsl.RaceError) as e:
        op.simulate(np.ones(64, np.float32), project=project)
    return str(e.value)


@pytest.fixture
def compiles(monkeypatch):
    """Every compiler run of the emulator build (objects and links), as a list of commands."""
    from backends.ascendc.sim import build

    runs = []
    popen, run = build.subprocess.Popen, build.subprocess.run

    def count(cmd):  # the patch is on the subprocess module: other tools' runs pass through
        if isinstance(cmd, list) and cmd[:1] == [build.CXX] and "--version" not in cmd:
            runs.append(cmd)

    def counted_popen(cmd, *a, **k):
        count(cmd)
        return popen(cmd, *a, **k)

    def counted_run(cmd, *a, **k):
        count(cmd)
        return run(cmd, *a, **k)

    monkeypatch.setattr(build.subprocess, "Popen", counted_popen)
    monkeypatch.setattr(build.subprocess, "run", counted_run)
    return runs


def test_moving_or_renaming_the_dsl_file_reuses_the_emulator_build(tmp_path, cold_cache, compiles):
    x = np.linspace(-2, 2, 300).astype(np.float32)
    src = tmp_path / "moving_ops.py"
    mod = load_ops(src, MOVING_OP)
    np.testing.assert_array_equal(mod.twice.simulate(x), mod.twice.reference(x))
    before = missing_wait_fault(mod.twice, tmp_path / "a")
    assert compiles, "the first runs build"
    assert "moving_ops.py:7 (op_kernel/twice.cpp:" in before
    builds = len(compiles)

    # blank lines above the op: every source-map comment changes, the code does not
    moved = load_ops(src, MOVING_OP.replace("\n\n\n@dsl.op", "\n\n\n\n\n\n\n@dsl.op"))
    np.testing.assert_array_equal(moved.twice.simulate(x), moved.twice.reference(x))
    after = missing_wait_fault(moved.twice, tmp_path / "b")
    kernel_a = (tmp_path / "a" / "twice" / "op_kernel" / "twice.cpp").read_text()
    kernel_b = (tmp_path / "b" / "twice" / "op_kernel" / "twice.cpp").read_text()
    assert "// moving_ops.py:7 " in kernel_a and "// moving_ops.py:11 " in kernel_b
    assert "// moving_ops.py:7 " not in kernel_b
    assert compiles[builds:] == [], "no rebuild for a moved DSL line"
    # the report names the DSL line of the source just generated, at the same C++ line
    cpp_line = before.split("moving_ops.py:7 (op_kernel/twice.cpp:")[1].split(")")[0]
    assert f"moving_ops.py:11 (op_kernel/twice.cpp:{cpp_line})" in after
    assert "moving_ops.py:7 " not in after

    # another file name (in the header and every comment): no rebuild either
    renamed = load_ops(tmp_path / "renamed_ops.py", MOVING_OP)
    np.testing.assert_array_equal(renamed.twice.simulate(x), renamed.twice.reference(x))
    again = missing_wait_fault(renamed.twice, tmp_path / "c")
    assert compiles[builds:] == []
    assert f"renamed_ops.py:7 (op_kernel/twice.cpp:{cpp_line})" in again

    # a change of the code does rebuild
    changed = load_ops(src, MOVING_OP.replace("y + 1", "y + 3"))
    np.testing.assert_array_equal(changed.twice.simulate(x), changed.twice.reference(x))
    assert compiles[builds:], "a code change must rebuild"


def test_the_build_key_ignores_only_source_map_comment_lines():
    from backends.ascendc.sim.build import source_key_text

    text = (
        "// Generated by dslc from ops.py. Do not edit by hand;\n"
        "        // ops.py:6  return x * 2 + 1\n"
        "        Adds(a, b, 1.0f, n);  // ops.py:6 is not a source-map line\n"
        "  // ops.py:9  y = a + \\\n"
        'const char* s = "// ops.py:3";\n'
    )
    assert source_key_text(text) == (
        "// Generated by dslc from . Do not edit by hand;\n"
        "        //\n"
        "        Adds(a, b, 1.0f, n);  // ops.py:6 is not a source-map line\n"
        "  //\\\n"  # the backslash continues the comment onto the next line: it stays
        'const char* s = "// ops.py:3";\n'
    )
    moved = text.replace("ops.py:6  return", "other.py:60  return").replace("from ops.py", "from other.py")
    assert source_key_text(moved) == source_key_text(text)
