"""The pipeline: one program, end to end: parse, lower, solve the rules, decide, rewrite, verify;
and `validate`, a pass's output judged against legalog's own run of that pass on its input.

This is the only module that knows the order of the stages.  Every room it calls sits below it
(`ir`, `extractor`, `rules`, `analyzer`, `rewriter`); the surfaces (`legalog.surfaces`, the CLI)
sit above it and never run a stage themselves.

Each call runs the engine on its own program's facts, as one whole program, and nothing else: no
state leaks from one program to the next.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from functools import cache, cached_property, partial
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, get_args

from legalog.analyzer.diagnostics import (
    Diagnostic,
    declined_diagnostics,
    diagnostic,
    in_dump_names,
    parse_diagnostic,
)
from legalog.analyzer.findings import KeptValue, graph_findings, kept_values
from legalog.analyzer.graph import GraphDecision
from legalog.analyzer.spmd import LaunchDecision
from legalog.analyzer.validation import validation_findings
from legalog.analyzer.verifier import verify
from legalog.analyzer.wellformed import wellformed_diagnostics
from legalog.collector import bulk_allocation
from legalog.extractor.lower import FULL_BODY_KINDS, Lowering, lower
from legalog.facts.limits import RUNTIMES
from legalog.facts.store import FactStore
from legalog.ir.errors import ParseError
from legalog.ir.model import Program
from legalog.ir.parser import parse
from legalog.ir.printer import print_checked
from legalog.ir.ssa import VersionedFunction, unversion_program, version_program
from legalog.passes import GRAPH, PIPELINE, SPMD, Decided, PassName
from legalog.rules.engine import Derived, RuleProgram, evaluate, given_facts, resolve_engine
from legalog.rules.programs import EXPLAIN_RULES, PASS_RULES, work

if TYPE_CHECKING:  # explanations load for `why` and `query` only, never on the check path
    from legalog.analyzer.explain import Explanation


# Which of the two passes to run: both (`check`, `fix`), or one, as PyPTO's pipeline runs each at
# its own position (legalog.pypto).
PASSES: frozenset[PassName] = frozenset(get_args(PassName))

Status = Literal["legal", "rewritten", "rejected", "error"]
T = TypeVar("T")


class LegalizeError(Exception):
    """`legalize` found something the runtime cannot record; `diagnostics` says what."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...], path: str | None = None) -> None:
        self.diagnostics = diagnostics
        self.path = path
        lines = [f"{path or '<input>'}:{d.line}:{d.column}: {d.code} {d.message}" for d in diagnostics]
        super().__init__("\n".join(lines))


def _unplanned() -> None:
    """The rewrite where an error stopped it: none."""


@dataclass(frozen=True)
class Analysis:
    """Everything legalog concluded about one program."""

    path: str | None
    program: Program | None
    diagnostics: tuple[Diagnostic, ...]
    graphs: tuple[GraphDecision, ...] = ()
    launches: tuple[LaunchDecision, ...] = ()
    lowering: Lowering | None = field(default=None, repr=False, compare=False)
    derived: Derived | None = field(default=None, repr=False, compare=False)
    engine: str | None = field(default=None, repr=False, compare=False)  # passed on to `full_derived`
    # `diagnostics` is every finding, as the JSON report's `diagnostics`: errors, warnings and the
    # info findings.  `findings` are those of them that say what the rewrite changes at Graph
    # boundaries (GB201-GB204, fixable): only for a program `fix` will write; `kept`: the values
    # kept in place, with why that is safe.
    findings: tuple[Diagnostic, ...] = ()
    kept: tuple[KeptValue, ...] = ()
    # A frontend dump is analysed in SSA form (`program`); `source` is the program as read and
    # `versions` the way back to its names, for the functions that were versioned.
    source: Program | None = field(default=None, repr=False, compare=False)
    versions: dict[str, VersionedFunction] = field(default_factory=dict, repr=False, compare=False)
    # Each pass's plan of its rewrite (`passes.Pass.plan`), by pass name, for the passes that
    # rewrote: `legalized` is the model applier's result; another applier (PyPTO's objects)
    # obeys the same plan.  In the names of `program` (SSA form where `versions` says so).
    plans: dict[PassName, Any] = field(default_factory=dict, repr=False, compare=False)
    # How `legalized` is made (None: an error stopped the rewrite): the model's rewrite, made
    # already or (inside PyPTO's pipeline, whose objects obey `plans` instead) on first use.
    rewrite: Callable[[], Program | None] = field(default=_unplanned, repr=False, compare=False)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @cached_property
    def status(self) -> Status:
        if self.program is None:
            return "error"
        if self.errors:
            return "rejected"
        # a plan that changes anything makes a program that differs from `program` (`changes`):
        # the status is the plans', never a comparison of two whole program trees
        return "rewritten" if _changes(self.plans) else "legal"

    @cached_property
    def legalized(self) -> Program | None:
        """`program` rewritten by the passes (`plans` applied to legalog's model, in PIPELINE's
        order, as each plan was made); None where an error stopped the rewrite.  Applied on first
        use: inside PyPTO's pipeline the plans are applied to PyPTO's objects instead."""
        with bulk_allocation():
            return self.rewrite()

    @cached_property
    def full_derived(self) -> Derived | None:
        """Every relation, the why-not ones (explain.pyd) included: solved on first use."""
        if self.lowering is None:
            return None
        return evaluate(RuleProgram.load(EXPLAIN_RULES), self.lowering.facts, self.engine)

    def explain(self, function: str, var: str) -> Explanation:
        """Why `var` (with or without its SSA suffix) in `function` was hoisted, kept, rejected..."""
        from legalog.analyzer.explain import explain

        return explain(self, function, var)

    @cached_property
    def output(self) -> Program | None:
        """The legalized program as the dump would spell it (its own names, frontend style):
        unversioned once, however many surfaces (fix, SARIF edits, the PyPTO pass) read it."""
        if self.legalized is None or self.source is None:
            return self.legalized
        return unversion_program(self.legalized, self.source, self.versions)

    @cached_property
    def _text(self) -> str | None:
        if self.status in ("error", "rejected") or self.output is None:
            return None
        with bulk_allocation():  # the printed text and the trees read back from it stay alive
            return print_checked(self.output)  # read back and compared: never a text that is not the program

    def legalized_text(self) -> str | None:
        """What `fix` writes (None when it writes nothing); printed once."""
        return self._text


class Stage(Protocol):
    """How `analyze` runs each named stage: by default it just runs it; `bench/` times it."""

    def __call__(self, name: str, run: Callable[[], T], /) -> T: ...


def _run(name: str, run: Callable[[], T], /) -> T:
    return run()


# The stages `analyze` runs, in order, by the names it times them under (`stage=`; bench/ reads them).
STAGES = ("parse", "checks", "version", "lower", "rules", *(p.stage for p in PIPELINE), "rewrite", "verify")


def pass_rules() -> RuleProgram:
    return RuleProgram.load(PASS_RULES)


def extract(program: Program, runtime: str = "host_build_graph") -> FactStore:
    """The input relations of one program (what `legalog facts` writes): the first stage alone."""
    return lower(program, runtime).facts


def solve(
    program: Program,
    runtime: str = "host_build_graph",
    engine: str | None = None,
    passes: Collection[str] = PASSES,
    stage: Stage = _run,
) -> tuple[Lowering, Derived, frozenset[PassName]]:
    """Lower a program and evaluate the rules of the chosen passes that have work in it, as one
    whole program; also says which passes had work.  A program with nothing to decide (no Graph,
    no host control tensor, no SPMD launch) evaluates nothing."""
    lowering = stage("lower", lambda: lower(program, runtime))
    facts = lowering.facts.as_mapping()
    rules = pass_rules()
    found = work(rules, facts, passes)
    busy = frozenset(p.name for p in PIPELINE if p.name in found.passes)
    outputs = frozenset().union(*(p.rules.outputs(rules) for p in PIPELINE if p.name in busy))
    derived = (
        stage("rules", lambda: evaluate(rules, lowering.facts, engine, outputs, found.firable))
        if busy
        else given_facts(rules, facts)
    )
    return lowering, derived, busy


def _chosen(passes: Collection[str]) -> frozenset[PassName]:
    chosen = frozenset(passes)
    if not chosen or not chosen <= PASSES:
        raise ValueError(f"passes must be a non-empty subset of {sorted(PASSES)}; got {sorted(chosen)}")
    return frozenset(p for p in PASSES if p in chosen)


def analyze(
    source: str | Program,
    path: str | None = None,
    runtime: str = "host_build_graph",
    engine: str | None = None,
    *,
    passes: Collection[str] = PASSES,
    stage: Stage = _run,
    verify: bool = True,
    report: bool = True,
) -> Analysis:
    """Analyse one dump (text, or an already parsed Program) with the chosen passes (default:
    both).  Never raises for bad input: an unreadable dump is an Analysis with status `error` and
    a PARSE diagnostic.  `engine` is `legalog.rules.engine`'s choice (compiled unless
    $LEGALOG_ENGINE or the caller says otherwise).  `stage` runs each stage (`bench/` times them).
    `verify=False` leaves out the post-conditions of a rewrite (GraphBoundaryLegalized): only
    inside PyPTO's pipeline, whose verification level decides it, as it does for PyPTO's own
    properties (legalog.pypto); `check`, `fix` and the library always verify.  `report=False`
    leaves out what only a report reads, the fixable info findings GB201-GB204 (`findings`) and
    the values kept in place (`kept`): only inside PyPTO's pipeline, where nothing reads them."""
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown runtime {runtime!r}; expected one of {', '.join(RUNTIMES)}")
    # Nearly everything an analysis allocates stays alive until it returns (trees, rows,
    # decisions), so the collector's full scans find nothing; at 5 MB one of them was half of the
    # rewrite stage (1.5 s), another 0.7 s of the verifier.
    with bulk_allocation():
        return _analyze(source, path, runtime, resolve_engine(engine), _chosen(passes), stage, verify, report)


def _analyze(
    source: str | Program,
    path: str | None,
    runtime: str,
    engine: str,
    chosen: frozenset[PassName],
    stage: Stage,
    verify_output: bool = True,
    report: bool = True,
) -> Analysis:
    try:
        read = stage("parse", lambda: parse(source, path)) if isinstance(source, str) else source
    except ParseError as err:
        return Analysis(path, None, (parse_diagnostic(err),))
    wellformed = stage("checks", lambda: wellformed_diagnostics(read))
    if refused := [d for d in wellformed if d.severity == "error"]:
        # What PyPTO's parser refuses, or recursion: the rules assume neither (a cyclic call
        # graph would make them chase a callee's returns through itself), so they do not run.
        return Analysis(path, read, tuple(refused), source=read)
    program, versions = stage("version", lambda: version_program(read, FULL_BODY_KINDS))
    lowering, derived, busy = solve(program, runtime, engine, chosen, stage)
    decided: dict[str, Decided] = {}
    for p in PIPELINE:
        if p.name in busy:
            decided[p.name] = stage(p.stage, partial(p.decide, program, lowering, derived))
    graph, launches = GRAPH.outcome(decided), SPMD.outcome(decided)
    graphs = graph.decisions if graph is not None else ()
    diagnostics = [in_dump_names(d, versions) for o in decided.values() for d in o.diagnostics]
    diagnostics += declined_diagnostics(versions)
    diagnostics += wellformed  # warnings only by now (IR410)
    plans: dict[PassName, Any] = {}
    rewrite: Callable[[], Program | None] = _unplanned
    if not any(d.severity == "error" for d in diagnostics):
        rewrite = cache(stage("rewrite", lambda: _planned(program, decided, plans)))  # made once
        # Inside PyPTO's pipeline (unreported, unverified) PyPTO's objects obey the plans: the
        # model's rewrite waits for a use of `Analysis.legalized` (none, when the objects take it).
        if report or verify_output:
            legalized = stage("rewrite", rewrite)
            if verify_output and _changes(plans):
                found = stage("verify", lambda: verify(legalized, runtime, engine, passes=chosen))
                diagnostics += [in_dump_names(d, versions) for d in found]
    ordered = tuple(sorted(diagnostics, key=lambda d: d.sort_key))
    legal = not any(d.severity == "error" for d in ordered)
    findings: tuple[Diagnostic, ...] = ()
    kept: tuple[KeptValue, ...] = ()
    if graph is not None and report:
        findings = (
            stage("decide", lambda: graph_findings(program, lowering, derived, graphs)) if legal else ()
        )
        findings = tuple(in_dump_names(d, versions) for d in findings)
        kept = tuple(
            replace(k, reason=v.spell(k.reason)) if (v := versions.get(k.function)) is not None else k
            for k in stage("decide", lambda: kept_values(program, lowering, derived, graphs))
        )  # why each is safe, in a frontend dump's own names (the names themselves: the report's)
    everything = tuple(
        sorted(ordered + findings, key=lambda d: d.sort_key)
    )  # what JSON's `diagnostics` holds
    return Analysis(
        path,
        program,
        everything,
        graphs,
        launches.launches if launches is not None else (),
        lowering=lowering,
        derived=derived,
        engine=engine,
        findings=findings,
        kept=kept,
        source=read,
        versions=versions,
        plans=plans,
        rewrite=rewrite,
    )


def _changes(plans: dict[PassName, Any]) -> bool:
    """Whether the passes' plans change the program: a program differs from its rewrite exactly
    when one plan changes something (`GraphPlan.changes`, `GuardPlan.changes`)."""
    return any(plan.changes for plan in plans.values())


def _planned(
    program: Program, decided: dict[str, Decided], plans: dict[PassName, Any]
) -> Callable[[], Program]:
    """Each deciding pass's plan, into `plans`, made on `program` as the passes before it rewrote
    it (their plans applied to the model); returns the application of the last plan, unmade."""
    rewritten, last = program, None
    for p in PIPELINE:
        if (outcome := decided.get(p.name)) is not None:
            if last is not None:
                rewritten = last()
            plans[p.name] = plan = p.plan(rewritten, outcome)
            last = partial(p.apply, rewritten, plan)
    return last if last is not None else lambda: program


def verify_postconditions(
    source: str | Program,
    path: str | None = None,
    runtime: str = "host_build_graph",
    engine: str | None = None,
    *,
    passes: Collection[str] = PASSES,
) -> tuple[Diagnostic, ...]:
    """The post-conditions of the chosen passes on a program one of them produced
    (GraphBoundaryLegalized for "graph", every SPMD launch proven for "spmd"): the verifier
    `analyze` runs on its own rewrite, run on any program, such as PyPTO's output or a later
    pass's.  Empty when they hold.  Raises `ParseError` for text that does not read."""
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown runtime {runtime!r}; expected one of {', '.join(RUNTIMES)}")
    chosen = _chosen(passes)
    with bulk_allocation():
        read = parse(source, path) if isinstance(source, str) else source
        program, versions = version_program(read, FULL_BODY_KINDS)
        found = verify(program, runtime, resolve_engine(engine), passes=chosen)
    return tuple(sorted((in_dump_names(d, versions) for d in found), key=lambda d: d.sort_key))


def legalize(
    source: str | Program,
    path: str | None = None,
    runtime: str = "host_build_graph",
    engine: str | None = None,
    *,
    passes: Collection[str] = PASSES,
) -> Program:
    """The program legalized by the chosen passes, or `LegalizeError` carrying every error diagnostic."""
    result = analyze(source, path, runtime, engine, passes=passes)
    if result.errors or result.output is None:
        raise LegalizeError(result.errors, path)
    return result.output


@dataclass(frozen=True)
class Validation:
    """`legalog validate`: AFTER judged as a result of one pass on BEFORE (analyzer/validation.py).

    `diagnostics` are the TV5xx findings, located in `path`: AFTER's, or BEFORE's when the pass
    left no AFTER; or the one error that stopped the validation (a PARSE of either file, TV500 for
    two different programs), located in the file it names.  `status` is legalog's verdict on
    BEFORE with that pass alone (what the pass should have done), or `error`."""

    pass_name: PassName
    path: str | None
    analysis: Analysis
    after: Program | None
    diagnostics: tuple[Diagnostic, ...]
    stopped: bool = False  # a file unreadable, or not one program: nothing was compared

    @property
    def status(self) -> Status:
        return "error" if self.stopped else self.analysis.status

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @classmethod
    def unreadable(cls, pass_name: str, err: ParseError) -> Validation:
        """The validation that stopped at a file it could not read (either one)."""
        (chosen,) = _chosen((pass_name,))
        found = parse_diagnostic(err)
        return cls(chosen, err.path, Analysis(err.path, None, (found,)), None, (found,), stopped=True)


def validate(
    before: str | Program,
    after: str | Program | None,
    pass_name: str,
    before_path: str | None = None,
    after_path: str | None = None,
    runtime: str = "host_build_graph",
    engine: str | None = None,
) -> Validation:
    """Judge `after` (None: the pass left none) as the result of `pass_name` ("graph":
    LegalizeGraphBoundary, "spmd": LegalizeSpmdLaunches) on `before`.  Never raises for bad
    input: an unreadable file, or two different programs, is a Validation with status `error`."""
    (chosen,) = _chosen((pass_name,))
    analysis = analyze(before, before_path, runtime, engine, passes=(chosen,))
    where = after_path if after is not None else before_path
    if analysis.source is None:  # BEFORE unreadable
        return Validation(chosen, before_path, analysis, None, analysis.diagnostics, stopped=True)
    read: Program | None = None
    if after is not None:
        try:
            read = parse(after, after_path) if isinstance(after, str) else after
        except ParseError as err:
            return Validation.unreadable(chosen, err)
        if (mismatch := _not_one_program(analysis.source, read, before_path)) is not None:
            return Validation(chosen, after_path, analysis, read, (mismatch,), stopped=True)
    with bulk_allocation():
        found = validation_findings(analysis, read, chosen, runtime, resolve_engine(engine))
    return Validation(chosen, where, analysis, read, tuple(found))


def _not_one_program(before: Program, after: Program, before_path: str | None) -> Diagnostic | None:
    """TV500 when AFTER is another program than BEFORE: another name, or no function in common."""
    first = after.functions[0] if after.functions else None
    line, col = (first.span.line, first.span.col) if first is not None else (1, 1)
    named = before_path or "BEFORE"
    if after.name != before.name:
        why = f"AFTER is program `{after.name}`, {named} is program `{before.name}`"
    elif before.functions and not {f.name for f in before.functions} & {f.name for f in after.functions}:
        why = f"AFTER shares no function with {named}"
    else:
        return None
    return diagnostic("TV500", f"{why}: not one program before and after a pass", line, col)
