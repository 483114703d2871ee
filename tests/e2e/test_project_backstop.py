"""The project writer's backstop (issue 18 item 5): generated C++ holding Python values (None, a
list, a dict, ...) or empty dtype lists is a CompileError naming the operator and the line, and
``dslc compile`` exits 1 without writing the project, never 0 with a project that cannot build."""

from __future__ import annotations

import json
import re

import pytest

from backends.ascendc import host, host_rows
from backends.ascendc.artefacts import check_generated, cpp_problems, json_problems
from dsl import CompileError
from dsl.cli import main

import dtype_t_ops as ops


@pytest.mark.parametrize(
    "line,what",
    [
        ("auto* d = context->GetRequiredInputDesc(None);", "Python's None"),
        ("const bool on = True;", "a Python bool"),
        ("const uint64_t shape[] = {1, 2}; f(x, []);", "a Python list"),
        ("g(a, [1, 2]);", "a Python list"),
        ("auto m = {'x': 1};", "a Python dict"),
        ("ge::DataType t = <class 'dsl.dtypes.DType'>;", "a Python repr"),
        ("auto t = DType(name='f16');", "a Python dtype repr"),
        ('this->Input("x").ParamType(REQUIRED).DataType({}).Format({});', "an empty list of types"),
        ("constexpr InputSpec INPUTS[] = {};", "an empty array"),
    ],
)
def test_python_artefacts_are_found(line, what):
    text = "#include <cstdint>\n// a comment: None\n" + line + "\n"
    found = cpp_problems(text)
    assert found and found[0][:2] == (3, what), found


def test_valid_cpp_is_not_flagged():
    text = """
    constexpr InputSpec INPUTS[] = {{"x", false, false, ge::DT_UNDEFINED, 0}};
    [[maybe_unused]] const DataCopyPadExtParams<float> pad{false, 0, 0, 0};
    auto f = [](int a) { return a; };
    std::sort(v.begin(), v.end(), [&](int a, int b) { return a < b; });
    delete[] p;
    x = y[0]; z = w[i + 1];
    OP_LOGE(OP_TYPE, "True or False or None [] {'k': 1}");  // None [] {} in strings and comments
    /* None
       [] */
    OP_CHECK_IF(!TilingKeyOf(attrs, tilingKey), , return ge::GRAPH_FAILED);
    """
    assert cpp_problems(text) == []


def test_json_without_dtypes_or_defaults_is_found():
    good = [{"op": "A", "input_desc": [{"name": "x", "type": ["float16"]}], "output_desc": [], "attr": []}]
    assert json_problems(json.dumps(good)) == []
    bad = [
        {
            "op": "A",
            "input_desc": [{"name": "x", "type": []}],
            "output_desc": [{"name": "y", "type": [None]}],
            "attr": [{"name": "a", "default_value": None}],
        }
    ]
    assert json_problems(json.dumps(bad)) == [
        "'x' has the dtype list []",
        "'y' has the dtype list [None]",
        "attribute 'a' has no default value",
    ]
    with pytest.raises(
        CompileError, match=r"^a: dslc generated a project that cannot build .*A.json: 'x' has"
    ):
        check_generated("a", {"A.json": json.dumps(bad), "README.md": "None []"})


def _planted_element_type(w, plan):
    """The bug issue 18 reported: an op with no input of type T wrote its index, None, into C++."""
    w.line(f"const gert::CompileTimeTensorDesc* tDesc = context->GetRequiredInputDesc({plan.t_input()});")
    w.line("const ge::DataType dtype = tDesc->GetDataType();")


def test_compile_refuses_a_project_with_none_in_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(host, "element_type", _planted_element_type)
    monkeypatch.setattr(host_rows, "element_type", _planted_element_type)
    code = main(["compile", ops.__file__, "--op", "dequant_rows", "-o", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert re.search(
        r"^dslc: .*dtype_t_ops\.py:10:1: error: dequant_rows: dslc generated a project that cannot build \(a dslc "
        r"bug; please report it with the operator\): op_host/dequant_rows\.cpp:\d+: Python's None: "
        r"const gert::CompileTimeTensorDesc\* tDesc = context->GetRequiredInputDesc\(None\);",
        err,
        re.M,
    ), err
    assert "Traceback" not in err
    assert not (tmp_path / "dequant_rows").exists() and not list(tmp_path.iterdir())


def test_an_op_whose_tensors_are_all_optional_is_refused_at_compile_time(write_module, tmp_path):
    """Its TilingFunc used to be an OP_LOGE with unused variables (a project that did not build)."""
    mod = write_module("""
        import dsl
        from dsl import Scalar, Tensor, f16

        @dsl.op(dtypes=(f16,))
        def only_optional(s: Scalar, x: Tensor | None = None, *, use: bool = True):
            y = x * s if use else x * 2
            return y
        """)
    with pytest.raises(CompileError) as e:
        mod.only_optional.compile(out_dir=tmp_path)
    assert e.value.loc.line == 6
    assert e.value.msg == (
        "only_optional: every tensor input is optional, so a call may have no tensor to take the output shape "
        "from; make one tensor input required"
    )
    assert not list(tmp_path.glob("only_optional*"))
