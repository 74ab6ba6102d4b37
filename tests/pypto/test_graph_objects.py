"""LegalizeGraphBoundary's plan applied to PyPTO's objects agrees with the text rewrite.

For every dump of ../shared PyPTO's parser reads (the corpus and the reference inputs) on which
the Graph pass rewrites: `apply_graph_plan_to_objects` of the analysis's plan is
`ir.structural_equal` to `pl.parse` of the text rewrite, and every function the plan does not
change is the input's own object; or it says `Unsupported` (the pass then parses the changed
functions' text).  It must handle nearly all of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import legalog
from legalog.rewriter.graph_boundary import GraphPlan
from legalog.rewriter.graph_boundary_objects import Unsupported, apply_graph_plan_to_objects
from tests.pypto.test_objects import DUMPS

pytestmark = [pytest.mark.slow, pytest.mark.shared]

# The share of the rewrites the object applier must handle (it handles 157 of 166 here: the
# others are frontend dumps analysed in SSA form, whose names are not PyPTO's, and one call site
# that is a loop's whole body, with no block to bind its locals in).
FLOOR = 0.94


def test_the_object_applier_is_the_parse_of_the_text_rewrite(
    pypto: SimpleNamespace, read: Callable[[Path], Any]
) -> None:
    ir, pl = pypto.ir, pypto.pl
    counts: Counter[str] = Counter()
    unequal = []
    for path in DUMPS:
        program = read(path)
        if program is None:
            continue
        text = ir.python_print(program, format=False)
        analysis = legalog.analyze(text, path=path.name, passes=("graph",))
        if analysis.status != "rewritten":
            continue
        if not ir.structural_equal(program, pl.parse(text)):
            counts["not read back as printed"] += 1  # PyPTO's printing of it is another program
            continue
        plan = analysis.plans["graph"]
        assert isinstance(plan, GraphPlan)
        try:
            if analysis.versions:  # SSA names of legalog's own, no PyPTO variable's
                raise Unsupported("versioned")
            out = apply_graph_plan_to_objects(program, plan)
        except Unsupported:
            counts["unsupported"] += 1
            continue
        counts["handled"] += 1
        if not ir.structural_equal(out, pl.parse(analysis.legalized_text())):
            unequal.append(path.name)
        changed = {g.function for g in plan.graphs} | {c.caller for c in plan.calls}
        for fn in program.functions.values():
            if fn.name not in changed:
                assert out.get_function(fn.name).same_as(fn), (path.name, fn.name)
    assert not unequal, unequal
    rewrites = counts["handled"] + counts["unsupported"]
    assert rewrites and counts["handled"] >= FLOOR * rewrites, counts


def test_an_empty_plan_returns_the_input(pypto: SimpleNamespace, read: Callable[[Path], Any]) -> None:
    program = read(next(p for p in DUMPS if p.name == "a09_orch_spmd_counts.spmd_input.py"))
    assert apply_graph_plan_to_objects(program, GraphPlan()) is program


def test_a_plan_naming_no_variable_of_the_program_is_unsupported(
    pypto: SimpleNamespace, read: Callable[[Path], Any]
) -> None:
    """A plan made on names that are not PyPTO's (an SSA-versioned frontend dump's) is refused,
    never applied to whatever variable happens to be nearby."""
    path = next(p for p in DUMPS if p.name == "a01_row_shift.graph_input.py")
    program = read(path)
    analysis = legalog.analyze(pypto.ir.python_print(program, format=False), passes=("graph",))
    plan = analysis.plans["graph"]
    edit = plan.graphs[0]
    renamed = type(edit)(
        edit.function,
        frozenset(f"{n}_x" for n in edit.dropped),
        edit.aliases,
        tuple(type(p)(f"{p.name}_x", p.type, p.direction) for p in edit.params),
    )
    with pytest.raises(Unsupported):
        apply_graph_plan_to_objects(program, GraphPlan((renamed,), plan.calls))
