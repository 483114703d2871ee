"""Lerp with a Scalar weight: ``y = start + weight * (end - start)``, elementwise.

``weight`` is a ``Scalar``: a shape-[1] GM tensor of dtype T, read once per core into a scalar
register and applied with vector-scalar instructions (Muls), never broadcast into UB.

Run ``python examples/lerp.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def lerp(start: Tensor, end: Tensor, weight: Scalar):
    return start + weight * (end - start)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in lerp.dtypes:
        start = rng.uniform(-2, 2, n).astype(t.np)
        end = rng.uniform(-2, 2, n).astype(t.np)
        for w in (0.0, 0.25, 1.0):
            y = lerp.reference(start, end, np.array([w], dtype=t.np))
            print(
                f"{lerp.name}[{t.name}, weight={w}]: n={n} mean={np.mean(y.astype(np.float32)):+.6f} "
                f"(start {np.mean(start.astype(np.float32)):+.6f}, end {np.mean(end.astype(np.float32)):+.6f})"
            )
