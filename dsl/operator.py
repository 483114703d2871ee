"""``@dsl.op`` and the ``Operator`` object users call (contract: DESIGN.md section 2)."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any

import numpy as np

from .dtypes import ALL_DTYPES, DType, dtype_from_name, dtype_from_numpy
from .errors import ArgumentError, DslError
from .ir import Func, Module, print_module


def _numpy_dtype_like(d) -> bool:
    try:
        np.dtype(d)
    except TypeError:
        return False
    return True


def _as_dtype(d) -> DType:
    if isinstance(d, DType):
        return d
    if isinstance(d, str):
        return dtype_from_name(d)
    raise TypeError(f"expected a dsl dtype (f16, bf16, f32, i8, i32, u8, bool_), got {d!r}")


class Operator:
    """A compiled-on-demand operator. See DESIGN.md for the contract of each method."""

    def __init__(self, fn, dtypes, broadcast: bool, name: str | None, ranges=None):
        from frontend import build_definition

        self._fn = fn
        self.name: str = name or fn.__name__
        self.dtypes: tuple[DType, ...] = tuple(dtypes)
        self.broadcast = broadcast
        self._def = build_definition(
            fn, self.dtypes, broadcast, self.name, explicit_name=name is not None, ranges=ranges
        )
        # input name -> (lo, hi): what random inputs (dslc run, golden.py) are drawn from
        self.ranges: dict[str, tuple[float, float]] = dict(self._def.ranges)
        self.inputs: list[str] = [d.name for d in self._def.inputs]
        self.attrs: dict[str, Any] = {a.name: a.default for a in self._def.attrs}
        self.outputs: list[str] = [o.name for o in self._def.func(self.dtypes[0]).outputs]
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __repr__(self) -> str:
        return f"<dsl.Operator {self.name}({', '.join(self.inputs)}) -> ({', '.join(self.outputs)})>"

    def __call__(self, /, *args, **kwargs):
        raise TypeError(
            f"call {self.name}.reference(...) to compute with numpy, or .simulate(...) to run "
            "the generated kernel on the emulator"
        )

    # -- IR -----------------------------------------------------------------------------------

    def func(self, dtype) -> Func:
        """The unspecialized tensor-level IR for ``dtype``."""
        dt = _as_dtype(dtype)
        if dt not in self.dtypes:
            raise ArgumentError(
                f"{self.name} is not generated for {dt}; its dtypes are "
                f"{', '.join(d.name for d in self.dtypes)}"
            )
        return self._def.func(dt)

    def module(self, dtype=None) -> Module:
        return Module([self.func(dtype or self.dtypes[0])])

    def check_attrs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """All attribute values (defaults filled in), validated against their declarations."""
        out = dict(self.attrs)
        decls = {a.name: a for a in self._def.attrs}
        for k, v in attrs.items():
            decl = decls.get(k)
            if decl is None:
                known = ", ".join(decls) or "none"
                raise ArgumentError(f"{self.name} has no attribute '{k}' (attributes: {known})")
            if decl.kind == "bool" and not isinstance(v, (bool, np.bool_)):
                raise ArgumentError(f"attribute '{k}' is a bool, got {v!r}")
            if decl.kind == "int" and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
                raise ArgumentError(f"attribute '{k}' is an int, got {v!r}")
            if decl.kind == "float" and (isinstance(v, bool) or not isinstance(v, (int, float, np.number))):
                raise ArgumentError(f"attribute '{k}' is a float, got {v!r}")
            if decl.kind == "literal" and v not in decl.choices:
                raise ArgumentError(f"attribute '{k}' must be one of {list(decl.choices)}, got {v!r}")
            out[k] = (
                bool(v)
                if decl.kind == "bool"
                else int(v) if decl.kind == "int" else float(v) if decl.kind == "float" else v
            )
        return out

    def ir(self, /, dtype=None, **attrs) -> str:
        """Tensor-level IR text of one specialization (static attributes resolved)."""
        from passes.specialize import SpecializePass

        func = self.func(dtype if dtype is not None else self.dtypes[0])
        values = self.check_attrs(attrs)
        static = {a.name: values[a.name] for a in self._def.attrs if a.static}
        module = Module([func])
        SpecializePass(tuple(sorted(static.items()))).run(module)
        return print_module(module)

    # -- reference ------------------------------------------------------------------------------

    def bind(
        self, args: tuple, kwargs: dict, dtype=None
    ) -> tuple[DType, dict[str, np.ndarray | None], dict[str, Any]]:
        """Split user arguments into (T, inputs by name, attributes), checking dtypes and shapes.
        ``dtype`` chooses T (``dtype=`` of reference/simulate/profile; see ``choose_T``)."""
        from .shapes import check_shapes

        if len(args) > len(self.inputs):
            raise ArgumentError(
                f"{self.name} takes {len(self.inputs)} inputs ({', '.join(self.inputs)}), "
                f"got {len(args)} positional arguments"
            )
        given: dict[str, Any] = dict(zip(self.inputs, args))
        attrs = {}
        for k, v in kwargs.items():
            if k in self.inputs:
                if k in given:
                    raise ArgumentError(f"input '{k}' given twice")
                given[k] = v
            else:
                attrs[k] = v
        attrs = self.check_attrs(attrs)
        T = self.choose_T(given, dtype)
        arrays: dict[str, np.ndarray | None] = {}
        for d in self._def.inputs:
            v = given.get(d.name)
            if v is None:
                if not d.optional:
                    raise ArgumentError(f"missing required input '{d.name}'")
                arrays[d.name] = None
                continue
            want = d.spec.dtype or T
            if d.is_scalar and isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
                arrays[d.name] = np.array([v]).astype(want.np)
                continue
            if isinstance(v, bool) or not hasattr(v, "dtype"):
                kind = "a number or a shape-(1,) array" if d.is_scalar else "a numpy array"
                raise ArgumentError(f"input '{d.name}' must be {kind}, got {type(v).__name__}")
            arr = np.asarray(v)
            if arr.dtype != want.np:
                raise ArgumentError(f"input '{d.name}' must be {want} ({want.np}), got {arr.dtype}")
            if d.is_scalar:
                if arr.size != 1 or arr.ndim > 1:
                    raise ArgumentError(f"Scalar input '{d.name}' must have shape (1,), got {arr.shape}")
                arr = arr.reshape(1)
            arrays[d.name] = arr
        check_shapes(self.name, self._def.inputs, arrays, self.broadcast)
        return T, arrays, attrs

    def choose_T(self, given: dict[str, Any], dtype=None) -> DType:
        """T: ``dtype`` when given, else the dtype of the inputs of type T, else ``dtypes[0]``
        (an op with no input of type T names it ``dsl.T``). ``dtype`` must be one of the op's
        dtypes and agree with the inputs of type T."""
        requested = None
        if dtype is not None:
            try:
                requested = _as_dtype(dtype)
            except (TypeError, ValueError):
                requested = dtype_from_numpy(dtype) if _numpy_dtype_like(dtype) else None
                if requested is None:
                    raise ArgumentError(
                        f"dtype={dtype!r} is not a dtype; {self.name} is generated for "
                        f"{', '.join(d.name for d in self.dtypes)}"
                    ) from None
            if requested not in self.dtypes:
                raise ArgumentError(
                    f"dtype={requested}: {self.name} is not generated for {requested}; its dtypes are "
                    f"{', '.join(d.name for d in self.dtypes)}"
                )
        found = self._input_T(given)
        if requested is not None and found is not None and found[1] != requested:
            names = ", ".join(found[0])
            raise ArgumentError(
                f"dtype={requested} disagrees with the inputs of type T ({names}: {found[1]}); "
                f"pass {requested} arrays, or leave dtype= out (T is then the inputs' dtype)"
            )
        T = requested or (found[1] if found is not None else self.dtypes[0])
        if T not in self.dtypes:
            raise ArgumentError(
                f"{self.name} is generated for {', '.join(d.name for d in self.dtypes)}, " f"not {T}"
            )
        return T

    def _input_T(self, given: dict[str, Any]) -> tuple[list[str], DType] | None:
        """(names, dtype) of the given inputs of type T (unpinned), None when there are none."""
        found: dict[str, DType] = {}
        for d in self._def.inputs:
            v = given.get(d.name)
            if d.spec.dtype is not None or v is None or not hasattr(v, "dtype"):
                continue
            dt = dtype_from_numpy(np.asarray(v).dtype)
            if dt is None:
                raise ArgumentError(
                    f"input '{d.name}' has unsupported dtype {np.asarray(v).dtype}; "
                    f"{self.name} supports {', '.join(x.name for x in self.dtypes)}"
                )
            found[d.name] = dt
        kinds = set(found.values())
        if len(kinds) > 1:
            detail = ", ".join(f"{k}: {v}" for k, v in found.items())
            raise ArgumentError(f"inputs of {self.name} must share one dtype T, got {detail}")
        return (list(found), kinds.pop()) if kinds else None

    def reference(self, /, *arrays, dtype=None, **attrs):
        """Numpy outputs from the IR interpreter: one array, or a tuple for several outputs.
        ``dtype`` picks T (default: the inputs' T, else ``dtypes[0]``)."""
        from .ir.interpreter import run_func

        T, inputs, values = self.bind(arrays, attrs, dtype)
        func = self.variant(T, values, inputs)
        outs = run_func(func, inputs, values)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def variant(self, T: DType, values: dict[str, Any], inputs: dict[str, Any] | None = None) -> Func:
        """The IR specialized for the static attributes in ``values``; checks that every optional
        input this variant uses is present in ``inputs`` (when given)."""
        from passes.specialize import resolve

        static = {a.name: values[a.name] for a in self._def.attrs if a.static}
        func = resolve(self._def.func(T), static)
        if inputs is not None:
            used = {id(v) for op in func.body for v in op.operands} | {id(v) for v in func.returns}
            for p in func.params:
                if p.optional and id(p.value) in used and inputs.get(p.value.name) is None:
                    why = ", ".join(f"{k}={v!r}" for k, v in static.items()) or "this variant"
                    raise ArgumentError(f"optional input '{p.value.name}' is required when {why}")
        return func

    # -- backend ------------------------------------------------------------------------------

    def compile(self, target: str = "ascend910b", out_dir="build", vector_path: str = "auto", cann=None):
        """Write the CANN custom-operator project; returns its path (``out_dir/<name>``).
        ``vector_path``: auto, membase or regbase; ``cann``: the release whose spellings to emit
        (default: the oldest that supports the target)."""
        from backends.ascendc.compile import compile_op

        return compile_op(self, target=target, out_dir=out_dir, vector_path=vector_path, cann=cann)

    def simulate(
        self,
        /,
        *arrays,
        target: str = "ascend910b",
        cores=None,
        project=None,
        vector_path="auto",
        cann=None,
        dtype=None,
        **attrs,
    ):
        """Outputs of the generated host tiling + kernel run on the CPU emulator; ``dtype`` picks
        T as for ``reference``."""
        from backends.ascendc.simulate import simulate

        outs, _ = simulate(
            self,
            arrays,
            attrs,
            target=target,
            cores=cores,
            project=project,
            vector_path=vector_path,
            cann=cann,
            dtype=dtype,
        )
        return outs

    def profile(
        self,
        /,
        *arrays,
        target: str = "ascend910b",
        cores=None,
        sku=None,
        l2="warm",
        project=None,
        vector_path="auto",
        cann=None,
        dtype=None,
        cube_math=True,
        **attrs,
    ):
        """A modelled performance report (predicted and roofline time, DMA, bytes, UB, syncs) of
        the generated kernel on these inputs; ``.save_trace(path)`` writes a Perfetto trace.
        ``sku`` picks the chip (``backends.ascendc.perf.constants.SKUS``; default: the target's
        reference part), ``l2`` whether inputs that fit in L2 are already there ("warm", as in
        repeated runs) or not ("cold"; "flushed": and the L2 full of a previous kernel's dirty lines,
        so outputs cost HBM write-backs); ``project`` profiles the sources of a project ``compile``
        wrote (and a user may have edited), as ``simulate(project=...)`` runs them; ``dtype`` picks
        T as for ``reference``; ``cube_math=False`` models a matmul too large to compute in the
        emulator (its Mmads write 0: the same instructions and trace, so the same report)."""
        from backends.ascendc.profile import profile

        return profile(
            self,
            arrays,
            attrs,
            target=target,
            cores=cores,
            sku=sku,
            l2=l2,
            project=project,
            vector_path=vector_path,
            cann=cann,
            dtype=dtype,
            cube_math=cube_math,
        )


class InvalidOperator:
    """An ``@dsl.op`` the frontend rejected while ``dslc`` imported the file (see
    ``collect_invalid``): the CLI reports ``error`` and goes on with the file's other operators.
    Any use of it raises that error."""

    def __init__(self, name: str, error: DslError):
        self.__dict__.update(name=name, error=error)

    def __getattr__(self, attr):
        if attr.startswith("__"):  # protocol lookups (copy, pickle, inspect) see a plain object
            raise AttributeError(attr)
        raise self.__dict__["error"]

    def __repr__(self) -> str:
        return f"<dsl.InvalidOperator {self.name}: {self.error.msg}>"


_COLLECT_INVALID = contextvars.ContextVar("dslc_collect_invalid", default=None)


@contextlib.contextmanager
def collect_invalid():
    """While active, ``@dsl.op`` returns an ``InvalidOperator`` for a rejected function instead of
    raising, so one bad operator does not hide the others of a file (used by ``dsl.loader``). The
    context yields the list of every operator decorated meanwhile, as (operator, function,
    whether ``name=`` was given), valid or not, even one a later definition of the same Python
    name replaced."""
    made: list = []
    token = _COLLECT_INVALID.set(made)
    try:
        yield made
    finally:
        _COLLECT_INVALID.reset(token)


def op(fn=None, *, dtypes=(ALL_DTYPES[2],), broadcast: bool = False, name: str | None = None, ranges=None):
    """Decorator: ``@dsl.op(dtypes=(f16, f32), broadcast=False, name=None, ranges=None)``;
    ``ranges={"v": (0, 2)}`` declares where random inputs of ``dslc run`` and the project's golden
    script are drawn from (``Operator.ranges``)."""

    def wrap(f):
        if name is not None and not isinstance(name, str):
            code = f.__code__
            raise DslError(
                f"@dsl.op(name={name!r}): the name must be a string", code.co_filename, code.co_firstlineno, 1
            )
        made = _COLLECT_INVALID.get()
        try:
            result = Operator(f, _check_dtypes(f, dtypes), bool(broadcast), name, ranges)
        except DslError as e:
            if made is None:  # the user's line, without the frontend's frames in the traceback
                e.__cause__, e.__suppress_context__ = None, True
                raise e.with_traceback(None)
            result = InvalidOperator(name if isinstance(name, str) else f.__name__, e)
        if made is not None:
            made.append((result, f, name is not None))
        return result

    if fn is not None:
        return wrap(fn)
    return wrap


def _check_dtypes(fn, dtypes) -> tuple[DType, ...]:
    if isinstance(dtypes, (DType, str)):
        dtypes = (dtypes,)
    out = []
    for d in dtypes:
        try:
            out.append(_as_dtype(d))
        except (TypeError, ValueError) as e:
            code = fn.__code__
            raise DslError(f"@dsl.op(dtypes=...): {e}", code.co_filename, code.co_firstlineno, 1) from None
    if not out:
        code = fn.__code__
        raise DslError(
            "@dsl.op(dtypes=...) needs at least one dtype", code.co_filename, code.co_firstlineno, 1
        )
    return tuple(dict.fromkeys(out))
