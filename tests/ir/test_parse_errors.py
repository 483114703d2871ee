from __future__ import annotations

import pytest

from dsl.errors import IRParseError, VerifyError
from dsl.ir import parse_module
from dsl.ir.verifier import verify_module

GOOD_HEAD = "func @f(%x: tensor<*, f32>, %s: scalar<f32>) -> (y: tensor<*, f32>) {\n"


@pytest.mark.parametrize(
    "body, line, message",
    [
        ("  %0 = add %x, %nope : tensor<*, f32>\n  return %0\n}\n", 2, "undefined value %nope"),
        ("  %0 = frob %x : tensor<*, f32>\n  return %0\n}\n", 2, "unknown op 'frob'"),
        ("  %0 = add %x, %s tensor<*, f32>\n  return %0\n}\n", 2, "unexpected"),
        ("  %0 = add %x, %s : tensor<*, f64>\n  return %0\n}\n", 2, "unknown dtype 'f64'"),
        (
            "  %0 = add %x, %s : tensor<*, f32>\n  %0 = add %x, %s : tensor<*, f32>\n  return %0\n}\n",
            3,
            "defined twice",
        ),
        ("  %0 = add %x, %s : tensor<R, 2, f32>\n  return %0\n}\n", 2, "only the literal dim 1"),
        ("  add %x, %s : tensor<*, f32>\n  return %x\n}\n", 2, "needs both"),
    ],
)
def test_parse_errors_point_at_the_line(body, line, message):
    with pytest.raises(IRParseError) as e:
        parse_module(GOOD_HEAD + body)
    assert e.value.line == line
    assert message in str(e.value)
    assert "^" in str(e.value)


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "  %0 = add %x, %s : tensor<*, f16>\n  return %0\n}\n",
            "result type should be tensor<*, f32>",
        ),
        (
            "  %0 = div %x, %s : tensor<*, f32>\n  return %s\n}\n",
            "output 'y' is tensor<*, f32> but %s is scalar<f32>",
        ),
        ("  %0 = add %x, %s, %s : tensor<*, f32>\n  return %0\n}\n", "takes 2 operands"),
        (
            '  %0 = reduce %x {kind = "sum", keepdims = true} : tensor<*, f32>\n  return %0\n}\n',
            "named dims",
        ),
        ('  %0 = cmp %x, %s {pred = "gg"} : tensor<*, bool>\n  return %x\n}\n', "cmp predicate"),
        (
            '  %0 = static.flag {name = "nope"} : pred\n  return %x\n}\n',
            "no attribute named 'nope'",
        ),
        ("  %0 = cast %x {from = f16} : tensor<*, i8>\n  return %x\n}\n", "does not match"),
        (
            '  %0 = cast %x {from = f32, round = "odd"} : tensor<*, bf16>\n  return %x\n}\n',
            "at '%0 = cast %x {from = f32, round = \"odd\"} : tensor<*, bf16>': cast round = 'odd' applies "
            "to f32 -> f16 cast, not f32 -> bf16",
        ),
        (
            '  %0 = cast %x {from = f32, round = "rint"} : tensor<*, f16>\n  return %x\n}\n',
            "cast round = 'rint' applies to a float -> integer cast, not f32 -> f16",
        ),
        (
            '  %0 = cast %x {from = f32, round = "even"} : tensor<*, f16>\n  return %x\n}\n',
            "cast round mode must be one of odd, rint, got 'even'",
        ),
        ("  %0 = none : tensor<*, f32>\n  return %0\n}\n", "not optional"),
        ("  %0 = sqrt %x : tensor<*, f32>\n  return %0, %0\n}\n", "returns 2 values for 1 outputs"),
    ],
)
def test_verifier_rejects(body, message):
    m = parse_module(GOOD_HEAD + body)
    with pytest.raises(VerifyError) as e:
        verify_module(m)
    assert message in str(e.value)


def test_verifier_reports_use_before_def_after_a_bad_rewrite():
    m = parse_module(
        GOOD_HEAD + "  %0 = exp %x : tensor<*, f32>\n  %1 = exp %0 : tensor<*, f32>\n  return %1\n}\n"
    )
    f = m.funcs[0]
    f.body.reverse()
    with pytest.raises(VerifyError, match="used before it is defined"):
        verify_module(m)


def test_sync_event_ids():
    ok = GOOD_HEAD.replace("{\n", 'attributes {level = "tile"} {\n') + (
        '  loop.tiles do {\n    sync.set {event = "V_MTE2", id = "slot+2"}\n    sync.wait {event = "V_MTE2", id = "slot"}\n'
        "  }\n  return\n}\n"
    )
    verify_module(parse_module(ok.replace("-> (y: tensor<*, f32>)", "-> ()")))
    base = ok.replace("-> (y: tensor<*, f32>)", "-> ()")
    with pytest.raises(VerifyError, match="event id must be 0-5"):
        verify_module(parse_module(base.replace('"slot+2"', "6")))
    # insert-sync's id groups: "slot+K" stays within 0-5 for slot 0 or 1
    verify_module(parse_module(base.replace('"slot+2"', '"slot+4"')))
    with pytest.raises(VerifyError, match=r'"slot\+K" with K in 1-4'):
        verify_module(parse_module(base.replace('"slot+2"', '"slot+5"')))
