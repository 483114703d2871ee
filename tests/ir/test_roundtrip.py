"""print(parse(print(m))) == print(m) for frontend output and every pass output."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from dsl.ir import parse_module, print_module
from dsl.ir.verifier import verify_module
from dsl.operator import Operator
from passes import PassManager, parse_pipeline

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


def _operators(path: Path) -> list[Operator]:
    spec = importlib.util.spec_from_file_location(f"ex_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return [v for v in vars(mod).values() if isinstance(v, Operator)]


def _roundtrip(text: str) -> None:
    m = parse_module(text)
    verify_module(m)
    again = print_module(m)
    assert again == text
    assert print_module(parse_module(again)) == again


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_roundtrip_through_every_pass(path: Path):
    ops = _operators(path)
    assert ops, f"{path} defines no operator"
    for op in ops:
        for dt in op.dtypes:
            module = op.module(dt)
            text = print_module(module)
            _roundtrip(text)
            dumps: list[str] = []
            PassManager(parse_pipeline("specialize,canonicalize"), print_after_all=dumps.append).run(module)
            for dump in dumps:
                _roundtrip(dump.split("\n", 1)[1])


def test_roundtrip_without_locations_and_full_paths():
    text = """func @f(%x: tensor<..., C, bf16>, %g: tensor<C, f32>) -> (y: tensor<..., C, f32>) attributes {dtype = bf16, list = [1, 2.5, "s", inf, -inf]} {
  %0 = add %x, %g : tensor<..., C, f32> loc("/abs/path/f.py":3:7)
  return %0
}
"""
    m = parse_module(text)
    assert print_module(m, full_paths=True) == text
    assert 'loc("f.py":3:7)' in print_module(m)
    assert "loc(" not in print_module(m, locs=False)


def test_nan_attribute_roundtrips():
    text = "func @f(%x: tensor<*, f32>) -> (y: tensor<*, f32>) {\n  %0 = const {value = nan} : scalar<f32>\n  %1 = add %x, %0 : tensor<*, f32>\n  return %1\n}\n"
    assert print_module(parse_module(text)) == text
