"""A linear layer followed by RMSNorm over its output row: ``y = rms_norm(x @ w.T) * gamma``.

    h    = x @ w.T                                  the cube's f32 sum, [M, N]
    rstd = rsqrt(mean(h * h, axis=-1) + epsilon)    one value per row: a reduction along N
    y    = h * rstd * gamma                         rounded once to x's dtype

``x`` is [M, K], ``w`` [N, K] (a torch Linear's weight), ``gamma`` [N] in f32. The reduction
along N needs the whole row in one output tile (base_n >= N): the cube tile is one row of
fractals high and N wide, up to the largest N the L0B/L0C double buffers allow (host tiling
rejects a larger N).

Run ``python examples/matmul_rms_norm.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, bf16, f16, f32


@dsl.op(dtypes=(f16, bf16))
def matmul_rms_norm(
    x: Tensor["M", "K"], w: Tensor["N", "K"], gamma: Tensor[f32, "N"], *, epsilon: float = 1e-6
):
    h = x @ w.T
    rstd = dsl.rsqrt(dsl.mean(h * h, axis=-1, keepdims=True) + epsilon)
    return dsl.cast(h * rstd * gamma, x.dtype)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in matmul_rms_norm.dtypes:
        x = rng.standard_normal((8, 64)).astype(t.np)
        w = rng.standard_normal((48, 64)).astype(t.np)
        gamma = rng.uniform(0.5, 1.5, 48).astype(np.float32)
        y = matmul_rms_norm.reference(x, w, gamma)
        h = x.astype(np.float64) @ w.astype(np.float64).T
        want = h / np.sqrt(np.mean(h * h, axis=-1, keepdims=True) + 1e-6) * gamma
        print(
            f"{matmul_rms_norm.name}[{t.name}]: max |y - numpy| = {np.abs(y.astype(np.float64) - want).max():.3g}"
        )
