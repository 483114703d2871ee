"""Softmax over the last axis, max-subtracted: ``e = exp(x - max(x)); y = e / sum(e)``.

Subtracting the row maximum keeps ``exp`` finite for any input; the division keeps the
reference's rounding (it is not a multiplication by ``1 / sum``). Math in f32.

Run ``python examples/softmax.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def softmax(x: Tensor[..., "C"]):
    m = dsl.max(x, axis=-1, keepdims=True)
    e = dsl.exp(x - m)
    s = dsl.sum(e, axis=-1, keepdims=True)
    return e / s


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in softmax.dtypes:
        x = rng.uniform(-30, 30, (4, 1000)).astype(t.np)
        y = softmax.reference(x)
        x32 = x.astype(np.float32)
        e = np.exp(x32 - x32.max(axis=-1, keepdims=True))
        want = e / e.sum(axis=-1, keepdims=True)
        print(
            f"{softmax.name}[{t.name}]: row sums {y.astype(np.float32).sum(-1)}, max err {np.abs(y - want).max():.3g}"
        )
