"""RmsProp: one step of the RMSProp optimizer, elementwise, in two conventions::

    ms_out   = rho * ms + (1 - rho) * grad * grad
    scale    = rsqrt(ms_out + epsilon)              if form == "tf"    (TF ApplyRMSProp)
             = reciprocal(sqrt(ms_out) + epsilon)   if form == "torch" (torch.optim.RMSprop)
    mom_out  = momentum * mom + lr * grad * scale
    var_out  = var - mom_out

``lr`` is a ``Scalar``; ``rho``, ``momentum`` and ``epsilon`` are float attributes (run-time
values in the tiling data); ``form`` is a static ``Literal`` attribute (one kernel path per
value). Uses ``dsl.rsqrt``, ``dsl.sqrt`` and ``dsl.reciprocal``.

Run ``python examples/rms_prop.py`` to evaluate the reference interpreter on random data.
"""

from typing import Literal

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16), ranges={"ms": (0, 2), "lr": (1e-4, 1e-2)})  # ms: a mean square, >= 0
def rms_prop(
    var: Tensor,
    ms: Tensor,
    mom: Tensor,
    grad: Tensor,
    lr: Scalar,
    *,
    rho: float = 0.9,
    momentum: float = 0.0,
    epsilon: float = 1e-7,
    form: Literal["tf", "torch"] = "tf",
):
    ms_out = ms * rho + (1 - rho) * grad * grad
    if form == "tf":
        scale = dsl.rsqrt(ms_out + epsilon)
    else:
        scale = dsl.reciprocal(dsl.sqrt(ms_out) + epsilon)
    mom_out = mom * momentum + lr * grad * scale
    var_out = var - mom_out
    return var_out, ms_out, mom_out


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in rms_prop.dtypes:
        var = rng.uniform(-1, 1, n).astype(t.np)
        ms = rng.uniform(0, 0.1, n).astype(t.np)
        mom = rng.uniform(-0.01, 0.01, n).astype(t.np)
        grad = rng.uniform(-1, 1, n).astype(t.np)
        lr = np.array([1e-3], dtype=t.np)
        for form in ("tf", "torch"):
            var_out, ms_out, mom_out = rms_prop.reference(var, ms, mom, grad, lr, momentum=0.9, form=form)
            print(
                f"{rms_prop.name}[{t.name}, form={form}]: n={n} "
                f"var_out mean={np.mean(var_out.astype(np.float32)):+.6f} "
                f"ms_out mean={np.mean(ms_out.astype(np.float32)):.6f} "
                f"mom_out mean={np.mean(mom_out.astype(np.float32)):+.6f}"
            )
