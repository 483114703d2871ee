"""Clamp (ClipByValue with attribute bounds): ``y = min(max(x, min_val), max_val)``.

``min_val`` and ``max_val`` are float attributes: run-time values carried in the tiling data
(one kernel for every pair of bounds), applied with vector-scalar Maxs/Mins. Like
``torch.clamp``, when ``min_val > max_val`` every element becomes ``max_val``. The bounds are
weakly typed, so the result keeps T; a bound that is not representable in T rounds with the
result (for example ``min_val=0.1`` in bf16 gives bf16(0.1)).

Run ``python examples/clamp.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def clamp(x: Tensor, *, min_val: float = -1.0, max_val: float = 1.0):
    return dsl.minimum(dsl.maximum(x, min_val), max_val)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in clamp.dtypes:
        x = rng.uniform(-3, 3, n).astype(t.np)
        for lo, hi in ((-1.0, 1.0), (0.0, 6.0), (0.5, -0.5)):
            y = clamp.reference(x, min_val=lo, max_val=hi)
            print(
                f"{clamp.name}[{t.name}, min_val={lo}, max_val={hi}]: n={n} "
                f"y in [{y.min()}, {y.max()}], clipped {np.mean(y != x):.1%}"
            )
