"""Solve a program one orchestration-level function at a time.

pyDatalog's cost grows faster than linearly with the facts of one evaluation (PYDATALOG.md §4.3:
its scheduler scans every live subgoal), while the two passes are local: a Graph's decisions
read its own body and the signatures of what it launches; a caller reads its own body and the
signatures of what it calls.  So each function with a body is solved as a unit — its facts, the
signatures of its callees, and the return lineage of callees already solved (program order puts
callees first) — and the units' answers are merged.

Merging keeps, from each unit, only the rows that unit is the authority on: rows about its own
function, and rows about signature-only functions (kernels), which every unit derives alike.  A
row about another orchestration-level function is that function's unit's to give: the caller
only sees its signature, and a negation over a body it does not have would be wrong.
`tests/analyzer/test_units.py` holds the merge equal to solving the whole program at once.
"""

from __future__ import annotations

from collections import defaultdict

from legalog.extractor.lower import Lowering
from legalog.facts.store import FactStore, Row
from legalog.rules.engine import Derived, RuleProgram, evaluate


# Below this many facts one evaluation of the whole program is cheaper than one per function:
# every evaluation pays a fixed cost per derived predicate (about 0.15 ms each, ~170 of them),
# while the superlinear growth that splitting avoids only shows from a few thousand facts on
# (bench/run.py: 753 facts 40 ms whole vs 57 ms split; 11.7k facts 1.55 s vs 1.0 s).
WHOLE_PROGRAM_MAX_FACTS = 4000


def solve_units(lowering: Lowering, rules: RuleProgram) -> Derived:
    if lowering.facts.count() <= WHOLE_PROGRAM_MAX_FACTS:
        return evaluate(rules, lowering.facts.as_mapping())
    units = list(lowering.signatures)  # functions with a body, in program order
    unit_names = set(units)
    lineage: dict[str, set[Row]] = {}
    merged: dict[str, set[Row]] = defaultdict(set)
    for relation in (*rules.derived, *rules.inputs):
        merged[relation] = set()  # every relation answers, even when no unit derived it
    for name in units:
        facts = _unit_facts(lowering, name, lineage)
        derived = evaluate(rules, facts.as_mapping())
        lineage[name] = {row for row in derived["ret_param"] if row[0] == name}
        for relation, rows in derived.items():
            merged[relation].update(row for row in rows if _authority(row, name, unit_names))
    for relation, rows in lowering.facts.as_mapping().items():
        merged[relation].update(rows)
    return Derived({relation: frozenset(rows) for relation, rows in merged.items()})


def _unit_facts(lowering: Lowering, name: str, lineage: dict[str, set[Row]]) -> FactStore:
    unit = FactStore()
    unit.extend(lowering.own[name])
    for row in lowering.facts.rows("target_runtime"):
        unit.add("target_runtime", *row)
    for callee in sorted({str(row[1]) for row in lowering.own[name].rows("launch")} - {name}):
        if callee in lowering.signatures:
            unit.extend(lowering.signatures[callee])
            for row in lineage.get(callee, ()):
                unit.add("callee_ret_param", *row)
        elif callee in lowering.own:
            unit.extend(lowering.own[callee])
    return unit


def _authority(row: Row, unit: str, units: set[str]) -> bool:
    """Is `unit` the one to answer for this row?  Rows are keyed by their first column."""
    if not row or not isinstance(row[0], str):
        return True
    owner = row[0].split("/", 1)[0]
    return owner == unit or owner not in units
