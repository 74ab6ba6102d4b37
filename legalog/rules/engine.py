"""Evaluate a rule program over one program's facts, on the engine asked for.

Two engines read the same `.pyd` rule files through the front end (`legalog.rules.language`):
``compiled`` (the default: legalog's own compiler of a rule program into Python, generated once and
kept in the cache folder, `legalog rules --emit NAME` prints it; docs/reference.md, "Engines") and
``pydatalog`` (the reference the rule files were written for).  They give identical relations
(tests/rules/test_differential.py).  Nothing outside `legalog.rules` needs to know which engine
ran; callers only pass its name on.
"""

from __future__ import annotations

from legalog.rules.engine_names import DEFAULT_ENGINE, ENGINES, resolve_engine
from legalog.rules.language import RULES_DIR, Derived, Facts, RuleProgram, validate_facts

# The rules room's face to the rest of legalog: a program, its answer, and how to get one.
__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "RULES_DIR",
    "Derived",
    "Facts",
    "RuleProgram",
    "evaluate",
    "given_facts",
    "prepare",
    "resolve_engine",
]


def evaluate(
    rules: RuleProgram,
    facts: Facts,
    engine: str | None = None,
    outputs: frozenset[str] | None = None,
    firable: tuple[int, ...] | None = None,
) -> Derived:
    """Every relation of `rules` over `facts`: the input rows and everything derived from them.
    With `outputs`, the compiled engine computes only the relations they are derived from (the
    reference engine computes every relation, a superset: it is the one to compare against);
    `firable`: `rules.firable(facts)` when the caller has it already."""
    if resolve_engine(engine) == "compiled":
        from legalog.rules.backends import compiled

        return compiled.evaluate(rules, facts, outputs, firable)
    from legalog.rules.backends import pydatalog

    return pydatalog.evaluate(rules, facts)


def prepare(rules: RuleProgram, engine: str | None = None) -> None:
    """Make what the engine evaluates `rules` with (the compiled engine's module) now, as a
    process that evaluates many programs does before it forks its workers."""
    if resolve_engine(engine) == "compiled":
        from legalog.rules.backends import compiled

        compiled.load(rules)


def given_facts(rules: RuleProgram, facts: Facts) -> Derived:
    """The input relations of `rules` alone, as an evaluation that derived nothing would hold
    them (no engine runs); a derived relation is absent, and reading one is a KeyError."""
    checked = validate_facts(rules, facts)
    given = {name: rows for name, rows in checked.items() if name not in rules.derived}
    return Derived({**dict.fromkeys(rules.inputs, frozenset()), **given})
