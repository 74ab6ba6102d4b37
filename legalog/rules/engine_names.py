"""Which engine evaluates the rules: its name, checked, from the caller or the environment.  A
module of its own, reading nothing else of the rules room, so that the command line and the
result cache can name the engine without loading the rule language."""

from __future__ import annotations

import os

ENGINES = ("compiled", "pydatalog")
DEFAULT_ENGINE = "compiled"
ENV_VAR = "LEGALOG_ENGINE"
# The rule programs legalog evaluates, by the name `legalog rules --emit NAME` takes
# (legalog.rules.programs.PROGRAMS: their files).
PROGRAMS = ("pass", "explain", "verifier")


def resolve_engine(engine: str | None = None) -> str:
    """`engine`, else $LEGALOG_ENGINE, else the compiled engine; an unknown name is a ValueError."""
    name = engine or os.environ.get(ENV_VAR) or DEFAULT_ENGINE
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; expected one of {', '.join(ENGINES)}")
    return name
