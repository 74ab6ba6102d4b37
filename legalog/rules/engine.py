"""Evaluate a rule program over one program's facts, on the engine asked for.

Two engines read the same `.pyd` rule files through the front end (`legalog.rules.language`):
``clingo`` (the default: a compiled grounder, 3-20x faster) and ``pydatalog`` (the reference
the rule files were written for).  They give identical relations (tests/rules/test_differential.py).
Nothing outside `legalog.rules` needs to know which engine ran; callers only pass its name on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from legalog.rules.language import RULES_DIR, Derived, RuleProgram

# The rules room's face to the rest of legalog: a program, its answer, and how to get one.
__all__ = ["DEFAULT_ENGINE", "ENGINES", "RULES_DIR", "Derived", "RuleProgram", "evaluate", "resolve_engine"]

ENGINES = ("clingo", "pydatalog")
DEFAULT_ENGINE = "clingo"
ENV_VAR = "LEGALOG_ENGINE"


def resolve_engine(engine: str | None = None) -> str:
    """`engine`, else $LEGALOG_ENGINE, else clingo; an unknown name is a ValueError."""
    name = engine or os.environ.get(ENV_VAR) or DEFAULT_ENGINE
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; expected one of {', '.join(ENGINES)}")
    return name


def evaluate(rules: RuleProgram, facts: Mapping[str, Iterable[tuple]], engine: str | None = None) -> Derived:
    """Every relation of `rules` over `facts`: the input rows and everything derived from them."""
    if resolve_engine(engine) == "clingo":
        from legalog.rules.backends import clingo

        try:
            return clingo.evaluate(rules, facts)
        except clingo.Inexact:
            pass  # an integer beyond clingo's 32 bits where the rules compute: the reference is exact
    from legalog.rules.backends import pydatalog

    return pydatalog.evaluate(rules, facts)
