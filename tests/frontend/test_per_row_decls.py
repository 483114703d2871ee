"""Declarations of one value per row (DESIGN.md section 2: a literal 1 as the last axis, only there)
and what broadcast=True means for them."""

from __future__ import annotations

import pytest

from dsl import DslError

HEAD = "\nimport dsl\nfrom dsl import Tensor, f32\n"


@pytest.mark.parametrize("decl", ['Tensor[1, "C"]', 'Tensor[..., 1, "C"]', 'Tensor["M", 1, "C"]'])
def test_a_literal_1_before_the_last_dim_is_rejected_at_the_annotation(write_module, decl):
    with pytest.raises(DslError) as info:
        write_module(HEAD + f"""
@dsl.op(dtypes=(f32,))
def f(x: Tensor[..., "C"], s: {decl}):
    return x * s
""")
    err = info.value
    assert err.msg == (
        "input 's': a literal 1 is allowed only as the last dim (one value per row, e.g. Tensor[..., 1] or "
        'Tensor["M", 1]); name the other dims'
    )
    assert (err.lineno, err.offset) == (6, 31)


def test_broadcast_true_with_an_unshaped_tensor_and_m_1_says_both_ways_out(write_module):
    with pytest.raises(DslError) as info:
        write_module(HEAD + """
@dsl.op(dtypes=(f32,), broadcast=True)
def g(x: Tensor, s: Tensor["M", 1]):
    return x * s
""")
    err = info.value
    assert err.msg == (
        "cannot combine an unshaped tensor with a tensor of shape [M, 1]; give every tensor named dims, e.g. "
        'Tensor[..., "C"] (a row operator), or declare the [M, 1] tensor a plain Tensor: with broadcast=True '
        "unshaped tensors broadcast as numpy does, e.g. an (M, 1) array along the rows of an (M, C) one"
    )
    assert (err.lineno, err.offset) == (7, 12)


def test_without_broadcast_the_message_has_no_numpy_hint(write_module):
    with pytest.raises(DslError) as info:
        write_module(HEAD + """
@dsl.op(dtypes=(f32,))
def h(x: Tensor, s: Tensor["M", 1]):
    return x * s
""")
    assert info.value.msg == (
        'cannot combine an unshaped tensor with a tensor of shape [M, 1]; give every tensor named dims, e.g. Tensor[..., "C"]'
    )
