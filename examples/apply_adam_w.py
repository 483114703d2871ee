"""ApplyAdamW: one AdamW optimizer step, written in the dslc DSL.

This is the contract example of DESIGN.md section 2, verbatim. Semantics (reference-ops.md
rule 27)::

    g      = -grad if maximize else grad
    m'     = beta1*m + (1-beta1)*g
    v'     = beta2*v + (1-beta2)*g*g
    v_hat  = max(max_grad_norm, v') if amsgrad else v'
    var'   = var*(1-lr*weight_decay)
             - lr/(1-beta1_power*beta1) * m' / (sqrt(v_hat/(1-beta2_power*beta2)) + epsilon)

``max_grad_norm`` is only read (and therefore only required) when ``amsgrad=True``.

Run ``python examples/apply_adam_w.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32, i8, i32, u8, bool_  # noqa: F401 (as in DESIGN.md)

# Where `dslc run` and the project's golden script draw random inputs from: an optimizer state
# (v >= 0, betas and their powers in (0, 1), a small positive lr and epsilon), so the sqrt and the
# divisions stay in their domain. beta2_power * beta2 stays below 1 even after bf16 rounding.
ADAM_W_RANGES = {
    "v": (0, 2),
    "max_grad_norm": (0, 2),
    "beta1_power": (0.1, 0.9),
    "beta2_power": (0.1, 0.9),
    "lr": (1e-4, 1e-2),
    "weight_decay": (0, 0.1),
    "beta1": (0.8, 0.95),
    "beta2": (0.9, 0.99),
    "epsilon": (1e-4, 1e-3),
}


# As in DESIGN.md section 2, plus the ranges= declaration.
# fmt: off
@dsl.op(dtypes=(f16, f32, bf16), ranges=ADAM_W_RANGES)
def apply_adam_w(var: Tensor, m: Tensor, v: Tensor,
                 beta1_power: Scalar, beta2_power: Scalar, lr: Scalar,
                 weight_decay: Scalar, beta1: Scalar, beta2: Scalar, epsilon: Scalar,
                 grad: Tensor, max_grad_norm: Tensor | None = None,
                 *, amsgrad: bool = False, maximize: bool = False):
    gt = -grad if maximize else grad
    m_out = m * beta1 - (beta1 - 1) * gt
    v_out = v * beta2 - (beta2 - 1) * gt * gt
    var_t = var * (1 - lr * weight_decay)
    b1p = beta1_power * beta1
    b2p = beta2_power * beta2
    if amsgrad:
        v_hat = dsl.maximum(max_grad_norm, v_out)
    else:
        v_hat = v_out
    denom = dsl.sqrt(-v_hat / (b2p - 1)) + epsilon
    var_out = var_t + lr / (b1p - 1) * (m_out / denom)
    return var_out, m_out, v_out
# fmt: on


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    # beta2_power is kept at 0.99 because 0.999 rounds to 1.0 in bf16, and
    # beta2_power * beta2 == 1 would divide by zero.
    for t in apply_adam_w.dtypes:

        def arr(lo, hi):
            return rng.uniform(lo, hi, n).astype(t.np)

        def scalar(val):
            return np.array([val], dtype=t.np)

        for amsgrad in (False, True):
            var_out, m_out, v_out = apply_adam_w.reference(
                arr(-1, 1),
                arr(-0.1, 0.1),
                arr(0, 0.01),
                scalar(0.81),
                scalar(0.99),
                scalar(1e-3),
                scalar(1e-2),
                scalar(0.9),
                scalar(0.999),
                scalar(1e-8),
                arr(-1, 1),
                arr(0, 0.01),
                amsgrad=amsgrad,
            )
            print(
                f"{apply_adam_w.name}[{t.name}, amsgrad={amsgrad}]: n={n} "
                f"var_out mean={np.mean(var_out.astype(np.float32)):+.6f} "
                f"m_out mean={np.mean(m_out.astype(np.float32)):+.6f} "
                f"v_out mean={np.mean(v_out.astype(np.float32)):.6f}"
            )
