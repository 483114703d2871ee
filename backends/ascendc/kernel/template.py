"""Assemble op_kernel/<op>.cpp: helpers, the kernel class template, and the entry.

Sections of the class (Init's GM views, scalars and buffers; Process's pre-issued and drained
flags; the per-tile views and body) are merged across variants one by one; whatever differs is
guarded by ``if constexpr`` on the template parameters. Per-variant numbers (the tile length,
buffer sizes) become ``constexpr`` conditional expressions.
"""

from __future__ import annotations

import dataclasses

import linecache
import os
import re
from dataclasses import dataclass
from typing import Hashable

from dsl.dtypes import DType, bf16, f16
from dsl.ir import AttrDecl, ScalarType

from ..cann import spelling
from ..writer import CodeWriter
from . import broadcast as bc
from .api import ctype
from .merge import Block, Dim, Space, Stmt, blocks, merge
from .naming import camel, pascal, gm_param
from .vector.regbase import name_vfs
from .vector.regbase_broadcast import helpers as regbase_broadcast_helpers
from .vector import vector_codes
from .variant import OpFacts, Signature, Variant, VariantCode, VariantRenderer, field_name, where

_FLAG = {"half": "IS_HALF", "float": "IS_FLOAT", "bfloat16_t": "IS_BF16", "int32_t": "IS_INT32"}


def dtype_flag(dt: DType) -> str:
    c = ctype(dt)
    return _FLAG.get(c, "IS_" + re.sub(r"[^A-Za-z0-9]", "", c).upper())


# C++ names of the generated kernel a static attribute's template parameter (its name upper-cased)
# or enum (its name in PascalCase) must not take (bcast seeds 2, 4, 7: a Literal attribute 'mode'
# became MODE, which the broadcast kernel's own BcMode MODE redeclared). Such a name, or one with
# the prefix (suffix) the renaming adds, gets it: ``mode`` -> ``ATTR_MODE``; ``bc_mode`` -> ``BcModeAttr``.
INTERNAL_PARAMS = frozenset(
    "T E MODE TILE GRANULE BLOCK ROWCAP ROWWISE RES_INPUT BUF_MASKS IDLE_ELEMS ROW_BYTES LANES PHASES "
    "PER_ROW COUNT_ALIGN CHUNK_ALIGN FOLD_LANES MAX_ROW_STEP UB_RESERVED ASSERT".split()
    # the helpers' own template parameters (rows fuzz seed 10028: a bool attribute 'op' became OP,
    # which `template <RowOp OP, typename U>` shadowed)
    + "OP VALUE_FIRST KIND MEAN U S P".split()
)
INTERNAL_PREFIXES = ("ATTR_", "BC_", "IS_", "DTYPE_", "K_")
INTERNAL_TYPES = frozenset(
    "BcMode BcScalar ReduceKind RowOp RowReduce HardEvent RoundMode CacheMode TPosition TPipe TBuf TQue LocalTensor "
    "GlobalTensor DataCopyExtParams DataCopyPadExtParams DataCopyParams IsSameType PipeBarrier SetFlag "
    "WaitFlag Duplicate DataCopy DataCopyPad CopyOut Elems Fill Init InitBroadcast Load LoadColumns "
    "LoadRows Loaded OneValue Process ProcessChunk ProcessStep ProcessTile ReduceChunk RoundUp "
    "RowBuf RowGap RowOffset Run ScratchLen SetCoreRows SetCoreSlice SetTile Slot SlotBlock SlotOf Splat "
    "Store".split()
)


def _hidden(attr: AttrDecl) -> bool:
    from .broadcast import SCALAR_INPUT  # compile.py's own attribute: users cannot take its name

    return attr.name == SCALAR_INPUT


def enum_name(attr: AttrDecl) -> str:
    name = pascal(attr.name)
    if _hidden(attr):
        return name
    if name in INTERNAL_TYPES or name.startswith("Kernel") or name.endswith("Attr"):
        return name + "Attr"
    return name


def enum_value(choice: str) -> str:
    v = re.sub(r"[^A-Za-z0-9]+", "_", choice).strip("_").upper()
    return v if v and not v[0].isdigit() else "V_" + v


def template_param(attr: AttrDecl) -> str:
    name = attr.name.upper()
    if _hidden(attr):
        return name
    if name in INTERNAL_PARAMS or name.startswith(INTERNAL_PREFIXES):
        return "ATTR_" + name
    return name


@dataclass
class KernelPlan:
    """Everything the class template is assembled from."""

    op_name: str
    op_type: str
    sig: Signature
    variants: list[Variant]
    codes: dict  # variant id -> VariantCode
    space: Space
    static_attrs: list[AttrDecl]
    dtype_macro: str | None  # DTYPE_<NAME> naming the binary's element type; None: the one dtype
    first_dtype: DType
    cann: str
    vector: dict  # the vector code paths by Region.path (vector.vector_codes)
    vfs: dict = dataclasses.field(default_factory=dict)  # RegBase: VF name -> regbase.VectorFunction

    @property
    def t_arg(self) -> str:
        """The class template's T in the entry: the macro, or the op's one dtype."""
        return self.dtype_macro or ctype(self.first_dtype)


def variant_id(v: Variant, static_attrs: list[AttrDecl]) -> tuple:
    return (v.dtype, *(v.bind[a.name] for a in static_attrs))


def build_space(variants: list[Variant], dtypes: tuple, static_attrs: list[AttrDecl]) -> Space:
    dims = [Dim("T", tuple(dtypes), tuple(dtype_flag(d) for d in dtypes))]
    for a in static_attrs:
        name = template_param(a)
        if a.kind == "bool":
            dims.append(Dim(name, (False, True), (f"!{name}", name)))
        else:
            e = enum_name(a)
            dims.append(
                Dim(name, tuple(a.choices), tuple(f"{name} == {e}::{enum_value(c)}" for c in a.choices))
            )
    return Space(dims, [variant_id(v, static_attrs) for v in variants])


def agree_view_types(renderers: list[VariantRenderer]) -> dict[str, str]:
    """One C++ element type per view name: a concrete type where every variant agrees, else T."""
    seen: dict[str, set] = {}
    for r in renderers:
        for name, view in r.code.views.items():
            seen.setdefault(name, set()).add((view.dtype, r.v.dtype))
    types = {}
    for name, pairs in seen.items():
        concrete = {ctype(dt) for dt, _ in pairs}
        if len(concrete) == 1 and not all(dt == t for dt, t in pairs):
            types[name] = concrete.pop()
        elif all(dt == t for dt, t in pairs):
            types[name] = "T"
        else:
            # Different values share an SSA number across variants: keep them apart by type (a
            # 16-bit value of the variant's element type keeps the name: it is T where it exists).
            for r in renderers:
                view = r.code.views.get(name)
                if view is not None and not (view.dtype == r.v.dtype and view.dtype in (f16, bf16)):
                    r.rename_view(name, name + _TYPE_WORD.get(ctype(view.dtype), "X"))
            return agree_view_types(renderers)
    return types


def agree_scalar_types(renderers: list[VariantRenderer]) -> None:
    """A scalar member is T, or one concrete type, in every variant. Where variants hold values of
    different types under one name, a type some variant holds other than its element type (an f32
    value in the bf16 variant) gets a member of its own (``s_`` -> ``sF32_``) used by every variant
    that holds that type; the variants that hold their own element type share the T member ``s_``
    (so the i8 and u8 variants' code is one text)."""
    seen: dict[str, set] = {}
    for r in renderers:
        for m, dt in r.code.scalar_members.items():
            seen.setdefault(m, set()).add((ctype(dt), ctype(r.v.dtype)))
    for m, pairs in seen.items():
        if len({c for c, _ in pairs}) == 1 or all(c == t for c, t in pairs):
            continue
        own = {c for c, t in pairs if c != t}  # held by a variant of another element type
        for r in renderers:
            dt = r.code.scalar_members.get(m)
            if dt is not None and ctype(dt) in own:
                r.rename_scalar(m, m[:-1] + _TYPE_WORD.get(ctype(dt), "X") + "_")


_TYPE_WORD = {
    "float": "F32",
    "half": "F16",
    "bfloat16_t": "Bf16",
    "uint8_t": "U8",
    "int8_t": "I8",
    "int32_t": "I32",
}


# The tile copies' DataCopy(Pad)ExtParams, named by variant.copy_params/pad_params after the
# element type (an input named ``padding`` or ``copy_x`` is no such name).
COPY_PARAMS = re.compile(r"\b(copy|pad)(T|F32|F16|BF16|Uint8|Int8|Int32)\b")


def every_binding(used: dict, variants, present: dict) -> dict:
    """A view's binding in every variant: its own where the variant uses it (``used``: variant ->
    (buffer, binding)), else the most common binding whose buffer the variant has (None if it
    has none): the constexpr conditional then has the fewest arms. Ties go in first-use order,
    so the text never depends on hash seeds."""
    ranked = sorted(dict.fromkeys(used.values()), key=lambda b: -sum(1 for x in used.values() if x == b))
    return {
        vid: used[vid][1] if vid in used else next((b[1] for b in ranked if b[0] in present[vid]), None)
        for vid in variants
    }


# -- buffers ----------------------------------------------------------------------------------


@dataclass
class CanonicalBuffer:
    name: str  # member name, e.g. mBuf_
    dma: bool
    holds: set


def canonical_buffers(codes: list[VariantCode]) -> tuple[list[CanonicalBuffer], list[dict]]:
    """Give buffers that hold the same views in different variants one member name."""
    canon: list[CanonicalBuffer] = []
    by_anchor: dict[str, CanonicalBuffer] = {}
    maps: list[dict] = []
    for code in codes:
        mapping: dict[str, CanonicalBuffer] = {}
        holds = {b: {v.name for v in code.views.values() if v.buffer == b} for b in code.buffers}
        # A buffer the DMA fills or drains is the buffer of that input/output in every variant.
        for b in sorted(code.buffers, key=lambda b: int(b[1:])):
            anchor = code.anchors.get(b)
            if anchor is None:
                continue
            best = by_anchor.get(anchor)
            if best is None or best in mapping.values():
                best = CanonicalBuffer("", True, set())
                canon.append(best)
                best.anchor = anchor
                by_anchor.setdefault(anchor, best)
            best.holds |= holds[b]
            mapping[b] = best
        rest = [b for b in code.buffers if b not in mapping]
        for b in sorted(rest, key=lambda b: (-len(holds[b]), int(b[1:]))):
            dma = code.buffers[b]["slots"] > 1
            free = [c for c in canon if c not in mapping.values() and not getattr(c, "anchor", None)]
            best = max(free, key=lambda c: (len(c.holds & holds[b]), c.dma == dma), default=None)
            if best is None or not (best.holds & holds[b]):
                best = CanonicalBuffer("", dma, set())
                canon.append(best)
            best.holds |= holds[b]
            best.dma = best.dma or dma
            mapping[b] = best
        maps.append(mapping)
    canon.sort(key=lambda c: not c.dma)  # DMA buffers first
    names: set[str] = set()
    for c in canon:
        candidates = _buffer_candidates(c, codes)
        if getattr(c, "anchor", None):
            candidates = [c.anchor] + candidates
        name = next((n for n in candidates if n not in names), None)
        k = 2
        while name is None or name in names:
            name, k = f"{candidates[0]}{k}", k + 1
        names.add(name)
        c.name = name + "Buf_"
    return canon, [{b: c.name for b, c in m.items()} for m in maps]


def _buffer_candidates(c: CanonicalBuffer, codes: list[VariantCode]) -> list[str]:
    """Names for a buffer, best first: the views it holds, in the order the variants define them."""
    order = []
    for code in codes:
        for view in code.views.values():
            if view.name in c.holds and view.name not in order:
                order.append(view.name)
    return [n for n in order if not n.startswith("tmp")] + ["tmp"]


# -- rendering ---------------------------------------------------------------------------------


class Emitter:
    def __init__(self, plan: KernelPlan):
        self.plan = plan
        self.w = CodeWriter()
        self.flags_used: set[str] = set()
        self.last_dsl: str | None = None
        self.compact = False  # a block of one statement as `if constexpr (c) statement;`

    def cond(self, subset) -> str | None:
        c = self.plan.space.condition(frozenset(subset))
        if c is not None:
            for flag in re.findall(r"\bIS_[A-Z0-9]+\b", c):
                self.flags_used.add(flag)
        return c

    def value_cases(self, values: dict) -> list[tuple[str | None, str]]:
        """``values[variant id]`` as (condition, value) pairs, each condition taken among the
        variants the earlier ones left; the most common value last, with no condition."""
        groups: dict[str, set] = {}
        for vid, val in values.items():
            groups.setdefault(str(val), set()).add(vid)
        ordered = sorted(groups.items(), key=lambda kv: len(kv[1]))
        remaining = set(values)
        cases: list[tuple[str | None, str]] = []
        for val, vids in ordered[:-1]:
            space = Space(self.plan.space.dims, sorted(remaining, key=self.plan.space.points.index))
            c = space.condition(frozenset(vids))
            for flag in re.findall(r"\bIS_[A-Z0-9]+\b", c or ""):
                self.flags_used.add(flag)
            cases.append((c, val))
            remaining -= vids
        return cases + [(None, ordered[-1][0])]

    def value_expr(self, values: dict) -> str:
        """A constexpr expression taking ``values[variant id]`` in each variant."""
        cases = self.value_cases(values)
        return "".join(f"{c} ? {val} : " for c, val in cases[:-1]) + cases[-1][1]

    def case_lines(self, values: dict, act: str = "return {};", default: bool = True) -> list[str]:
        """``values`` as one-line ``if constexpr (c) <act>;`` statements, no ``else`` (a chain with
        one would not stay one line a statement): ``return``s in order, the first that holds wins,
        the most common value last; an assignment ``act`` the most common value first (unless not
        ``default``: it is already there), then the others in reverse order, the last that holds
        wins (a condition need only hold on the variants no earlier case took)."""
        cases = self.value_cases(values)
        lines = [f"if constexpr ({_unwrap(c)}) {act.format(v)}" for c, v in cases[:-1]]
        if act.startswith("return "):
            return lines + [act.format(cases[-1][1])]
        return ([act.format(cases[-1][1])] if default else []) + lines[::-1]

    def constant(self, decl: str, values: dict, note: str | None = None, chain: bool = True) -> None:
        """``static constexpr <decl> = value;``, one conditional at most: three values or more are an
        if constexpr chain in a lambda evaluated at compile time (no nested ``?:``; with ``chain``,
        else a nested conditional: the flat kernels' tables, not reworked yet)."""
        if len(self.value_cases(values)) <= 2 or not chain:
            self.w.line(f"static constexpr {decl} = {self.value_expr(values)};", note)
            return
        ctype_ = decl.split()[0]
        self.w.line(f"static constexpr {decl} = []() -> {ctype_} {{", note)
        self.w.level += 1
        for line in self.case_lines(values):
            self.w.line(line)
        self.w.level -= 1
        self.w.line("}();")

    def section(self, lists: dict, *, scope_decls: dict | None = None) -> None:
        merged = merge(lists)
        self.render_blocks(blocks(merged))

    def render_blocks(self, bl: list[Block]) -> None:
        w = self.w
        everything = frozenset(self.plan.space.points)
        i = 0
        while i < len(bl):
            b = bl[i]
            c = self.cond(b.variants)
            if c is None:
                self.render_stmts(b.stmts)
                i += 1
                continue
            chain, union = [b], set(b.variants)
            while i + len(chain) < len(bl):
                nxt = bl[i + len(chain)]
                if nxt.variants & union or self.cond(nxt.variants) is None:
                    break
                chain.append(nxt)
                union |= nxt.variants
            if self.compact and all(
                len(b.stmts) == 1 and "\n" not in b.stmts[0].code and not b.stmts[0].code.startswith("if ")
                for b in chain
            ):
                # one statement per condition: `if constexpr (c) statement;` (source-map comments above)
                for k, blk in enumerate(chain):
                    one = blk.stmts[0]
                    if k == 0:
                        head = f"if constexpr ({c})"
                    elif k == len(chain) - 1 and union == everything:
                        head = "else"
                    else:
                        head = f"else if constexpr ({self.cond(blk.variants)})"
                    self.render_stmts([Stmt(f"{head} {one.code}", one.note, one.dsl, one.weight)])
                i += len(chain)
                continue
            for k, blk in enumerate(chain):
                last_else = k == len(chain) - 1 and k > 0 and union == everything
                if k == 0:
                    w.line(f"if constexpr ({self.cond(blk.variants)}) {{")
                elif last_else:
                    w.line("} else {")
                else:
                    w.line(f"}} else if constexpr ({self.cond(blk.variants)}) {{")
                w.level += 1
                self.render_stmts(blk.stmts)
                w.level -= 1
            w.line("}")
            i += len(chain)

    def render_stmts(self, stmts: list[Stmt]) -> None:
        for s in stmts:
            if self.compact and (_SYNC.match(s.code) or (s.dsl and _def_line(s.dsl))):
                # a flag or barrier (glue, not a DSL statement's start), or what the `def` line
                # stands for (the operator's Scalar inputs): no source-map comment of its own
                s = Stmt(s.code, s.note, None, s.weight)
            if s.dsl and s.dsl != self.last_dsl:
                self.w.line(comment=dsl_comment(s.dsl))
            if s.dsl:
                self.last_dsl = s.dsl
            self.w.line(s.code, s.note)


def _unwrap(cond: str) -> str:
    """``(a || b)`` -> ``a || b`` where the outer parentheses enclose the whole condition."""
    if not (cond.startswith("(") and cond.endswith(")")):
        return cond
    depth = 0
    for k, ch in enumerate(cond):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and k < len(cond) - 1:
            return cond
    return cond[1:-1]


_SYNC = re.compile(r"(if constexpr \(.*\) )?(SetFlag|WaitFlag|PipeBarrier)<")


def _def_line(label: str) -> bool:
    path, _, line = label.rpartition(":")
    return line.isdigit() and linecache.getline(path, int(line)).lstrip().startswith("def ")


def dsl_label(label: str) -> str:
    """``apply_adam_w.py:30`` of a source location ``/path/to/apply_adam_w.py:30``."""
    path, _, line = label.rpartition(":")
    return f"{os.path.basename(path)}:{line}"


def write_vector_functions(w: CodeWriter, vfs: dict) -> None:
    """Each RegBase VF (name -> ``regbase.VectorFunction``) as a ``__simd_vf__`` static member."""
    for name, vf in vfs.items():
        if vf.loc:
            w.line(comment=f"{dsl_comment(vf.loc)}: one element step per 256-byte vector register")
        w.line(f"__simd_vf__ static inline void {name}({', '.join(vf.params)})")
        w.line("{")
        w.level += 1
        for line in vf.lines:
            if line.endswith("}") and not line.strip().startswith("Reg"):
                w.level -= 1
                w.line(line.strip())
                continue
            code, _, comment = line.partition("  // ")
            w.line(code.strip(), comment or None)
            if code.endswith("{"):
                w.level += 1
        w.level -= 1
        w.line("}")


def dsl_comment(label: str) -> str:
    """``apply_adam_w.py:30  m_out = m * beta1 - (beta1 - 1) * gt``: the source map entry."""
    path, _, line = label.rpartition(":")
    text = linecache.getline(path, int(line)).strip() if line.isdigit() else ""
    # a trailing backslash (a Python line continuation) would continue the // comment over the
    # next C++ line: that code would be gone
    text = text.rstrip("\\").rstrip()
    return dsl_label(label) + (f"  {text}" if text else "")


def emit_kernel(
    op_name: str,
    op_type: str,
    variants: list[Variant],
    sig: Signature,
    header: str,
    dtypes: tuple,
    static_attrs: list[AttrDecl],
    dtype_input: str | None,
    cann: str,
    renderer=None,
    text=None,
    vector: dict | None = None,
) -> str:
    """``dtype_input``: the input or output whose ``DTYPE_<NAME>`` macro is T in CANN's build (None:
    no input or output has type T, and T is the op's one dtype). ``renderer``/``text``: the variant
    renderer and class-template writer (the elementwise ones by default; the row kernel passes its
    own); ``vector``: the vector code paths (``vector.vector_codes(target, cann)``)."""
    renderer = renderer or VariantRenderer
    vector = vector or vector_codes(cann=cann)
    text = text or KernelText
    facts = OpFacts.of(variants)
    facts.cann = cann
    renderers = [renderer(v, sig, facts, vector) for v in variants]
    for r in renderers:
        r.render_init()
    agree_scalar_types(renderers)
    proposals = [r.propose_names() for r in renderers]
    chains, temps = {}, {}
    for p in proposals:
        for key in p:
            if key not in chains:
                names = {q[key] for q in proposals if key in q}
                chains[key] = names.pop() if len(names) == 1 else None
            if chains[key] is None and key not in temps:
                temps[key] = f"tmp{len(temps)}"
    for r in renderers:
        r.assign_names(chains, temps)
    view_types = agree_view_types(renderers)
    codes = {variant_id(r.v, static_attrs): r.render(view_types) for r in renderers}
    vfs = name_vfs(codes, op_type)
    if bc.is_broadcast(variants):
        for code in codes.values():
            code.body = bc.rewrite_body(code.body, sig.inputs, sig.outputs)
    space = build_space(variants, dtypes, static_attrs)
    plan = KernelPlan(
        op_name,
        op_type,
        sig,
        variants,
        codes,
        space,
        static_attrs,
        "DTYPE_" + dtype_input.upper() if dtype_input is not None else None,
        dtypes[0],
        cann,
        vector,
        vfs,
    )
    return text(plan, view_types).text(header)


def bank_pads(items, tile: int) -> dict[str, int]:
    """Bytes to add after each buffer (in the order the kernel allocates them, 32-byte rounded from
    UB offset 0) so that every buffer plan-buffers gave a ``bank`` phase starts at it modulo 512:
    then the two sources of one instruction read disjoint bank groups."""
    pads: dict[str, int] = {}
    at, prev, shift = 0, None, None  # the phases are relative: the first phased buffer sets them
    for b, info in items:
        if "bank" in info:
            if shift is None:
                shift = (info["bank"] - at) % 512
            elif gap := (info["bank"] - at - shift) % 512:
                pads[prev] = gap
                at += gap
        at += (info["bytes"] * info["slots"] * tile + 31) // 32 * 32
        prev = b
    return pads


_FLAG_ID = re.compile(r"\b(?:SetFlag|WaitFlag)<HardEvent::(\w+)>\(([^)]*)\)")
MAX_MANUAL_ID = 5  # 6 is reserved, 7 belongs to TPipe


def free_event_id(stmts: list[Stmt], event: str, slots: int = 2) -> int:
    """The lowest manual event id no flag of ``event`` in ``stmts`` uses: a constant id, ``slot``
    (ids 0 .. slots - 1) or ``slot + K`` (K .. K + slots - 1)."""
    used: set[int] = set()
    for s in stmts:
        for ev, arg in _FLAG_ID.findall(s.code):
            if ev != event:
                continue
            arg = arg.replace(" ", "")
            m = re.fullmatch(r"slot(?:\+(\d+))?", arg)
            if arg.isdigit():
                used.add(int(arg))
            elif m:
                base = int(m.group(1) or 0)
                used.update(range(base, base + slots))
            else:
                raise AssertionError(f"event id {arg!r} of {event}: not a constant or slot id")
    free = [i for i in range(MAX_MANUAL_ID + 1) if i not in used]
    if not free:
        raise AssertionError(f"every manual id of {event} is taken by the loop")
    return free[0]


def load_scalar_helper(w) -> None:
    """``LoadScalar<S>(addr)``: a Scalar input's one element, read by the scalar unit."""
    w.line(comment="A Scalar input: one element in GM, read once per core by the scalar unit.")
    w.line("template <typename S>")
    with w.block("__aicore__ inline S LoadScalar(GM_ADDR addr)"):
        w.line("GlobalTensor<S> gm;")
        w.line("gm.SetGlobalBuffer((__gm__ S*)addr, 1);")
        w.line("return gm.GetValue(0);")
    w.line()


def to_f32_helper(w, cann: str) -> None:
    """``ToF32(value)``: a half/bfloat16_t scalar widened (the release's bf16 -> float spelling)."""
    w.line(comment="Scalars are computed in f32 (the DSL's numeric semantics).")
    w.line("template <typename S>")
    with w.block("__aicore__ inline float ToF32(S value)"):
        with w.block("if constexpr (IsSameType<S, bfloat16_t>::value)"):
            w.line(f"return {spelling('bf16_to_float', cann)}(value);")
        w.line("return static_cast<float>(value);")
    w.line()


class KernelText:
    ONE_LINE_DISPATCH = False  # the entry's tiling keys as `if (TILING_KEY_IS(k)) Run<...>(...);` lines

    def __init__(self, plan: KernelPlan, view_types: dict[str, str]):
        self.plan = plan
        self.view_types = view_types
        self.e = Emitter(plan)
        self.w = self.e.w
        self.vc = plan.vector["membase"]  # the vector code path of helpers and Init
        self.canon, maps = canonical_buffers(list(plan.codes.values()))
        self.bufmap = dict(zip(plan.codes, maps))
        self.bcast = bc.is_broadcast(plan.variants)
        if self.bcast and self.bcast_inputs():
            self.plan_rows()
            self.e.compact = True  # one-statement if constexpr blocks on one line (as the row kernels)

    @property
    def cls(self) -> str:
        return f"Kernel{self.plan.op_type}"

    def init_event_id(self, event: str) -> int:
        """The id of a set/wait pair Init issues once per core: one no flag of ``event`` in the
        loop takes, so the loop's first SetFlag never reuses an id whose last WaitFlag nothing
        orders before it (Init's V wait, say, before the first step's MTE2 set)."""
        stmts = [
            s
            for code in self.plan.codes.values()
            for part in ("pre", "post", "pre_fixed", "post_fixed", "body")
            for s in getattr(code, part, [])
        ]
        return free_event_id(stmts, event)

    def template_head(self) -> str:
        params = ["typename T"] + [f"typename {self.gm_type(n)}" for n in self.type_params()]
        for a in self.plan.static_attrs:
            params.append(("bool " if a.kind == "bool" else f"{enum_name(a)} ") + template_param(a))
        if self.bcast:
            params.append(bc.template_param())
        return f"template <{', '.join(params)}>"

    def template_args(self) -> str:
        types = [self.gm_type(n) for n in self.type_params()]
        return ", ".join(
            ["T"]
            + types
            + [template_param(a) for a in self.plan.static_attrs]
            + (["MODE"] if self.bcast else [])
        )

    def plan_rows(self) -> None:
        """RESIDENT modes, per variant and buffer: the inputs whose residency leaves it one row
        (``row_mask``) or unused (``idle_mask``: it only holds that input's tile, which is the
        resident row instead); per variant the longest row (``ROWCAP``) and the elements of a block
        of the buffers the DMA moves with input i resident (``BLOCK``; 0: mode not available)."""
        from ..host_broadcast import resident_bytes

        inputs = self.bcast_inputs()
        row_bytes = resident_bytes(len(inputs))
        self.row_mask: dict[tuple, int] = {}
        self.idle_mask: dict[tuple, int] = {}
        self.rowcap, self.blocks = {}, {}
        for vid, code in self.plan.codes.items():
            func = code.variant.func
            roles = bc.buffer_roles(func)
            mapping = self.bufmap[vid]
            loaded = self.loaded_views(code)
            for b in code.buffers:
                held = {v.name for v in code.views.values() if v.buffer == b}
                row = idle = 0
                for i, name, _ in inputs:
                    if bc.holds_one_row(roles[b], name):
                        row |= 1 << i
                    if held and all(loaded.get(n) == i for n in held):
                        idle |= 1 << i
                self.row_mask[(vid, mapping[b])] = row
                self.idle_mask[(vid, mapping[b])] = idle
            cap = bc.row_cap(func, row_bytes)
            budget = getattr(code.variant, "ub_budget", None) or code.tile * sum(
                b["bytes"] * b["slots"] for b in code.buffers.values()
            )
            budget += (len(inputs) - 1) * row_bytes  # one resident row buffer instead of one per input
            # A DMA buffer with one slot has no per-row view: no RESIDENT mode for the variant.
            single_dma = any(r[0] == 1 and (r[1] or r[2]) for r in roles.values())
            blocks = {}
            for i, _, _ in inputs:
                fixed = move_w = 0
                for b, info in code.buffers.items():
                    w = info["bytes"] * info["slots"]
                    key = (vid, mapping[b])
                    if (self.idle_mask[key] >> i) & 1:
                        fixed += bc.IDLE_ELEMS * w
                    elif (self.row_mask[key] >> i) & 1:
                        fixed += cap * w
                    else:
                        move_w += w
                block = (budget - fixed) // move_w // 256 * 256 if move_w and cap else 0
                blocks[i] = block if block >= cap and not single_dma else 0
            self.rowcap[vid], self.blocks[vid] = cap, blocks
            code.variant.row_blocks = (cap, blocks)  # the host's SplitSpec takes the same numbers

    def loaded_views(self, code: VariantCode) -> dict[str, int]:
        """View name -> input index of every view of a loaded input tile (the tile and its f32
        alias): in RESIDENT<i> the views of input i are the resident row."""
        index = {n: i for i, n in enumerate(self.plan.sig.inputs)}
        out = {}
        for op in code.variant.func.loop().region:
            if op.opname == "dma.load" and op.operands[0].name in index:
                for name in (code.view_of.get(id(op.result)), code.use_of.get(id(op.result))):
                    if name:
                        out[name] = index[op.operands[0].name]
        return out

    def buf_index(self, cname: str) -> int:
        return next(k for k, c in enumerate(self.canon) if c.name == cname)

    def buf_elems(self, vid, cname: str) -> str:
        return f"Elems({self.buf_index(cname)})"

    def buf_mask(self) -> None:
        """``BufMask(k)`` of canonical buffer k in every variant: bit i, one row when input i is
        resident; bit 16 + i, unused then (an if constexpr chain per buffer that has any)."""
        w = self.e.w
        w.line(
            comment="Per buffer k: bit i, it holds one row when input i is resident; bit 16 + i, it is unused then."
        )
        with w.block("static constexpr uint32_t BufMask(uint32_t k)"):
            w.line(f"uint32_t mask[{len(self.canon)}] = {{}};")
            for k, c in enumerate(self.canon):
                per = {
                    vid: f"0x{self.row_mask.get((vid, c.name), 0) | self.idle_mask.get((vid, c.name), 0) << 16:x}u"
                    for vid in self.plan.codes
                }
                if set(per.values()) == {"0x0u"}:
                    continue
                zero = self.e.value_cases(per)[-1][1] == "0x0u"  # the array starts at 0
                for line in self.e.case_lines(per, f"mask[{k}] = {{}};", default=not zero):
                    w.line(line)
            w.line("return mask[k];")

    def outputs_all_full(self) -> bool:
        """Every output has the broadcast shape in every call: one output, computed from every tensor
        input (numpy gives an output its own operands' shape; host_broadcast.output_inputs)."""
        from ..host_broadcast import output_inputs

        if len(self.plan.sig.outputs) != 1:
            return False
        for v in self.plan.variants:
            if v.bind.get(bc.SCALAR_INPUT, bc.TENSOR_CHOICE) != bc.TENSOR_CHOICE:
                continue  # a SCALAR twin runs the FLAT mode
            tensors = sum(
                1 << i for i, p in enumerate(v.func.params) if not isinstance(p.value.type, ScalarType)
            )
            if any(m not in (0, tensors) for m in output_inputs(v.func)):
                return False
        return True

    @property
    def rows_planned(self) -> bool:
        return hasattr(self, "row_mask")

    def bcast_inputs(self) -> list[tuple[int, str, str]]:
        """(index, name, C++ element type) of the tensor inputs a broadcast kernel copies in."""
        return [
            (i, n, self.gm_type(n))
            for i, n in enumerate(self.plan.sig.inputs)
            if any(n in code.gm for code in self.plan.codes.values())
        ]

    def bcast_byte_inputs(self) -> bool:
        """Some tensor input of a broadcast kernel has 1-byte elements in some variant."""
        inputs = set(self.plan.sig.inputs)
        return any(
            dt.bytes == 1 for code in self.plan.codes.values() for n, dt in code.gm.items() if n in inputs
        )

    def gm_args(self) -> list[str]:
        return [gm_param(n) for n in self.plan.sig.inputs + self.plan.sig.outputs]

    # -- the file -------------------------------------------------------------------------------

    def text(self, header: str) -> str:
        w = self.w
        for line in header.splitlines():
            w.line(comment=line)
        w.line('#include "kernel_operator.h"')
        w.line()
        w.line("using namespace AscendC;")
        w.line()
        macro = self.plan.dtype_macro
        if macro is not None:
            w.line(f"#ifndef {macro}", "CANN's op build defines it for each dtype combination of the op")
            w.line(
                f"#define {macro} {ctype(self.plan.first_dtype)}",
                "other builds (a syntax check) take the first",
            )
            w.line("#endif")
        for name in self.type_params():
            first = next(
                c.gm[name]
                for c in self.plan.codes.values()
                if name in c.gm and c.variant.dtype == self.plan.first_dtype
            )
            w.line(f"#ifndef DTYPE_{name.upper()}")
            w.line(f"#define DTYPE_{name.upper()} {ctype(first)}")
            w.line("#endif")
        w.line()
        for a in self.plan.static_attrs:
            if a.kind == "literal":
                values = ", ".join(f"{enum_value(c)} = {k}" for k, c in enumerate(a.choices))
                w.line(f"enum class {enum_name(a)} : uint32_t {{ {values} }};", f"attribute {a.name}")
                w.line()
        if self.bcast:
            for line in bc.enum_lines(len(self.plan.sig.inputs)):
                w.lines.append(line)
        self.helpers()
        body = CodeWriter()
        self.e.w = body
        self.klass()
        self.w = w
        self.e.w = w
        # Class-level constants only known once the body was written (the dtype flags it tests).
        for line in body.lines:
            if line.strip() == "@CONSTANTS@":
                pad = line[: len(line) - len(line.lstrip())]
                for flag_line in self.constant_lines():
                    w.lines.append(pad + flag_line)
            else:
                w.lines.append(line)
        w.line()
        self.entry()
        return w.text()

    def helpers(self) -> None:
        w = self.w
        scalars = any("LoadScalar<" in s.code for code in self.plan.codes.values() for s in code.init) or any(
            "LoadScalar<" in e for code in self.plan.codes.values() for e in code.scalars.values()
        )
        if scalars:
            load_scalar_helper(w)
        needs = [code.needs for code in self.plan.codes.values()]
        self.vc.helpers(w, needs, "free")
        self.plan.vector["regbase"].helpers(w, needs, "free")
        widen = any("ToF32(" in s.code for code in self.plan.codes.values() for s in code.init) or any(
            "ToF32(" in e for code in self.plan.codes.values() for e in code.scalars.values()
        )
        if widen:
            to_f32_helper(w, self.plan.cann)

    def constant_lines(self) -> list[str]:
        lines = []
        for d in self.plan.space.dims[0].values:
            flag = dtype_flag(d)
            if flag in self.e.flags_used:
                lines.append(f"static constexpr bool {flag} = IsSameType<T, {ctype(d)}>::value;")
        return lines

    # -- the class ------------------------------------------------------------------------------

    def klass(self) -> None:
        w = self.e.w
        plan = self.plan
        for line in self.class_comment():
            w.line(comment=line)
        w.line(self.template_head())
        with w.block(f"class {self.cls}", "};"):
            w.level -= 1
            w.line("public:")
            w.level += 1
            self.init()
            w.line()
            self.process()
            w.line()
            w.level -= 1
            w.line("private:")
            w.level += 1
            if self.bcast and self.bcast_inputs():
                bc.emit_helpers(
                    w,
                    plan.op_type,
                    self.bcast_inputs(),
                    self.vc,
                    self.init_event_id("MTE2_V"),
                    self.outputs_all_full(),
                    self.bcast_byte_inputs(),
                )
                if any("VfRows()" in s.code for c in plan.codes.values() for s in c.body):
                    regbase_broadcast_helpers(w)
            else:
                self.core_slice()
            w.line()
            self.tile()
            w.line()
            if self.vector_functions():
                w.line()
            if not (self.bcast and self.bcast_inputs()):
                self.copy_out()
                w.line()
            self.members()

    def key_list(self) -> str:
        """'key: attr=value, ...' of every tiling key, for the class comment."""
        return ", ".join(
            f"{v.key}: "
            + (
                ", ".join(f"{k}={str(x).lower() if isinstance(x, bool) else x}" for k, x in v.bind.items())
                or "-"
            )
            for v in self.plan.variants
            if v.dtype == self.plan.first_dtype
        )

    def class_comment(self) -> list[str]:
        plan = self.plan
        keys = self.key_list()
        if self.bcast and self.bcast_inputs():
            return [
                f"{plan.op_type}: the output is split across cores in 32-byte blocks (FLAT, SCALAR) or whole rows, and",
                "processed in tiles of bcTile elements (RESIDENT<i>: blocks of rows, the math row by row against",
                "the resident row); tiles alternate between two UB slots, MTE2, V and MTE3 ordered by SetFlag/WaitFlag,",
                f"reverse flags pre-issued and drained. Tiling keys (static attributes): {keys}.",
            ]
        slots = any(b["slots"] > 1 for code in plan.codes.values() for b in code.buffers.values())
        return [
            f"{plan.op_type}: the flat range is split into blocks of GRANULE elements across cores and processed in "
            f"tiles of TILE elements;",
            "tiles "
            + ("alternate between two UB slots (ping-pong), " if slots else "")
            + "GM -> UB copies (MTE2), vector math (V) and UB -> GM copies (MTE3) are ordered by",
            "SetFlag/WaitFlag, reverse flags pre-issued per slot and drained after the loop.",
            f"Tiling keys (static attributes): {keys}.",
        ]

    def per_variant(self, attr) -> dict:
        return {vid: attr(code) for vid, code in self.plan.codes.items()}

    def init(self) -> None:
        w = self.e.w
        plan = self.plan
        tiling = f"{plan.op_type}TilingData"
        body = CodeWriter()
        body.level = w.level + 1
        self.e.w = body
        body.line("SetCoreSlice(tiling);")
        self.e.section(self.per_variant(self.gm_stmts))
        self.e.section(self.per_variant(lambda c: c.init))
        if any("bank" in info for c in plan.codes.values() for info in getattr(c, "buffers", {}).values()):
            body.line(
                comment="Tile buffers. A `+ 256` starts the next buffer in the other UB bank groups, so the two "
                "sources of an instruction never share one (plan-buffers)."
            )
        self.e.section(self.per_variant(self.buffer_stmts))
        self.e.section(self.per_variant(lambda c: c.resident))
        if self.bcast and self.bcast_inputs():
            body.line("InitBroadcast();")
        self.e.w = w
        text = "\n".join(line.split("//", 1)[0] for line in body.lines)
        # An input no variant reads stays in the signature (the entry passes every GM address) unnamed.
        args = [
            f"GM_ADDR {a}" if re.search(rf"\b{a}\b", text) else f"GM_ADDR /*{a}*/" for a in self.gm_args()
        ]
        args.append(f"const {tiling}& tiling")
        with w.block(f"__aicore__ inline void Init({', '.join(args)})"):
            w.lines.extend(body.lines)

    def core_slice(self) -> None:
        w = self.e.w
        tiling = f"{self.plan.op_type}TilingData"
        w.line(
            comment="This core's slice: whole blocks of GRANULE elements, the first tailCores cores take one more."
        )
        with w.block(f"__aicore__ inline void SetCoreSlice(const {tiling}& tiling)"):
            w.line("const uint64_t core = static_cast<uint64_t>(GetBlockIdx());")
            w.line(
                "const uint64_t firstBlock = core * tiling.smallBlocks + (core < tiling.tailCores ? core : tiling.tailCores);"
            )
            w.line("const uint64_t blocks = tiling.smallBlocks + (core < tiling.tailCores ? 1 : 0);")
            w.line("const uint64_t start = firstBlock * GRANULE;")
            w.line("const uint64_t end = start + blocks * GRANULE;")
            w.line("const uint64_t stop = end < tiling.totalLength ? end : tiling.totalLength;")
            w.line("offset_ = start;")
            w.line("count_ = stop > start ? stop - start : 0;")
            w.line("tiles_ = (count_ + TILE - 1) / TILE;")

    def gm_stmts(self, code: VariantCode) -> list[Stmt]:
        out = []
        for name in self.plan.sig.inputs + self.plan.sig.outputs:
            if name not in code.gm:
                continue
            c = self.gm_type(name)
            if self.bcast and self.bcast_inputs():  # whole tensors: the modes index them absolutely
                sig = self.plan.sig
                out.append(bc.gm_stmt(name, c, sig.inputs.index(name) if name in sig.inputs else None))
                continue
            out.append(
                Stmt(f"{camel(name)}Gm_.SetGlobalBuffer((__gm__ {c}*){gm_param(name)} + offset_, count_);")
            )
        return out

    def gm_type(self, name: str) -> str:
        """T, one concrete type, or (a tensor whose type follows T but is not T, e.g. f16 for
        T = f16 and f32 for T = i32) a template parameter the entry binds to its DTYPE macro."""
        types = {(code.gm[name], code.variant.dtype) for code in self.plan.codes.values() if name in code.gm}
        if all(dt == t for dt, t in types):
            return "T"
        concrete = {ctype(dt) for dt, _ in types}
        if len(concrete) == 1:
            return concrete.pop()
        return pascal(name) + "Type"

    def type_params(self) -> list[str]:
        """The GM tensors whose element type is a template parameter of its own (see gm_type)."""
        names = self.plan.sig.inputs + self.plan.sig.outputs
        return [
            n
            for n in names
            if any(n in c.gm for c in self.plan.codes.values()) and self.gm_type(n) not in ("T", *_CTYPES)
        ]

    def buffer_stmts(self, code: VariantCode) -> list[Stmt]:
        mapping = self.bufmap[variant_id(code.variant, self.plan.static_attrs)]
        items = sorted(code.buffers.items(), key=lambda kv: mapping[kv[0]])
        pads = bank_pads(items, code.variant.func.loop().attrs["tile"])
        out = []
        for b, info in items:
            held = [v for v in code.views.values() if v.buffer == b]
            width = self.width_text(held, info["bytes"], code.variant.dtype)
            slots = f" * {info['slots']}" if info["slots"] > 1 else ""
            elems = (
                self.buf_elems(variant_id(code.variant, self.plan.static_attrs), mapping[b])
                if self.rows_planned
                else "TILE"
            )
            pad = f" + {pads[b]}" if b in pads else ""  # the next buffer starts in the other bank groups
            if pad and self.rows_planned:  # broadcast: TILE-sized buffers only (RESIDENT: rows, blocks)
                pad = f" + (ROWWISE ? 0 : {pads[b]})"
            out.append(Stmt(f"pipe_.InitBuffer({mapping[b]}, {elems}{slots} * {width}{pad});"))
        return out

    def width_text(self, held, nbytes: int, T: DType) -> str:
        types = {self.view_types.get(v.name) for v in held}
        for t in ("T", "float", "half", "bfloat16_t", "int32_t", "uint8_t", "int8_t"):
            if t in types and (t != "T" and _bytes(t) == nbytes or t == "T" and T.bytes == nbytes):
                return f"sizeof({t})"
        return str(nbytes)

    def process(self) -> None:
        w = self.e.w
        self.slots_declared = False
        with w.block("__aicore__ inline void Process()"):
            self.slot_flags("pre-issue", lambda c: c.pre)
            with w.block("for (uint64_t t = 0; t < tiles_; ++t)"):
                w.line("ProcessTile(t);")
            self.slot_flags("drain", lambda c: c.post[::-1])  # last pre-issued, first drained

    def slot_flags(self, role: str, part) -> None:
        """Reverse flags pre-issued (or drained) once per ping-pong slot: one loop over the ids."""
        lists = {}
        bases: set[int] = set()
        slots = max(
            len(c.buffers) and max(b["slots"] for b in c.buffers.values()) for c in self.plan.codes.values()
        )
        for vid, code in self.plan.codes.items():
            by_event: dict[str, list] = {}
            for s in part(code):
                m = re.match(r"(\w+)<HardEvent::(\w+)>\((\d+)\);", s.code)
                by_event.setdefault((m.group(1), m.group(2)), []).append((int(m.group(3)), s))
            stmts = []
            for (fn, event), items in by_event.items():
                ids = sorted(i for i, _ in items)
                notes = dict(sorted(items, key=lambda item: item[0]))
                for k in range(0, len(ids), slots):  # an id group per ``slots`` ids (insert-sync)
                    base = ids[k]
                    bases.add(base)
                    group = ids[k : k + slots]  # (a variant of fewer slots: one shorter group)
                    assert group == list(range(base, base + len(group))), ids
                    offset = f"id + {base}" if base else "id"
                    first = notes[base]
                    stmts.append(
                        (base > 0, Stmt(f"{fn}<HardEvent::{event}>({offset});", first.note, first.dsl))
                    )
            lists[vid] = [st for _, st in sorted(stmts, key=lambda x: x[0])]  # later id groups last
        if not any(lists.values()):
            return
        w = self.e.w
        bound = self.slot_bound(slots)
        if self.e.compact:  # the loop's comment on its line
            w.line(f"for (int32_t id = 0; id < {bound}; ++id) {{", f"{role} every slot's reverse flags")
            w.level += 1
            self.e.section(lists)
            w.level -= 1
            w.line("}")
            return
        with w.block(
            f"for (int32_t id = 0; id < {bound}; ++id)",
        ):
            w.line(comment=f"{role} every slot's reverse flags")
            self.e.section(lists)

    def slot_bound(self, slots: int) -> str | int:
        """How many slots' reverse flags Process pre-issues and drains: a core with one tile uses
        one slot (double buffering pays only with a next tile to overlap)."""
        if slots <= 1:
            return slots
        if not self.slots_declared:
            self.slots_declared = True
            if self.bcast and self.bcast_inputs():  # the host may choose one slot (host_broadcast.py)
                self.e.w.line(
                    "const int32_t slotsUsed = static_cast<int32_t>(tiles_ < slots_ ? tiles_ : slots_);",
                    "one tile: one slot",
                )
            else:
                self.e.w.line(
                    "const int32_t slotsUsed = tiles_ < 2 ? static_cast<int32_t>(tiles_) : 2;",
                    "one tile: flags for one slot",
                )
        return "slotsUsed"

    def tile(self) -> None:
        w = self.e.w
        plan = self.plan
        with w.block("__aicore__ inline void ProcessTile(uint64_t t)"):
            bodies = [s.code for code in plan.codes.values() for s in code.body]
            if not bodies:  # every output of every variant is absent (x if flag else None)
                w.line("(void)t;")
                return
            if self.bcast and self.bcast_inputs():
                w.line("const uint32_t len = SetTile(t);", "elements the vector math covers")
            else:
                w.line(
                    "const uint32_t len = static_cast<uint32_t>(t + 1 == tiles_ ? count_ - t * TILE : TILE);"
                )
            if any(re.search(r"\bn\b", code) for code in bodies):  # a pure copy has no vector op
                w.line("const int32_t n = static_cast<int32_t>(len);")
            if any(b["slots"] > 1 for code in plan.codes.values() for b in code.buffers.values()):
                w.line(
                    (
                        "const int32_t slot = SlotOf(t);"
                        if self.rows_planned
                        else "const int32_t slot = static_cast<int32_t>(t & 1);"
                    ),
                    "ping-pong slot: buffer half and event id",
                )
            if any(code.needs.has_compare for code in plan.codes.values()):
                w.line(
                    "[[maybe_unused]] const int32_t nAligned = static_cast<int32_t>((len + 255) / 256 * 256);",
                    "whole repeats",
                )
            self.copy_params()
            self.views()
            self.e.last_dsl = None
            self.e.section(self.per_variant(lambda c: c.body))

    def vector_functions(self) -> bool:
        """RegBase: each VF as a static member (asc_vf_call takes a free or static function; a
        member keeps the class's T and flags in scope); returns whether there were any."""
        write_vector_functions(self.e.w, self.plan.vfs)
        return bool(self.plan.vfs)

    def copy_out(self) -> None:
        w = self.e.w
        if not any(s.code.startswith("CopyOut(") for c in self.plan.codes.values() for s in c.body):
            return
        w.line(comment="One output tile to GM: MTE3 waits for V to finish the tile, then copies it out.")
        w.line("template <typename U>")
        with w.block(
            "__aicore__ inline void CopyOut(const GlobalTensor<U>& gm, const LocalTensor<U>& tile, "
            "const DataCopyExtParams& copy, uint64_t t, int32_t id)"
        ):
            w.line("SetFlag<HardEvent::V_MTE3>(id);", "V -> MTE3: the tile is computed")
            w.line("WaitFlag<HardEvent::V_MTE3>(id);")
            w.line("DataCopyPad(gm[t * TILE], tile, copy);")

    def copy_params(self) -> None:
        """One DataCopyExtParams per element type the tile's copies move: one contiguous run of
        the tile's bytes (DataCopyPad's blockLen is in bytes)."""
        w = self.e.w
        users: dict[str, set] = {}
        for vid, code in self.plan.codes.items():
            for s in code.body:
                for m in re.finditer(COPY_PARAMS, s.code):
                    users.setdefault(m.group(0), set()).add(vid)
        everywhere = set(self.plan.codes)
        for name in sorted(users, key=lambda n: (n.startswith("pad"), n)):
            word = name[4:] if name.startswith("copy") else name[3:]
            c = {"T": "T", "F32": "float", "F16": "half", "BF16": "bfloat16_t"}.get(word, word.lower() + "_t")
            unused = "" if users[name] == everywhere else "[[maybe_unused]] "
            if name.startswith("copy"):
                w.line(
                    f"{unused}const DataCopyExtParams {name}{{1, static_cast<uint32_t>(len * sizeof({c})), 0, 0, 0}};"
                )
            else:
                w.line(f"{unused}const DataCopyPadExtParams<{c}> {name}{{false, 0, 0, 0}};")

    def views(self) -> None:
        """Each tile value's LocalTensor, bound to its buffer; where variants bind it differently,
        a constexpr conditional picks the buffer (a variant that never uses the view takes any
        binding whose buffer it has)."""
        plan, w = self.plan, self.e.w
        order: list[str] = []
        bound: dict[str, dict] = {}
        present = {vid: set(self.bufmap[vid].values()) for vid in plan.codes}
        text = "\n".join(s.code for code in plan.codes.values() for s in code.body)
        stored = (
            bc.stored_views([s for code in plan.codes.values() for s in code.body]) if self.bcast else set()
        )
        for vid, code in plan.codes.items():
            mapping = self.bufmap[vid]
            loaded = self.loaded_views(code) if self.rows_planned else {}
            for view in code.views.values():
                if view.name not in order:
                    order.append(view.name)
                    if view.name in stored:
                        order.append(view.name + "Block")
                        self.view_types[view.name + "Block"] = self.view_types[view.name]
                t = self.view_types[view.name]
                buf = mapping[view.buffer]
                at = "[slot * TILE]" if view.slotted else ""
                binding = f"{buf}.Get<{t}>(){at}"
                if self.rows_planned and view.slotted:  # the modes decide a slot's offset
                    mask = str(self.buf_index(buf))
                    binding = f"Slot<{t}>({buf}, slot, {mask})"
                    if view.name in loaded:
                        binding = f"Loaded<{t}>({buf}, slot, {mask}, {loaded[view.name]})"
                    block = f"Slot<{t}>({buf}, slot, {mask}, true)"
                    if view.name in stored:
                        bound.setdefault(view.name + "Block", {})[vid] = (buf, block)
                elif view.name in stored:
                    bound.setdefault(view.name + "Block", {})[vid] = (buf, binding)
                bound.setdefault(view.name, {})[vid] = (buf, binding)
        partial: dict[Hashable, list[Stmt]] = {vid: [] for vid in plan.codes}
        declared: list[tuple[str, str, dict]] = []  # (name, C++ type, binding per variant)
        for name in order:
            if not re.search(rf"\b{re.escape(name)}\b", text):
                continue  # an output that is another output or an input: copied from that view
            used = bound[name]
            full = every_binding(used, plan.codes, present)
            decl = f"LocalTensor<{self.view_types[name]}> {name}"
            if None not in full.values():
                # one conditional at most: in terms of the views declared before it, else (three
                # bindings) assigned under if constexpr, one line per variant class
                value = in_terms_of(full, self.view_types[name], declared) if self.bcast else full
                declared.append((name, self.view_types[name], full))
                if value is None:
                    w.line(f"{decl};")
                    self.assign_by_variant(name, full)
                    continue
                w.line(f"{decl} = {self.e.value_expr(value)};")
                continue
            # Some variant has none of its buffers: declare, and bind where it is used.
            w.line(f"{decl};")
            for vid, (_, binding) in used.items():
                partial[vid].append(Stmt(f"{name} = {binding};"))
        self.e.render_blocks(blocks(merge(partial)))

    def assign_by_variant(self, name: str, values: dict) -> None:
        """``name = binding;`` under the condition of the variants that bind it so, one view at a
        time (the last class an ``else`` when it is all that is left)."""
        groups: dict[str, list] = {}
        for vid in self.plan.codes:
            if vid in values:
                groups.setdefault(values[vid], []).append(vid)
        remaining = list(self.plan.space.points)
        order = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        for k, (binding, vids) in enumerate(order):
            space = Space(self.plan.space.dims, remaining)
            cond = space.condition(frozenset(vids))
            for flag in re.findall(r"\bIS_[A-Z0-9]+\b", cond or ""):
                self.e.flags_used.add(flag)
            if cond is None:
                head = "else " if k else ""
            else:
                head = ("else " if k else "") + f"if constexpr ({cond}) "
            self.e.w.line(f"{head}{name} = {binding};")
            remaining = [p for p in remaining if p not in vids]

    def members(self) -> None:
        w = self.e.w
        plan = self.plan
        w.line("@CONSTANTS@")
        bcast = self.bcast and self.bcast_inputs()
        if not bcast:  # a broadcast kernel's is the tiling's bcTile
            self.e.constant(
                "uint32_t TILE",
                self.per_variant(lambda c: c.tile),
                "elements per tile (plan-buffers)",
                chain=False,
            )
        self.e.constant(
            "uint64_t GRANULE",
            self.per_variant(lambda c: c.granule),
            "elements per block: 512 B (flat) or 32 B (broadcast) of the narrowest GM tensor",
            chain=bool(bcast),
        )
        w.line("TPipe pipe_;")
        for c in self.canon:
            # DataCopyPad moves GM <-> VECIN/VECOUT on A2; vector-only scratch is VECCALC.
            w.line(f"TBuf<TPosition::{'VECIN' if c.dma else 'VECCALC'}> {c.name};")
        resident: dict[str, str] = {}
        for code in plan.codes.values():
            for m, c in code.resident_members.items():
                assert resident.setdefault(m, c) == c, (m, c, resident[m])
        for m, c in resident.items():
            w.line(f"TBuf<TPosition::VECCALC> {m[:-1]}Buf_;")
            w.line(f"LocalTensor<{c}> {m};", "a resident broadcast: one repeat")
        names = self.plan.sig.inputs + self.plan.sig.outputs
        for name in names:
            if any(name in code.gm for code in plan.codes.values()):
                w.line(f"GlobalTensor<{self.gm_type(name)}> {camel(name)}Gm_;")
        seen: dict[str, set] = {}
        for code in plan.codes.values():
            for m, dt in code.scalar_members.items():
                seen.setdefault(m, set()).add((ctype(dt), ctype(code.variant.dtype)))
        for m, pairs in seen.items():
            concrete = {c for c, _ in pairs}
            c = concrete.pop() if len(concrete) == 1 else "T"
            assert c != "T" or all(c == t for c, t in pairs), (m, pairs)
            w.line(f"{c} {m} = 0;")
        w.line("uint64_t offset_ = 0;")
        w.line("uint64_t count_ = 0;")
        w.line("uint64_t tiles_ = 0;")
        if self.bcast and self.bcast_inputs():
            from ..host_broadcast import resident_bytes

            w.line(
                "static constexpr int32_t RES_INPUT = static_cast<uint32_t>(MODE) >= "
                f"{len(bc.MODES)} ? static_cast<int32_t>(MODE) - {len(bc.MODES)} : -1;",
                "RESIDENT<i>: input i's row is resident",
            )
            w.line("static constexpr bool ROWWISE = RES_INPUT >= 0;", "vector math row by row")
            self.buf_mask()
            self.e.constant("uint32_t ROWCAP", self.rowcap, "elements of a one-row buffer (RESIDENT modes)")
            used = self.per_variant(
                lambda c: f"0x{sum(1 << i for i, n, _ in self.bcast_inputs() if n in c.gm):x}u"
            )
            self.e.constant(
                "uint32_t GM_INPUTS", used, "bit i: this variant reads input i (InitBroadcast reads no other)"
            )
            bc.members(w, plan.op_type, self.bcast_inputs(), resident_bytes(len(self.bcast_inputs())))

    # -- the entry ------------------------------------------------------------------------------

    def entry(self) -> None:
        w = self.w
        plan = self.plan
        tiling = f"{plan.op_type}TilingData"
        args = [f"GM_ADDR {a}" for a in self.gm_args()]
        keys = [v for v in plan.variants if v.dtype == plan.first_dtype]
        # With many tiling keys, one array of the GM addresses keeps each key's dispatch one line.
        bundled = len(keys) > 4
        w.line(self.template_head())
        params = ["GM_ADDR const* gm"] if bundled else args
        with w.block(f"__aicore__ inline void Run({', '.join(params + [f'const {tiling}& tiling'])})"):
            w.line(f"{self.cls}<{self.template_args()}> op;")
            gm = [f"gm[{k}]" for k in range(len(args))] if bundled else self.gm_args()
            w.line(f"op.Init({', '.join(gm + ['tiling'])});")
            w.line("op.Process();")
        w.line()
        entry_args = args + ["GM_ADDR workspace", "GM_ADDR tiling"]
        with w.block(f'extern "C" __global__ __aicore__ void {plan.op_name}({", ".join(entry_args)})'):
            w.line(
                "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);",
                "vector cores only: GetBlockIdx() is the AIV index",
            )
            w.line("(void)workspace;", "no user workspace (the host reserves the system's only)")
            w.line("GET_TILING_DATA(tilingData, tiling);")
            if bundled:
                w.line(f"GM_ADDR gm[] = {{{', '.join(self.gm_args())}}};", "the inputs and outputs, in order")
            call = ", ".join((["gm"] if bundled else self.gm_args()) + ["tilingData"])

            def targs_of(v) -> list[str]:
                targs = [plan.t_arg] + [f"DTYPE_{n.upper()}" for n in self.type_params()]
                for a in plan.static_attrs:
                    x = v.bind[a.name]
                    targs.append(
                        ("true" if x else "false") if a.kind == "bool" else f"{enum_name(a)}::{enum_value(x)}"
                    )
                return targs

            if self.bcast:
                resident = [i for i, _, _ in self.bcast_inputs()] if self.bcast_inputs() else []
                bc.dispatch(w, plan.variants, plan.first_dtype, call, targs_of, resident, plan.t_arg)
                return
            for k, v in enumerate(keys):
                targs = targs_of(v)
                if self.ONE_LINE_DISPATCH:  # one key holds: one `if` per key, one line each
                    w.line(f"if (TILING_KEY_IS({v.key})) Run<{', '.join(targs)}>({call});")
                    continue
                head = ("if" if k == 0 else "} else if") + f" (TILING_KEY_IS({v.key}))"
                w.line(head + " {")
                w.level += 1
                w.line(f"Run<{', '.join(targs)}>({call});")
                w.level -= 1
            if not self.ONE_LINE_DISPATCH:
                w.line("}")


def in_terms_of(full: dict, t: str, declared: list[tuple[str, str, dict]]) -> dict | None:
    """A view's value per variant, written with the views declared before it where it is one of them
    (``norm`` computed in place of ``xF32`` is ``norm = xF32``): the fewest distinct values, earlier
    names taking the variants they cover; None when that still takes three values (a nested
    conditional)."""
    names = [(n, f) for n, ct, f in declared if ct == t]
    best, score = dict(full), (len(set(full.values())), len(full))
    for k, (n1, f1) in enumerate(names):
        for n2, f2 in [(None, None)] + names[k + 1 :]:
            value = {}
            for v, b in full.items():
                value[v] = n1 if f1[v] == b else n2 if n2 is not None and f2[v] == b else b
            raw = sum(1 for v in full if value[v] == full[v])
            if (len(set(value.values())), raw) < score:
                best, score = value, (len(set(value.values())), raw)
    return best if score[0] <= 2 else None


_CTYPES = ("float", "half", "bfloat16_t", "int32_t", "uint8_t", "int8_t", "bool")


def _bytes(c: str) -> int:
    return {"float": 4, "half": 2, "bfloat16_t": 2, "int32_t": 4, "uint8_t": 1, "int8_t": 1}.get(c, 0)
