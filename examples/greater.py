"""Greater: elementwise ``x1 > x2`` with numpy broadcasting; the output ``y`` is bool_ (one
byte, 0/1), as in reference-ops.md section 3 (Greater / GreaterEqual).

Run ``python examples/greater.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32, i8, i32, u8


@dsl.op(dtypes=(f16, f32, bf16, i8, i32, u8), broadcast=True)
def greater(x1: Tensor, x2: Tensor):
    return x1 > x2


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in greater.dtypes:
        a = rng.integers(0, 5, (4, 33)).astype(t.np)
        b = rng.integers(0, 5, (33,)).astype(t.np)
        y = greater.reference(a, b)
        print(
            f"{greater.name}[{t.name}]: {a.shape} > {b.shape} -> {y.dtype}{list(y.shape)}, true {y.mean():.1%}"
        )
