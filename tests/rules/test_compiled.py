"""The compiled engine (legalog.rules.backends.compiled): every construct the rule language admits
gives the reference engine's relations, and the generated code kept on disk is used only when it
is exactly what was written for these rule files."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from legalog.facts.store import FactStore
from legalog.rules import disk_cache
from legalog.rules.backends import compiled
from legalog.rules.engine import evaluate
from legalog.rules.language import FactError, RuleProgram
from tests.conftest import engine_alone

EVERY_CONSTRUCT = """# test: every construct of the rule language
+ colour('red')
+ colour('blue')
path(X, Y) <= edge(X, Y)
path(X, Y) <= path(X, Z) & edge(Z, Y)
even(X, Y) <= edge(X, Y) & edge(Y, Z) & (X != Z) & twin(X, Z)
twin(X, Z) <= edge(X, Y) & edge(Y, Z)
odd(X, Y) <= edge(X, Y)
odd(X, Y) <= even(X, Z) & edge(Z, Y)
even(X, Y) <= odd(X, Z) & edge(Z, Y)
loop(X) <= path(X, X)
node(X) <= edge(X, Y)
node(Y) <= edge(X, Y)
unreached(X, Y) <= node(X) & node(Y) & ~path(X, Y)
heavy(X, W) <= weight(X, W) & (W >= 10)
light(X, W) <= weight(X, W) & (W < 10) & (W > -5)
exact(X) <= weight(X, W) & (W == 7)
not_seven(X) <= weight(X, W) & (W != 7) & (W <= 100)
small(X) <= weight(X, W) & (W in (1, 2, 3))
picked(X, C) <= node(X) & (C in ('red', 'green')) & colour(C)
maths(X, A, B, C, D, E, F) <= weight(X, W) & (A == W + 3) & (B == W - 3) & (C == W * W) & (D == W // 4) & (E == W % 4) & (F == -W)
halved(X, H) <= weight(X, W) & (H == W // 2) & (W == H * 2 + 0)
paired(X, Y) <= weight(X, W) & weight(Y, W) & (X != Y)
(out_degree[X] == len_(Y)) <= edge(X, Y)
(total[X] == sum_(W, for_each=Y)) <= edge(X, Y) & weight(Y, W)
(value_sum[X] == sum_(W, for_each=W)) <= edge(X, Y) & weight(Y, W)
(lightest[X] == min_(W, order_by=W)) <= edge(X, Y) & weight(Y, W)
(heaviest[X] == max_(W, order_by=W)) <= edge(X, Y) & weight(Y, W)
(everyone['all'] == len_(X)) <= node(X)
busy(X, N) <= (out_degree[X] == N) & (N > 1)
total_over(X) <= (total[X] == T) & (T > 5)
"""
RULES = RuleProgram.from_texts({"every.pyd": EVERY_CONSTRUCT})
FACTS = {
    "edge": [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "d"), ("e", "a")],
    "weight": [("a", 7), ("b", 7), ("c", 12), ("d", -3), ("e", 2**70)],
}


def _both(facts: dict[str, list[tuple]]) -> dict[str, frozenset]:
    with engine_alone():
        got = evaluate(RULES, facts, "compiled")
    want = evaluate(RULES, facts, "pydatalog")
    assert {name: got[name] for name in want} == dict(want)
    return dict(got)


def test_every_construct_gives_the_reference_relations() -> None:
    d = _both(FACTS)
    cycle = {(x, y) for x in "abcd" for y in "abcd" if not (x == "d" and y != "d")}
    assert d["path"] == cycle | {("e", y) for y in "abcd"}  # recursion, left-linear
    assert d["loop"] == {("a",), ("b",), ("c",), ("d",)}
    assert ("a", "b") in d["odd"] and ("a", "c") in d["even"]  # recursion through two relations
    assert d["unreached"] >= {("a", "e"), ("d", "a")} and ("a", "d") not in d["unreached"]  # negation
    assert d["out_degree"] == {("a", 1), ("b", 1), ("c", 2), ("d", 1), ("e", 1)}
    assert d["total"] == {("a", 7), ("b", 12), ("c", 4), ("d", -3), ("e", 7)}  # per target id
    assert d["value_sum"] == {("a", 7), ("b", 12), ("c", 4), ("d", -3), ("e", 7)}
    assert d["lightest"] == {("a", 7), ("b", 12), ("c", -3), ("d", -3), ("e", 7)}
    assert d["heaviest"] == {("a", 7), ("b", 12), ("c", 7), ("d", -3), ("e", 7)}
    assert d["everyone"] == {("all", 5)}
    assert d["busy"] == {("c", 2)} and d["total_over"] == {("a",), ("b",), ("e",)}
    assert d["maths"] >= {("d", 0, -6, 9, -1, 1, 3), ("e", 2**70 + 3, 2**70 - 3, 2**140, 2**68, 0, -(2**70))}
    assert d["heavy"] == {("c", 12), ("e", 2**70)} and d["light"] == {("a", 7), ("b", 7), ("d", -3)}
    assert d["exact"] == {("a",), ("b",)} and d["paired"] == {("a", "b"), ("b", "a")}
    assert d["picked"] == {(x, "red") for x in "abcde"} and d["colour"] == {("red",), ("blue",)}
    assert d["halved"] == {("c", 6), ("e", 2**69)}  # even values only


def test_sum_adds_equal_values_of_distinct_ids_and_counts_a_value_once_per_tuple() -> None:
    d = _both({"edge": [("f", "s1"), ("f", "s2")], "weight": [("s1", 5), ("s2", 5)]})
    assert d["total"] == {("f", 10)}  # for_each=Y: two ids
    assert d["value_sum"] == {("f", 5)}  # for_each=W: the value once
    assert d["out_degree"] == {("f", 2)}


def test_empty_inputs_give_empty_relations_and_the_rule_files_facts() -> None:
    d = _both({})
    assert d["colour"] == {("red",), ("blue",)}
    assert all(not rows for name, rows in d.items() if name != "colour")


def test_a_selection_computes_only_what_its_outputs_read() -> None:
    part = evaluate(RULES, FACTS, "compiled", frozenset({"busy"}))
    assert part["busy"] == {("c", 2)} and "path" not in part
    with pytest.raises(KeyError):
        part["unreached"]


def test_what_the_rules_cannot_compute_is_answered_as_the_reference_answers() -> None:
    rules = RuleProgram.from_texts(
        {"d.pyd": "# t\nq(X, Q) <= a(X, N) & (Q == 7 // N)\nlt(X) <= a(X, N) & b(X, M) & (N < M)\n"}
    )
    # pyDatalog derives a row holding the exception (a value no rule of legalog's can meet)
    [(x, error)] = evaluate(rules, {"a": [("x", 0)]}, "compiled")["q"]
    assert x == "x" and isinstance(error, ZeroDivisionError)
    mixed = {"a": [("x", 1)], "b": [("x", "s")]}
    for engine in ("compiled", "pydatalog"):
        with pytest.raises(TypeError, match="not supported"):
            evaluate(rules, mixed, engine)


REACH = RuleProgram.from_texts(
    {
        "reach.pyd": "# t\nreach(X) <= start(X)\nreach(Y) <= reach(X) & hop(X, Y)\nfree(X) <= reach(X) & ~shut(X)\n"
    }
)


@pytest.mark.parametrize("hops", [[], [("a", "b"), ("b", "c"), ("c", "a")]])
def test_a_recursive_relation_whose_recursion_cannot_fire_is_computed_in_one_pass(hops: list[tuple]) -> None:
    facts = {"start": [("a",)], "hop": hops, "shut": [("c",)]}
    schedule = compiled._selection(REACH, None, REACH.firable(facts)).schedule
    assert any(step is not None for _, _, step in schedule) == bool(hops)  # a fixpoint only with hops
    with engine_alone():
        got = evaluate(REACH, facts, "compiled")
    want = evaluate(REACH, facts, "pydatalog")
    assert {name: got[name] for name in want} == dict(want)
    assert got["free"] == ({("a",), ("b",)} if hops else {("a",)})


def test_indexes_of_relations_whose_names_and_columns_read_alike_are_kept_apart() -> None:
    # `a` on columns (0, 1) reading 2, and `a_0` on column 1 reading 2: once both `i_a_0_1_2`
    rules = RuleProgram.from_texts({"n.pyd": "# t\np(Z, W) <= s(X, Y) & a(X, Y, Z) & a_0(V, Y, W)\n"})
    facts = {"s": [("x", "y")], "a": [("x", "y", "z")], "a_0": [("v", "y", "w")]}
    with engine_alone():
        assert evaluate(rules, facts, "compiled")["p"] == {("z", "w")}


def test_a_fact_store_is_read_as_its_rows_and_held_to_the_columns_the_rules_read() -> None:
    store = FactStore()
    for row in [("f", 0, "x"), ("f", 1, "y"), ("f", 1, "y")]:  # a row twice: one row of the answer
        store.add("param", *row)
    store.add("ref", "e", "x")
    rules = RuleProgram.from_texts({"s.pyd": "# t\nfirst(F, V) <= param(F, 0, V) & ref(E, V)\n"})
    got = evaluate(rules, store, "compiled")
    assert got == evaluate(rules, store.as_mapping(), "compiled") == evaluate(rules, store, "pydatalog")
    assert got["first"] == {("f", "x")} and got["param"] == {("f", 0, "x"), ("f", 1, "y")}
    narrow = RuleProgram.from_texts({"n.pyd": "# t\nseen(F) <= param(F, V)\n"})  # param has 3 columns
    with pytest.raises(FactError, match="columns"):
        evaluate(narrow, store, "compiled")


ids = st.sampled_from("abcdef")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(ids, ids), max_size=14),
    st.lists(st.tuples(ids, st.integers(-20, 20)), max_size=8, unique_by=lambda r: r[0]),
)
def test_drawn_facts_give_the_reference_relations(edges: list[tuple], weights: list[tuple]) -> None:
    _both({"edge": edges, "weight": weights})


# --------------------------------------------------------------------------- the code kept on disk


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEGALOG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "rules"


load_fresh = compiled.load.__wrapped__  # what a fresh process does (the per-process cache skipped)
CLOSURE = "# t\nreach(X, Y) <= edge(X, Y)\nreach(X, Y) <= reach(X, Z) & edge(Z, Y)\n"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_the_code_is_kept_beside_its_source_and_used_as_kept(folder: Path) -> None:
    rules = RuleProgram.from_texts({"c.pyd": CLOSURE})
    load_fresh(rules)
    files = _files(folder)
    assert sorted(Path(name).suffix for name in files) == [".code", ".py"]
    source = next(data for name, data in files.items() if name.endswith(".py"))
    assert compiled.source(rules).encode() in source
    load_fresh(rules)
    assert _files(folder) == files  # read, not written again


def test_a_changed_rule_file_is_compiled_again(folder: Path) -> None:
    load_fresh(RuleProgram.from_texts({"c.pyd": CLOSURE}))
    first = set(_files(folder))
    changed = RuleProgram.from_texts({"c.pyd": CLOSURE + "loop(X) <= reach(X, X)\n"})
    module = load_fresh(changed)
    assert set(_files(folder)) > first and len(_files(folder)) == 4
    assert any(changed.rules[i].head.relation == "loop" for i in module.rules)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # torn
        lambda data: data[:-10] + b"0123456789",  # corrupt: the checksum fails
        lambda data: b"",
    ],
)
def test_a_damaged_kept_code_is_compiled_again_not_run(folder: Path, damage) -> None:  # type: ignore[no-untyped-def]
    rules = RuleProgram.from_texts({"c.pyd": CLOSURE})
    load_fresh(rules)
    [code] = folder.glob("*.code")
    whole = code.read_bytes()
    code.write_bytes(damage(whole))
    module = load_fresh(rules)
    assert set(module.rules) == {0, 1}
    assert code.read_bytes() == whole  # rewritten
    assert evaluate(rules, {"edge": [("a", "b"), ("b", "c")]}, "compiled")["reach"] == {
        ("a", "b"),
        ("b", "c"),
        ("a", "c"),
    }


def _planted(marker: Path) -> bytes:
    return marshal.dumps(
        compile(f"open({str(marker)!r}, 'w').close()\nRULES = {{}}\nCOMPONENTS = ()", "x", "exec")
    )


def test_code_planted_without_the_checksum_is_not_run(folder: Path, tmp_path: Path) -> None:
    rules = RuleProgram.from_texts({"c.pyd": CLOSURE})
    load_fresh(rules)
    [code] = folder.glob("*.code")
    marker = tmp_path / "ran"
    head = code.read_bytes().split(b"\n", 2)  # magic line, key line, then the checksum and body
    code.write_bytes(head[0] + b"\n" + head[1] + b"\n" + b"0" * 64 + _planted(marker))
    assert set(load_fresh(rules).rules) == {0, 1}
    assert not marker.exists()


def test_code_in_a_folder_others_can_write_is_not_run(folder: Path, tmp_path: Path) -> None:
    rules = RuleProgram.from_texts({"c.pyd": CLOSURE})
    load_fresh(rules)
    [code] = folder.glob("*.code")
    marker = tmp_path / "ran"
    disk_cache.write_bytes(code.name.removesuffix(".code"), ".code", _planted(marker))  # a valid checksum
    os.chmod(folder, 0o777)
    try:
        assert set(load_fresh(rules).rules) == {0, 1}
    finally:
        os.chmod(folder, 0o700)
    assert not marker.exists()
