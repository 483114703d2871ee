"""FakeQuant: per-tensor affine fake quantization (quantize, then dequantize) with int
attributes, like ``torch.fake_quantize_per_tensor_affine``::

    q = clamp(round(x / scale) + zero_point, quant_min, quant_max)
    y = cast((q - zero_point) * scale, T)

``round`` is round-half-to-even (``dsl.round``, like ``torch.round``/``nearbyint``).
``scale`` is a pinned ``Scalar[f32]`` (a per-tensor scale is a float32 value whatever T is),
so the arithmetic is f32 and the result is cast back to ``x.dtype`` explicitly.
``zero_point``, ``quant_min`` and ``quant_max`` are int attributes: run-time values carried in
the tiling data (one kernel serves int8 [-128, 127] and uint8 [0, 255] ranges alike), weakly
typed in the arithmetic. PyTorch multiplies by ``1/scale`` instead of dividing; the two differ
in the last f32 bit for some inputs, which can move a value across a rounding tie.

Run ``python examples/fake_quant.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16), ranges={"scale": (0.01, 0.1)})  # a quantization step, > 0
def fake_quant(
    x: Tensor,
    scale: Scalar[f32],
    *,
    zero_point: int = 0,
    quant_min: int = -128,
    quant_max: int = 127,
):
    q = dsl.round(x / scale) + zero_point
    q = dsl.minimum(dsl.maximum(q, quant_min), quant_max)
    y = dsl.cast((q - zero_point) * scale, x.dtype)
    return y


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    scale = np.array([0.05], dtype=np.float32)
    for t in fake_quant.dtypes:
        x = rng.uniform(-8, 8, n).astype(t.np)
        for zp, lo, hi in ((0, -128, 127), (128, 0, 255)):
            y = fake_quant.reference(x, scale, zero_point=zp, quant_min=lo, quant_max=hi)
            levels = np.unique(np.rint(y.astype(np.float32) / scale[0])).size
            err = np.max(np.abs(y.astype(np.float32) - x.astype(np.float32)))
            print(
                f"{fake_quant.name}[{t.name}, zero_point={zp}, range=[{lo}, {hi}]]: n={n} "
                f"{levels} levels, y in [{y.min()}, {y.max()}], max |y - x| = {err:.3g}"
            )
