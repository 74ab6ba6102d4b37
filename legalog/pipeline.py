"""The pipeline: one program, end to end: parse, lower, solve the rules, decide, rewrite, verify.

This is the only module that knows the order of the stages.  Every room it calls sits below it
(`ir`, `extractor`, `rules`, `analyzer`, `rewriter`); the surfaces (`legalog.surfaces`, the CLI)
sit above it and never run a stage themselves.

Each call runs the engine on its own program's facts, as one whole program, and nothing else: no
state leaks from one program to the next.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from legalog.analyzer.diagnostics import Diagnostic, parse_diagnostic
from legalog.analyzer.explain import Explanation, explain
from legalog.analyzer.findings import KeptValue, graph_findings, kept_values
from legalog.analyzer.graph import GraphDecision, graph_decisions, graph_diagnostics
from legalog.analyzer.spmd import LaunchDecision, decide_launches
from legalog.analyzer.verifier import verify
from legalog.analyzer.wellformed import wellformed_diagnostics
from legalog.extractor.lower import Lowering, lower
from legalog.facts.store import FactStore
from legalog.ir.errors import ParseError
from legalog.ir.model import Program
from legalog.ir.parser import parse
from legalog.ir.printer import print_program
from legalog.rewriter.graph_boundary import legalize_graphs
from legalog.rewriter.spmd_guard import guard_launches
from legalog.rules.engine import Derived, RuleProgram, evaluate, resolve_engine
from legalog.rules.programs import EXPLAIN_RULES, PASS_RULES

RUNTIMES = ("host_build_graph", "tensormap_and_ringbuffer")

Status = Literal["legal", "rewritten", "rejected", "error"]


class LegalizeError(Exception):
    """`legalize` found something the runtime cannot record; `diagnostics` says what."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...], path: str | None = None) -> None:
        self.diagnostics = diagnostics
        self.path = path
        lines = [f"{path or '<input>'}:{d.line}:{d.column}: {d.code} {d.message}" for d in diagnostics]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Analysis:
    """Everything legalog concluded about one program."""

    path: str | None
    program: Program | None
    diagnostics: tuple[Diagnostic, ...]
    graphs: tuple[GraphDecision, ...] = ()
    launches: tuple[LaunchDecision, ...] = ()
    legalized: Program | None = None
    lowering: Lowering | None = field(default=None, repr=False, compare=False)
    derived: Derived | None = field(default=None, repr=False, compare=False)
    engine: str | None = field(default=None, repr=False, compare=False)  # passed on to `full_derived`
    # What the rewrite changes at Graph boundaries (GB201-GB204, info, fixable): only for a
    # program `fix` will write; and the values kept in place, with why that is safe.
    findings: tuple[Diagnostic, ...] = ()
    kept: tuple[KeptValue, ...] = ()

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def status(self) -> Status:
        if self.program is None:
            return "error"
        if self.errors:
            return "rejected"
        return "rewritten" if self.legalized is not None and self.legalized != self.program else "legal"

    @cached_property
    def full_derived(self) -> Derived | None:
        """Every relation, the why-not ones (explain.pyd) included: solved on first use."""
        if self.lowering is None:
            return None
        return evaluate(RuleProgram.load(EXPLAIN_RULES), self.lowering.facts.as_mapping(), self.engine)

    def explain(self, function: str, var: str) -> Explanation:
        """Why `var` (with or without its SSA suffix) in `function` was hoisted, kept, rejected..."""
        return explain(self, function, var)

    def legalized_text(self) -> str | None:
        if self.status in ("error", "rejected") or self.legalized is None:
            return None
        return print_program(self.legalized)


def pass_rules() -> RuleProgram:
    return RuleProgram.load(PASS_RULES)


def extract(program: Program, runtime: str = "host_build_graph") -> FactStore:
    """The input relations of one program (what `legalog facts` writes): the first stage alone."""
    return lower(program, runtime).facts


def solve(program: Program, runtime: str = "host_build_graph", engine: str | None = None) -> tuple[Lowering, Derived]:
    """Lower a program and evaluate every pass rule over its facts, as one whole program."""
    lowering = lower(program, runtime)
    return lowering, evaluate(pass_rules(), lowering.facts.as_mapping(), engine)


def analyze(source: str | Program, path: str | None = None, runtime: str = "host_build_graph",
            engine: str | None = None) -> Analysis:
    """Analyse one dump (text, or an already parsed Program).  Never raises for bad input: an
    unreadable dump is an Analysis with status `error` and a PARSE diagnostic.  `engine` is
    `legalog.rules.engine`'s choice (clingo unless $LEGALOG_ENGINE or the caller says otherwise)."""
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown runtime {runtime!r}; expected one of {', '.join(RUNTIMES)}")
    engine = resolve_engine(engine)
    try:
        program = parse(source, path) if isinstance(source, str) else source
    except ParseError as err:
        return Analysis(path, None, (parse_diagnostic(err),))
    if refused := [d for d in wellformed_diagnostics(program) if d.severity == "error"]:
        # What PyPTO's parser refuses, or recursion: the rules assume neither (a cyclic call
        # graph would make them chase a callee's returns through itself), so they do not run.
        return Analysis(path, program, tuple(refused))
    lowering, derived = solve(program, runtime, engine)
    graphs = graph_decisions(program, lowering, derived)
    launches = decide_launches(program, lowering, derived)
    diagnostics = graph_diagnostics(program, lowering, derived) + list(launches.diagnostics)
    legalized = None
    if not any(d.severity == "error" for d in diagnostics):
        # LegalizeSpmdLaunches runs first in PyPTO's pipeline; its guards touch only
        # Orchestration launches, never a Graph call site or body.
        legalized = legalize_graphs(guard_launches(program, launches), graphs)
        if legalized != program:
            diagnostics += verify(legalized, runtime, engine)
    ordered = tuple(sorted(diagnostics, key=lambda d: d.sort_key))
    legal = not any(d.severity == "error" for d in ordered)
    findings = graph_findings(program, lowering, derived, graphs) if legal else ()
    kept = kept_values(program, lowering, derived, graphs)
    return Analysis(path, program, ordered, graphs, launches.launches, legalized, lowering, derived,
                    engine=engine, findings=findings, kept=kept)


def legalize(source: str | Program, path: str | None = None, runtime: str = "host_build_graph",
             engine: str | None = None) -> Program:
    """The legalized program, or `LegalizeError` carrying every error diagnostic."""
    result = analyze(source, path, runtime, engine)
    if result.errors or result.legalized is None:
        raise LegalizeError(result.errors, path)
    return result.legalized

