"""A linear layer with a tanh GELU: ``y = gelu(x @ w.T + bias)``, cast back to x's dtype.

``x`` is [M, K], ``w`` [N, K] (a torch Linear's weight, used transposed) and ``bias`` [N] in f32.
The product is the cube's f32 sum; the bias add and the GELU are the epilogue, run on the vector
cores over the rows of each output tile (the bias slice of the tile's columns reloaded per tile).

Run ``python examples/linear_gelu.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, bf16))
def linear_gelu(x: Tensor["M", "K"], w: Tensor["N", "K"], bias: Tensor[f32, "N"]):
    y = x @ w.T + bias
    return dsl.cast(0.5 * y * (1 + dsl.tanh(0.7978845608 * (y + 0.044715 * y * y * y))), x.dtype)


if __name__ == "__main__":
    import math

    import numpy as np

    rng = np.random.default_rng(0)
    for t in linear_gelu.dtypes:
        x = rng.standard_normal((8, 64)).astype(t.np)
        w = rng.standard_normal((48, 64)).astype(t.np)
        bias = rng.standard_normal(48).astype(np.float32)
        y = linear_gelu.reference(x, w, bias)
        h = x.astype(np.float64) @ w.astype(np.float64).T + bias
        want = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
        print(
            f"{linear_gelu.name}[{t.name}]: max |y - numpy| = {np.abs(y.astype(np.float64) - want).max():.3g}"
        )
