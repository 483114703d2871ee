"""API spellings that differ between CANN releases: one table, switched by ``--cann``.

Where a spelling exists in every release the generated code uses it; this table lists only what
a release renamed (research notes: asc-devkit ``docs/zh/api/附录/接口变更说明.md``, metadef
``inc/external/exe_graph/runtime/tiling_context.h``, asc-devkit ``impl/basic_api/kernel_scalar_convert.h``;
shared/reference/ascendc-api.md's version warning).
"""

from __future__ import annotations

from dsl.errors import ArgumentError

CANN_RELEASES = ("8.5", "9.0", "9.1")
# The oldest release that supports each target (DESIGN section 2): asc-devkit 8.5 has no 950
# implementation, so ascend950 starts at 9.0.
OLDEST_RELEASE = {"ascend910b": "8.5", "ascend950": "9.0"}
DEFAULT_CANN = OLDEST_RELEASE["ascend910b"]

SPELLINGS: dict[str, dict[str, str]] = {
    # TilingContext: SetBlockDim is deprecated from 9.0 (it forwards to SetSimdNumBlocks, which
    # 8.5 lacks).
    "set_block_dim": {"8.5": "SetBlockDim", "9.0": "SetSimdNumBlocks", "9.1": "SetSimdNumBlocks"},
    # bfloat16_t scalar -> float: ToFloat is "updated, please use Cast" from 9.0; 8.5 has no
    # scalar Cast.
    "bf16_to_float": {"8.5": "ToFloat", "9.0": "Cast", "9.1": "Cast"},
    # vector-scalar compare: 9.1 renames CompareScalar to Compares (the old name is deprecated).
    "compare_scalar": {"8.5": "CompareScalar", "9.0": "CompareScalar", "9.1": "Compares"},
    # How a RegBase vector function is entered. Both forms build on 9.0 and 9.1 (asc_vf_call is in
    # asc-devkit v9.0.0 include/basic_api/kernel_common.h; ops-nn mainline arch35 kernels write the
    # inline __VEC_SCOPE__ with the 9.x Reg names: reference ascendc-api.md's correction note); the
    # default is the form the 9.x docs describe. 8.5 has no ascend950 (RegBase) implementation.
    # One block-reduction call (one value per 32-byte block): 9.1 renames BlockReduceSum/Max/Min to
    # ReduceDataBlock<ReduceType::...> and puts mask before repeatTime (asc-devkit v9.0.1
    # docs/api/context/BlockReduceSum.md; 9.1 docs/zh/api/SIMD-API/基础API/Memory矢量计算/归约计算/ReduceDataBlock.md).
    "block_reduce": {
        "8.5": "BlockReduce{Kind}({{dst}}, {{src}}, {{repeats}}, {{mask}}, 1, 1, 8);",
        "9.0": "BlockReduce{Kind}({{dst}}, {{src}}, {{repeats}}, {{mask}}, 1, 1, 8);",
        "9.1": "ReduceDataBlock<ReduceType::{kind}>({{dst}}, {{src}}, {{mask}}, {{repeats}}, 1, 1, 8);",
    },
    "vf_launch": {"8.5": "__VEC_SCOPE__", "9.0": "asc_vf_call", "9.1": "asc_vf_call"},
}
VF_FORMS = ("asc_vf_call", "__VEC_SCOPE__")  # RegBase(form=...): the table's choice or the other


def default_cann(target: str) -> str:
    """The release whose spellings ``compile``/``simulate`` emit for ``target`` by default."""
    return OLDEST_RELEASE[target]


def check_cann(target: str, cann: str | None) -> str:
    """The release to emit for ``target`` (``None``: its default); an ArgumentError names a release
    that does not exist or does not support the target."""
    if cann is None:
        return default_cann(target)
    if not isinstance(cann, str) or cann not in CANN_RELEASES:
        raise ArgumentError(f"unknown CANN release {cann!r} (known: {', '.join(CANN_RELEASES)})")
    oldest = OLDEST_RELEASE[target]
    if CANN_RELEASES.index(cann) < CANN_RELEASES.index(oldest):
        raise ArgumentError(
            f"CANN {cann} does not support {target} (asc-devkit {cann} has no {target} implementation); "
            f"use {oldest} or later"
        )
    return cann


def spelling(what: str, cann: str) -> str:
    if cann not in CANN_RELEASES:
        raise ArgumentError(f"unknown CANN release '{cann}' (known: {', '.join(CANN_RELEASES)})")
    return SPELLINGS[what][cann]
