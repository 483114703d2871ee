"""GeluTanh: the tanh approximation of GELU, elementwise.

Semantics::

    y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))

with ``sqrt(2/pi) = 0.7978845608028654`` and ``x**3`` written as ``x * x * x`` (the DSL allows
``**`` only with exponent 2 or 0.5). All arithmetic is in f32; f16/bf16 inputs are widened on
load and ``y`` is rounded once to T on store.

Run ``python examples/gelu_tanh.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def gelu_tanh(x: Tensor):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1 + dsl.tanh(inner))


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in gelu_tanh.dtypes:
        x = rng.uniform(-6, 6, n).astype(t.np)
        y = gelu_tanh.reference(x)
        x32 = x.astype(np.float32)
        exact = 0.5 * x32 * (1 + np.tanh(0.7978845608028654 * (x32 + 0.044715 * x32**3)))
        err = np.max(np.abs(y.astype(np.float32) - exact))
        print(f"{gelu_tanh.name}[{t.name}]: n={n} y in [{y.min()}, {y.max()}], max |y - numpy| = {err:.3g}")
