"""The backend's vector-code layer (backends/ascendc/kernel/vector): MemBase renders a VecOp the
schedule describes (forms, extent) into today's calls; RegBase refuses with a clear error."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import dsl
from dsl import Tensor
from dsl.dtypes import f16, f32, i8
from dsl.errors import CompileError
from backends.ascendc.kernel import variant as variant_module
from backends.ascendc.kernel.vector import Extent, Form, MemBase, Needs, Operand, Region, VecOp

ROOT = Path(__file__).resolve().parents[2]


def ir_op(opname: str, dtype=f32, attrs=None, operands=()):
    """The fields of an IR op MemBase reads (opname, result dtype, attrs, operands, loc)."""
    return SimpleNamespace(
        opname=opname,
        attrs=attrs or {},
        loc=None,
        result=SimpleNamespace(type=SimpleNamespace(dtype=dtype)),
        operands=[SimpleNamespace(type=SimpleNamespace(dtype=dt)) for dt in operands],
    )


class Ctx:
    """A schedule's callbacks: scalars are spelled by the schedule, not by the layer."""

    chunked = twinned = False

    def __init__(self):
        self.needs = Needs()
        self.asked: list[tuple] = []

    def scalar_for(self, v, dt, view):
        self.asked.append((v, dt, view))
        return f"{v}_"

    def typed_for(self, expr, dt, view):
        return expr


def tile(name, dt=f32, form=Form.TILE):
    return Operand(name, dt, form)


FLAT = Extent("n", "nAligned")


def test_binary_tile_op_is_one_call_over_the_extent():
    vop = VecOp(ir_op("add"), tile("out"), [tile("a"), tile("b")], FLAT)
    st = MemBase().op(vop, Ctx())
    assert (st.code, st.note) == ("Add(out, a, b, n);", None)


def test_a_repeat_operand_takes_the_repeat_helper_and_records_it():
    ctx = Ctx()
    vop = VecOp(ir_op("sub"), tile("out"), [tile("a"), tile("betaRep_", form=Form.REPEAT)], FLAT)
    assert MemBase().op(vop, ctx).code == "SubRepeatRhs(out, a, betaRep_, n);"
    vop = VecOp(ir_op("div"), tile("out"), [tile("oneRep_", form=Form.REPEAT), tile("a")], FLAT)
    assert MemBase().op(vop, ctx).code == "DivRepeatLhs(out, oneRep_, a, n);"
    assert ctx.needs.repeat == {("Sub", "Rhs"), ("Div", "Lhs")}


def test_row_forms_run_per_row_with_the_pitch_and_the_column():
    e = Extent("cols_", "cols_", rows="rows", family="rows")
    vop = VecOp(
        ir_op("mul"), tile("y", form=Form.ROW), [tile("x", form=Form.ROW), tile("gamma", form=Form.COLUMN)], e
    )
    assert MemBase().op(vop, Ctx()).code == (
        "for (uint32_t r = 0; r < rows; ++r) Mul(y[r * pitch_], x[r * pitch_], gamma, cols_);"
    )


def test_a_per_row_scalar_is_read_by_getvalue_and_a_scalar_is_asked_of_the_schedule():
    e = Extent("cols_", "cols_", rows="rows", family="rows")
    vop = VecOp(
        ir_op("vec.muls"),
        tile("y", form=Form.ROW),
        [tile("x", form=Form.ROW), tile("rstd", form=Form.PER_ROW)],
        e,
    )
    assert MemBase().op(vop, Ctx()).code == (
        "for (uint32_t r = 0; r < rows; ++r) Muls(y[r * pitch_], x[r * pitch_], rstd.GetValue(r * PER_ROW), cols_);"
    )
    ctx = Ctx()
    vop = VecOp(ir_op("vec.adds"), tile("y"), [tile("x"), Operand("", f32, Form.SCALAR, value="eps")], FLAT)
    assert MemBase().op(vop, ctx).code == "Adds(y, x, eps_, n);"
    assert ctx.asked == [("eps", f32, "y")]  # like: the destination's view


def test_compare_takes_whole_repeats_and_its_scalar_is_typed_like_its_source():
    ctx = Ctx()
    op = ir_op("cmp", dtype=f32, attrs={"pred": "gt"}, operands=(f32, f32))
    vop = VecOp(op, tile("mask"), [tile("x"), Operand("", f32, Form.SCALAR, value="zero")], FLAT)
    st = MemBase(cann="8.5").op(vop, ctx)
    assert (st.code, st.note) == ("CompareScalar(mask, x, zero_, CMPMODE::GT, nAligned);", "bit mask")
    assert ctx.asked == [("zero", f32, "x")]


def test_barriers_and_a_membase_region_are_one_statement_per_item():
    vc = MemBase()
    [b] = vc.barrier("k.py:3")
    assert (b.code, b.dsl, b.weight) == ("PipeBarrier<PIPE_V>();", "k.py:3", 1)
    add = VecOp(ir_op("add"), tile("out"), [tile("a"), tile("b")], FLAT)
    relu = VecOp(ir_op("relu"), tile("out"), [tile("out")], FLAT)
    barrier = SimpleNamespace(opname="sync.barrier", loc=None)
    stmts = vc.render_region(Region([add, barrier, relu]), Ctx())
    assert [s.code for s in stmts] == ["Add(out, a, b, n);", "PipeBarrier<PIPE_V>();", "Relu(out, out, n);"]


def test_errors_name_the_family_backend_and_the_dtype_check_is_the_a2_table():
    rows = Extent("n", "nAligned", family="rows")
    with pytest.raises(CompileError, match=r"^'vec\.frob' is not supported by the row backend yet$"):
        MemBase().op(VecOp(ir_op("vec.frob"), tile("y"), [], rows), Ctx())
    with pytest.raises(
        CompileError, match=r"^'vec\.frob' is not supported by the 910B elementwise backend yet$"
    ):
        MemBase().op(VecOp(ir_op("vec.frob"), tile("y"), [], FLAT), Ctx())
    cast = VecOp(ir_op("cast", dtype=i8), tile("y", i8), [tile("x", f32)], FLAT)
    with pytest.raises(CompileError, match=r"^cast f32 -> i8 is not supported by the 910B backend yet$"):
        MemBase().op(cast, Ctx())
    with pytest.raises(CompileError, match=r"^Add does not take i8 in the A2 vector API dslc targets"):
        MemBase().check(ir_op("add", dtype=i8))
    MemBase().check(ir_op("add", dtype=f16))  # takes half


def _example(stem: str):
    spec = importlib.util.spec_from_file_location(f"vcl_{stem}", ROOT / "examples" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, stem)


def test_regbase_renders_a_flat_tile_as_one_vector_function():
    """ascend950: axpby's tile is one VF (asc_vf_call of a static __simd_vf__ member), with no V
    barrier and no UB buffer for its intermediates; vector_path='membase' gives the MemBase kernel."""
    from backends.ascendc.compile import lower

    op = _example("axpby")
    kernel = "op_kernel/axpby.cpp"
    reg = lower(op, "ascend950", warn_builtin=False).files[kernel]
    mem = lower(op, "ascend950", vector_path="membase", warn_builtin=False).files[kernel]
    assert "asc_vf_call<AxpbyVF" in reg and "__simd_vf__ static inline void AxpbyVF" in reg
    assert "PipeBarrier" not in reg and "Muls(" not in reg.replace("Reg::Muls(", "")
    assert "asc_vf_call" not in mem and "Muls(" in mem


def test_regbase_asked_for_where_it_cannot_render_is_a_located_error():
    """vector_path='regbase' on a row kernel RegBase cannot write yet (a 16-bit per-row input): a
    CompileError naming the reason at the operator's line, never MemBase code in disguise."""
    from backends.ascendc.compile import lower

    @dsl.op(dtypes=(f16,))
    def row_scale(x: Tensor[..., "C"], s: Tensor[..., 1]):
        return x * s

    with pytest.raises(CompileError) as err:
        lower(row_scale, "ascend950", vector_path="regbase", warn_builtin=False)
    assert err.value.msg == (
        "@row_scale: vector_path='regbase' was asked for, but RegBase loads per-row inputs as f32 only "
        "(a per-row f16 input)"
    )
    assert err.value.loc is not None and err.value.loc.filename.endswith("test_vector_layer.py")
    assert "asc_vf_call" in next(  # a row kernel RegBase writes: rms_norm
        t
        for n, t in lower(
            _example("rms_norm"), "ascend950", vector_path="regbase", warn_builtin=False
        ).files.items()
        if n.startswith("op_kernel/")
    )


def test_membase_orders_vector_ops_by_a_barrier_only_where_the_target_needs_one():
    """910B: PipeBarrier<PIPE_V> between dependent vector ops; ascend950 issues them in order
    (issue 19 item 6): no barrier statement, no helper line."""
    from backends.ascendc.targets import get_target

    a2, a5 = MemBase(get_target("ascend910b")), MemBase(get_target("ascend950"))
    assert [s.code for s in a2.barrier()] == ["PipeBarrier<PIPE_V>();"]
    assert a2.barrier_line() == "PipeBarrier<PIPE_V>();" and a2.barrier_text() == "PipeBarrier<PIPE_V>();\n"
    assert a5.barrier() == [] and a5.barrier_line() is None and a5.barrier_text() == ""


@pytest.mark.parametrize("stem", ["apply_adam_w", "layer_norm", "outer_max", "quantize_add_layer_norm"])
def test_ascend950_kernels_have_no_v_barriers(stem, tmp_path):
    import dsl
    from backends.ascendc.compile import lower

    spec = importlib.util.spec_from_file_location(stem, ROOT / "examples" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    op = next(v for v in vars(mod).values() if isinstance(v, dsl.Operator))
    kernels = {t: lower(op, t, warn_builtin=False).files for t in ("ascend910b", "ascend950")}
    text = {t: "".join(v for k, v in f.items() if "op_kernel" in k) for t, f in kernels.items()}
    assert "PipeBarrier<PIPE_V>" in text["ascend910b"]
    assert "PipeBarrier<PIPE_V>" not in text["ascend950"]
