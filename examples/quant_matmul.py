"""An int8 linear layer with per-channel and per-token dequantization:
``y = (x @ w.T) * scale * per_token`` in T.

``x`` [M, K] and ``w`` [N, K] are int8 (the cube sums their products exactly in int32), ``scale``
[N] is f32 (one factor per output channel), ``per_token`` [M, 1] is f32 (one factor per row of x,
a dynamic activation quantization's scale). The epilogue converts the i32 sums to f32, scales each
column, then each row (the row's factor broadcast along N) and rounds once to T (f16 or bf16,
chosen with ``dtype=``). DESIGN section 2 writes it with w [K, N] (``x @ w``), which compiles too
(B through LoadDataWithTranspose: tests/e2e/test_quant_matmul_kn.py); here w is [N, K], used
transposed (``x @ w.T``): its ND -> NZ copy already is the cube's B, no transposing load.

Run ``python examples/quant_matmul.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, bf16, f16, f32, i8


@dsl.op(dtypes=(bf16, f16))
def quant_matmul(
    x: Tensor[i8, "M", "K"], w: Tensor[i8, "N", "K"], scale: Tensor[f32, "N"], per_token: Tensor[f32, "M", 1]
):
    return dsl.cast(dsl.cast(x @ w.T, f32) * scale * per_token, dsl.T)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (8, 64)).astype(np.int8)
    w = rng.integers(-128, 128, (24, 64)).astype(np.int8)
    scale = rng.uniform(1e-3, 1e-2, 24).astype(np.float32)
    per_token = rng.uniform(1e-2, 1e-1, (8, 1)).astype(np.float32)
    for t in quant_matmul.dtypes:
        y = quant_matmul.reference(x, w, scale, per_token, dtype=t)
        acc = (x.astype(np.int64) @ w.astype(np.int64).T).astype(np.float32)
        want = (acc * scale * per_token).astype(t.np)
        print(f"{quant_matmul.name}[{t.name}]: equal to numpy: {np.array_equal(y, want)}")
