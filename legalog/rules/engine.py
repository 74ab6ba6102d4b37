"""Evaluate a rule program over one program's facts, on the engine asked for.

Two engines read the same `.pyd` rule files through the front end (`legalog.rules.language`):
``clingo`` (the default: a compiled grounder; an evaluation about 3x faster on a typical dump,
20x at 200 Graphs, README "Engines") and ``pydatalog`` (the reference the rule files were
written for).  They give identical relations (tests/rules/test_differential.py).
Nothing outside `legalog.rules` needs to know which engine ran; callers only pass its name on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from legalog.rules.language import RULES_DIR, Derived, RuleProgram, validate_facts

# The rules room's face to the rest of legalog: a program, its answer, and how to get one.
__all__ = ["DEFAULT_ENGINE", "ENGINES", "RULES_DIR", "Derived", "RuleProgram", "evaluate", "given_facts", "resolve_engine"]

ENGINES = ("clingo", "pydatalog")
DEFAULT_ENGINE = "clingo"
ENV_VAR = "LEGALOG_ENGINE"


def resolve_engine(engine: str | None = None) -> str:
    """`engine`, else $LEGALOG_ENGINE, else clingo; an unknown name is a ValueError."""
    name = engine or os.environ.get(ENV_VAR) or DEFAULT_ENGINE
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; expected one of {', '.join(ENGINES)}")
    return name


def evaluate(rules: RuleProgram, facts: Mapping[str, Iterable[tuple]], engine: str | None = None,
             outputs: frozenset[str] | None = None) -> Derived:
    """Every relation of `rules` over `facts`: the input rows and everything derived from them.
    With `outputs`, clingo computes only the relations they are derived from (the reference
    engine computes every relation, a superset: it is the one to compare against)."""
    if resolve_engine(engine) == "clingo":
        from legalog.rules.backends import clingo

        try:
            return clingo.evaluate(rules, facts, outputs)
        except clingo.Inexact:
            pass  # an integer beyond clingo's 32 bits where the rules compute: the reference is exact
    from legalog.rules.backends import pydatalog

    return pydatalog.evaluate(rules, facts)


def given_facts(rules: RuleProgram, facts: Mapping[str, Iterable[tuple]]) -> Derived:
    """The input relations of `rules` alone, as an evaluation that derived nothing would hold
    them (no engine runs); a derived relation is absent, and reading one is a KeyError."""
    checked = validate_facts(rules, facts)
    given = {name: frozenset(rows) for name, rows in checked.items() if name not in rules.derived}
    return Derived({**dict.fromkeys(rules.inputs, frozenset()), **given})
