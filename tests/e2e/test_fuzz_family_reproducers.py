"""Reproducers of what the broadcasting and row program families of tests/e2e/dslfuzz.py found.

Each program's reference is checked against a numpy formula written here, and ``simulate`` (the
generated C++ on the emulator, strict sync) must equal the reference bit for bit (exact
programs) or within the precision standard. Bugs in code other helpers own today are
``xfail(strict=True)``: the test starts to pass (and so fails) when they are fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

import dsl
from backends.ascendc.simulate import simulate

from exact_check import BF16, check, same_bits

# -- fixed ----------------------------------------------------------------------------------------


def test_rows_seed_4_per_row_value_minus_a_row(write_module):
    """``m - x`` (m per-row) is ``(-x) + m``: row-forms negated m and put the row in the scalar
    place, which the kernel refused ("scalar %2 is not available inside the kernel")."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, bf16, f32

        @dsl.op(dtypes=(bf16, f32))
        def rz4(q: Tensor[..., "C"]):
            v2 = dsl.min(q, axis=-1, keepdims=True) - (-2) * q + 2
            return v2
        """)
    rng = np.random.default_rng(4)
    for dt in (BF16, np.dtype(np.float32)):
        q = rng.uniform(-3, 3, (5, 2, 255)).astype(dt)
        f = q.astype(np.float32)
        m = f.min(axis=-1, keepdims=True)
        expected = ((m - np.float32(-2) * f) + np.float32(2)).astype(dt)
        check(mod.rz4, (q,), expected)


def test_rowin_block_compared_with_a_column(write_module):
    """``a != n`` with a block ``a: [S, C]`` and a column ``n: [C]``: row-forms spread the column
    over whole rows while the compare kept the block's type (a VerifyError, rowin seed 8037)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, i32

        @dsl.op(dtypes=(f16, i32))
        def blkcmp(n: Tensor["C"], x: Tensor[i32, ..., "S", 1], a: Tensor["S", "C"], q: Tensor[..., "S", "C"]):
            v0 = dsl.abs(x + dsl.cast(a != n, a.dtype))
            w = dsl.where(a == n, q, a)
            return v0, w
        """)
    rng = np.random.default_rng(8037)
    for dt in (np.dtype(np.float16), np.dtype(np.int32)):
        n = rng.integers(-2, 3, 7).astype(dt)
        x = rng.integers(-4, 4, (2, 3, 1)).astype(np.int32)
        a = rng.integers(-2, 3, (3, 7)).astype(dt)
        q = rng.integers(-4, 4, (2, 3, 7)).astype(dt)
        compute = np.float32 if dt != np.int32 else np.int32  # i32 + f16 computes in f16 (held as f32)
        v0 = np.abs(x.astype(compute) + (a != n).astype(compute)).astype(dt)
        w = np.where(a == n, q, np.broadcast_to(a, q.shape))
        check(mod.blkcmp, (n, x, a, q), (v0, w), cores=2)


def test_rowin_per_row_reads_reuse_the_v_s_event_id(write_module):
    """Three per-row values the scalar unit reads with nothing from S to V between them (a
    per-row factor, a compared per-row chain, a max spread for ``where``): insert-sync gave each
    read its own V_S id group and ran out of ids in the column-chunked twin ("V_S is needed at 4
    unordered points", rowin seed 8008). A WaitFlag<V_S> blocks the scalar unit, so the next
    SetFlag of its id comes after it: one group serves them all. C = 20000 runs the twin."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16

        @dsl.op(dtypes=(f16,))
        def perrow3(x: Tensor[..., 1], w: Tensor[..., "C"], z: Tensor["C"], *, k: int = 4):
            v0 = z * x
            v1 = dsl.where((k - x) * 2 == w, dsl.max(-v0, axis=-1, keepdims=True), w)
            return v0, v1
        """)
    rng = np.random.default_rng(8008)
    for cols in (33, 20000):
        nonzero = np.array([-3, -2, -1, 1, 2, 3], np.float16)  # no zero product: max's zero sign is free
        x = rng.choice(nonzero, (2, 3, 1))
        z = rng.choice(nonzero, cols)
        w = rng.integers(-6, 7, (2, 3, cols)).astype(np.float16)
        prod = z.astype(np.float32) * x.astype(np.float32)
        cond = (np.float32(4) - x.astype(np.float32)) * np.float32(2) == w.astype(np.float32)
        v1 = np.where(cond, (-prod).max(axis=-1, keepdims=True), w.astype(np.float32))
        check(mod.perrow3, (x, w, z), (prod.astype(np.float16), v1.astype(np.float16)))


def test_rows_per_row_values_read_by_the_scalar_unit_share_one_reverse_s_v_event(write_module):
    """Per-row values the scalar unit reads for a ``where``, one of them stored (so double
    buffered) and one single-slot, with reductions (S ids from group 1): the next tile's vector
    writes waited for two reverse S_V events, a slotted and a constant-id one, each an id group of
    its own, and insert-sync ran out of ids ("S_V is needed at 4 unordered points", rows seed
    10087, f32). The constant-id event, which the next tile waits for, covers both buffers.
    C = 20000 runs the column-chunked twin."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, f32

        @dsl.op(dtypes=(f16, f32))
        def rz10087(z: Tensor[..., "C"], q: Tensor[f16, "C"], w: Tensor[..., "C"], *, alpha: float = 0.5, k: int = 3):
            v0 = dsl.cast(dsl.min(z, axis=-1, keepdims=True), w.dtype)
            v1 = v0
            m = dsl.max(dsl.cast(w, w.dtype), axis=-1, keepdims=True)
            v2 = dsl.where((q - (k + k)) <= m, dsl.max(v1 + z, axis=-1, keepdims=True) - dsl.cast(alpha, w.dtype), v1)
            v3 = w
            return v2, v1, v3
        """)
    rng = np.random.default_rng(10087)
    for dt in (np.dtype(np.float32), np.dtype(np.float16)):
        for shape in ((3, 700, 33), (3, 20000)):
            # small integers: every sum, difference and comparison is exact in f16
            z = rng.integers(-8, 9, shape).astype(dt)
            w = rng.integers(-8, 9, shape).astype(dt)
            q = rng.integers(-2, 15, shape[-1]).astype(np.float16)
            zf, wf = z.astype(np.float64), w.astype(np.float64)
            v0 = zf.min(axis=-1, keepdims=True)
            cond = q.astype(np.float64) - 6 <= wf.max(axis=-1, keepdims=True)
            v2 = np.where(cond, (v0 + zf).max(axis=-1, keepdims=True) - 0.5, v0)
            check(mod.rz10087, (z, q, w), (v2.astype(dt), v0.astype(dt), w))


def test_rowin_scalar_events_without_reductions_take_id_group_0(write_module):
    """An i32 operator with a per-row input ``w: [R, 1]`` read by the scalar unit, a forward S_V
    pair and two reverse S_V events (a slotted and a single-slot buffer): with S events starting
    at id group 1 (kept free for the count-form reductions' FetchEventID) they needed 8 ids
    (rowin seed 8054). Without a reduction group 0 is free."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, i32, u8

        @dsl.op(dtypes=(i32,))
        def perrowi(w: Tensor["R", 1], p: Tensor["C"], x: Tensor["R", "C"], *, k: int = 1):
            v2 = dsl.maximum(2.0 * k, -2.0) + dsl.relu(w)
            v3 = dsl.where(-x > -2, dsl.where(p < v2, w, 0.5), k * 0.0) + 7
            v4 = dsl.cast(x * (w + 2) != dsl.abs(p), u8)
            return v4, v3, v2
        """)
    rng = np.random.default_rng(8054)
    for rows, cols in ((5, 33), (2, 20000)):
        w = rng.integers(-4, 5, (rows, 1)).astype(np.int32)
        p = rng.integers(-6, 7, cols).astype(np.int32)
        x = rng.integers(-4, 5, (rows, cols)).astype(np.int32)
        v2 = np.maximum(np.float32(2.0), np.float32(-2.0)) + np.maximum(w, 0).astype(np.float32)
        inner = np.where(p.astype(np.float32) < v2, w.astype(np.float32), np.float32(0.5))
        v3 = np.where(-x > -2, inner, np.float32(0.0)) + np.float32(7)
        v4 = (x * (w + 2) != np.abs(p)).astype(np.uint8)
        check(mod.perrowi, (w, p, x), (v4, v3.astype(np.float32), v2.astype(np.float32)), cores=2)


def test_rows_view_placed_differently_per_variant_in_load_columns(write_module):
    """``(g != k) & (0.5 > w)`` for f16 and i32: lower-bools' 1/0 splat is resident (computed in
    LoadColumns) in the i32 variant but a per-step value in a row slot in the f16 one, and
    LoadColumns declared it with the f16 binding, which needs the step's `slot` (the project did
    not build; rowin seed 8014 with C library names)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, i32

        @dsl.op(dtypes=(f16, i32))
        def colmask(w: Tensor[..., "C"], g: Tensor["C"], *, k: int = 3):
            v3 = (g != k) & (0.5 > w)
            return v3
        """)
    for dt in (np.dtype(np.float16), np.dtype(np.int32)):
        w = (np.arange(5 * 33).reshape(5, 33) % 7 - 3).astype(dt)
        g = (np.arange(33) % 5).astype(dt)
        check(mod.colmask, (w, g), (g != 3) & (0.5 > w.astype(np.float32)), cores=2)


def test_rowin_brcb_never_spreads_in_place(write_module):
    """A per-row chain landed in the dead 32-byte buffer of an earlier Brcb and was spread by
    Brcb in place: row 0's block overwrote the next rows' values (rowin seed 96, S = 1)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, bf16, f32

        @dsl.op(dtypes=(f32,))
        def qz96(x: Tensor[..., "S", 1], b: Tensor[..., "S", "C"], *, alpha: float = 0.75):
            v0 = dsl.min((x * b), axis=-1, keepdims=True) + dsl.max(b, axis=-1, keepdims=True)
            v1 = b - ((v0 / (dsl.abs(dsl.cast(alpha, bf16)) + 1.0)) + (alpha + b))
            return v0, v1
        """)
    rng = np.random.default_rng(96)
    b = rng.uniform(-2, 2, (5, 1, 1, 5)).astype(np.float32)
    x = rng.uniform(-2, 2, (5, 1, 1, 1)).astype(np.float32)
    alpha = np.float32(0.45)
    v0 = (x * b).min(axis=-1, keepdims=True) + b.max(axis=-1, keepdims=True)
    d = np.abs(np.float32(BF16.type(alpha))) + np.float32(1)
    v1 = b - ((v0 / d) + (alpha + b))
    for cores in (1, 3):
        check(mod.qz96, (x, b), (v0, v1), attrs={"alpha": 0.45}, cores=cores)


def test_rowin_per_row_value_minus_a_widened_column(write_module):
    """``a - m`` with ``a: [R, 1]`` and an f16 column ``m``: row-forms moved ``-m`` before the loop
    but the f32 copy of m it negates is made per step (a VerifyError, rowin seed 88)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, f32

        @dsl.op(dtypes=(f16, f32))
        def qz88(p: Tensor["R", "C"], a: Tensor["R", 1], m: Tensor["C"]):
            v0 = a * a
            y = m * ((v0 - v0) - m)
            z = a - m
            return y, z
        """)
    rng = np.random.default_rng(88)
    for dt in (np.dtype(np.float16), np.dtype(np.float32)):
        p = rng.uniform(-2, 2, (5, 33)).astype(dt)
        a = rng.uniform(-2, 2, (5, 1)).astype(dt)
        m = rng.uniform(-2, 2, 33).astype(dt)
        af, mf = a.astype(np.float32), m.astype(np.float32)
        v0 = af * af
        check(mod.qz88, (p, a, m), ((mf * ((v0 - v0) - mf)).astype(dt), (af - mf).astype(dt)), cores=2)


def test_rows_i32_where_of_a_column_and_rows_compiles(write_module, tmp_path):
    """expand-math's i32 where blends ``g * mask`` in the combined shape: a column branch was
    typed [C] and the verifier refused the program with a traceback (a VerifyError)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, i32

        @dsl.op(dtypes=(i32,))
        def rwhere(x: Tensor["R", "C"], w: Tensor["R", "C"], g: Tensor["C"]):
            y = dsl.where(x > w, g, x)
            return y
        """)
    x = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    w, g = x[::-1].copy(), np.array([10, 20, 30, 40], np.int32)
    assert same_bits(mod.rwhere.reference(x, w, g), np.where(x > w, g, x))
    project = mod.rwhere.compile(out_dir=tmp_path)
    assert (project / "op_kernel" / "rwhere.cpp").is_file()


# -- open: in code other helpers own today (xfail strict: fix, then drop the mark) ---------------


def _load_fuzz():
    import importlib.util
    import sys
    from pathlib import Path

    if "dslfuzz" not in sys.modules:
        spec = importlib.util.spec_from_file_location("dslfuzz", Path(__file__).with_name("dslfuzz.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules["dslfuzz"] = module
        spec.loader.exec_module(module)
    return sys.modules["dslfuzz"]


def test_bcast_literal_attribute_named_mode(write_module):
    """bcast seeds 2, 4, 7, 8, 9: a Literal attribute 'mode' became the template parameter MODE,
    which the broadcast kernel's own ``BcMode MODE`` redeclared. User attributes whose C++ name
    is one the kernel uses (MODE, TILE, BcMode; and BC_/IS_/ATTR_ prefixes) are renamed
    (ATTR_MODE, BcModeAttr); run-time attributes named like the tiling fields (bc_slots ->
    bcSlots, bc_rank) and an input named like a broadcast kind (bc_kind) do not clash either."""
    mod = write_module("""
        import dsl
        from typing import Literal
        from dsl import Tensor, Scalar, f32

        @dsl.op(dtypes=(f32,), broadcast=True)
        def bcmode(
            v: Tensor, bc_kind: Tensor, lr: Scalar, *, mode: Literal["p", "q"] = "p",
            bc_mode: Literal["a", "b"] = "a", tile: bool = False, bc_slots: float = 1.0, bc_rank: int = 2,
        ):
            y = v + bc_kind if mode == "p" else v - bc_kind
            z = y * bc_slots if bc_mode == "a" else y + bc_rank
            w = z + lr if tile else z - lr
            return w
        """)
    v, x = np.arange(12, dtype=np.float32).reshape(4, 3), np.arange(3, dtype=np.float32)
    lr = np.array([0.5], np.float32)
    check(mod.bcmode, (v, x, lr), v + x - lr[0], {"mode": "p"})
    for mode, bc_mode, tile in (("p", "a", False), ("q", "b", True), ("q", "a", True)):
        y = v + x if mode == "p" else v - x
        z = y * np.float32(3.0) if bc_mode == "a" else y + np.float32(5)
        w = z + lr[0] if tile else z - lr[0]
        attrs = {"mode": mode, "bc_mode": bc_mode, "tile": tile, "bc_slots": 3.0, "bc_rank": 5}
        check(mod.bcmode, (v, x, lr), w, attrs)


def test_bcast_output_shaped_by_its_own_operands(write_module):
    """numpy gives each output the broadcast shape of its own operands (bcast seeds 10, 14, 38,
    51): every output had the shape of all inputs. InferShape and simulate give each output its
    own shape; an output smaller than the broadcast of all inputs runs in mode GENERAL, which
    stores each of its elements once (rows whose coordinate is 0 where it is broadcast; one
    element per row when it is broadcast along the row); ``o = b`` copies b out after its Fill.
    An empty output next to one with elements is refused (seed 94's shapes)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32, i32

        @dsl.op(dtypes=(f32, i32), broadcast=True)
        def bcshape(b: Tensor, x: Tensor):
            y = x + 1
            z = b * 2
            o = b
            return y, z, o
        """)
    rng = np.random.default_rng(10)
    shapes = [
        ((5, 4, 2, 1), (1, 5, 4, 2, 1)),  # the same elements
        ((1, 5, 1, 2, 1), (1, 5, 4, 2, 1)),  # b broadcast along an outer axis
        ((1,), (7, 1)),  # a size-1 b (seed 38's shapes)
        ((7, 1), (7, 300)),  # b a column: one element per row
        ((3, 1, 70), (3, 5, 70)),
        ((1, 3), (4, 9000, 3)),
        ((2, 1, 1), (2, 3, 4000)),  # b broadcast along long (chunked) rows
    ]
    for dt in (np.dtype(np.float32), np.dtype(np.int32)):
        for bs, xs in shapes:
            b = rng.integers(-9, 9, bs).astype(dt)
            x = rng.integers(-9, 9, xs).astype(dt)
            check(mod.bcshape, (b, x), (x + dt.type(1), b * dt.type(2), b))
            check(mod.bcshape, (x, b), (b + dt.type(1), x * dt.type(2), x), cores=3)
    # y empty, z and o with elements (bcast seed 94's shapes): the kernel runs over b's shape and
    # neither reads x nor stores y
    for dt in (np.dtype(np.float32), np.dtype(np.int32)):
        b, x = rng.integers(-9, 9, (1, 3)).astype(dt), np.ones((0, 3), dt)
        check(mod.bcshape, (b, x), (x + dt.type(1), b * dt.type(2), b), cores=2)


def test_bcast_output_shape_chosen_by_a_static_attribute(write_module):
    """bcast seeds 69, 75: which inputs an output is computed from can depend on a static
    attribute (``m * m if flag else a``); InferShape gave it the broadcast of every choice's
    operands. It now takes the call's attributes (TilingKeyOf) like TilingFunc."""
    mod = write_module("""
        import dsl
        from typing import Literal
        from dsl import Tensor, i32

        @dsl.op(dtypes=(i32,), broadcast=True)
        def bcattr(m: Tensor, a: Tensor, *, flag: bool = True, mode: Literal["p", "q"] = "p"):
            v = dsl.abs(m * m if flag else a)
            w = m + a if mode == "p" else a * 3
            return v, w
        """)
    m = np.arange(-88, 88, dtype=np.int32).reshape(16, 11)
    a = np.arange(33 * 11, dtype=np.int32).reshape(33, 1, 11) - 100
    for flag in (False, True):
        for mode in ("p", "q"):
            v = np.abs(m * m if flag else a)
            w = m + a if mode == "p" else a * 3
            check(mod.bcattr, (m, a), (v, w), {"flag": flag, "mode": mode}, cores=3)


def test_bcast_input_copied_out_unchanged_after_its_fill(write_module, tmp_path):
    """bcast seed 38 (``o1 = b``, b broadcast): the body copied b's view out (MTE3) before Fill
    (V) splatted it into that view: stale values, and a race the emulator caught (V Duplicate
    overwrote what MTE3 still read). insert-sync now places the Fill (``bcast.fill``) before the
    first op that reads the input and orders it like any V write: the copy out follows it behind
    a V -> MTE3 pair of its own id group, with no PIPE_ALL, also when b is only copied out."""
    import re

    mod = write_module("""
        import dsl
        from dsl import Tensor, f32

        @dsl.op(dtypes=(f32,), broadcast=True)
        def bcopy(x: Tensor, b: Tensor):
            y = x + b
            o1 = b
            return y, o1

        @dsl.op(dtypes=(f32,), broadcast=True)
        def bonly(x: Tensor, b: Tensor):
            y = x * 2.0
            o1 = b
            return y, o1
        """)
    for op in (mod.bcopy, mod.bonly):
        kernel = (op.compile(out_dir=tmp_path) / "op_kernel" / f"{op.name}.cpp").read_text()
        assert "PIPE_ALL" not in kernel
        body = kernel[kernel.index("inline void ProcessTile") :]
        # CopyOut: SetFlag<V_MTE3>(id); WaitFlag<V_MTE3>(id); Store(...), right after the Fill
        fill = body.index("Fill(b, bGm_, 1, len);")
        store = body.index("if (last_) CopyOut(o1Gm_, bBlock, copyT, t, slot, 1);")
        assert fill < store and not re.search(r"(SetFlag|WaitFlag|Fill)", body[fill + 1 : store])
        assert "CopyOut(yGm_, yBlock, copyT, t, slot + 2, 0);" in body  # its own V_MTE3 group
    x = np.arange(6 * 40, dtype=np.float32).reshape(6, 40) / 7
    for b in (
        np.float32([2.5]),
        np.linspace(-1, 1, 40, dtype=np.float32),
        np.float32([[1], [2], [3], [4], [5], [6]]),
    ):
        full = np.broadcast_to(b, x.shape).astype(np.float32)
        check(mod.bcopy, (x, b), (x + full, b), cores=2)
        check(mod.bonly, (x, b), (x * np.float32(2), b), cores=2)


def test_rows_compare_with_a_constant(write_module):
    """A row compared with a scalar constant is CompareScalar (it was Compare(dst, src, None, ...):
    rows seeds 3, 8, 12, 13, 18, every i32 comparison in a row operator)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32

        @dsl.op(dtypes=(f32,))
        def rcmp(x: Tensor[..., "C"]):
            y = dsl.where(x > 0.5, x, -x)
            return y
        """)
    x = np.linspace(-2, 2, 96, dtype=np.float32).reshape(3, 32)
    check(mod.rcmp, (x,), np.where(x > np.float32(0.5), x, -x))


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_scalar_abs_of_negative_zero_is_positive_zero(write_module, target):
    """abs(-attr) of a zero float attribute is +0 (flat seed 9895: the scalar ``x < 0 ? -x : x``
    kept -0.0, and 0 - relu(...) became -0.0)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16

        @dsl.op(dtypes=(f16,))
        def zabs(x: Tensor, *, a: int = 3):
            return dsl.abs(-a) - dsl.relu(a - x)
        """)
    x = np.linspace(-4, 4, 256, dtype=np.float16)
    got, _ = simulate(mod.zabs, (x,), {"a": 0}, target=target)
    want = np.float16(0.0) - np.maximum(np.float16(0.0) - x, np.float16(0.0))
    assert same_bits(got, want)
    assert not np.signbit(got[x >= 0]).any()  # the zeros


def test_rows_regbase_plain_cast_to_i8_truncates(write_module):
    """A plain f32 -> i8 cast in a RegBase row VF truncates toward zero (rows seed 9604 on
    ascend950: its f16 -> i8 step took the quant chain's CAST_RINT trait, -3.8 gave -4)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32, i8

        @dsl.op(dtypes=(f32,))
        def rtrunc(b: Tensor["R", "C"], g: Tensor["R", "C"]):
            return dsl.cast(g - b, i8)
        """)
    rng = np.random.default_rng(9604)
    b, g = (rng.uniform(-200, 200, (3, 1000)).astype(np.float32) for _ in range(2))
    want = np.clip(np.trunc(g - b), -128, 127).astype(np.int8)
    got, _ = simulate(mod.rtrunc, (b, g), {}, target="ascend950")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("t", ["f16", "f32"])
def test_rows_regbase_bool_outputs(write_module, t):
    """Bool outputs of a RegBase row VF on ascend950 (rows seeds 20007, 20018, 20024 of the 950
    sweep): a cast to bool_ and a comparison of comparisons, stored as 0/1 bytes. The row VF took
    the bool output's register for a MaskReg and cast from it: the kernel did not build."""
    mod = write_module(f"""
        import dsl
        from dsl import Tensor, bool_, {t}

        @dsl.op(dtypes=({t},))
        def rbool(m: Tensor["R", "C"], w: Tensor["R", "C"]):
            pos = dsl.cast(dsl.relu(m - 0.25), bool_)
            cmp = m >= ((m < float("inf")) & (w < m))
            return pos, cmp
        """)
    rng = np.random.default_rng(20024)
    m, w = (
        rng.uniform(-1, 1, (5, 1000)).astype(np.dtype(getattr(np, "float16" if t == "f16" else "float32")))
        for _ in range(2)
    )
    got, _ = simulate(mod.rbool, (m, w), {}, target="ascend950")
    want = mod.rbool.reference(m, w)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    assert np.array_equal(want[0], m - np.float32(0.25) > 0)


def test_rowin_f32_per_row_input_as_a_scalar_operand_on_950(write_module):
    """A per-row f32 input added to a column (MemBase: Adds with the row's value read by the
    scalar unit) keeps that tile MemBase on ascend950 (rowin seed 9608: the RegBase row VF asked
    for the per-row tensor as a scalar, 'scalar %x_t is not available', a CompileError)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32

        @dsl.op(dtypes=(f32,))
        def rowadd(n: Tensor["C"], z: Tensor[..., "C"], x: Tensor[..., 1]):
            return x - n + z
        """)
    rng = np.random.default_rng(9608)
    n = rng.standard_normal(1000).astype(np.float32)
    z = rng.standard_normal((6, 1000)).astype(np.float32)
    x = rng.standard_normal((6, 1)).astype(np.float32)
    got, _ = simulate(mod.rowadd, (n, z, x), {}, target="ascend950")
    assert same_bits(got, mod.rowadd.reference(n, z, x))


def test_rows_max_reduction_of_a_nan(write_module):
    """rows seed 5: dsl.max(v / v) with a zero in v is NaN for that row (np.max propagates NaN;
    the emulator's count-form ReduceMax had skipped it, unlike its WholeReduceMax and the
    documented reduce instruction). Min and the column-chunked path too."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32

        @dsl.op(dtypes=(f32,))
        def rnan(v: Tensor[..., "C"]):
            m = dsl.max(v / v, axis=-1, keepdims=True)
            return m
        """)
    v = np.ones((2, 16), np.float32)
    v[0, 5] = 0.0
    with np.errstate(invalid="ignore"):
        check(mod.rnan, (v,), np.array([[np.nan], [1.0]], np.float32))
    mod = write_module("""
        import dsl
        from dsl import Tensor, f32

        @dsl.op(dtypes=(f32,))
        def rnanmin(v: Tensor[..., "C"]):
            m = dsl.min(v / v, axis=-1, keepdims=True)
            return m
        """)
    v = np.ones((3, 70000), np.float32)  # rows past UB: the column-chunked twin
    v[0, 5] = 0.0
    v[2, 69999] = 0.0
    with np.errstate(invalid="ignore"):
        check(mod.rnanmin, (v,), np.array([[np.nan], [1.0], [np.nan]], np.float32))


def test_bcast_size1_input_the_variant_does_not_read(write_module):
    """bcast seeds 18, 33: a size-1 input (kind ONE) that the attributes' variant never reads has
    no GM address in it, but InitBroadcast read its value (GetValue through a null pointer).
    It now reads only the inputs the variant reads (GM_INPUTS)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16

        @dsl.op(dtypes=(f16,), broadcast=True)
        def bcunread(b: Tensor, m: Tensor, opt: Tensor | None = None, *, fast: bool = True):
            v0 = dsl.abs(m)
            v2 = dsl.where(m < 0.0, b - m, (b - opt) if fast else m)
            return v0, v2
        """)
    rng = np.random.default_rng(18)
    b = rng.uniform(-2, 2, (4, 130, 11)).astype(np.float16)
    m = rng.uniform(-2, 2, (4, 130, 11)).astype(np.float16)
    opt = np.array([[0.25]], np.float16)
    check(mod.bcunread, (b, m, opt), (np.abs(m), np.where(m < 0, b - m, m)), {"fast": False})
    check(mod.bcunread, (b, m, opt), (np.abs(m), np.where(m < 0, b - m, b - opt)), {"fast": True})


def test_bcast_outputs_with_elements_next_to_an_empty_input(write_module):
    """numpy gives each output the broadcast of its own operands, so an input with a 0-size axis
    that no output of the variant reads leaves the outputs their elements (bcast seeds 8006:
    ``v1 = x`` next to empty ``floor``/``select``; 8009: ``v0 = h`` when ``flag`` is off). TilingFunc
    refused them (GRAPH_FAILED: "the inputs broadcast to the empty shape"); now the kernel runs
    over the broadcast of the inputs the outputs with elements read. An empty output next to them
    (``v0 = a + h`` with ``flag``, bcast seeds 94, 119, 7023) is not stored, and the inputs only it
    reads are not read (kind ONE of size 0)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, f32

        @dsl.op(dtypes=(f16, f32), broadcast=True)
        def ownshape(a: Tensor, h: Tensor, g: Tensor, *, flag: bool = False):
            if flag:
                v0 = a + h
            else:
                v0 = h * 3 - g
            v1 = dsl.relu(h)
            v2 = a
            return v0, v1, v2
        """)
    rng = np.random.default_rng(8009)
    for dt in (np.dtype(np.float16), np.dtype(np.float32)):
        a = np.zeros((1, 0, 16, 7, 1, 1), dt)
        h = rng.integers(-8, 9, (16, 7, 1, 1)).astype(dt)
        v1 = np.maximum(h, dt.type(0))
        for g_shape in ((1,), (7, 5), (16, 1, 1, 3)):
            g = rng.integers(-8, 9, g_shape).astype(dt)
            v0 = (h.astype(np.float32) * np.float32(3) - g.astype(np.float32)).astype(dt)
            check(mod.ownshape, (a, h, g), (v0, v1, a), cores=2)
        check(mod.ownshape, (a, h, g), (a, v1, a), {"flag": True})


@pytest.mark.parametrize("broadcast", [False, True])
def test_comparisons_of_comparisons(write_module, broadcast):
    """``(z >= -inf) > (p < p)``: a comparison of two comparisons reached the kernel as a Compare
    of bool values, which A2 does not have: a CompileError for a valid program (bcast seed 9021).
    lower-bools compares their 0/1 values, as for bool_ inputs and ``&``/``|``/``~``."""
    mod = write_module(f"""
        import dsl
        from dsl import Tensor, f32, i32

        @dsl.op(dtypes=(f32, i32), broadcast={broadcast})
        def bcmp(z: Tensor, p: Tensor):
            gt = (z >= 0) > (p < 1)
            le = (z >= 0) <= (p < 1)
            eq = (z > p) == (p > 0)
            ne = dsl.where((z != 2) != (p == 2), z, p)
            return gt, le, eq, ne
        """)
    rng = np.random.default_rng(9021)
    shapes = ((5, 33), (1, 33)) if broadcast else ((5, 33), (5, 33))
    for dt in (np.dtype(np.float32), np.dtype(np.int32)):
        z = rng.integers(-3, 4, shapes[0]).astype(dt)
        p = rng.integers(-3, 4, shapes[1]).astype(dt)
        expected = (
            (z >= 0) > (p < 1),
            (z >= 0) <= (p < 1),
            (z > p) == (p > 0),
            np.where((z != 2) != (p == 2), z, p),
        )
        check(mod.bcmp, (z, p), expected, cores=2)


def test_rows_comparisons_of_comparisons(write_module):
    """The row backend compares comparisons the same way (a row with a column, a where of one)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, f32

        @dsl.op(dtypes=(f16, f32))
        def rcmp(x: Tensor[..., "C"], g: Tensor["C"]):
            y = (x > 0) < (g > 0)
            m = dsl.max(dsl.where((x >= 1) == (g < 1), x, g), axis=-1, keepdims=True)
            return y, m
        """)
    rng = np.random.default_rng(9021)
    for dt in (np.dtype(np.float16), np.dtype(np.float32)):
        x = rng.integers(-3, 4, (2, 3, 40)).astype(dt)
        g = rng.integers(-3, 4, 40).astype(dt)
        m = np.where((x >= 1) == (g < 1), x, np.broadcast_to(g, x.shape)).max(axis=-1, keepdims=True)
        check(mod.rcmp, (x, g), ((x > 0) < (g > 0), m), cores=2)


def test_bcast_one_tensor_input(write_module):
    """bcast seed 1: with one tensor input RowBuf(uint32_t i) never read i (-Werror)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, i32

        @dsl.op(dtypes=(i32,), broadcast=True)
        def bcone(x: Tensor, s: Scalar):
            y = x * s
            return y
        """)
    x = np.arange(-20, 20, dtype=np.int32).reshape(2, 20)
    check(mod.bcone, (x, np.array([3], np.int32)), x * 3)


# Seeds of the fuzzer's families that still fail (see benchmarks/fuzz.md).
OPEN_SEEDS: list[tuple[str, int, str]] = []


@pytest.mark.parametrize("family,seed,why", OPEN_SEEDS, ids=[f"{f}-{s}" for f, s, _ in OPEN_SEEDS])
def test_open_fuzz_seed(family, seed, why, tmp_path, request):
    request.applymarker(pytest.mark.xfail(strict=True, reason=why))
    fz = _load_fuzz()
    outcome = fz.run_program(fz.generate(seed, family), tmp_path)  # every side stream on
    assert outcome.status == "ok", f"{family} seed {seed}: {outcome.reason}\n{outcome.detail[:1500]}"


# Seeds that once failed and pass now (what fixed them).
FIXED_SEEDS = [
    (
        "rows",
        158,
        "a column compare in Init took count C (not whole 256-byte repeats); now RoundUp(C, COUNT_ALIGN), "
        "column buffers colLen_ long",
    ),
    (
        "rows",
        168,
        "an f32 column copied in was spread over pitch_ lanes past its last written block (uninitialised UB); "
        "copied-in columns are zero-filled first",
    ),
    (
        "rows",
        73,
        "column-chunked kernel used a TBuf before InitBuffer; passes since the row-kernel changes of wt-rowfast",
    ),
    ("rows", 3, "a row compared with a constant was Compare(dst, src, None, ...); now CompareScalar"),
    (
        "rows",
        7,
        "spreading a column Init computed read its unwritten lanes past C; computed columns zero-filled",
    ),
    (
        "rows",
        12,
        "spreading a column Init computed read its unwritten lanes past C; computed columns zero-filled",
    ),
    ("rows", 8, "a row result took the buffer of a column widened in the step (V-V race); plan-rows"),
    ("bcast", 1, "RowBuf(uint32_t i) left i unused (-Werror)"),
    ("bcast", 18, "an absent optional input was read through a null GM pointer"),
    ("bcast", 33, "the variant whose only output is absent read GM through a null pointer"),
    ("bcast", 38, "V Duplicate overwrote a buffer MTE3 still read (race)"),
    ("bcast", 51, "a DataCopyPad UB->GM source ran outside its TBuf"),
    ("rowin", 88, "Brcb spread a per-row value in place: rows 1-7 of a step wrong"),
    ("rowin", 96, "Brcb spread a per-row value in place: rows 1-7 of a step wrong"),
    ("bcast", 94, "outputs with elements while the inputs broadcast to an empty shape were refused"),
    ("bcast", 119, "an empty output next to one with elements was refused (v2 reads the empty m, v1 not)"),
]

# Seeds found with every side stream of the generator on (``generate(seed, family)``).
FIXED_SEEDS_ALL_STREAMS = [
    (
        "rowin",
        8008,
        "insert-sync: V_S is needed at 4 unordered points (each per-row read an id group of its own)",
    ),
    (
        "rowin",
        8054,
        "insert-sync: S_V is needed at 4 unordered points (group 0 kept for reductions there are none of)",
    ),
    ("bcast", 8006, "outputs with elements while the inputs broadcast to an empty shape were refused"),
    ("bcast", 8009, "outputs with elements while the inputs broadcast to an empty shape were refused"),
    ("bcast", 7044, "outputs with elements while the inputs broadcast to an empty shape were refused"),
    ("bcast", 7023, "an empty output next to one with elements was refused"),
    ("bcast", 9021, "a comparison of two comparisons was a Compare of bools: CompileError"),
    ("rows", 10020, "round of a cast comparison of constants reached the kernel as a scalar round"),
    ("rows", 10028, "a bool attribute named op became OP, shadowed by the row helpers' template <RowOp OP>"),
    ("rows", 10090, "a bool attribute named op became OP (the class of seed 10028)"),
    ("rows", 20085, "a bool scalar cast from a float attribute compared with a bool_ input: a CompileError"),
    (
        "rows",
        10087,
        "insert-sync: S_V is needed at 4 unordered points (a slotted and a single-slot reverse S_V event "
        "took an id group each)",
    ),
]
# found before the no-T and API-names streams existed (their programs: api_and_no_T=False)
BEFORE_API_AND_NO_T = {("rowin", 8008), ("rowin", 8054), ("bcast", 8006), ("bcast", 8009), ("bcast", 7044)}
BEFORE_API_AND_NO_T |= {("bcast", 7023), ("bcast", 9021)}


@pytest.mark.parametrize("family,seed,why", FIXED_SEEDS, ids=[f"{f}-{s}" for f, s, _ in FIXED_SEEDS])
def test_fixed_fuzz_seed(family, seed, why, tmp_path):
    fz = _load_fuzz()
    outcome = fz.run_program(fz.generate(seed, family, bools=False), tmp_path)  # the program found then
    assert outcome.status == "ok", f"{family} seed {seed} ({why}): {outcome.reason}\n{outcome.detail[:1500]}"


@pytest.mark.parametrize(
    "family,seed,why", FIXED_SEEDS_ALL_STREAMS, ids=[f"{f}-{s}" for f, s, _ in FIXED_SEEDS_ALL_STREAMS]
)
def test_fixed_fuzz_seed_all_streams(family, seed, why, tmp_path):
    fz = _load_fuzz()
    prog = fz.generate(seed, family, api_and_no_T=(family, seed) not in BEFORE_API_AND_NO_T)
    outcome = fz.run_program(prog, tmp_path)
    assert outcome.status == "ok", f"{family} seed {seed} ({why}): {outcome.reason}\n{outcome.detail[:1500]}"


def test_rows_seed_26_mask_of_columns_or_per_row_values_selects_rows(write_module):
    """A comparison of columns (or of per-row values) selecting whole rows compares their
    spreads (a row mask): it was refused ("a comparison of per-row values used on whole rows is
    not supported"). C is a multiple of 8 here: spreading a column of another width reads
    unwritten UB padding in the row kernel (open: rows seed 7)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, bf16, f32

        @dsl.op(dtypes=(f16, bf16, f32))
        def rz26(h: Tensor[..., "C"], v: Tensor["C"], lr: Scalar):
            c = (-dsl.cast(v, f16)) >= v
            v1 = dsl.where(c, (lr + v) / (lr / 8.0), dsl.maximum(h, dsl.max(h, axis=-1, keepdims=True)))
            m = dsl.min(h, axis=-1, keepdims=True)
            v2 = dsl.where(m > dsl.max(h * 0.5, axis=-1, keepdims=True), h, -h)
            return v1, v2
        """)
    rng = np.random.default_rng(26)
    for dt in (np.dtype(np.float16), BF16, np.dtype(np.float32)):
        for shape in ((5, 17, 3, 32), (2, 20000)):
            h = rng.uniform(-2, 2, shape).astype(dt)
            v = rng.uniform(-2, 2, shape[-1]).astype(dt)
            h[0, ..., :] = np.abs(h[0, ..., :]) + 1  # a row whose min beats half its max
            lr = np.array([0.7], dt)
            f, g, s = h.astype(np.float32), v.astype(np.float32), lr.astype(np.float32)[0]
            c = -g.astype(np.float16).astype(np.float32) >= g
            v1 = np.where(c, (s + g) / (s / np.float32(8.0)), np.maximum(f, f.max(-1, keepdims=True)))
            m = f.min(-1, keepdims=True)
            v2 = np.where(m > (f * np.float32(0.5)).max(-1, keepdims=True), f, -f)
            check(mod.rz26, (h, v, lr), (v1.astype(dt), v2.astype(dt)))


def test_rows_seed_70_scalar_math_widened_per_row(write_module):
    """Scalar math the scalar unit lacks (sqrt, exp, round) combined with a per-row value must
    stay per-row (rows seed 70: it was widened to a whole row, so max(x) * exp(s) was a row and
    the per-row output's store failed the verifier). hoist-scalars now widens it to [..., 1]."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32

        @dsl.op(dtypes=(f32, f16))
        def rwid(x: Tensor[..., "C"], g: Tensor["C"], s: Scalar):
            y = x + dsl.sqrt(dsl.abs(s))
            z = dsl.max(x, axis=-1, keepdims=True) * dsl.exp(s) - dsl.round(s)
            w = g / dsl.sqrt(dsl.abs(s) + 1.0) + x
            return y, z, w
        """)
    rng = np.random.default_rng(70)
    for dt in (np.dtype(np.float32), np.dtype(np.float16)):
        for shape in ((3, 5, 32), (2, 20000)):
            x = rng.uniform(-2, 2, shape).astype(dt)
            g = rng.uniform(-2, 2, shape[-1]).astype(dt)
            s = np.array([2.3], dt)
            f, c, v = x.astype(np.float32), g.astype(np.float32), s.astype(np.float32)[0]
            expected = (
                f + np.sqrt(np.abs(v)),
                f.max(-1, keepdims=True) * np.exp(v) - np.rint(v),
                c / np.sqrt(np.abs(v) + np.float32(1.0)) + f,
            )
            ref = mod.rwid.reference(x, g, s)
            got = mod.rwid.simulate(x, g, s)
            for r, e, o in zip(ref, expected, got):
                assert r.shape == e.shape == o.shape
                assert dsl.precision.compare(r, e.astype(dt), "approx").ok
                assert dsl.precision.compare(o, r, "approx").ok


def test_rows_seed_6_per_row_value_with_a_column(write_module):
    """``m - v`` with m per-row and v a column: the column's negation is resident (computed in the
    step it was a column computed per step, which plan-rows refused: "is computed per step but
    is neither a row nor a per-row value")."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bf16

        @dsl.op(dtypes=(f16,))
        def rz6(g: Tensor["R", "C"], v: Tensor["C"], *, alpha: float = 2.0):
            v2 = dsl.max((dsl.cast(alpha, bf16) - dsl.relu(v)) * g, axis=-1, keepdims=True)
            m = dsl.min(g, axis=-1, keepdims=True) + v
            d = dsl.max(g, axis=-1, keepdims=True) - v
            return v2, m, d
        """)
    rng = np.random.default_rng(6)
    g = rng.uniform(-2, 2, (33, 96)).astype(np.float16)
    v = rng.uniform(-2, 2, 96).astype(np.float16)
    f, c = g.astype(np.float32), v.astype(np.float32)
    a = np.float32(np.float32(-0.94).astype(BF16))
    v2 = ((a - np.maximum(c, np.float32(0))) * f).max(-1, keepdims=True)
    m = f.min(-1, keepdims=True) + c
    d = f.max(-1, keepdims=True) - c
    expected = (v2, m.astype(np.float16), d.astype(np.float16))  # v2: bf16 with f16 is f32
    check(mod.rz6, (g, v), expected, {"alpha": -0.94})


def test_io_names_the_kernel_uses_itself(write_module):
    """Inputs named like the kernel's own parameters and locals (``tiling_`` became ``tiling``,
    ``op``, ``gm``, ``n``) broke the C++ (a redeclared parameter); their GM parameters now take
    the suffix Gm. Flat, row and broadcast (SCALAR twin) kernels."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f32

        @dsl.op(dtypes=(f32,))
        def nflat(tiling_: Tensor, gm: Tensor, op: Tensor, n: Scalar):
            return tiling_ + gm * op + n

        @dsl.op(dtypes=(f32,))
        def nrows(tiling_: Tensor["C"], x: Tensor[..., "C"]):
            return x * tiling_

        @dsl.op(dtypes=(f32,), broadcast=True)
        def nbcast(op: Tensor, tiling_: Tensor, s: Scalar):
            return op * tiling_ + s
        """)
    x = np.linspace(-2, 2, 96, dtype=np.float32)
    y, z = x[::-1].copy(), x * 0.5
    s = np.array([1.5], np.float32)
    check(mod.nflat, (x, y, z, s), x + y * z + s[0])
    r = x.reshape(3, 32)
    check(mod.nrows, (y[:32], r), r * y[:32])
    check(mod.nbcast, (r, s, s), r * s[0] + s[0])
    check(mod.nbcast, (r, y[:32], s), r * y[:32] + s[0])


def test_bcast_bool_scalar_and_compare_on_the_scalar_unit(write_module):
    """bcast seed 8017: a size-1 bool mask in `keep & (q > a)` is a half scalar on the scalar
    unit, and its Min with the literal 1 was `half < 1.0f ? half : 1.0f` (no common type: the
    project did not build)."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bool_

        @dsl.op(dtypes=(f16,), broadcast=True)
        def bzkeep(keep: Tensor[bool_], q: Tensor, *, alpha: float = 0.25):
            return dsl.where(keep & (q > alpha), q, -q)
        """)
    q = np.linspace(-2, 2, 7 * 33, dtype=np.float16).reshape(7, 33)
    for byte in (0, 1, 2):
        keep = np.array([byte], np.uint8).view(np.bool_)
        want = np.where((byte != 0) & (q > np.float16(0.25)), q, -q)
        check(mod.bzkeep, (keep, q), want)


@pytest.mark.parametrize("cols", [100, 20000])  # 20000: the column-chunked kernel (the seed's)
def test_rows_static_attributes_named_like_the_row_helpers_template_parameters(write_module, cols):
    """rows seed 10028: a bool attribute ``op`` became the class's template parameter OP, which
    the row helpers' ``template <RowOp OP, typename U>`` shadowed (the project did not build);
    ``kind``/``mean`` are the reduction helper's, ``s`` its RowBuf's."""
    mod = write_module("""
        import dsl
        from typing import Literal
        from dsl import Tensor, f32

        @dsl.op(dtypes=(f32,))
        def rowattrs(x: Tensor["R", "C"], *, op: bool = False, kind: Literal["a", "b"] = "a",
                     mean: bool = False, s: bool = True):
            m = dsl.max(x, axis=-1, keepdims=True) if not op else dsl.min(x, axis=-1, keepdims=True)
            y = x - m if kind == "a" else x + m
            z = dsl.maximum(x, m) if mean else y
            w = -m if s else m
            return m, y, z, w
        """)
    x = np.random.default_rng(10028).uniform(-4, 4, (2, cols)).astype(np.float32)
    for op, kind, mean in [(False, "a", False), (True, "b", True)]:
        m = (x.min if op else x.max)(axis=-1, keepdims=True)
        y = x - m if kind == "a" else x + m
        z = np.maximum(x, m) if mean else y
        check(mod.rowattrs, (x,), (m, y, z, -m), attrs={"op": op, "kind": kind, "mean": mean}, cores=2)


def test_round_of_a_cast_comparison_of_constants(write_module):
    """rows seed 10020: ``dsl.round(dsl.cast(dsl.cast(1.25, bool_), f16))`` was "constant" to
    hoist-scalars, but canonicalize does not fold a comparison (or what is computed from it), so
    a scalar round reached the kernel emitter: "'round' on scalars ... not supported". It is
    widened to a tile now. Flat and row kernels."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, f16, bool_

        @dsl.op(dtypes=(f16,))
        def rndflat(p: Tensor):
            one = dsl.round(dsl.cast(dsl.cast(-(-1.25), bool_), f16))
            return p + one

        @dsl.op(dtypes=(f16,))
        def rndrows(p: Tensor[..., "C"]):
            one = dsl.round(dsl.cast(dsl.cast(-(-1.25), bool_), f16))
            return dsl.abs(one / p)
        """)
    p = np.linspace(-3, 3, 70).astype(np.float16).reshape(2, 35)
    p[0, 0] = 0.5
    check(mod.rndflat, (p.ravel(),), (p.ravel().astype(np.float32) + 1).astype(np.float16))
    want = np.abs(np.float32(1) / p.astype(np.float32)).astype(np.float16)
    check(mod.rndrows, (p,), want, cores=2)


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_relu_keeps_nan(write_module, target):
    """relu(NaN) is NaN (flat seed 9796: the emulator's Relu and the scalar ``x > 0 ? x : 0`` gave
    0). The hardware's answers, asc-devkit docs/zh/api/附录/Memory矢量计算接口边界值汇总.md table 8
    (INF/NAN mode, the default): nan -> nan, inf -> inf, -inf -> 0, -0.0 -> 0.0."""
    mod = write_module("""
        import dsl
        from dsl import Tensor, Scalar, f16, f32

        @dsl.op(dtypes=(f16, f32))
        def nanrelu(x: Tensor, s: Scalar[f32]):
            return dsl.relu(x) + dsl.relu(s)
        """)
    for dt in (np.float16, np.float32):
        x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -1.0, 2.5] * 40, dtype=dt)
        table = np.array([np.nan, np.inf, 0.0, 0.0, 0.0, 0.0, 2.5] * 40, dtype=dt)
        got, _ = simulate(mod.nanrelu, (x, np.float32(0.0)), {}, target=target)
        assert got.dtype == np.float32 and np.array_equal(got, table.astype(np.float32), equal_nan=True)
        assert not np.signbit(got[table == 0]).any()
        got, _ = simulate(mod.nanrelu, (x[3:4].repeat(64), np.float32(np.nan)), {}, target=target)
        assert np.isnan(got).all()  # the Scalar's relu, on the scalar unit
