"""Names that would break the generated C++ (C++ keywords, Ascend C / CANN reserved names) or
CANN's naming rule are rejected at decoration, with ``dsl.DslError`` at the DSL line and column of
the name (the list: ``dsl/names.py``)."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import uuid

import pytest

import dsl
from backends.ascendc.names import CPP_KEYWORDS, cpp_ident
from dsl.names import RESERVED_NAMES

HEAD = "import dsl\nfrom dsl import Tensor, Scalar, f32\n\n"


def decorate(tmp_path, body: str):
    """Import a module made of HEAD + body; returns (module, its path)."""
    name = f"names_{uuid.uuid4().hex[:10]}"
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(name, None)
    return mod, path


CASES = [
    (
        "op-name-keyword",
        """
        @dsl.op
        def double(x: Tensor):
            return x * 2
        """,
        (5, 5),
        "operator name 'double' is reserved (a C++ keyword) and would break the generated C++; "
        "choose another, e.g. @dsl.op(name='double_op')",
    ),
    (
        "name-kwarg-keyword",
        """
        @dsl.op(dtypes=(f32,), name="int")
        def f(x: Tensor):
            return x * 2
        """,
        (4, 29),
        "operator name 'int' is reserved (a C++ keyword) and would break the generated C++; "
        "choose another, e.g. @dsl.op(name='int_op')",
    ),
    (
        "input-half",
        """
        @dsl.op
        def scale(half: Tensor):
            return half * 2
        """,
        (5, 11),
        "input 'half' is reserved (an Ascend C type) and would break the generated C++; rename it",
    ),
    (
        "input-float",
        """
        @dsl.op
        def scale(x: Tensor, float: Scalar):
            return x * float
        """,
        (5, 22),
        "input 'float' is reserved (a C++ keyword) and would break the generated C++; rename it",
    ),
    (
        "input-GM_ADDR",
        """
        @dsl.op
        def scale(x: Tensor, GM_ADDR: Tensor):
            return x + GM_ADDR
        """,
        (5, 22),
        "input 'GM_ADDR' is reserved (an Ascend C qualifier macro) and would break the generated C++; rename it",
    ),
    (
        "input-workspace",
        """
        @dsl.op
        def scale(workspace: Tensor):
            return workspace * 2
        """,
        (5, 11),
        "input 'workspace' is reserved (a parameter of every CANN kernel entry (GM_ADDR workspace)) and "
        "would break the generated C++; rename it",
    ),
    (
        "attribute-tiling",
        """
        @dsl.op
        def scale(x: Tensor, *, tiling: float = 1.0):
            return x * tiling
        """,
        (5, 25),
        "attribute 'tiling' is reserved (a parameter of every CANN kernel entry (GM_ADDR tiling)) and "
        "would break the generated C++; rename it",
    ),
    (
        "attribute-opdef-reserved",
        """
        @dsl.op
        def scale(x: Tensor, *, dtype: float = 1.0):
            return x * dtype
        """,
        (5, 25),
        "attribute name 'dtype' is reserved by CANN's OpDef; rename it",
    ),
    (
        "output-executor",
        """
        @dsl.op
        def scale(x: Tensor):
            executor = x * 2
            return executor
        """,
        (7, 12),
        "output 'executor' is reserved (a parameter of the aclnn API CANN generates) and would break the "
        "generated C++; rename it",
    ),
    (
        "op-name-double-underscore",
        """
        @dsl.op
        def my__op(x: Tensor):
            return x * 2
        """,
        (5, 5),
        "operator name 'my__op' must be snake_case ASCII (lower-case letters, digits, single '_' between "
        "them), e.g. 'apply_adam_w'; pass @dsl.op(name=...) to choose one",
    ),
    (
        "name-kwarg-cann-round-trip",
        """
        @dsl.op(name="x_1")
        def f(x: Tensor):
            return x * 2
        """,
        (4, 14),
        "operator name 'x_1' does not survive CANN's naming rule (X1 -> x1); name it 'x1' instead",
    ),
]


@pytest.mark.parametrize("src, pos, msg", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_reserved_or_invalid_name_is_a_dsl_error_at_its_line(tmp_path, src, pos, msg):
    with pytest.raises(dsl.DslError) as info:
        decorate(tmp_path, src)
    e = info.value
    assert (e.lineno, e.offset) == pos
    assert e.msg == msg
    path = e.filename
    line = (HEAD + textwrap.dedent(src).lstrip("\n")).splitlines()[pos[0] - 1]
    caret = " " * (pos[1] - 1) + "^"
    assert str(e) == f"{path}:{pos[0]}:{pos[1]}: error: {msg}\n    {line}\n    {caret}"


def test_names_near_reserved_ones_are_fine(tmp_path):
    mod, _ = decorate(
        tmp_path,
        """
        @dsl.op
        def double_it(half_x: Tensor, floats: Scalar, *, tilings: float = 1.0):
            workspace_out = half_x * floats * tilings
            return workspace_out
        """,
    )
    assert mod.double_it.inputs == ["half_x", "floats"] and mod.double_it.outputs == ["workspace_out"]


def test_one_list_of_reserved_names():
    # the backend mangles with the very list the frontend rejects (a backstop for hand-made IR)
    assert CPP_KEYWORDS == frozenset(RESERVED_NAMES)
    assert {"double", "half", "GM_ADDR", "workspace", "tiling", "executor"} <= CPP_KEYWORDS
    assert cpp_ident("half") == "half_" and cpp_ident("x") == "x"
