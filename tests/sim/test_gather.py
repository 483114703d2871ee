"""Gather, the count form (asc-devkit Gather.md: dst[i] = src at byte srcBaseAddr + srcOffset[i]),
on the fixture kernel fixtures/kernels/gather.cpp, against numpy, and its faults with their lines."""

from __future__ import annotations

import numpy as np
import pytest

from dsl.errors import MemoryFaultError, UnsupportedError

from .conftest import run

N = 256


@pytest.fixture
def x(rng):
    return rng.standard_normal(N).astype(np.float32)


def test_gather_reversed(projects, x):
    assert np.array_equal(run(projects("gather"), x, key=0).outputs[0], x[::-1])


def test_in_place_gather_whose_order_does_not_matter(projects, x):
    """AddRmsNorm's in-place broadcast of each block's lane 0: runs by default, a strict fault."""
    got = run(projects("gather"), x, key=1).outputs[0]
    assert np.array_equal(got, np.repeat(x[::8], 8))
    with pytest.raises(UnsupportedError) as info:
        run(projects("gather"), x, key=1, strict=True)
    assert (
        "op_kernel/sim_ew.cpp:40: Gather: dst UB [0x0, 0x400) overlaps the src element lane 0 reads"
        in str(info.value)
    )
    assert "Gather does not support dst and src in the same memory (strict mode)" in str(info.value)


@pytest.mark.parametrize(
    "key,err,message",
    [
        (
            2,
            UnsupportedError,
            "op_kernel/sim_ew.cpp:40: Gather: lane 0 reads UB 0x3fc, which lane 255 of dst overwrites with another "
            "value: with dst and src in the same memory (unsupported) the result depends on the order of the lanes",
        ),
        (
            3,
            MemoryFaultError,
            "op_kernel/sim_ew.cpp:43: Gather: lane 0 reads src byte 2 (srcBaseAddr 0 + srcOffset 2), not a multiple "
            "of sizeof(float)",
        ),
        (
            4,
            MemoryFaultError,
            "op_kernel/sim_ew.cpp:43: Gather: src element UB [0x7fc, 0x800) (4 B) runs outside TBuf<VECCALC>#0",
        ),
    ],
)
def test_gather_faults(projects, x, key, err, message):
    with pytest.raises(err) as info:
        run(projects("gather"), x, key=key)
    assert message in str(info.value)
