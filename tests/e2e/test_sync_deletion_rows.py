"""Deleting any single SetFlag/WaitFlag from a generated row kernel is caught by the emulator
(issue 7): the step loop's MTE2/V/MTE3 flags (also where an output reuses a dead input slot),
the scalar unit's reads of per-row values (V_S / S_V, where they remain) and the resident
columns' copy-in in Init."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import dsl
from dsl.dtypes import dtype_from_name

from test_sync_deletion import _load, live_lines


def _method_lines(lines: list[str], method: str) -> set[int]:
    """Indices of the lines of one member function of the kernel class (clang-formatted: the
    class's members sit at four spaces, their closing brace too)."""
    start = next((i for i, line in enumerate(lines) if f"void {method}(" in line), None)
    if start is None:
        return set()
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "    }")
    return set(range(start, end + 1))


def _deletions(tmp_path, name, args, attrs, env, cores=1, dtype="f32"):
    op = _load(name)
    project = op.compile(out_dir=tmp_path / "base")
    kernel_path = project / "op_kernel" / f"{name}.cpp"
    lines = kernel_path.read_text().splitlines()
    # ProcessStep runs the full-load steps and the column-chunked ones (COLUMN_CHUNKS in env)
    live = live_lines(lines, env)
    idle = set()
    callers = (_method_lines(lines, "ProcessStep") | _method_lines(lines, "Init")) & live
    for helper in ("CopyOut", "LoadColumns"):  # the helpers only the other kernel calls
        if not any(f"{helper}(" in lines[i] for i in callers):
            idle |= _method_lines(lines, helper)
    live -= idle
    flags = [i for i in sorted(live) if re.search(r"\b(SetFlag|WaitFlag)<", lines[i])]
    assert len(flags) >= 8

    ref = op.reference(*args, **attrs)
    got = op.simulate(*args, cores=cores, project=project, **attrs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    gots = got if isinstance(got, tuple) else (got,)
    tols = dsl.precision.output_tolerances(op, dtype, **attrs)
    for out, a, b in zip(op.outputs, refs, gots):
        if a is not None:
            dsl.precision.check(b, a, tols[out], what=out)

    missed = []
    for i in flags:
        case = tmp_path / f"del{i}"
        shutil.copytree(project, case)
        edited = lines[:i] + lines[i + 1 :]
        (case / "op_kernel" / f"{name}.cpp").write_text("\n".join(edited) + "\n")
        try:
            op.simulate(*args, cores=cores, project=case, **attrs)
            missed.append(lines[i].strip())
        except dsl.SimulationError:
            pass
        shutil.rmtree(case)
    assert not missed, "deleting these lines went unnoticed:\n" + "\n".join(missed)
    return flags


def test_every_flag_of_rms_norm_is_needed(tmp_path):
    rng = np.random.default_rng(3)
    rows, cols = 9, 4000  # a few rows per step, several steps on one core; C not a power of two
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    _deletions(tmp_path, "rms_norm", (x, gamma), {}, {"IS_FLOAT": True, "COLUMN_CHUNKS": False})


def test_every_flag_of_a_column_chunked_rms_norm_is_needed(tmp_path):
    rng = np.random.default_rng(5)
    rows, cols = 2, 20000  # rows too long for UB: the chunked kernel, three chunks per pass
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    _deletions(tmp_path, "rms_norm", (x, gamma), {}, {"IS_FLOAT": True, "COLUMN_CHUNKS": True})


@pytest.mark.slow
def test_every_flag_of_a_column_chunked_layer_norm_is_needed(tmp_path):
    rng = np.random.default_rng(6)
    rows, cols = 2, 40000
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    gamma, beta = (rng.uniform(0.5, 1.5, cols).astype(np.float32) for _ in range(2))
    env = {"IS_FLOAT": True, "IS_HALF": False, "IS_BF16": False, "WITH_BETA": True, "COLUMN_CHUNKS": True}
    _deletions(tmp_path, "layer_norm", (x, gamma, beta), {"with_beta": True}, env)


@pytest.mark.slow
def test_every_flag_of_quantize_add_layer_norm_is_needed(tmp_path):
    rng = np.random.default_rng(4)
    rows, cols = 7, 3000
    x1, x2 = (rng.uniform(-1, 1, (rows, cols)).astype(np.float32) for _ in range(2))
    gamma = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    beta, bias = (rng.uniform(-0.5, 0.5, cols).astype(np.float32) for _ in range(2))
    scales = rng.uniform(0.02, 0.06, cols).astype(np.float32)
    zp = rng.integers(-3, 4, cols).astype(np.float32)
    attrs = dict(quant_mode="per_channel", additional_output=True, with_zero_points=True)
    modes = {f"QuantMode__{m.upper()}": m for m in ("per_channel", "per_tensor", "mul")}
    env = {
        "IS_FLOAT": True,
        "IS_HALF": False,
        "IS_BF16": False,
        "QUANT_MODE": "per_channel",
        "ADDITIONAL_OUTPUT": True,
        "WITH_ZERO_POINTS": True,
        "COLUMN_CHUNKS": False,
        **modes,
    }
    _deletions(
        tmp_path, "quantize_add_layer_norm", (x1, x2, gamma, beta, bias, scales, zp, None, None), attrs, env
    )


def test_every_flag_of_a_bf16_quantize_add_layer_norm_is_needed(tmp_path):
    """The bf16 variant's buffer reuse (plan-rows): the i8 output is copied out of the dead x2
    input's slot (MTE3 -> MTE2 before the next copy-in of that slot), gamma/beta/bias are widened per
    step into a dead f32 row buffer, and the per-row values reach the rows as Brcb blocks."""
    bfloat16 = dtype_from_name("bf16").np
    rng = np.random.default_rng(5)
    rows, cols = 7, 3000
    x1, x2 = (rng.uniform(-1, 1, (rows, cols)).astype(bfloat16) for _ in range(2))
    gamma = rng.uniform(0.5, 1.5, cols).astype(bfloat16)
    beta, bias = (rng.uniform(-0.5, 0.5, cols).astype(bfloat16) for _ in range(2))
    scales = rng.uniform(0.02, 0.06, cols).astype(np.float32)
    attrs = dict(quant_mode="per_channel", additional_output=False, with_zero_points=False)
    modes = {f"QuantMode__{m.upper()}": m for m in ("per_channel", "per_tensor", "mul")}
    env = {
        "IS_FLOAT": False,
        "IS_HALF": False,
        "IS_BF16": True,
        "QUANT_MODE": "per_channel",
        "ADDITIONAL_OUTPUT": False,
        "WITH_ZERO_POINTS": False,
        "COLUMN_CHUNKS": False,
        **modes,
    }
    _deletions(
        tmp_path,
        "quantize_add_layer_norm",
        (x1, x2, gamma, beta, bias, scales, None, None, None),
        attrs,
        env,
        dtype="bf16",
    )


def test_every_flag_of_an_online_softmax_is_needed(tmp_path):
    """The column-chunked softmax: max and sum in one pass (online.sum), chunks in two slots."""
    rng = np.random.default_rng(8)
    rows, cols = 2, 50000  # f32: too long for one row in UB; two passes of a few chunks
    x = (np.linspace(-8, 8, cols)[None, :] + rng.uniform(-1, 1, (rows, cols))).astype(np.float32)
    _deletions(tmp_path, "softmax", (x,), {}, {"IS_FLOAT": True, "COLUMN_CHUNKS": True})
