"""A scaled product plus a residual: ``y = alpha * (x @ w) + residual``, cast back to x's dtype.

``x`` [M, K], ``w`` [K, N], ``residual`` [M, N] of type T and ``alpha`` a Scalar (read once per
core). The epilogue widens the residual, scales the f32 product by alpha (Muls) and adds.

Run ``python examples/matmul_add.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Scalar, Tensor, bf16, f16


@dsl.op(dtypes=(f16, bf16))
def matmul_add(x: Tensor["M", "K"], w: Tensor["K", "N"], residual: Tensor["M", "N"], alpha: Scalar):
    return dsl.cast(alpha * (x @ w) + residual, x.dtype)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in matmul_add.dtypes:
        x = rng.standard_normal((8, 64)).astype(t.np)
        w = rng.standard_normal((64, 24)).astype(t.np)
        r = rng.standard_normal((8, 24)).astype(t.np)
        y = matmul_add.reference(x, w, r, 0.5)
        alpha = float(np.asarray(0.5, t.np))
        want = alpha * (x.astype(np.float64) @ w.astype(np.float64)) + r.astype(np.float64)
        print(
            f"{matmul_add.name}[{t.name}]: max |y - numpy| = {np.abs(y.astype(np.float64) - want).max():.3g}"
        )
