"""One C++ body for many kernel variants: statements every variant shares are written once, the
rest sit under ``if constexpr`` on the template parameters that select them.

Each variant (an element type and one value per static attribute) renders its own statement
list. ``merge`` aligns the lists (a weighted longest common subsequence, one variant at a time),
so each statement remembers the set of variants that execute it; ``blocks`` groups consecutive
statements with the same set; ``Space.condition`` turns a set into the shortest C++ condition
it can find (a union of cubes over the template parameters).

Every variant still executes exactly its own statements in its own order: the alignment only
decides which of them are printed once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Hashable, Sequence


@dataclass(frozen=True)
class Stmt:
    """One C++ statement of a variant: ``code`` without comment, an optional ``note`` (why the
    statement is there), and ``dsl`` the ``file.py:LINE`` it implements (the source map)."""

    code: str
    note: str | None = None
    dsl: str | None = None
    weight: int = 10  # how much aligning this statement is worth (barriers and flags: little)


@dataclass
class MergedStmt:
    stmt: Stmt
    variants: frozenset


def merge(lists: dict[Hashable, Sequence[Stmt]]) -> list[MergedStmt]:
    """Align the statement lists of all variants (keys: variant ids, in a stable order).

    Variants with identical lists (f16 and bf16 usually) are aligned once, as one."""
    groups: dict[tuple, list] = {}
    for vid, stmts in lists.items():
        groups.setdefault(tuple(s.code for s in stmts), []).append(vid)
    merged: list[MergedStmt] = []
    for key, vids in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        merged = _merge_one(merged, vids[0], list(lists[vids[0]]))
    expand = {vids[0]: frozenset(vids) for vids in groups.values()}
    return [MergedStmt(m.stmt, frozenset().union(*(expand[v] for v in m.variants))) for m in merged]


def _merge_one(merged: list[MergedStmt], vid, stmts: list[Stmt]) -> list[MergedStmt]:
    n, m = len(merged), len(stmts)
    # best[i][j]: weight of the best alignment of merged[i:] with stmts[j:]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        code_i = merged[i].stmt.code
        for j in range(m - 1, -1, -1):
            take = below[j + 1] + stmts[j].weight if code_i == stmts[j].code else -1
            row[j] = max(take, below[j], row[j + 1])
    out: list[MergedStmt] = []
    i = j = 0
    mine: list[MergedStmt] = []  # this variant's unmatched statements, flushed after the others'
    while i < n or j < m:
        if i < n and j < m and merged[i].stmt.code == stmts[j].code:
            if best[i][j] == best[i + 1][j + 1] + stmts[j].weight:
                out.extend(mine)
                mine = []
                out.append(MergedStmt(merged[i].stmt, merged[i].variants | {vid}))
                i, j = i + 1, j + 1
                continue
        if i < n and (j == m or best[i][j] == best[i + 1][j]):
            out.append(merged[i])
            i += 1
        else:
            mine.append(MergedStmt(stmts[j], frozenset({vid})))
            j += 1
    out.extend(mine)
    return out


@dataclass
class Block:
    variants: frozenset
    stmts: list[Stmt] = field(default_factory=list)


def blocks(merged: list[MergedStmt]) -> list[Block]:
    """Consecutive statements with the same variant set, as one block each."""
    out: list[Block] = []
    for ms in merged:
        if out and out[-1].variants == ms.variants:
            out[-1].stmts.append(ms.stmt)
        else:
            out.append(Block(ms.variants, [ms.stmt]))
    return out


@dataclass(frozen=True)
class Dim:
    """One template parameter: its C++ name and the C++ spelling of each value it takes."""

    name: str
    values: tuple  # the variant-side values (dtypes, bools, literal strings)
    spell: tuple  # C++ condition that holds for each value, e.g. "IS_HALF", "AMSGRAD", "!AMSGRAD"


# Space._candidates per (points, dims): the kernel writer builds many Space objects over the
# same variants (one per section), and the cubes of 6 dtypes x 3 values are costly to list.
_CANDIDATES: dict = {}


@dataclass
class Space:
    """The variants as points of a product space over template parameters."""

    dims: list[Dim]
    points: list[tuple] = field(default_factory=list)  # every variant, one value per dim

    def condition(self, subset: frozenset) -> str | None:
        """A C++ condition true exactly for ``subset`` among ``points``; None when it is all."""
        subset = frozenset(subset)
        everything = frozenset(self.points)
        if subset >= everything:
            return None
        if not subset:
            return "false"
        cubes = self._cover(subset, everything - subset)
        terms = [self._cube_text(c) for c in cubes]
        if len(terms) == 1:
            return terms[0]
        return " || ".join(f"({t})" if "&&" in t else t for t in terms)

    def _candidates(self) -> tuple[list, list]:
        """Every cube (one value subset per dim) with the points it holds, in a fixed order; the
        same for every condition of this space, so computed once per set of points."""
        key = (tuple(self.points), tuple(self.dims))
        cached = self.__dict__.get("_candidates_cache") or _CANDIDATES.get(key)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        choices = []
        for k, dim in enumerate(self.dims):
            present = sorted({p[k] for p in self.points}, key=dim.values.index)
            subsets = [
                frozenset(c) for r in range(1, len(present) + 1) for c in itertools.combinations(present, r)
            ]
            choices.append((subsets, frozenset(present)))
        cubes = []
        for combo in itertools.product(*(s for s, _ in choices)):
            members = {p for p in self.points if all(p[k] in combo[k] for k in range(len(combo)))}
            if members:
                constrained = sum(1 for k, s in enumerate(combo) if s != choices[k][1])
                cubes.append((combo, frozenset(members), constrained))
        self.__dict__["_candidates_cache"] = _CANDIDATES[key] = (key, choices, cubes)
        if len(_CANDIDATES) > 64:  # a few spaces per compiled op
            _CANDIDATES.pop(next(iter(_CANDIDATES)))
        return choices, cubes

    def _cover(self, inside: frozenset, outside: frozenset) -> list[tuple]:
        """Greedy cover of ``inside`` by cubes (one value subset per dim) that miss ``outside``."""
        choices, candidates = self._candidates()
        cubes = [c for c in candidates if not (c[1] & outside)]
        chosen, left = [], set(inside)
        while left:
            combo, members, _ = max(cubes, key=lambda c: (len(c[1] & left), -c[2], -self._cost(c[0])))
            chosen.append(tuple(None if combo[k] == choices[k][1] else combo[k] for k in range(len(combo))))
            left -= members
        return chosen

    def _cost(self, combo) -> int:
        return sum(len(s) for s in combo)

    def _cube_text(self, cube: tuple) -> str:
        parts = []
        for dim, allowed in zip(self.dims, cube):
            if allowed is None:
                continue
            present = [v for v in dim.values if any(p[self.dims.index(dim)] == v for p in self.points)]
            rest = [v for v in present if v not in allowed]
            if len(allowed) <= len(rest) or len(rest) == 0:
                alts = [dim.spell[dim.values.index(v)] for v in present if v in allowed]
                parts.append(alts[0] if len(alts) == 1 else "(" + " || ".join(alts) + ")")
            else:
                alts = [_negate(dim.spell[dim.values.index(v)]) for v in rest]
                parts.append(" && ".join(alts))
        return " && ".join(parts) if parts else "true"


def _negate(cond: str) -> str:
    if cond.startswith("!") and cond[1:].replace("_", "").isalnum():
        return cond[1:]
    if " == " in cond and "&&" not in cond and "||" not in cond:
        return cond.replace(" == ", " != ")
    return "!" + cond if cond.replace("_", "").isalnum() else f"!({cond})"
