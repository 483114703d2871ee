"""--verify-each: the interpreter runs after every pass and pins a numeric bug to its pass."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from backends.ascendc.verify import PassNumericCheck
from dsl import CompileError
from dsl.cli import main
from dsl.ir import Module, Op
from passes import PassManager, parse_pipeline
from passes.manager import FunctionPass

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class SwapAddForSub(FunctionPass):
    """A deliberately wrong rewrite."""

    name: ClassVar[str] = "swap-add-for-sub"

    def run_on(self, func) -> None:
        for op in func.walk():
            if op.opname == "add":
                op.opname = "sub"
                return


def test_a_wrong_pass_is_named(write_module):
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar

        @dsl.op
        def axpy(x: Tensor, y: Tensor, a: Scalar):
            return x * a + y
        """)
    op = mod.axpy
    module = Module([op.func("f32")])
    check = PassNumericCheck(op, op.dtypes[0], shape=(300,))
    pipeline = parse_pipeline("specialize,canonicalize") + [SwapAddForSub()] + parse_pipeline("tile")
    with pytest.raises(CompileError, match="after pass 'swap-add-for-sub', @axpy output 'out' differs"):
        PassManager(pipeline, after_each=check).run(module)


@dataclass(frozen=True)
class DivideByMultiplying(FunctionPass):
    """``a / b`` -> ``a * reciprocal(b)``: at most an ulp off, but division is exact in the
    contract (a rounding-sensitive op after it, like dsl.round, turns that ulp into a step)."""

    name: ClassVar[str] = "divide-by-multiplying"

    def run_on(self, func) -> None:
        for i, op in enumerate(func.body):
            if op.opname == "div":
                recip = Op("reciprocal", [op.operands[1]], op.operands[1].type, "recip", loc=op.loc)
                op.opname, op.operands = "mul", [op.operands[0], recip.result]
                func.body.insert(i, recip)
                return


def test_an_ulp_off_pass_is_named_on_an_exact_output(write_module):
    """Exact outputs are checked bit for bit after each pass, so even a one-ulp rewrite is caught."""
    mod = write_module("""
        import dsl
        from dsl import Tensor

        @dsl.op
        def ratio(a: Tensor, b: Tensor):
            return a / b
        """)
    op = mod.ratio
    check = PassNumericCheck(op, op.dtypes[0], shape=(1000,))
    pipeline = parse_pipeline("specialize,canonicalize") + [DivideByMultiplying()]
    with pytest.raises(
        CompileError, match=r"after pass 'divide-by-multiplying', @ratio output 'y' differs.*exact"
    ):
        PassManager(pipeline, after_each=check).run(Module([op.func("f32")]))
    PassManager(parse_pipeline("specialize,canonicalize"), after_each=check).run(Module([op.func("f32")]))


def test_cli_verify_each_passes_on_the_examples(tmp_path, capsys):
    for name in ("apply_adam_w", "gelu_tanh", "is_close", "fake_quant", "axpby", "rms_prop"):
        code = main(["compile", str(ROOT / "examples" / f"{name}.py"), "-o", str(tmp_path), "--verify-each"])
        assert code == 0, capsys.readouterr().err


def test_generated_kernels_need_no_auto_sync(write_module):
    """Strict emulation (CANN's auto-sync off): V->V barriers and every flag are explicit."""
    import numpy as np

    from backends.ascendc.simulate import simulate

    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16

        @dsl.op(dtypes=(f16,))
        def chain(x: Tensor, y: Tensor, s: Scalar, *, k: float = 0.5):
            t = dsl.exp(x * s) - y / s
            return dsl.where(t > k, dsl.sigmoid(t), dsl.tanh(y))
        """)
    rng = np.random.default_rng(3)
    x, y = (rng.uniform(-1, 1, 20000).astype(np.float16) for _ in range(2))
    out, result = simulate(mod.chain, (x, y, 0.75), {}, cores=2, strict=True)
    ref = mod.chain.reference(x, y, 0.75)
    from dsl.precision import check, output_tolerances

    tol = output_tolerances(mod.chain, "f16")["out"]  # "y" is an input
    assert not tol.exact  # exp, sigmoid and tanh on the path
    check(out, ref, tol, what="chain.y")
    assert result.counters["V"]["barriers"] > 0
