"""LeakyRelu with a run-time float attribute ``negative_slope``::

    y = x            if x >= 0
        x * slope    otherwise

written as ``maximum(x, x * negative_slope)``. That form equals the definition only for
``negative_slope <= 1`` (for x < 0, ``x*slope >= x`` iff ``slope <= 1``; for x >= 0, ``x >=
x*slope`` iff ``slope <= 1``), which covers every practical use (PyTorch's default is 0.01).
For a slope above 1 use ``dsl.where(x >= 0, x, x * negative_slope)`` instead.

``negative_slope`` is a float attribute: a run-time value carried in the tiling data, so every
slope runs the same kernel. It is weakly typed: ``x * negative_slope`` keeps T.

Run ``python examples/leaky_relu.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def leaky_relu(x: Tensor, *, negative_slope: float = 0.01):
    return dsl.maximum(x, x * negative_slope)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in leaky_relu.dtypes:
        x = rng.uniform(-4, 4, n).astype(t.np)
        for slope in (0.01, 0.2, 0.0):
            y = leaky_relu.reference(x, negative_slope=slope)
            x32 = x.astype(np.float32)
            golden = np.where(x32 >= 0, x32, x32 * np.float32(slope)).astype(t.np)
            print(
                f"{leaky_relu.name}[{t.name}, negative_slope={slope}]: n={n} "
                f"matches np.where form: {bool(np.array_equal(y, golden))}"
            )
