"""Values clingo cannot hold as they are: integers beyond 32 bits (clingo's numbers wrap
silently), and strings with no C/UTF-8 form.  Nothing may reach it that would be mis-read.

Every case runs on both engines and must give the exact answer; the clingo backend's own cases
show how it stays exact (an opaque stand-in where rules only join, `Inexact` where they compute
or where a string cannot cross, and then the reference engine answers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.pipeline import analyze
from legalog.rules.backends import clingo
from legalog.rules.engine import ENGINES, evaluate
from legalog.rules.language import RuleLintError, RuleProgram

REPO = Path(__file__).resolve().parents[2]
NODE_LIMIT = (REPO / "tests" / "graph" / "cases" / "d08_node_limit_2000.py").read_text(encoding="utf-8")
ROW_SHIFT = (REPO / "examples" / "row_shift.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_launch_loop_of_2_to_the_32_plus_1_trips_is_gb108(engine: str) -> None:
    text = NODE_LIMIT.replace("pl.range(2000,", f"pl.range({2**32 + 1},")
    analysis = analyze(text, "big_loop.py", engine=engine)
    assert analysis.status == "rejected"
    assert [(d.code, d.message) for d in analysis.diagnostics] == [
        (
            "GB108",
            f"Graph function `layer` launches {2**32 + 1} tasks, over the runtime's per-graph limit of 1024",
        )
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_product_of_in_range_trip_counts_beyond_32_bits_is_counted_exactly(engine: str) -> None:
    # each trip count fits 32 bits; their product (the launches of the inner loop) does not
    t = "pl.Tensor[[128, 128], pl.FP32]"
    flat = (
        f"        for j__idx_v0, (c__iter_v2,) in pl.range(2000, init_values=(c__ssa_v0,)):\n"
        f'            c__ssa_v4: {t} = self.kadd(a__ssa_v0, c__iter_v2, attrs={{"arg_directions": [pl.adir.input, pl.adir.inout]}})\n'
        f"            c__rv_v3: {t} = pl.yield_(c__ssa_v4)\n"
        f"        return c__rv_v3\n"
    )
    nested = (
        f"        for k__idx_v0, (c__iter_v9,) in pl.range(65537, init_values=(c__ssa_v0,)):\n"
        f"            for j__idx_v0, (c__iter_v2,) in pl.range(65536, init_values=(c__iter_v9,)):\n"
        f'                c__ssa_v4: {t} = self.kadd(a__ssa_v0, c__iter_v2, attrs={{"arg_directions": [pl.adir.input, pl.adir.inout]}})\n'
        f"                c__rv_v3: {t} = pl.yield_(c__ssa_v4)\n"
        f"            c__rv_v8: {t} = pl.yield_(c__rv_v3)\n"
        f"        return c__rv_v8\n"
    )
    assert flat in NODE_LIMIT
    text = NODE_LIMIT.replace(flat, nested)
    analysis = analyze(text, "nested.py", engine=engine)
    assert [d.code for d in analysis.diagnostics] == ["GB108"]
    assert f"launches {65536 * 65537} tasks" in analysis.diagnostics[0].message


@pytest.mark.parametrize("engine", ENGINES)
def test_a_2_to_the_40_literal_prints_back_exactly(engine: str) -> None:
    text = ROW_SHIFT.replace("idx__ssa_v0 * 128", f"idx__ssa_v0 * {2**40}")
    analysis = analyze(text, "row_shift_big.py", engine=engine)
    assert analysis.status == "rewritten"
    printed = analysis.legalized_text() or ""
    assert f"base__graph_arg0: pl.Scalar[pl.INDEX] = i__idx_v0 * {2**40}" in printed
    assert analysis.derived is not None and ("shift/e2", 2**40) in analysis.derived["const_int"]


JOIN_ONLY = """# t: a column only joined on
same(X, N) <= a(X, N) & b(N)
"""
COMPUTE = """# t: columns computed with
double(X, M) <= a(X, N) & (M == N * 2)
big(X) <= a(X, N) & (N > 5)
(total[X] == sum_(N, for_each=Y)) <= c(X, Y, N)
"""


def test_an_integer_only_joined_on_crosses_clingo_as_an_opaque_value() -> None:
    rules = RuleProgram.from_texts({"join.pyd": JOIN_ONLY})
    facts = {"a": [("x", 3 * 10**9), ("y", -(2**40)), ("z", 7)], "b": [(3 * 10**9,), (-(2**40),), (8,)]}
    derived = clingo.evaluate(rules, facts)  # no fallback: clingo answers it exactly itself
    assert derived["same"] == {("x", 3 * 10**9), ("y", -(2**40))}
    assert derived == evaluate(rules, facts, "pydatalog")


@pytest.mark.parametrize(
    "facts",
    [
        {"a": [("x", 3 * 10**9)]},  # a fact beyond 32 bits where the rules compute
        {"a": [("x", 2**30)]},  # a product that leaves 32 bits
        {"c": [("g", "s1", 2**30), ("g", "s2", 2**30)]},  # a sum that leaves them
    ],
    ids=["fact", "product", "sum"],
)
def test_clingo_refuses_what_it_cannot_compute_and_the_engine_answers_exactly(facts: dict) -> None:
    rules = RuleProgram.from_texts({"compute.pyd": COMPUTE})
    with pytest.raises(clingo.Inexact):
        clingo.evaluate(rules, facts)
    assert evaluate(rules, facts, "clingo") == evaluate(rules, facts, "pydatalog")
    if "a" in facts:
        assert evaluate(rules, facts)["double"] == {("x", facts["a"][0][1] * 2)}
    else:
        assert evaluate(rules, facts)["total"] == {("g", 2**31)}


def test_floor_division_and_modulo_are_pythons_on_both_engines() -> None:
    rules = RuleProgram.from_texts({"div.pyd": "# t\nq(X, Q, R) <= a(X, N) & (Q == N // 4) & (R == N % 4)\n"})
    facts = {"a": [("neg", -7), ("pos", 7)]}
    for engine in ENGINES:
        assert evaluate(rules, facts, engine)["q"] == {("neg", -2, 1), ("pos", 1, 3)}


def test_a_rule_constant_beyond_32_bits_is_refused_for_both_engines() -> None:
    with pytest.raises(RuleLintError, match="does not fit 32 bits"):
        RuleProgram.from_texts({"c.pyd": f"# t\nbig(X) <= a(X, N) & (N > {2**31})\n"})


def test_strings_clingo_cannot_take_are_answered_exactly() -> None:
    rules = RuleProgram.from_texts({"s.pyd": "# t\nsame(X) <= a(X) & b(X)\n"})
    facts = {
        "a": [("nul\0inside",), ("lone \ud800",), ('quote " back \\ slash\nline',)],
        "b": [("nul\0inside",), ("lone \ud800",), ('quote " back \\ slash\nline',)],
    }
    with pytest.raises(clingo.Inexact):
        clingo.evaluate(rules, facts)
    assert evaluate(rules, facts)["same"] == frozenset(facts["a"])
    printable = {name: rows[2:] for name, rows in facts.items()}
    assert clingo.evaluate(rules, printable)["same"] == frozenset(printable["a"])


def test_a_loop_bound_past_32_bits_sends_only_the_rules_computing_with_it_to_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from legalog.extractor.lower import lower
    from legalog.ir.parser import parse
    from legalog.pipeline import pass_rules
    from legalog.rules import engine
    from legalog.rules.backends import pydatalog

    text = NODE_LIMIT.replace("pl.range(2000,", f"pl.range({2**31},")
    facts = lower(parse(text)).facts.as_mapping()
    rules = pass_rules()
    asked: list[frozenset[str]] = []
    real = pydatalog.evaluate
    monkeypatch.setattr(pydatalog, "evaluate", lambda r, f: asked.append(r.derived) or real(r, f))
    split = evaluate(rules, facts, "clingo")
    part = engine._wide_part(rules, facts, None)
    assert asked == [part]  # one reference evaluation, of the part alone
    assert part is not None and "node_count" in part and not part & {"varying_var", "const_loop", "hoistable"}
    whole = real(rules, facts)
    assert {name: split[name] for name in rules.relations} == {name: whole[name] for name in rules.relations}
