"""Operators whose inputs do not give T (issue 18, items 3 and 5): ``dsl.T`` names it in the body,
``dtype=`` chooses it, the generated operator takes it as the ``dst_type`` attribute. A fixed
module (not written per test), so the emulator builds of its projects are cached across runs."""

import dsl
from dsl import T, Scalar, Tensor, bf16, f16, f32, i32, u8, i8


@dsl.op(dtypes=(f16, bf16))
def dequant_rows(x: Tensor[i8, ..., "C"], scale: Tensor[f32, "C"]):
    return dsl.cast(dsl.cast(x, f32) * scale, dsl.T)


@dsl.op(dtypes=(bf16, f16))
def dequant_flat(x: Tensor[i8], scale: Scalar[f32]):
    return dsl.cast(dsl.cast(x, f32) * scale, T)


# bool_ inputs are not in the backend yet (a cast of a bool input is a CompileError), so the op
# whose only input is pinned reads u8.
@dsl.op(dtypes=(f32,))
def widen_u8(m: Tensor[u8]):
    wide = dsl.cast(m, i32)
    narrow = dsl.cast(m, f16)
    return wide, narrow


@dsl.op(dtypes=(f16, bf16))
def scale_to_t(x: Tensor, s: Tensor[f32]):
    return dsl.cast(dsl.cast(x, f32) * s, dsl.T)


@dsl.op(dtypes=(f16, bf16), broadcast=True)
def dequant_bcast(x: Tensor[i8], scale: Tensor[f32]):
    return dsl.cast(dsl.cast(x, f32) * scale, dsl.T)


@dsl.op(dtypes=(f16, bf16))
def dequant_bias(x: Tensor[i8], bias: Tensor | None = None, *, has_bias: bool = False):
    """T's only input is optional: the kernel's T is the output's DTYPE macro."""
    wide = dsl.cast(x, f32)
    return dsl.cast(wide + bias, dsl.T) if has_bias else dsl.cast(wide, dsl.T)


@dsl.op(dtypes=(f16, bf16))
def dequant_two(x: Tensor[i8], s: Scalar[f32], *, alpha: float = 2.0):
    acc = dsl.cast(x, f32) * s
    y = dsl.cast(acc * alpha, dsl.T)
    return y, acc
