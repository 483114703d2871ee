"""Named dims (DESIGN.md section 2): which contradictions between ``Tensor["C"]``-style
declarations the frontend rejects at compile time, and which programs it must accept.

What is decidable: equal names are equal at run time, and a named tensor combines with another
only when, right-aligned, every pair of dims has the same name or a literal 1 (a keepdims result),
i.e. one's dims are a suffix of the other's up to size-1 axes. ``[N, C]`` with ``[C, N]`` would
need N == C, which the declarations do not say (they name two sizes), so no call of such an op is
within the contract: a ``DslError`` at the line that combines them, for ``broadcast=False`` and
``broadcast=True`` alike (numpy broadcasting at run time is for unshaped tensors). Programs whose
named dims can agree (suffixes, size-1 axes, repeated names) are accepted and compute as numpy."""

from __future__ import annotations

import numpy as np
import pytest

from dsl import DslError

HEAD = "\nimport dsl\nfrom dsl import Tensor, f32\n"


@pytest.mark.parametrize("broadcast", [False, True])
def test_transposed_names_are_rejected_at_the_line(write_module, broadcast):
    with pytest.raises(DslError) as info:  # at decoration: every dtype is lowered
        write_module(HEAD + f"""
@dsl.op(dtypes=(f32,), broadcast={broadcast})
def f(x: Tensor["N", "C"], y: Tensor["C", "N"]):
    s = x * 2.0
    return s + y
""")
    err = info.value
    assert err.msg == "mismatched dims 'C' and 'N' in shapes [N, C] and [C, N]"
    assert (err.lineno, err.offset) == (8, 12)
    assert "return s + y" in str(err) and "^" in str(err)


def test_contradiction_through_an_intermediate_and_where(write_module):
    """[N, C] * [C] is [N, C]; where(.., [N, C], [N]) then needs C == N: rejected at the where."""
    with pytest.raises(DslError) as info:  # at decoration: every dtype is lowered
        write_module(HEAD + """
@dsl.op(dtypes=(f32,))
def g(x: Tensor["N", "C"], y: Tensor["C"], z: Tensor["N"]):
    t = x * y
    return dsl.where(t > 0, t, z)
""")
    assert info.value.msg == "mismatched dims 'C' and 'N' in shapes [N, C] and [N]"
    assert info.value.lineno == 8


def test_rank_contradiction_is_rejected(write_module):
    """A three-dim declaration against a two-dim one whose names disagree right-aligned."""
    with pytest.raises(DslError) as info:  # at decoration: every dtype is lowered
        write_module(HEAD + """
@dsl.op(dtypes=(f32,))
def h(x: Tensor["B", "S", "H"], y: Tensor["S", "B"]):
    return x - y
""")
    assert info.value.msg == "mismatched dims 'H' and 'B' in shapes [B, S, H] and [S, B]"
    assert info.value.lineno == 7


def test_declarations_that_can_agree_are_accepted(write_module):
    """Never reject what the contract allows: a suffix, a repeated name, a keepdims 1, [N, 1]."""
    mod = write_module(HEAD + """
@dsl.op(dtypes=(f32,), broadcast=True)
def ok(x: Tensor["N", "C"], y: Tensor["C"], sq: Tensor["C", "C"], m: Tensor["N", 1]):
    s = dsl.sum(x)
    t = dsl.maximum(x, y)
    u = dsl.where(m > 0, t, s)
    v = sq * y
    return u, v
""")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 4)).astype(np.float32)
    y = rng.standard_normal((4,)).astype(np.float32)
    sq = rng.standard_normal((4, 4)).astype(np.float32)
    m = rng.standard_normal((4, 1)).astype(np.float32)
    u, v = mod.ok.reference(x, y, sq, m)
    want = np.where(m > 0, np.maximum(x, y), x.sum(axis=-1, keepdims=True))
    np.testing.assert_allclose(u, want, rtol=1e-6)
    np.testing.assert_array_equal(v, sq * y)
