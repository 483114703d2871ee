"""Masked fill with a broadcast mask: ``y = where(mask, value, x)`` for x of shape [B, S, S]
(attention scores) and a padding mask of shape [B, 1, S] (one row per batch, the same for every
query position), as in ``torch.Tensor.masked_fill``. ``value`` is a run-time float attribute.

The mask is i8 (0/1): ``mask != 0`` is the condition. The shapes need the general (N-D) mode:
the mask's rows repeat along the middle axis.

Run ``python examples/masked_fill.py`` to simulate it on the CPU emulator against numpy.
"""

import dsl
from dsl import Tensor, f16, f32, i8


@dsl.op(dtypes=(f16, f32), broadcast=True)
def masked_fill(x: Tensor, mask: Tensor[i8], *, value: float = -10000.0):
    return dsl.where(mask != 0, value, x)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, (2, 64, 64)).astype(np.float32)
    mask = (rng.uniform(0, 1, (2, 1, 64)) < 0.25).astype(np.int8)
    y = masked_fill.simulate(x, mask, value=-1e4)
    want = np.where(mask != 0, np.float32(-1e4), x)
    print(f"{masked_fill.name}: {x.shape} with mask {mask.shape}, equal to numpy: {np.array_equal(y, want)}")
