"""Engine layer: isolation, stratified evaluation, aggregates, lint traps, fact validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.rules.engine import evaluate
from legalog.rules.language import (
    Dependency,
    FactError,
    RuleLintError,
    RuleProgram,
    StratificationError,
    check_stratification,
    lint,
)

CLOSURE = """# test: left-recursive closure, negation over it
reach(X, Y) <= edge(X, Y)
reach(X, Y) <= reach(X, Z) & edge(Z, Y)
node(X) <= edge(X, Y)
node(Y) <= edge(X, Y)
unreach(X, Y) <= node(X) & node(Y) & ~reach(X, Y)
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / f"{name}.pyd").write_text(text)
    return tmp_path


def test_left_recursive_closure_and_negation_over_recursive_stratum(tmp_path: Path) -> None:
    rules = RuleProgram.load(["closure"], directory=write(tmp_path, "closure", CLOSURE))
    d = evaluate(rules, {"edge": [("a", "b"), ("b", "c"), ("c", "a"), ("d", "d")]})
    cycle = {(x, y) for x in "abc" for y in "abc"}
    assert d["reach"] == frozenset(cycle | {("d", "d")})
    assert d["unreach"] == frozenset({(x, "d") for x in "abc"} | {("d", x) for x in "abc"})
    # negation sits one stratum above the recursion it reads
    assert rules.strata == (("node", "reach"), ("unreach",))


def test_programs_are_isolated_back_to_back() -> None:
    rules = RuleProgram.from_texts({"closure.pyd": CLOSURE})
    first = evaluate(rules, {"edge": [("a", "b"), ("b", "c")]})
    second = evaluate(rules, {"edge": [("x", "y")]})
    assert first["reach"] == {("a", "b"), ("a", "c"), ("b", "c")}
    assert second["reach"] == {("x", "y")}
    assert second["node"] == {("x",), ("y",)}
    assert second["unreach"] == {("x", "x"), ("y", "x"), ("y", "y")}
    # a relation only the first program had is empty, not leaked, and unknown names stay unknown
    third = evaluate(rules, {})
    assert third["edge"] == frozenset() and third["reach"] == frozenset()
    # and the first program's answers are reproducible after the others ran
    assert evaluate(rules, {"edge": [("a", "b"), ("b", "c")]}) == first


def test_extra_input_relation_does_not_leak() -> None:
    rules = RuleProgram.from_texts({"x.pyd": "# t\np(X) <= q(X)\n"})
    d1 = evaluate(rules, {"q": [("a",)], "unused": [("z", 1)]})
    assert d1["unused"] == {("z", 1)}
    d2 = evaluate(rules, {"q": [("b",)]})
    assert "unused" not in d2 and d2["p"] == {("b",)}


def test_rule_file_facts_survive_reset() -> None:
    rules = RuleProgram.from_texts({"k.pyd": "# t\n+ arith('add')\nok(E) <= op(E, K) & arith(K)\n"})
    for _ in range(2):
        d = evaluate(rules, {"op": [("e1", "add"), ("e2", "load")]})
        assert d["ok"] == {("e1",)} and d["arith"] == {("add",)}


def test_aggregates_read_back_as_relations() -> None:
    text = """# t: aggregates
(launch_sum[F] == sum_(N, for_each=S)) <= launch(S, F) & weight(S, N)
(n_launch[F] == len_(S)) <= launch(S, F)
(heaviest[F] == max_(N, order_by=N)) <= launch(S, F) & weight(S, N)
launch_count(F, N) <= (launch_sum[F] == N) & (N > 2)
"""
    rules = RuleProgram.from_texts({"agg.pyd": text})
    d = evaluate(
        rules,
        {"launch": [("s1", "f"), ("s2", "f"), ("s3", "g")], "weight": [("s1", 2), ("s2", 2), ("s3", 1)]},
    )
    assert d["launch_sum"] == {("f", 4), ("g", 1)}  # equal weights counted per launch id
    assert d["n_launch"] == {("f", 2), ("g", 1)}
    assert d["heaviest"] == {("f", 2), ("g", 1)}
    assert d["launch_count"] == {("f", 4)}
    assert evaluate(rules, {})["launch_sum"] == frozenset()


def test_empty_relations_are_queryable() -> None:
    rules = RuleProgram.from_texts({"e.pyd": "# t\np(X) <= q(X) & ~r(X)\n"})
    d = evaluate(rules, {})
    assert d["p"] == d["q"] == d["r"] == frozenset()
    d = evaluate(rules, {"q": [("a",)]})  # r never given: treated as empty, no AttributeError
    assert d["p"] == {("a",)}
    assert d.sorted("p") == [("a",)]
    with pytest.raises(KeyError):
        d["typo"]


def test_int_and_str_columns_are_distinct_and_bools_rejected() -> None:
    rules = RuleProgram.from_texts({"c.pyd": "# t\nsame(X) <= a(X) & b(X)\n"})
    d = evaluate(rules, {"a": [(1,), ("1",), (2,)], "b": [("1",), (2,)]})
    assert d["same"] == {("1",), (2,)}
    assert d.sorted("a") == [(1,), (2,), ("1",)]
    for bad in [(True,), (1.0,), (None,), ((1, 2),)]:
        with pytest.raises(FactError, match="only str and int"):
            evaluate(rules, {"a": [bad]})
    with pytest.raises(FactError, match="columns"):
        evaluate(rules, {"a": [("x", "y")]})  # rules use a/1
    with pytest.raises(FactError, match="not a tuple"):
        evaluate(rules, {"a": ["x"]})


def test_stratification_error_on_negative_cycle() -> None:
    text = "# t\np(X) <= n(X) & ~q(X)\nq(X) <= n(X) & ~p(X)\n"
    with pytest.raises(
        StratificationError, match=r"recursion through negation: \w/1 depends negatively on \w/1"
    ):
        RuleProgram.from_texts({"cycle.pyd": text})
    with pytest.raises(StratificationError):
        check_stratification(
            ["p/1", "q/1"], [Dependency("p/1", "q/1", True), Dependency("q/1", "p/1", False)]
        )
    assert check_stratification(["p/1", "q/1"], [Dependency("p/1", "q/1", True)]) == (("q/1",), ("p/1",))


def test_recursion_through_aggregate_is_refused() -> None:
    text = "# t\n(s[X] == sum_(N, for_each=Y)) <= e(X, Y) & w(Y, N)\nw(Y, N) <= (s[Y] == N)\n"
    with pytest.raises(StratificationError):
        RuleProgram.from_texts({"aggcycle.pyd": text})


@pytest.mark.parametrize(
    ("rule", "needle"),
    [
        ("a(X) <= b(X), c(X)", "`,`"),
        ("a(X) <= b(X) and c(X)", "`and`/`or`"),
        ("a(X) <= b(X) & (not c(X))", "`not`"),
        ("a(X) <= ~c(X) & b(X)", "not bound by an earlier positive literal"),
        ("a(X) <= b(X) & ~c(X, Y)", "Y not bound"),
        ("id(X) <= b(X)", "built-in"),
        ("a(X) <= len(X)", "built-in"),
        ("a(X, N * 2) <= b(X, N)", "expression"),
        ("a(X, Y) <= b(X)", "only in the head"),
        ("a(X) <= b(X, N) & N > 3", "unparenthesised"),
        ("a(X) <= (N > 3) & b(X, N)", "before N is bound"),
        ("a(X, True) <= b(X)", "bools"),
        ("(s[X] == sum_(N)) <= b(X, N)", "for_each="),
        # one aggregate table: what the linter accepts is what the reader and the engines read
        ("(s[X] == concat_(N, order_by=N, sep=',')) <= b(X, N)", "no compiled counterpart"),
        ("(s[X] == mean_(N, for_each=N)) <= b(X, N)", "not an aggregate of the rule language"),
        ("a(X) <= b(X, _) & c(_, X)", "wildcard"),
        ("a(X) :- b(X)", "Prolog"),
        ("a(X) <= ~(b(X) & c(X))", "helper predicate"),
    ],
)
def test_lint_catches_trap(rule: str, needle: str) -> None:
    errors = lint(f"# header\n\n{rule}\n", "t.pyd")
    assert errors, rule
    assert any(needle in e.message for e in errors), [str(e) for e in errors]
    assert str(errors[0]).startswith("t.pyd:3: ")


def test_lint_accepts_guide_shapes() -> None:
    text = """# spec §3: shapes from PYDATALOG.md
under(R, R) <= binds(V, R)
under(R, S) <= under(R, M) & operand(M, I, S)
trip(L, N) <= loop(L, IV, Lo, Hi, St) & (N == (Hi - Lo + St - 1) // St)
mult(L, N) <= (trip(L, T) & in_loop(L, P)
               & mult(P, M) & (N == T * M))
outcome(V, 'hoist') <= hoistable(V)
outcome(V, keep) <= candidate(V) & ~hoistable(V)
(total[None] == len_(I)) <= item(G, I, V)
(argmin[G] == min_(I, order_by=V)) <= item(G, I, V)
launch_count(F, N) <= (launch_sum[F] == N) & ~unknown_launch(F)
small(X) <= size(X, N) & (N in (1, 2))
+ arith_kind('add')
"""
    assert lint(text, "ok.pyd") == []


def test_lint_requires_header_and_program_raises_with_locations(tmp_path: Path) -> None:
    assert any("header" in e.message for e in lint("p(X) <= q(X)\n", "h.pyd"))
    write(tmp_path, "bad", "# t\na(X) <= b(X), c(X)\n")
    with pytest.raises(RuleLintError, match=r"bad\.pyd:2: "):
        RuleProgram.load(["bad"], directory=tmp_path)


def test_arity_clash_is_an_error() -> None:
    with pytest.raises(Exception, match="used as"):
        RuleProgram.from_texts({"ar.pyd": "# t\np(X) <= q(X)\nr(X) <= q(X, Y)\n"})


def test_programs_are_cached_by_content(tmp_path: Path) -> None:
    write(tmp_path, "closure", CLOSURE)
    assert RuleProgram.load(["closure"], directory=tmp_path) is RuleProgram.load(
        ["closure.pyd"], directory=tmp_path
    )
    write(tmp_path, "closure", CLOSURE + "loop(X) <= reach(X, X)\n")
    assert "loop" in RuleProgram.load(["closure"], directory=tmp_path).derived


def test_two_programs_share_a_thread_without_interference() -> None:
    closure = RuleProgram.from_texts({"closure.pyd": CLOSURE})
    other = RuleProgram.from_texts({"o.pyd": "# t\nreach(X) <= edge(X, Y)\n"})  # same names, other arity
    a = evaluate(closure, {"edge": [("a", "b")]})
    b = evaluate(other, {"edge": [("x", "y")]})
    assert a["reach"] == {("a", "b")} and b["reach"] == {("x",)}
