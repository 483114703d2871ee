"""What the frontend produces for accepted programs (types, names, static paths)."""

from __future__ import annotations

import numpy as np
import pytest

import dsl
from dsl import DslError


def test_names_types_and_weak_constants(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32, i8

        @dsl.op(dtypes=(f16, f32))
        def scale(x: Tensor[..., "C"], g: Tensor[f32, "C"], s: Scalar, *, alpha: float = 0.5):
            y = x * 2 + g * alpha
            q = dsl.cast(y * s, i8)
            return y, q
        """)
    text = mod.scale.ir(dsl.f16)
    assert "%x: tensor<..., C, f16>" in text
    assert "%g: tensor<C, f32>" in text
    assert "const {value = 2.0} : scalar<f16>" in text  # a Python number takes the tensor's type
    assert 'attr {name = "alpha"} : scalar<f32>' in text
    assert "%y = add" in text and ": tensor<..., C, f32>" in text  # f16 + f32 -> f32
    assert "-> (y: tensor<..., C, f32>, q: tensor<..., C, i8>)" in text
    assert mod.scale.outputs == ["y", "q"]
    assert mod.scale.attrs == {"alpha": 0.5}


def test_static_if_merges_with_static_select_and_specializes(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor
        from typing import Literal

        @dsl.op
        def f(x: Tensor, h: Tensor | None = None, *, mode: Literal["a", "b"] = "a", use: bool = False):
            if mode == "b" and not use:
                y = x * 3
            elif use:
                y = dsl.maximum(x, h)
            else:
                y = x
            return y
        """)
    generic = mod.f.func("f32")
    ops = [op.opname for op in generic.body]
    assert ops.count("static.select") == 2 and "static.is" in ops and "static.not" in ops
    assert "max" not in mod.f.ir(mode="b", use=False)
    assert "max %x, %h" in mod.f.ir(use=True)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(mod.f.reference(x, mode="b"), x * 3)
    np.testing.assert_array_equal(mod.f.reference(x, -x + 2, use=True), np.maximum(x, -x + 2))
    with pytest.raises(dsl.ArgumentError, match="optional input 'h' is required when mode='a', use=True"):
        mod.f.reference(x, use=True)


def test_optional_output(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def f(a: Tensor, b: Tensor, *, extra: bool = False):
            s = a + b
            y = s * s
            return y, s if extra else None
        """)
    a = np.ones(3, np.float32)
    y, s = mod.f.reference(a, a)
    assert s is None and y.tolist() == [4, 4, 4]
    y, s = mod.f.reference(a, a, extra=True)
    assert s.tolist() == [2, 2, 2]
    assert "s: tensor<*, f32> optional" in mod.f.ir()


def test_reassignment_gets_fresh_ssa_names(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def f(x: Tensor):
            y = x + 1
            y = y * y
            y += 1
            return y
        """)
    text = mod.f.ir()
    assert "%y = add" in text and "%y_1 = mul %y, %y" in text and "%y_2 = add %y_1" in text
    assert "return %y_2" in text


def test_reductions_and_suffix_broadcast(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32, bf16

        @dsl.op(dtypes=(f32, bf16))
        def norm(x: Tensor["R", "C"], gamma: Tensor["C"], *, eps: float = 1e-5):
            mean = dsl.mean(x, axis=-1, keepdims=True)
            d = x - mean
            var = dsl.sum(d ** 2, axis=1) / 1
            return d * dsl.rsqrt(var + eps) * gamma
        """)
    text = mod.norm.ir(dsl.bf16)
    assert 'reduce %x {kind = "mean", keepdims = true} : tensor<R, 1, bf16>' in text
    assert "-> (y: tensor<R, C, bf16>)" in text


def test_the_body_is_never_executed(write_module, tmp_path):
    marker = tmp_path / "ran"
    mod = write_module(f"""
        import dsl
        from dsl import Tensor

        @dsl.op
        def f(x: Tensor):
            y = x * 2
            return y

        def touch():
            open({str(marker)!r}, "w").close()
        """)
    assert not marker.exists()
    with pytest.raises(TypeError, match="reference"):
        mod.f(np.ones(2, np.float32))


def test_error_message_has_caret_and_location(write_module):
    with pytest.raises(DslError) as e:
        write_module("""
            import dsl
            from dsl import Tensor

            @dsl.op
            def f(x: Tensor):
                for i in x:
                    x = x + 1
                return x
            """)
    err = e.value
    assert (err.lineno, err.offset) == (7, 5)
    text = str(err)
    assert f"{err.filename}:7:5: error: loops are not allowed" in text
    assert "        for i in x:\n        ^" in text
    assert isinstance(err, SyntaxError)
