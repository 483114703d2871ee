"""Tile-level ops: the tile loop, GM<->UB copies, vector-scalar instructions and pipe sync.

After ``tile``, a function's tensor ops sit inside one ``loop.tiles`` region and mean "this
op on the current tile". Types stay ``tensor<*, T>``: a tile is a slice of the op-wide range.

    %lr = scalar.load %lr_gm : scalar<f32>           // S pipe, once per core
    loop.tiles {tile = 5184} do {
      %g = dma.load %grad {buf = "b1"} : tensor<*, f32>       // MTE2
      sync.set {event = "MTE2_V", id = "slot"}
      sync.wait {event = "MTE2_V", id = "slot"}
      %m = vec.muls %g, %lr {buf = "b2"} : tensor<*, f32>    // V
      dma.store %m {output = "m_out"}                         // MTE3
    }
"""

from __future__ import annotations

from .ops import OpSpec, _arith, _binary, declare
from .types import ScalarType, TensorType, TypeInferenceError

import numpy as np

PIPES = ("S", "MTE2", "V", "MTE3")
EVENTS = tuple(f"{a}_{b}" for a in PIPES for b in PIPES if a != b)
# Event ids relative to the ping-pong slot (0 or 1): "slot" and "slot+K" stay within the manual ids 0-5.
SLOT_IDS = ("slot",) + tuple(f"slot+{k}" for k in range(1, 5))


def _scalar_load(types, attrs):
    (t,) = types
    if not isinstance(t, ScalarType):
        raise TypeInferenceError("scalar.load reads a Scalar input")
    return t


def _dma_load(types, attrs):
    (t,) = types
    if not isinstance(t, TensorType):
        raise TypeInferenceError("dma.load reads a tensor input")
    return t


def _vector_scalar(name: str):
    arith = _arith(name)

    def infer(types, attrs):
        # The scalar is a scalar value, or in a row function a per-row value ([..., 1]) that
        # the scalar unit reads once per row.
        if not (isinstance(types[0], TensorType) and isinstance(types[1], (ScalarType, TensorType))):
            raise TypeInferenceError(f"{name} takes a tile and a scalar (or a per-row value)")
        return arith(types, attrs)

    return infer


def _check_dup(types, attrs, rtype):
    if not (
        isinstance(types[0], ScalarType) and isinstance(rtype, TensorType) and rtype.dtype == types[0].dtype
    ):
        raise TypeInferenceError("vec.dup broadcasts a scalar into a tile of the same dtype")


def _check_store(types, attrs, rtype):
    if not isinstance(types[0], TensorType):
        raise TypeInferenceError("dma.store writes a tile")


def _check_sync(types, attrs, rtype):
    if attrs.get("event") not in EVENTS:
        raise TypeInferenceError(
            f"unknown event {attrs.get('event')!r}; events are SRC_DST of S, MTE2, V, MTE3"
        )
    i = attrs.get("id")
    if not (i in SLOT_IDS or (isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= 5)):
        raise TypeInferenceError(
            f'event id must be 0-5, "slot" (tile & 1) or "slot+K" with K in 1-4 (an id group of insert-sync), '
            f"got {i!r}"
        )


declare(
    OpSpec(
        "scalar.load",
        1,
        _scalar_load,
        lambda a, at, rt: a[0],
        in_loop=False,
        doc="%s = scalar.load %lr : scalar<f32>  // GM [1] -> scalar register (S pipe)",
    )
)
declare(
    OpSpec(
        "dma.load",
        1,
        _dma_load,
        lambda a, at, rt: a[0],
        in_loop=None,  # row functions load resident columns ([C]) once, before the loop
        doc="%t = dma.load %x : tensor<*, f16>  // GM -> UB (MTE2)",
    )
)
declare(
    OpSpec(
        "dma.store",
        1,
        None,
        None,
        attrs=("output",),
        has_result=False,
        in_loop=True,
        check=_check_store,
        doc='dma.store %t {output = "y"}  // UB -> GM (MTE3)',
    )
)
for _name, _fn in [("adds", np.add), ("muls", np.multiply), ("maxs", np.maximum), ("mins", np.minimum)]:
    declare(
        OpSpec(
            f"vec.{_name}",
            2,
            _vector_scalar(f"vec.{_name}"),
            _binary(_fn),
            in_loop=None,  # row functions compute resident columns before the loop
            doc=f"%r = vec.{_name} %t, %s : tensor<*, f32>  // {_name.capitalize()}(dst, t, s, n)",
        )
    )
declare(
    OpSpec(
        "vec.dup",
        1,
        None,
        lambda a, at, rt: a[0],
        check=_check_dup,
        in_loop=None,
        doc="%t = vec.dup %s : tensor<*, f32>  // Duplicate(dst, s, n); before the loop: one resident repeat",
    )
)


def _check_brc(types, attrs, rtype):
    if attrs.get("of") not in ("perrow", "col"):
        raise TypeInferenceError('vec.brc spreads a per-row value (of = "perrow") or a column (of = "col")')
    if not (
        isinstance(types[0], TensorType) and isinstance(rtype, TensorType) and rtype.dtype == types[0].dtype
    ):
        raise TypeInferenceError(
            "vec.brc keeps the dtype: a per-row value or a column spread over whole rows"
        )


declare(
    OpSpec(
        "vec.brc",
        1,
        None,
        lambda a, at, rt: a[0],  # numpy broadcasting does the spreading for the interpreter
        attrs=("of",),
        check=_check_brc,
        in_loop=True,
        doc='%r = vec.brc %m {of = "perrow"} : tensor<..., C, f32>  // a per-row value (or a column) over rows',
    )
)


def _check_brcb(types, attrs, rtype):
    if not (isinstance(types[0], TensorType) and rtype == types[0]):
        raise TypeInferenceError("vec.brcb keeps the type: per-row values, each spread over a 32-byte block")


declare(
    OpSpec(
        "vec.brcb",
        1,
        None,
        lambda a, at, rt: a[0],  # the same per-row values, laid out one 32-byte block each
        check=_check_brcb,
        in_loop=True,
        doc="%b = vec.brcb %m : tensor<..., 1, f32>  // Brcb: each per-row value fills a 32-byte block",
    )
)


declare(
    OpSpec(
        "loop.tiles",
        0,
        None,
        None,
        has_result=False,
        has_region=True,
        in_loop=False,
        check=lambda t, a, r: None,
        doc="loop.tiles {tile = 4096} do { ... }",
    )
)
for _name in ("set", "wait"):
    declare(
        OpSpec(
            f"sync.{_name}",
            0,
            None,
            None,
            attrs=("event", "id"),
            has_result=False,
            check=_check_sync,
            doc=f'sync.{_name} {{event = "MTE2_V", id = "slot"}}  // {_name.capitalize()}Flag',
        )
    )


def _check_fill(types, attrs, rtype):
    if len(types) != 1 or not isinstance(types[0], TensorType):
        raise TypeInferenceError("bcast.fill takes the tile an input was copied into")


declare(
    OpSpec(
        "bcast.fill",
        1,
        None,
        None,
        has_result=False,
        in_loop=True,
        check=_check_fill,
        doc="bcast.fill %x_t  // broadcast: V splats or replicates input x into its tile (Fill)",
    )
)


def _check_barrier(types, attrs, rtype):
    if attrs.get("pipe") not in ("V", "MTE2", "MTE3"):
        raise TypeInferenceError("sync.barrier orders one pipe: V, MTE2 or MTE3")


declare(
    OpSpec(
        "sync.barrier",
        0,
        None,
        None,
        attrs=("pipe",),
        has_result=False,
        check=_check_barrier,
        doc='sync.barrier {pipe = "V"}  // PipeBarrier<PIPE_V>()',
    )
)


def _check_welford_var(types, attrs, rtype):
    src, shift = types
    if not (isinstance(src, TensorType) and isinstance(shift, TensorType) and isinstance(rtype, TensorType)):
        raise TypeInferenceError(
            "welford.var takes rows and a per-row shift (-mean), and gives a per-row value"
        )
    if rtype != shift or src.dtype != shift.dtype:
        raise TypeInferenceError("welford.var gives the per-row variance in the type of the shift it reads")


def _welford_var_run(a, at, rt):
    d = a[0] - a[1] if at.get("blocks") else a[0] + a[1]  # blocks: the shift is mean(x) as Brcb blocks
    return (d * d).mean(axis=-1, keepdims=True, dtype=d.dtype)


declare(
    OpSpec(
        "welford.var",
        2,
        None,
        _welford_var_run,
        check=_check_welford_var,
        in_loop=True,
        doc="%v = welford.var %x, %n : tensor<..., 1, f32>  // mean((x + n)^2), n = -mean(x) ({blocks = true}: mean((x - n)^2), n = mean(x) as Brcb blocks): Welford statistics",
    )
)


def _check_online_sum(types, attrs, rtype):
    src, top = types
    if not (isinstance(src, TensorType) and isinstance(top, TensorType) and isinstance(rtype, TensorType)):
        raise TypeInferenceError(
            "online.sum takes rows exp(x - m) and the per-row max m, and gives a per-row value"
        )
    if rtype != top or src.dtype != top.dtype:
        raise TypeInferenceError("online.sum gives the per-row sum in the type of the max it reads")


def _online_sum_run(a, at, rt):
    return a[0].sum(axis=-1, keepdims=True, dtype=a[0].dtype)  # a whole row: m is the row's max


declare(
    OpSpec(
        "online.sum",
        2,
        None,
        _online_sum_run,
        check=_check_online_sum,
        in_loop=True,
        doc="%s = online.sum %e, %m : tensor<..., 1, f32>  // sum(e), e = exp(x - m), m = max(x) running over "
        "a row's column chunks: each chunk rescales the sum so far by exp(m before - m) (online softmax)",
    )
)
