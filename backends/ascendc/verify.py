"""Numeric checks without hardware: random inputs, and the interpreter run after every pass.

``--verify-each`` interprets the module after each pass of the pipeline on the same random
inputs and compares with the reference, so a numeric bug is pinned to the pass that made it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dsl.errors import CompileError
from dsl.ir import Module
from dsl.ir.interpreter import run_func
from dsl.precision import compare, func_tolerances


def random_inputs(op, dtype, values: dict[str, Any], shapes: list[tuple[int, ...]], rng) -> list:
    """Inputs in declaration order for the variant ``values`` selects; optional inputs that
    variant does not read are None. Floats in [0.1, 1) keep sqrt/log/division well defined."""
    variant = op.variant(dtype, values)
    used = {id(v) for o in variant.walk() for v in o.operands} | {id(v) for v in variant.returns}
    arrays, k = [], 0
    for d in op._def.inputs:
        want = d.spec.dtype or dtype
        p = variant.param(d.name)
        shape = (1,) if d.is_scalar else shapes[min(k, len(shapes) - 1)]
        k += 0 if d.is_scalar else 1
        if d.optional and id(p.value) not in used:
            arrays.append(None)
        elif want.is_float:
            arrays.append(rng.uniform(0.1, 1.0, shape).astype(want.np))
        elif want.kind == "bool":
            arrays.append(rng.integers(0, 2, shape).astype(np.bool_))
        else:
            arrays.append(rng.integers(0, 8, shape).astype(want.np))
    return arrays


class PassNumericCheck:
    """After-each-pass hook comparing every function's interpreted outputs with the reference."""

    def __init__(self, op, dtype, shape=(1000,), seed: int = 0):
        self.op, self.dtype = op, dtype
        self.cases = []
        rng = np.random.default_rng(seed)
        for values in self._static_combinations():
            arrays = random_inputs(op, dtype, values, [shape], rng)
            _, inputs, full = op.bind(tuple(arrays), values)
            ref = op.reference(*arrays, **values)
            # exact outputs stay bit-exact through every pass; approximated ones (an expanded
            # tanh/sigmoid differs from numpy's by a few ulps) meet the precision standard
            tols = func_tolerances(op.variant(dtype, full))
            self.cases.append((full, inputs, ref if isinstance(ref, tuple) else (ref,), tols))

    def _static_combinations(self):
        import itertools

        decls = [a for a in self.op._def.attrs if a.static]
        axes = [(a.name, (False, True) if a.kind == "bool" else a.choices) for a in decls]
        for combo in itertools.product(*(c for _, c in axes)):
            yield dict(zip((n for n, _ in axes), combo))

    def __call__(self, p, module: Module) -> None:
        for func in module.funcs:
            bind = func.attributes.get("bind")
            for values, inputs, refs, tols in self.cases:
                if bind is not None and any(values[k] != v for k, v in bind.items()):
                    continue
                outs = run_func(func, inputs, values)
                for out, ref, o in zip(outs, refs, func.outputs):
                    if ref is None or out is None:
                        continue
                    c = compare(out, ref, tols[o.name])
                    if not c.ok:
                        raise CompileError(
                            f"--verify-each: after pass '{p.spelling()}', @{func.name} output '{o.name}' "
                            f"differs from the reference (max abs {c.max_abs:.3g}, max rel {c.max_rel:.3g}; "
                            f"{c.detail})",
                            func.loc,
                        )
