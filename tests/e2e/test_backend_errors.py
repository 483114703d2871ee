"""User-facing backend errors: clear message, the DSL line, no partial project left behind."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import dsl
from dsl import CompileError
from dsl.cli import main


def test_unsupported_vector_dtype_names_the_line(write_module, tmp_path):
    mod = write_module("""
        import dsl
        from dsl import Tensor, i8

        @dsl.op(dtypes=(i8,))
        def add_i8(a: Tensor, b: Tensor):
            y = a + b
            return y
        """)
    with pytest.raises(CompileError) as e:
        mod.add_i8.compile(out_dir=tmp_path / "out")
    assert e.value.loc.line == 7
    assert "Add does not take i8" in str(e.value) and "y = a + b" in str(e.value)
    assert not (tmp_path / "out" / "add_i8").exists()


def test_row_ops_simulate_and_broadcast_rejects_incompatible_shapes(write_module, tmp_path):
    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def row_sum(x: Tensor[..., "C"]):
            return dsl.sum(x, axis=-1, keepdims=True)

        @dsl.op(broadcast=True)
        def badd(a: Tensor, b: Tensor):
            return a + b
        """)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(mod.row_sum.simulate(a), a.sum(axis=-1, keepdims=True))
    np.testing.assert_array_equal(mod.badd.simulate(a, a), a + a)
    np.testing.assert_array_equal(mod.badd.simulate(a, a[0]), a + a[0])
    with pytest.raises(
        dsl.ArgumentError,
        match=r"do not broadcast: 'a' \[3, 4\] and 'b' \[3\] differ at axis -1 \(counted from the last\): 4 vs 3",
    ):
        mod.badd.simulate(a, a[:, 0])


ROW_REFUSALS = [
    (
        "reduce_column",
        """
        @dsl.op
        def reduce_column(x: Tensor[..., "C"], g: Tensor["C"]):
            return x * dsl.sum(g, axis=-1)
        """,
        6,
        "this value has shape [1], which the row backend does not take: row operators handle rows [..., C], "
        "columns [C] (shared by every row) and per-row values [..., 1]",
    ),
    (
        "block_of_per_row_values",  # ([R, C] with [S, R, C] is a block repeated along S: test_row_inputs.py)
        """
        @dsl.op
        def block_of_per_row_values(x: Tensor[..., "S", "C"], m: Tensor["S", 1]):
            return x * m
        """,
        5,
        "input 'm' has shape [S, 1], which the row backend does not take: row operators handle rows [..., S, C], "
        "columns [C] (shared by every row) and per-row values [..., S, 1]",
    ),
    (
        "two_blocks",
        """
        @dsl.op
        def two_blocks(x: Tensor["A", "S", "C"], m: Tensor["S", "C"], z: Tensor["B", "A", "S", "C"]):
            return z + x + m
        """,
        5,
        "inputs 'x' [A, S, C] and 'm' [S, C] are both repeated along the leading dims of [B, A, S, C] with "
        "different shapes; a row operator takes repeated blocks of one shape",
    ),
    (
        "block_output",
        """
        @dsl.op
        def block_output(x: Tensor[..., "S", "C"], mask: Tensor["S", "C"]):
            y = x + mask
            m2 = mask * 2.0
            return y, m2
        """,
        7,
        "output 'm2' has shape [S, C], a block that repeats along the leading dims of [..., S, C]; row "
        "operators store rows or per-row values",
    ),
    (
        "int_sum",
        """
        @dsl.op(dtypes=(i32,))
        def int_sum(x: Tensor[..., "C"]):
            return dsl.sum(x, axis=-1)
        """,
        6,
        "dsl.sum of i32 values is not supported by the row backend (the vector unit reduces half/float); "
        "cast to f32 first",
    ),
    (
        "column_output",
        """
        @dsl.op
        def column_output(x: Tensor[..., "C"], g: Tensor["C"]):
            y = x * g
            twice = g * 2.0
            return y, twice
        """,
        7,
        "output 'twice' has shape [C] (one row shared by all rows); row operators store rows or per-row values",
    ),
]


@pytest.mark.parametrize("name, body, line, message", ROW_REFUSALS, ids=[r[0] for r in ROW_REFUSALS])
def test_row_constructs_the_backend_refuses_name_their_line(
    write_module, tmp_path, name, body, line, message
):
    mod = write_module("import dsl\nfrom dsl import Tensor, i32\n" + textwrap.dedent(body))
    out = tmp_path / "out"
    with pytest.raises(CompileError) as e:
        getattr(mod, name).compile(out_dir=out)
    assert message in str(e.value)
    assert e.value.loc is not None and e.value.loc.line == line, (e.value.loc, str(e.value))
    assert not out.exists()


def test_ascend950_uses_the_membase_kernels(write_module, tmp_path):
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16

        @dsl.op(dtypes=(f16, bf16))
        def twice_relu(x: Tensor):
            return dsl.relu(x * 2)
        """)
    project = mod.twice_relu.compile(target="ascend950", out_dir=tmp_path)
    assert 'AddConfig("ascend950")' in (project / "op_host" / "twice_relu.cpp").read_text()
    x = np.linspace(-3, 3, 70001).astype(np.float16)
    from backends.ascendc.simulate import simulate

    out, result = simulate(mod.twice_relu, (x,), {}, target="ascend950")  # 64 cores, 248 KiB UB
    assert result.block_dim == 35  # ceil(70001 / 2048 f16 per core) < 64 cores
    assert dsl.precision.output_tolerances(mod.twice_relu, "f16") == {"y": dsl.precision.EXACT}
    dsl.precision.check(out, mod.twice_relu.reference(x), dsl.precision.EXACT, what="twice_relu[ascend950]")
    with pytest.raises(ValueError, match="unknown target 'npu9'"):
        mod.twice_relu.compile(target="npu9", out_dir=tmp_path)


def test_operator_names_must_survive_cann_naming(write_module, tmp_path):
    with pytest.raises(dsl.DslError, match="name it 'x1' instead"):  # at decoration, at the name= line
        write_module("""
            import dsl
            from dsl import Tensor

            @dsl.op(name="x_1")
            def f(x: Tensor):
                return x * 2
            """)
    with pytest.raises(CompileError, match="name it 'x1' instead"):  # the backend checks again
        from backends.ascendc.names import op_type

        op_type("x_1")


def test_simulate_argument_errors(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar

        @dsl.op
        def axpy(x: Tensor, y: Tensor, a: Scalar):
            return x * a + y
        """)
    x = np.ones(8, np.float32)
    with pytest.raises(dsl.ArgumentError, match="same shape"):
        mod.axpy.simulate(x, np.ones(9, np.float32), 2.0)
    with pytest.raises(dsl.ArgumentError, match="cores must be a positive integer"):
        mod.axpy.simulate(x, x, 2.0, cores=0)
    assert mod.axpy.outputs == ["out"]  # 'y' is an input
    out = mod.axpy.simulate(x, x, 2.0, cores=3)
    np.testing.assert_array_equal(out, np.full(8, 3.0, np.float32))
    empty = np.zeros(0, np.float32)
    assert mod.axpy.simulate(empty, empty, 2.0).shape == (0,)


def test_edited_project_that_breaks_is_reported(write_module, tmp_path):
    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def twice(x: Tensor):
            return x * 2
        """)
    project = mod.twice.compile(out_dir=tmp_path)
    kernel = project / "op_kernel" / "twice.cpp"
    kernel.write_text(kernel.read_text().replace("Muls(", "Mulz(", 1))
    x = np.ones(40, np.float32)
    with pytest.raises(dsl.SimulationError, match="failed to compile"):
        mod.twice.simulate(x, project=project)
    with pytest.raises(dsl.ArgumentError, match="is not a project of twice"):
        mod.twice.simulate(x, project=tmp_path / "nowhere")


def test_cli_compile_explain_and_run(tmp_path, capsys):
    from pathlib import Path

    adamw = Path(__file__).resolve().parents[2] / "examples" / "apply_adam_w.py"
    code = main(["compile", str(adamw), "-o", str(tmp_path), "--explain", "--dump-ir", str(tmp_path / "ir")])
    out = capsys.readouterr().out
    assert code == 0
    assert "12 kernel variants" in out
    assert "(T = f32, tiling key 0): tile = 5120 elements" in out
    assert "total 185856 B of 188160 B usable UB (98.8%)" in out  # with 5 bank-group pads reserved
    assert (tmp_path / "ir" / "apply_adam_w.f32.ir").is_file()
    code = main(
        ["run", str(adamw), "--shape", "5000", "--dtype", "f16", "--attr", "maximize=true", "--cores", "4"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("inputs (seed 0): var, m, grad: ")  # what was drawn comes first
    assert lines[1].startswith("(declared: ")  # AdamW's @dsl.op(ranges=...)
    # m_out and v_out have only exact ops on their path: bit-exact; var_out has sqrt
    assert lines[2].startswith("var_out: max abs err ") and " (approx) -> ok" in lines[2], lines
    assert "NaN" not in out
    assert lines[3:5] == [
        "m_out: max abs err 0, max rel err 0 (exact) -> ok",
        "v_out: max abs err 0, max rel err 0 (exact) -> ok",
    ]
    key = next(line for line in lines if line.startswith("tiling key "))
    assert key.startswith("tiling key 2, block dim 3, DMA copies ")  # 5000 f16, >= 2048 per core
    assert lines[-1] == "apply_adam_w[f16] matches the reference"


def test_builtin_operator_names_warn(write_module, tmp_path):
    from backends.ascendc.compile import BuiltinNameWarning

    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def threshold(x: Tensor, *, t: float = 0.0):
            return dsl.maximum(x, t)
        """)
    with pytest.warns(BuiltinNameWarning, match="Threshold has the name of a CANN built-in operator"):
        mod.threshold.compile(out_dir=tmp_path)


def test_emulator_faults_name_the_dsl_line(write_module, tmp_path):
    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def twice(x: Tensor):
            y = x * 2
            return y
        """)
    project = mod.twice.compile(out_dir=tmp_path)
    kernel = project / "op_kernel" / "twice.cpp"
    lines = kernel.read_text().splitlines()
    wait = next(i for i, line in enumerate(lines) if "WaitFlag<HardEvent::MTE2_V>(slot)" in line)
    kernel.write_text("\n".join(lines[:wait] + lines[wait + 1 :]) + "\n")
    with pytest.raises(dsl.RaceError) as e:
        mod.twice.simulate(np.ones(64, np.float32), project=project)
    assert "DSL line(s): " in str(e.value) and ".py:7 (op_kernel/twice.cpp:" in str(e.value)


def test_math_on_an_int8_scalar_widens_it_on_the_scalar_unit(write_module, tmp_path):
    """An i8/u8 Scalar input in float (or i32) math was refused (A2 has no 8-bit Duplicate); its
    widening is an exact C++ conversion on the scalar unit now, so the math runs (Adds/Muls)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, i8, u8, f16, f32

        @dsl.op(dtypes=(f32, f16))
        def add_s8(x: Tensor, s: Scalar[i8], t: Scalar[u8]):
            y = x + s
            z = x * t - s
            return y, z
        """)
    project = mod.add_s8.compile(out_dir=tmp_path / "out")
    kernel = (project / "op_kernel" / "add_s8.cpp").read_text()
    assert "static_cast<float>(LoadScalar<int8_t>" in kernel or "static_cast<float>(s" in kernel
    x = np.linspace(-3, 3, 257).astype(np.float32)
    for s, t in ((-128, 255), (127, 0), (-3, 7)):
        args = (x, np.array([s], np.int8), np.array([t], np.uint8))
        got = mod.add_s8.simulate(*args)
        assert np.array_equal(got[0], x + np.float32(s))
        assert np.array_equal(got[1], x * np.float32(t) - np.float32(s))
