"""AddLayerNorm: ``x = x1 + x2 (+ bias)`` then LayerNorm over the last axis (reference-ops.md s2c).

    x    = x1 + x2 + bias            bias: one row shared by every row (with_bias)
    mean = mean(x);  rstd = rsqrt(mean((x - mean)^2) + epsilon)
    y    = (x - mean) * rstd * gamma + beta
    x_out = x                         the residual, written only when additional_output

Run ``python examples/add_layer_norm.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def add_layer_norm(
    x1: Tensor[..., "C"],
    x2: Tensor[..., "C"],
    gamma: Tensor["C"],
    beta: Tensor["C"],
    bias: Tensor["C"] | None = None,
    *,
    epsilon: float = 1e-5,
    with_bias: bool = False,
    additional_output: bool = False,
):
    x = x1 + x2 + bias if with_bias else x1 + x2
    mean = dsl.mean(x, axis=-1, keepdims=True)
    var = dsl.mean((x - mean) ** 2, axis=-1, keepdims=True)
    rstd = dsl.rsqrt(var + epsilon)
    y = (x - mean) * rstd * gamma + beta
    return y, mean, rstd, (x if additional_output else None)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in add_layer_norm.dtypes:
        x1, x2 = (rng.uniform(-1, 1, (4, 1024)).astype(t.np) for _ in range(2))
        gamma = rng.uniform(0.5, 1.5, 1024).astype(t.np)
        beta, bias = (rng.uniform(-0.5, 0.5, 1024).astype(t.np) for _ in range(2))
        y, mean, rstd, x = add_layer_norm.reference(
            x1, x2, gamma, beta, bias, with_bias=True, additional_output=True
        )
        print(f"{add_layer_norm.name}[{t.name}]: y {y.dtype}{list(y.shape)}, mean {mean.shape}, x {x.dtype}")
