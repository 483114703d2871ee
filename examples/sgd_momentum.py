"""SgdMomentum: one step of PyTorch's SGD with momentum (no weight decay), elementwise.

Semantics (``torch.optim.SGD`` with ``weight_decay=0``, after the first step, so the momentum
buffer already exists)::

    g        = -grad if maximize else grad
    buf_out  = momentum * buf + (1 - dampening) * g
    step     = g + momentum * buf_out if nesterov else buf_out
    param_out = param - lr * step

``lr`` is a ``Scalar`` input (it changes every step with a schedule); ``momentum`` and
``dampening`` are float attributes (run-time values in the tiling data); ``nesterov`` and
``maximize`` are static bool attributes: each of the four combinations is its own kernel path,
selected by tiling key. PyTorch requires ``dampening == 0`` with Nesterov; the DSL does not
check that, it just computes the formula.

Run ``python examples/sgd_momentum.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, Scalar, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def sgd_momentum(
    param: Tensor,
    grad: Tensor,
    buf: Tensor,
    lr: Scalar,
    *,
    momentum: float = 0.9,
    dampening: float = 0.0,
    nesterov: bool = False,
    maximize: bool = False,
):
    g = -grad if maximize else grad
    buf_out = buf * momentum + (1 - dampening) * g
    if nesterov:
        step = g + buf_out * momentum
    else:
        step = buf_out
    param_out = param - lr * step
    return param_out, buf_out


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in sgd_momentum.dtypes:
        param = rng.uniform(-1, 1, n).astype(t.np)
        grad = rng.uniform(-1, 1, n).astype(t.np)
        buf = rng.uniform(-0.5, 0.5, n).astype(t.np)
        lr = np.array([0.05], dtype=t.np)
        for nesterov in (False, True):
            for maximize in (False, True):
                param_out, buf_out = sgd_momentum.reference(
                    param, grad, buf, lr, nesterov=nesterov, maximize=maximize
                )
                print(
                    f"{sgd_momentum.name}[{t.name}, nesterov={nesterov}, maximize={maximize}]: n={n} "
                    f"param_out mean={np.mean(param_out.astype(np.float32)):+.6f} "
                    f"buf_out mean={np.mean(buf_out.astype(np.float32)):+.6f}"
                )
