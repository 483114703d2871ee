"""The emulator's cube core: a tiled matmul fixture written like asc-devkit's
matmul_leakyrelu_basic_api (AIC: GM -> L1 ND2NZ with an L1 ping-pong, LoadData2D, Mmad, Fixpipe to
a GM workspace; AIVs: the scaling epilogue) is bit-exact against a numpy model of the emulator's
documented accumulation order (docs/emulator-cube.md) and close to float64; every planted
mistake is reported with its kind and kernel line."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from backends.ascendc.sim import simulate_project
from backends.ascendc.targets import TARGETS
from dsl.errors import DeadlockError, MemoryFaultError, RaceError, SyncError, UnsupportedError

FIXTURE = Path(__file__).parent / "fixtures" / "mm"
KERNEL = FIXTURE / "op_kernel" / "sim_mm.cpp"
T910B = TARGETS["ascend910b"]


def mmad_model(a: np.ndarray, b: np.ndarray, base_k: int) -> np.ndarray:
    """The emulator's Mmad order over K chunks of base_k: per chunk, 16-deep fractals in k order;
    a fractal's f32 products summed from 0 in k order, then added to the f32 accumulator."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    m, k = a.shape
    acc = np.zeros((m, b.shape[1]), np.float32)
    for c0 in range(0, k, base_k):
        for f0 in range(c0, min(c0 + base_k, k), 16):
            part = np.zeros_like(acc)
            for kk in range(f0, min(f0 + 16, c0 + base_k, k)):
                part = part + np.outer(a32[:, kk], b32[kk, :])
            acc = acc + part
    return acc


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    proj = tmp_path_factory.mktemp("cube") / "mm"
    shutil.copytree(FIXTURE, proj)
    return proj


def _run(project, m, n, k, *, base=(64, 64, 32), blocks=2, key=1, alpha=0.5, seed=0, target=T910B, **kw):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    res = simulate_project(
        project,
        "sim_mm",
        inputs=[a, b],
        outputs=[((m, n), np.float32)],
        attrs=[*base, blocks, key, alpha],
        target=target,
        **kw,
    )
    return res, a, b


SHAPES = [
    # m, n, k, (baseM, baseN, baseK), blocks: one and many tiles per core, edges not multiples of 16
    (64, 64, 32, (64, 64, 32), 1),
    (1, 16, 1, (64, 64, 32), 1),
    (17, 1, 255, (16, 16, 64), 2),
    (100, 70, 50, (64, 64, 32), 2),
    (256, 17, 256, (64, 16, 128), 3),
    (255, 130, 40, (128, 64, 40), 4),
]


@pytest.mark.parametrize("m,n,k,base,blocks", SHAPES, ids=[f"{s[0]}x{s[1]}x{s[2]}" for s in SHAPES])
def test_matmul_bit_exact_against_the_documented_order(project, m, n, k, base, blocks):
    res, a, b = _run(project, m, n, k, base=base, blocks=blocks)
    z = res.outputs[0]
    np.testing.assert_array_equal(z, mmad_model(a, b, base[2]) * np.float32(0.5))
    exact = 0.5 * (a.astype(np.float64) @ b.astype(np.float64))
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(z - exact) <= 2.0**-22 * k * scale + 1e-30)
    cnt = res.counters
    assert cnt["M"]["instructions"] > 0 and cnt["MTE1"]["dma"] > 0 and cnt["FIX"]["dma"] > 0


def test_matmul_under_interleavings(project):
    for seed in (1, 2, 3):
        res, a, b = _run(project, 100, 70, 50, interleave=seed)
        np.testing.assert_array_equal(res.outputs[0], mmad_model(a, b, 32) * np.float32(0.5))


def _line(text: str) -> int:
    lines = [i + 1 for i, s in enumerate(KERNEL.read_text().splitlines()) if text in s]
    assert len(lines) == 1, (text, lines)
    return lines[0]


BUGS = [
    # key, error, line of the report, fragments, shape and base tile
    (
        10,
        SyncError,
        "CrossCoreSetFlag<2, PIPE_MTE3>(AIV_TO_AIC);",
        ["cross-core flag leak: counter 5 of the AIC is 1", "a missing drain"],
        (64, 64, 32, (64, 64, 32)),
    ),
    (
        11,
        DeadlockError,
        "if (enableCVSync && !TILING_KEY_IS(10)) CrossCoreWaitFlag(AIV_TO_AIC);",
        [
            "CrossCoreWaitFlag(5) on the AIC waits forever",
            "the AIV0's CrossCoreSetFlag<2>(5)",
            "waits for the other AIV's",
            "the AIV1 has ended",
        ],
        (17, 16, 32, (16, 64, 32)),
    ),
    (
        12,
        DeadlockError,
        "CrossCoreWaitFlag(TILING_KEY_IS(12) ? AIC_TO_AIV + 1 : AIC_TO_AIV);",
        [
            "CrossCoreWaitFlag(9) on the AIV0 waits forever",
            "counter 9 of the AIV0 is 0, never set",
            "but counter 8 holds 1 Set(s), the last by the AIC",
            "a Wait on the wrong id?",
        ],
        (64, 64, 32, (64, 64, 32)),
    ),
    (
        13,
        RaceError,
        "Muls(t, t, alpha_, rows * nAlign);",
        ["AIV0 V Muls", "AIV0 MTE2 DataCopyPad(GM->UB)", "HardEvent::MTE2_V"],
        (64, 64, 32, (64, 64, 32)),
    ),
    (
        15,
        DeadlockError,
        "WaitFlag<HardEvent::MTE1_MTE2>(s);",
        ["WaitFlag<HardEvent::MTE1_MTE2>(0) with no SetFlag<HardEvent::MTE1_MTE2>(0) pending"],
        (64, 64, 32, (64, 64, 32)),
    ),
    (
        16,
        RaceError,
        "Fixpipe(wsGm_, cL0,",
        ["read-after-write race on L0C", "AIC FIX Fixpipe(L0C->GM)", "AIC M Mmad", "HardEvent::M_FIX"],
        (64, 64, 32, (64, 64, 32)),
    ),
]


@pytest.mark.parametrize("key,err,line_text,fragments,shape", BUGS, ids=[str(b[0]) for b in BUGS])
def test_planted_mistakes(project, key, err, line_text, fragments, shape):
    m, n, k, base = shape
    with pytest.raises(err) as e:
        _run(project, m, n, k, base=base, key=key)
    msg = str(e.value)
    assert msg.startswith(f"op_kernel/sim_mm.cpp:{_line(line_text)}: "), msg
    for f in fragments:
        assert f in msg, (f, msg)


def _variant(tmp_path, old: str, new: str) -> Path:
    proj = tmp_path / "mm"
    shutil.copytree(FIXTURE, proj)
    text = KERNEL.read_text()
    assert text.count(old) == 1
    (proj / "op_kernel" / "sim_mm.cpp").write_text(text.replace(old, new))
    return proj


def test_a_wrong_fractal_layout_gives_wrong_numbers(tmp_path):
    # B loaded into L0B without the fractal transpose (NZ instead of ZN): no fault, wrong numbers.
    proj = _variant(
        tmp_path,
        "LoadData2DParams{0, uint8_t(nb), uint16_t(kb), 0, 0, true, 0}",
        "LoadData2DParams{0, uint8_t(nb), uint16_t(kb), 0, 0, false, 0}",
    )
    res, a, b = _run(proj, 64, 64, 64)
    assert not np.array_equal(res.outputs[0], mmad_model(a, b, 32) * np.float32(0.5))


def test_overlapping_nd2nz_destinations(tmp_path):
    # dstNzC0Stride one row short of the tile's padded height: A's column blocks overlap in L1.
    proj = _variant(
        tmp_path,
        "uint16_t(k_), uint16_t(Ceil16(curM)), 1, 0}",
        "uint16_t(k_), uint16_t(Ceil16(curM) - 1), 1, 0}",
    )
    with pytest.raises(
        RaceError,
        match=r"AIC MTE2 DataCopy\(GM->L1, Nd2NzParams\) at op_kernel/sim_mm.cpp:\d+ writes L1 "
        r"\[0x7e0, 0x800\) of L1#0 .* twice \(its destinations overlap\)",
    ):
        _run(proj, 64, 64, 64)


def test_l0a_capacity_and_alignment(tmp_path):
    proj = _variant(
        tmp_path, "l0a.Alloc<half>(Ceil16(baseM_) * Ceil16(baseK_));", "l0a.Alloc<half>(40 * 1024);"
    )
    with pytest.raises(
        MemoryFaultError, match="L0A over capacity: LocalMemAllocator<Hardware::L0A>::Alloc of 81920 B"
    ):
        _run(proj, 64, 64, 32)
    proj = _variant(
        tmp_path / "c",
        "LocalTensor<half> aL0 = l0a.Alloc<half>(",
        "l0a.Alloc<half>(16);\n        LocalTensor<half> aL0 = l0a.Alloc<half>(",
    )
    with pytest.raises(
        MemoryFaultError, match="LoadData.*the destination at L0A byte 0x20 is not 512-byte aligned"
    ):
        _run(proj, 64, 64, 32)


@pytest.mark.parametrize("m,n,k", [(1, 2, 1), (16, 17, 32), (17, 33, 255), (64, 48, 100)])
def test_int8_matmul_is_exact_on_an_aic_only_kernel(tmp_path, m, n, k):
    proj = tmp_path / "mm"
    shutil.copytree(FIXTURE, proj)
    (proj / "op_kernel" / "sim_mm.cpp").write_text(
        (KERNEL.parent.parent.parent / "kernels" / "mm_i8.cpp").read_text()
    )
    rng = np.random.default_rng(k)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    bt = rng.integers(-128, 128, (n, k), dtype=np.int8)
    assert k != n  # (the host tells b's layout apart by its shape)
    res = simulate_project(
        proj,
        "sim_mm",
        inputs=[a, bt],
        outputs=[((m, n), np.int32)],
        attrs=[64, 64, 256, 1, 1, 1.0],
        target=T910B,
    )
    np.testing.assert_array_equal(res.outputs[0], a.astype(np.int64) @ bt.astype(np.int64).T)


def test_b16_load_data_with_transpose_equals_load_data_if_transpose(tmp_path):
    # b16: one 16 x 16 fractal per iteration, srcStride in fractals: the same ZN as LoadData2D's
    # ifTranspose; with srcStride one short, wrong numbers
    old = (
        "LoadData(bL0[i * nb * CUBE * CUBE], bL1[s][i * CUBE * CUBE],\n"
        "                             LoadData2DParams{0, uint8_t(nb), uint16_t(kb), 0, 0, true, 0});"
    )
    new = (
        "LoadDataWithTranspose(bL0[i * nb * CUBE * CUBE], bL1[s][i * CUBE * CUBE],\n"
        "                             LoadData2dTransposeParams{0, uint8_t(nb), uint16_t(kb), 0, 0});"
    )
    res, a, b = _run(_variant(tmp_path / "a", old, new), 100, 70, 50)
    np.testing.assert_array_equal(res.outputs[0], mmad_model(a, b, 32) * np.float32(0.5))
    res, a, b = _run(
        _variant(tmp_path / "b", old, new.replace("uint16_t(kb), 0, 0}", "uint16_t(kb - 1), 0, 0}")),
        100,
        70,
        50,
    )
    assert not np.array_equal(res.outputs[0], mmad_model(a, b, 32) * np.float32(0.5))


KN_A_V1 = "LoadData(aL0[i * kb * 512], aL1[i * 512], LoadData2DParams{0, uint8_t(kb), uint16_t(mb), 0, 0, false, 0});"
KN_A_V2 = "LoadData(aL0, aL1, LoadData2DParamsV2{0, 0, uint16_t(mb), uint16_t(kb), int32_t(mb), uint16_t(mb), false, 0});"
KN_B_V1 = "LoadData2dTransposeParams{0, uint8_t(nq), uint16_t(kb), 1, 0}"
KN_B_V2 = "LoadData2dTransposeParamsV2{0, uint8_t(nq), uint16_t(kb * 2), 1, 0, 0}"  # fractals


def _kn_project(tmp_path, form):
    """mm_i8_kn.cpp; on 950 (L0A is NZ there) A goes through LoadData2DParamsV2 and B through
    LoadDataWithTranspose with the V1 struct (the impl's conversion) or LoadData2dTransposeParamsV2."""
    proj = tmp_path / "mm"
    shutil.copytree(FIXTURE, proj)
    kernel = (KERNEL.parent.parent.parent / "kernels" / "mm_i8_kn.cpp").read_text()
    assert KN_A_V1 in kernel and KN_B_V1 in kernel
    if form != "910b":
        kernel = kernel.replace(f"for (uint32_t i = 0; i < mb; i++)\n        {KN_A_V1}", KN_A_V2)
        assert KN_A_V2 in kernel
    if form == "950-v2":
        kernel = kernel.replace(KN_B_V1, KN_B_V2)
    (proj / "op_kernel" / "sim_mm.cpp").write_text(kernel)
    return proj


KN_FORMS = {"910b": T910B, "950-v1": TARGETS["ascend950"], "950-v2": TARGETS["ascend950"]}


@pytest.mark.parametrize("form", list(KN_FORMS))
@pytest.mark.parametrize("m,n,k", [(1, 2, 1), (16, 17, 32), (17, 33, 255), (64, 48, 100)])
def test_int8_b_kn_through_load_data_with_transpose_is_exact(tmp_path, m, n, k, form):
    # b [K, N] ND: LoadDataWithTranspose's int8 32 x 32 square transpose NZ -> ZN into L0B.
    proj = _kn_project(tmp_path, form)
    rng = np.random.default_rng(k + n)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    res = simulate_project(
        proj,
        "sim_mm",
        inputs=[a, b],
        outputs=[((m, n), np.int32)],
        attrs=[64, 64, 256, 1, 1, 1.0],
        target=KN_FORMS[form],
    )
    np.testing.assert_array_equal(res.outputs[0], a.astype(np.int64) @ b.astype(np.int64))


def test_load_data_with_transpose_int8_faults(tmp_path):
    # a source square past L1's buffer; the V2 struct on arch 2201; the V1 struct into L0A on 3510
    a = np.ones((16, 32), np.int8)
    b = np.ones((32, 64), np.int8)
    args = dict(inputs=[a, b], outputs=[((16, 64), np.int32)], attrs=[64, 64, 256, 1, 1, 1.0])
    proj = _kn_project(tmp_path / "a", "910b")
    kernel = proj / "op_kernel" / "sim_mm.cpp"
    kernel.write_text(
        kernel.read_text().replace(KN_B_V1, KN_B_V1.replace("uint16_t(kb)", "uint16_t(kb + 1)"))
    )
    with pytest.raises(MemoryFaultError, match="LoadDataWithTranspose.*source"):
        simulate_project(proj, "sim_mm", target=T910B, **args)
    proj = _kn_project(tmp_path / "b", "910b")
    kernel = proj / "op_kernel" / "sim_mm.cpp"
    kernel.write_text(kernel.read_text().replace(KN_B_V1, KN_B_V2))
    with pytest.raises(UnsupportedError, match=r"LoadData2dTransposeParamsV2\) is the arch 3510 form"):
        simulate_project(proj, "sim_mm", target=T910B, **args)
    proj = _kn_project(tmp_path / "c", "950-v1")
    kernel = proj / "op_kernel" / "sim_mm.cpp"
    kernel.write_text(kernel.read_text().replace("LoadDataWithTranspose(bL0[", "LoadDataWithTranspose(aL0["))
    with pytest.raises(MemoryFaultError, match=r"the destination must be in L0B \(arch 3510\)"):
        simulate_project(proj, "sim_mm", target=TARGETS["ascend950"], **args)


def test_trace_records_each_core_and_the_cube_pipes(project):
    res, _, _ = _run(project, 64, 64, 32, blocks=1, trace=True)
    rec = res.trace.records
    apis = np.array(res.trace.apis)[rec["api"]]
    assert set(rec["core"]) == {0, 1, 2}
    cube = rec["pipe"] >= 4  # MTE1, M, FIX
    assert set(rec["core"][cube]) == {0}
    assert {"Mmad", "Fixpipe(L0C->GM)", "LoadData(L1->L0, LoadData2DParams)"} <= set(apis[cube])
    assert set(apis[rec["core"] != 0]) >= {"Muls", "DataCopyPad(GM->UB)"}


# ---- 950: L0C -> UB with DUAL_DST_SPLIT_M (tests/sim/fixtures/kernels/mm950.cpp) ----
KERNEL950 = FIXTURE.parent / "kernels" / "mm950.cpp"
T950 = TARGETS["ascend950"]


@pytest.fixture(scope="module")
def project950(tmp_path_factory):
    proj = tmp_path_factory.mktemp("cube950") / "mm"
    shutil.copytree(FIXTURE, proj)
    (proj / "op_kernel" / "sim_mm.cpp").write_text(KERNEL950.read_text())
    return proj


SHAPES950 = [
    (64, 64, 32, (64, 64, 32), 2),
    (1, 16, 1, (64, 64, 32), 1),
    (17, 8, 255, (16, 16, 64), 2),
    (100, 70, 50, (64, 64, 32), 2),
    (320, 16, 16, (16, 16, 16), 1),  # 20 tiles on one core: the flag ids rotate (count / 15 % 3)
]


@pytest.mark.parametrize("m,n,k,base,blocks", SHAPES950, ids=[f"{s[0]}x{s[1]}x{s[2]}" for s in SHAPES950])
def test_950_split_m_matmul_bit_exact(project950, m, n, k, base, blocks):
    res, a, b = _run(project950, m, n, k, base=base, blocks=blocks, target=T950)
    np.testing.assert_array_equal(res.outputs[0], mmad_model(a, b, base[2]) * np.float32(0.5))


def test_950_under_interleavings(project950):
    for seed in (1, 4):
        res, a, b = _run(project950, 100, 70, 50, target=T950, interleave=seed)
        np.testing.assert_array_equal(res.outputs[0], mmad_model(a, b, 32) * np.float32(0.5))


def _line950(text: str) -> int:
    lines = [i + 1 for i, s in enumerate(KERNEL950.read_text().splitlines()) if text in s]
    assert len(lines) == 1, (text, lines)
    return lines[0]


BUGS950 = [
    # key, error, report line, fragments, (m, n, k, blocks)
    (
        20,
        MemoryFaultError,
        "Muls(out, c, alpha_, rows * nAlign);",
        ["Muls: src UB [0x2000, 0x4000)", "runs outside TBuf<VECCALC>#0", "AIV1"],
        (64, 64, 32, 2),
    ),
    (
        21,  # a wrong UB row pitch reads rows nobody wrote: reported where they reach the output
        MemoryFaultError,
        "DataCopyPad(zGm_[(mOff + sub * halfM) * n_ + nOff], out,",
        [
            "copies undefined data to output 0 'z'",
            "left undefined by AIV0 V Muls",
            "which nothing had written",
        ],
        (64, 8, 32, 2),
    ),
    (
        22,
        RaceError,
        "Muls(out, c, alpha_, rows * nAlign);",
        ["AIV0 V Muls", "after AIC FIX Fixpipe(L0C->UB)", "CrossCoreWaitFlag on AIV0"],
        (128, 64, 32, 1),
    ),
    (
        23,
        MemoryFaultError,
        "DataCopyPad(zGm_[(mOff + sub * halfM) * n_ + nOff], out,",
        ["DataCopyPad(UB->GM): source UB [0x2000, 0x42f8)", "runs outside TBuf<VECOUT>#1"],
        (64, 70, 32, 2),
    ),
    (
        24,
        RaceError,
        "Muls(out, cBuf.Get<float>()[r0 * nAlign], alpha_, sr * nAlign);",
        ["write-after-read race", "AIV0 V Muls", "AIV0 MTE3 DataCopyPad(UB->GM)", "HardEvent::MTE3_V"],
        (64, 64, 32, 2),
    ),
]


@pytest.mark.parametrize("m,n,k,blocks", [(64, 64, 32, 2), (17, 70, 40, 1)])
def test_950_staged_epilogue_ordered_by_mte3_v_is_exact(project950, m, n, k, blocks):
    # the corrected twin of key 24: the same two stages, ordered by MTE3_V
    res, a, b = _run(project950, m, n, k, blocks=blocks, key=25, target=T950)
    np.testing.assert_array_equal(res.outputs[0], mmad_model(a, b, 32) * np.float32(0.5))


@pytest.mark.parametrize("key,err,line_text,fragments,shape", BUGS950, ids=[str(b[0]) for b in BUGS950])
def test_950_planted_mistakes(project950, key, err, line_text, fragments, shape):
    m, n, k, blocks = shape
    with pytest.raises(err) as e:
        _run(project950, m, n, k, blocks=blocks, key=key, target=T950)
    msg = str(e.value)
    assert msg.startswith(f"op_kernel/sim_mm.cpp:{_line950(line_text)}: "), msg
    for f in fragments:
        assert f in msg, (f, msg)


def test_950_fixpipe_overwriting_a_ub_the_aiv_still_reads_in_another_interleaving(project950):
    # Without the AIC's Wait: in some interleavings the AIV reads first and the next Fixpipe's
    # write is the race; in others the AIV reads the next tile's data (a race, or, when the later
    # Set took effect first, wrong rows that only the leaked counter shows). Every run is a fault.
    kinds = set()
    for seed in range(1, 9):
        with pytest.raises((RaceError, SyncError)) as e:
            _run(project950, 128, 64, 32, blocks=1, key=22, target=T950, interleave=seed)
        first = str(e.value).splitlines()[0]
        kinds.add("leak" if "flag leak" in first else first.split(" race on ")[0].split(": ")[-1])
    assert {"read-after-write", "write-after-read"} <= kinds, kinds


def test_split_m_needs_an_even_m(tmp_path):
    proj = tmp_path / "mm"
    shutil.copytree(FIXTURE, proj)
    text = KERNEL950.read_text().replace("uint16_t((curM + 1) & ~1u)", "uint16_t(curM)")
    (proj / "op_kernel" / "sim_mm.cpp").write_text(text)
    with pytest.raises(MemoryFaultError, match=r"DUAL_DST_SPLIT_M needs an even mSize, got 17"):
        _run(proj, 17, 16, 16, base=(32, 16, 16), blocks=1, target=T950)


SIZES = (1, 16, 17, 255, 256, 1000)
SLOW = [(m, n, k) for m in SIZES for n in SIZES for k in SIZES]


@pytest.mark.slow
@pytest.mark.parametrize("m,n,k", SLOW, ids=[f"{m}x{n}x{k}" for m, n, k in SLOW])
@pytest.mark.parametrize("arch", ["910b", "950"])
def test_matmul_matrix(project, project950, arch, m, n, k):
    proj, target = (project, T910B) if arch == "910b" else (project950, T950)
    res, a, b = _run(proj, m, n, k, base=(128, 128, 64), blocks=3, target=target)
    np.testing.assert_array_equal(res.outputs[0], mmad_model(a, b, 64) * np.float32(0.5))


def test_profile_project_models_a_mixed_kernel(project):
    """The model prices each core of the block (tests/perf/test_cube_model.py has the details)."""
    from backends.ascendc.profile import profile_project

    a, b = np.ones((64, 32), np.float16), np.ones((32, 64), np.float16)
    p = profile_project(
        project, "sim_mm", inputs=[a, b], outputs=[((64, 64), np.float32)], attrs=[64, 64, 32, 2, 1, 0.5]
    )
    assert set(p.slowest_core["cores"]) == {"AIC", "AIV0", "AIV1"} and p.slowest_core["cores"]["AIC"]["M"] > 0


@pytest.mark.parametrize("out", [np.float16, "bfloat16"])
@pytest.mark.parametrize("relu", [False, True])
def test_fixpipe_converts_f32_to_f16_and_bf16_with_relu(tmp_path, out, relu):
    import ml_dtypes

    dt = np.dtype(ml_dtypes.bfloat16) if out == "bfloat16" else np.dtype(out)
    proj = tmp_path / "mm"
    shutil.copytree(FIXTURE, proj)
    (proj / "op_kernel" / "sim_mm.cpp").write_text((FIXTURE.parent / "kernels" / "mm_cast.cpp").read_text())
    rng = np.random.default_rng(3)
    m, n, k = 33, 40, 50
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    res = simulate_project(
        proj,
        "sim_mm",
        inputs=[a, b],
        outputs=[((m, n), dt)],
        attrs=[64, 64, 64, 1, 2 if relu else 1, 1.0],
        target=T910B,
    )
    acc = mmad_model(a, b, 64)
    if relu:
        acc = np.maximum(acc, np.float32(0))
    np.testing.assert_array_equal(res.outputs[0].view(np.uint16), acc.astype(dt).view(np.uint16))
