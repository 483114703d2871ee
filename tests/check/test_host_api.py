"""The host API real ops-nn / ops-math operators use, each probed by the fixture HostApi's own
TilingFunc (tests/check/fixtures/host_api): opbase's util/math_util.h, op_common platform_util.h and
InferShape4Elewise, metadef's TypeUtils, GetSizeByDataType, GetPrimaryFormat, StorageShape ==,
the untyped GetCompileInfo, GetComputeNodeInputNum/OutputNum and GetComputeNodeInfo,
PlatformAscendC::GetCurNpuArch, PlatFormInfos::GetPlatformRes and securec's memset_s/EOK. Also
the ref output (named like an input), --fill and --shape NAME=SHAPE of dslc check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from backends.ascendc.check import run_check
from backends.ascendc.targets import TARGETS
from dsl.cli import main

OP_DIR = Path(__file__).parent / "fixtures" / "host_api"

# probe index -> (what, expected on ascend910b with its 48 vector cores)
PROBES = {
    0: ("Ops::Base::CeilDiv(10, 4)", 3),
    1: ("Ops::Base::CeilAlign(10u, 8u)", 16),
    2: ("Ops::Base::FloorAlign(10, 4)", 8),
    3: ("ge::TypeUtils::GetDataTypeLength(DT_FLOAT16)", 2),
    4: ("ge::GetSizeByDataType(DT_BF16)", 2),
    5: ('ge::TypeUtils::FormatToSerialString(FORMAT_ND) == "ND"', 1),
    6: ("memset_s(...) == EOK", 1),
    7: ("PlatformAscendC::GetCurNpuArch()", 2201),
    8: ("TilingContext::GetComputeNodeInputNum()", 2),
    9: ("GetComputeNodeInfo()->GetOutputsNum()", 2),
    10: ("GetCompileInfo() (untyped) -> TilingParse's core count", 48),
    11: ("StorageShape == (input 0 and output 0)", 1),
    12: ("Ops::Base::GetUbBlockSize", 32),
    13: ("Ops::Base::GetAivCoreNum", 48),
    14: ("PlatFormInfos::GetPlatformRes(SoCInfo, vector_core_cnt)", 48),
    15: ("ge::GetPrimaryFormat(FRACTAL_NZ | sub-format)", 29),
}


@pytest.fixture(scope="module")
def report():
    return run_check(OP_DIR, "HostApi", TARGETS["ascend910b"], shapes=[(None, (64,))], fills=[("x", 3.0)])


def test_every_host_api_probe(report):
    assert report.faults == []
    probe = report.outputs[1]
    got = {k: int(probe[k]) for k in PROBES}
    assert got == {k: v for k, (_, v) in PROBES.items()}


def test_a_ref_output_starts_with_its_input(report):
    x = report.outputs[0]
    # the kernel doubled the first 8 elements in place; the rest is the input (--fill x=3)
    assert np.array_equal(x, np.r_[np.full(8, 6.0), np.full(56, 3.0)].astype(np.float32))
    assert report.plan.notes == ["ref output(s) x start with the input of that name, as on the NPU"]


def test_optional_input_by_name(capsys):
    assert main(["check", str(OP_DIR), "--op", "HostApi", "--shape", "64", "--shape", "bias=8"]) == 0
    assert "inputs (random, seed 0): x f32[64], bias f32[8]" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args,message",
    [
        (["--shape", "y=8"], "--shape y=...: HostApi has no input 'y' (it has: x, bias)"),
        (["--shape", "x=-"], "--shape: every input of HostApi is absent"),
        (["--fill", "bias=1"], "--fill bias=...: input 'bias' is absent (give it a --shape bias=SHAPE)"),
        (["--fill", "z=1"], "--fill z=...: HostApi has no input 'z' (it has: x, bias)"),
        (["--fill", "x=big"], "argument --fill: expected NAME=NUMBER, such as lr=0.001, got 'x=big'"),
        (["--shape", "1x=8"], "argument --shape: '1x' is not an input name (in '1x=8')"),
    ],
)
def test_usage_errors(capsys, args, message):
    assert main(["check", str(OP_DIR), "--op", "HostApi", *args]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"dslc: error: {message}"


def test_opbase_parameter_error_macro(capsys):
    # the TilingFunc refuses a 2-D x with OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON (opbase's message text)
    assert main(["check", str(OP_DIR), "--op", "HostApi", "--shape", "4,16"]) == 1
    out = capsys.readouterr().out
    assert "TilingError: TilingFunc returned GRAPH_FAILED" in out
    assert "Parameter x of HostApi has incorrect shape [4, 16]. Reason: HostApi takes a 1-D x." in out
