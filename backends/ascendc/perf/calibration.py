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
* C1 = seed 003's final stage (Greater [40320, 1023] i32 > [1, 1023] on a 910B4, 40 cores, 346.17
  us): ``examples/greater.py`` itself, whose RESIDENT1 mode has the seed's structure (the [1, 1023]
  row resident per core, rows packed at a 32-byte pitch and read by one 2-D DataCopyPad per block,
  one 2-D write per block, double-buffered input, CACHE_MODE_DISABLE on the 165 MiB input), priced
  with a "flushed" L2: the seed's harness runs aclnnMul on 64 MiB tensors before Greater (seed 003
  section 8), so the 96 MiB L2 is full of dirty lines and every output line written evicts one.

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
ROOT = Path(__file__).resolve().parents[3]


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
)

# perf-constants.md section 6 points not reproduced yet, and why.
LATER: dict[str, str] = {
    "C2": "scalar Add, 67 M GetValue/SetValue on one core: a 200 M-instruction trace; not worth emulating",
    "C10-C12": "950 GELU MemBase and VF (RegBase) kernels: RegBase is not emulated",
    "C13-C14": "DynamicQuant / TurboQuant int4 on 910B4: row kernels and int4 not supported",
    "C15-C17": "Polar (sin/cos, complex64): sin/cos and complex not supported",
    "C19": "complex_v3: complex data movement not supported",
    "C20-C21": "matmul: cube (AIC) kernels are out of scope",
    "C22": "reduce latency micro-benchmarks: row reductions are in progress elsewhere",
    "seed 003 stages": "Greater tuning stages (broadcast row packing, L2 bypass): need broadcasting",
}


def reproduce(point: Point) -> tuple[float, float]:
    """(published us, predicted us) of one point."""
    return point.published_us, point.run().predicted_us
