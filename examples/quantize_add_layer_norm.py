"""QuantizeAddLayerNorm: (x1 + x2 + bias) -> LayerNorm -> static int8 quantization.

Semantics (seed 002, reference-ops.md section 2a; float math in f32, one rounding per output)::

    x     = x1 + x2 + bias                         bias is per column: Tensor["C"]
    mean  = mean(x, last axis)
    var   = mean((x - mean)**2, last axis)
    rstd  = 1 / sqrt(var + epsilon)
    norm  = (x - mean) * rstd * gamma + beta
    per_channel (default):  y = int8(round(norm / scales + zero_points))
    mul:                    y = int8(round(norm * scales + zero_points))
    per_tensor:             y = int8(round(norm * scale + zero_point))
    x_out = x  (the residual), written only when additional_output=True

``round`` is half-to-even and the int8 cast saturates to [-128, 127] (the kernel chain
``Cast f32->i32 RINT -> half -> i8`` of the hand-written operator).

Decisions where the contract's shape system cannot say "one value in this mode, a row of C in
that one":

* ``scales``/``zero_points`` are the per-channel rows (``Tensor[f32, "C"]``), read by the
  ``per_channel`` and ``mul`` modes. ``per_tensor`` reads the single value from the separate
  ``Scalar[f32]`` inputs ``scale``/``zero_point`` instead (CANN passes a [1]-shaped ``scales``).
  All four are optional inputs; each mode requires only the ones it reads.
* The DSL has no "is this optional input present" test, so the zero points are gated by the
  static attribute ``with_zero_points`` (CANN decides it from the optional input's presence;
  here the caller states it, and host tiling rejects a call that sets it without the input).
* Scales and zero points are pinned to f32 (the seed's example: "scales=fp32"), for every T.
"""

from typing import Literal

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32, i8


# scales are quantization steps (> 0): dividing by them stays finite
@dsl.op(dtypes=(f16, f32, bf16), ranges={"scales": (0.01, 0.1), "scale": (0.01, 0.1)})
def quantize_add_layer_norm(
    x1: Tensor[..., "C"],
    x2: Tensor[..., "C"],
    gamma: Tensor["C"],
    beta: Tensor["C"],
    bias: Tensor["C"],
    scales: Tensor[f32, "C"] | None = None,
    zero_points: Tensor[f32, "C"] | None = None,
    scale: Scalar[f32] | None = None,
    zero_point: Scalar[f32] | None = None,
    *,
    quant_mode: Literal["per_channel", "per_tensor", "mul"] = "per_channel",
    epsilon: float = 1e-5,
    additional_output: bool = False,
    with_zero_points: bool = False,
):
    x = x1 + x2 + bias
    mean = dsl.mean(x, axis=-1, keepdims=True)
    var = dsl.mean((x - mean) ** 2, axis=-1, keepdims=True)
    rstd = dsl.rsqrt(var + epsilon)
    norm = (x - mean) * rstd * gamma + beta
    if quant_mode == "per_channel":
        q = norm / scales
    elif quant_mode == "mul":
        q = norm * scales
    else:
        q = norm * scale
    if with_zero_points and quant_mode == "per_tensor":
        q = q + zero_point
    elif with_zero_points:
        q = q + zero_points
    y = dsl.cast(dsl.round(q), i8)
    return y, (x if additional_output else None)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    rows, cols = 8, 4096
    for t in quantize_add_layer_norm.dtypes:
        x1 = rng.uniform(-1, 1, (rows, cols)).astype(t.np)
        x2 = rng.uniform(-1, 1, (rows, cols)).astype(t.np)
        gamma = rng.uniform(0.5, 1.5, cols).astype(t.np)
        beta = rng.uniform(-0.5, 0.5, cols).astype(t.np)
        bias = rng.uniform(-0.2, 0.2, cols).astype(t.np)
        scales = rng.uniform(0.02, 0.06, cols).astype(np.float32)
        zero_points = rng.integers(-3, 4, cols).astype(np.float32)
        for mode in ("per_channel", "mul", "per_tensor"):
            y, x = quantize_add_layer_norm.reference(
                x1,
                x2,
                gamma,
                beta,
                bias,
                {"per_channel": scales, "mul": 1 / scales, "per_tensor": None}[mode],
                zero_points if mode != "per_tensor" else None,
                np.array([30.0], np.float32) if mode == "per_tensor" else None,
                np.array([1.0], np.float32) if mode == "per_tensor" else None,
                quant_mode=mode,
                additional_output=True,
                with_zero_points=True,
            )
            print(
                f"{quantize_add_layer_norm.name}[{t.name}, {mode}]: y {y.dtype}{list(y.shape)} "
                f"range [{y.min()}, {y.max()}], saturated {np.mean(np.abs(y.astype(int)) >= 127):.1%}; "
                f"x {x.dtype}"
            )
