"""DESIGN section 2's ``quant_matmul`` as written there: ``x @ w`` with i8 x and w as [K, N]. On
ascend910b the cube's B comes from w's ND -> NZ copy through ``LoadDataWithTranspose`` (int8 32 x
32 squares NZ -> ZN); the i32 sums are exact, so simulate equals reference bit for bit. Shapes:
aligned 256^3, M = 1, odd M, N not a multiple of 16 (nor 32), K over one L1 step (i8: STEP_K *
BASE_K = 1024 on 910B), more tiles than cores, on 1 and 8 cores, on ascend910b and ascend950 (there
with LoadData2dTransposeParamsV2, the i32 rows Fixpipe'd into UB)."""

from __future__ import annotations

import numpy as np
import pytest

from test_matmul import load_source

DESIGN_SOURCE = """\
import dsl
from dsl import Tensor, bf16, f16, f32, i8


@dsl.op(dtypes=(bf16, f16))
def quant_matmul(x: Tensor[i8, "M", "K"], w: Tensor[i8, "K", "N"], scale: Tensor[f32, "N"],
                 per_token: Tensor[f32, "M", 1]):
    return dsl.cast(dsl.cast(x @ w, f32) * scale * per_token, dsl.T)
"""

SHAPES = [  # M, K, N, cores
    (256, 256, 256, 8),
    (1, 64, 48, 1),
    (33, 40, 70, 8),
    (17, 1100, 17, 1),
    (300, 48, 270, 8),
    (5, 1030, 40, 8),
]


@pytest.fixture(scope="module")
def quant_matmul(tmp_path_factory):
    path = tmp_path_factory.mktemp("qmm_kn") / "quant_matmul_kn.py"
    return load_source(path, DESIGN_SOURCE, "mm_quant_matmul_kn").quant_matmul


def _inputs(m, k, n, seed=11):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (m, k)).astype(np.int8)
    w = rng.integers(-128, 128, (k, n)).astype(np.int8)
    scale = rng.uniform(1e-3, 1e-2, n).astype(np.float32)
    per_token = rng.uniform(1e-2, 1e-1, (m, 1)).astype(np.float32)
    return x, w, scale, per_token


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("m,k,n,cores", SHAPES, ids=[f"{s[0]}x{s[1]}x{s[2]}-c{s[3]}" for s in SHAPES])
@pytest.mark.parametrize("dt", ["bf16", "f16"])
def test_design_quant_matmul_is_bit_exact(quant_matmul, m, k, n, cores, dt, target):
    T = next(d for d in quant_matmul.dtypes if d.name == dt)
    x, w, scale, per_token = _inputs(m, k, n)
    got = quant_matmul.simulate(x, w, scale, per_token, dtype=T, cores=cores, target=target)
    ref = quant_matmul.reference(x, w, scale, per_token, dtype=T)
    np.testing.assert_array_equal(got.view(np.uint16), ref.view(np.uint16))
    acc = (x.astype(np.int64) @ w.astype(np.int64)).astype(np.float32)
    exact = (acc * scale) * per_token
    np.testing.assert_array_equal(ref.astype(np.float32), exact.astype(T.np).astype(np.float32))


@pytest.mark.parametrize("target,params", [("ascend910b", ""), ("ascend950", "V2")])
def test_the_kernel_loads_w_with_load_data_with_transpose(quant_matmul, tmp_path, target, params):
    proj = quant_matmul.compile(target=target, out_dir=tmp_path)
    text = "".join((proj / "op_kernel" / "quant_matmul.cpp").read_text().split())  # clang-format's wraps
    assert "LoadDataWithTranspose(bL0[p][i*nb*CUBE*C0],bL1[s][(kb0+i)*C0*C0]," in text
    if params:  # 950: in fractals (16 rows of 32 B), srcFracGap 0
        assert "LoadData2dTransposeParamsV2{0,uint8_t(nb/2),uint16_t(kL1Pad/CUBE),1,0,0}" in text
    else:  # 910B: in 32 x 32 squares
        assert "LoadData2dTransposeParams{0,uint8_t(nb/2),uint16_t(kL1Pad/C0),1,0}" in text
