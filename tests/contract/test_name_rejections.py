"""Names that would break the generated C++ (C++ keywords, Ascend C / CANN reserved names) or
CANN's naming rule are rejected at decoration, with ``dsl.DslError`` at the DSL line and column of
the name (the list: ``dsl/names.py``)."""

from __future__ import annotations

import textwrap
import uuid

import numpy as np
import pytest

import dsl
from backends.ascendc.names import CPP_KEYWORDS, cpp_ident
from dsl.names import RESERVED_NAMES

HEAD = "import dsl\nfrom dsl import Tensor, Scalar, f32\n\n"


def decorate(tmp_path, body: str) -> dict:
    """Run a file made of HEAD + body (written out, so the frontend reads its source); returns its
    globals."""
    path = tmp_path / f"names_{uuid.uuid4().hex[:10]}.py"
    path.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    namespace = {"__name__": path.stem}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def op(signature: str, *body: str, decorator: str = "@dsl.op") -> str:
    """An operator's source: decorator, ``def signature:``, the body lines (4 spaces in)."""
    return "\n".join([decorator, f"def {signature}:", *("    " + line for line in body)]) + "\n"


def reserved(kind: str, name: str, why: str) -> str:
    return f"{kind} '{name}' is reserved ({why}) and would break the generated C++; rename it"


ENTRY = "a parameter of every CANN kernel entry"
API_RESERVED = (
    "it is a keyword argument of op.simulate/op.profile/op.compile (reserved names: target, cores, "
    "project, dtype, vector_path, sku, l2, cann); rename it"
)
# id, source, (line, column) of the name, message
CASES = [
    (
        "op-name-keyword",
        op("double(x: Tensor)", "return x * 2"),
        (5, 5),
        "operator name 'double' is reserved (a C++ keyword) and would break the generated C++; "
        "choose another, e.g. @dsl.op(name='double_op')",
    ),
    (
        "name-kwarg-keyword",
        op("f(x: Tensor)", "return x * 2", decorator='@dsl.op(dtypes=(f32,), name="int")'),
        (4, 29),
        "operator name 'int' is reserved (a C++ keyword) and would break the generated C++; "
        "choose another, e.g. @dsl.op(name='int_op')",
    ),
    (
        "input-half",
        op("scale(half: Tensor)", "return half * 2"),
        (5, 11),
        reserved("input", "half", "an Ascend C type"),
    ),
    (
        "input-float",
        op("scale(x: Tensor, float: Scalar)", "return x * float"),
        (5, 22),
        reserved("input", "float", "a C++ keyword"),
    ),
    (
        "input-GM_ADDR",
        op("scale(x: Tensor, GM_ADDR: Tensor)", "return x + GM_ADDR"),
        (5, 22),
        reserved("input", "GM_ADDR", "an Ascend C qualifier macro"),
    ),
    (
        "input-workspace",
        op("scale(workspace: Tensor)", "return workspace * 2"),
        (5, 11),
        reserved("input", "workspace", f"{ENTRY} (GM_ADDR workspace)"),
    ),
    (
        "attribute-tiling",
        op("scale(x: Tensor, *, tiling: float = 1.0)", "return x * tiling"),
        (5, 25),
        reserved("attribute", "tiling", f"{ENTRY} (GM_ADDR tiling)"),
    ),
    (
        "attribute-opdef-reserved",
        op("scale(x: Tensor, *, options: float = 1.0)", "return x * options"),
        (5, 25),
        "attribute name 'options' is reserved by CANN's OpDef; rename it",
    ),
    # DESIGN section 2: the Operator API's keyword arguments are reserved for inputs and attributes
    (
        "input-api-target",
        op("shift(x: Tensor, target: Tensor)", "return x + target"),
        (5, 22),
        f"input name 'target' is reserved: {API_RESERVED}",
    ),
    (
        "attribute-api-dtype",
        op("scale(x: Tensor, *, dtype: float = 1.0)", "return x * dtype"),
        (5, 25),
        f"attribute name 'dtype' is reserved: {API_RESERVED}",
    ),
    (
        "attribute-api-vector-path",
        op("pick(x: Tensor, *, vector_path: bool = False)", "return x * 2"),
        (5, 24),
        f"attribute name 'vector_path' is reserved: {API_RESERVED}",
    ),
    (
        "input-api-cann",
        op("scale(x: Tensor, cann: Scalar)", "return x * cann"),
        (5, 22),
        f"input name 'cann' is reserved: {API_RESERVED}",
    ),
    (
        "output-executor",
        op("scale(x: Tensor)", "executor = x * 2", "return executor"),
        (7, 12),
        reserved("output", "executor", "a parameter of the aclnn API CANN generates"),
    ),
    (
        "inputs-one-camel-spelling",
        op("pipes(pipe: Tensor, pipe_: Tensor)", "return pipe + pipe_"),
        (5, 25),
        "'pipe_' and 'pipe' would both be spelled 'pipe' in the generated C++ (names become camelCase, "
        "with suffixes such as Gm_ and Shape); rename one",
    ),
    (
        "input-spelled-as-another-inputs-gm-member",
        op("gms(x: Tensor, x_gm: Scalar)", "return x * x_gm"),
        (5, 20),
        "'x_gm' and 'x' would both be spelled 'xGm' in the generated C++ (names become camelCase, "
        "with suffixes such as Gm_ and Shape); rename one",
    ),
    (
        "attribute-spelled-as-an-input",
        op("digits(in0: Tensor, *, in_0: float = 1.0)", "return in0 * in_0"),
        (5, 28),
        "'in_0' and 'in0' would both be spelled 'in0' in the generated C++ (names become camelCase, "
        "with suffixes such as Gm_ and Shape); rename one",
    ),
    (
        "output-spelled-as-an-input",
        op("outs(x: Tensor)", "x_shape = x * 2", "return x_shape"),
        (7, 12),
        "'x_shape' and 'x' would both be spelled 'xShape' in the generated C++ (names become camelCase, "
        "with suffixes such as Gm_ and Shape); rename one",
    ),
    (
        "op-name-double-underscore",
        op("my__op(x: Tensor)", "return x * 2"),
        (5, 5),
        "operator name 'my__op' must be snake_case ASCII (lower-case letters, digits, single '_' between "
        "them), e.g. 'apply_adam_w'; pass @dsl.op(name=...) to choose one",
    ),
    (
        "op-name-cann-host-class",
        op("op_def(x: Tensor)", "return x * 2"),
        (5, 5),
        "operator name 'op_def' makes the OpType OpDef, a class of CANN's host API, and would break the "
        "generated host code; choose another, e.g. @dsl.op(name='op_def_op')",
    ),
    (
        "name-kwarg-cann-round-trip",
        op("f(x: Tensor)", "return x * 2", decorator='@dsl.op(name="x_1")'),
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
    source = op(
        "double_it(half_x: Tensor, floats: Scalar, *, tilings: float = 1.0)",
        "workspace_out = half_x * floats * tilings",
        "return workspace_out",
    )
    double_it = decorate(tmp_path, source)["double_it"]
    assert double_it.inputs == ["half_x", "floats"] and double_it.outputs == ["workspace_out"]


def test_one_list_of_reserved_names():
    # the backend mangles with the very list the frontend rejects (a backstop for hand-made IR)
    assert CPP_KEYWORDS == frozenset(RESERVED_NAMES)
    assert {"double", "half", "GM_ADDR", "workspace", "tiling", "executor"} <= CPP_KEYWORDS
    assert cpp_ident("half") == "half_" and cpp_ident("x") == "x"


def test_attributes_named_like_operator_api_parameters_pass_by_keyword(tmp_path):
    # self, op, arrays, attrs are parameters of the Operator methods and helpers, not keywords a
    # user passes: an attribute of that name goes into **attrs (self was a TypeError: "multiple
    # values for argument 'self'")
    source = op(
        "selfy(x: Tensor, *, self: float = 1.0, op: float = 2.0, arrays: float = 0.0, attrs: bool = False)",
        "return x * self + op + arrays",
        decorator="@dsl.op(dtypes=(f32,))",
    )
    selfy = decorate(tmp_path, source)["selfy"]
    x = np.array([1.0, -2.0, 0.5], np.float32)
    want = x * np.float32(3.0) + np.float32(0.5) + np.float32(0.25)
    kw = dict(self=3.0, op=0.5, arrays=0.25, attrs=True)
    np.testing.assert_array_equal(selfy.reference(x, **kw), want)
    np.testing.assert_array_equal(selfy.reference(x, dtype="f32", **kw), want)
    assert selfy.ir(self=3.0, attrs=True).startswith("func @selfy(")
    assert dsl.precision.output_tolerances(selfy, "f32", op=1.0, self=2.0)["y"].exact
    np.testing.assert_array_equal(selfy.simulate(x, cores=1, **kw), want)
    assert selfy.profile(x, cores=1, **kw) is not None


def test_backend_rejects_names_with_one_cpp_spelling():
    # the backstop for IR that did not come from the frontend (which rejects these at the line)
    from types import SimpleNamespace

    from backends.ascendc.compile import check_names
    from dsl.errors import CompileError

    fake = SimpleNamespace(name="twins", inputs=["x", "x_gm"], outputs=["y"], _def=SimpleNamespace(attrs=[]))
    with pytest.raises(CompileError, match="'x_gm' and 'x' would both be spelled 'xGm'"):
        check_names(fake, warn_builtin=False)
    fake.inputs = ["x", "x_scale"]
    check_names(fake, warn_builtin=False)


def test_user_names_like_the_kernels_own_members_simulate(tmp_path):
    # a broadcast kernel declares rows_, cols_, step_ itself: a Scalar named `step` and inputs
    # `rows`, `cols` once redeclared `rows_` (g++: "redeclaration of ... rows_")
    source = op(
        "rowwise(rows: Tensor, cols: Tensor, step: Scalar[f32])",
        "return dsl.cast(rows * step + cols, rows.dtype)",
        decorator="@dsl.op(dtypes=(f32,), broadcast=True)",
    )
    rowwise = decorate(tmp_path, source)["rowwise"]
    rng = np.random.default_rng(1)
    a, b = rng.uniform(-2, 2, (5, 33)).astype(np.float32), rng.uniform(-2, 2, 33).astype(np.float32)
    step = np.array([0.5], np.float32)
    np.testing.assert_array_equal(rowwise.simulate(a, b, step, cores=2), rowwise.reference(a, b, step))
