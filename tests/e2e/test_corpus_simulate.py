"""Held-out corpus through the backend: every operator either compiles and simulates equal to
its reference (under the precision class each output's IR path gives, ``dsl.precision``), or
is listed in ``EXPECTED_REFUSALS`` and refused with a CompileError giving the listed reason.

The list keeps itself honest: an operator that is refused but not listed fails, a listed one
that is refused for another reason fails, and a listed one that now compiles fails too (take it
off the list so its numbers get checked)."""

from __future__ import annotations

import importlib.util
import inspect
import pathlib
import sys

import numpy as np
import pytest

import dsl

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "corpus"
MODULES = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith(("test_", "_")))

# corpus operator -> the text its CompileError must contain (what the backend cannot do yet);
# the row operators (rms_norm, row_stats, scale_cols, softmax) left this list with issue 7
EXPECTED_REFUSALS = {
    "int_arith": "Mul does not take i8",  # i8 arithmetic (README "Not yet")
}


def _load(path):
    name = f"dslc_corpus_sim_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _args(fn, attrs):
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return attrs
    return {k: v for k, v in attrs.items() if k in params}


# on ascend950 (RegBase where the rule says so) the default run takes one operator per family;
# --runslow takes them all
FAST_950 = {
    "sigmoid_bce_logits",
    "where_bcast",
    "masked_mean",
    "rownorm_static",
    "linear_relu_res",
    "cast_chain_mix",
    "dequant_i8",  # an 8-bit input of a RegBase row VF (DIST_UNPACK4_B8)
}


def _cases():
    for p in MODULES:
        yield pytest.param(p, "ascend910b", id=p.stem)
        marks = () if p.stem in FAST_950 else (pytest.mark.slow,)
        yield pytest.param(p, "ascend950", id=f"{p.stem}-950", marks=marks)


@pytest.mark.parametrize("path,target", list(_cases()))
def test_corpus_operator_compiles_and_simulates(path, target, tmp_path):
    mod = _load(path)
    op = mod.OP
    expected_refusal = EXPECTED_REFUSALS.get(path.stem)
    try:
        op.compile(out_dir=tmp_path, target=target)
    except dsl.CompileError as e:
        text = str(e)
        assert expected_refusal is not None, f"{path.stem} is refused but not in EXPECTED_REFUSALS: {text}"
        assert (
            expected_refusal in text
        ), f"{path.stem}: expected a refusal for {expected_refusal!r}, got: {text}"
        assert "Traceback" not in text
        assert not (tmp_path / op.name).exists(), "a refused operator left a partial project"
        pytest.skip(f"expected refusal (EXPECTED_REFUSALS): {e.msg}")
    assert expected_refusal is None, (
        f"{path.stem} compiles now: remove it from EXPECTED_REFUSALS ({expected_refusal!r}) "
        "so its results are checked"
    )
    rng = np.random.default_rng(7)
    dtypes = getattr(mod, "DTYPES", None) or [d.name for d in op.dtypes]
    for tname in dtypes:
        t = dsl.dtypes.dtype_from_name(tname)
        for attrs in mod.ATTRS:
            public = {k: v for k, v in attrs.items() if not k.startswith("_")}
            for shape in mod.SHAPES[:3]:
                args = mod.make_inputs(rng, t, shape, **_args(mod.make_inputs, attrs))
                ref = op.reference(*args, dtype=t, **public)
                got = op.simulate(*args, cores=4, dtype=t, target=target, **public)
                refs = ref if isinstance(ref, tuple) else (ref,)
                gots = got if isinstance(got, tuple) else (got,)
                tols = dsl.precision.output_tolerances(op, t, **public)
                bound = dsl.precision.func_matmul_bound(op.func(t), dict(zip(op.inputs, args)))
                for name, r, g in zip(op.outputs, refs, gots):
                    what = f"{path.stem}.{name}[{tname}, {public}, {shape}]"
                    dsl.precision.check(g, r, tols[name], what=f"{what} [{tols[name]}]", bound=bound)


def test_expected_refusals_are_corpus_operators():
    assert set(EXPECTED_REFUSALS) <= {p.stem for p in MODULES}
