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
