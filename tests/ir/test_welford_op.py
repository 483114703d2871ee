"""welford.var: the tile op a column-chunked row kernel computes a variance with (chunk_rows)."""

from __future__ import annotations

import numpy as np
import pytest

from dsl.ir import tile_ops  # noqa: F401  (declares the tile-level ops)
from dsl.ir.ops import OPS
from dsl.ir.parser import parse_module
from dsl.ir.verifier import VerifyError, verify_module

HEAD = (
    "func @f(%x: tensor<..., C, f32>) -> (v: tensor<..., 1, f32>) "
    'attributes {level = "tile", layout = "rows"} {\n  loop.tiles do {\n'
    "    %x_t = dma.load %x : tensor<..., C, f32>\n"
    '    %m = reduce %x_t {kind = "mean", keepdims = true} : tensor<..., 1, f32>\n'
    "    %n = neg %m : tensor<..., 1, f32>\n"
)
TAIL = '    dma.store %v {output = "v"}\n  }\n  return\n}\n'


def test_welford_var_is_the_mean_square_around_the_shift():
    x = np.array([[1, 3, 5, 7], [2, 2, 2, 6]], np.float32)
    n = -x.mean(-1, keepdims=True)
    got = OPS["welford.var"].interp([x, n], {}, None)
    np.testing.assert_array_equal(got, np.array([[5], [3]], np.float32))


def test_welford_var_reads_the_mean_as_blocks():
    """{blocks = true}: the shift is the mean itself (its Brcb blocks, as row-forms leaves ``x - m``)."""
    x = np.array([[1, 3, 5, 7], [2, 2, 2, 6]], np.float32)
    got = OPS["welford.var"].interp([x, x.mean(-1, keepdims=True)], {"blocks": True}, None)
    np.testing.assert_array_equal(got, np.array([[5], [3]], np.float32))


def test_welford_var_parses_and_verifies():
    m = parse_module(HEAD + "    %v = welford.var %x_t, %n : tensor<..., 1, f32>\n" + TAIL)
    verify_module(m)


@pytest.mark.parametrize(
    "line, message",
    [
        ("    %v = welford.var %x_t, %n : tensor<..., 1, f16>\n", "type of the shift it reads"),
        ("    %v = welford.var %x_t : tensor<..., 1, f32>\n", "takes 2 operands"),
    ],
)
def test_welford_var_type_errors(line, message):
    with pytest.raises(VerifyError) as e:
        verify_module(parse_module(HEAD + line + TAIL))
    assert message in str(e.value) and "welford.var" in str(e.value)
