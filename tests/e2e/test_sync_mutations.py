"""Mutation tests of the passes sync correctness rests on: each planted bug (insert-sync output
with an event kind dropped, the old one-id-per-event scheme, no pre-issue, no drain, no vector
barriers; double-buffer leaving stored tiles single-slot) must be caught, by the emulator on a
small kernel that needs every event kind, or by the compiler itself. Fast: one small compile and
one emulator build per mutation."""

from __future__ import annotations

import numpy as np
import pytest

import dsl
import passes.double_buffer as double_buffer
import passes.insert_sync as insert_sync
from backends.ascendc.simulate import simulate
from dsl.errors import DeadlockError, RaceError, SyncError

# Every event kind is needed, none implied by the others: a's buffer is refilled (before any
# MTE3_MTE2 wait of the tile) where V read it last tile: reverse V_MTE2; y1 is computed in place
# in b's buffer and stored, then b is refilled: reverse MTE3_MTE2; y2's mask buffer is stored
# after that MTE3_MTE2 set and overwritten by V next tile: reverse MTE3_V; three early stores
# take three V_MTE3 id groups.
SOURCE = """
import dsl
from dsl import Tensor, Scalar, f32

@dsl.op(dtypes=(f32,))
def mut(a: Tensor, b: Tensor, s: Scalar):
    y0 = a * s
    y1 = y0 + b
    y2 = a > y1
    return y0, y1, y2
"""
N = 40000  # about five tiles on one core


def _sync_ops(ops, pred):
    return [op for op in ops if not (op.opname.startswith("sync.") and pred(op))]


def _event(name):
    return lambda op: op.attrs.get("event") == name


def drop_event(name):
    def mutate(func):
        loop = func.loop()
        loop.region = _sync_ops(loop.region, _event(name))
        func.body = _sync_ops(func.body, _event(name))

    return mutate


def one_id_group(func):
    """The scheme before event-id groups: every V_MTE3 pair of a tile uses the slot's id."""
    for op in func.loop().region:
        if op.attrs.get("event") == "V_MTE3":
            op.attrs["id"] = "slot"


def no_barriers(func):
    func.loop().region = _sync_ops(func.loop().region, lambda op: op.opname == "sync.barrier")


def no_pre_issue(func):
    func.body = _sync_ops(func.body, lambda op: op.opname == "sync.set")


def no_drain(func):
    func.body = _sync_ops(func.body, lambda op: op.opname == "sync.wait")


def _run(write_module, tmp_path):
    op = write_module(SOURCE).mut
    rng = np.random.default_rng(3)
    args = [rng.uniform(-1, 1, N).astype(np.float32) for _ in range(2)] + [np.array([0.5], np.float32)]
    project = op.compile(out_dir=tmp_path)
    got, _ = simulate(op, args, {}, cores=1, project=project, strict=True)
    for g, r in zip(got, op.reference(*args)):
        assert dsl.precision.compare(g, r).ok
    return project


def test_unmutated_kernel_passes_in_strict_mode(write_module, tmp_path):
    text = (_run(write_module, tmp_path) / "op_kernel" / "mut.cpp").read_text()
    for event in ("MTE2_V", "V_MTE3", "V_MTE2", "MTE3_MTE2", "MTE3_V"):
        assert f"SetFlag<HardEvent::{event}>" in text, event
    assert ", t, slot + 4);" in text  # the third early store's CopyOut takes V_MTE3 id group slot+4


MUTATIONS = [
    # the planted bug of issue 12: no reverse V_MTE2, so MTE2 refills a buffer V may still read
    ("no-reverse-V_MTE2", drop_event("V_MTE2"), RaceError, ["write-after-read", "HardEvent::V_MTE2"]),
    ("no-reverse-MTE3_MTE2", drop_event("MTE3_MTE2"), RaceError, ["HardEvent::MTE3_MTE2"]),
    ("no-reverse-MTE3_V", drop_event("MTE3_V"), RaceError, ["write-after-read", "HardEvent::MTE3_V"]),
    ("no-forward-MTE2_V", drop_event("MTE2_V"), RaceError, ["read-after-write", "HardEvent::MTE2_V"]),
    ("no-forward-V_MTE3", drop_event("V_MTE3"), RaceError, ["read-after-write", "HardEvent::V_MTE3"]),
    ("one-V_MTE3-id-group", one_id_group, SyncError, ["SetFlag<HardEvent::V_MTE3>", "reuses event id"]),
    ("no-V-barriers", no_barriers, RaceError, ["PipeBarrier<PIPE_V>"]),
    ("no-pre-issue", no_pre_issue, DeadlockError, ["with no SetFlag", "pending"]),
    ("no-drain", no_drain, SyncError, ["still set when the kernel ends"]),
]


@pytest.mark.parametrize("name, mutate, error, fragments", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_insert_sync_mutation_is_caught(write_module, tmp_path, monkeypatch, name, mutate, error, fragments):
    original = insert_sync.insert

    def mutated(func):
        original(func)
        if func.loop() is not None:
            mutate(func)

    monkeypatch.setattr(insert_sync, "insert", mutated)
    with pytest.raises(error) as info:
        _run(write_module, tmp_path)
    msg = str(info.value)
    assert "op_kernel/mut.cpp:" in msg
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in:\n{msg}"


def test_double_buffer_mutation_is_caught(write_module, tmp_path, monkeypatch):
    """double-buffer leaving stored values single-slot: insert-sync refuses (a buffer shared by
    two pipes with one slot cannot be synchronised across tiles without stalling them)."""
    original = double_buffer.DoubleBufferPass.run

    def mutated(self, module):
        original(self, module)
        for func in module.funcs:
            stored = {id(op.operands[0]) for op in func.loop().region if op.opname == "dma.store"}
            for op in func.loop().region:
                if op.result is not None and id(op.result) in stored:
                    op.attrs["slots"] = 1

    monkeypatch.setattr(double_buffer.DoubleBufferPass, "run", mutated)
    with pytest.raises(AssertionError, match="single-slot buffer b\\d is shared by pipes"):
        _run(write_module, tmp_path)


# A row kernel whose scalar unit reads a per-row value (m, for the comparison) that V writes after
# another count-form reduction (mx): the reverse S_V from the last tile's reads is pending across
# that ReduceMax, which fetches S_V (and V_S, S_MTE3) ids for itself (TPipe::FetchEventID: 0 when
# no id is allocated). insert-sync starts the scalar-unit ids at group 1 there (_first_group).
ROW_SOURCE = """
import dsl
from dsl import Tensor, f32

@dsl.op(dtypes=(f32,))
def rowmut(x: Tensor[..., "C"]):
    mx = dsl.max(x, axis=-1, keepdims=True)
    m = dsl.mean(x, axis=-1, keepdims=True)
    return dsl.where(x > m, x - mx, x)
"""


def _run_rows(write_module, tmp_path):
    op = write_module(ROW_SOURCE).rowmut
    x = np.random.default_rng(5).uniform(-1, 1, (6, 40)).astype(np.float32)
    project = op.compile(out_dir=tmp_path)
    got, _ = simulate(op, [x], {}, cores=1, project=project)  # one output: the array
    assert dsl.precision.compare(got, op.reference(x), dsl.precision.output_tolerances(op, dsl.f32)["y"]).ok
    return (project / "op_kernel" / "rowmut.cpp").read_text()


def test_scalar_event_ids_stay_off_the_ids_reductions_fetch(write_module, tmp_path, monkeypatch):
    text = _run_rows(write_module, tmp_path / "ok")
    assert "SetFlag<HardEvent::S_V>(2);" in text and "ReduceMax(" in text
    monkeypatch.setattr(insert_sync, "_first_group", lambda event, reduces: 0)
    with pytest.raises(SyncError) as info:
        _run_rows(write_module, tmp_path / "mutated")
    msg = str(info.value)
    assert "op_kernel/rowmut.cpp:" in msg
    assert "ReduceMax sets and waits HardEvent::S_V(0) itself (TPipe::FetchEventID" in msg, msg
    assert "while the kernel's SetFlag<HardEvent::S_V>(0) at op_kernel/rowmut.cpp:" in msg, msg
