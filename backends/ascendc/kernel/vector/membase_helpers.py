"""MemBase's helper functions and members: the level-0 loops and row helpers the kernels' vector
calls use (``AddRepeatRhs``, ``SpreadPerRow``, ``ReduceRows``, ``RowsByValue``, ``WelfordChunk``,
``Splat``), written when a variant's ``Needs`` ask for them.

The row helpers are members of the row kernel's class: they read its members (``pitch_``,
``cols_``, ``PER_ROW``, ``chunks_``, ``colsPerLoop_``, ``rowCols_``, ``invCols_``,
``scratchBuf_``, ``welfordBuf_``, ``partBuf_``), declared by ``rows.RowKernelText``.
"""

from __future__ import annotations

from ...cann import spelling

from ..api import BINARY


def _barrier(w, vc, why: str | None = None) -> None:
    line = vc.barrier_line()
    if line:
        w.line(line, why)


def repeat_helper(w, api: str, lhs: bool) -> None:
    """``dst = src0 <api> src1`` over ``count`` elements where one source is a resident
    broadcast of one 256-byte repeat: the level-0 form with that source's repeat stride 0,
    at most 255 repeats per instruction, the tail as one repeat under a lane count mask."""
    side = "Lhs" if lhs else "Rhs"
    args = "rep, src[done]" if lhs else "src[done], rep"
    strides = "8, 0, 8" if lhs else "8, 8, 0"
    params = (
        "const LocalTensor<T>& dst, const LocalTensor<T>& rep, const LocalTensor<T>& src, int32_t count"
        if lhs
        else "const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& rep, int32_t count"
    )
    w.line(
        comment=f"dst = {'rep' if lhs else 'src'} {api} {'src' if lhs else 'rep'}: rep is one 256-byte repeat "
        "of a broadcast value, read with repeat stride 0."
    )
    w.line("template <typename T>")
    with w.block(f"__aicore__ inline void {api}Repeat{side}({params})"):
        w.line("constexpr int32_t LANES = static_cast<int32_t>(256 / sizeof(T));")
        w.line(f"const BinaryRepeatParams params(1, 1, 1, {strides});")
        w.line("int32_t done = 0;")
        with w.block("for (int32_t left = count / LANES; left > 0;)"):
            w.line("const int32_t repeats = left < 255 ? left : 255;", "repeatTime is 8 bits")
            w.line(
                f"{api}(dst[done], {args}, static_cast<uint64_t>(LANES), static_cast<uint8_t>(repeats), params);"
            )
            w.line("done += repeats * LANES;")
            w.line("left -= repeats;")
        with w.block("if (done < count)"):
            w.line(f"{api}(dst[done], {args}, static_cast<uint64_t>(count - done), 1, params);")
    w.line()


def splat_helper(w) -> None:
    w.line(comment="Duplicate for every element type (8-bit values as 16-bit pairs).")
    w.line("template <typename U>")
    with w.block("__aicore__ inline void Splat(const LocalTensor<U>& dst, U value, uint32_t count)"):
        with w.block("if constexpr (sizeof(U) == 1)"):
            w.line("const uint16_t byte = static_cast<uint8_t>(value);")
            w.line("const int16_t pair = static_cast<int16_t>(byte | (byte << 8));")
            w.line(
                "Duplicate(dst.template ReinterpretCast<int16_t>(), pair, static_cast<int32_t>((count + 1) / 2));"
            )
        with w.block("else"):
            w.line("Duplicate(dst, value, static_cast<int32_t>(count));")
    w.line()


def welford_helpers(w, needs: list, vc) -> None:
    """Seed 002's single-pass statistics of a row in column chunks: lane j of welfordBuf_ keeps
    the running mean and M2 of column j of every chunk so far (Welford, vectorized over the
    chunk); the lanes merge into the row's mean after the last chunk and into its variance once
    the next pass starts (Chan: lane j saw ``chunks_`` samples, or one fewer past the last
    chunk's columns)."""
    w.line()
    w.line(
        comment="Welford statistics over a row's chunks: lane j keeps the running mean and M2 (sum of squared"
    )
    w.line(
        comment="deviations) of column j of the chunks so far; chunk k adds each lane's (k + 1)-th sample."
    )
    w.line(
        comment="After the last chunk the lanes merge into the row's mean (Chan: lane j weighs its samples)."
    )
    with w.block(
        "__aicore__ inline void WelfordChunk(const LocalTensor<float>& mean, const LocalTensor<float>& src, "
        "int32_t count, uint64_t chunk)"
    ):
        _lanes(w, "laneMean", "laneM2", "delta")
        _barrier(w, vc)
        w.line("if (chunk == 0) {")
        w.level += 1
        w.line("Adds(laneMean, src, 0.0f, count);", "the first sample: mean x, M2 0")
        w.line("Duplicate(laneM2, 0.0f, count);")
        w.level -= 1
        w.line("} else {")
        w.level += 1
        w.line("const float n = static_cast<float>(chunk + 1);", "samples per lane, this one included")
        for line, why in (
            ("Sub(delta, src, laneMean, count);", "x - mean"),
            ("Muls(delta, delta, 1.0f / n, count);", None),
            ("Add(laneMean, laneMean, delta, count);", "mean += (x - mean) / n"),
            ("Mul(delta, delta, delta, count);", None),
            ("Muls(delta, delta, n * (n - 1.0f), count);", "(x - old mean) * (x - new mean)"),
            ("Add(laneM2, laneM2, delta, count);", None),
        ):
            if not line.startswith("Sub"):
                _barrier(w, vc)
            w.line(line, why)
        w.level -= 1
        w.line("}")
        w.line("if (chunk + 1 == chunks_) MergeLanes(mean, delta, laneMean, false);")
    blocks = any(c.welford_blocks for c in needs)
    w.line()
    w.line(
        comment="The row's variance from the lanes (Chan): (sum of lane M2 + sum of samples x (lane mean -"
    )
    if blocks:
        w.line(comment="mean)^2) / cols; `shift` holds the mean over a 32-byte block (SpreadPerRow).")
    else:
        w.line(comment="mean)^2) / cols; `shift` holds -mean.")
    with w.block(
        "__aicore__ inline void WelfordVar(const LocalTensor<float>& var, const LocalTensor<float>& shift)"
    ):
        _lanes(w, "laneMean", "delta", "lanes")
        _barrier(w, vc)
        if blocks:
            w.line(comment="lane mean - mean: 64 lanes per repeat, the mean's block read with block stride 0")
            w.line("const BinaryRepeatParams params(1, 1, 0, 8, 8, 0);")
            w.line("const int32_t whole = lanes / 64 * 64;", "lanes in whole repeats; the tail under a mask")
            with w.block("for (int32_t c = 0; c < whole; c += 255 * 64)"):
                w.line("const int32_t repeats = (whole - c) / 64;")
                w.line(
                    "Sub(delta[c], laneMean[c], shift, 64, static_cast<uint8_t>(repeats < 255 ? repeats : 255), params);"
                )
            w.line("if (whole < lanes) Sub(delta[whole], laneMean[whole], shift, lanes - whole, 1, params);")
        else:
            w.line("Adds(delta, laneMean, shift.GetValue(0), lanes);", "lane mean - mean")
        _barrier(w, vc)
        w.line("Mul(delta, delta, delta, lanes);")
        w.line("MergeLanes(var, laneMean, delta, true);")
    w.line()
    w.line(
        comment="out = (sum over lanes of samples x src (+ lane M2)) / cols, through `tmp`: lanes below the"
    )
    w.line(comment="last chunk's columns saw chunks_ samples, the others one fewer.")
    with w.block(
        "__aicore__ inline void MergeLanes(const LocalTensor<float>& out, const LocalTensor<float>& tmp, "
        "const LocalTensor<float>& src, bool withM2)"
    ):
        w.line("LocalTensor<float> scratch = scratchBuf_.Get<float>();")
        w.line("const int32_t lanes = static_cast<int32_t>(colsPerLoop_);")
        w.line("const int32_t full = static_cast<int32_t>(rowCols_ - (chunks_ - 1) * colsPerLoop_);")
        _barrier(w, vc)
        w.line("Muls(tmp, src, static_cast<float>(chunks_ - 1), lanes);")
        _barrier(w, vc)
        w.line("Add(tmp, tmp, src, full);")
        with w.block("if (withM2)"):
            _barrier(w, vc)
            w.line("Add(tmp, tmp, welfordBuf_.Get<float>()[pitch_], lanes);", "+ lane M2")
        _barrier(w, vc)
        w.line("ReduceSum(out, tmp, scratch, lanes);")
        _barrier(w, vc)
        w.line("Muls(out, out, invCols_, static_cast<int32_t>(PER_ROW));")


def online_sum_helper(w, vc) -> None:
    """Online softmax's sum (chunk_rows.online): ``sum`` holds the sum of exp(x - m) over the
    row's chunks so far, at the max ``m`` of those chunks; a new chunk (``src`` = exp(x - m) with
    the max that includes it) first rescales it by exp(m before - m) (partBuf_[8] keeps the max it
    is at), then adds its own sum."""
    w.line()
    w.line(
        comment="Softmax's sum over a row's chunks in the max's pass: `src` is exp(x - max) of this chunk at the"
    )
    w.line(comment="running max; the sum so far, kept at the max before (partBuf_[8]), is first rescaled by")
    w.line(comment="exp(max before - max), then the chunk's sum added.")
    with w.block(
        "__aicore__ inline void OnlineSum(const LocalTensor<float>& sum, const LocalTensor<float>& src, "
        "const LocalTensor<float>& max, int32_t count, uint64_t chunk)"
    ):
        w.line("LocalTensor<float> scratch = scratchBuf_.Get<float>();")
        w.line("LocalTensor<float> part = partBuf_.Get<float>();")
        w.line("LocalTensor<float> at = partBuf_.Get<float>()[8];", "the max the sum is at")
        _barrier(w, vc)
        with w.block("if (chunk > 0)"):
            w.line("Sub(part, at, max, 1);")
            _barrier(w, vc)
            w.line("Exp(part, part, 1);")
            _barrier(w, vc)
            w.line("Mul(sum, sum, part, 1);")
            _barrier(w, vc)
        w.line("ReduceSum(chunk == 0 ? sum : part, src, scratch, count);")
        _barrier(w, vc)
        w.line("if (chunk > 0) Add(sum, sum, part, 1);")
        w.line("Adds(at, max, 0.0f, 1);", "the sum is at this max now")


def _lanes(w, *names: str) -> None:
    decls = {
        "laneMean": "LocalTensor<float> laneMean = welfordBuf_.Get<float>();",
        "laneM2": "LocalTensor<float> laneM2 = welfordBuf_.Get<float>()[pitch_];",
        "delta": "LocalTensor<float> delta = welfordBuf_.Get<float>()[2 * pitch_];",
        "lanes": "const int32_t lanes = static_cast<int32_t>(colsPerLoop_);",
    }
    for name in names:
        w.line(decls[name])


def reduce_chunk_helper(w, needs: list, vc) -> None:
    """ReduceChunk (after the RowReduce enum it takes): a chunked twin's reduction, chunk by chunk."""
    kinds = [k for k in ("SUM", "MAX", "MIN") if any(k in c.chunk_helpers for c in needs)]
    if kinds:
        w.line(
            comment="A reduction of a row chunk by chunk: the first chunk reduces into `acc`, each later one "
            "into partBuf_,"
        )
        w.line(comment="then adds (max-es, min-es) it on.")
        w.line("template <RowReduce KIND>")
        with w.block(
            "__aicore__ inline void ReduceChunk(const LocalTensor<float>& acc, const LocalTensor<float>& src, "
            "int32_t count, uint64_t chunk)"
        ):
            w.line("LocalTensor<float> scratch = scratchBuf_.Get<float>();")
            w.line("LocalTensor<float> part = partBuf_.Get<float>();")
            w.line("const LocalTensor<float>& dst = chunk == 0 ? acc : part;")
            _barrier(w, vc)
            for k, (api, combine) in (
                ("SUM", ("ReduceSum", "Add")),
                ("MAX", ("ReduceMax", "Max")),
                ("MIN", ("ReduceMin", "Min")),
            ):
                if k not in kinds:
                    continue
                with w.block(f"if constexpr (KIND == RowReduce::{k})"):
                    w.line(f"{api}(dst, src, scratch, count);")
                    _barrier(w, vc)
                    w.line(f"if (chunk > 0) {combine}(acc, acc, part, 1);")
        w.line()


def _dispatch(w, param: str, cases: list[tuple[str, str]]) -> None:
    """The call of each value of a template parameter: the call itself when there is one, else
    an ``if constexpr (param == value) call`` a line each where they all fit in 120 columns (the
    values exclude each other), else an ``if constexpr`` / ``else if constexpr`` chain."""
    if len(cases) == 1:
        w.line(cases[0][1])
        return
    lines = [f"if constexpr ({param} == {value}) {call}" for value, call in cases]
    if all(len(w.unit * w.level) + len(line) <= 120 for line in lines):
        for line in lines:
            w.line(line)
        return
    for k, (value, call) in enumerate(cases):
        head = "if constexpr" if k == 0 else "} else if constexpr"
        w.line(f"{head} ({param} == {value}) {{")
        w.line("    " + call)
    w.line("}")


# Floats of ReduceRows' scratch for rows of {c} columns: the block values (8 per 64, and 8 past them),
# then the final ReduceMax/Min's work area (RoundUp32B(2 * repeats) over those values, ReduceMax.md).
# SCRATCH_BLOCKS: the same in 32-byte blocks, {last} for the last "+ 1" (a full-load kernel's "+ 1 + WORK_PAD / 8").
SCRATCH_BLOCKS = "({c} + 63) / 64 + ({c} + 511) / 512 + {last}"
SCRATCH_FLOATS = "8 * (" + SCRATCH_BLOCKS.replace("{last}", "1") + ")"
# The full-load ReduceRows puts that work area at WORK_AT, 256 B past a multiple of 512 B from the
# values, in the other half of the A2 UB bank groups (a repeat's two operands in disjoint groups,
# asc-devkit 避免bank冲突): WORK_PAD more floats (it starts at most 127 floats later).
WORK_AT = "(blocks + 63) / 128 * 128 + 64"
WORK_PAD = 128


def scratch_floats(cols: int) -> int:
    """``SCRATCH_FLOATS`` for a known column count."""
    return 8 * -(-cols // 64) + 8 * -(-cols // 512) + 8


def block_reduce_helper(w, kinds: list[str], vc) -> str:
    """The call ReduceRows makes for one block-reduction call: a value per 32-byte block, 1 cycle
    per repeat for float where the count-form ReduceSum/Max/Min runs ReduceRepeat at 7
    (perf-constants.md section 4, A2 table; C22: a block level before ReduceRepeat is faster than
    two ReduceRepeats). One kind: the API call itself; several: a BlockReduce<KIND> dispatcher."""
    calls = {k: spelling("block_reduce", vc.cann).format(kind=k, Kind=k.title()) for k in kinds}
    if len(kinds) == 1:
        return calls[kinds[0]]
    w.line(comment="One block-reduction call of KIND: `repeats` of 64 floats, `mask` lanes each.")
    w.line("template <RowReduce KIND>")
    with w.block(
        "__aicore__ inline void BlockReduce(const LocalTensor<float>& dst, const LocalTensor<float>& src, "
        "int32_t repeats, int32_t mask)"
    ):
        args = dict(dst="dst", src="src", repeats="repeats", mask="mask")
        _dispatch(w, "KIND", [(f"RowReduce::{kind}", calls[kind].format(**args)) for kind in kinds])
    w.line()
    return "BlockReduce<KIND>({dst}, {src}, {repeats}, {mask});"


def by_value_helpers(
    w, needs: list, vc, pitch: str = "pitch_", scratch: str = "scratchBuf_.Get<float>()"
) -> None:
    """``row (+) per-row`` without the scalar unit: Brcb spreads the per-row values over one
    32-byte block each, a level-0 vector call reads a row's block with block stride 0
    (ascendc-api.md section 5: Brcb, BinaryRepeatParams strides in 32-byte blocks, 8 bits).
    ``scratch``: ReduceRows' f32 scratch tensor (the matmul epilogue's is a UB tensor of its own)."""
    if any(c.spreads for c in needs):
        w.line(
            comment="Each row's value (element r * PER_ROW of `values`) over a whole 32-byte block: block r * PER_ROW"
        )
        w.line(
            comment="of `blocks` (Brcb: a repeat spreads 8 elements over 8 blocks), ready for the vector unit."
        )
        w.line("template <typename U>")
        with w.block(
            "__aicore__ inline LocalTensor<U> SpreadPerRow(const LocalTensor<U>& blocks, "
            "const LocalTensor<U>& values, uint32_t rows)"
        ):
            w.line("const uint32_t repeats = rows * PER_ROW / 8;")
            with w.block("for (uint32_t done = 0; done < repeats; done += 255)"):
                w.line(
                    "const uint32_t now = repeats - done < 255 ? repeats - done : 255;",
                    "repeatTime is 8 bits",
                )
                w.line(
                    "Brcb(blocks[done * 256 / sizeof(U)], values[done * 8], static_cast<uint8_t>(now), "
                    "BrcbRepeatParams(1, 8));"
                )
            _barrier(w, vc, "the blocks are read next")
            w.line("return blocks;")
        w.line()
    kinds = [k for k in ("SUM", "MAX", "MIN") if any(k in c.row_reduces for c in needs)]
    if kinds:
        w.line(f"enum class RowReduce : uint32_t {{ {', '.join(kinds)} }};")
        w.line()
        reduce_chunk_helper(w, needs, vc)
        block_call = block_reduce_helper(w, kinds, vc)
        w.line(
            comment=f"One value per row: `count` elements of each of the step's rows (src[r * {pitch}]) into "
            "dst[r * PER_ROW]:"
        )
        chunks = any(c.chunk_helpers for c in needs)
        mean = any(c.mean_reduce for c in needs)
        notes = [
            "a value per 32-byte block (into scratch), then the count form over those.",
            *(["COLUMN_CHUNKS: the one row so far, chunk by chunk (ReduceChunk)."] if chunks else []),
            *(["MEAN: times 1 / cols" + (" (after the last chunk)." if chunks else ".")] if mean else []),
        ]
        w.line(comment=notes[0])
        for note in notes[1:]:  # on the line before when it fits
            if len(w.lines[-1]) + 1 + len(note) <= 120:
                w.lines[-1] += " " + note
            else:
                w.line(comment=note)
        w.line("template <RowReduce KIND" + (", bool MEAN = false>" if mean else ">"))
        tail = (
            (", uint64_t chunk = 0" if chunks else ", [[maybe_unused]] uint64_t chunk = 0")
            if chunks or mean
            else ""
        )
        with w.block(
            "__aicore__ inline void ReduceRows(const LocalTensor<float>& dst, const LocalTensor<float>& src, "
            f"int32_t count, uint32_t rows{tail})"
        ):
            if chunks:
                w.line("if constexpr (COLUMN_CHUNKS) {")
                w.level += 1
                w.line("ReduceChunk<KIND>(dst, src, count, chunk);")
                if mean:
                    w.line(
                        "if (chunk + 1 < chunks_) return;",
                        "the row's sum is complete after the last chunk",
                    )
                w.level -= 1
                w.line("} else {")
                w.level += 1
            w.line(f"LocalTensor<float> scratch = {scratch};")
            apis = {"SUM": "ReduceSum", "MAX": "ReduceMax", "MIN": "ReduceMin"}
            w.line("const int32_t full = count / 64, tail = count % 64, blocks = full * 8 + (tail + 7) / 8;")
            with w.block("for (uint32_t r = 0; r < rows; ++r)"):
                row = f"src[r * {pitch} + "
                now = "full - at < 255 ? full - at : 255"
                w.line(
                    "for (int32_t at = 0; at < full; at += 255) "
                    + block_call.format(dst="scratch[at * 8]", src=row + "at * 64]", repeats=now, mask="64")
                )
                w.line(
                    "if (tail != 0) "
                    + block_call.format(
                        dst="scratch[full * 8]", src=row + "full * 64]", repeats="1", mask="tail"
                    )
                )
                _barrier(w, vc)
                reduce = f"(dst[r * PER_ROW], scratch, scratch[{WORK_AT}], blocks);"
                _dispatch(w, "KIND", [(f"RowReduce::{kind}", apis[kind] + reduce) for kind in kinds])
                _barrier(w, vc, "the next row writes the scratch again")
            if chunks:
                w.level -= 1
                w.line("}")
            if mean:
                muls = "Muls(dst, dst, invCols_, static_cast<int32_t>(rows * PER_ROW));"
                if chunks:  # ReduceChunk ends with no barrier; the rows' loop with one
                    with w.block("if constexpr (MEAN)"):
                        _barrier(w, vc)
                        w.line(muls)
                else:
                    w.line(f"if constexpr (MEAN) {muls}")
        w.line()
    ops = [o for o in BINARY if any(o in c.row_ops for c in needs)]
    if not ops:
        return
    w.line(f"enum class RowOp : uint32_t {{ {', '.join(o.upper() for o in ops)} }};")
    w.line()
    w.line(
        comment="One level-0 call of OP over `repeats` repeats of `mask` lanes: dst = row OP value (VALUE_FIRST:"
    )
    w.line(
        comment="value OP row), `value` a block read with block stride 0; rowRep / valueRep: 32-byte blocks from"
    )
    w.line(comment="one repeat to the next.")
    w.line("template <RowOp OP, bool VALUE_FIRST, typename U>")
    with w.block(
        "__aicore__ inline void RowOpCall(const LocalTensor<U>& dst, const LocalTensor<U>& row, "
        "const LocalTensor<U>& value, uint64_t mask, uint32_t repeats, uint8_t rowRep, uint8_t valueRep)"
    ):
        w.line("const LocalTensor<U>& a = VALUE_FIRST ? value : row;", "OP's first source")
        w.line("const LocalTensor<U>& b = VALUE_FIRST ? row : value;")
        w.line(
            "const BinaryRepeatParams params = VALUE_FIRST ? BinaryRepeatParams(1, 0, 1, rowRep, valueRep, rowRep)"
        )
        w.line(
            "                                              : BinaryRepeatParams(1, 1, 0, rowRep, rowRep, valueRep);"
        )
        call = "(dst, a, b, mask, static_cast<uint8_t>(repeats), params);"
        _dispatch(w, "OP", [(f"RowOp::{o.upper()}", BINARY[o] + call) for o in ops])
    w.line()
    for line in (
        "dst = src OP value (VALUE_FIRST: value OP src) for the step's rows, the value of row r read from block",
        "r * PER_ROW of `blocks` (SpreadPerRow) with block stride 0. Many rows per call (a repeat per row, a call",
        "per 256 bytes of columns) when the pitch is at most 255 blocks and the rows outnumber those calls; else",
        "a call per row (a repeat per 256 bytes of the row, the tail under a lane mask).",
    ):
        w.line(comment=line)
    w.line("template <RowOp OP, bool VALUE_FIRST, typename U>")
    with w.block(
        "__aicore__ inline void RowsByValue(const LocalTensor<U>& dst, const LocalTensor<U>& src, "
        "const LocalTensor<U>& blocks, uint32_t rows)"
    ):
        w.line("constexpr uint32_t LANES = 256 / sizeof(U);", "elements per repeat")
        w.line("constexpr uint32_t BLOCK = 32 / sizeof(U);", "elements per block")
        w.line(f"const uint32_t pitchBlocks = {pitch} / BLOCK;")
        w.line("const uint32_t groups = (cols_ + LANES - 1) / LANES;")
        with w.block("if (pitchBlocks <= 255 && groups < rows)"):
            with w.block("for (uint32_t r = 0; r < rows; r += 255)"):
                w.line("const uint32_t now = rows - r < 255 ? rows - r : 255;", "repeatTime is 8 bits")
                with w.block("for (uint32_t c = 0; c < cols_; c += LANES)"):
                    w.line("const uint64_t mask = cols_ - c < LANES ? cols_ - c : LANES;")
                    w.line(
                        f"RowOpCall<OP, VALUE_FIRST>(dst[r * {pitch} + c], src[r * {pitch} + c], "
                        "blocks[r * PER_ROW * BLOCK], mask, now, pitchBlocks, PER_ROW);"
                    )
            w.line("return;")
        w.line(
            "const uint32_t whole = cols_ / LANES * LANES;", "columns in whole repeats; the tail under a mask"
        )
        with w.block("for (uint32_t r = 0; r < rows; ++r)"):
            w.line("const LocalTensor<U> value = blocks[r * PER_ROW * BLOCK];")
            w.line(f"const uint32_t at = r * {pitch};", "the row's first element")
            with w.block("for (uint32_t c = 0; c < whole; c += 255 * LANES)"):
                w.line("const uint32_t repeats = (whole - c) / LANES;")
                w.line(
                    "RowOpCall<OP, VALUE_FIRST>(dst[at + c], src[at + c], value, LANES, repeats < 255 ? repeats : 255, "
                    "8, 0);"
                )
            w.line(
                "if (whole < cols_) RowOpCall<OP, VALUE_FIRST>(dst[at + whole], src[at + whole], value, cols_ - whole, "
                "1, 8, 0);"
            )
    w.line()
