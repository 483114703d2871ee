"""AcosGrad as a dslc operator: ``z = -dy / sqrt(1 - y * y)``, elementwise, the formula of
hicann/ops-math ``experimental/math/acos_grad_v2`` (calibration point C18 of
shared/reference/perf-constants.md section 6: the fused A2 kernel on 1024 x 1024 took 6.97 / 7.90 /
8.09 us in f32 / f16 / bf16)."""

import dsl
from dsl import Tensor, bf16, f16, f32


@dsl.op(dtypes=(f32, f16, bf16))
def acos_grad(y: Tensor, dy: Tensor):
    return -dy / dsl.sqrt(1 - y * y)
