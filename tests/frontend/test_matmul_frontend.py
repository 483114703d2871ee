"""``a @ b`` and ``a @ w.T`` (DESIGN.md section 2, "Matrix product"): what the frontend accepts,
the IR it makes, and each rejection with its exact message, line and column."""

from __future__ import annotations

import pytest

from dsl import DslError

HEAD = "\nimport dsl\nfrom dsl import Tensor, Scalar, f16, bf16, f32, i8, i32\n"
# line numbers below count from the start of the written module: HEAD takes lines 1-3
DEF_LINE = 6  # the "def" of each case; its first body line is 7


def _reject(write_module, body: str):
    with pytest.raises(DslError) as info:  # at decoration: every dtype is lowered
        write_module(HEAD + "\n" + body)
    return info.value


def test_linear_ir(write_module):
    mod = write_module(HEAD + """
@dsl.op(dtypes=(f16, bf16))
def linear(x: Tensor["M", "K"], w: Tensor["N", "K"], bias: Tensor[f32, "N"]):
    y = x @ w.T + bias
    return dsl.cast(y, x.dtype)
""")
    text = mod.linear.ir(dtype="bf16")
    assert "  %0 = matmul %x, %w {transpose_b = true} : tensor<M, N, f32>" in text
    assert "  %y = add %0, %bias : tensor<M, N, f32>" in text
    assert "-> (y: tensor<M, N, bf16>)" in text


def test_i8_product_is_i32_and_a_at_b_is_not_transposed(write_module):
    mod = write_module(HEAD + """
@dsl.op(dtypes=(bf16,))
def qmm(x: Tensor[i8, "M", "K"], w: Tensor[i8, "K", "N"], scale: Tensor[f32, "N"], t: Tensor[f32, "M", 1]):
    return dsl.cast(dsl.cast(x @ w, f32) * scale * t, dsl.T)
""")
    text = mod.qmm.ir()
    assert "%0 = matmul %x, %w {transpose_b = false} : tensor<M, N, i32>" in text
    assert "-> (y: tensor<M, N, bf16>)" in text


def test_an_alias_of_an_input_is_an_input(write_module):
    mod = write_module(HEAD + """
@dsl.op(dtypes=(f16,))
def f(x: Tensor["M", "K"], w: Tensor["N", "K"]):
    a = x
    return a @ w.T
""")
    assert "matmul %x, %w {transpose_b = true} : tensor<M, N, f32>" in mod.f.ir()


@pytest.mark.parametrize(
    "sig,expr,msg,col",
    [
        (
            'x: Tensor["M", "K"], w: Tensor["K", "N"]',
            "x @ w",
            "'@' takes f16 x f16, bf16 x bf16 or i8 x i8 operands (the cube has no f32 product); 'x' is "
            "f32 (T = f32): generate the operator for f16/bf16, e.g. dtypes=(f16, bf16)",
            12,
        ),
        (
            'x: Tensor[f16, "M", "K"], w: Tensor[f32, "K", "N"]',
            "x @ w",
            "'@' takes f16 x f16, bf16 x bf16 or i8 x i8 operands (the cube has no f32 product); 'w' is "
            "f32: declare it f16, bf16 or i8",
            16,
        ),
        (
            'x: Tensor[i8, "M", "K"], w: Tensor[f16, "N", "K"]',
            "x @ w.T",
            "'@' needs operands of one dtype (f16 x f16, bf16 x bf16 or i8 x i8); 'x' is i8 and 'w' is "
            "f16: pin both to the same dtype",
            12,
        ),
        (
            'x: Tensor[i32, "M", "K"], w: Tensor[i32, "K", "N"]',
            "x @ w",
            "'@' takes f16 x f16, bf16 x bf16 or i8 x i8 operands (the cube has no i32 product); 'x' is "
            "i32: declare it f16, bf16 or i8",
            12,
        ),
        (
            'x: Tensor[f16, "B", "M", "K"], w: Tensor[f16, "K", "N"]',
            "x @ w",
            "batched matmul is not supported: 'x' is [B, M, K]; '@' takes 2-D operands, e.g. "
            'x: Tensor["M", "K"] (one operator call per batch)',
            12,
        ),
        (
            'x: Tensor[f16, ..., "K"], w: Tensor[f16, "N", "K"]',
            "x @ w.T",
            "batched matmul is not supported: 'x' is [..., K]; '@' takes 2-D operands, e.g. "
            'x: Tensor["M", "K"] (one operator call per batch)',
            12,
        ),
        (
            'x: Tensor[f16, "M", "K"], w: Tensor[f16, "B", "N", "K"]',
            "x @ w.T",
            "batched matmul is not supported: 'w' is [B, N, K]; '@' takes 2-D operands, e.g. "
            'w: Tensor["N", "K"] (one operator call per batch)',
            16,
        ),
        (
            'x: Tensor[f16], w: Tensor[f16, "K", "N"]',
            "x @ w",
            "the operands of '@' need two named dims; declare 'x': Tensor[\"M\", \"K\"]",
            12,
        ),
        (
            'x: Tensor[f16, "K"], w: Tensor[f16, "K", "N"]',
            "x @ w",
            "'x' is [K]; the operands of '@' are 2-D, e.g. x: Tensor[\"M\", \"K\"]",
            12,
        ),
        (
            'x: Tensor[f16, "M", 1], w: Tensor[f16, "N", 1]',
            "x @ w.T",
            "'x' is [M, 1]; the operands of '@' have two named dims (a literal 1 marks a per-row value), "
            'e.g. x: Tensor["M", "K"]',
            12,
        ),
        (
            'x: Tensor[f16, "M", "K"], s: Scalar[f16]',
            "x @ s",
            "'s' is a Scalar; the operands of '@' are 2-D tensors, e.g. s: Tensor[\"K\", \"N\"]",
            16,
        ),
    ],
)
def test_operand_rejections(write_module, sig, expr, msg, col):
    err = _reject(write_module, f"@dsl.op(dtypes=(f32,))\ndef f({sig}):\n    return {expr}\n")
    assert err.msg == msg
    assert (err.lineno, err.offset) == (DEF_LINE + 1, col)
    assert f"return {expr}" in str(err) and "^" in str(err)


def test_contracted_dims_that_cannot_agree(write_module):
    err = _reject(
        write_module,
        """@dsl.op(dtypes=(f16,))
def f(x: Tensor["M", "K"], w: Tensor["N", "D"]):
    y = x * 1
    z = x @ w.T
    return z
""",
    )
    assert err.msg == (
        "'x @ w.T' sums over 'K' of 'x' [M, K] and 'D' of the right operand: 'w.T' is [D, N] ('w' is "
        "[N, D]); 'K' and 'D' name different sizes, so the product is not defined for any call: give "
        "the contracted dim one name in both annotations"
    )
    assert (err.lineno, err.offset) == (DEF_LINE + 2, 9)


def test_w_declared_k_n_but_used_transposed(write_module):
    """w: [K, N] used as w.T contracts K with N: names that need not agree."""
    err = _reject(
        write_module,
        """@dsl.op(dtypes=(bf16,))
def f(x: Tensor["M", "K"], w: Tensor["K", "N"]):
    return x @ w.T
""",
    )
    assert err.msg.startswith("'x @ w.T' sums over 'K' of 'x' [M, K] and 'N' of the right operand")
    assert (err.lineno, err.offset) == (DEF_LINE + 1, 12)


def test_a_second_matmul(write_module):
    err = _reject(
        write_module,
        """@dsl.op(dtypes=(f16,))
def f(x: Tensor["M", "K"], w: Tensor["K", "N"], v: Tensor["K", "N"]):
    y = x @ w
    z = x @ v
    return y + z
""",
    )
    assert err.msg == (
        "an operator has at most one '@' (the first is at line 7); the rest of the body is that "
        "product's epilogue: write a second product as its own operator"
    )
    assert (err.lineno, err.offset) == (DEF_LINE + 2, 9)


def test_a_second_matmul_in_the_other_static_branch(write_module):
    """One '@' per operator, not per variant: both branches are lowered."""
    err = _reject(
        write_module,
        """@dsl.op(dtypes=(f16,))
def f(x: Tensor["M", "K"], w: Tensor["K", "N"], v: Tensor["N", "K"], *, tr: bool = False):
    y = x @ v.T if tr else x @ w
    return y
""",
    )
    assert err.msg.startswith("an operator has at most one '@' (the first is at line 7)")
    assert (err.lineno, err.offset) == (DEF_LINE + 1, 28)


@pytest.mark.parametrize(
    "body,msg,line,col",
    [
        (
            "    t = x * 2\n    return t @ w\n",
            'the left operand of \'@\' must be an input of the operator (Tensor["M", "K"]), not a computed '
            "value: the cube reads both operands from GM; compute on the product instead (the epilogue)",
            DEF_LINE + 2,
            12,
        ),
        (
            "    return x @ (w * 2)\n",
            'the right operand of \'@\' must be an input of the operator (Tensor["K", "N"]), not a '
            "computed value: the cube reads both operands from GM; compute on the product instead "
            "(the epilogue)",
            DEF_LINE + 1,
            17,
        ),
        (
            "    return x @ (v * 2).T\n",
            '\'.T\' applies only to an input of the operator (w: Tensor["N", "K"] in a @ w.T), not to a '
            "computed value: the cube reads both operands from GM as they are stored",
            DEF_LINE + 1,
            16,
        ),
        (
            "    t = v + 1\n    return x @ t.T\n",
            '\'.T\' applies only to an input of the operator (w: Tensor["N", "K"] in a @ w.T), not to a '
            "computed value: the cube reads both operands from GM as they are stored",
            DEF_LINE + 2,
            16,
        ),
        (
            "    return v.T @ w\n",
            "'.T' is allowed only on the right operand of '@' (a @ w.T with w: Tensor[\"N\", \"K\"]); declare "
            'the left operand as it is stored, a: Tensor["M", "K"]',
            DEF_LINE + 1,
            12,
        ),
        (
            "    return v.T * 2\n",
            "'.T' is allowed only on an input as the right operand of '@' (a @ w.T with w: "
            'Tensor["N", "K"]); there is no transpose elsewhere',
            DEF_LINE + 1,
            12,
        ),
    ],
)
def test_operands_must_be_inputs(write_module, body, msg, line, col):
    err = _reject(
        write_module,
        '@dsl.op(dtypes=(f16,))\ndef f(x: Tensor["M", "K"], w: Tensor["K", "N"], v: Tensor["N", "K"]):\n'
        + body,
    )
    assert err.msg == msg
    assert (err.lineno, err.offset) == (line, col)


def test_epilogue_dims_are_checked_against_m_n(write_module):
    """The product is [M, N]: a per-channel input named by K does not combine with it."""
    err = _reject(
        write_module,
        """@dsl.op(dtypes=(f16,))
def f(x: Tensor["M", "K"], w: Tensor["N", "K"], b: Tensor[f32, "K"]):
    return x @ w.T + b
""",
    )
    assert err.msg == "mismatched dims 'N' and 'K' in shapes [M, N] and [K]"
    assert (err.lineno, err.offset) == (DEF_LINE + 1, 12)


@pytest.mark.parametrize(
    "sig,body,msg,line,col",
    [
        (
            'x: Tensor["M", "K"], w: Tensor["N", "K"], r: Tensor["K"]',
            "    t = r * 2\n    y = x @ w.T\n    return y\n",
            "in an operator with '@' the rest is the product's epilogue, which takes inputs shaped [M, N], "
            "[N] (per channel), [M, 1] (per token) or Scalars; 'r' is [K]",
            DEF_LINE + 1,
            9,
        ),
        (
            'x: Tensor["M", "K"], w: Tensor["N", "K"], r: Tensor[..., "N"]',
            "    return x @ w.T + r\n",
            "in an operator with '@' the rest is the product's epilogue, which takes inputs shaped [M, N], "
            "[N] (per channel), [M, 1] (per token) or Scalars; 'r' is [..., N]",
            DEF_LINE + 1,
            12,
        ),
        (
            'x: Tensor["M", "K"], w: Tensor["N", "K"]',
            "    y = x @ w.T\n    z = x * 2\n    return y, z\n",
            "in an operator with '@' the rest is the product's epilogue, which takes inputs shaped [M, N], "
            "[N] (per channel), [M, 1] (per token) or Scalars; 'x' is [M, K]",
            DEF_LINE + 2,
            9,
        ),
        (
            'x: Tensor["M", "K"], w: Tensor["N", "K"], b: Tensor[f32, "N"]',
            "    y = x @ w.T\n    c = b * 2\n    return y, c\n",
            "output 'c' is [N]; the outputs of an operator with '@' are its epilogue's, [M, N] (or "
            "[M, 1] / [M] after a reduction along N)",
            DEF_LINE + 3,
            15,
        ),
    ],
)
def test_epilogue_inputs_and_outputs(write_module, sig, body, msg, line, col):
    err = _reject(write_module, f"@dsl.op(dtypes=(f16,))\ndef f({sig}):\n" + body)
    assert err.msg == msg
    assert (err.lineno, err.offset) == (line, col)


def test_epilogues_the_contract_allows(write_module):
    """Per channel, per token, [M, N] residuals, Scalars, reductions along N, several outputs."""
    import numpy as np

    mod = write_module(HEAD + """
@dsl.op(dtypes=(f16,))
def f(x: Tensor["M", "K"], w: Tensor["N", "K"], b: Tensor[f32, "N"], t: Tensor[f32, "M", 1],
      r: Tensor["M", "N"], s: Scalar[f32]):
    y = (x @ w.T + b) * t * s + r
    ms = dsl.mean(y * y, axis=-1, keepdims=True)
    z = y * dsl.rsqrt(ms + 1e-6)
    total = dsl.sum(y, axis=-1, keepdims=False)
    return z, ms, total
""")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 8)).astype(np.float16)
    w = rng.standard_normal((5, 8)).astype(np.float16)
    b = rng.standard_normal(5).astype(np.float32)
    t = rng.standard_normal((3, 1)).astype(np.float32)
    r = rng.standard_normal((3, 5)).astype(np.float16)
    z, ms, total = mod.f.reference(x, w, b, t, r, np.float32(0.5))
    assert (z.shape, ms.shape, total.shape) == ((3, 5), (3, 1), (3,))
    y = (x.astype(np.float64) @ w.astype(np.float64).T + b) * t * 0.5 + r
    np.testing.assert_allclose(total.astype(np.float64), y.sum(-1), rtol=2e-3)
