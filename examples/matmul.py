"""The plain matrix product: ``y = x @ w`` with x [M, K] and w [K, N] in f16 or bf16, y the f32 sum.

The cube multiplies the operands exactly and sums over K in f32 (DESIGN section 2); on 910B the AI
Core's cube part writes each output tile to a GM workspace and the two vector cores copy their
halves of its rows to y.

Run ``python examples/matmul.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16


@dsl.op(dtypes=(f16, bf16))
def matmul(x: Tensor["M", "K"], w: Tensor["K", "N"]):
    return x @ w


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in matmul.dtypes:
        x = rng.standard_normal((64, 96)).astype(t.np)
        w = rng.standard_normal((96, 40)).astype(t.np)
        y = matmul.reference(x, w)
        want = x.astype(np.float64) @ w.astype(np.float64)
        print(f"{matmul.name}[{t.name}]: max |y - numpy| = {np.abs(y - want).max():.3g}")
