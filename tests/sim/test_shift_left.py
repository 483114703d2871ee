"""ShiftLeft, the count form (asc-devkit dav_c220: b16/b32 integers, the shift in [0, bits]), on
the fixture kernel fixtures/kernels/shift_left.cpp: the bits shifted, and its faults with lines."""

from __future__ import annotations

import numpy as np
import pytest

from dsl.errors import UnsupportedError

from .conftest import run


def test_shift_left_moves_the_bits(projects):
    x = np.arange(-128, 128, dtype=np.int16)
    got = run(projects("shift_left"), x).outputs[0]
    assert np.array_equal(got.view(np.uint16), (x.view(np.uint16).astype(np.uint32) << 8).astype(np.uint16))


@pytest.mark.parametrize(
    "key,message",
    [
        (1, "op_kernel/sim_ew.cpp:28: ShiftLeft: shift 17 outside [0, 16]"),
        (2, "op_kernel/sim_ew.cpp:25: ShiftLeft does not support int8"),
    ],
)
def test_shift_left_faults(projects, key, message):
    x = np.arange(256, dtype=np.int16)
    with pytest.raises(UnsupportedError) as info:
        run(projects("shift_left"), x, key=key)
    assert message in str(info.value)
