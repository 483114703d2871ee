"""What the matmul backend does not take yet is a located error (message + DSL line), raised
before anything is written: an operand the epilogue uses too, static attributes that change the
cube tiling, optional inputs without a static attribute, a per-row [M, 1] value compared with a
row, [M, 1] outputs of a tile without whole rows. (i8 operands with b as [K, N] compile:
tests/e2e/test_quant_matmul_kn.py.)"""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

from dsl import CompileError

SOURCE = """\
import dsl
from dsl import Tensor, Scalar, f16, f32


@dsl.op(dtypes=(f16,))
def reuse(x: Tensor["M", "M"], w: Tensor["M", "M"]):
    y = x @ w
    return y + dsl.cast(x, f32)


@dsl.op(dtypes=(f16,))
def keyed(x: Tensor["M", "K"], w: Tensor["K", "N"], *, norm: bool = False):
    y = x @ w
    return y * dsl.rsqrt(dsl.mean(y * y, axis=-1, keepdims=True) + 1e-6) if norm else y


@dsl.op(dtypes=(f16,))
def optional(x: Tensor["M", "K"], w: Tensor["K", "N"], r: Tensor[f32, "M", "N"] | None = None):
    return x @ w


@dsl.op(dtypes=(f16,))
def per_token(x: Tensor["M", "K"], w: Tensor["K", "N"], s: Tensor[f32, "M", 1]):
    y = x @ w
    return dsl.where(y > s, y, 0.0)


@dsl.op(dtypes=(f16,))
def row_sum(x: Tensor["M", "K"], w: Tensor["K", "N"], s: Tensor[f32, "M", 1]):
    y = x @ w * s
    t = s + 1.0
    return y, t
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    path = tmp_path_factory.mktemp("mmerr") / "mm_errors.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("mm_errors", path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = m
    spec.loader.exec_module(m)
    return m


CASES = [
    ("reuse", 8, "input 'x' is a matmul operand ([M, K] / [K, N]) and is used by the epilogue too"),
    ("keyed", 13, "operator keyed: the static attributes change the cube tiling (a reduction along N"),
    (
        "optional",
        19,
        "input 'r' of operator optional: an optional input of a matmul operator needs a static attribute",
    ),
    (
        "per_token",
        25,
        "'vec.brc' (a per-row value over whole rows, or a Welford variance) is not supported in a matmul epilogue",
    ),
    (
        "row_sum",
        31,
        "output 't' is tensor<M, 1, f32>: a matmul epilogue stores [M, N] outputs, and [M, 1] ones of a tile "
        "that holds whole rows (a reduction along N)",
    ),
]


@pytest.mark.parametrize("name,line,message", CASES, ids=[c[0] for c in CASES])
def test_refusal_names_the_line(mod, tmp_path, name, line, message):
    op = getattr(mod, name)
    with pytest.raises(CompileError) as e:
        op.compile(out_dir=tmp_path / "out")
    assert message in e.value.msg, e.value.msg
    assert e.value.loc is not None and e.value.loc.line == line, (e.value.loc, e.value.msg)
    assert not (tmp_path / "out").exists()
