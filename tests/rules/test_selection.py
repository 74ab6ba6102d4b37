"""Evaluating only what a program needs changes no answer.

The compiled engine runs only the rules the chosen passes read (`RuleProgram.closure`) that can fire over
the program's facts (`RuleProgram.firable`), and a pass with nothing to decide (no Graph or host
control tensor; no SPMD launch) evaluates and decides nothing.  Held here to the whole program's
answer on every corpus dump and golden case, relation by relation.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

import legalog.analyzer.verifier
import legalog.pipeline
from legalog.extractor.lower import FULL_BODY_KINDS, lower
from legalog.ir.parser import parse
from legalog.ir.ssa import version_program
from legalog.pipeline import analyze, pass_rules
from legalog.rules.engine import evaluate
from legalog.rules.language import RuleProgram
from legalog.rules.programs import GRAPH, RULES_OF, SPMD, VERIFIER_RULES, work
from tests.conftest import GRAPH as GRAPH_DIR
from tests.conftest import REPO, corpus_files, on_shared

CASES = REPO / "tests" / "graph" / "cases"
GOLDEN = sorted(p for p in CASES.glob("*.py") if not p.name.endswith(".expected.py"))
NOTHING_TO_DECIDE = REPO / "bench" / "dumps" / "nothing_to_decide.py"
LAUNCHES_ONLY = REPO / "examples" / "spmd_counts.py"  # corpus/graph/a09's SPMD position
GRAPH_ONLY = REPO / "examples" / "row_shift.py"  # corpus/graph/a01's Graph position


def _facts(path: Path) -> Mapping[str, list[tuple]]:
    program, _ = version_program(parse(path.read_text(encoding="utf-8"), str(path)), FULL_BODY_KINDS)
    return lower(program).facts.as_mapping()


@pytest.mark.parametrize("path", on_shared(corpus_files()) + GOLDEN, ids=lambda p: p.name)
def test_each_pass_alone_derives_what_the_whole_program_does(path: Path) -> None:
    facts = _facts(path)
    rules = pass_rules()
    whole = evaluate(rules, facts, "compiled")
    for outputs in (GRAPH.outputs(rules), SPMD.outputs(rules), GRAPH.outputs(rules) | SPMD.outputs(rules)):
        part = evaluate(rules, facts, "compiled", outputs)
        closure = rules.closure(outputs)
        assert outputs <= closure <= rules.derived
        for name in closure:
            assert part[name] == whole[name], (
                f"{path.name}: {name} differs when only {sorted(outputs)[:3]}... are asked for"
            )
        for name in rules.derived - closure:
            assert name not in part  # not computed, so not answered: reading it is a KeyError


@pytest.mark.shared
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_a_rule_left_out_derives_nothing(path: Path) -> None:
    facts = _facts(path)
    rules = RuleProgram.load(VERIFIER_RULES)
    whole = evaluate(rules, facts, "compiled")
    fired = {rules.rules[i].head.relation for i in rules.firable(facts)}
    assert {name for name in rules.derived if whole[name]} <= fired
    # and the pruning is real: every corpus dump lacks a Graph or a launch or an allocation...
    assert fired < rules.derived


@pytest.mark.shared
def test_the_passes_with_work_follow_the_facts() -> None:
    rules = pass_rules()
    assert work(rules, _facts(NOTHING_TO_DECIDE), RULES_OF).passes == frozenset()
    assert work(rules, _facts(LAUNCHES_ONLY), RULES_OF).passes == {"spmd"}
    assert work(rules, _facts(GRAPH_ONLY), RULES_OF).passes == {"graph"}
    assert work(rules, _facts(GRAPH_DIR / "a14_manual_graph_barrier.graph_input.py"), RULES_OF).passes == {
        "graph",
        "spmd",
    }
    assert work(rules, _facts(GRAPH_DIR / "a14_manual_graph_barrier.graph_input.py"), ("spmd",)).passes == {
        "spmd"
    }


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[frozenset[str] | None]:
    """The `outputs` of every engine evaluation the pipeline and the verifier ask for."""
    asked: list[frozenset[str] | None] = []

    def record(rules, facts, engine=None, outputs=None, firable=None):  # type: ignore[no-untyped-def]
        asked.append(outputs)
        return evaluate(rules, facts, engine, outputs, firable)

    monkeypatch.setattr(legalog.pipeline, "evaluate", record)
    monkeypatch.setattr(legalog.analyzer.verifier, "evaluate", record)
    return asked


def test_a_program_with_nothing_to_decide_evaluates_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _recording(monkeypatch)
    analysis = analyze(NOTHING_TO_DECIDE.read_text(encoding="utf-8"), str(NOTHING_TO_DECIDE))
    assert analysis.status == "legal" and not analysis.graphs and not analysis.launches
    assert asked == []
    assert analysis.derived is not None and "function" in analysis.derived  # the facts are still at hand
    with pytest.raises(KeyError):
        analysis.derived["hoisted_scalar"]


def test_a_program_with_launches_only_evaluates_no_graph_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _recording(monkeypatch)
    analysis = analyze(LAUNCHES_ONLY.read_text(encoding="utf-8"), str(LAUNCHES_ONLY))
    assert analysis.status == "rewritten" and [d.outcome for d in analysis.launches] == [
        "guarded",
        "proven",
        "proven",
    ]
    rules = pass_rules()
    assert asked == [
        SPMD.outputs(rules),
        SPMD.outputs(RuleProgram.load(VERIFIER_RULES)),
    ]  # the pass, then the verifier
    assert not rules.closure(SPMD.outputs(rules)) & {"hoisted_scalar", "varying_var", "node_count"}
