"""Values any integer width or string encoding would mis-read: integers beyond 32 and 64 bits,
strings with NUL characters, lone surrogates, quotes and line breaks.  Every case runs on every
engine and must give the exact answer (Python's integers and strings, as pyDatalog computes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.pipeline import analyze
from legalog.rules.engine import ENGINES, evaluate
from legalog.rules.language import RuleProgram

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


COMPUTE = """# t: columns computed with
double(X, M) <= a(X, N) & (M == N * 2)
big(X) <= a(X, N) & (N > 5)
(total[X] == sum_(N, for_each=Y)) <= c(X, Y, N)
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_integers_past_32_and_64_bits_are_exact(engine: str) -> None:
    rules = RuleProgram.from_texts({"compute.pyd": COMPUTE})
    facts = {"a": [("x", 3 * 10**9), ("y", 2**70)], "c": [("g", "s1", 2**62), ("g", "s2", 2**62)]}
    derived = evaluate(rules, facts, engine)
    assert derived["double"] == {("x", 6 * 10**9), ("y", 2**71)}
    assert derived["big"] == {("x",), ("y",)}
    assert derived["total"] == {("g", 2**63)}


def test_floor_division_and_modulo_are_pythons_on_both_engines() -> None:
    rules = RuleProgram.from_texts({"div.pyd": "# t\nq(X, Q, R) <= a(X, N) & (Q == N // 4) & (R == N % 4)\n"})
    facts = {"a": [("neg", -7), ("pos", 7)]}
    for engine in ENGINES:
        assert evaluate(rules, facts, engine)["q"] == {("neg", -2, 1), ("pos", 1, 3)}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_rule_constant_beyond_32_bits_is_exact(engine: str) -> None:
    rules = RuleProgram.from_texts({"c.pyd": f"# t\nbig(X) <= a(X, N) & (N > {2**31})\n"})
    assert evaluate(rules, {"a": [("x", 2**31), ("y", 2**31 + 1)]}, engine)["big"] == {("y",)}


@pytest.mark.parametrize("engine", ENGINES)
def test_strings_of_any_content_are_exact(engine: str) -> None:
    rules = RuleProgram.from_texts({"s.pyd": "# t\nsame(X) <= a(X) & b(X)\n"})
    strings = [("nul\0inside",), ("lone \ud800",), ('quote " back \\ slash\nline',)]
    assert evaluate(rules, {"a": strings, "b": strings[1:]}, engine)["same"] == frozenset(strings[1:])
