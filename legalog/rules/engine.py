"""Evaluate a rule program over one program's facts, on the engine asked for.

Two engines read the same `.pyd` rule files through the front end (`legalog.rules.language`):
``clingo`` (the default: a compiled grounder; an evaluation about 3x faster on a typical dump,
20x at 200 Graphs, docs/reference.md, "Engines") and ``pydatalog`` (the reference the rule files were
written for).  They give identical relations (tests/rules/test_differential.py).
Nothing outside `legalog.rules` needs to know which engine ran; callers only pass its name on.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from legalog.rules.choice import DEFAULT_ENGINE, ENGINES, resolve_engine
from legalog.rules.language import (
    INT_MAX,
    INT_MIN,
    RULES_DIR,
    Derived,
    RuleProgram,
    numeric_reads,
    rules_text,
    validate_facts,
)

# The rules room's face to the rest of legalog: a program, its answer, and how to get one.
__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "RULES_DIR",
    "Derived",
    "RuleProgram",
    "evaluate",
    "given_facts",
    "prepare",
    "resolve_engine",
]


def evaluate(
    rules: RuleProgram,
    facts: Mapping[str, Iterable[tuple]],
    engine: str | None = None,
    outputs: frozenset[str] | None = None,
    firable: tuple[int, ...] | None = None,
) -> Derived:
    """Every relation of `rules` over `facts`: the input rows and everything derived from them.
    With `outputs`, clingo computes only the relations they are derived from (the reference
    engine computes every relation, a superset: it is the one to compare against); `firable`:
    `rules.firable(facts)` when the caller has it already."""
    chosen = resolve_engine(engine)
    if chosen == "compiled":
        from legalog.rules.backends import compiled

        return compiled.evaluate(rules, facts, outputs, firable)
    if chosen == "clingo":
        from legalog.rules.backends import clingo

        try:
            return clingo.evaluate(rules, facts, outputs, firable=firable)
        except clingo.Inexact:
            pass  # an integer beyond clingo's 32 bits where the rules compute: the reference is exact
        if (split := _wide_part(rules, facts, outputs)) is not None:
            try:
                return _evaluate_split(rules, facts, outputs, split, firable)
            except clingo.Inexact:
                pass  # a result past 32 bits computed elsewhere too: the whole program to the reference
    from legalog.rules.backends import pydatalog

    return pydatalog.evaluate(rules, facts)


def _wide_part(
    rules: RuleProgram, facts: Mapping[str, Iterable[tuple]], outputs: frozenset[str] | None
) -> frozenset[str] | None:
    """The derived relations that compute with an input integer beyond 32 bits, and everything
    that reads them: the only part of the program clingo cannot hold.  None when there is no
    such input (a result past 32 bits arises from small values: nothing to split off)."""
    checked = validate_facts(rules, facts)
    wide = {
        (name, column)
        for name, rows in checked.items()
        for row in rows
        for column, value in enumerate(row)
        if isinstance(value, int) and not INT_MIN <= value <= INT_MAX
    }
    wide &= rules.numeric
    if not wide:
        return None
    wanted = rules.closure(outputs)
    part = {
        r.head.relation
        for r in rules.rules
        if r.head.relation in wanted and numeric_reads(r, rules.numeric) & wide
    }
    grown = True
    while grown:  # readers of the part, through any literal (a negation or aggregate too)
        grown = False
        for dep in rules.dependencies:
            head, body = dep.head.rpartition("/")[0], dep.body.rpartition("/")[0]
            if body in part and head in wanted and head not in part:
                part.add(head)
                grown = True
    return frozenset(part)


def _evaluate_split(
    rules: RuleProgram,
    facts: Mapping[str, Iterable[tuple]],
    outputs: frozenset[str] | None,
    part: frozenset[str],
    firable: tuple[int, ...] | None = None,
) -> Derived:
    """Everything but `part` on clingo, then `part` on the reference engine over the facts and
    the rows clingo derived: a loop bound of 2**31 costs what the rules over it cost, not the
    whole program on pyDatalog.  (Exact: the program is stratified and nothing outside `part`
    reads it, so the two evaluations compute what one would.)"""
    from legalog.rules.backends import clingo, pydatalog

    first = clingo.evaluate(rules, facts, outputs, leave_out=part, firable=firable)
    chosen = [rule for rule in rules.rules if rule.head.relation in part]
    functions = frozenset(r.head.relation for r in chosen if r.aggregate is not None)
    second = RuleProgram.from_texts({"<rules past 32 bits>": rules_text(chosen, functions)})
    given = {
        name: (first[name] if name in rules.derived else rows)
        for name, rows in facts.items()
        if name in second.inputs
    }
    given |= {name: first[name] for name in second.inputs if name not in given and name in first}
    rest = pydatalog.evaluate(second, given)
    return Derived(
        {name: rest[name] for name in part},
        {name: functools.partial(first.__getitem__, name) for name in first if name not in part},
    )


def prepare(rules: RuleProgram, engine: str | None = None) -> None:
    """Make what the engine evaluates `rules` with (the compiled engine's module) now, as a
    process that evaluates many programs does before it forks its workers."""
    if resolve_engine(engine) == "compiled":
        from legalog.rules.backends import compiled

        compiled.load(rules)


def given_facts(rules: RuleProgram, facts: Mapping[str, Iterable[tuple]]) -> Derived:
    """The input relations of `rules` alone, as an evaluation that derived nothing would hold
    them (no engine runs); a derived relation is absent, and reading one is a KeyError."""
    checked = validate_facts(rules, facts)
    given = {name: rows for name, rows in checked.items() if name not in rules.derived}
    return Derived({**dict.fromkeys(rules.inputs, frozenset()), **given})
