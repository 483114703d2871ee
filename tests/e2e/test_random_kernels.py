"""Differential fuzzing of the whole compiler with random programs (tests/e2e/dslfuzz.py).

Programs vary everything DESIGN.md section 2 allows for flat elementwise operators (input order,
Scalars first, pinned dtypes, optional inputs, unused inputs, T in f16/bf16/f32/i32 and mixes,
int/float mixes, casts between every pair of dtypes, comparisons, where, static bool/Literal
attributes, int/float run-time attributes, literals of both kinds, outputs equal to inputs or
to other outputs, optional outputs). Each is checked by two oracles: an independent numpy
evaluation of the typing rules and numeric semantics against ``op.reference`` (bit-exact where
the semantics are exact), and ``op.simulate`` (strict emulation) against the reference.

By default: the reference-vs-numpy half on 300 programs (no C++ compile: a few seconds), and the
full check on a small sample. ``--runslow``: the full check on 150 programs.
``benchmarks/fuzz_report.py`` runs 1,000 and reports the figures (benchmarks/fuzz.md).
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import dsl


def _load_fuzz():
    name = "dslfuzz"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("dslfuzz.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


fz = _load_fuzz()

CI_SEEDS = [3, 6, 7, 9, 46]  # floats x3, Scalars first, i32 and mixed T, casts, pinned, optional in/out


def reference_matches_oracle(prog, workdir: Path) -> str | None:
    """The reference-vs-numpy half of ``run_program`` (no emulator): None, or what differed."""
    op = fz.load(prog, workdir)
    rng = np.random.default_rng(prog.seed)
    for T in prog.dtypes:
        attrs = fz.draw_attrs(prog, rng)
        for scale in (1.0, 0.25, 0.05):
            args = fz.draw_inputs(prog, T, rng, 257, scale, attrs)
            try:
                expected = fz.Oracle(prog, T, args, attrs).outputs()
                break
            except fz.Overflow:
                continue
        else:
            continue
        ref = op.reference(*[args[d.name] for d in prog.inputs], **attrs)
        refs = list(ref) if isinstance(ref, tuple) else [ref]
        for k, (r, x) in enumerate(zip(refs, expected)):
            if (r is None) != (x is None):
                return f"T={T} output {k}: absent in one only"
            if r is None:
                continue
            ok = fz.same_bits(r, x) if prog.exact else dsl.precision.compare(r, x).ok
            if not ok:
                return f"T={T} {attrs} output {k}: {fz._first_difference(r, x, list(args.values()))}"
    return None


def test_reference_equals_the_numpy_oracle_on_300_programs(tmp_path):
    failures = []
    for seed in range(1000, 1300):
        prog = fz.generate(seed)
        why = reference_matches_oracle(prog, tmp_path)
        if why is not None:
            failures.append(f"seed {seed}: {why}\n{prog.source()}")
    assert not failures, "\n".join(failures[:3])


def test_the_generator_varies_what_the_contract_allows():
    seen: Counter = Counter()
    for seed in range(300):
        prog = fz.generate(seed)
        src = prog.source()
        first = prog.inputs[0]
        seen["scalar declared first"] += first.kind == "scalar"
        seen["pinned dtype"] += any(d.pinned for d in prog.inputs)
        seen["optional input"] += any(d.optional for d in prog.inputs)
        seen["unused input"] += any(
            not any(isinstance(n, fz.In) and n.name == d.name for n in prog.nodes()) for d in prog.inputs
        )
        seen["T = i32"] += prog.dtypes == ("i32",)
        seen["float and int T"] += "i32" in prog.dtypes and len(prog.dtypes) > 1
        seen["several float T"] += len([d for d in prog.dtypes if d in fz.FLOATS]) > 1
        for kind in ("bool", "literal", "int", "float"):
            seen[f"{kind} attribute"] += any(a.kind == kind for a in prog.attrs)
        seen["if statement"] += any(isinstance(s, fz.IfStmt) for s in prog.body)
        seen["a if cond else b"] += any(isinstance(n, fz.IfExp) for n in prog.nodes())
        seen["Literal test"] += '== "' in src or '!= "' in src
        seen["float literal"] += any(
            isinstance(n, fz.Lit) and isinstance(n.value, float) for n in prog.nodes()
        )
        seen["int literal"] += any(isinstance(n, fz.Lit) and isinstance(n.value, int) for n in prog.nodes())
        seen["x.dtype cast"] += any(isinstance(n, fz.Cast) and n.like for n in prog.nodes())
        for dt in fz.ALL:
            seen[f"cast to {dt}"] += any(isinstance(n, fz.Cast) and n.dt == dt for n in prog.nodes())
        seen["where"] += any(isinstance(n, fz.Where) for n in prog.nodes())
        seen["output = other output"] += any(
            isinstance(s, fz.Assign) and s.name.startswith("o") and isinstance(s.expr, fz.Var)
            for s in prog.body
        )
        seen["output = input"] += any(
            isinstance(s, fz.Assign) and s.name.startswith("o") and not isinstance(s.expr, fz.Var)
            for s in prog.body
        ) or (prog.single and isinstance(prog.outputs[0].expr, fz.In))
        seen["optional output"] += any(o.cond is not None for o in prog.outputs)
        seen["single expression return"] += prog.single
        seen["inexact math"] += not prog.exact
    missing = [k for k, v in seen.items() if v == 0]
    assert not missing, f"the generator never produced: {missing}"
    assert len(seen) >= 30


def test_the_numpy_oracle_catches_a_planted_interpreter_bug(tmp_path, monkeypatch):
    """Integer narrowing that wraps instead of saturating must be caught by the oracle."""
    import dsl.ir.ops as ops

    real = ops.cast_value

    def wrapping(x, src, dst):
        if dst.is_int and not src.is_float and dst != src:
            return np.asarray(x).astype(dst.np)  # wraps around: not the DSL's semantics
        return real(x, src, dst)

    monkeypatch.setattr(ops, "cast_value", wrapping)
    caught = [s for s in range(2000, 2150) if reference_matches_oracle(fz.generate(s), tmp_path) is not None]
    assert caught, "no program exposed integer narrowing that wraps"


@pytest.mark.parametrize("seed", CI_SEEDS)
def test_random_program_end_to_end(seed, tmp_path):
    outcome = fz.run_program(fz.generate(seed), tmp_path)
    assert outcome.status in (
        "ok",
        "refused",
    ), f"seed {seed}: {outcome.reason}\n{outcome.detail}\n{outcome.source}"
    if outcome.status == "refused":
        assert outcome.reason in fz.REFUSALS.values()


@pytest.mark.slow
def test_random_programs_many(tmp_path):
    outcomes = fz.fuzz(range(5000, 5150), tmp_path)
    failed = [o for o in outcomes if o.status == "failed"]
    refused = Counter(o.reason for o in outcomes if o.status == "refused")
    assert sum(refused.values()) <= 10, refused
    assert not failed, "\n\n".join(f"seed {o.seed}: {o.reason}\n{o.detail}\n{o.source}" for o in failed[:3])
