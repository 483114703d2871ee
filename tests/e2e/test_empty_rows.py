"""Rows of 0 columns: `reference` refuses a reduction over them as the host tiling does (a clear
error, not numpy's "zero-size array" ValueError or a NaN mean), and 0 rows are fine on both."""

import numpy as np
import pytest

import dsl
from dsl import Tensor, f16
from dsl.errors import ArgumentError, TilingError


@dsl.op(dtypes=(f16,))
def row_peak(x: Tensor[..., "C"]):
    return x / dsl.max(dsl.abs(x), axis=-1, keepdims=True)


def test_reference_refuses_a_reduction_over_rows_of_0_columns():
    with pytest.raises(ArgumentError) as e:
        row_peak.reference(np.ones((2, 0), np.float16))
    assert str(e.value) == (
        "max along the last axis of rows of 0 columns (shape (2, 0)): a row operator needs at least one column"
    )


def test_the_host_tiling_refuses_them_too():
    with pytest.raises(TilingError) as e:
        row_peak.simulate(np.ones((2, 0), np.float16))
    assert "RowPeak" in str(e.value) and "input x has rows of 0 columns" in str(e.value)


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_zero_rows_give_an_empty_output(target):
    x = np.ones((0, 8), np.float16)
    assert row_peak.reference(x).shape == (0, 8)
    assert row_peak.simulate(x, target=target).shape == (0, 8)
