"""Opt-in: real operators of hicann/ops-math and hicann/ops-nn run unmodified by `dslc check`, with
only include paths given. CI cannot fetch them: set DSLC_OPS_MATH and DSLC_OPS_NN to checkouts
(benchmarks/real_kernels.md names the commits and records the results); skipped otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dsl.cli import main

OPS_MATH = os.environ.get("DSLC_OPS_MATH")
OPS_NN = os.environ.get("DSLC_OPS_NN")
GOLDENS = Path(__file__).parent / "real_goldens.py"
TAIL = "1000003"  # 48 cores with a tail: not a whole number of 32-byte blocks per core
ADAMW_SCALARS = [
    *(
        f"--shape={n}=1"
        for n in ("beta1_power", "beta2_power", "lr", "weight_decay", "beta1", "beta2", "epsilon")
    ),
    *("--fill=beta1_power=0.9", "--fill=beta2_power=0.999", "--fill=lr=0.001", "--fill=weight_decay=0.01"),
    *("--fill=beta1=0.9", "--fill=beta2=0.999", "--fill=epsilon=1e-8"),
]

math_only = pytest.mark.skipif(not OPS_MATH, reason="set DSLC_OPS_MATH to a hicann/ops-math checkout")
nn_only = pytest.mark.skipif(not OPS_NN, reason="set DSLC_OPS_NN to a hicann/ops-nn checkout")


def check(capsys, *args):
    code = main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out + err


@math_only
@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_greater_matches(capsys, dtype):
    code, out = check(
        capsys,
        f"{OPS_MATH}/experimental/math/greater",
        "--op",
        "Greater",
        "--dtype",
        dtype,
        "--golden",
        f"{GOLDENS}:greater",
    )
    assert code == 0, out
    assert "Greater: no faults, matches the golden" in out


@math_only
def test_greater_reads_past_the_end_at_a_tail(capsys):
    code, out = check(
        capsys, f"{OPS_MATH}/experimental/math/greater", "--op", "Greater", "--dtype", "f32", "--shape", TAIL
    )
    assert code == 1
    assert (
        "MemoryFaultError: op_kernel/greater.h:112: DataCopy(GM->UB): GM read [3972864, 4000128) B is out of "
        "bounds of input 0 'x1' (4000012 B): 116 B past the end (block 47 of 48)" in out
    )


@math_only
@pytest.mark.parametrize("dtype,shape", [("f32", "4096"), ("f16", "4096"), ("f32", TAIL), ("f16", TAIL)])
def test_is_close_matches(capsys, dtype, shape):
    code, out = check(
        capsys,
        f"{OPS_MATH}/experimental/math/is_close",
        "--op",
        "IsClose",
        "--dtype",
        dtype,
        "--shape",
        shape,
        "--golden",
        f"{GOLDENS}:is_close",
    )
    assert code == 0, out
    assert "IsClose: no faults, matches the golden" in out


@nn_only
@pytest.mark.parametrize("dtype,line", [("f32", 173), ("f16", 170)])
def test_apply_adam_w_ub_overrun_and_match(capsys, dtype, line):
    code, out = check(
        capsys,
        f"{OPS_NN}/experimental/optim/apply_adam_w",
        "--op",
        "ApplyAdamW",
        "-I",
        f"{OPS_NN}/common/inc",
        *ADAMW_SCALARS,
        "--dtype",
        dtype,
        "--golden",
        f"{GOLDENS}:apply_adam_w",
    )
    assert code == 1  # its faults; the outputs still match
    assert f"MemoryFaultError: op_kernel/apply_adam_w.h:{line}: UB over capacity" in out
    assert "ApplyAdamW: 3 fault(s), matches the golden" in out


@nn_only
def test_apply_adam_w_reads_past_the_end_at_a_tail(capsys):
    code, out = check(
        capsys,
        f"{OPS_NN}/experimental/optim/apply_adam_w",
        "--op",
        "ApplyAdamW",
        "-I",
        f"{OPS_NN}/common/inc",
        *ADAMW_SCALARS,
        "--dtype",
        "f32",
        "--shape",
        TAIL,
    )
    assert code == 1
    assert (
        "MemoryFaultError: op_kernel/apply_adam_w.h:187: DataCopy(GM->UB): GM read [3995296, 4000032) B is out "
        "of bounds of input 0 'var' (4000012 B): 20 B past the end (block 47 of 48)" in out
    )


def norm(capsys, folder, op, dtypes, shapes, golden, *extra):
    """An ops-nn norm/ operator: its include paths, dtypes, NAME=SHAPE shapes and golden."""
    return check(
        capsys,
        f"{OPS_NN}/norm/{folder}",
        "--op",
        op,
        *("-I", f"{OPS_NN}/common/inc", "-I", f"{OPS_NN}/norm"),
        "--dtype",
        dtypes,
        *(f"--shape={s}" for s in shapes),
        *extra,
        "--golden",
        f"{GOLDENS}:{golden}",
    )


def add_layer_norm(capsys, dtype, rows, cols):
    shapes = (f"x1={rows},{cols}", f"x2={rows},{cols}", f"gamma={cols}", f"beta={cols}")
    dtypes = ",".join([dtype] * 5)
    return norm(
        capsys,
        "add_layer_norm",
        "AddLayerNorm",
        dtypes,
        shapes,
        "add_layer_norm",
        "--attr=additional_output=true",
    )


def rms_norm(capsys, dtypes, rows, cols):
    return norm(capsys, "rms_norm", "RmsNorm", dtypes, (f"x={rows},{cols}", f"gamma={cols}"), "rms_norm")


def add_rms_norm(capsys, dtype, rows, cols):
    shapes = (f"x1={rows},{cols}", f"x2={rows},{cols}", f"gamma={cols}")
    return norm(capsys, "add_rms_norm", "AddRmsNorm", dtype, shapes, "add_rms_norm")


@nn_only
@pytest.mark.parametrize(
    "dtype,rows,cols,key",
    [("f32", 4, 256, 140), ("f32", 1000, 1003, 100), ("f16", 4, 256, 180), ("f16", 1000, 1003, 170)],
)
def test_add_layer_norm_matches(capsys, dtype, rows, cols, key):
    """The 910B kernel (vector mask registers, isSetMask=false forms, BlockReduceSum, BroadCast):
    4 rows on 4 blocks, and 1000 rows of 1003 on 48 blocks (a tail of rows, an unaligned row). f16
    DataCopyPads GM into a TBuf<VECCALC> (add_layer_norm_base.h:62, DataCopyEx): outside the A2
    DataCopyPad documentation's paths, but executed by the hardware (datacopy.h,
    check_pad_position), so the emulator runs it outside strict mode."""
    code, out = add_layer_norm(capsys, dtype, rows, cols)
    assert code == 0, out
    assert f"tiling key {key}," in out
    assert "AddLayerNorm: no faults, matches the golden" in out


@nn_only
@pytest.mark.parametrize("dtypes", ["f32,f32", "f16,f16"])
def test_rms_norm_merge_n_uses_the_reserved_ub(capsys, dtypes):
    """16 rows of 256 (4096 elements, merge-N template, key 2): the host sizes the rows per pass
    from the whole UB less 1 KiB, so the kernel's last InitBuffer reaches into the 8 KiB Ascend C
    reserves on A2; the run goes on and the outputs match numpy. f16 gamma goes GM -> TBuf<VECCALC>
    by DataCopyPad (rms_norm_merge_n.h:140, DataCopyCustom), which A2 executes (the emulator faults it in strict mode only).
    """
    code, out = rms_norm(capsys, dtypes, 16, 256)
    assert code == 1
    assert "tiling key 2, block dim 16, UB peak 191680 B" in out
    assert (
        "MemoryFaultError: op_kernel/rms_norm_merge_n.h:52: UB over capacity: InitBuffer(TBuf<VECCALC>, 11264 B) "
        "brings the allocation to 191680 B > 188160 B usable" in out
    )
    assert "RmsNorm: 1 fault(s), matches the golden" in out


@nn_only
def test_add_rms_norm_single_n_f32_sets_one_flag_twice(capsys):
    """16 rows of 256 on 16 blocks: one row per core picks single-N (key 23), whose f32 path takes
    two MTE2_V ids from FetchEventID, which does not take the id (asc-devkit kernel_tpipe_impl.h),
    so both are 0: a second SetFlag on a pending flag and a WaitFlag no set is left for. Its one
    InitBuffer also reaches into the reserved UB. The outputs match (the emulator runs on)."""
    code, out = add_rms_norm(capsys, "f32", 16, 256)
    assert code == 1
    assert "tiling key 23, block dim 16, UB peak 195584 B" in out
    for fault in (
        "MemoryFaultError: op_kernel/add_rms_norm_single_n.h:55: UB over capacity: InitBuffer(TBuf<VECCALC>, "
        "195584 B) brings the allocation to 195584 B > 188160 B usable",
        "SyncError: op_kernel/add_rms_norm_single_n.h:167: SetFlag<HardEvent::MTE2_V>(0) while the flag set at "
        "op_kernel/add_rms_norm_single_n.h:164 is still pending (no WaitFlag in between): undefined on hardware",
        "DeadlockError: op_kernel/add_rms_norm_single_n.h:169: WaitFlag<HardEvent::MTE2_V>(0) with no "
        "SetFlag<HardEvent::MTE2_V>(0) pending: the V pipe would wait forever",
    ):
        assert fault in out
    assert "AddRmsNorm: 5 fault(s), matches the golden" in out


@nn_only
def test_add_rms_norm_multi_n_gathers_into_a_freed_rstd(capsys):
    """f16, 100 aligned rows of 4096 (multi-N, key 14): rstd is EnQue'd, copied out and freed, then
    ComputeY's in-place Gather (add_rms_norm_multi_n.h:220) rewrites it with no sync after the MTE3
    copy (:278). Gather rewrites each lane the copy reads with its own value, so the data is right."""
    code, out = add_rms_norm(capsys, "f16", 100, 4096)
    assert code == 1
    assert "tiling key 14, block dim 34," in out
    assert (
        "RaceError: op_kernel/add_rms_norm_multi_n.h:220: write-after-read race on UB [0x12000, 0x12020) of "
        "TQue#3 slot 0" in out
    )
    assert (
        "V Gather at op_kernel/add_rms_norm_multi_n.h:220 writes it after MTE3 DataCopyPad(UB->GM) at " in out
    )
    assert "AddRmsNorm: 1 fault(s), matches the golden" in out


@nn_only
@pytest.mark.parametrize(
    "run,dtypes,rows,cols,key,blocks",
    [
        (rms_norm, "f32,f32", 1000, 1003, 2, 48),  # merge-N, a tail of rows, unaligned rows
        (rms_norm, "f16,f16", 1000, 1003, 2, 48),
        (rms_norm, "bf16,bf16", 1000, 1003, 2, 48),
        (rms_norm, "f16,f32", 100, 1003, 2, 34),  # mixed dtypes (f32 gamma)
        (rms_norm, "f16,f16", 100, 4099, 0, 34),  # the normal template
        (rms_norm, "f32,f32", 50, 12345, 1, 25),  # split-D: a row over several passes
        (add_rms_norm, "f32", 1000, 1003, 22, 48),  # merge-N
        (add_rms_norm, "f16", 1000, 1003, 12, 48),
        (add_rms_norm, "bf16", 1000, 1003, 32, 48),
        (add_rms_norm, "f32", 100, 4099, 20, 34),  # normal
        (add_rms_norm, "f32", 50, 12345, 21, 25),  # split-D
    ],
    ids=lambda v: v.__name__ if callable(v) else None,
)
def test_rms_norms_match(capsys, run, dtypes, rows, cols, key, blocks):
    code, out = run(capsys, dtypes, rows, cols)
    assert code == 0, out
    assert f"tiling key {key}, block dim {blocks}," in out
    assert "no faults, matches the golden" in out
