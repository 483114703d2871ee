"""One kernel variant (element type x static-attribute values) as named C++ statements.

A variant's tile-level IR becomes statement lists (Init, buffers, pre-issued flags, per-tile
views and body, drain) written with names derived from the DSL, so that the variants of one
operator produce the same text wherever they do the same thing and ``merge`` can print it once.
Naming is shared across variants through ``OpFacts``: when one variant widens input ``grad`` to
``gradF32``, the f32 variant names its loaded tile's compute alias ``gradF32`` too.
"""

from __future__ import annotations

import os
import dataclasses
import re
from dataclasses import dataclass, field

from dsl.dtypes import DType, bf16, bool_, f16, f32, i8, i32, u8
from dsl.errors import CompileError
from dsl.ir import Func, Op, ScalarType, TensorType

from .api import ctype, float_literal, scalar_expression, typed_literal
from passes.rows import is_row_func

from ..cann import DEFAULT_CANN
from .merge import Stmt
from .vector import Extent, Form, Operand, Region, VecOp, vector_codes
from .vector.base import Needs, where

TILE_EXTENT = Extent("n", "nAligned")  # a tile op covers the tile's n elements (whole repeats: nAligned)
from .naming import RESERVED, NameTable, camel, expression_name, is_user_name, gm_param

# Op attributes that do not change what a value computes: its buffer, and where a column-chunked
# twin runs it (passes/chunk_rows.py), so a value keeps its name in the full-load kernel and the twin.
NAMING_IGNORES = ("buf", "slots", "phases", "once")


def safe(name: str) -> str:
    """A view name clear of the kernel's own locals (``n``, ``len``, ``slot``, ...)."""
    return name + "Tile" if name in RESERVED else name


SYNC_WEIGHT = 3  # aligning a flag or barrier is worth less than aligning a computation


@dataclass
class Variant:
    key: int  # tiling key: the static-attribute index
    func: Func
    dtype: DType
    bind: dict


@dataclass
class Signature:
    """Entry arguments and tiling fields shared by every variant of the op."""

    inputs: list[str]
    outputs: list[str]
    attrs: list[tuple[str, str]]  # (name, "float" | "int") run-time attributes


def _fail(op: Op, msg: str) -> CompileError:
    return CompileError(msg, op.loc)


def field_name(attr: str) -> str:
    """Tiling-data field (and kernel member) of a run-time attribute."""
    return camel(attr) + "Attr"


def _is_widen(op: Op) -> bool:
    return (
        op.opname == "cast"
        and op.result.type.dtype == f32
        and op.operands[0].type.dtype in (f16, bf16)
        and isinstance(op.result.type, TensorType)
    )


def _is_narrow(op: Op | None) -> bool:
    return (
        op is not None
        and op.opname == "cast"
        and op.operands[0].type.dtype == f32
        and op.result.type.dtype in (f16, bf16)
    )


def tile_ops(func: Func) -> list[Op]:
    """The ops that compute tile values: the loop body, and in a row function the resident
    columns computed before the loop."""
    loop = func.loop()
    if not is_row_func(func):  # elementwise: what is before the loop is resident (hoist-invariants)
        return list(loop.region)
    resident = [
        op
        for op in func.body
        if op is not loop and op.result is not None and isinstance(op.result.type, TensorType)
    ]
    return resident + loop.region


@dataclass
class OpFacts:
    """What any variant of the op does, so every variant can name things the same way."""

    widened: set[str] = field(default_factory=set)  # inputs some variant widens to f32 tiles
    narrowed: set[str] = field(default_factory=set)  # outputs some variant narrows before storing
    scalar_widened: set[str] = field(default_factory=set)  # Scalar inputs some variant widens
    fixed_scalars: set[str] = field(default_factory=set)  # Scalar inputs of one dtype in every variant
    cann: str = DEFAULT_CANN  # the release whose API spellings to emit

    @staticmethod
    def of(variants: list[Variant]) -> "OpFacts":
        facts = OpFacts()
        dtypes: dict[str, set] = {}
        for v in variants:
            region = tile_ops(v.func)
            loads = {id(op.result): op.operands[0].name for op in region if op.opname == "dma.load"}
            for op in region:
                if _is_widen(op) and id(op.operands[0]) in loads:
                    facts.widened.add(loads[id(op.operands[0])])
                if op.opname == "dma.store" and _is_narrow(op.operands[0].owner):
                    facts.narrowed.add(op.attrs["output"])
            for op in v.func.body:
                if op.opname == "scalar.load":
                    p = op.operands[0]
                    facts.fixed_scalars.add(p.name)
                    dtypes.setdefault(p.name, set()).add(p.type.dtype)
                if op.opname == "cast" and op.operands[0].owner is not None:
                    src = op.operands[0].owner
                    if src.opname == "scalar.load" and op.result.type.dtype == f32:
                        facts.scalar_widened.add(src.operands[0].name)
        facts.fixed_scalars = {p for p, d in dtypes.items() if len(d) == 1}
        return facts


@dataclass
class View:
    name: str
    dtype: DType
    buffer: str  # the variant's buffer name (bN)
    slotted: bool


@dataclass
class VariantCode:
    variant: Variant
    tile: int
    granule: int
    buffers: dict  # bN -> {"bytes", "slots"}
    views: dict[str, View] = field(default_factory=dict)
    registers: dict[str, DType] = field(default_factory=dict)  # RegBase: VF register -> element type
    view_of: dict[int, str] = field(default_factory=dict)  # id(value) -> view name (definition)
    use_of: dict[int, str] = field(default_factory=dict)  # id(value) -> view name for vector reads
    scalars: dict[int, str] = field(default_factory=dict)  # id(value) -> C++ expression
    scalar_members: dict[str, DType] = field(default_factory=dict)
    gm: dict[str, DType] = field(default_factory=dict)  # GM tensors the tile loop moves
    init: list[Stmt] = field(default_factory=list)
    pre: list[Stmt] = field(default_factory=list)
    body: list[Stmt] = field(default_factory=list)
    post: list[Stmt] = field(default_factory=list)
    needs: Needs = field(default_factory=Needs)  # what the vector code asked for (helpers, members)
    resident: list[Stmt] = field(default_factory=list)  # Init: broadcasts made once per core
    resident_members: dict[str, str] = field(default_factory=dict)  # LocalTensor member -> C++ type
    anchors: dict[str, str] = field(default_factory=dict)  # DMA buffer -> the input/output it carries


class VariantRenderer:
    reserved = RESERVED  # the kernel's own names; a view of that name gets a suffix

    def safe(self, name: str) -> str:
        return name + "Tile" if name in self.reserved else name

    def __init__(self, v: Variant, sig: Signature, facts: OpFacts, vector: dict | None = None):
        self.v, self.sig, self.facts = v, sig, facts
        self.func = v.func
        self.loop = self.func.loop()
        self.code = VariantCode(
            v,
            self.loop.attrs["tile"],
            self.func.attributes["split"]["granule"],
            self.func.attributes["buffers"],
        )
        self.names = NameTable()
        self.vcs = vector or vector_codes(cann=facts.cann)  # the vector code paths (Region.path)
        self.vc = self.vcs["membase"]  # Init's and single ops' path
        self.resident_barrier = 0  # statements at the end of code.resident ordering the broadcasts

    # -- names ----------------------------------------------------------------------------------

    def propose_names(self) -> dict[str, str | None]:
        """Names that do not depend on this variant's buffers; returns, per anonymous value (by
        SSA name), the named value it is computed in place on its way to, if any."""
        region = tile_ops(self.func)
        defs = [op for op in region if op.result is not None and ("buf" in op.attrs or op.attrs.get("reg"))]
        self.defs = defs
        users: dict[int, list[Op]] = {}
        for op in region:
            for x in op.operands:
                users.setdefault(id(x), []).append(op)
        param_of = {id(op.result): op.operands[0].name for op in region if op.opname == "dma.load"}
        stored: dict[int, list[str]] = {}
        for op in region:
            if op.opname == "dma.store":
                stored.setdefault(id(op.operands[0]), []).append(op.attrs["output"])
        self.stored = stored
        fixed: dict[int, str] = {}
        # Loaded tiles take the input's name; their f32 compute form is <name>F32.
        for op in defs:
            if op.opname == "dma.load":
                fixed[id(op.result)] = camel(op.operands[0].name)
            elif _is_widen(op) and id(op.operands[0]) in param_of:
                fixed[id(op.result)] = camel(param_of[id(op.operands[0])]) + "F32"
        # A stored tile takes the output's name; the f32 value it was rounded from, <name>F32.
        by_id = {id(op.result): op.result for op in defs}
        for vid, outs in stored.items():
            value = by_id.get(vid)
            if value is None or vid in param_of:
                continue
            out = camel(outs[0])
            if _is_narrow(value.owner):
                fixed[vid] = out
                src = value.owner.operands[0]
                if id(src) not in param_of and camel(src.name) == out:
                    fixed[id(src)] = out + "F32"
            elif outs[0] in self.facts.narrowed and camel(value.name) == out:
                fixed[vid] = out + "F32"
        # A broadcast scalar is named after the scalar: its name does not depend on SSA numbering.
        for op in defs:
            if op.opname == "vec.dup" and id(op.result) not in fixed:
                fixed[id(op.result)] = _identifier(self.scalar_word(op.operands[0])) + "Vec"
        self.fixed = fixed
        self.widened_loads = {
            vid for vid, p in param_of.items() if p in self.facts.widened and by_id[vid].type.dtype == f32
        }
        self.skeys: dict[int, tuple] = {}
        self.loc_seen: dict[tuple, int] = {}
        chains = {}
        for op in defs:
            if id(op.result) not in fixed and not is_user_name(op.result.name):
                key = self.structural_key(op.result)
                chains[key] = self.chain_name(op, users, fixed)
        return chains

    def structural_key(self, v) -> tuple:
        """What an anonymous value computes, in terms of names every variant shares: the same
        expression gets the same name in the f16 and the f32 kernel whatever its SSA number."""
        vid = id(v)
        if vid in self.skeys:
            return self.skeys[vid]
        owner = v.owner
        if vid in self.widened_loads:  # an f32 tile read as the f32 form other variants widen to
            key = ("v", camel(owner.operands[0].name) + "F32")
        elif vid in self.fixed:
            key = ("v", self.fixed[vid])
        elif owner is None:
            key = ("p", v.name)
        elif isinstance(v.type, ScalarType):
            key = ("s", self.code.scalars.get(vid, v.name))
        elif owner.opname == "dma.load":
            key = ("v", camel(owner.operands[0].name))
        elif is_user_name(v.name):
            key = ("v", camel(v.name))
        elif owner.loc is not None:
            # The DSL sub-expression it comes from: the same in every variant, whatever the
            # operands became there (``gt`` is ``grad`` in one variant, ``-grad`` in another).
            attrs = tuple(sorted((k, str(x)) for k, x in owner.attrs.items() if k not in NAMING_IGNORES))
            base = ("at", owner.loc.line, owner.loc.col, owner.opname, attrs)
            k = self.loc_seen.get(base, 0)
            self.loc_seen[base] = k + 1
            key = (*base, k)
        else:
            attrs = tuple(sorted((k, str(x)) for k, x in owner.attrs.items() if k not in NAMING_IGNORES))
            key = (owner.opname, attrs, tuple(self.structural_key(o) for o in owner.operands))
        self.skeys[vid] = key
        return key

    def assign_names(self, chains: dict[tuple, str | None], temps: dict[tuple, str]) -> None:
        """Bind every tile value to its view; ``chains`` are the in-place names every variant
        agrees on, ``temps`` the numbered names of the other anonymous values (by what they compute)."""
        code = self.code
        for op in self.defs:
            vid = id(op.result)
            if vid in self.fixed:
                name = self.fixed[vid]
            elif is_user_name(op.result.name):
                name = camel(op.result.name)
            else:
                key = self.structural_key(op.result)
                name = chains.get(key) or temps[key]
            code.view_of[vid] = self.safe(name)
        order = sorted(self.defs, key=lambda op: id(op.result) not in self.fixed)  # fixed names first
        for op in order:
            code.view_of[id(op.result)] = self.bind(code.view_of[id(op.result)], op)
        for op in self.defs:
            if op.opname == "dma.load":
                code.anchors.setdefault(op.attrs["buf"], code.view_of[id(op.result)])
        for vid, outs in self.stored.items():
            op = next((op for op in self.defs if id(op.result) == vid), None)
            if op is not None:
                code.anchors.setdefault(op.attrs["buf"], camel(outs[0]))
        # Inputs some other variant widens: this variant's f32 tile gets the same compute alias.
        for op in self.defs:
            if op.opname == "dma.load":
                p = op.operands[0].name
                if p in self.facts.widened and op.result.type.dtype == f32:
                    code.use_of[id(op.result)] = self.bind(self.safe(camel(p) + "F32"), op)
        # Outputs some other variant narrows: this variant stores its f32 tile under the output name.
        for vid, outs in self.stored.items():
            for o in outs:
                if o in self.facts.narrowed and code.view_of.get(vid) != self.safe(camel(o)):
                    op = next((op for op in self.defs if id(op.result) == vid), None)
                    if op is not None and op.result.type.dtype == f32:
                        self.bind(self.safe(camel(o)), op, store_alias=vid)

    def chain_name(self, op: Op, users, fixed) -> str | None:
        """An anonymous value computed in place on its way to a named one takes that name."""
        cur = op
        for _ in range(64):
            uses = users.get(id(cur.result), [])
            if len(uses) != 1 or uses[0].result is None:
                return None
            nxt = uses[0]
            if "buf" not in cur.attrs:  # a register: two of them may feed one op, so never one name
                return None
            if nxt.attrs.get("buf") != cur.attrs.get("buf") or nxt.result.type.dtype != cur.result.type.dtype:
                return None
            if id(nxt.result) in fixed:
                return fixed[id(nxt.result)]
            if is_user_name(nxt.result.name):
                return camel(nxt.result.name)
            cur = nxt
        return None

    def bind(self, name: str, op: Op, store_alias: int | None = None) -> str:
        """Bind view ``name`` to ``op``'s buffer; a name another buffer holds gets a number."""
        dt = op.result.type.dtype
        if "buf" not in op.attrs:  # a register (RegBase): named like a view, in no buffer
            return self.bind_register(name, dt)
        buf = op.attrs["buf"]
        slotted = self.code.buffers[buf]["slots"] > 1
        views = self.code.views
        base, k = name, 2
        while name in views and (views[name].buffer, views[name].dtype) != (buf, dt):
            name, k = f"{base}{k}", k + 1
        if name not in views:
            views[name] = View(name, dt, buf, slotted)
        if store_alias is not None:
            self.code.__dict__.setdefault("store_as", {}).setdefault(store_alias, name)
        return name

    def bind_register(self, name: str, dt: DType) -> str:
        """A VF register's name: one name per (name, element type), never a view's name."""
        regs = self.code.registers
        base, k = name, 2
        while (name in regs and regs[name] != dt) or name in self.code.views:
            name, k = f"{base}{k}", k + 1
        regs[name] = dt
        return name

    def reg_ctype(self, dt: DType, value=None) -> str:
        """A register's element type in VF text: ``T`` for the variant's 16-bit or integer type
        (so the f16 and bf16 kernels share one VF), else the concrete type."""
        return "T" if dt == self.v.dtype and dt != f32 else ctype(dt)

    def rename_view(self, old: str, new: str) -> None:
        code = self.code
        view = code.views.pop(old)
        view.name = new
        code.views[new] = view
        for table in (code.view_of, code.use_of):
            for k, name in table.items():
                if name == old:
                    table[k] = new
        store_as = code.__dict__.get("store_as", {})
        for k, name in store_as.items():
            if name == old:
                store_as[k] = new

    def rename_scalar(self, old: str, new: str) -> None:
        code = self.code
        code.scalar_members[new] = code.scalar_members.pop(old)
        pattern = re.compile(rf"\b{re.escape(old)}(?!\w)")
        code.scalars = {k: pattern.sub(new, text) for k, text in code.scalars.items()}
        code.init = [dataclasses.replace(s, code=pattern.sub(new, s.code)) for s in code.init]
        code.resident = [dataclasses.replace(s, code=pattern.sub(new, s.code)) for s in code.resident]

    def view(self, v) -> str:
        return self.code.view_of[id(v)]

    def use(self, v) -> str:
        return self.code.use_of.get(id(v), self.code.view_of[id(v)])

    def stored_view(self, v, output: str) -> str:
        alias = self.code.__dict__.get("store_as", {}).get(id(v))
        if alias is not None and alias.startswith(self.safe(camel(output))):
            return alias
        return self.code.view_of[id(v)]

    def scalar(self, v) -> str:
        try:
            return self.code.scalars[id(v)]
        except KeyError:
            raise CompileError(f"scalar %{v.name} is not available inside the kernel") from None

    # -- Init: GM tensors and scalars -----------------------------------------------------------

    def render_init(self) -> None:
        code = self.code
        region = self.loop.region
        for op in region:
            if op.opname == "dma.load":
                code.gm[op.operands[0].name] = op.result.type.dtype
            elif op.opname == "dma.store":
                code.gm[op.attrs["output"]] = op.operands[0].type.dtype
        attrs = {n for n, _ in self.sig.attrs}
        for op in self.func.body:
            if op.opname == "loop.tiles" or op.opname.startswith("sync."):
                continue
            if op.opname == "vec.dup":
                self.render_resident(op)
                continue
            t = op.result.type
            if not isinstance(t, ScalarType):
                raise _fail(op, f"'{op.opname}' outside the tile loop must be scalar")
            self.render_scalar(op, attrs)

    def render_resident(self, op: Op) -> None:
        """A broadcast hoist-invariants made once per core: one 256-byte repeat in its own
        buffer, written by Duplicate in Init (after the buffers); tile ops read it with a repeat
        stride of 0 (``<Api>RepeatRhs/Lhs``)."""
        code = self.code
        dt = op.result.type.dtype
        c = ctype(dt)
        suffix = "" if c == "float" else _type_word(c)  # one member type per name across variants
        member = self.names.member(_identifier(self.scalar_word(op.operands[0])) + "Rep" + suffix)
        code.resident_members[member] = c
        code.view_of[id(op.result)] = member
        value = self.scalar_for(op.operands[0], dt, member)
        if self.resident_barrier:  # the barrier goes after the last broadcast
            del code.resident[-self.resident_barrier :]
        code.resident += self.vc.resident_broadcast(member, c, value, where(op))
        barrier = self.vc.barrier(where(op), note="the tiles read the broadcasts", weight=Stmt.weight)
        code.resident += barrier
        self.resident_barrier = len(barrier)

    def render_scalar(self, op: Op, attrs: set[str]) -> None:
        code = self.code
        name, t = op.opname, op.result.type
        if name == "const":
            value = op.attrs["value"]
            code.scalars[id(op.result)] = (
                float_literal(value) if t.dtype.is_float else f"static_cast<{t.dtype.cpp}>({int(value)})"
            )
            return
        rhs, member = self.scalar_rhs(op, attrs)
        if rhs is None:
            return
        member = self.names.member(member)
        code.scalar_members[member] = t.dtype
        code.scalars[id(op.result)] = member
        code.init.append(
            Stmt(f"{member} = {rhs};", dsl=where(self.reader(op) if op.opname == "scalar.load" else op))
        )

    def reader(self, op: Op) -> Op:
        """The first op that reads a Scalar input's value (through casts the passes added, which
        keep the parameter's location): its statement, not the ``def`` line, labels the read."""
        users = [u for u in self.func.walk() if op.result in u.operands]
        for u in users:
            if u.loc is not None and (op.loc is None or u.loc.line != op.loc.line):
                return u
        return next((r for r in (self.reader(u) for u in users if u.result is not None) if r is not None), op)

    def scalar_rhs(self, op: Op, attrs: set[str]) -> tuple[str | None, str]:
        name, t = op.opname, op.result.type
        code = self.code
        if name == "scalar.load":
            p = op.operands[0]
            # a Scalar of one dtype in every variant is spelled as that type (`float`, not the f32 kernel's T)
            c = ctype(p.type.dtype) if p.name in self.facts.fixed_scalars else self.ctype_text(p.type.dtype)
            read = f"LoadScalar<{c}>({gm_param(p.name)})"
            if p.name in self.facts.scalar_widened and p.type.dtype.is_float:
                only_widened = all(
                    u.opname == "cast" and u.result.type.dtype == f32
                    for u in self.func.walk()
                    if op.result in u.operands
                )
                if only_widened:  # the widening cast reads it, under the input's name
                    code.scalars[id(op.result)] = read
                    return None, ""
                return f"ToF32({read})", camel(p.name)
            return read, camel(p.name)
        if name == "attr":
            if op.attrs["name"] not in attrs:
                raise _fail(op, f"attribute '{op.attrs['name']}' is not in the tiling data")
            return f"static_cast<{t.dtype.cpp}>(tiling.{field_name(op.attrs['name'])})", camel(
                op.attrs["name"]
            )
        args = [self.scalar(v) for v in op.operands]
        words = [self.scalar_word(v) for v in op.operands]
        src = op.operands[0].owner if op.operands else None
        if name == "cast" and src is not None and src.opname == "scalar.load":
            user = camel(src.operands[0].name)  # the f32 form of a Scalar input keeps its name
        else:
            user = camel(op.result.name) if is_user_name(op.result.name) else None
        member = user or expression_name(name, words)
        member = member or f"scalar{op.result.name}"
        expr = scalar_expression(op, args)
        if expr is not None:
            return expr, member
        raise _fail(
            op,
            f"'{op.opname}' on scalars ({t}) is not supported on the scalar unit yet; "
            "compute it on a tensor or pass the value precomputed",
        )

    def scalar_word(self, v) -> str:
        expr = self.code.scalars.get(id(v), "")
        owner = v.owner
        if owner is not None and owner.opname == "const":
            from .naming import literal_word

            return literal_word(owner.attrs["value"])
        if expr.endswith("_"):
            return expr[:-1]
        if owner is not None and owner.opname == "cast" and owner.operands:
            return self.scalar_word(owner.operands[0])
        if owner is None:
            return camel(v.name)
        if owner.opname == "scalar.load":
            return camel(owner.operands[0].name)
        return f"s{v.name}"

    # -- the tile loop --------------------------------------------------------------------------

    def render_loop(self) -> None:
        code = self.code
        code.needs.has_compare = self.path == "membase" and any(
            op.opname in ("cmp", "where") for op in self.loop.region
        )
        before = self.func.body[: self.func.body.index(self.loop)]
        after = self.func.body[self.func.body.index(self.loop) + 1 :]
        # (the V barrier after resident broadcasts is part of ``resident``, in Init)
        code.pre = [
            self.sync(op, "pre-issue")
            for op in before
            if op.opname.startswith("sync.") and op.opname != "sync.barrier"
        ]
        code.post = [
            st for op in after if op.opname.startswith("sync.") for st in self.sync_stmts(op, "drain")
        ]
        code.body = _copy_outs(_quiet_paired_waits(self.render_body()))

    def dma_names(self, bufs: list[str], pipe: str) -> str:
        """What the DMA moves through ``bufs``: the inputs copied in (MTE2) or outputs copied out."""
        names = []
        for op in self.loop.region:
            if pipe == "MTE2" and op.opname == "dma.load" and op.attrs.get("buf") in bufs:
                names.append(camel(op.operands[0].name))
            if pipe == "MTE3" and op.opname == "dma.store":
                if op.operands[0].owner is not None and op.operands[0].owner.attrs.get("buf") in bufs:
                    names.append(camel(op.attrs["output"]))
        return ", ".join(dict.fromkeys(names)) or ", ".join(bufs)

    def sync_stmts(self, op: Op, role: str | None = None) -> list[Stmt]:
        """A flag, or the V -> V order a barrier op asks for (the vector code path spells it)."""
        if op.opname == "sync.barrier":
            return self.vc.barrier(where(op))
        return [self.sync(op, role)]

    def op_stmts(self, op: Op) -> list[Stmt]:
        return self.sync_stmts(op) if op.opname.startswith("sync.") else [self.render_op(op)]

    def sync(self, op: Op, role: str | None = None) -> Stmt:
        event, ident = op.attrs["event"], op.attrs["id"]
        src, dst = event.split("_")
        ident = {"slot": "slot", "slot+2": "slot + 2"}.get(ident, str(ident))
        fn = "SetFlag" if op.opname == "sync.set" else "WaitFlag"
        bufs = op.attrs.get("bufs", [])
        what = {
            "MTE2_V": "{} copied in",
            "V_MTE3": "{} computed",
            "V_MTE2": "slot of {} read",
            "MTE3_MTE2": "{} copied out",
            "MTE3_V": "{} copied out",
        }.get(event, "{}")
        pipe = "MTE2" if event in ("MTE2_V", "V_MTE2") else "MTE3"
        note = f"{src} -> {dst}: " + what.format(self.dma_names(bufs, pipe))
        return Stmt(f"{fn}<HardEvent::{event}>({ident});", note=note, dsl=where(op), weight=SYNC_WEIGHT)

    LOOP = "tile"  # what one run of the loop body is called in errors

    def render_op(self, op: Op) -> Stmt:
        name = op.opname
        if name.startswith("sync."):
            return self.sync(op)
        loc = where(op)
        if name == "dma.load":
            view = self.view(op.result)
            c = self.ctype_text(op.result.type.dtype, view)
            return Stmt(self.load_call(op, view, camel(op.operands[0].name) + "Gm_", c), dsl=loc)
        if name == "bcast.fill":
            tile = op.operands[0]
            gm = tile.owner.operands[0].name
            fill = "FillVf" if op.attrs.get("in_place") else "Fill"  # a VF reads resident rows in place
            call = f"{fill}({self.view(tile)}, {camel(gm)}Gm_, {self.sig.inputs.index(gm)}, len);"
            return Stmt(call, "V: splatted, replicated or column inputs", loc)
        if name == "dma.store":
            v, out = op.operands[0], op.attrs["output"]
            view = self.stored_view(v, out)
            c = self.ctype_text(v.type.dtype, view)
            return Stmt(self.store_call(v, view, camel(out) + "Gm_", c), dsl=loc)
        return self.vector(op)

    def render_body(self) -> list[Stmt]:
        """The loop body: DMA and flags in order, the V-pipe work between them (vector ops and V
        barriers under one guard) as ``Region``s the vector code path renders."""
        out: list[Stmt] = []
        items: list = []
        guard: str | None = None

        def flush() -> None:
            if items:
                first = items[0].op if isinstance(items[0], VecOp) else items[0]
                region = Region(list(items), guard=first if guard is not None else None, path=self.path)
                stmts = self.vcs[region.path].render_region(region, self)
                out.extend(self.guarded(guard, st) for st in stmts)
                items.clear()

        for op in self.loop.region:
            name = op.opname
            if name.startswith(("dma.", "bcast.")) or (name.startswith("sync.") and name != "sync.barrier"):
                flush()
                out.extend(self.guarded(self.guard_of(op), st) for st in self.op_stmts(op))
                continue
            if name != "sync.barrier" and not isinstance(op.result.type, TensorType):
                raise _fail(op, f"scalar op '{name}' inside the {self.LOOP} loop")
            if items and self.guard_of(op) != guard:
                flush()
            guard = self.guard_of(op)
            items.append(op if name == "sync.barrier" else self.vec_op(op))
        flush()
        return out

    def guard_of(self, op: Op) -> str | None:
        """The condition an op of the loop body runs under (the row kernel's chunk passes)."""
        return None

    def guarded(self, cond: str | None, st: Stmt) -> Stmt:
        return st

    def load_call(self, op: Op, view: str, gm: str, c: str) -> str:
        return f"DataCopyPad({view}, {gm}[t * TILE], {copy_params(c)}, {pad_params(c)});"

    def store_call(self, v, view: str, gm: str, c: str) -> str:
        return f"DataCopyPad({gm}[t * TILE], {view}, {copy_params(c)});"

    def vector(self, op: Op) -> Stmt:
        """A vector op alone (the vector code path renders it)."""
        return self.vc.op(self.vec_op(op), self)

    @property
    def path(self) -> str:
        """select-vector-path's choice for the tile loop (form-vector-functions may have revised it)."""
        return self.loop.attrs.get("vector_path", "membase")

    def vec_op(self, op: Op) -> VecOp:
        """A tile op over the tile's ``n`` elements, as the vector code path takes it."""
        dst = self.view(op.result)
        if op.attrs.get("reg"):
            out = Operand(dst, op.result.type.dtype, Form.REGISTER, value=op.result)
        else:
            outs = self.stored.get(id(op.result))
            ub = self.stored_view(op.result, outs[0]) if outs else dst  # the view the copy out reads
            out = Operand(
                dst, op.result.type.dtype, Form.TILE, self.view_types.get(dst), value=op.result, ub=ub
            )
        return VecOp(op, out, [self.operand(x) for x in op.operands], TILE_EXTENT)

    @property
    def needs(self) -> Needs:
        return self.code.needs

    def operand(self, x) -> Operand:
        """A tile op's source: a view (a resident broadcast: one repeat, read with stride 0) or a scalar."""
        if isinstance(x.type, ScalarType):
            return Operand("", x.type.dtype, Form.SCALAR, value=x)
        owner = x.owner
        if owner is not None and owner.attrs.get("reg"):
            return Operand(self.view(x), x.type.dtype, Form.REGISTER, value=x)
        resident = owner is not None and owner.opname == "vec.dup" and owner not in self.loop.region
        text = self.use(x)
        form = Form.REPEAT if resident else Form.TILE
        return Operand(text, x.type.dtype, form, self.view_types.get(text), value=x, ub=self.view(x))

    def typed_for(self, expr: str, dt: DType, view: str) -> str:
        """``expr`` as the element type of ``view``: written ``static_cast<T>`` when that is T."""
        if self.view_types.get(view) == "T":
            inner = expr
            if expr.startswith("static_cast<") and expr.endswith(")"):
                inner = expr[expr.index(">(") + 2 : -1]
            return f"static_cast<T>({inner})"
        return expr

    def scalar_for(self, v, dt: DType, view: str) -> str:
        """A scalar operand of a vector-scalar instruction, in the tile's element type."""
        owner = v.owner
        if owner is not None and owner.opname == "const":
            return self.typed_for(typed_literal(owner.attrs["value"], dt), dt, view)
        return self.scalar(v)

    # -- types ----------------------------------------------------------------------------------

    view_types: dict[str, str] = {}

    def ctype_text(self, dt: DType, view: str | None = None) -> str:
        if view is not None and view in self.view_types:
            return self.view_types[view]
        return "T" if dt == self.v.dtype else ctype(dt)

    def sizeof(self, dt: DType, view: str | None = None) -> str:
        return f"sizeof({self.ctype_text(dt, view)})"

    def render(self, view_types: dict[str, str]) -> VariantCode:
        """The tile loop's statements, once every variant's views are named and their C++ types
        agreed (``render_init`` ran first: view names use the scalars' names)."""
        self.view_types = view_types
        self.render_loop()
        return self.code


def _identifier(word: str) -> str:
    """A name part that can start a C++ identifier (a constant's word may be a number: ``5``)."""
    return word if word[:1].isalpha() or word[:1] == "_" else "k" + word


def _type_word(c: str) -> str:
    return {"T": "T", "float": "F32", "half": "F16", "bfloat16_t": "BF16"}.get(c, c.replace("_t", "").title())


def copy_params(c: str) -> str:
    """The per-tile DataCopyExtParams of elements of C++ type ``c`` (declared in ProcessTile)."""
    return "copy" + _type_word(c)


def pad_params(c: str) -> str:
    return "pad" + _type_word(c)


_STORE = re.compile(r"DataCopyPad\((\w+)\[t \* TILE\], (\w+), (\w+)\);")


def _copy_outs(body: list[Stmt]) -> list[Stmt]:
    """``SetFlag<V_MTE3>(id); WaitFlag<V_MTE3>(id); DataCopyPad(gm[t * TILE], tile, copy);`` is
    the kernel's ``CopyOut(gm, tile, copy, t, id)``: one line per output tile."""
    out: list[Stmt] = []
    for s in body:
        m = _STORE.fullmatch(s.code)
        if m and len(out) >= 2:
            st, wt = out[-2], out[-1]
            sm = re.fullmatch(r"SetFlag<HardEvent::V_MTE3>\((.+)\);", st.code)
            if sm and wt.code == f"WaitFlag<HardEvent::V_MTE3>({sm.group(1)});":
                gm, tile, copy = m.groups()
                out[-2:] = [
                    Stmt(f"CopyOut({gm}, {tile}, {copy}, t, {sm.group(1)});", st.note, st.dsl, s.weight)
                ]
                continue
        out.append(s)
    return out


def _quiet_paired_waits(body: list[Stmt]) -> list[Stmt]:
    """A WaitFlag right after its SetFlag needs no note of its own: the Set already says it."""
    out = []
    for s in body:
        prev = out[-1] if out else None
        if (
            prev is not None
            and s.code.startswith("WaitFlag")
            and prev.code.startswith("SetFlag")
            and prev.code[len("SetFlag") :] == s.code[len("WaitFlag") :]
        ):
            s = Stmt(s.code, None, s.dsl, s.weight)
        out.append(s)
    return out
