"""The two passes as objects, in the order PyPTO's pipeline runs them.

Each pass names what it evaluates (its rule files, and the relations without a row of which it
has nothing to do: `rules/programs.py`), how it decides, how it plans its rewrite and applies the
plan to legalog's model, and where it sits among
PyPTO's passes (the specification's "Position in the pipeline"); its verifier is the one
`analyzer/verifier.py` keeps under its name.  `PIPELINE` is the one list of them:
`pipeline.analyze` loops over it, the benchmark's stages and the PyPTO adapters
(`legalog/pypto.py`) read it, so nothing else restates the order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar, cast

from legalog.analyzer.codes import PASS_POSITIONS, PASS_TITLES, PassTitle
from legalog.analyzer.diagnostics import Diagnostic
from legalog.analyzer.emitter import derived_findings
from legalog.analyzer.graph import GraphDecision, graph_decisions
from legalog.analyzer.spmd import SpmdOutcome, decide_launches
from legalog.extractor.lower import Lowering
from legalog.ir.model import Program
from legalog.rewriter.graph_boundary import GraphPlan, apply_graph_plan, plan_graphs
from legalog.rewriter.spmd_guard import GuardPlan, apply_guard_plan, plan_guards
from legalog.rules.engine import Derived
from legalog.rules.programs import RULES_OF, PassRules

# "graph" = LegalizeGraphBoundary with its host-control checks and GraphBoundaryLegalized
# verifier; "spmd" = LegalizeSpmdLaunches.
PassName = Literal["graph", "spmd"]


class Decided(Protocol):
    """What a pass decided about one program: its findings, and whatever its rewrite obeys."""

    @property
    def diagnostics(self) -> Sequence[Diagnostic]: ...


D = TypeVar("D", bound=Decided)
P = TypeVar("P")  # a pass's plan: its rewrite, every choice made, for any applier to obey


@dataclass(frozen=True)
class GraphOutcome:
    """LegalizeGraphBoundary's decisions (one per Graph) and its findings (Steps A-D, host control)."""

    decisions: tuple[GraphDecision, ...]
    diagnostics: tuple[Diagnostic, ...]


def _decide_graphs(program: Program, lowering: Lowering, derived: Derived) -> GraphOutcome:
    decisions = graph_decisions(program, lowering, derived)
    return GraphOutcome(decisions, tuple(derived_findings(program, lowering, derived)))


def _plan_graphs(program: Program, outcome: GraphOutcome) -> GraphPlan:
    return plan_graphs(program, outcome.decisions)


@dataclass(frozen=True)
class Pass(Generic[D, P]):
    """One pass: `decide` reads the rules' rows (`rules` says which files give them), `plan` makes
    every choice of the rewrite the decisions ask for, `apply` obeys the plan on legalog's model
    (another applier may obey it on PyPTO's objects: `Analysis.plans` keeps it), and
    `verifier.POSTCONDITIONS[name]` judges the rewritten program (through
    `analyzer.verifier.verify`, which `validate` calls too, below this room).  `stage` is the name
    `analyze` times its decisions under; `after` and `before` are where it sits among PyPTO's
    passes."""

    name: PassName
    rules: PassRules
    decide: Callable[[Program, Lowering, Derived], D]
    plan: Callable[[Program, D], P]
    apply: Callable[[Program, P], Program]
    stage: str

    @property
    def title(self) -> PassTitle:
        """The pass as PyPTO names it (messages, passes_dump file names)."""
        return PASS_TITLES[self.name]

    @property
    def after(self) -> str:
        """The PyPTO pass that has run before it (the Graph pass: the final one of that name)."""
        return PASS_POSITIONS[self.name][0]

    @property
    def before(self) -> str:
        """The PyPTO pass it runs immediately before."""
        return PASS_POSITIONS[self.name][1]

    def outcome(self, decided: Mapping[str, Decided]) -> D | None:
        """What this pass decided, among the outcomes of a run (None: it had nothing to do)."""
        return cast("D | None", decided.get(self.name))


SPMD: Pass[SpmdOutcome, GuardPlan] = Pass(
    "spmd", RULES_OF["spmd"], decide_launches, plan_guards, apply_guard_plan, "launches"
)
GRAPH: Pass[GraphOutcome, GraphPlan] = Pass(
    "graph", RULES_OF["graph"], _decide_graphs, _plan_graphs, apply_graph_plan, "decide"
)

# In PyPTO's order: LegalizeSpmdLaunches runs first; its guards touch only Orchestration launches,
# never a Graph call site or body.
PIPELINE: tuple[Pass[Any, Any], ...] = (SPMD, GRAPH)
