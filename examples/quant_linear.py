"""An int8 linear layer with per-channel dequantization: ``y = (x @ w.T) * scale`` in T.

``x`` [M, K] and ``w`` [N, K] are int8 (the cube sums their products exactly in int32), ``scale``
[N] is f32; the epilogue converts the i32 sums to f32, scales each column and rounds to T (f16 or
bf16, chosen with ``dtype=``; the generated operator takes it as its ``dst_type`` attribute).
The i8 path is exact until the first float operation.

Run ``python examples/quant_linear.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, bf16, f16, f32, i8


@dsl.op(dtypes=(bf16, f16))
def quant_linear(x: Tensor[i8, "M", "K"], w: Tensor[i8, "N", "K"], scale: Tensor[f32, "N"]):
    return dsl.cast(dsl.cast(x @ w.T, f32) * scale, dsl.T)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (8, 64)).astype(np.int8)
    w = rng.integers(-128, 128, (24, 64)).astype(np.int8)
    scale = rng.uniform(1e-3, 1e-2, 24).astype(np.float32)
    for t in quant_linear.dtypes:
        y = quant_linear.reference(x, w, scale, dtype=t)
        want = (x.astype(np.int64) @ w.astype(np.int64).T).astype(np.float32) * scale
        print(
            f"{quant_linear.name}[{t.name}]: max |y - numpy| = {np.abs(y.astype(np.float64) - want).max():.3g}"
        )
