"""Log-softmax over the last axis: ``y = (x - m) - log(sum(exp(x - m)))`` with ``m = max(x)``.

Run ``python examples/log_softmax.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def log_softmax(x: Tensor[..., "C"]):
    shifted = x - dsl.max(x, axis=-1, keepdims=True)
    lse = dsl.log(dsl.sum(dsl.exp(shifted), axis=-1, keepdims=True))
    return shifted - lse


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in log_softmax.dtypes:
        x = rng.uniform(-30, 30, (4, 1000)).astype(t.np)
        y = log_softmax.reference(x)
        x32 = x.astype(np.float32)
        s = x32 - x32.max(axis=-1, keepdims=True)
        want = s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
        print(
            f"{log_softmax.name}[{t.name}]: max |y - numpy| = {np.abs(y.astype(np.float32) - want).max():.3g}"
        )
