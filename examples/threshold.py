"""Threshold (torch.nn.functional.threshold): keep x where it exceeds ``threshold``, else ``value``::

    y = x if x > threshold else value        (element-wise: dsl.where)

Exercises a comparison feeding ``dsl.where`` with run-time float attributes.

Run ``python examples/threshold.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def threshold(x: Tensor, *, threshold: float = 0.0, value: float = 0.0):
    return dsl.where(x > threshold, x, value)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in threshold.dtypes:
        x = rng.uniform(-1, 1, 4096 + 17).astype(t.np)
        y = threshold.reference(x, threshold=0.25, value=-2.0)
        print(f"{threshold.name}[{t.name}]: kept {(y == x).mean():.1%}")
