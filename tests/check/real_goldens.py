"""numpy goldens of the real ops-nn / ops-math operators tests/check/test_real_kernels.py runs with
`dslc check --golden` (our own formulas from the operators' documented semantics)."""

import numpy as np


def greater(x1, x2):
    return np.greater(x1.astype(np.float64), x2.astype(np.float64))


def is_close(x1, x2, rtol, atol, equal_nan):
    a, b = x1.astype(np.float64), x2.astype(np.float64)
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def apply_adam_w(
    var,
    m,
    v,
    beta1_power,
    beta2_power,
    lr,
    weight_decay,
    beta1,
    beta2,
    epsilon,
    grad,
    max_grad_norm,
    amsgrad,
    maximize,
):
    """AdamW as the kernel states it (beta powers are those of the previous step)."""
    assert not amsgrad
    np.seterr(invalid="ignore")
    f = lambda a: np.asarray(a, dtype=np.float32)
    b1p, b2p, lr_, wd, b1, b2, eps = (
        float(f(a).reshape(-1)[0])
        for a in (beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon)
    )
    g = -f(grad) if maximize else f(grad)
    m_new = b1 * f(m) + (1 - b1) * g
    v_new = b2 * f(v) + (1 - b2) * g * g
    var_new = f(var) * (1 - lr_ * wd) + lr_ / (b1p * b1 - 1) * m_new / (np.sqrt(v_new / (1 - b2p * b2)) + eps)
    dt = var.dtype
    return var_new.astype(dt), m_new.astype(dt), v_new.astype(dt)


def add_layer_norm(x1, x2, gamma, beta, bias, epsilon, additional_output):
    """AddLayerNorm (ops-nn norm/add_layer_norm README): x = x1 + x2 (+ bias); LayerNorm of x over
    the last dimension with gamma/beta; outputs y, mean, rstd (= 1 / sqrt(var + epsilon)) and x."""
    x = x1.astype(np.float64) + x2.astype(np.float64)
    if bias is not None:
        x = x + bias.astype(np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + float(epsilon))
    y = (x - mean) * rstd * gamma.astype(np.float64) + beta.astype(np.float64)
    dt = x1.dtype
    return y.astype(dt), mean.astype(np.float32), rstd.astype(np.float32), x.astype(dt)


def rms_norm(x, gamma, epsilon):
    """RmsNorm (ops-nn norm/rms_norm README): rstd = 1 / sqrt(mean(x^2) + epsilon) over gamma's
    trailing dimensions; y = x * rstd * gamma in x's dtype, rstd in f32 (shape: x's leading
    dimensions, then ones)."""
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    xf = x.astype(np.float64)
    rstd = 1.0 / np.sqrt((xf * xf).mean(axis=axes, keepdims=True) + float(epsilon))
    y = xf * rstd * gamma.astype(np.float64)
    return y.astype(x.dtype), rstd.astype(np.float32)


def add_rms_norm(x1, x2, gamma, epsilon):
    """AddRmsNorm (ops-nn norm/add_rms_norm README): x = x1 + x2, rounded to the inputs' dtype (an
    output); then RmsNorm of that x with gamma: y, rstd (f32), x."""
    x = (x1.astype(np.float64) + x2.astype(np.float64)).astype(x1.dtype)
    y, rstd = rms_norm(x, gamma, epsilon)
    return y, rstd, x
