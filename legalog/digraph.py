"""Strongly connected components of a directed graph, for the two places that need them: the rule
program's stratification (`rules.language`) and recursion in a program's call graph
(`analyzer.wellformed`).  A leaf module: it knows nothing of rules or IR."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def strongly_connected_components(
    nodes: Iterable[str], successors: Mapping[str, Sequence[str]]
) -> list[tuple[str, ...]]:
    """Tarjan's components, each sorted, in the order Tarjan closes them: a component comes after
    every component it reaches (dependencies first).  Iterative, so a deep chain never hits the
    recursion limit.  A successor that is not in `nodes` is ignored."""
    order = list(nodes)
    known = set(order)
    # filtered once: a node is revisited once per outgoing edge
    succ_of = {n: [s for s in successors.get(n, ()) if s in known] for n in order}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[tuple[str, ...]] = []
    for root in order:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            succ = succ_of[node]
            if i < len(succ):
                work.append((node, i + 1))
                nxt = succ[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                components.append(tuple(sorted(members)))
    return components
