"""Properties over drawn programs with every construct PyPTO's passes tell apart (strategies in
tests/ir/strategies.py): each launch form decides alike, a counterexample never leaves its
scalar's dtype, a guarded program fixes to a fixpoint codegen's preflight accepts, and a
frontend dump with rebinding and kernel scopes decides as its SSA form does.

Bounded by default; `LEGALOG_PROPERTY_EXAMPLES=N` draws more."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from legalog.analyzer.positivity import value_domain
from legalog.analyzer.spmd import preflight
from legalog.extractor.lower import FULL_BODY_KINDS
from legalog.ir import parse, print_program
from legalog.ir.ssa import version_program
from legalog.pipeline import analyze
from tests.ir.strategies import frontend_graph_programs, spmd_programs
from tests.pipeline.test_frontend_positions import graph_signatures

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

EXAMPLES = int(os.environ.get("LEGALOG_PROPERTY_EXAMPLES", "15"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(spmd_programs())
def test_every_launch_form_decides_alike(drawn: tuple[dict[str, str], str, str]) -> None:
    texts, dtype, _count = drawn
    outcomes = {}
    for form, text in texts.items():
        result = analyze(text, f"{form}.py", passes=("spmd",))
        assert result.status in ("legal", "rewritten"), [(d.code, d.message) for d in result.diagnostics]
        (decision,) = result.launches
        assert decision.form == form
        outcomes[form] = decision.outcome
        low, high = value_domain(dtype)
        for name, value in (decision.counterexample or {}).items():
            if name.split("__")[0] == "m":
                assert (low is None or value >= low) and (high is None or value <= high), (dtype, value)
        if result.status == "rewritten":
            fixed = result.legalized_text()
            assert fixed is not None
            again = analyze(fixed, "fixed.py", passes=("spmd",))
            assert again.status == "legal" and {d.outcome for d in again.launches} == {"proven"}
            assert preflight(parse(fixed)) == []
    assert len(set(outcomes.values())) == 1, outcomes


@SETTINGS
@given(frontend_graph_programs())
def test_a_frontend_dump_decides_as_its_ssa_form(text: str) -> None:
    mine = analyze(text, "frontend.py", passes=("graph",))
    program, _ = version_program(parse(text), FULL_BODY_KINDS)
    theirs = analyze(print_program(program), "ssa.py", passes=("graph",))
    assert mine.status == theirs.status, [(d.code, d.message) for d in mine.diagnostics]
    if mine.status == "rewritten":
        assert mine.output is not None and theirs.output is not None
        assert graph_signatures(mine.output) == graph_signatures(theirs.output)
        fixed = mine.legalized_text()
        assert fixed is not None
        g = parse(fixed).function("g")
        assert g is not None and len({p.name for p in g.params}) == len(g.params)
        assert analyze(fixed, "fixed.py", passes=("graph",)).status == "legal"
