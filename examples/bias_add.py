"""Bias add with numpy broadcasting: ``y = x + bias`` for x of shape [B, S, H] and bias [H].

The host merges B and S into one row axis, so the kernel runs in ROW mode: the bias row is
copied into UB once per core and kept there, x streams in packed rows at a 32-byte pitch.

Run ``python examples/bias_add.py`` to simulate it on the CPU emulator against numpy.
"""

import dsl
from dsl import Tensor, f16, bf16, f32, i32


@dsl.op(dtypes=(f16, f32, bf16, i32), broadcast=True)
def bias_add(x: Tensor, bias: Tensor):
    return x + bias


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (4, 128, 768)).astype(np.float32)
    bias = rng.uniform(-1, 1, (768,)).astype(np.float32)
    y = bias_add.simulate(x, bias)
    print(
        f"{bias_add.name}: {x.shape} + {bias.shape} -> {y.shape}, equal to numpy: {np.array_equal(y, x + bias)}"
    )
