"""The one strongly-connected-components routine that stratification and recursion share."""

from __future__ import annotations

from legalog.digraph import strongly_connected_components


def test_components_come_after_what_they_reach() -> None:
    graph = {"a": ["b"], "b": ["c", "a"], "c": ["c"], "d": ["a"], "e": []}
    components = strongly_connected_components(sorted(graph), graph)
    assert sorted(components) == [("a", "b"), ("c",), ("d",), ("e",)]
    position = {m: i for i, c in enumerate(components) for m in c}
    assert position["c"] < position["a"] < position["d"]  # dependencies first


def test_a_deep_chain_does_not_recurse_and_unknown_successors_are_ignored() -> None:
    chain = {f"n{i}": [f"n{i + 1}"] for i in range(50_000)}
    components = strongly_connected_components(chain, chain)  # n50000 is not a node: ignored
    assert len(components) == 50_000 and components[0] == ("n49999",)
