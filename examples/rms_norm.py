"""RMSNorm over the last axis: ``y = x * rsqrt(mean(x * x) + epsilon) * gamma``.

A row operator: ``x`` is rows of C elements (any leading dims), ``gamma`` one row of C shared by
every row. Math in f32; ``y`` is rounded once to T.

Run ``python examples/rms_norm.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def rms_norm(x: Tensor[..., "C"], gamma: Tensor["C"], *, epsilon: float = 1e-6):
    rstd = dsl.rsqrt(dsl.mean(x * x, axis=-1, keepdims=True) + epsilon)
    return x * rstd * gamma


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    for t in rms_norm.dtypes:
        x = rng.uniform(-2, 2, (4, 1024)).astype(t.np)
        gamma = rng.uniform(0.5, 1.5, 1024).astype(t.np)
        y = rms_norm.reference(x, gamma)
        x32 = x.astype(np.float32)
        want = x32 / np.sqrt(np.mean(x32 * x32, axis=-1, keepdims=True) + 1e-6) * gamma.astype(np.float32)
        print(
            f"{rms_norm.name}[{t.name}]: max |y - numpy| = {np.max(np.abs(y.astype(np.float32) - want)):.3g}"
        )
