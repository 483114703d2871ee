"""The published calibration points (shared/reference/perf-constants.md section 6) that dslc can
reproduce, and how: each one runs a kernel of the published structure on the emulator, with its
instruction trace, and models it. ``tests/perf/test_calibration.py`` checks every point against its
published time; ``benchmarks/perf_report.py`` tabulates them.

Reproduced:

* C3-C8 and C9: asc-devkit's Add tuning example (8192 x 8192 half; A2 cases 1-6, 950 cases 1-5),
  as the fixture project ``fixtures/add_tuning`` (same copy sizes, buffering, cores, UB layout,
  L2 hints);
* C18: ops-math's fused AcosGrad (A2, 1024 x 1024, f32 / f16 / bf16), as the fixture project
  ``fixtures/acos_grad_v2`` (same tiling, TQue double buffering, Cast + f32 math).
* C10-C12: asc-devkit's GELU tuning examples on 950PR (8192 x 8192 f32, 64 cores as 32 x 2 bands,
  8192-element tiles, ping-pong, one 2-D DataCopyPad each way per tile), as the fixture project
  ``fixtures/gelu_tuning``: C10 the MemBase kernel (8 calls, PipeBarrier<PIPE_V> between), C11 one
  vector function per tile, C12 GELU + 5 element-wise ops in one loop (256 B and 128 B steps) and
  split into two loops. Their Task Duration is checked like the others; their aiv_vec_time, what
  the VF model prices, within 25% (``GELU_VEC_US``).
* C1 = seed 003's final stage (Greater [40320, 1023] i32 > [1, 1023] on a 910B4, 40 cores, 346.17
  us): ``examples/greater.py`` itself, whose RESIDENT1 mode has the seed's structure (the [1, 1023]
  row resident per core, rows packed at a 32-byte pitch and read by one 2-D DataCopyPad per block,
  one 2-D write per block, double-buffered input, CACHE_MODE_DISABLE on the 165 MiB input), priced
  with a "flushed" L2: the seed's harness runs aclnnMul on 64 MiB tensors before Greater (seed 003
  section 8), so the 96 MiB L2 is full of dirty lines and every output line written evicts one.
* Seed 003's stages 0-5 (its section 2 table, C2 shape, 910B4, 40 cores, the same flushed L2), as
  the fixture project ``fixtures/greater_tuning``: stage 0 one row per copy in and out (the broadcast
  row re-read with every row, as stage 1's text says the old code did per block); stage 1 rows
  packed 8192 / 1024 = 8 per 2-D DataCopyPad at a 32-byte pitch, the row resident, one output copy
  per row; stage 2 12 rows; stage 3 the moving input double-buffered; stage 4 16 rows, Max in
  place, one 2-D output write per block; stage 5 CACHE_MODE_DISABLE on x1. What the seed does not
  publish is the fixture's choice: single-buffered output rows and input before stage 3, the int32
  math of stage 4 (Max, Compare EQ, Select, Cast) in every stage.

Not reproduced (``LATER``): the points whose kernels need what dslc and its emulator do not have
yet, or whose structure is not published.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ADD_PROJECT = FIXTURES / "add_tuning"
ACOS_GRAD_PROJECT = FIXTURES / "acos_grad_v2"
# Static-tensor kernels (the Add example) and the AcosGrad tiling (UB size / bytes per element)
# use the whole UB, which CANN's default build leaves them; dslc's own kernels keep the
# compiler's reserve (Target.ub_usable_bytes).
WHOLE_UB = {"ascend910b": 192 * 1024, "ascend950": 256 * 1024}
ADD_SOURCE = "asc-devkit examples/01_simd_cpp_api/05_best_practices/00_vector_compute/add_high_performance/README_en.md"
ACOS_SOURCE = "hicann/ops-math experimental/math/acos_grad_v2/README.md"
SEED_003 = "shared/seeds/003_1ab04ba89150f837.txt (Greater tuning on 910B4), perf-constants.md section 6 C1"
GELU_PROJECT = FIXTURES / "gelu_tuning"
GELU_SOURCE = (
    "asc-devkit examples/01_simd_cpp_api/05_best_practices/02_reg_compute/gelu_high_performance/README_en.md"
)
GELU_ELTWISE_SOURCE = "asc-devkit examples/01_simd_cpp_api/05_best_practices/02_reg_compute/gelu_eltwise_high_performance/README_en.md"
ROOT = Path(__file__).resolve().parents[3]
GREATER_PROJECT = FIXTURES / "greater_tuning"


@dataclass(frozen=True)
class Point:
    id: str
    chip: str  # the SKU the published figure was measured on (perf-constants.md section 6)
    what: str
    published_us: float
    source: str
    run: Callable[[], "object"]  # -> backends.ascendc.profile.Profile


def _add_case(case: int, cores: int, copy_len: int, target: str = "ascend910b", sku: str = "910B1"):
    def run():
        from ..profile import profile_project

        shape = (8192, 8192)
        x = np.zeros(shape, np.float16)  # the values do not change the trace
        return profile_project(
            ADD_PROJECT,
            "add_tuning",
            inputs=[x, x],
            outputs=[(shape, np.float16)],
            attrs=[case, cores, copy_len],
            target=target,
            sku=sku,
            race_detection=False,
            ub_capacity=WHOLE_UB[target],
        )

    return run


def _acos_grad(dtype: str):
    def run():
        import ml_dtypes

        from ..profile import profile_project

        dt = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}[dtype]
        rng = np.random.default_rng(0)
        y = rng.uniform(-0.9, 0.9, (1024, 1024)).astype(dt)
        dy = rng.uniform(-1, 1, (1024, 1024)).astype(dt)
        return profile_project(
            ACOS_GRAD_PROJECT,
            "acos_grad_v2",
            inputs=[y, dy],
            outputs=[(y.shape, dt)],
            sku="910B1",
            race_detection=False,
            ub_capacity=WHOLE_UB["ascend910b"],
        )

    return run


def _gelu_case(case: int, shape: tuple[int, int] = (8192, 8192), split: tuple[int, int] = (32, 2), tile=8192):
    def run():
        from ..profile import profile_project

        x = np.zeros(shape, np.float32)  # the values do not change the trace
        return profile_project(
            GELU_PROJECT,
            "gelu_tuning",
            inputs=[x],
            outputs=[(shape, np.float32)],
            attrs=[case, *split, tile],
            target="ascend950",
            sku="950PR",
            race_detection=False,
            ub_capacity=WHOLE_UB["ascend950"],
        )

    return run


def _greater_c2(mirror: bool = False, rows: int = 40320, inner: int = 1023):
    def run():
        import importlib.util

        spec = importlib.util.spec_from_file_location("greater_example", ROOT / "examples" / "greater.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        rng = np.random.default_rng(0)
        big = rng.integers(-100, 100, (rows, inner)).astype(np.int32)
        row = rng.integers(-100, 100, (1, inner)).astype(np.int32)
        args = (row, big) if mirror else (big, row)
        return mod.greater.profile(*args, sku="910B4", cores=40, l2="flushed")

    return run


def _greater_stage(stage: int, rows: int = 40320, inner: int = 1023, cores: int = 40):
    def run():
        from ..profile import profile_project

        rng = np.random.default_rng(0)
        x1 = rng.integers(-100, 100, (rows, inner)).astype(np.int32)
        x2 = rng.integers(-100, 100, (1, inner)).astype(np.int32)
        return profile_project(
            GREATER_PROJECT,
            "greater_tuning",
            inputs=[x1, x2],
            outputs=[((rows, inner), np.uint8)],
            attrs=[stage, cores],
            sku="910B4",
            cores=cores,
            l2="flushed",
            race_detection=False,
            ub_capacity=WHOLE_UB["ascend910b"],
        )

    return run


# Seed 003 section 2: C2's Task Duration (msprof) after each tuning stage.
SEED_003_STAGES = (
    (0, 616.53, "baseline: one row per copy in and out"),
    (1, 475.99, "8 rows per 2-D copy, the broadcast row resident"),
    (2, 412.68, "12 rows per 2-D copy"),
    (3, 398.78, "+ double-buffered input"),
    (4, 392.76, "16 rows, one 2-D output write per block"),
    (5, 346.17, "+ CACHE_MODE_DISABLE on the 165 MiB input"),
)


POINTS: tuple[Point, ...] = (
    Point(
        "C3",
        "910B1",
        "Add 8192^2 f16, 1 core, 8 KiB copies, single buffer",
        6909.6,
        ADD_SOURCE,
        _add_case(1, 1, 4096),
    ),
    Point(
        "C4",
        "910B1",
        "Add, 48 cores, 8 KiB copies, single buffer",
        306.58,
        ADD_SOURCE,
        _add_case(2, 48, 4096),
    ),
    Point(
        "C5",
        "910B1",
        "Add, 48 cores, 32 KiB copies, single buffer",
        268.5,
        ADD_SOURCE,
        _add_case(3, 48, 16384),
    ),
    Point(
        "C6",
        "910B1",
        "Add, 48 cores, 32 KiB copies, double buffer",
        264.02,
        ADD_SOURCE,
        _add_case(4, 48, 16384),
    ),
    Point("C7", "910B1", "Add, C6 + L2 bypass on the inputs", 187.68, ADD_SOURCE, _add_case(5, 48, 16384)),
    Point("C8", "910B1", "Add, C7 + no UB bank-group conflict", 184.52, ADD_SOURCE, _add_case(6, 48, 16256)),
    Point(
        "C9 case 1",
        "950PR",
        "950 Add 8192^2 f16, 1 core, 8 KiB copies",
        8924.021,
        ADD_SOURCE,
        _add_case(1, 1, 4096, "ascend950", "950PR"),
    ),
    Point(
        "C9 case 2",
        "950PR",
        "950 Add, 64 cores, 8 KiB copies",
        310.489,
        ADD_SOURCE,
        _add_case(2, 64, 4096, "ascend950", "950PR"),
    ),
    Point(
        "C9 case 3",
        "950PR",
        "950 Add, 64 cores, 42.5 KiB copies",
        251.684,
        ADD_SOURCE,
        _add_case(3, 64, 21760, "ascend950", "950PR"),
    ),
    Point(
        "C9 case 4",
        "950PR",
        "950 Add, double buffer",
        247.665,
        ADD_SOURCE,
        _add_case(4, 64, 21760, "ascend950", "950PR"),
    ),
    Point(
        "C9 case 5",
        "950PR",
        "950 Add, double buffer + L2 bypass on the inputs",
        182.04,
        ADD_SOURCE,
        _add_case(5, 64, 21760, "ascend950", "950PR"),
    ),
    Point("C10", "950PR", "950 GELU 8192^2 f32, MemBase, 64 cores", 351.525, GELU_SOURCE, _gelu_case(0)),
    Point("C11", "950PR", "950 GELU, one vector function per tile", 348.868, GELU_SOURCE, _gelu_case(1)),
    Point(
        "C12 case 0",
        "950PR",
        "950 GELU + 5 element-wise ops, one VF loop, 128 B steps",
        334.437,
        GELU_ELTWISE_SOURCE,
        _gelu_case(4),
    ),
    Point(
        "C12 case 1",
        "950PR",
        "950 GELU + 5 element-wise ops, one VF loop, 256 B steps",
        324.862,
        GELU_ELTWISE_SOURCE,
        _gelu_case(2),
    ),
    Point(
        "C12 case 2",
        "950PR",
        "950 GELU + 5 element-wise ops, the VF loop split in two",
        324.039,
        GELU_ELTWISE_SOURCE,
        _gelu_case(3),
    ),
    Point("C18 f32", "910B1", "AcosGrad 1024^2 f32, fused, 48 cores", 6.97, ACOS_SOURCE, _acos_grad("f32")),
    Point("C18 f16", "910B1", "AcosGrad 1024^2 f16 (Cast to f32)", 7.90, ACOS_SOURCE, _acos_grad("f16")),
    Point("C18 bf16", "910B1", "AcosGrad 1024^2 bf16 (Cast to f32)", 8.09, ACOS_SOURCE, _acos_grad("bf16")),
    Point(
        "C1",
        "910B4",
        "Greater [40320, 1023] i32 > [1, 1023], 40 cores, seed 003 stage 5 (row packing, resident row, "
        "double-buffered input, 2-D output writes, L2 bypass on the input), flushed L2",
        346.17,
        SEED_003,
        _greater_c2(),
    ),
    *(
        Point(
            f"seed 003 stage {stage}",
            "910B4",
            f"Greater [40320, 1023] i32 > [1, 1023], 40 cores, fixture: {what}, flushed L2",
            published,
            SEED_003,
            _greater_stage(stage),
        )
        for stage, published, what in SEED_003_STAGES
    ),
)

# perf-constants.md section 6 points not reproduced yet, and why.
LATER: dict[str, str] = {
    "C2": "scalar Add, 67 M GetValue/SetValue on one core: a 200 M-instruction trace; not worth emulating",
    "C11 case 2, C12 case 3": "the #pragma unroll 6 variants (63.7 / 94.3 us of vector time): the trace of an "
    "unrolled loop equals the rolled one's, and the model prices throughput, not the dependency chains "
    "unrolling overlaps",
    "C13-C14": "DynamicQuant / TurboQuant int4 on 910B4: row kernels and int4 not supported",
    "C15-C17": "Polar (sin/cos, complex64): sin/cos and complex not supported",
    "C19": "complex_v3: complex data movement not supported",
    "C20-C21": "matmul: C20's tuned 4096 x 5120 x 4096 kernel's structure (tiling, L1 reuse) is not published in "
    "enough detail for a fixture; C21 is fp32, whose Mmad the emulator does not model",
    "C22": "reduce latency micro-benchmarks: row reductions are in progress elsewhere",
    "seed 003 other dtypes": "section 6's f32/f16/bf16/int8 L2 A/B runs (268-276 us): the seed's profiler shows "
    "those kernels 98-99% Scalar-bound in a general path whose code it does not publish",
    "seed 003 inner=511": "the double-buffering regression at inner 511 (309 -> 371 us): the outer size is not given",
    "seed 003 C5": "f32 [2320, 4511] same-shape (193.42 us cold, 65.66 us hot): its kernel is the unpublished "
    "Scalar-bound general path",
}


# aiv_vec_time (us) of the GELU points, per core: what the vector-function model prices.
GELU_VEC_US = {
    "C10": 147.895,
    "C11": 66.277,
    "C12 case 0": 244.299,
    "C12 case 1": 125.203,
    "C12 case 2": 97.184,
}


def reproduce(point: Point) -> tuple[float, float]:
    """(published us, predicted us) of one point."""
    return point.published_us, point.run().predicted_us
