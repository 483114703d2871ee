"""Silu (swish): ``y = x * sigmoid(x) = x / (1 + exp(-x))``, elementwise.

All arithmetic is in f32; f16/bf16 inputs are widened on load and ``y`` is rounded once to T.

Run ``python examples/silu.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def silu(x: Tensor):
    return x * dsl.sigmoid(x)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in silu.dtypes:
        x = rng.uniform(-8, 8, n).astype(t.np)
        y = silu.reference(x)
        x32 = x.astype(np.float32)
        err = np.max(np.abs(y.astype(np.float32) - x32 / (1 + np.exp(-x32))))
        print(f"{silu.name}[{t.name}]: n={n} y in [{y.min()}, {y.max()}], max |y - numpy| = {err:.3g}")
