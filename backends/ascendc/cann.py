"""API spellings that differ between CANN releases: one table, switched by ``--cann``.

Where a spelling exists in both 8.x and 9.x the generated code uses it; this table lists only
what a release renamed (research notes: asc-devkit ``docs/zh/api/附录/接口变更说明.md``, metadef
``inc/external/exe_graph/runtime/tiling_context.h``, asc-devkit ``impl/basic_api/kernel_scalar_convert.h``).
"""

from __future__ import annotations

CANN_RELEASES = ("8.5", "9.0")
DEFAULT_CANN = "8.5"

SPELLINGS: dict[str, dict[str, str]] = {
    # TilingContext: SetBlockDim is deprecated from 9.0 (it forwards to SetSimdNumBlocks, which
    # 8.5 lacks).
    "set_block_dim": {"8.5": "SetBlockDim", "9.0": "SetSimdNumBlocks"},
    # bfloat16_t scalar -> float: ToFloat is "updated, please use Cast" from 9.0; 8.5 has no
    # scalar Cast.
    "bf16_to_float": {"8.5": "ToFloat", "9.0": "Cast"},
}


def spelling(what: str, cann: str) -> str:
    if cann not in CANN_RELEASES:
        raise ValueError(f"unknown CANN release '{cann}' (known: {', '.join(CANN_RELEASES)})")
    return SPELLINGS[what][cann]
