"""Kernels written like the hand-written ops-nn operators run unmodified: a templated entry that
nothing instantiates (the tiling key picks the instance through ASCENDC_TPL_ARGS_DECL /
ASCENDC_TPL_SEL), DTYPE_<NAME> macros, ASSERT, IsSameType, FetchEventID / AllocEventID, TQueBind,
kernel_tiling/kernel_tiling.h, and an op_host split into <op>_def.cpp / <op>_tiling.cpp /
<op>_infershape.cpp with IMPL_OP_OPTILING, IMPL_OP_INFERSHAPE and the log/log.h checks."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from backends.ascendc.sim import build as sim_build
from backends.ascendc.sim import simulate_project
from dsl.errors import BuildError, SimulationError, SyncError, TilingError

from .conftest import FIXTURES, T910B

OP = "tpl_axpy"
PROJECT = FIXTURES / OP
C_DT_FLOAT, C_DT_FLOAT16 = 0, 1
BUFFER_NUMS = (1, 2, 4)  # ASCENDC_TPL_UI_MIX, 1, 1, 2, 4: the range 1..2, then 4


def tpl_key(acc: int, buffer_num: int, has_y: bool) -> int:
    """The documented encoding: codes from bit 0 in declaration order; DATATYPE 8 bits (the ge
    code), UINT its declared 2 bits (the value's index), BOOL 1 bit."""
    return acc | BUFFER_NUMS.index(buffer_num) << 8 | int(has_y) << 10


def _run(
    project: Path,
    dtype,
    *,
    y=True,
    buffer_num=2,
    fast=False,
    tile=1024,
    alpha=1.5,
    n=8192,
    seed=0,
    cores=None,
    op=OP,
):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype)
    yv = rng.standard_normal(n).astype(dtype) if y else None
    res = simulate_project(
        project,
        op,
        inputs=[x, yv],
        outputs=[((n,), np.dtype(dtype))],
        attrs=[buffer_num, fast, tile, alpha],
        target=T910B,
        cores=cores,
    )
    return x, yv, res


def _copy(tmp_path: Path) -> Path:
    proj = tmp_path / OP
    shutil.copytree(PROJECT, proj)
    return proj


@pytest.mark.parametrize(
    "dtype,y,buffer_num,fast,acc",
    [
        (np.float32, True, 2, False, C_DT_FLOAT),
        (np.float32, False, 1, False, C_DT_FLOAT),
        (np.float16, True, 2, False, C_DT_FLOAT),  # computes in f32: Cast, Muls, Add, Cast back
        (np.float16, False, 1, True, C_DT_FLOAT16),  # computes in f16
    ],
)
def test_the_tiling_key_picks_the_template_instance(dtype, y, buffer_num, fast, acc):
    x, yv, res = _run(PROJECT, dtype, y=y, buffer_num=buffer_num, fast=fast)
    assert res.tiling_key == tpl_key(acc, buffer_num, y)
    assert res.block_dim == 8
    if acc == C_DT_FLOAT:
        expected = x.astype(np.float32) * np.float32(1.5)
        if y:
            expected = expected + yv.astype(np.float32)
    else:  # numpy's f16 arithmetic rounds once per operation, as the vector unit does
        expected = x * np.float16(1.5)
        if y:
            expected = expected + yv
    assert np.array_equal(res.outputs[0], expected.astype(dtype))


@pytest.mark.parametrize("name", ["div", "abs"])
def test_a_templated_entry_named_like_a_c_function(tmp_path, name):
    """A template has C++ linkage: ``template <...> void div(GM_ADDR...)`` overloads libc's
    ``div(int, int)``, and the launcher's ``div<...>(...)`` picks the template."""
    proj = _copy(tmp_path)
    kernel = proj / "op_kernel" / f"{OP}.cpp"
    text = kernel.read_text().replace(f"void {OP}(", f"void {name}(")
    assert f"__global__ __aicore__ void {name}(GM_ADDR x" in text
    kernel.unlink()
    (proj / "op_kernel" / f"{name}.cpp").write_text(text)
    x, yv, res = _run(proj, np.float32, op=name)
    assert res.tiling_key == tpl_key(C_DT_FLOAT, 2, True)
    assert np.array_equal(res.outputs[0], x * np.float32(1.5) + yv)


@pytest.mark.parametrize("buffer_num", [1, 2])
def test_ten_tiles_per_core_and_a_short_tail(buffer_num):
    # 4 cores x 10 tiles, the last one 64 elements short: TQueBind Alloc/Free carry the reverse edges,
    # and each queue buffer has its own MTE2_V / V_MTE3 ids.
    x, yv, res = _run(PROJECT, np.float32, n=4 * (10 * 256 - 64), tile=256, cores=4, buffer_num=buffer_num)
    assert np.array_equal(res.outputs[0], x * np.float32(1.5) + yv)
    assert res.block_dim == 4
    assert res.counters["V"]["set_flags"] == res.counters["MTE3"]["wait_flags"] == 4 * 10


def _one_event_id(tmp_path):
    """The kernel with FetchEventID's single id for every tile, as the hand-written ApplyAdamW."""
    proj = _copy(tmp_path)
    header = proj / "op_kernel" / f"{OP}.h"
    text = header.read_text()
    for ev, name in (("MTE2_V", "eventIdMte2ToV"), ("V_MTE3", "eventIdVToMte3")):
        old = f"{name}[i] = GetTPipePtr()->AllocEventID<HardEvent::{ev}>();"
        assert old in text
        text = text.replace(old, f"{name}[i] = GetTPipePtr()->FetchEventID(HardEvent::{ev});")
    header.write_text(text)
    return proj


def test_one_event_id_with_double_buffering_is_reported(tmp_path):
    proj = _one_event_id(tmp_path)
    # Single-buffered, tile i + 1's AllocTensor waits for tile i's FreeTensor: ordered.
    x, yv, res = _run(proj, np.float32, n=4 * 2048, tile=256, cores=4, buffer_num=1)
    assert np.array_equal(res.outputs[0], x * np.float32(1.5) + yv)
    # Double-buffered, MTE2 may set MTE2_V for tile i + 1 before V consumed tile i's.
    with pytest.raises(SyncError) as info:
        _run(proj, np.float32, n=4 * 2048, tile=256, cores=4, buffer_num=2)
    msg = str(info.value)
    assert msg.startswith("op_kernel/tpl_axpy.h:75: SetFlag<HardEvent::MTE2_V>(0) reuses event id 0"), msg
    assert "WaitFlag at op_kernel/tpl_axpy.h:76 on the V pipe" in msg


def test_declared_but_unselected_value_has_no_instance():
    with pytest.raises(TilingError, match="INVALID_TILING_KEY") as info:
        _run(PROJECT, np.float32, buffer_num=4)
    assert "[ERROR] GET_TPL_TILING_KEY args:[D_T_ACC=0, BUFFER_NUM=4, HAS_Y=1] cannot be found in " in str(
        info.value
    )


def test_undeclared_value():
    with pytest.raises(TilingError, match="BUFFER_NUM value 3 does not exist in its ASCENDC_TPL_\\*_DECL"):
        _run(PROJECT, np.float32, buffer_num=3)


def test_a_key_without_instance_is_reported_by_the_launcher(tmp_path):
    proj = _copy(tmp_path)
    tiling = proj / "op_host" / f"{OP}_tiling.cpp"
    tiling.write_text(
        tiling.read_text().replace(
            "ASCENDC_TPL_SEL_PARAM(context, accType, bufferCount, hasY);",
            "context->SetTilingKey(2 + 0 * (accType + bufferCount + hasY));",
        )
    )
    with pytest.raises(TilingError) as info:
        _run(proj, np.float32)
    msg = str(info.value)
    assert msg.startswith(
        f"op_kernel/{OP}.cpp:6: tiling key 2 selects no instance of the templated kernel entry"
    )
    assert "1 {D_T_ACC=1, BUFFER_NUM=1, HAS_Y=0}; 0 {D_T_ACC=0, BUFFER_NUM=1, HAS_Y=0}" in msg
    assert "1280 {D_T_ACC=0, BUFFER_NUM=2, HAS_Y=1}" in msg


def test_kernel_assert_is_a_fault():
    with pytest.raises(SimulationError) as info:
        _run(PROJECT, np.float32, tile=1000)
    assert str(info.value).startswith(
        'op_kernel/tpl_axpy.h:26: ASSERT(tilingData->tileDataNum * sizeof(T) % 256 == 0 && "a tile must be '
        'whole 256-byte repeats") failed'
    )


def test_op_check_if_in_the_tiling_function():
    with pytest.raises(TilingError) as info:
        _run(PROJECT, np.int32)
    assert "OpName:[TplAxpy:TplAxpy] x has dtype DT_INT32, expected DT_FLOAT16 or DT_FLOAT" in str(info.value)


def test_templated_entry_without_declarations(tmp_path):
    proj = _copy(tmp_path)
    header = proj / "op_kernel" / f"{OP}.h"
    header.write_text(header.read_text().replace('#include "tpl_axpy_tiling_key.h"\n', ""))
    with pytest.raises(
        BuildError, match="a templated kernel entry needs ASCENDC_TPL_ARGS_DECL and ASCENDC_TPL_SEL"
    ):
        _run(proj, np.float32)


def test_dtype_macros_only_for_kernels_that_use_them():
    src = sim_build.ProjectSources.find(PROJECT, OP)
    assert src.input_names == ("x", "y") and src.output_names == ("z",)
    assert len(src.host_srcs) == 3 and src.entry_template == ((True, False, False), 6)
    assert src.dtype_macros(["half", None], ["half"]) == ["-DDTYPE_X=half", "-DDTYPE_Z=half"]
    plain = sim_build.ProjectSources.find(FIXTURES / "std_tiling", "std_scale")
    assert plain.entry_template is None and plain.dtype_macros(["float", "float"], ["float"]) == []


# The encoder against CANN's documented examples (asc-devkit docs 模板参数定义.md, 多分支策略.md).
ENCODER = r"""
#include <cstdio>
#include "ascendc/host_api/tiling/template_argument.h"
ASCENDC_TPL_ARGS_DECL(AddCustomTemplate, ASCENDC_TPL_DATATYPE_DECL(D_T_X, C_DT_FLOAT16, C_DT_FLOAT),
    ASCENDC_TPL_DATATYPE_DECL(D_T_Y, C_DT_FLOAT16, C_DT_FLOAT), ASCENDC_TPL_DATATYPE_DECL(D_T_Z, C_DT_FLOAT16, C_DT_FLOAT),
    ASCENDC_TPL_UINT_DECL(TILE_NUM, ASCENDC_TPL_8_BW, ASCENDC_TPL_UI_LIST, 1, 8),
    ASCENDC_TPL_BOOL_DECL(IS_SPLIT, 0, 1),
    ASCENDC_TPL_UINT_DECL(R, ASCENDC_TPL_4_BW, ASCENDC_TPL_UI_RANGE, 2, 0, 2, 3, 5),
    ASCENDC_TPL_UINT_DECL(M, ASCENDC_TPL_4_BW, ASCENDC_TPL_UI_MIX, 2, 0, 2, 3, 5, 10, 12, 13, 9, 8), );
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DATATYPE_SEL(D_T_X, C_DT_FLOAT16),
    ASCENDC_TPL_DATATYPE_SEL(D_T_Y, C_DT_FLOAT16), ASCENDC_TPL_DATATYPE_SEL(D_T_Z, C_DT_FLOAT16),
    ASCENDC_TPL_UINT_SEL(TILE_NUM, ASCENDC_TPL_UI_LIST, 1, 8), ASCENDC_TPL_BOOL_SEL(IS_SPLIT, 0, 1),
    ASCENDC_TPL_UINT_SEL(R, ASCENDC_TPL_UI_RANGE, 1, 0, 5), ASCENDC_TPL_UINT_SEL(M, ASCENDC_TPL_UI_LIST, 0, 9, 8)), );
int main() {
    uint64_t a = 1, b = 1, c = 1;
    std::printf("%llu\n", (unsigned long long)GET_TPL_TILING_KEY(a, b, c, 8, 1, 4, 9));
    std::printf("%llu\n", (unsigned long long)GET_TPL_TILING_KEY(a, b, c, 1, 0, 0, 0));
    std::printf("%llu\n", (unsigned long long)GET_TPL_TILING_KEY(a, b, c, 1, 0, 0, 8));
    std::printf("%llu\n", (unsigned long long)GET_TPL_TILING_KEY(a, b, c, 1, 0, 0, 10));  // declared, not selected
    std::printf("%llu\n", (unsigned long long)GET_TPL_TILING_KEY(a, b, c, 1, 0, 0));
    static_assert(::dslc_tpl::combo_count(g_tilingDeclareParams, g_tilingSelectParams) == 2 * 2 * 6 * 3, "");
}
"""


def test_tpl_key_encoding(tmp_path):
    src = tmp_path / "enc.cpp"
    src.write_text(ENCODER)
    exe = tmp_path / "enc"
    cmd = [sim_build.CXX, "-std=c++17", "-Wall", "-Werror", "-isystem", str(sim_build.INCLUDE_DIR)]
    subprocess.run([*cmd, str(src), "-o", str(exe)], check=True, capture_output=True)
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()

    def key(x, y, z, tile_idx, split, r_idx, m_idx):
        return x | y << 8 | z << 16 | tile_idx << 24 | split << 32 | r_idx << 33 | m_idx << 37

    # R's legal values 0..5 (index = value); M's are 0,1,2,3,4,5,10,12,13,9,8 (9 -> 9, 8 -> 10).
    assert int(lines[0]) == key(1, 1, 1, 1, 1, 4, 9)
    assert int(lines[1]) == key(1, 1, 1, 0, 0, 0, 0)
    assert int(lines[2]) == key(1, 1, 1, 0, 0, 0, 10)
    assert lines[3] == (
        "[ERROR] GET_TPL_TILING_KEY args:[D_T_X=1, D_T_Y=1, D_T_Z=1, TILE_NUM=1, IS_SPLIT=0, R=0, M=10] "
        "cannot be found in ASCENDC_TPL_ARGS_SEL."
    )
    assert int(lines[4]) == 2**64 - 1
    assert (
        "Number of arguments in GET_TPL_TILING_KEY (6) is not the same as ASCENDC_TPL_ARGS_DECL (7)"
        in lines[5]
    )
    assert int(lines[6]) == 2**64 - 1
