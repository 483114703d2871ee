"""RegBase: a tile's vector ops as one vector function (VF) on ascend950 registers.

form-vector-functions made the tile's vector ops one VF: values only vector ops read are
registers (``Form.REGISTER``), loads and stored values are UB views (``Form.TILE``, ``ub`` the
view whose address the VF takes). ``render_region`` returns the call statement
(``asc_vf_call<VF>(pointers..., scalars..., count, repeats)``) and records the VF's text in
``ctx.needs.vfs``; the class template writes it as a static member (``helpers(where="vf")``)
and the CastTrait constants before the class (``where="free"``).

The VF, for ``y = cast(exp(cast(x, f32) * -1), T)`` with T = half::

    __simd_vf__ static inline void SiluVF(__ubuf__ T* yAddr, __ubuf__ T* xAddr, uint32_t count, uint16_t repeats) {
        Reg::RegTensor<T> x, y;
        Reg::RegTensor<float> xF32, tmp0;
        Reg::MaskReg mask;
        for (uint16_t i = 0; i < repeats; ++i) {
            mask = Reg::UpdateMask<float>(count);          // the tail: count -= 64 per step
            Reg::LoadAlign<T, Reg::LoadDist::DIST_UNPACK_B16>(x, xAddr + i * 64);
            Reg::Cast<float, T, kCastWiden>(xF32, x, mask);
            ...
            Reg::StoreAlign<T, Reg::StoreDist::DIST_PACK_B32>(yAddr + i * 64, y, mask);
        }
    }

One element step covers VL = 256 bytes of the widest type: 64 lanes when the VF has 32-bit
values (16-bit data then lives unpacked, element i in the low half of 32-bit lane i: loaded
with DIST_UNPACK_B16, stored with DIST_PACK_B32, which Cast's RegLayout::ZERO keeps), else 128.
V -> V order inside a VF is the hardware's: no barriers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.dtypes import bf16, bool_, f16, f32, i8, i32, u8
from dsl.errors import CompileError
from dsl.ir import Op

from ...cann import DEFAULT_CANN, VF_FORMS, spelling
from ..api import BINARY, CMP_MODES, VECTOR_SCALAR, ctype
from ..merge import Stmt
from .base import Form, Operand, Region, VecOp, where

# Reg API spellings (asc-devkit 9.1 include/basic_api/reg_compute/*_intf.h; the emulator's
# sim/include/dslc_sim/reg_*.h names each source).
UNARY = {"abs": "Abs", "relu": "Relu", "sqrt": "Sqrt", "exp": "Exp", "log": "Ln", "neg": "Neg"}
CAST_TRAITS = {  # name -> CastTrait {layout, saturation, merge mode, rounding} (Cast.md table)
    "kCastWiden": "Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN, Reg::MaskMergeMode::ZEROING, RoundMode::UNKNOWN",
    "kCastRint": "Reg::RegLayout::ZERO, Reg::SatMode::NO_SAT, Reg::MaskMergeMode::ZEROING, RoundMode::CAST_RINT",
    "kCastTruncSat": "Reg::RegLayout::ZERO, Reg::SatMode::SAT, Reg::MaskMergeMode::ZEROING, RoundMode::CAST_TRUNC",
    "kCastOdd": "Reg::RegLayout::ZERO, Reg::SatMode::NO_SAT, Reg::MaskMergeMode::ZEROING, RoundMode::CAST_ODD",
    "kCastRintSat": "Reg::RegLayout::ZERO, Reg::SatMode::SAT, Reg::MaskMergeMode::ZEROING, RoundMode::CAST_RINT",
}


def cast_trait(op: Op, src, dst) -> str:
    """The CastTrait of a cast: the pair's, but legalize-casts' quant chain (seed 002: f32 -> f16
    rounding to odd, then f16 -> i8/u8 rounding half to even, ``round`` attributes) and a plain
    f16 -> 8-bit cast (toward zero), both saturating."""
    if (src, dst) == (f32, f16) and op.attrs.get("round") == "odd":
        return "kCastOdd"
    if src == f16 and dst in (i8, u8):
        return "kCastRintSat" if op.attrs.get("round") == "rint" else "kCastTruncSat"
    return CAST_TRAIT_OF[(src, dst)]


def stored_bytes(v: VecOp) -> bool:
    """An 8-bit result the VF stores packed: a cast from f16 (form-vector-functions' _stored_bytes)."""
    return v.op.opname == "cast" and v.srcs[0].dtype == f16


CAST_TRAIT_OF = {
    (f16, f32): "kCastWiden",  # exact
    (bf16, f32): "kCastWiden",
    (f32, f16): "kCastRint",  # round half to even, overflow to inf (IEEE, as the DSL rounds)
    (f32, bf16): "kCastRint",
    (f32, i32): "kCastTruncSat",  # toward zero, saturating (the 910B kernels' CAST_TRUNC)
    (i32, f32): "kCastRint",
    (f16, bool_): "kCastRintSat",  # a bool output's 1/0 halves -> bytes 1/0 (exact)
    (i8, f16): "kCastWiden",  # exact; the bytes loaded unpacked (DIST_UNPACK_B8 / DIST_UNPACK4_B8)
    (u8, f16): "kCastWiden",
}
FLIP = {"gt": "lt", "lt": "gt", "ge": "le", "le": "ge", "eq": "eq", "ne": "ne"}
LOCALS = {"count", "repeats", "i", "mask", "one"}  # the VF's own names


@dataclass
class VectorFunction:
    """One VF's text, before the kernel names it (``placeholder`` in the call statement)."""

    placeholder: str
    params: list[str]  # "__ubuf__ T* xAddr", "float beta2", ...
    lines: list[str]  # the body, one statement per line, with "{" / "}" lines for the loop
    traits: set[str] = field(default_factory=set)
    loc: str | None = None


class RegBase:
    path = "regbase"

    def __init__(self, target=None, cann: str = DEFAULT_CANN, form: str | None = None):
        self.target, self.cann = target, cann
        self.form = form or spelling("vf_launch", cann)
        if self.form not in VF_FORMS:
            raise ValueError(f"unknown vector-function form {self.form!r} (known: {', '.join(VF_FORMS)})")

    def check(self, op: Op) -> None:
        return None  # form-vector-functions checked the ops and types (REG_OPS)

    def op(self, vop: VecOp, ctx):
        raise CompileError("RegBase renders whole regions (vector functions), not single ops", vop.op.loc)

    # -- V -> V order: the hardware's inside a VF and between VFs on ascend950 ---------------------

    def barrier(self, loc=None, note=None, weight: int = 1) -> list[Stmt]:
        return []

    def barrier_line(self) -> str | None:
        return None

    def resident_broadcast(self, member: str, ctype: str, value: str, loc=None):
        raise CompileError("RegBase duplicates broadcasts into registers inside the VF")

    def helpers(self, w, needs: list, where: str) -> None:
        if where == "free":
            traits = sorted(set().union(*(n.cast_traits for n in needs)))
            if traits:
                w.line(
                    comment="Cast behaviour of the vector functions' Reg::Cast calls (Cast.md: layout, saturation,"
                )
                w.line(comment="inactive lanes, rounding).")
                for t in traits:
                    w.line(f"constexpr Reg::CastTrait {t} = {{{CAST_TRAITS[t]}}};")
                w.line()

    # -- the region: one VF ----------------------------------------------------------------------

    def render_region(self, region: Region, ctx) -> list[Stmt]:
        vops = [it for it in region.items if isinstance(it, VecOp)]
        return self.vector_function(vops, ctx) if vops else []

    def vector_function(self, vops: list, ctx, writer=None, what: str = "tile") -> list[Stmt]:
        """``vops`` as one VF written by ``writer`` (VfWriter or a family's subclass): inline in
        the ``__VEC_SCOPE__`` form, else a call of a class member."""
        if writer is None and ctx.func.attributes.get("broadcast"):
            from .regbase_broadcast import broadcast_vector_function  # rows, broadcasts in place

            return broadcast_vector_function(self, vops, ctx, what)
        writer = writer or VfWriter
        if self.form == "__VEC_SCOPE__":  # inline: the scope's locals are its arguments
            vf = writer(vops, ctx, "", suffix="Reg")
            ctx.needs.cast_traits |= vf.traits
            return [Stmt(vf.scope_text(), dsl=where(vops[0].op))]
        vf = writer(vops, ctx, f"@VF{len(ctx.needs.vfs)}@")
        ctx.needs.cast_traits |= vf.traits
        ctx.needs.vfs[vf.fn.placeholder] = vf.fn
        return [Stmt(vf.call, note=f"the {what}'s vector math: one vector function", dsl=where(vops[0].op))]


class VfWriter:
    """The text of one VF and its call, from the region's ops."""

    def __init__(self, vops: list[VecOp], ctx, placeholder: str, suffix: str = ""):
        self.ctx = ctx
        self.suffix = suffix  # after every register name (the inline form: views share the scope)
        self.vops = vops
        produced = {id(v.op.result) for v in vops}
        values = [x for v in vops for x in (v.dst, *v.srcs) if x.form is not Form.SCALAR]
        widths = {x.dtype.bytes for x in values if x.dtype.bytes > 1}
        for v in vops:  # 8-bit results: only a cast from f16 (a bool or i8/u8 output, stored packed)
            if v.dst.dtype.bytes == 1 and v.dst.dtype != bool_ and not stored_bytes(v):
                raise CompileError("RegBase stores 8-bit data only from a cast of f16", v.op.loc)
        self.lanes = 64 if 4 in widths else 128
        self.unpacked = 4 in widths and 2 in widths  # 16-bit data in 32-bit lanes
        self.regs: dict[str, str] = {}  # register -> its C++ element type ("mask" for MaskReg)
        self.ptrs: dict[str, str] = {}  # __ubuf__ pointer parameter -> element type
        self.args: list[str] = []  # the call's arguments, in parameter order
        self.scalars: dict[str, tuple[str, str]] = {}  # scalar text -> (parameter, type)
        self.before: list[str] = []  # invariant registers (Duplicate), before the element loop
        self.loop: list[str] = []
        self.traits: set[str] = set()
        self.loaded: set[str] = set()
        self.consts: dict[tuple, str] = {}
        for v in vops:  # every load first: a store may reuse a loaded buffer (plan-buffers)
            for x in v.srcs:
                if x.form is Form.TILE and id(x.value) not in produced:
                    self.load(x)
        for v in vops:
            self.emit(v)
            if v.dst.form is Form.TILE:
                self.store(v.dst)
        params = [f"__ubuf__ {c}* {p}" for p, c in self.ptrs.items()]
        params += [f"{c} {p}" for p, c in self.scalars.values()]
        self.args += [s for s in self.scalars]
        params += self.extent_params()
        self.args += self.extent_args()
        self.fn = VectorFunction(placeholder, params, self.body(), self.traits, where(vops[0].op))
        self.call = f"asc_vf_call<{placeholder}>({', '.join(self.args)});"

    def extent_params(self) -> list[str]:
        """The parameters after the pointers and scalars: how many elements, in how many steps."""
        return ["uint32_t count", "uint16_t repeats"]

    def extent_args(self) -> list[str]:
        return ["len", f"static_cast<uint16_t>((len + {self.lanes - 1}) / {self.lanes})"]

    def scope_text(self) -> str:
        """The inline form: the VF's parameters as locals of a block (pointers from the views,
        scalars copied by value from the members), then ``__VEC_SCOPE__ { body }``."""
        params = [p for p in self.fn.params]
        lines = ["{"]
        for p, a in zip(params, self.args):
            const = "" if p.startswith(("uint32_t count", "__ubuf__")) else "const "
            lines.append(f"    {const}{p} = {a};")
        lines.append("    __VEC_SCOPE__ {")
        lines += ["        " + line for line in self.fn.lines]
        lines.append("    }")
        lines.append("}")
        return "\n".join(lines)

    # -- names and types --

    def reg(self, x: Operand) -> str:
        """A value's register: a MaskReg for a comparison, a RegTensor of bytes for a bool output
        (the cast of a 1/0 Select, form-vector-functions' ``_stored_bytes``), else its type's."""
        name = self.reg_name(x)
        if x.dtype != bool_:
            kind = self.ctype(x)
        elif x.value is not None and x.value.owner is not None and x.value.owner.opname == "cast":
            kind = "uint8_t"
        else:
            kind = "mask"
        self.regs.setdefault(name, kind)
        return name

    def reg_name(self, x: Operand) -> str:
        return x.text + (self.suffix or ("Reg" if x.text in LOCALS else ""))

    def ctype(self, x: Operand) -> str:
        return self.ctx.reg_ctype(x.dtype, x.value)

    def ptr(self, x: Operand) -> str:
        p = x.ub + "Addr"
        if p not in self.ptrs:
            self.ptrs[p] = self.ctx.view_types.get(x.ub) or self.ctype(x)
            self.args.append(f"(__ubuf__ {self.ptrs[p]}*){x.ub}.GetPhyAddr()")
        return p

    def scalar(self, x: Operand, like: Operand) -> str:
        """A scalar operand: a literal inline, anything else (a member, a Scalar input's read) by value."""
        text = self.ctx.scalar_for(x.value, like.dtype, like.text)
        if x.value.owner is not None and x.value.owner.opname == "const":
            return text
        if text not in self.scalars:
            base = text[:-1] if text.endswith("_") and text[:-1].isidentifier() else f"s{len(self.scalars)}"
            while base in self.regs or base in LOCALS:
                base += "S"
            self.scalars[text] = (base, ctype(x.dtype))
        return self.scalars[text][0]

    def const_reg(self, value_text: str, like: Operand) -> str:
        """A register holding one scalar in every lane, made once before the element loop."""
        key = (value_text, self.ctype(like))
        if key not in self.consts:
            name = "one" if value_text == "1" else f"splat{len(self.consts)}"
            self.consts[key] = name
            self.regs.setdefault(name, self.ctype(like))
            self.before.append(f"Reg::Duplicate({name}, {value_text});")
        return self.consts[key]

    # -- loads, stores, ops --

    def step(self) -> str:
        return f"i * {self.lanes}"

    def at(self, x: Operand) -> str:
        """The address of ``x``'s elements in the current element step."""
        return f"{self.ptr(x)} + {self.step()}"

    def load(self, x: Operand) -> None:
        r = self.reg(x)
        if r in self.loaded:
            return
        self.loaded.add(r)
        self.loop.append(self.load_align(x, self.at(x)))

    def load_align(self, x: Operand, at: str) -> str:
        """The LoadAlign of ``x``'s elements at ``at``: 8-bit and (unpacked) 16-bit data spread
        one element per lane of the step's width."""
        r, c = self.reg(x), self.ptrs.get(self.ptr(x))
        if x.dtype.bytes == 1:  # b8 element i in the low byte of lane i (LoadAlign.md table 3)
            dist = "DIST_UNPACK4_B8" if self.lanes == 64 else "DIST_UNPACK_B8"
            return f"Reg::LoadAlign<{c}, Reg::LoadDist::{dist}>({r}, {at});"
        if self.unpacked and x.dtype.bytes == 2:
            return f"Reg::LoadAlign<{c}, Reg::LoadDist::DIST_UNPACK_B16>({r}, {at});"
        return f"Reg::LoadAlign({r}, {at});"

    def store(self, x: Operand) -> None:
        r, p, at = self.reg(x), self.ptr(x), self.at(x)
        if x.dtype.bytes == 1:  # the low byte of each lane, packed (StoreAlign.md table 3)
            dist = "DIST_PACK4_B32" if self.lanes == 64 else "DIST_PACK_B16"
            c = "uint8_t" if x.dtype == bool_ else self.ctype(x)
            self.loop.append(f"Reg::StoreAlign<{c}, Reg::StoreDist::{dist}>({at}, {r}, mask);")
        elif self.unpacked and x.dtype.bytes == 2:
            c = self.ptrs[p]
            self.loop.append(f"Reg::StoreAlign<{c}, Reg::StoreDist::DIST_PACK_B32>({at}, {r}, mask);")
        else:
            self.loop.append(f"Reg::StoreAlign({at}, {r}, mask);")

    def src(self, x: Operand, like: Operand) -> str:
        """A tensor operand's register, or a scalar splatted into one (Select, Div take registers)."""
        if x.form is Form.SCALAR:
            return self.const_reg(self.scalar(x, like), like)
        return self.reg(x)

    def emit(self, v: VecOp) -> None:
        op, name = v.op, v.op.opname
        d, srcs = v.dst, v.srcs
        out = self.loop
        if name == "vec.dup":  # loop-invariant: made once (two splats of one scalar: one Duplicate)
            line = f"Reg::Duplicate({self.reg(d)}, {self.scalar(srcs[0], d)});"
            if line not in self.before:
                self.before.append(line)
            return
        if name in BINARY:
            a, b = self.src(srcs[0], d), self.src(srcs[1], d)
            out.append(f"Reg::{BINARY[name]}({self.reg(d)}, {a}, {b}, mask);")
        elif name in VECTOR_SCALAR:
            out.append(
                f"Reg::{VECTOR_SCALAR[name]}({self.reg(d)}, {self.reg(srcs[0])}, {self.scalar(srcs[1], d)}, mask);"
            )
        elif name in UNARY:
            out.append(f"Reg::{UNARY[name]}({self.reg(d)}, {self.reg(srcs[0])}, mask);")
        elif name == "round":  # half to even, to an integral value of the same type (vtrc)
            c = self.ctype(d)
            out.append(f"Reg::Truncate<{c}, RoundMode::CAST_RINT>({self.reg(d)}, {self.reg(srcs[0])}, mask);")
        elif name in ("reciprocal", "rsqrt"):
            one = self.const_reg(self.one(d), d)
            src = self.reg(srcs[0])
            if name == "rsqrt":
                out.append(f"Reg::Sqrt({self.reg(d)}, {src}, mask);")
                src = self.reg(d)
            out.append(f"Reg::Div({self.reg(d)}, {one}, {src}, mask);")
        elif name == "cast":
            trait = cast_trait(op, srcs[0].dtype, d.dtype)
            self.traits.add(trait)
            out.append(
                f"Reg::Cast<{self.ctype(d)}, {self.ctype(srcs[0])}, {trait}>({self.reg(d)}, {self.reg(srcs[0])}, mask);"
            )
        elif name == "cmp":
            pred, a, b = op.attrs["pred"], srcs[0], srcs[1]
            if a.form is Form.SCALAR:
                pred, a, b = FLIP[pred], b, a
            c = self.ctype(a)
            if b.form is Form.SCALAR:
                s = self.scalar(b, a)
                out.append(
                    f"Reg::Compares<{c}, CMPMODE::{CMP_MODES[pred]}>({self.reg(d)}, {self.reg(a)}, {s}, mask);"
                )
            else:
                out.append(
                    f"Reg::Compare<{c}, CMPMODE::{CMP_MODES[pred]}>({self.reg(d)}, {self.reg(a)}, {self.reg(b)}, mask);"
                )
        elif name == "where":
            m = self.reg(srcs[0])
            a, b = self.src(srcs[1], d), self.src(srcs[2], d)
            out.append(f"Reg::Select({self.reg(d)}, {a}, {b}, {m});")
        else:
            raise CompileError(f"RegBase does not render '{name}' yet", op.loc)

    def one(self, like: Operand) -> str:
        return (
            "1"
            if like.dtype == i32
            else ("1.0f" if like.dtype == f32 else f"static_cast<{self.ctype(like)}>(1.0f)")
        )

    def body(self) -> list[str]:
        decls: dict[str, list[str]] = {}
        for r, c in self.regs.items():
            decls.setdefault(c, []).append(r)
        lines = []
        for c, names in decls.items():
            if c != "mask":
                lines.append(f"Reg::RegTensor<{c}> {', '.join(names)};")
        masks = ["mask"] + decls.get("mask", [])
        lines.append(f"Reg::MaskReg {', '.join(masks)};")
        lines += self.before
        if self.lanes == 64:
            t = "float"
        elif any(x.dtype in (i8, u8) for v in self.vops for x in v.srcs if x.form is Form.TILE):
            t = "uint16_t"  # 8-bit loads unpacked into b16 lanes: a b16 mask (ascend_quant_3510_impl.h)
        else:
            t = next(c for c in self.regs.values() if c not in ("mask", "uint8_t"))
        return lines + self.loops(t)

    def loops(self, t: str) -> list[str]:
        """The element loop (``t``: the mask's element type)."""
        return [
            "for (uint16_t i = 0; i < repeats; ++i) {",
            f"    mask = Reg::UpdateMask<{t}>(count);  // the last step's tail: count -= {self.lanes}",
            *["    " + s for s in self.loop],
            "}",
        ]


def name_vfs(codes: dict, op_type: str) -> dict[str, VectorFunction]:
    """Names every variant's VFs once (equal texts share one function: the f16 and bf16 kernels'
    VF reads ``T``), replaces the placeholders in the call statements; returns name -> VF."""
    import dataclasses

    by_text: dict[tuple, str] = {}
    named: dict[str, VectorFunction] = {}
    pending = [(code, vf) for code in codes.values() for vf in code.needs.vfs.values()]
    distinct = {(tuple(vf.params), tuple(vf.lines)) for _, vf in pending}
    for code, vf in pending:
        key = (tuple(vf.params), tuple(vf.lines))
        if key not in by_text:
            by_text[key] = f"{op_type}VF" + (str(len(by_text)) if len(distinct) > 1 else "")
            named[by_text[key]] = vf
        name = by_text[key]
        code.body = [
            (
                dataclasses.replace(s, code=s.code.replace(vf.placeholder, name))
                if vf.placeholder in s.code
                else s
            )
            for s in code.body
        ]
    return named
