"""GraphBoundaryLegalized: re-derive the post-conditions from the rewritten program.

Two independent looks, solved in one engine run over the rewritten program's facts.  The
verifier's own must-be-empty relations (rules/verifier.pyd) share only the replay-invariant set
with the pass, as the spec demands; and the pass rules, run again on the output, must find nothing
left to hoist, nothing to reject and no launch left unproven — which re-counts the nodes of the
rewritten body as the runtime will see it.  A finding here is a legalog bug, said plainly rather
than handed to codegen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from legalog.analyzer.diagnostics import Diagnostic
from legalog.analyzer.emitter import derived_findings, finding
from legalog.analyzer.graph import Locator, graph_decisions
from legalog.analyzer.spmd import decide_launches
from legalog.extractor.lower import Lowering, lower
from legalog.ir.model import Program
from legalog.rules.engine import Derived, RuleProgram, evaluate
from legalog.rules.programs import RULES_OF, VERIFIER_RULES, work

# every finding here says it is the verifier's, not the user's
_VERIFIER = "verifier: "


def verify(
    program: Program,
    runtime: str = "host_build_graph",
    engine: str | None = None,
    *,
    passes: Collection[str] = ("graph", "spmd"),
) -> list[Diagnostic]:
    """The post-conditions of the passes that ran (`passes`, as `pipeline.analyze` chose them):
    after LegalizeSpmdLaunches alone a Graph is not legalized yet, and that is no finding."""
    lowering = lower(program, runtime)
    facts = lowering.facts.as_mapping()
    rules = RuleProgram.load(VERIFIER_RULES)
    todo = work(rules, facts, passes)
    busy = todo.passes
    if not busy:
        return []
    outputs = frozenset().union(*(RULES_OF[name].outputs(rules) for name in busy))
    if "graph" in busy:
        outputs |= rules.defined_in["verifier"]
    derived = evaluate(rules, lowering.facts, engine, outputs, todo.firable)
    return [
        d for name, check in POSTCONDITIONS.items() if name in busy for d in check(program, lowering, derived)
    ]


def graph_postconditions(program: Program, lowering: Lowering, derived: Derived) -> list[Diagnostic]:
    """GraphBoundaryLegalized: the verifier's must-be-empty relations and the pass itself once more
    on its own output (a fixpoint with nothing to reject), then every Graph that would still change."""
    found = derived_findings(program, lowering, derived, prefix=_VERIFIER)
    at = Locator(program, lowering, derived)
    for decision in graph_decisions(program, lowering, derived):
        if decision.changes_anything:
            span = at.function_span(decision.function)
            row = {"g": decision.function}
            found.append(
                finding("graph_not_fixpoint", row, span.line, span.col, decision.function, prefix=_VERIFIER)
            )
    return found


def launch_postconditions(program: Program, lowering: Lowering, derived: Derived) -> list[Diagnostic]:
    """After LegalizeSpmdLaunches every launch is proven positive (a guarded one is, under its
    guard): an error for each that is not, as codegen's preflight raises it (SP310's default, info,
    describes the guard the pass adds; here the program still lacks one)."""
    found = []
    for launch in decide_launches(program, lowering, derived).launches:
        if launch.outcome != "proven":
            row = {"callee": launch.callee}
            found.append(
                finding(
                    "spmd_still_unproven", row, launch.line, launch.column, launch.function, prefix=_VERIFIER
                )
            )
    return found


Postconditions = Callable[[Program, Lowering, Derived], list[Diagnostic]]
# each pass's verifier, by pass name (legalog/passes.py hands each pass its own)
POSTCONDITIONS: Mapping[str, Postconditions] = {"graph": graph_postconditions, "spmd": launch_postconditions}
