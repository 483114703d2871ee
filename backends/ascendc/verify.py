"""Numeric checks without hardware: random inputs, and the interpreter run after every pass.

``--verify-each`` interprets the module after each pass of the pipeline on the same random
inputs and compares with the reference, so a numeric bug is pinned to the pass that made it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dsl.errors import ArgumentError, CompileError
from dsl.ir import Module
from dsl.ir.interpreter import run_func
from dsl.precision import compare, func_tolerances

# Inputs of the after-each-pass check: positive, so no pass is blamed for NaN/inf handling.
PASS_CHECK_FLOATS = (0.1, 1.0)
PASS_CHECK_INTS = (0, 8)


# Default random inputs: both signs and exact zeros, so negative branches (relu, clamps, where)
# and zero cases are exercised. Where an op's domain needs positives (sqrt, log, division), the
# reference is NaN/inf too and the comparison is NaN-aware; narrow the range with ``ranges``.
FLOAT_RANGE = (-2.0, 2.0)
DECLARED = " (declared)"  # the note of an input drawn from the range @dsl.op(ranges=...) declares
ZERO_EVERY = 16  # 1/16 of float elements set to exactly 0 when 0 lies in the range
INT_RANGE = (-8, 8)  # signed integers: [-8, 8)
UINT_RANGE = (0, 16)  # unsigned: [0, 16)


def _int_bounds(want, lo: float, hi: float) -> tuple[int, int]:
    """Integers in [lo, hi) that ``want`` can hold, as a half-open [a, b)."""
    info = np.iinfo(want.np)
    a = max(math.ceil(lo), int(info.min))
    b = min(math.ceil(hi), int(info.max) + 1)
    return a, b


def input_shapes(op, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The shape of each tensor input (declaration order) from the ``--shape`` options of
    ``dslc run`` and the project's golden script: one shape per tensor input, or one for all of
    them, where an input with named dims takes the trailing dims it declares (``Tensor["C"]`` of
    --shape 8,1024 is [1024]; a literal 1 stays 1) and others take it as it is."""
    tensors = [d for d in op._def.inputs if not d.is_scalar]
    if len(shapes) not in (1, len(tensors)):
        raise ArgumentError(
            f"give one --shape for all tensor inputs or one per tensor input ({len(tensors)}), got {len(shapes)}"
        )
    if len(shapes) == len(tensors):
        return list(shapes)
    return [_declared_shape(d, shapes[0]) for d in tensors]


def _declared_shape(d, shape: tuple[int, ...]) -> tuple[int, ...]:
    dims = d.spec.dims
    if not dims:
        return shape
    if len(shape) < len(dims):
        raise ArgumentError(
            f"--shape {','.join(map(str, shape))} has {len(shape)} dims; input '{d.name}' is declared with "
            f"{len(dims)} ({', '.join(map(str, dims))}): give a longer --shape or one --shape per tensor input"
        )
    tail = tuple(1 if x == 1 else n for x, n in zip(dims, shape[len(shape) - len(dims) :]))
    return (shape[: len(shape) - len(dims)] if d.spec.ellipsis else ()) + tail


def draw_inputs(
    op,
    dtype,
    values: dict[str, Any],
    shapes: list[tuple[int, ...]],
    rng,
    ranges: dict[str | None, tuple[float, float]] | None = None,
    float_range: tuple[float, float] = FLOAT_RANGE,
    int_range: tuple[int, int] | None = None,
) -> tuple[list, dict[str, str]]:
    """Random inputs in declaration order for the variant ``values`` selects (an optional input
    that variant does not read is None), and what was drawn for each input (name -> text).

    ``ranges`` maps an input name, or None for every numeric input, to a half-open [lo, hi); the
    ranges the op declares (``@dsl.op(ranges=...)``) apply to the inputs ``ranges`` does not name:
    floats are uniform in it, with 1/``ZERO_EVERY`` of the elements set to exactly 0 when 0 lies
    in it; integers are uniform over the integers in it. Without one, floats use ``float_range``
    and integers ``int_range`` (default: [-8, 8) signed, [0, 16) unsigned); bools are 0/1."""
    ranges = dict(ranges or {})
    names = {d.name for d in op._def.inputs}
    for name in ranges:
        if name is not None and name not in names:
            raise ArgumentError(f"--range: {op.name} has no input '{name}' (inputs: {', '.join(op.inputs)})")
    declared = {k: v for k, v in op._def.ranges.items() if k not in ranges}
    ranges.update(declared)  # @dsl.op(ranges=...) holds unless the caller names the input
    variant = op.variant(dtype, values)
    used = {id(v) for o in variant.walk() for v in o.operands} | {id(v) for v in variant.returns}
    arrays, notes, k = [], {}, 0
    for d in op._def.inputs:
        want = d.spec.dtype or dtype
        p = variant.param(d.name)
        shape = (1,) if d.is_scalar else shapes[min(k, len(shapes) - 1)]
        k += 0 if d.is_scalar else 1
        given = ranges.get(d.name, ranges.get(None))
        if d.optional and id(p.value) not in used:
            arrays.append(None)
            notes[d.name] = "absent (optional, not read by this variant)"
        elif want.kind == "bool":
            if d.name in ranges:
                raise ArgumentError(f"--range: input '{d.name}' is {want}; it is drawn as bytes 0/1/2/255")
            # one byte per element, any nonzero byte true: 2 and 255 are true too
            arrays.append(rng.choice(np.array([0, 1, 2, 255], np.uint8), shape).view(np.bool_))
            notes[d.name] = f"{want} bytes 0/1/2/255 (nonzero is true)"
        elif want.is_float:
            lo, hi = given if given is not None else float_range
            arr = rng.uniform(lo, hi, shape)
            zeros = lo <= 0 <= hi
            if zeros:
                arr[rng.random(shape) < 1 / ZERO_EVERY] = 0.0
            arrays.append(arr.astype(want.np))
            share = f" with 1/{ZERO_EVERY} exact zeros" if zeros else ""
            notes[d.name] = f"{want} uniform in [{lo:g}, {hi:g}){share}" + (
                DECLARED if d.name in declared else ""
            )
        else:
            default = int_range or (UINT_RANGE if want.kind == "uint" else INT_RANGE)
            a, b = _int_bounds(want, *(given if given is not None else default))
            if a >= b:
                raise ArgumentError(
                    f"--range: no {want} value lies in [{given[0]:g}, {given[1]:g}) for input '{d.name}'"
                )
            arrays.append(rng.integers(a, b, shape).astype(want.np))
            notes[d.name] = f"{want} integers in [{a}, {b - 1}]" + (DECLARED if d.name in declared else "")
    return arrays, notes


def random_inputs(op, dtype, values: dict[str, Any], shapes: list[tuple[int, ...]], rng, **kw) -> list:
    """The arrays of ``draw_inputs`` (same arguments)."""
    return draw_inputs(op, dtype, values, shapes, rng, **kw)[0]


class PassNumericCheck:
    """After-each-pass hook comparing every function's interpreted outputs with the reference."""

    def __init__(self, op, dtype, shape=(1000,), seed: int = 0):
        self.op, self.dtype = op, dtype
        self.cases = []
        self.passes: list[str] = []  # the passes checked so far, in order
        self.comparisons = 0  # output arrays compared with the reference
        rng = np.random.default_rng(seed)
        for values in self._static_combinations():
            arrays = random_inputs(
                op, dtype, values, [shape], rng, float_range=PASS_CHECK_FLOATS, int_range=PASS_CHECK_INTS
            )
            _, inputs, full = op.bind(tuple(arrays), values, dtype)
            ref = op.reference(*arrays, dtype=dtype, **values)
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
        self.passes.append(p.spelling())
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
                    self.comparisons += 1
                    if not c.ok:
                        raise CompileError(
                            f"--verify-each: after pass '{p.spelling()}', @{func.name} output '{o.name}' "
                            f"differs from the reference (max abs {c.max_abs:.3g}, max rel {c.max_rel:.3g}; "
                            f"{c.detail})",
                            func.loc,
                        )
