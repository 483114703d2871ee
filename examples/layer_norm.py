"""LayerNorm over the last axis with an optional bias (beta), returning the statistics too.

    mean = mean(x);  d = x - mean;  var = mean(d * d);  rstd = rsqrt(var + epsilon)
    y    = d * rstd * gamma (+ beta when with_beta)

Variance by two passes over the row (mean first, then the mean of squared deviations), as the
full-load kernels of seed 002 do. ``mean`` and ``rstd`` are per-row outputs ([..., 1], T).

Run ``python examples/layer_norm.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def layer_norm(
    x: Tensor[..., "C"],
    gamma: Tensor["C"],
    beta: Tensor["C"] | None = None,
    *,
    epsilon: float = 1e-5,
    with_beta: bool = False,
):
    mean = dsl.mean(x, axis=-1, keepdims=True)
    d = x - mean
    var = dsl.mean(d * d, axis=-1, keepdims=True)
    rstd = dsl.rsqrt(var + epsilon)
    y = d * rstd * gamma
    y = y + beta if with_beta else y
    return y, mean, rstd


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in layer_norm.dtypes:
        x = rng.uniform(-2, 2, (4, 1024)).astype(t.np)
        gamma = rng.uniform(0.5, 1.5, 1024).astype(t.np)
        beta = rng.uniform(-0.5, 0.5, 1024).astype(t.np)
        y, mean, rstd = layer_norm.reference(x, gamma, beta, with_beta=True)
        x32 = x.astype(np.float32)
        m = x32.mean(-1, keepdims=True)
        want = (x32 - m) / np.sqrt(x32.var(-1, keepdims=True) + 1e-5) * gamma.astype(np.float32) + beta
        print(
            f"{layer_norm.name}[{t.name}]: max |y - numpy| = {np.abs(y.astype(np.float32) - want).max():.3g}"
        )
