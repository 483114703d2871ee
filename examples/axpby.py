"""Axpby with a pinned f32 Scalar and a static Literal mode::

    mode="add":  y = cast(alpha * x + beta * other, T)
    mode="sub":  y = cast(alpha * x - beta * other, T)

``alpha`` is ``Scalar[f32]``: a shape-[1] float32 GM tensor whatever T is, so an f16/bf16
kernel keeps the full-precision coefficient (it is not rounded to T first). ``alpha * x`` mixes
f32 with T and is therefore f32 (DSL type promotion), so the result is cast back to
``x.dtype`` explicitly: the output ``y`` has dtype T, rounded once. ``beta`` is a (weakly typed)
float attribute, ``mode`` a static ``Literal`` attribute: one kernel path per value, selected
by tiling key.

Run ``python examples/axpby.py`` to evaluate the reference interpreter on random data.
"""

from typing import Literal

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def axpby(
    x: Tensor,
    other: Tensor,
    alpha: Scalar[f32],
    *,
    beta: float = 1.0,
    mode: Literal["add", "sub"] = "add",
):
    ax = alpha * x
    if mode == "add":
        acc = ax + beta * other
    else:
        acc = ax - beta * other
    y = dsl.cast(acc, x.dtype)
    return y


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    # 1/3 is not representable in f16/bf16: the pinned f32 Scalar keeps it exact(ly f32).
    alpha = np.array([1 / 3], dtype=np.float32)
    for t in axpby.dtypes:
        x = rng.uniform(-2, 2, n).astype(t.np)
        other = rng.uniform(-2, 2, n).astype(t.np)
        for mode in ("add", "sub"):
            y = axpby.reference(x, other, alpha, beta=0.5, mode=mode)
            x32, o32 = x.astype(np.float32), other.astype(np.float32)
            golden = (alpha[0] * x32 + (0.5 if mode == "add" else -0.5) * o32).astype(t.np)
            print(
                f"{axpby.name}[{t.name}, mode={mode}]: n={n} y dtype={y.dtype} "
                f"equal to numpy: {np.mean(y == golden):.1%}"
            )
