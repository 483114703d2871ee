"""IsClose (torch.isclose without NaN equality): a bool output from comparisons::

    y = |a - b| <= atol + rtol * |b|

``rtol``/``atol`` are run-time float attributes; ``y`` is bool (one byte 0/1 per element).

Run ``python examples/is_close.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def is_close(a: Tensor, b: Tensor, *, rtol: float = 1e-5, atol: float = 1e-8):
    return dsl.abs(a - b) <= atol + rtol * dsl.abs(b)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in is_close.dtypes:
        a = rng.uniform(-1, 1, 4096 + 17).astype(t.np)
        b = (a.astype(np.float32) + rng.normal(0, 1e-3, a.shape)).astype(t.np)
        y = is_close.reference(a, b, rtol=1e-3, atol=1e-4)
        print(f"{is_close.name}[{t.name}]: close {y.mean():.1%}")
