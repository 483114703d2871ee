"""Passes over the IR, each in its own module, composed by the pass manager."""

from . import (  # noqa: F401  (registers the passes)
    canonicalize,
    compare_f16,
    chunk_rows,
    double_buffer,
    expand_math,
    form_vector_functions,
    insert_sync,
    legalize_casts,
    lower_bools,
    materialize_bools,
    native_half,
    plan_buffers,
    plan_rows,
    hoist_scalars,
    hoist_invariants,
    promote_precision,
    schedule_vector,
    select_vector_path,
    row_forms,
    specialize,
    split_cores,
    split_cube_vector,
    tile,
)
from .manager import PASSES, Pass, PassError, PassManager, parse_pipeline, register

__all__ = ["PASSES", "Pass", "PassError", "PassManager", "parse_pipeline", "register"]
