"""Operators with no input of type T (issue 18 item 3): ``dsl.T`` in the body, ``dtype=`` of
reference/simulate/profile, the generated ``dst_type`` attribute (OpDef, json, InferDataType,
TilingFunc's check), the kernel's T from an output's DTYPE macro, and the CLI on such ops."""

from __future__ import annotations

import json
import re
import shutil

import ml_dtypes
import numpy as np
import pytest

import dsl
from backends.ascendc.compile import lower
from backends.ascendc.simulate import generated_project, simulate
from backends.ascendc.sim import simulate_project
from backends.ascendc.targets import get_target
from dsl import ArgumentError, CompileError, bf16, f16
from dsl.cli import main
from dsl.errors import InferShapeError, TilingError

import dtype_t_ops as ops
from exact_check import same_bits

GE_FLOAT, GE_FLOAT16, GE_BF16 = 0, 1, 27


def round_bf16(v: np.ndarray) -> np.ndarray:
    """f32 -> bf16 to nearest even on the bits (finite values), independent of ml_dtypes' cast."""
    u = np.ascontiguousarray(v, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r.view(ml_dtypes.bfloat16)


def to_t(v: np.ndarray, dt) -> np.ndarray:
    """f32 values rounded once to nearest even to T."""
    return v.astype(np.float16) if dt == f16 else round_bf16(v)


def dequant_numpy(x, scale, dt):
    return to_t(x.astype(np.float32) * scale, dt)  # one f32 multiply per element, one rounding


def _dequant_inputs():
    rng = np.random.default_rng(18)
    x = rng.integers(-128, 128, (3, 5, 67)).astype(np.int8)
    scale = rng.uniform(-3, 3, 67).astype(np.float32)
    return x, scale


@pytest.mark.parametrize("dt", [f16, bf16], ids=["f16", "bf16"])
def test_dequant_rows_simulates_bit_exact(dt):
    x, scale = _dequant_inputs()
    ref = ops.dequant_rows.reference(x, scale, dtype=dt)
    assert ref.dtype == dt.np and ref.shape == x.shape
    assert same_bits(ref, dequant_numpy(x, scale, dt))
    got, _ = simulate(ops.dequant_rows, (x, scale), {}, dtype=dt, cores=4, strict=True)
    assert same_bits(got, ref)


@pytest.mark.parametrize("dt", [f16, bf16], ids=["f16", "bf16"])
def test_flat_dequant_with_a_scalar(dt):
    x = (np.arange(3000) % 256 - 128).astype(np.int8)
    s = np.array([0.0123], np.float32)
    ref = ops.dequant_flat.reference(x, s, dtype=dt)
    assert same_bits(ref, dequant_numpy(x, s[0], dt))
    got, _ = simulate(ops.dequant_flat, (x, s), {}, dtype=dt, strict=True)
    assert same_bits(got, ref)


def _traced_dtypes(report, path) -> set[str]:
    report.save_trace(path)
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    return {e["args"]["dtype"] for e in events if (e.get("args") or {}).get("dtype")}


def test_profile_takes_dtype(tmp_path):
    x = (np.arange(3000) % 256 - 128).astype(np.int8)
    s = np.array([0.5], np.float32)
    f16_run = ops.dequant_flat.profile(x, s, dtype=f16)  # not the default, bf16
    assert f16_run.tiling_key == 0 and "bf16" not in _traced_dtypes(f16_run, tmp_path / "f16.json")
    assert "bf16" in _traced_dtypes(ops.dequant_flat.profile(x, s), tmp_path / "bf16.json")


def test_dtype_defaults_to_the_first_dtype():
    x = (np.arange(300) % 256 - 128).astype(np.int8)
    assert ops.dequant_flat.reference(x, 0.37).dtype == bf16.np  # dtypes=(bf16, f16)
    assert ops.dequant_rows.reference(x.reshape(3, 100), np.ones(100, np.float32)).dtype == f16.np


@pytest.mark.parametrize("dt", [f16, bf16], ids=["f16", "bf16"])
def test_more_forms_without_a_T_input(dt):
    """Broadcasting, T's only input optional (present and absent), an f32 output beside T's."""
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, (6, 1, 40)).astype(np.int8)
    scale = rng.uniform(-2, 2, (3, 40)).astype(np.float32)
    ref = ops.dequant_bcast.reference(x, scale, dtype=dt)
    assert ref.shape == (6, 3, 40) and same_bits(ref, dequant_numpy(x, scale, dt))
    assert same_bits(simulate(ops.dequant_bcast, (x, scale), {}, dtype=dt, strict=True)[0], ref)
    flat = x.reshape(-1)
    bias = rng.uniform(-1, 1, flat.size).astype(dt.np)
    for args, attrs, want in [
        ((flat, None), {}, dequant_numpy(flat, np.float32(1), dt)),
        ((flat, bias), {"has_bias": True}, None),
    ]:
        ref = ops.dequant_bias.reference(*args, dtype=dt, **attrs)
        if want is not None:
            assert same_bits(ref, want)
        assert same_bits(simulate(ops.dequant_bias, args, attrs, dtype=dt, strict=True)[0], ref)
    wide = flat.astype(np.float32) + bias.astype(np.float32)
    assert same_bits(ref, to_t(wide, dt))
    s = np.array([0.375], np.float32)
    y, acc = ops.dequant_two.reference(flat, s, dtype=dt, alpha=-1.5)
    assert same_bits(acc, flat.astype(np.float32) * s[0])
    assert same_bits(y, to_t(acc * np.float32(-1.5), dt))
    (g_y, g_acc), _ = simulate(ops.dequant_two, (flat, s), {"alpha": -1.5}, dtype=dt, strict=True)
    assert same_bits(g_y, y) and same_bits(g_acc, acc)


def test_only_input_pinned_u8_casts_exactly():
    # bool_ inputs are refused by the backend so far; a u8 input stands for the pinned-only op
    m = np.arange(4100, dtype=np.int64).astype(np.uint8)
    wide, narrow = ops.widen_u8.reference(m)
    assert same_bits(wide, m.astype(np.int32)) and same_bits(narrow, m.astype(np.float16))
    (g_wide, g_narrow), _ = simulate(ops.widen_u8, (m,), {}, cores=3, strict=True)
    assert same_bits(g_wide, wide) and same_bits(g_narrow, narrow)


def test_reference_dtype_chooses_the_rounding():
    x = np.array([[1, 3, 7, 127]], np.int8)
    scale = np.array([1.0009765625, 1.0 + 2**-9, 1.0 + 3 * 2**-10, 1.0 + 2**-11], np.float32)
    a = ops.dequant_rows.reference(x, scale, dtype=f16)
    b = ops.dequant_rows.reference(x, scale, dtype="bf16")
    assert a.dtype == np.float16 and b.dtype == ml_dtypes.bfloat16
    assert same_bits(a, dequant_numpy(x, scale, f16)) and same_bits(b, dequant_numpy(x, scale, bf16))
    assert not np.array_equal(a.astype(np.float32), b.astype(np.float32))  # bf16 keeps 8 bits, f16 11
    assert same_bits(ops.dequant_rows.reference(x, scale, dtype=np.float16), a)


def test_dtype_disagreeing_with_the_inputs_is_an_argument_error():
    x, s = np.ones(64, np.float16), np.ones(64, np.float32)
    with pytest.raises(ArgumentError) as e:
        ops.scale_to_t.reference(x, s, dtype=bf16)
    assert str(e.value) == (
        "dtype=bf16 disagrees with the inputs of type T (x: f16); pass bf16 arrays, or leave dtype= out "
        "(T is then the inputs' dtype)"
    )
    with pytest.raises(ArgumentError, match="dtype=bf16 disagrees with the inputs of type T"):
        ops.scale_to_t.simulate(x, s, dtype=bf16)
    with pytest.raises(ArgumentError) as e:
        ops.dequant_rows.reference(np.ones((2, 4), np.int8), np.ones(4, np.float32), dtype=dsl.f32)
    assert str(e.value) == "dtype=f32: dequant_rows is not generated for f32; its dtypes are f16, bf16"
    with pytest.raises(ArgumentError) as e:
        ops.dequant_rows.reference(np.ones((2, 4), np.int8), np.ones(4, np.float32), dtype="float8")
    assert str(e.value) == "dtype='float8' is not a dtype; dequant_rows is generated for f16, bf16"


def test_dsl_T_is_T_when_inputs_of_type_T_exist():
    for dt in (f16, bf16):  # dsl.T is x's dtype: widen x, then round the product to it
        casts = re.findall(r"= cast %\w+ \{from = (\w+)\} : tensor<\*, (\w+)>", ops.scale_to_t.ir(dt))
        assert casts == [(dt.name, "f32"), ("f32", dt.name)]
    x = np.linspace(-3, 3, 1000).astype(np.float16)
    s = np.linspace(0.5, 2, 1000).astype(np.float32)
    ref = ops.scale_to_t.reference(x, s, dtype=f16)  # agrees with x
    assert same_bits(ref, (x.astype(np.float32) * s).astype(np.float16))
    got, _ = simulate(ops.scale_to_t, (x, s), {}, strict=True)
    assert same_bits(got, ref)


def _host(op):
    return lower(op, warn_builtin=False).files


def test_generated_host_carries_dst_type():
    files = _host(ops.dequant_rows)
    host = files["op_host/dequant_rows.cpp"]
    assert 'this->Attr("dst_type").AttrType(OPTIONAL).Int(ge::DT_FLOAT16);' in host
    assert ".DataType({ge::DT_FLOAT16, ge::DT_BF16})" in host  # the output follows the dtype list
    infer = host[host.index("static graphStatus InferDataType") :]
    assert "const int64_t* dstType = attrs->GetAttrPointer<int64_t>(0);" in infer
    assert "const DataType outputs[] = {dtype};" in infer
    tiling = host[
        host.index("static ge::graphStatus TilingFunc") : host.index("static graphStatus InferShape")
    ]
    assert "const ge::DataType dtype = static_cast<ge::DataType>(*dstType);" in tiling
    assert "OP_CHECK_IF(outDesc0->GetDataType() != dtype" in tiling
    assert "GetRequiredInputDesc(None)" not in host and "None" not in tiling
    assert "## The element type T: attribute `dst_type`" in files["README.md"]
    assert "DT_FLOAT16 = 1, DT_BF16 = 27; default DT_FLOAT16" in files["README.md"]
    desc = json.loads(files["DequantRows.json"])[0]
    assert desc["attr"] == [{"name": "dst_type", "param_type": "optional", "type": "int", "default_value": 1}]
    assert desc["output_desc"][0]["type"] == ["float16", "bfloat16"]
    kernel = files["op_kernel/dequant_rows.cpp"]
    assert "#define DTYPE_Y half" in kernel and "Run<DTYPE_Y, false>" in kernel  # T: the output's macro
    # T is no choice and no output has it: no attribute, T is the op's one dtype
    files = _host(ops.widen_u8)
    assert (
        "dst_type" not in files["op_host/widen_u8.cpp"] and "Run<float>(" in files["op_kernel/widen_u8.cpp"]
    )
    assert "const ge::DataType dtype = ge::DT_FLOAT;" in files["op_host/widen_u8.cpp"]
    # inputs of type T: T from the first one, as before
    assert "dst_type" not in _host(ops.scale_to_t)["op_host/scale_to_t.cpp"]


def _run_project(project, x, scale, out_dtype, dst_type):
    return simulate_project(
        project,
        "dequant_rows",
        inputs=[x, scale],
        outputs=[(x.shape, out_dtype)],
        attrs=[dst_type],
        target=get_target("ascend910b"),
        cores=2,
    )


def test_host_infers_from_dst_type_and_tiling_checks_the_output(tmp_path):
    x, scale = _dequant_inputs()
    project = generated_project(ops.dequant_rows, "ascend910b")
    out = _run_project(project, x, scale, ml_dtypes.bfloat16, GE_BF16).outputs[0]
    assert same_bits(out, dequant_numpy(x, scale, bf16))
    # InferDataType takes the output's dtype from dst_type: bf16, not the f16 the caller allocated
    with pytest.raises(
        InferShapeError, match=r"InferDataType gives output 0 \('y'\) dtype 27 but the caller allocated 1"
    ):
        _run_project(project, x, scale, np.float16, GE_BF16)
    # Without the graph's InferDataType (a single-op call), TilingFunc checks dst_type itself.
    edited = tmp_path / "dequant_rows"
    shutil.copytree(project, edited)
    host = edited / "op_host" / "dequant_rows.cpp"
    text = host.read_text()
    registration = "this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);"
    assert registration in text
    host.write_text(
        text.replace(registration, "this->SetInferShape(ge::InferShape);\n(void)ge::InferDataType;")
    )
    with pytest.raises(TilingError, match=r"output y has dtype 1, but dst_type is 27"):
        _run_project(edited, x, scale, np.float16, GE_BF16)
    with pytest.raises(
        TilingError, match=r"dst_type 0 is not a dtype of the op: DT_FLOAT16 = 1, DT_BF16 = 27"
    ):
        _run_project(edited, x, scale, np.float32, GE_FLOAT)


def test_several_dtypes_with_nothing_of_type_T_is_a_located_compile_error(write_module, tmp_path, capsys):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16, f32, i8

        @dsl.op(dtypes=(f16, bf16))
        def round_through_t(x: Tensor[i8]):
            return dsl.cast(dsl.cast(x, dsl.T), f32)
        """)
    with pytest.raises(CompileError) as e:
        mod.round_through_t.compile(out_dir=tmp_path / "out")
    assert e.value.loc.line == 6
    assert e.value.msg == (
        "round_through_t: no required input and no output has type T, so CANN's build cannot tell the binaries "
        "of dtypes f16, bf16 apart; declare one dtype, or make an output of type T (dsl.cast(v, dsl.T))"
    )
    assert main(["compile", mod.__file__, "-o", str(tmp_path / "cli")]) == 1
    err = capsys.readouterr().err
    assert re.search(r"dslc: .*\.py:6:1: error: round_through_t: no required input and no output", err), err
    assert not (tmp_path / "out" / "round_through_t").exists()


def test_an_attribute_named_dst_type_clashes_only_without_a_T_input(write_module, tmp_path):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16, f32, i8

        @dsl.op(dtypes=(f16, bf16))
        def deq(x: Tensor[i8], *, dst_type: float = 1.0):
            return dsl.cast(dsl.cast(x, f32) * dst_type, dsl.T)

        @dsl.op(dtypes=(f16, bf16))
        def scaled(x: Tensor, *, dst_type: float = 1.0):
            return x * dst_type
        """)
    with pytest.raises(CompileError) as e:
        mod.deq.compile(out_dir=tmp_path)
    assert (
        e.value.loc.line == 6
        and "attribute name 'dst_type' is reserved for operators with no required" in str(e.value)
    )
    assert mod.scaled.compile(out_dir=tmp_path).is_dir()


def test_cli_run_and_compile_with_dtype(capsys, tmp_path):
    path = ops.__file__
    assert main(["compile", path, "--op", "dequant_rows", "-o", str(tmp_path)]) == 0
    assert "dslc: wrote" in capsys.readouterr().out
    assert (
        main(["run", path, "--op", "dequant_rows", "--shape", "4,96", "--dtype", "bf16", "--cores", "2"]) == 0
    )
    out = capsys.readouterr().out
    assert "dequant_rows[bf16] matches the reference" in out
    assert re.search(r"y: max abs err 0, max rel err 0", out), out
