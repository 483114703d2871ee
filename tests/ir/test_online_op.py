"""online.sum: the tile op a column-chunked row kernel computes softmax's sum with in the max's
pass (chunk_rows.online, kernel OnlineSum)."""

from __future__ import annotations

import numpy as np
import pytest

from dsl.ir import tile_ops  # noqa: F401  (declares the tile-level ops)
from dsl.ir.ops import OPS
from dsl.ir.parser import parse_module
from dsl.ir.verifier import VerifyError, verify_module

HEAD = (
    "func @f(%x: tensor<..., C, f32>) -> (s: tensor<..., 1, f32>) "
    'attributes {level = "tile", layout = "rows"} {\n  loop.tiles do {\n'
    "    %x_t = dma.load %x : tensor<..., C, f32>\n"
    '    %m = reduce %x_t {kind = "max", keepdims = true} : tensor<..., 1, f32>\n'
    "    %n = neg %m : tensor<..., 1, f32>\n"
    "    %d = vec.adds %x_t, %n : tensor<..., C, f32>\n"
    "    %e = exp %d : tensor<..., C, f32>\n"
)
TAIL = '    dma.store %s {output = "s"}\n  }\n  return\n}\n'


def test_online_sum_of_a_whole_row_is_its_sum():
    """Over a whole row the max is final: the sum of the exponentials, in f32."""
    x = np.array([[0, -1, -2, -3], [0, 0, -30, -1]], np.float32)
    e = np.exp(x)
    got = OPS["online.sum"].interp([e, x.max(-1, keepdims=True)], {}, None)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, e.sum(-1, keepdims=True, dtype=np.float32))


def test_online_sum_parses_and_verifies():
    verify_module(parse_module(HEAD + "    %s = online.sum %e, %m : tensor<..., 1, f32>\n" + TAIL))


@pytest.mark.parametrize(
    "line, message",
    [
        ("    %s = online.sum %e, %m : tensor<..., 1, f16>\n", "type of the max it reads"),
        ("    %s = online.sum %e : tensor<..., 1, f32>\n", "takes 2 operands"),
    ],
)
def test_online_sum_type_errors(line, message):
    with pytest.raises(VerifyError) as e:
        verify_module(parse_module(HEAD + line + TAIL))
    assert message in str(e.value) and "online.sum" in str(e.value)
