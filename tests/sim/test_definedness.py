"""Definedness (DESIGN s7): reading UB that nothing wrote is no fault; a fault is reported only
where the undefined data escapes (a copy into an output tensor, a scalar GetValue), with the
instruction and line that left it undefined. Fixture: kernels/undef_escape.cpp."""

from __future__ import annotations

import numpy as np
import pytest

from dsl.errors import MemoryFaultError

from .conftest import run

LANES, VALID = 64, 36
KERNEL = "op_kernel/sim_ew.cpp"


def _inputs(rng):
    x = rng.standard_normal(LANES).astype(np.float32)
    return x, np.zeros(LANES, np.float32)


def test_compare_past_the_tail_with_valid_lanes_copied_out_is_clean(projects, rng):
    # Lanes 32-35 share a mask byte with the undefined lanes 36-39: mask bits are tracked per lane.
    x, y = _inputs(rng)
    res = run(projects("undef_escape"), x, y, key=0)
    src = np.concatenate([x[:32], np.full(VALID - 32, 2.0, np.float32)])
    assert np.array_equal(res.outputs[0][:VALID], np.where(src >= 0, src, np.float32(0)))


@pytest.mark.parametrize(
    "key,line,fragments",
    [
        (
            1,
            48,
            [
                f"{KERNEL}:48: MTE3 DataCopy(UB->GM) at {KERNEL}:48 copies undefined data to output 0 'z' "
                f"bytes [{VALID * 4}, 256)",
                f"left undefined by V Select at {KERNEL}:41",
                "TBuf<VECIN>#0",
                "which nothing had written (uninitialised UB)",
            ],
        ),
        (
            2,
            50,
            [
                f"{KERNEL}:50: MTE3 DataCopyPad(UB->GM) at {KERNEL}:50 copies undefined data to output 0 'z' "
                "bytes [0, 4)",
                f"left undefined by V ReduceSum at {KERNEL}:42",
            ],
        ),
        (
            3,
            37,
            [
                f"{KERNEL}:37: S LocalTensor::GetValue at {KERNEL}:37 reads an element that holds undefined data: "
                "UB 0xa0 of TBuf<VECIN>#0",
                "which nothing has written (uninitialised UB)",
                "may decide a branch or form an address",
            ],
        ),
        (
            4,
            58,
            [
                f"{KERNEL}:58: MTE3 DataCopy(UB->GM) at {KERNEL}:58 copies undefined data to output 0 'z' "
                f"bytes [{VALID * 4}, 256)",
                f"left undefined by MTE2 DataCopy(GM->UB) at {KERNEL}:55",
                f"input 1 'y' bytes [{VALID * 4}, ...) written by MTE3 DataCopy(UB->GM) at {KERNEL}:52",
                f"left undefined by V Select at {KERNEL}:41",
            ],
        ),
    ],
)
def test_undefined_data_faults_where_it_escapes(projects, rng, key, line, fragments):
    x, y = _inputs(rng)
    with pytest.raises(MemoryFaultError) as info:
        run(projects("undef_escape"), x, y, key=key)
    msg = str(info.value)
    assert msg.startswith(f"{KERNEL}:{line}: "), msg
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in:\n{msg}"
