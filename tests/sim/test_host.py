"""Host-side behaviour: TilingFunc failures, launch checks, InferShape, build errors, crashes,
attributes and the compile cache."""

from __future__ import annotations

import re

import numpy as np
import pytest

from backends.ascendc.sim import build as sim_build
from dsl.errors import BuildError, InferShapeError, SimulationError, TilingError, UnsupportedError

from .conftest import FIXTURES, OP, T910B, make_project, run
from backends.ascendc.sim import simulate_project


def _xy(n=1024):
    rng = np.random.default_rng(0)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def test_tiling_failure_carries_the_host_message(projects):
    x, y = _xy(1000)
    with pytest.raises(TilingError, match="GRAPH_FAILED") as info:
        run(projects("double_buffer"), x, y, blocks=3)
    msg = str(info.value)
    # OP_CHECK_IF + OP_LOGE (log/log.h) print as CANN's log does: level, file:line, function, op.
    assert re.search(
        r"\[ERROR\] OP \[op_host/sim_ew.cpp:\d+\]\[OPS_BASE\]\[TilingFunc\] OpName:\[SimEw:SimEw\] "
        r"1000 elements do not split over 3 blocks",
        msg,
    ), msg
    assert "[INFO]" not in msg  # CANN's default log level prints errors only


def test_log_level_from_the_environment(projects, monkeypatch):
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "1")
    x, y = _xy(1000)
    with pytest.raises(TilingError) as info:
        run(projects("double_buffer"), x, y, blocks=3)
    assert "[INFO] OP [op_host/sim_ew.cpp:" in str(info.value)
    assert "total 1000, tile 256, blocks 3, key 0" in str(info.value)


def test_op_check_null_with_context(tmp_path):
    proj = make_project(tmp_path, "double_buffer")
    host = proj / "op_host" / f"{OP}.cpp"
    text = host.read_text().replace(
        "    OP_CHECK_NULL_WITH_CONTEXT(context, tile);",
        "    OP_CHECK_NULL_WITH_CONTEXT(context, context->GetOptionalInputShape(1));\n"
        "    OP_CHECK_NULL_WITH_CONTEXT(context, tile);",
    )
    host.write_text(text)
    x, _ = _xy()
    with pytest.raises(
        TilingError, match=r"OpName:\[SimEw\] context->GetOptionalInputShape\(1\) is nullptr!"
    ):
        run(proj, x, None)


def test_op_tiling_check_from_error_util(tmp_path):
    proj = make_project(tmp_path, "double_buffer")
    host = proj / "op_host" / f"{OP}.cpp"
    text = host.read_text().replace('#include "log/log.h"', '#include "error_util.h"')
    text = text.replace(
        "    OP_CHECK_NULL_WITH_CONTEXT(context, tile);",
        "    OP_TILING_CHECK(*context->GetAttrs()->GetAttrPointer<float>(3) < 0.0f,\n"
        '                    VECTOR_INNER_ERR_REPORT_TILIING(context, "alpha %f is negative", *alpha),\n'
        "                    return ge::GRAPH_FAILED);\n"
        "    OP_CHECK_NULL_WITH_CONTEXT(context, tile);",
    )
    host.write_text(text)
    x, y = _xy()
    with pytest.raises(
        TilingError, match=r"\[ERROR\] OP .*OpName:\[SimEw:SimEw\] alpha -2.000000 is negative"
    ):
        run(proj, x, y, alpha=-2.0)
    assert np.array_equal(run(proj, x, y, alpha=2.0).outputs[0], x * np.float32(2.0) + y)


@pytest.mark.parametrize("blocks", [0, 64])
def test_block_dim_outside_the_core_count(projects, blocks):
    x, y = _xy()
    with pytest.raises(TilingError, match="block dim"):
        run(projects("double_buffer"), x, y, blocks=blocks)


def test_cores_argument_is_what_the_platform_reports(projects):
    x, y = _xy()
    with pytest.raises(TilingError, match="outside 1..2"):
        run(projects("double_buffer"), x, y, blocks=4, cores=2)


def test_infershape_disagreeing_with_outputs(projects):
    x, y = _xy()
    with pytest.raises(InferShapeError, match=r"\(1024,\) but the caller allocated \(512,\)"):
        run(projects("double_buffer"), x, y, out_shape=(512,))


def test_attr_types_follow_the_opdef(projects):
    x, y = _xy()
    # ints and bools are coerced to the declared Float/Int kinds
    res = run(projects("double_buffer"), x, y, tile=512, alpha=3)
    assert np.array_equal(res.outputs[0], x * np.float32(3) + y)


def test_missing_required_input(projects):
    _, y = _xy()
    with pytest.raises(SimulationError, match="'x' is REQUIRED"):
        simulate_project(
            projects("double_buffer"),
            OP,
            inputs=[None, y],
            outputs=[((1024,), np.float32)],
            attrs=[256, 1, 0, 2.0],
            target=T910B,
        )


def test_target_not_in_addconfig(tmp_path):
    proj = make_project(tmp_path, "double_buffer")
    host = proj / "op_host" / f"{OP}.cpp"
    host.write_text(host.read_text().replace('.AddConfig("ascend910b")', ""))
    x, y = _xy()
    with pytest.raises(UnsupportedError, match='AddConfig\\("ascend910b"\\)'):
        run(proj, x, y)


def test_build_error_has_the_compiler_message(tmp_path):
    src = (
        (FIXTURES / "kernels" / "double_buffer.cpp")
        .read_text()
        .replace("tiles_ = perCore / tile;", "tiles_ = ;")
    )
    proj = make_project(tmp_path, "broken", src)
    x, y = _xy()
    with pytest.raises(BuildError, match=r"op_kernel/sim_ew.cpp:\d+:\d+: error"):
        run(proj, x, y)


def test_warnings_are_errors_in_generated_sources(tmp_path):
    src = (
        (FIXTURES / "kernels" / "double_buffer.cpp")
        .read_text()
        .replace("uint64_t offset =", "int unused = 0;\n        uint64_t offset =")
    )
    proj = make_project(tmp_path, "warning", src)
    x, y = _xy()
    with pytest.raises(BuildError, match="unused"):
        run(proj, x, y)


def test_a_crashing_kernel_does_not_take_python_down(tmp_path):
    src = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void sim_ew(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    volatile float* p = nullptr;
    p[td.totalLength] = 1.0f;
}
"""
    proj = make_project(tmp_path, "crash", src)
    x, y = _xy()
    with pytest.raises(SimulationError, match="signal 11"):
        run(proj, x, y)


def test_build_is_cached_by_content(tmp_path, monkeypatch):
    proj = make_project(tmp_path, "double_buffer")
    src = sim_build.ProjectSources.find(proj, OP)
    exe = sim_build.build_project(src, 2201, 5)
    assert sim_build.build_project(src, 2201, 5) == exe
    assert sim_build.build_project(src, 3510, 5) != exe
    kernel = proj / "op_kernel" / f"{OP}.cpp"
    kernel.write_text(kernel.read_text() + "\n// edited\n")
    assert sim_build.build_project(sim_build.ProjectSources.find(proj, OP), 2201, 5) != exe


def test_std_cpp_tiling_style_and_scalar_input():
    x = np.arange(512, dtype=np.float32)
    s = np.array([0.25], dtype=np.float32)
    res = simulate_project(
        FIXTURES / "std_tiling",
        "std_scale",
        inputs=[x, s],
        outputs=[((512,), np.float32)],
        attrs=[],
        target=T910B,
    )
    assert np.array_equal(res.outputs[0], x * np.float32(0.25))
    assert res.counters["S"]["instructions"] == 1 and res.block_dim == 1
