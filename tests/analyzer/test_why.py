"""`why` answers agree with the decisions, and every reason is a relation row."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

import legalog
from legalog.analyzer.explain import WhyError, _names
from legalog.analyzer.graph import plain_name
from legalog.pipeline import Analysis
from tests.conftest import GRAPH

HERE = Path(__file__).resolve().parent
INPLACE = HERE / "inplace_view.py"


@cache
def analysis_of(path: Path) -> Analysis:
    return legalog.analyze(path.read_text(encoding="utf-8"), str(path))


def graph_input(prog: str) -> Path:
    return GRAPH / f"{prog}.graph_input.py"


@pytest.mark.shared
def test_hoisted_scalar_matches_the_decision() -> None:
    a = analysis_of(graph_input("a01_row_shift"))
    graph = a.graphs[0]
    hoisted = {h.name for h in graph.hoisted if h.kind == "scalar"}
    assert hoisted, "a01 hoists a derived scalar"
    for name in hoisted:
        ex = a.explain(graph.function, plain_name(name))
        assert ex.verdict == "hoisted" and ex.var == name
        assert ("hoisted_scalar", (f"{graph.function}/{name}",)) in ex.evidence


@pytest.mark.shared
def test_removed_aliases_name_their_root() -> None:
    a = analysis_of(graph_input("a02_scalar_aliases"))
    for graph in a.graphs:
        for alias, root in graph.aliases:
            ex = a.explain(graph.function, alias)
            assert ex.verdict == "removed_alias"
            assert f"`{root}`" in ex.summary
            assert any(r == "alias_root" for r, _ in ex.evidence)


@pytest.mark.shared
def test_kept_invariant_scalars_say_why_they_are_safe() -> None:
    a = analysis_of(graph_input("a12_reject_mixed_offsets"))
    ex = a.explain("mixed_scalar", "rows")
    assert ex.verdict == "kept"
    assert ("kept_invariant", ("mixed_scalar/rows__ssa_v0",)) in ex.evidence
    assert any("tensor.dim of a boundary tensor" in r for r in ex.reasons)


@pytest.mark.shared
@pytest.mark.parametrize(
    ("prog", "function", "var", "reason"),
    [
        ("a12_reject_mixed_offsets", "mixed_scalar", "mix", "call"),  # GB118: tensor.dim blocks, lidx varies
        ("a11_reject_dynamic_control", None, None, None),
    ],
)
def test_rejected_scalars_name_the_blocking_leaf(
    prog: str, function: str | None, var: str | None, reason: str | None
) -> None:
    a = analysis_of(graph_input(prog))
    if function is None:
        rejected = [d for d in a.diagnostics if d.code == "GB118"]
        for d in rejected:
            assert a.explain(d.function, d.subject).verdict == "rejected"
        return
    ex = a.explain(function, var)
    assert ex.verdict == "rejected"
    blocking = [row for rel, row in ex.evidence if rel == "blocking"]
    assert blocking and blocking[0][2] == reason
    assert any(rel == "varying_leaf" and row[2] == "scalar_param" for rel, row in ex.evidence)
    assert any(d.startswith("GB118") for d in ex.diagnostics)


@pytest.mark.shared
@pytest.mark.parametrize(
    ("function", "blocking_reason", "varying_reason"),
    [("mixed_view", "loop_index", "scalar_param"), ("read_offset", "call", "opaque")],
)
def test_rejected_views_name_the_deciding_operand(
    function: str, blocking_reason: str, varying_reason: str
) -> None:
    a = analysis_of(graph_input("a12_reject_mixed_offsets"))
    ex = a.explain(function, "xv")
    assert ex.verdict == "rejected" and ex.kind == "view"
    assert ("moving_view", (f"{function}/xv__ssa_v0",)) in ex.evidence
    decided = [op for op in ex.operands if op["decided"]]
    assert len(decided) == 1 and not decided[0]["hoistable"] and not decided[0]["invariant"]
    assert any(rel == "blocking" and row[2] == blocking_reason for rel, row in ex.evidence)
    assert any(rel == "varying_leaf" and row[2] == varying_reason for rel, row in ex.evidence)


@pytest.mark.shared
def test_allocations_each_reason() -> None:
    a = analysis_of(graph_input("a11_reject_dynamic_control"))
    assert a.explain("alloc_dyn", "part__ssa_v0").summary.endswith("(GB110)")
    assert "(GB109)" in a.explain("alloc_loop", "junk__ssa_v0").summary
    hoisted = analysis_of(graph_input("a06_scratch_pingpong"))
    allocs = [(g.function, h.name) for g in hoisted.graphs for h in g.hoisted if h.kind == "alloc"]
    assert allocs and all(hoisted.explain(f, n).verdict == "hoisted" for f, n in allocs)


def test_views_through_in_place_calls_and_aliases() -> None:
    a = analysis_of(INPLACE)
    hoisted = a.explain("g", "yv")
    assert hoisted.verdict == "hoisted"
    text = "\n".join(hoisted.provenance)
    assert "a bare alias of" in text and "in-place call: `fill` returns its parameter 0" in text
    assert "parameter 0 of `g` (InOut)" in text
    assert ("inplace_edge", ("g/y__ssa_v1", "g/y__ssa_v0")) in hoisted.evidence
    kept = a.explain("g", "kv")
    assert kept.verdict == "kept"
    assert [op["decided"] for op in kept.operands] == [False, True]
    assert a.explain("g", "k").verdict == "kept"  # a constant-trip loop index


@pytest.mark.shared
def test_every_graph_value_gets_the_verdict_of_its_relation() -> None:
    """Across the corpus: a verdict is hoisted iff the value is in a hoist relation, kept iff in
    kept_invariant / kept_view / a left allocation without a diagnostic."""
    for path in sorted(GRAPH.glob("*.graph_input.py")):
        a = analysis_of(path)
        d = a.derived
        assert d is not None
        hoisted = {r[0] for rel in ("hoisted_scalar", "hoisted_view", "hoisted_alloc") for r in d[rel]}
        for fn in (f.name for f in a.program.functions if f.type == "Graph"):  # type: ignore[union-attr]
            for name in _names(a, fn):
                ex = a.explain(fn, name)
                vid = f"{fn}/{name}"
                assert (ex.verdict == "hoisted") <= (vid in hoisted), (path.name, name)
                assert (vid in hoisted) <= (ex.verdict in ("hoisted", "rejected")), (path.name, name)
                if ex.verdict == "kept":
                    assert any(
                        r in ("kept_invariant", "kept_view", "left_alloc", "loop_trip")
                        for r, _ in ex.evidence
                    )
                if ex.verdict == "removed_alias":
                    assert any(r[0] == f"{fn}/{name}" for r in d["scalar_alias"])


@pytest.mark.shared
def test_varying_leaf_explains_exactly_varying_expr() -> None:
    """rules/explain.pyd mirrors invariant.pyd: a reason exists exactly for the varying expressions."""
    for path in sorted(GRAPH.glob("*.graph_input.py")) + [INPLACE]:
        d = analysis_of(path).full_derived
        assert d is not None
        graph_exprs = {e for e, _g in d["graph_expr"]}
        varying = {e for (e,) in d["varying_expr"] if e in graph_exprs}
        assert varying == {e for e, _x, _w in d["varying_leaf"]}, path.name


@pytest.mark.shared
def test_names_with_and_without_ssa_suffixes_and_errors() -> None:
    a = analysis_of(graph_input("a01_row_shift"))
    fn = a.graphs[0].function
    name = next(h.name for h in a.graphs[0].hoisted)
    assert a.explain(fn, name).var == a.explain(fn, plain_name(name)).var == name
    with pytest.raises(WhyError, match="no variable"):
        a.explain(fn, "nonexistent_value")
    with pytest.raises(WhyError, match="no function") as err:
        a.explain(fn + "x", "base")
    assert fn in err.value.candidates


def test_ambiguous_names_list_candidates() -> None:
    a = analysis_of(INPLACE)
    with pytest.raises(WhyError, match="ambiguous") as err:
        a.explain("g", "d")
    assert set(err.value.candidates) >= {"d__ssa_v0", "d__ssa_v1", "d__ssa_v2"}


def test_a_non_graph_function_is_not_a_boundary() -> None:
    ex = analysis_of(INPLACE).explain("main", "y__ssa_v1")
    assert ex.verdict == "not_boundary" and "Orchestration" in ex.summary
