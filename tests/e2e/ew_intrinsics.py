"""One-intrinsic elementwise operators for ``test_intrinsics_simulate.py``: each DSL math
function alone, so its generated formula is checked on its whole domain instead of inside a
larger expression that may hide its error (``1 + tanh(x)`` hides tanh's error near 0)."""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def ew_tanh(x: Tensor):
    return dsl.tanh(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_sigmoid(x: Tensor):
    return dsl.sigmoid(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_exp(x: Tensor):
    return dsl.exp(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_log(x: Tensor):
    return dsl.log(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_sqrt(x: Tensor):
    return dsl.sqrt(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_rsqrt(x: Tensor):
    return dsl.rsqrt(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_reciprocal(x: Tensor):
    return dsl.reciprocal(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_abs(x: Tensor):
    return dsl.abs(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_relu(x: Tensor):
    return dsl.relu(x)


@dsl.op(dtypes=(f16, f32, bf16))
def ew_neg(x: Tensor):
    return -x


@dsl.op(dtypes=(f16, f32, bf16))
def ew_square(x: Tensor):
    return x**2


@dsl.op(dtypes=(f16, f32, bf16))
def ew_pow_half(x: Tensor):
    return x**0.5


@dsl.op(dtypes=(f16, f32, bf16))
def ew_div(a: Tensor, b: Tensor):
    return a / b


# An input named like the single-expression output ("y"): generated identifiers, OpDef names and
# the json description must still be distinct.
@dsl.op(dtypes=(f16, f32, bf16))
def ew_named_y(x: Tensor, y: Tensor):
    return x / y
