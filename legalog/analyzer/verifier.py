"""GraphBoundaryLegalized: re-derive the post-conditions from the rewritten program.

Two independent looks, solved in one engine run over the rewritten program's facts.  The
verifier's own must-be-empty relations (rules/verifier.pyd) share only the replay-invariant set
with the pass, as the spec demands; and the pass rules, run again on the output, must find nothing
left to hoist, nothing to reject and no launch left unproven — which re-counts the nodes of the
rewritten body as the runtime will see it.  A finding here is a legalog bug, said plainly rather
than handed to codegen.
"""

from __future__ import annotations

from collections.abc import Collection

from legalog.analyzer.diagnostics import Diagnostic, diagnostic
from legalog.analyzer.graph import Locator, graph_decisions, graph_diagnostics
from legalog.analyzer.spmd import decide_launches
from legalog.extractor.lower import Lowering, lower, var_name
from legalog.ir.model import Program
from legalog.rules.engine import Derived, RuleProgram, evaluate
from legalog.rules.programs import RULES_OF, VERIFIER_RULES, work

_ASSERTIONS = {
    "assert_rename_survives": ("GB122", "rename `{v}` of a boundary scalar survives"),
    "assert_derivable_left": (
        "GB118",
        "`{v}` could be computed at the call site but is still derived in the region",
    ),
    "assert_moving_window": (
        "GB119",
        "view `{v}` of a boundary tensor keeps a window that can differ between calls",
    ),
    "assert_region_alloc": ("GB109", "allocation `{v}` is left at the top level of the region"),
    "assert_unslotted_arg": (
        "GB118",
        "a task reads scalar `{v}`, which has no argument slot and can differ between calls",
    ),
}


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
    derived = evaluate(rules, facts, engine, outputs, todo.firable)
    found: list[Diagnostic] = []
    if "graph" in busy:
        found += _graph_findings(program, lowering, derived)
    if "spmd" in busy:
        for launch in decide_launches(program, lowering, derived).launches:
            if launch.outcome != "proven":
                # an error, as codegen's preflight raises it: SP310's default (info) describes the
                # guard the pass adds, and here the rewritten program still lacks one
                found.append(
                    Diagnostic(
                        "SP310",
                        f"verifier: the launch of `{launch.callee}` is still not proven positive",
                        launch.line,
                        launch.column,
                        launch.function,
                        None,
                        "error",
                        False,
                    )
                )
    return found


def _graph_findings(program: Program, lowering: Lowering, derived: Derived) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    at = Locator(program, lowering, derived)
    for relation, (code, text) in _ASSERTIONS.items():
        for row in derived.sorted(relation):
            launch = relation == "assert_unslotted_arg"  # (launch, scalar): at the launch
            subject = var_name(str(row[1] if launch else row[0]))
            fn = str(row[0]).split("/", 1)[0]
            span = at.expr_span(str(row[0])) if launch else at.var_span(str(row[0]))
            found.append(
                diagnostic(
                    code,
                    f"verifier: {text.format(v=subject)}",
                    span.line,
                    span.col,
                    function=fn,
                    subject=subject,
                )
            )
    # The pass itself, once more, on its own output: a fixpoint with nothing to reject.
    for d in graph_diagnostics(program, lowering, derived):
        found.append(
            diagnostic(
                d.code, f"verifier: {d.message}", d.line, d.column, function=d.function, subject=d.subject
            )
        )
    for decision in graph_decisions(program, lowering, derived):
        if decision.changes_anything:
            span = at.function_span(decision.function)
            found.append(
                diagnostic(
                    "GB118",
                    f"verifier: Graph `{decision.function}` still has values to hoist after legalization",
                    span.line,
                    span.col,
                    function=decision.function,
                )
            )
    return found
