"""Deleting any single SetFlag/WaitFlag or CrossCoreSetFlag/CrossCoreWaitFlag from a generated
matmul kernel (910B; 950 with its RegBase epilogue) (linear_gelu, matmul_add, and matmul's AIC-only one: AIC pipes MTE2/MTE1/M/FIX, the AIVs' MTE2/V/MTE3 and the column
reload, the AIC <-> AIV workspace hand-over) is reported by the emulator (issue 22)."""

from __future__ import annotations

import re
import shutil

import numpy as np

import dsl
from dsl.precision import compare, func_matmul_bound, output_tolerances

import pytest

from test_matmul import (
    PER_TOKEN_SOURCE,
    load_source,
    _inputs,
    _quant_inputs,
    linear_gelu,
    matmul,
    matmul_add,
    quant_matmul,
)

FLAG = re.compile(r"\b(SetFlag|WaitFlag|CrossCoreSetFlag|CrossCoreWaitFlag)<|\bCrossCore(Set|Wait)Flag\(")


def _statement(lines: list[str], i: int) -> list[int]:
    """Line i and, when it is the body of a one-line ``for``/``if`` head above it, that head."""
    prev = lines[i - 1].strip()
    if re.match(r"(for|if) \(.*\)$", prev):
        return [i - 1, i]
    return [i]


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("op", [linear_gelu, matmul_add, matmul], ids=["linear_gelu", "matmul_add", "matmul"])
def test_every_flag_of_a_matmul_kernel_is_needed(tmp_path, op, target):
    T = op.dtypes[0]
    # 2 x 3 tiles on one AI Core (serpentine, both workspace and L0C slots), K = 600: two L1 steps
    # and five base_k slices (both L1 and L0 slots); rows 140: the last tile row has 12 rows.
    arrays = _inputs(op, 140, 600, 300, T, seed=1)
    _every_flag_is_needed(tmp_path, op, T, arrays, target, mixed_expected=op is not matmul)


def _every_flag_is_needed(tmp_path, op, T, arrays, target, mixed_expected=True, attrs=None, within=None):
    """``attrs``: the call's attributes; ``within``: delete only the flags after that line (a keyed
    kernel: the namespace of the key that runs) up to the next namespace's end."""
    attrs = attrs or {}
    project = op.compile(out_dir=tmp_path / "base", target=target)
    kernel = project / "op_kernel" / f"{op.name}.cpp"
    lines = kernel.read_text().splitlines()
    ref = op.reference(*arrays, dtype=T, **attrs)
    bound = func_matmul_bound(op.func(T), dict(zip(op.inputs, arrays)))
    got = op.simulate(*arrays, cores=1, project=project, target=target, dtype=T, **attrs)
    first = op.func(T).outputs[0].name  # several outputs: the [M, N] one first
    g, r = (got[0], ref[0]) if isinstance(got, tuple) else (got, ref)
    assert compare(g, r, output_tolerances(op, T)[first], bound=bound).ok
    flags = [i for i, line in enumerate(lines) if FLAG.search(line) and not line.strip().startswith("//")]
    if within is not None:
        start = next(i for i, line in enumerate(lines) if line.startswith(within))
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("}  // namespace"))
        flags = [i for i in flags if start < i < end]
    mixed = "__mix__(1, 2) void" in kernel.read_text()  # matmul: AIC only (its Fixpipe writes y)
    assert mixed == mixed_expected
    assert len(flags) >= (25 if mixed else 15), len(flags)
    cross = {"ascend910b": 5, "ascend950": 8}[target]  # 950: the AIC sets and waits each AIV (id + 16)
    assert sum("CrossCore" in lines[i] for i in flags) == (cross if mixed else 0)
    missed = []
    for i in flags:
        drop = _statement(lines, i)
        case = tmp_path / f"del{i}"
        shutil.copytree(project, case)
        edited = [line for k, line in enumerate(lines) if k not in drop]
        (case / "op_kernel" / f"{op.name}.cpp").write_text("\n".join(edited) + "\n")
        try:
            op.simulate(*arrays, cores=1, project=case, target=target, dtype=T, **attrs)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(case)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)


@pytest.mark.slow
def test_every_flag_of_the_950_i8_kernel_is_needed(tmp_path):
    """quant_matmul on 950: int8 fractals through LoadData2DParamsV2, the i32 rows in UB, the
    RegBase epilogue (per-channel and per-token scales). Slow (about 6 min on 2 cores): the same
    cube flags as the f16 950 kernels and the same epilogue flags as the 910B quant_matmul."""
    T = quant_matmul.dtypes[0]
    _every_flag_is_needed(tmp_path, quant_matmul, T, list(_quant_inputs(140, 600, 300, seed=1)), "ascend950")


def test_every_flag_of_the_per_token_kernels_is_needed(tmp_path):
    """quant_matmul (910B: i8, per-token [M, 1] and per-channel [N] scales) and a per-token f16
    linear on 950 (its [M, 1] inputs in UB next to the Fixpipe's rows)."""
    T = quant_matmul.dtypes[0]
    _every_flag_is_needed(
        tmp_path / "q", quant_matmul, T, list(_quant_inputs(140, 600, 300, seed=1)), "ascend910b"
    )
    mod = load_source(tmp_path / "token_linear.py", PER_TOKEN_SOURCE, "sync_token_linear")
    op = mod.token_linear
    T = op.dtypes[0]
    rng = np.random.default_rng(1)
    arrays = [
        rng.standard_normal((140, 600)).astype(T.np),
        rng.standard_normal((300, 600)).astype(T.np),
        rng.uniform(0.5, 2, (140, 1)).astype(np.float32),
        rng.standard_normal((140, 1)).astype(np.float32),
    ]
    _every_flag_is_needed(tmp_path / "t", op, T, arrays, "ascend950")


@pytest.mark.slow
@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_every_flag_of_the_i8_kn_kernel_is_needed(tmp_path, target):
    """DESIGN section 2's quant_matmul (x @ w, w [K, N]): w through LoadDataWithTranspose; 2 x 3
    tiles on one AI Core (910B; 950: 2 x 2), K = 1100: two L1 steps on 910B (i8: 1024), three on
    950, and five base_k slices (950: nine). Slow (about 1.5 min on 910B, 2.5 min on 950, 2 shared
    cores)."""
    from test_quant_matmul_kn import DESIGN_SOURCE

    op = load_source(tmp_path / "quant_matmul_kn.py", DESIGN_SOURCE, "sync_quant_matmul_kn").quant_matmul
    T = op.dtypes[0]
    rng = np.random.default_rng(1)
    arrays = [
        rng.integers(-128, 128, (140, 1100)).astype(np.int8),
        rng.integers(-128, 128, (1100, 300)).astype(np.int8),
        rng.uniform(1e-3, 1e-2, 300).astype(np.float32),
        rng.uniform(1e-2, 1e-1, (140, 1)).astype(np.float32),
    ]
    _every_flag_is_needed(tmp_path / "q", op, T, arrays, target)


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_every_flag_of_the_rms_norm_kernel_is_needed(tmp_path, target):
    """matmul_rms_norm: whole rows in a tile (reductions along N); 3 row tiles on one AI Core (both
    workspace / UB and L0C slots), K = 150 (three L1 steps of 64), N = 70."""
    from test_matmul import matmul_rms_norm

    T = matmul_rms_norm.dtypes[0]
    rng = np.random.default_rng(2)
    arrays = [
        rng.standard_normal((40, 150)).astype(T.np),
        rng.standard_normal((70, 150)).astype(T.np),
        rng.uniform(0.5, 1.5, 70).astype(np.float32),
    ]
    _every_flag_is_needed(tmp_path, matmul_rms_norm, T, arrays, target)


@pytest.mark.slow
def test_every_flag_of_a_keyed_kernel_is_needed(tmp_path):
    """linear_res on 950 with residual=True: the kernel holds a class per tiling key (the key-1
    one, with its smaller BASE_M, runs); a deleted flag of the key that runs is reported (the
    other key's flags are not run by this call, so only the running key's lines are deleted)."""
    from test_matmul import OPTIONAL_SOURCE

    mod = load_source(tmp_path / "linear_res.py", OPTIONAL_SOURCE, "sync_linear_res")
    op = mod.linear_res
    T = op.dtypes[0]
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((140, 600)).astype(T.np), rng.standard_normal((300, 600)).astype(T.np)]
    arrays.append(rng.standard_normal((140, 300)).astype(T.np))
    _every_flag_is_needed(
        tmp_path, op, T, arrays, "ascend950", attrs={"residual": True}, within="namespace key1 {"
    )


@pytest.mark.slow
def test_every_flag_of_a_per_row_output_kernel_is_needed(tmp_path):
    """An [M, 1] output on 950 (RegBase): the per-row slots' copy out and its reverse events."""
    from test_matmul import ROW_OUTPUT_SOURCE

    mod = load_source(tmp_path / "linear_ms.py", ROW_OUTPUT_SOURCE, "sync_linear_ms")
    op = mod.linear_ms
    T = op.dtypes[0]
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((40, 150)).astype(T.np), rng.standard_normal((70, 150)).astype(T.np)]
    _every_flag_is_needed(tmp_path, op, T, arrays, "ascend950")
