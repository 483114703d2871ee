"""Held-out-style corpus: every module in this directory defines one operator against the DSL
contract plus an independent numpy golden; ``op.reference`` must equal the golden for every
dtype x attribute combination x shape.

Module protocol (plain module-level names):

* ``OP``: the ``dsl.Operator``; ``OUTPUTS`` (optional): the expected output names;
* ``DTYPES`` (optional): dtype names to test, default all of ``OP.dtypes``;
* ``SHAPES``: a list of shapes (or of whatever ``make_inputs`` takes as ``shape``);
* ``ATTRS``: a list of attribute dicts; keys starting with ``_`` only steer
  ``make_inputs``/``golden`` and are not passed to ``reference``;
* ``make_inputs(rng, t, shape, **attrs)`` -> positional arguments for ``reference`` (it gets
  only the attributes it names, or all with ``**kwargs``); ``reference`` is called with
  ``dtype=t``, which picks T for an operator with no input of type T (``dsl.T``);
* ``golden(t, *args, **attrs)`` -> ``[(array, numpy output dtype), ...]`` per output, where a
  float output's array is the f32 golden (rounded once to the output dtype by the comparison)
  and a bool/integer output's array is exact.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import pathlib
import sys
import zlib

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent


def _load_helpers():
    path = HERE.parent / "contract" / "contract_helpers.py"
    name = "dslc_contract_helpers"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


H = _load_helpers()
import dsl  # noqa: E402  (a broken dsl fails these tests; it does not skip them)

CORPUS = sorted(p for p in HERE.glob("*.py") if not p.name.startswith(("test_", "_", "conftest")))


def _load(path):
    """(module, None) or (None, the exception raised while importing/decorating it)."""
    try:
        return H.load_module(path, f"dslc_corpus_{path.stem}"), None
    except Exception as exc:  # noqa: BLE001 - reported by test_corpus_module_imports
        return None, exc


LOADED = {p.stem: _load(p) for p in CORPUS}


def _cases():
    for stem, (mod, err) in LOADED.items():
        if mod is None:
            continue
        dtypes = getattr(mod, "DTYPES", None) or [d.name for d in mod.OP.dtypes]
        for tname in dtypes:
            for ai, attrs in enumerate(mod.ATTRS):
                for shape in mod.SHAPES:
                    yield pytest.param(stem, tname, ai, shape, id=f"{stem}-{tname}-a{ai}-{_shape_id(shape)}")


def _accepted(fn, attrs):
    """The subset of ``attrs`` that ``fn`` takes (all of them if it has ``**kwargs``)."""
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return dict(attrs)
    return {k: v for k, v in attrs.items() if k in params}


def _shape_id(shape):
    if shape and isinstance(shape[0], tuple):
        return "-vs-".join(_shape_id(s) for s in shape)
    return "x".join(map(str, shape)) or "scalar"


def test_corpus_is_big_enough():
    assert len(CORPUS) >= 10


@pytest.mark.parametrize("stem", [p.stem for p in CORPUS])
def test_corpus_module_imports(stem):
    """Decorating each corpus operator succeeds (the frontend accepts every construct used)."""
    mod, err = LOADED[stem]
    if err is not None:
        raise err
    assert isinstance(mod.OP, dsl.Operator)
    assert mod.OP.name == stem


def _declared_signature(path):
    """(inputs, attrs) read from the module source with ``ast`` (independent of dsl)."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
            ast.unparse(d).startswith("dsl.op") for d in node.decorator_list
        ):
            inputs = [a.arg for a in node.args.posonlyargs + node.args.args]
            attrs = {a.arg: ast.literal_eval(d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults)}
            return node.name, inputs, attrs
    raise AssertionError(f"{path}: no @dsl.op function")


@pytest.mark.parametrize("stem", [p.stem for p in CORPUS])
def test_corpus_metadata(stem):
    mod, err = LOADED[stem]
    if err is not None:
        pytest.fail(f"import failed (see test_corpus_module_imports): {err!r}")
    op = mod.OP
    name, inputs, attrs = _declared_signature(HERE / f"{stem}.py")
    assert op.name == name
    assert list(op.inputs) == inputs
    assert dict(op.attrs) == attrs
    assert list(op.outputs) == getattr(mod, "OUTPUTS", ["y"])
    assert list(inspect.signature(mod.make_inputs).parameters)[:3] == ["rng", "t", "shape"]


@pytest.mark.parametrize("stem,tname,ai,shape", list(_cases()))
def test_corpus_reference(stem, tname, ai, shape):
    mod, _ = LOADED[stem]
    t = getattr(dsl, tname)
    attrs = mod.ATTRS[ai]
    public = {k: v for k, v in attrs.items() if not k.startswith("_")}
    rng = np.random.default_rng(zlib.crc32(repr((stem, tname, ai, shape)).encode()))
    args = mod.make_inputs(rng, t, shape, **_accepted(mod.make_inputs, attrs))
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = mod.golden(t, *args, **attrs)
    got = H.as_tuple(mod.OP.reference(*args, dtype=t, **public), len(want))
    names = list(mod.OP.outputs) if len(mod.OP.outputs) == len(want) else range(len(want))
    tols = list(dsl.precision.output_tolerances(mod.OP, t, **public).values())
    bound = dsl.precision.func_matmul_bound(mod.OP.func(t), dict(zip(mod.OP.inputs, args)))
    for i, (name, g, (w, out_dtype)) in enumerate(zip(names, got, want)):
        what = f"{stem}[{tname}, {public}] output {name}"
        out_dtype = np.dtype(out_dtype)
        if out_dtype.kind == "f" or out_dtype == H.BF16:
            H.assert_float_output(g, w, out_dtype, tols[i], what=what, bound=bound)
        else:
            H.assert_exact(g, np.asarray(w).astype(out_dtype), what=what)
    for a, c in zip(args, copies):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, c, err_msg="reference() modified an input array")


@pytest.mark.parametrize("stem", [p.stem for p in CORPUS])
def test_corpus_ir_mentions_inputs(stem):
    mod, err = LOADED[stem]
    if err is not None:
        pytest.fail(f"import failed (see test_corpus_module_imports): {err!r}")
    op = mod.OP
    for tname in getattr(mod, "DTYPES", None) or [d.name for d in op.dtypes]:
        for attrs in mod.ATTRS:
            public = {k: v for k, v in attrs.items() if not k.startswith("_")}
            text = op.ir(dtype=getattr(dsl, tname), **public)
            assert isinstance(text, str) and text.strip()
            required = [n for n in op.inputs if n != "bias" or public.get("use_bias")]
            for name in required:
                assert H.mentions(text, name), f"{stem} IR ({tname}, {public}) lacks input {name!r}"
