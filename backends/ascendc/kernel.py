"""Kernel emitter: tile-level IR (one function per tiling key) -> op_kernel/<op>.cpp.

Each tiling key becomes a kernel class with Init (core split, GM views, scalars read once,
buffers) and Process (pre-issued reverse flags, the tile loop, drain). The loop body is the
IR's op list in order, each statement carrying the DSL line it implements.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from dsl.dtypes import DType, bf16, bool_, f16, f32, i8, i32, u8
from dsl.errors import CompileError
from dsl.ir import Func, Op, ScalarType, TensorType

from .names import cpp_ident
from .writer import CodeWriter

# Cast pairs and the RoundMode each uses on 910B (ascendc-api.md section 5, Cast table).
CASTS = {
    (f16, f32): "CAST_NONE",
    (bf16, f32): "CAST_NONE",
    (f32, f16): "CAST_RINT",  # round half to even, as the DSL stores
    (f32, bf16): "CAST_RINT",
    (f32, i32): "CAST_TRUNC",  # toward zero, saturating
    (i32, f32): "CAST_NONE",
    (f16, bool_): "CAST_TRUNC",  # 0.0/1.0 -> byte 0/1 (half -> uint8)
    (f16, i8): "CAST_TRUNC",  # integral values already clamped by legalize-casts
    (f16, u8): "CAST_TRUNC",
    (i8, f16): "CAST_NONE",
    (u8, f16): "CAST_NONE",
}
BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min"}
VECTOR_SCALAR = {"vec.adds": "Adds", "vec.muls": "Muls", "vec.maxs": "Maxs", "vec.mins": "Mins"}
UNARY = {
    "abs": "Abs",
    "relu": "Relu",
    "sqrt": "Sqrt",
    "exp": "Exp",
    "log": "Ln",
    "reciprocal": "Reciprocal",
    "rsqrt": "Rsqrt",
}
SCALAR_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


@dataclass
class Variant:
    key: int
    func: Func
    dtype: DType
    bind: dict


@dataclass
class Signature:
    """Entry arguments and tiling fields shared by every variant of the op."""

    inputs: list[str]
    outputs: list[str]
    attrs: list[tuple[str, str]]  # (name, "float" | "int")


# Element types each vector API accepts on Atlas A2 (ascendc-api.md section 5 tables).
A2_DTYPES = {
    **{
        api: {"int16_t", "half", "int32_t", "float"}
        for api in ("Add", "Sub", "Mul", "Max", "Min", "Adds", "Muls", "Maxs", "Mins")
    },
    **{
        api: {"half", "float"}
        for api in ("Div", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Abs", "Compare", "Select")
    },
    "Relu": {"half", "int32_t", "float"},
    "Duplicate": {"int16_t", "uint16_t", "half", "bfloat16_t", "int32_t", "uint32_t", "float"},
}
CMP_MODES = {"gt": "GT", "ge": "GE", "lt": "LT", "le": "LE", "eq": "EQ", "ne": "NE"}


def ctype(dt: DType) -> str:
    """Element type in kernel code: bools are bytes (uint8_t) in GM and UB."""
    return "uint8_t" if dt == bool_ else dt.cpp


def where(op) -> str | None:
    """``file.py:LINE`` of an op (or function) for the generated statement's comment."""
    if op.loc is None:
        return None
    return f"{os.path.basename(op.loc.filename)}:{op.loc.line}"


def _fail(op: Op, msg: str) -> CompileError:
    return CompileError(msg, op.loc)


def float_literal(v: float) -> str:
    if math.isnan(v):
        return '__builtin_nanf("")'
    if math.isinf(v):
        return "__builtin_huge_valf()" if v > 0 else "(-__builtin_huge_valf())"
    r = repr(float(v))
    return (r if any(c in r for c in ".en") else r + ".0") + "f"


class KernelEmitter:
    def __init__(self, v: Variant, sig: Signature, class_name: str):
        self.v, self.sig, self.cls = v, sig, class_name
        self.func = v.func
        self.loop = self.func.loop()
        self.tile = self.loop.attrs["tile"]
        self.slots = self.loop.attrs.get("slots", 2)
        self.buffers = self.func.attributes["buffers"]
        self.granule = self.func.attributes["split"]["granule"]
        self.members: list[str] = []
        self.scalar_expr: dict[int, str] = {}
        self.bufs_of: dict[int, str] = {}
        self.gm: dict[str, str] = {}
        stored = {id(op.operands[0]) for op in self.loop.region if op.opname == "dma.store"}
        self.dma_buffers = {
            op.attrs["buf"]
            for op in self.loop.region
            if "buf" in op.attrs and (op.opname == "dma.load" or id(op.result) in stored)
        }
        self.has_compare = any(op.opname in ("cmp", "where") for op in self.loop.region)

    # -- naming ---------------------------------------------------------------------------------

    def view(self, v) -> str:
        return f"{self.bufs_of[id(v)]}_{v.type.dtype.name}"

    def scalar(self, v) -> str:
        try:
            return self.scalar_expr[id(v)]
        except KeyError:
            raise CompileError(f"scalar %{v.name} is not available inside the kernel") from None

    # -- class ----------------------------------------------------------------------------------

    def emit(self, w: CodeWriter) -> None:
        desc = ", ".join(
            [f"T = {self.v.dtype}"]
            + [f"{k} = {str(x).lower() if isinstance(x, bool) else x}" for k, x in self.v.bind.items()]
        )
        w.line(
            comment=f"Tiling key {self.v.key}: {desc}. Tile {self.tile} elements, "
            f"{sum(b['bytes'] * b['slots'] for b in self.buffers.values())} B of UB per element."
        )
        with w.block(f"class {self.cls}", "};"):
            w.level -= 1
            w.line("public:")
            w.level += 1
            self.emit_init(w)
            w.line()
            self.emit_process(w)
            w.line()
            w.level -= 1
            w.line("private:")
            w.level += 1
            self.emit_tile(w)
            w.line()
            w.line(f"static constexpr uint32_t TILE = {self.tile};", "elements per tile (plan-buffers)")
            w.line(
                f"static constexpr uint64_t GRANULE = {self.granule};",
                "elements per 32-byte block of the narrowest GM tensor",
            )
            w.line("TPipe pipe_;")
            for name, b in self.buffers.items():
                # DataCopyPad moves GM <-> VECIN/VECOUT on A2 (DataCopyPad docs, "GM->VECIN/VECOUT",
                # "VECIN/VECOUT->GM"); vector-only scratch is VECCALC.
                position = "VECIN" if b["slots"] > 1 else "VECCALC"
                w.line(
                    f"TBuf<TPosition::{position}> {name}_;",
                    "copied to/from GM" if b["slots"] > 1 else "vector scratch",
                )
            for m in self.members:
                w.line(m)
            w.line("uint64_t offset_ = 0;")
            w.line("uint64_t count_ = 0;")
            w.line("uint64_t tiles_ = 0;")

    def emit_init(self, w: CodeWriter) -> None:
        args = [f"GM_ADDR {gm_arg(n)}" for n in self.sig.inputs + self.sig.outputs]
        args += ["uint64_t totalLength", "uint64_t smallBlocks", "uint32_t tailCores"]
        args += [f"{'float' if k == 'float' else 'int64_t'} {field_name(n)}" for n, k in self.sig.attrs]
        with w.block(f"__aicore__ inline void Init({', '.join(args)})"):
            w.line(
                comment="This core's slice: whole 32-byte blocks, the first tailCores cores take one more."
            )
            w.line("const uint64_t core = static_cast<uint64_t>(GetBlockIdx());")
            w.line("const uint64_t firstBlock = core * smallBlocks + (core < tailCores ? core : tailCores);")
            w.line("const uint64_t blocks = smallBlocks + (core < tailCores ? 1 : 0);")
            w.line("const uint64_t start = firstBlock * GRANULE;")
            w.line(
                "const uint64_t stop = start + blocks * GRANULE < totalLength ? start + blocks * GRANULE : totalLength;"
            )
            w.line("offset_ = start;")
            w.line("count_ = stop > start ? stop - start : 0;")
            w.line("tiles_ = (count_ + TILE - 1) / TILE;")
            self.emit_gm(w)
            self.emit_scalars(w)
            for name, b in self.buffers.items():
                held = ", ".join(
                    sorted(
                        {
                            op.result.name
                            for op in self.loop.region
                            if op.result is not None and op.attrs.get("buf") == name
                        }
                    )
                )
                w.line(
                    f"pipe_.InitBuffer({name}_, TILE * {b['bytes']} * {b['slots']});",
                    f"{b['bytes']} B x {b['slots']} slot(s): {held}",
                )
            if self.has_compare:
                w.line(
                    comment="Compare/Select read whole 256-byte repeats, past the tail tile's last element:"
                )
                w.line(comment="give every buffer defined contents once, before any copy-in.")
                for name, b in self.buffers.items():
                    halves = b["bytes"] * b["slots"]
                    count = f"TILE * {halves} / 2"
                    w.line(
                        f"Duplicate({name}_.Get<int16_t>(), static_cast<int16_t>(0), static_cast<int32_t>({count}));",
                        f"{where(self.func)}: zero-fill {name}",
                    )
                w.line(
                    "PipeBarrier<PIPE_ALL>();", f"{where(self.func)}: once per core, outside the tile loop"
                )

    def emit_gm(self, w: CodeWriter) -> None:
        used = {id(op.operands[0]) for op in self.loop.region if op.opname == "dma.load"}
        for p in self.func.params:
            if id(p.value) not in used:
                continue
            name = cpp_ident(p.value.name)
            ctype_ = ctype(p.value.type.dtype)
            self.gm[p.value.name] = f"{name}Gm_"
            self.members.append(f"GlobalTensor<{ctype_}> {name}Gm_;")
            w.line(f"{name}Gm_.SetGlobalBuffer((__gm__ {ctype_}*){gm_arg(p.value.name)} + offset_, count_);")
        stored = {op.attrs["output"]: op.operands[0] for op in self.loop.region if op.opname == "dma.store"}
        for out in self.func.outputs:
            if out.name not in stored:
                continue
            name = cpp_ident(out.name)
            ctype_ = ctype(out.type.dtype)
            self.gm[out.name] = f"{name}Gm_"
            self.members.append(f"GlobalTensor<{ctype_}> {name}Gm_;")
            w.line(f"{name}Gm_.SetGlobalBuffer((__gm__ {ctype_}*){gm_arg(out.name)} + offset_, count_);")

    def emit_scalars(self, w: CodeWriter) -> None:
        attrs = {n for n, _ in self.sig.attrs}
        for op in self.func.body:
            if op.opname == "loop.tiles" or op.opname.startswith("sync."):
                continue
            t = op.result.type
            if not isinstance(t, ScalarType):
                raise _fail(op, f"'{op.opname}' outside the tile loop must be scalar")
            member = f"s_{op.result.name}"
            self.members.append(f"{t.dtype.cpp} {member} = 0;")
            self.scalar_expr[id(op.result)] = member
            w.line(f"{member} = {self.scalar_rhs(op, attrs, w)};", where(op))

    def scalar_rhs(self, op: Op, attrs: set[str], w: CodeWriter) -> str:
        name, t = op.opname, op.result.type
        if name == "scalar.load":
            p = op.operands[0]
            gm = f"{cpp_ident(p.name)}Gm_"
            self.members.append(f"GlobalTensor<{p.type.dtype.cpp}> {gm};")
            w.line(f"{gm}.SetGlobalBuffer((__gm__ {p.type.dtype.cpp}*){gm_arg(p.name)}, 1);")
            return f"{gm}.GetValue(0)"
        if name == "const":
            value = op.attrs["value"]
            return float_literal(value) if t.dtype.is_float else f"static_cast<{t.dtype.cpp}>({int(value)})"
        if name == "attr":
            if op.attrs["name"] not in attrs:
                raise _fail(op, f"attribute '{op.attrs['name']}' is not in the tiling data")
            return f"static_cast<{t.dtype.cpp}>({field_name(op.attrs['name'])})"
        args = [self.scalar(v) for v in op.operands]
        if name in SCALAR_BINARY:
            return f"({args[0]} {SCALAR_BINARY[name]} {args[1]})"
        if name == "neg":
            return f"(-{args[0]})"
        if name == "reciprocal":
            return f"({float_literal(1.0) if t.dtype.is_float else '1'} / {args[0]})"
        if name == "cmp":
            sym = {"gt": ">", "ge": ">=", "lt": "<", "le": "<=", "eq": "==", "ne": "!="}[op.attrs["pred"]]
            return f"({args[0]} {sym} {args[1]})"
        if name == "where":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if name == "abs":
            return f"({args[0]} < 0 ? -{args[0]} : {args[0]})"
        if name == "relu":
            return f"({args[0]} > 0 ? {args[0]} : {t.dtype.cpp}(0))"
        if name in ("max", "min"):
            cmp = ">" if name == "max" else "<"
            return f"({args[0]} {cmp} {args[1]} ? {args[0]} : {args[1]})"
        if name == "cast":
            src = op.operands[0].type.dtype
            if src == bf16 and t.dtype == f32:
                return f"AscendC::ToFloat({args[0]})"
            if (src, t.dtype) in ((f16, f32), (i32, f32), (f32, i32)):
                return f"static_cast<{t.dtype.cpp}>({args[0]})"
        raise _fail(
            op,
            f"'{op.opname}' on scalars ({t}) is not supported on the scalar unit yet; "
            "compute it on a tensor or pass the value precomputed",
        )

    # -- the loop -------------------------------------------------------------------------------

    def emit_process(self, w: CodeWriter) -> None:
        with w.block("__aicore__ inline void Process()"):
            before = self.func.body[: self.func.body.index(self.loop)]
            after = self.func.body[self.func.body.index(self.loop) + 1 :]
            for op in before:
                if op.opname.startswith("sync."):
                    self.emit_sync(w, op, pre=True)
            with w.block("for (uint64_t t = 0; t < tiles_; ++t)"):
                w.line("ProcessTile(t);")
            for op in after:
                if op.opname.startswith("sync."):
                    self.emit_sync(w, op, pre=False)

    def emit_tile(self, w: CodeWriter) -> None:
        for op in self.loop.region:
            if op.result is not None and "buf" in op.attrs:
                self.bufs_of[id(op.result)] = op.attrs["buf"]
        with w.block("__aicore__ inline void ProcessTile(uint64_t t)"):
            if not self.loop.region:  # every output of this variant is absent (x if flag else None)
                return
            w.line("const uint32_t len = static_cast<uint32_t>(t + 1 == tiles_ ? count_ - t * TILE : TILE);")
            if any(not op.opname.startswith(("dma.", "sync.")) for op in self.loop.region):
                w.line("const int32_t n = static_cast<int32_t>(len);")  # a pure copy has no vector op
            slot = "static_cast<int32_t>(t & 1)" if self.slots == 2 else "0"
            w.line(f"const int32_t slot = {slot};", "ping-pong slot: buffer half and event id")
            views = sorted(
                {
                    (op.attrs["buf"], op.result.type.dtype)
                    for op in self.loop.region
                    if op.result is not None and "buf" in op.attrs
                },
                key=lambda x: (int(x[0][1:]), x[1].name),
            )
            for buf, dt in views:
                offset = "[slot * TILE]" if self.buffers[buf]["slots"] > 1 else ""
                w.line(f"LocalTensor<{ctype(dt)}> {buf}_{dt.name} = {buf}_.Get<{ctype(dt)}>(){offset};")
            if self.has_compare:
                w.line(
                    "const int32_t nAligned = static_cast<int32_t>((len + 255) / 256 * 256);", "whole repeats"
                )
            for op in self.loop.region:
                self.emit_op(w, op)

    def emit_sync(self, w: CodeWriter, op: Op, pre: bool | None = None) -> None:
        if op.opname == "sync.barrier":
            w.line("PipeBarrier<PIPE_V>();", f"{where(op)}: vector result read by the next vector op")
            return
        event, ident = op.attrs["event"], op.attrs["id"]
        src, dst = event.split("_")
        ident = {"slot": "slot", "slot+2": "slot + 2"}.get(ident, str(ident))
        bufs = ", ".join(op.attrs.get("bufs", []))
        fn = "SetFlag" if op.opname == "sync.set" else "WaitFlag"
        role = {True: "pre-issue", False: "drain", None: ""}[pre]
        why = f"{role + ': ' if role else ''}{dst} waits for {src} on {bufs}"
        w.line(f"{fn}<HardEvent::{event}>({ident});", why)

    def emit_op(self, w: CodeWriter, op: Op) -> None:
        name = op.opname
        if name.startswith("sync."):
            self.emit_sync(w, op)
            return
        loc = where(op)
        if name == "dma.load":
            dt = op.result.type.dtype
            gm = self.gm[op.operands[0].name]
            w.line(
                f"DataCopyPad({self.view(op.result)}, {gm}[t * TILE], DataCopyExtParams{{1, len * {dt.bytes}u, 0, 0, 0}}, "
                f"DataCopyPadExtParams<{dt.cpp}>{{false, 0, 0, 0}});",
                f"{loc}: copy in %{op.result.name}",
            )
            return
        if name == "dma.store":
            v = op.operands[0]
            gm = self.gm[op.attrs["output"]]
            w.line(
                f"DataCopyPad({gm}[t * TILE], {self.view(v)}, DataCopyExtParams{{1, len * {v.type.dtype.bytes}u, 0, 0, 0}});",
                f"{loc}: copy out {op.attrs['output']}",
            )
            return
        if not isinstance(op.result.type, TensorType):
            raise _fail(op, f"scalar op '{name}' inside the tile loop")
        dst = self.view(op.result)
        args = op.operands
        self.check_dtype(op)
        if name in BINARY:
            a, b = (self.view(x) for x in args)
            w.line(f"{BINARY[name]}({dst}, {a}, {b}, n);", loc)
        elif name in VECTOR_SCALAR:
            w.line(f"{VECTOR_SCALAR[name]}({dst}, {self.view(args[0])}, {self.scalar(args[1])}, n);", loc)
        elif name in UNARY:
            w.line(f"{UNARY[name]}({dst}, {self.view(args[0])}, n);", loc)
        elif name == "neg":
            w.line(f"Muls({dst}, {self.view(args[0])}, {self.typed(-1, op)}, n);", loc)
        elif name == "vec.dup":
            w.line(f"Duplicate({dst}, {self.scalar(args[0])}, n);", loc)
        elif name == "round":
            w.line(
                f"Cast({dst}, {self.view(args[0])}, RoundMode::CAST_RINT, n);", f"{loc}: round half to even"
            )
        elif name == "cast":
            pair = (args[0].type.dtype, op.result.type.dtype)
            if pair not in CASTS:
                raise _fail(op, f"cast {pair[0]} -> {pair[1]} is not supported by the 910B backend yet")
            w.line(f"Cast({dst}, {self.view(args[0])}, RoundMode::{CASTS[pair]}, n);", loc)
        elif name == "cmp":
            a, b = (self.view(x) for x in args)
            mode = CMP_MODES[op.attrs["pred"]]
            w.line(f"Compare({dst}, {a}, {b}, CMPMODE::{mode}, nAligned);", f"{loc}: bit mask")
        elif name == "where":
            if args[1].type.dtype != args[2].type.dtype:
                raise _fail(
                    op,
                    f"dsl.where branches must share a dtype on the vector unit "
                    f"({args[1].type.dtype} vs {args[2].type.dtype}); cast one of them",
                )
            c, a, b = (self.view(x) for x in args)
            w.line(f"Select({dst}, {c}, {a}, {b}, SELMODE::VSEL_TENSOR_TENSOR_MODE, nAligned);", loc)
        else:
            raise _fail(op, f"'{name}' is not supported by the 910B elementwise backend yet")

    def check_dtype(self, op: Op) -> None:
        api = {
            **BINARY,
            **VECTOR_SCALAR,
            **UNARY,
            "neg": "Muls",
            "vec.dup": "Duplicate",
            "cmp": "Compare",
            "where": "Select",
        }.get(op.opname)
        if api is None:
            return
        dt = (op.operands[0] if op.opname == "cmp" else op.result).type.dtype
        if ctype(dt) not in A2_DTYPES[api]:
            raise _fail(
                op,
                f"{api} does not take {dt} in the A2 vector API dslc targets "
                f"(it takes {', '.join(sorted(A2_DTYPES[api]))}); cast to f32 first",
            )

    def typed(self, value, op: Op) -> str:
        dt = op.result.type.dtype
        return float_literal(float(value)) if dt.is_float else f"static_cast<{dt.cpp}>({value})"


def emit_kernel(op_name: str, op_type: str, variants: list[Variant], sig: Signature, header: str) -> str:
    w = CodeWriter()
    for line in header.splitlines():
        w.line(comment=line)
    w.line('#include "kernel_operator.h"')
    w.line()
    w.line("using namespace AscendC;")
    w.line()
    classes = []
    for v in variants:
        cls = f"Kernel{op_type}Key{v.key}"
        classes.append((v, cls))
        KernelEmitter(v, sig, cls).emit(w)
        w.line()
    args = [f"GM_ADDR {gm_arg(n)}" for n in sig.inputs + sig.outputs] + [
        "GM_ADDR workspace",
        "GM_ADDR tiling",
    ]
    with w.block(f'extern "C" __global__ __aicore__ void {op_name}({", ".join(args)})'):
        w.line(
            "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);",
            "vector cores only: GetBlockIdx() is the AIV index",
        )
        w.line("GET_TILING_DATA(tilingData, tiling);")
        call = [gm_arg(n) for n in sig.inputs + sig.outputs]
        call += ["tilingData.totalLength", "tilingData.smallBlocks", "tilingData.tailCores"]
        call += [f"tilingData.{field_name(n)}" for n, _ in sig.attrs]
        for k, (v, cls) in enumerate(classes):
            head = ("if" if k == 0 else "} else if") + f" (TILING_KEY_IS({v.key}))"
            w.line(head + " {")
            w.level += 1
            w.line(f"{cls} op;")
            w.line(f"op.Init({', '.join(call)});")
            w.line("op.Process();")
            w.level -= 1
        w.line("}")
    return w.text()


def field_name(attr: str) -> str:
    """Tiling-data field (and Init argument) of a run-time attribute."""
    return f"attr_{attr}"


def gm_arg(name: str) -> str:
    """Kernel argument of an input or output; the prefix keeps user names clear of ours."""
    return f"gm_{name}"
