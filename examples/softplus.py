"""Softplus with a float ``beta`` attribute, in the overflow-free form::

    softplus(x) = 1/beta * log(1 + exp(beta * x))
                = 1/beta * (relu(beta * x) + log(1 + exp(-|beta * x|)))

The second form equals the first mathematically and never overflows ``exp`` (its argument is
<= 0), so no threshold switch (PyTorch's ``threshold=20``) is needed; for large ``beta*x`` the
log term underflows to 0 and the result is ``x``, exactly the linear regime. ``beta`` must be
> 0 (as in PyTorch). Uses ``dsl.exp``, ``dsl.log``, ``dsl.abs``, ``dsl.relu`` and
``dsl.reciprocal``.

Run ``python examples/softplus.py`` to evaluate the reference interpreter on random data.
"""

import dsl
from dsl import Tensor, f16, bf16, f32


@dsl.op(dtypes=(f16, f32, bf16))
def softplus(x: Tensor, *, beta: float = 1.0):
    bx = x * beta
    return (dsl.relu(bx) + dsl.log(1 + dsl.exp(-dsl.abs(bx)))) * dsl.reciprocal(beta)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n = 4096 + 17
    for t in softplus.dtypes:
        x = rng.uniform(-30, 30, n).astype(t.np)
        for beta in (1.0, 2.0, 0.5):
            y = softplus.reference(x, beta=beta)
            x64 = x.astype(np.float64)
            exact = np.logaddexp(0, beta * x64) / beta
            err = np.max(np.abs(y.astype(np.float64) - exact) / np.maximum(np.abs(exact), 1e-3))
            print(f"{softplus.name}[{t.name}, beta={beta}]: n={n} max rel err vs float64 = {err:.3g}")
