"""Elementwise maximum of a column and a row: ``y = maximum(a, b)`` for a of shape [N, 1] and b
of shape [1, M] gives an [N, M] table (an outer operation). Both inputs are broadcast: the host
finds the column pattern for a and the row pattern for b on the same two axes, so it picks the
general (odometer) mode, with a's values splatted per row and b's row resident in UB.

Run ``python examples/outer_max.py`` to simulate it on the CPU emulator against numpy.
"""

import dsl
from dsl import Tensor, f16, bf16, f32, i32


@dsl.op(dtypes=(f16, f32, bf16, i32), broadcast=True)
def outer_max(a: Tensor, b: Tensor):
    return dsl.maximum(a, b)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.integers(-50, 50, (300, 1)).astype(np.int32)
    b = rng.integers(-50, 50, (1, 200)).astype(np.int32)
    y = outer_max.simulate(a, b)
    print(
        f"{outer_max.name}: {a.shape} vs {b.shape} -> {y.shape}, equal to numpy: {np.array_equal(y, np.maximum(a, b))}"
    )
