"""The two small graphs the passes need (dependency and interference), with networkx's
iteration order: nodes in insertion order, each node's neighbours in insertion order.

In-house rather than networkx: importing networkx costs about as much as compiling AdamW."""

from __future__ import annotations

from typing import Hashable, Iterable, Iterator


class DiGraph:
    def __init__(self) -> None:
        self._succ: dict[Hashable, dict[Hashable, dict]] = {}

    def add_edge(self, a: Hashable, b: Hashable, **data) -> None:
        self._succ.setdefault(a, {}).setdefault(b, {}).update(data)
        self._succ.setdefault(b, {})

    def __contains__(self, n: Hashable) -> bool:
        return n in self._succ

    def edges(self, data: bool = False) -> Iterator[tuple]:
        for a, out in self._succ.items():
            for b, d in out.items():
                yield (a, b, d) if data else (a, b)


class Graph:
    def __init__(self) -> None:
        self._adj: dict[Hashable, dict[Hashable, None]] = {}

    def add_nodes_from(self, nodes: Iterable[Hashable]) -> None:
        for n in nodes:
            self._adj.setdefault(n, {})

    def add_edge(self, a: Hashable, b: Hashable) -> None:
        self._adj.setdefault(a, {})[b] = None
        self._adj.setdefault(b, {})[a] = None

    def neighbors(self, n: Hashable) -> Iterator[Hashable]:
        return iter(self._adj[n])

    def __contains__(self, n: Hashable) -> bool:
        return n in self._adj
