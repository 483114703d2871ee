"""The matmul kernel's AIV side is an epilogue class with seed 004's contract (issue 22): Init /
GetTensor / operator() / Drain, SplitM offsets as seed 004 section 4, the cross-core protocol in
the kernel's AIV loop; the same class text on both targets but for where the tile's rows come
from. (simulate == reference and flag deletion are in test_matmul.py and
test_sync_deletion_matmul.py.)"""

from __future__ import annotations

import re

import pytest

from test_matmul import linear_gelu


def _kernel(tmp_path, target: str, vector_path: str = "auto") -> str:
    project = linear_gelu.compile(
        out_dir=tmp_path / f"{target}-{vector_path}", target=target, vector_path=vector_path
    )
    return (project / "op_kernel" / "linear_gelu.cpp").read_text()


def _method(text: str, head: str) -> str:
    """The body of the method whose declaration starts with ``head`` (to its closing brace)."""
    at = text.index(head)
    depth, i = 0, text.index("{", at)
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i : j + 1]
    raise AssertionError(f"unbalanced {head}")


@pytest.mark.parametrize("target", ["ascend910b", "ascend950"])
def test_epilogue_class_contract(tmp_path, target):
    text = _kernel(tmp_path, target)
    assert "class LinearGeluEpilogue {" in text
    assert "struct Params {" in text
    init = _method(
        text,
        "__aicore__ inline void Init(const Params& params, uint32_t baseM, uint32_t baseN, "
        "const ProblemShape& problem)",
    )
    assert "LocalMemAllocator<Hardware::UB> ub;" in init
    assert "SetFlag<HardEvent::V_MTE2>(2);" in init  # the column reload's reverse event, pre-issued
    assert "__aicore__ inline LocalTensor<float> GetTensor() const" in text
    tile = _method(
        text, "__aicore__ inline void operator()(const BlockShape& tile, int64_t gmOffset, uint16_t flagId)"
    )
    # SplitM (seed 004 section 4): halfM from the task ratio, localRows, the zero-row return,
    # GM rows from GetSubBlockIdx() * halfM, the output offset from gmOffset.
    assert "const uint32_t halfM = (curM + GetTaskRatio() - 1) / GetTaskRatio();" in tile
    assert "const uint32_t myRows = curM % 2 == 1 ? halfM - GetSubBlockIdx() : halfM;" in tile
    assert "if (myRows == 0) return;" in tile
    assert "const uint32_t row0 = GetSubBlockIdx() * halfM;" in tile
    assert "CrossCore" not in tile  # the kernel does the cross-core protocol
    assert "WaitFlag<HardEvent::V_MTE2>(2);" in _method(text, "__aicore__ inline void Drain()")
    aiv = _method(text, "__aicore__ inline void ProcessAiv()")
    loop = re.findall(r"CrossCoreWaitFlag|epilogue_\(|CrossCoreSetFlag", aiv)
    assert loop == ["CrossCoreWaitFlag", "epilogue_(", "CrossCoreSetFlag"]
    assert "epilogue_(BlockShape{curM, curN, k_, 1}, int64_t(mOff) * n_ + nOff, uint16_t(count % 2));" in aiv
    assert aiv.rstrip("}").rstrip().endswith("epilogue_.Drain();  // the reverse events Init pre-issued")
    assert "PipeBarrier<PIPE_ALL>" not in text
    if target == "ascend950":
        # UB read from offset 0 of the slot the Fixpipe wrote: no sub-block offset on the UB side.
        assert "const uint32_t rows = myRows, slot = flagId;" in tile
        assert "b0_.ReinterpretCast<float>()[slot * (B0_SLOT / sizeof(float))]" in tile
        assert re.search(r"const LocalTensor<float> accUb =\s*epilogue_.GetTensor\(\);", text)
        assert "// ascend950: the AIC's Fixpipe writes the tile's f32 rows split over M" in text
        assert "(910B)" not in text
    else:
        assert "const uint32_t wsAt = flagId * wsTile_;" in tile
        assert "GM_ADDR workspace;" in text
        assert "// ascend910b: the AIC's Fixpipe writes the tile's f32 rows to a GM workspace" in text


def test_epilogue_class_text_is_shared_by_both_targets(tmp_path):
    """The MemBase class differs between the targets only where the rows come from (the Fixpipe's
    UB slot or the workspace): its operator() has the same SplitM head and the same vector ops."""
    heads = []
    for target in ("ascend910b", "ascend950"):
        tile = _method(
            _kernel(tmp_path, target, "membase"),
            "__aicore__ inline void operator()(const BlockShape& tile, int64_t gmOffset, uint16_t flagId)",
        )
        calls = (re.search(r"\b(Muls|Mul|Adds|Add|Exp|Div)\(", line) for line in tile.splitlines())
        ops = [m.string[m.start() :].split("//")[0].strip() for m in calls if m]
        heads.append((tile.split("WaitFlag")[0], ops))
    assert heads[0] == heads[1]


def test_950_epilogue_is_one_vector_function(tmp_path):
    """RegBase on 950 (seed 004 section 3): operator() keeps the SplitM head and the flags, and its
    vector math is one VF call on the half tile; the VF loads the Fixpipe's f32 rows from UB
    (LoadAlign at r * pitch, the pitch the Fixpipe wrote), computes in registers and stores the
    output type (Cast RINT, DIST_PACK_B32) into UB for the copy out; no V barriers."""
    text = _kernel(tmp_path, "ascend950")
    tile = _method(
        text, "__aicore__ inline void operator()(const BlockShape& tile, int64_t gmOffset, uint16_t flagId)"
    )
    membase = _method(
        _kernel(tmp_path, "ascend950", "membase"),
        "__aicore__ inline void operator()(const BlockShape& tile, int64_t gmOffset, uint16_t flagId)",
    )
    head = tile.split("const LocalTensor")[0]  # the SplitM head (the buffers differ: no UB temporaries)
    assert "if (myRows == 0) return;" in head and head == membase.split("const LocalTensor")[0]
    assert tile.count("asc_vf_call<LinearGeluVF>(") == 1
    assert "PipeBarrier" not in text
    assert not re.search(r"\b(Muls|Mul|Adds|Add|Exp|Div)\(", tile)
    vf = _method(text, "__simd_vf__ static inline void LinearGeluVF(")
    assert "Reg::LoadAlign(acc, b0F32Addr + r * pitch + i * 64);" in vf
    assert "Reg::Cast<T, float, kCastRint>(" in vf
    assert "Reg::StoreDist::DIST_PACK_B32>(b0TAddr + r * pitch + i * 64" in vf
    assert "curN, static_cast<uint16_t>(rows), PITCH," in tile
