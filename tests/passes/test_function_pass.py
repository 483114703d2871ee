"""passes.manager.function_pass: an option-less pass from a per-function transform, run only on the
functions of its IR level, registered under its name."""

from __future__ import annotations

import pytest

from dsl.ir import parse_module
from passes.manager import PASSES, FunctionPass, PassError, function_pass, parse_pipeline

TWO_LEVELS = """
func @t(%x: tensor<*, f32>) -> (y: tensor<*, f32>) {
  %y = neg %x : tensor<*, f32>
  return %y
}
func @u(%x: tensor<*, f32>) -> (y: tensor<*, f32>) attributes {level = "tile"} {
  loop.tiles {slots = 2} do {
    %x_t = dma.load %x {slots = 2} : tensor<*, f32>
    %y = neg %x_t {slots = 2} : tensor<*, f32>
    dma.store %y {output = "y"}
  }
  return
}
"""


@pytest.fixture
def visited():
    seen: list[str] = []
    names = []

    def make(level: str):
        name = f"test-visit-{level}"
        names.append(name)
        return function_pass(name, level, lambda func: seen.append(func.name))

    yield make, seen
    for name in names:
        PASSES.pop(name, None)


@pytest.mark.parametrize("level, funcs", [("tensor", ["t"]), ("tile", ["u"]), ("any", ["t", "u"])])
def test_runs_on_the_functions_of_its_level(visited, level, funcs):
    make, seen = visited
    cls = make(level)
    assert issubclass(cls, FunctionPass) and cls.__name__ == f"TestVisit{level.capitalize()}Pass"
    (p,) = parse_pipeline(f"test-visit-{level}")
    assert isinstance(p, cls) and p.spelling() == f"test-visit-{level}"
    p.run(parse_module(TWO_LEVELS))
    assert seen == funcs


def test_has_no_options(visited):
    make, _ = visited
    make("any")
    with pytest.raises(PassError, match="pass 'test-visit-any' has no option 'ub' \\(options: none\\)"):
        parse_pipeline("test-visit-any{ub=1}")


def test_the_registered_passes_keep_their_class_names():
    assert PASSES["compare-f16"].__name__ == "CompareF16Pass"
    assert PASSES["insert-sync"].__module__ == "passes.insert_sync" and PASSES["insert-sync"].level == "tile"
    assert PASSES["canonicalize"].level == "any" and PASSES["tile"].level == "tensor"


def test_a_patched_module_function_changes_the_pass(monkeypatch):
    import passes.insert_sync as insert_sync

    seen = []
    monkeypatch.setattr(insert_sync, "insert", lambda func: seen.append(func.name))
    parse_pipeline("insert-sync")[0].run(parse_module(TWO_LEVELS))
    assert seen == ["u"]
