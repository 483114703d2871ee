"""The default pass pipeline per target, as a straight list; each line says why it is where it is."""

from __future__ import annotations

from .manager import Pass, parse_pipeline


def elementwise_pipeline(ub: int, vector: str = "select-vector-path", stagger: bool = False) -> list[Pass]:
    """The elementwise pipeline; ``ub`` is the target's usable UB in bytes, ``vector`` the
    select-vector-path spelling with the target's options, ``stagger`` whether its UB has bank
    groups to stagger the sources of one instruction over."""
    return parse_pipeline(
        ",".join(
            [
                "specialize",  # one function per static-attribute combination (tiling keys)
                "canonicalize",  # fold and share before widening, so fewer casts appear
                "promote-precision",  # f16/bf16 math in f32: the DSL's numeric semantics
                "compare-f16",  # f16 compared as f16 (exact, native Compare), not as f32 widenings
                "expand-math",  # tanh/sigmoid from Exp/Reciprocal/Compare/Select (A2 has no Tanh)
                "lower-bools",  # & | ~ and bool_ inputs as 0/1 halves and comparisons (masks)
                "legalize-casts",  # casts A2 lacks become chains it has (f32 -> i8 via i32, f16)
                "materialize-bools",  # stored comparisons become 0/1 bytes; where keeps masks
                "native-f16",  # one f16 op rounded once to f16 stays f16 (identical result)
                "canonicalize",  # fold the f16 -> f32 -> f16 round trips the widening left
                "tile",  # loop over tiles; loads at the top, stores after their producers
                "hoist-scalars",  # scalar math once per core; Adds/Muls instead of broadcasts
                "canonicalize",  # share the hoisted scalars
                "hoist-invariants",  # broadcasts of scalars made once per core (one resident repeat)
                vector,  # MemBase or RegBase per tile loop, from its final vector ops
                "form-vector-functions",  # a RegBase tile's vector ops as one VF, intermediates in registers
                "double-buffer",  # ping-pong slots for what the DMA touches
                f"schedule-vector{{ub={ub}}}",  # independent vector ops share a barrier; never a smaller tile
                f"plan-buffers{{ub={ub}{',stagger=true' if stagger else ''}}}",  # needs slots; picks the tile
                "split-cores",  # host split policy from the narrowest GM tensor
                "insert-sync",  # last: needs the final buffers and op order
            ]
        )
    )


def row_pipeline(vector: str = "select-vector-path", stagger: bool = False) -> list[Pass]:
    """The row pipeline (named dims, reductions): the elementwise front half, then the row forms
    and a UB plan whose size host tiling evaluates with the run-time row length (``stagger``: with
    bank-group phases for the buffers, as plan-buffers')."""
    return parse_pipeline(
        ",".join(
            [
                "specialize",  # one function per static-attribute combination (tiling keys)
                "canonicalize",  # fold and share before widening, so fewer casts appear
                "promote-precision",  # f16/bf16 math in f32: the DSL's numeric semantics
                "expand-math",  # tanh/sigmoid from Exp/Reciprocal/Compare/Select (A2 has no Tanh)
                "lower-bools",  # & | ~ and bool_ inputs as 0/1 halves and comparisons (masks)
                "legalize-casts",  # casts A2 lacks become chains it has (f32 -> i8 via i32, f16)
                "materialize-bools",  # stored comparisons become 0/1 bytes; where keeps masks
                "tile",  # the step loop over rows; loads at the top, stores after their producers
                "hoist-scalars",  # scalar math once per core; Adds/Muls instead of broadcasts
                "canonicalize",  # share the hoisted scalars
                "row-forms",  # columns resident before the loop; per-row values read per row
                vector,  # MemBase or RegBase per step loop, from its final vector ops
                "form-vector-functions",  # RegBase VFs (row kernels: not yet, back to MemBase)
                "double-buffer",  # ping-pong slots for what the DMA touches
                "plan-rows"
                + ("{stagger=true}" if stagger else ""),  # buffers, the UB coefficients host tiling
                # evaluates at run time
                "insert-sync",  # last: needs the final buffers and op order
            ]
        )
    )


def matmul_pipeline(cube: str, vector: str = "select-vector-path") -> list[Pass]:
    """An operator with ``@``: split-cube-vector (``cube``: its spelling with the target's L1/L0
    capacities) takes the matmul out; the epilogue left is a row function over rows of N and runs
    the row pipeline's passes (the cube part is rendered from the ``cube`` attribute)."""
    return parse_pipeline(
        ",".join(
            [
                "specialize",  # one function per static-attribute combination (tiling keys)
                "canonicalize",  # fold and share before the split
                cube,  # the matmul becomes the f32 parameter %acc; the cube tiling on the function
                "promote-precision",  # f16/bf16 math in f32: the DSL's numeric semantics
                "expand-math",  # tanh/sigmoid from Exp/Reciprocal/Compare/Select (A2 has no Tanh)
                "lower-bools",  # & | ~ and bool_ inputs as 0/1 halves and comparisons (masks)
                "legalize-casts",  # casts A2 lacks become chains it has (f32 -> i8 via i32, f16)
                "materialize-bools",  # stored comparisons become 0/1 bytes; where keeps masks
                "canonicalize",  # fold the f32 -> T -> f32 -> T round trip of an output cast to x.dtype
                "tile",  # the step loop over a tile's rows; loads at the top, stores after their producers
                "hoist-scalars",  # scalar math once per core; Adds/Muls instead of broadcasts
                "canonicalize",  # share the hoisted scalars
                "row-forms",  # columns before the loop (the schedule reloads them per output tile)
                vector,  # MemBase (910B)
                "form-vector-functions",  # RegBase VFs (not on 910B)
                "double-buffer",  # ping-pong slots for what the DMA touches
                "plan-rows",  # buffers and the UB coefficients (the schedule fixes the row length)
                "insert-sync",  # last: needs the final buffers and op order
            ]
        )
    )
