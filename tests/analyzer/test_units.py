"""Solving function by function answers exactly what solving the whole program at once does."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.analyzer.graph import graph_decisions, graph_diagnostics
from legalog.analyzer.spmd import decide_launches
from legalog.analyzer import units
from legalog.analyzer.units import solve_units
from legalog.extractor.lower import lower
from legalog.ir import parse_file
from legalog.rules.engine import RuleProgram, evaluate
from legalog.rules.programs import EXPLAIN_RULES
from tests.conftest import corpus_files

CASES = sorted((Path(__file__).resolve().parents[1] / "graph" / "cases").glob("*.py"))
PROGRAMS = [p for p in corpus_files() + CASES if not p.name.endswith(".expected.py")]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_units_agree_with_the_whole_program(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(units, "WHOLE_PROGRAM_MAX_FACTS", 0)  # split even the smallest program
    program = parse_file(path)
    lowering = lower(program)
    rules = RuleProgram.load(EXPLAIN_RULES)
    whole = evaluate(rules, lowering.facts.as_mapping())
    split = solve_units(lowering, rules)
    assert graph_decisions(program, lowering, split) == graph_decisions(program, lowering, whole)
    assert graph_diagnostics(program, lowering, split) == graph_diagnostics(program, lowering, whole)
    assert decide_launches(program, lowering, split) == decide_launches(program, lowering, whole)
    # every row about an orchestration-level function agrees (a kernel nothing orchestrates
    # directly is never part of a unit: its signature only matters to its callers)
    unit_names = set(lowering.signatures)

    def owned(rows: frozenset) -> set:
        return {r for r in rows if r and isinstance(r[0], str) and r[0].split("/", 1)[0] in unit_names}

    for relation in whole:
        assert owned(split[relation]) == owned(whole[relation]), relation
