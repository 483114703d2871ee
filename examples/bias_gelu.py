"""Bias + GELU (tanh approximation) on a 2-D activation: ``h = x + bias``, per column bias.

    y = 0.5 * h * (1 + tanh(sqrt(2 / pi) * (h + 0.044715 * h^3)))

``x`` is ``Tensor["R", "C"]`` (exactly two dims) and ``bias`` is ``Tensor["C"]``: the bias is
broadcast over the rows (suffix broadcasting), resident in UB on the device.

Run ``python examples/bias_gelu.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def bias_gelu(x: Tensor["R", "C"], bias: Tensor["C"]):
    h = x + bias
    inner = 0.7978845608028654 * (h + 0.044715 * h * h * h)
    return 0.5 * h * (1.0 + dsl.tanh(inner))


if __name__ == "__main__":
    import math

    import numpy as np

    rng = np.random.default_rng(0)
    for t in bias_gelu.dtypes:
        x = rng.uniform(-4, 4, (8, 768)).astype(t.np)
        bias = rng.uniform(-1, 1, 768).astype(t.np)
        y = bias_gelu.reference(x, bias)
        h = x.astype(np.float64) + bias
        want = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
        print(
            f"{bias_gelu.name}[{t.name}]: max |y - numpy| = {np.abs(y.astype(np.float64) - want).max():.3g}"
        )
