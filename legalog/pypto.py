"""legalog inside PyPTO's own pipeline: LegalizeGraphBoundary and LegalizeSpmdLaunches as PyPTO passes.

    from legalog.pypto import default_pipeline
    with passes.PassContext([], runtime=passes.RuntimeKind.HOST_BUILD_GRAPH):
        compiled = default_pipeline().run(program)

Each pass is a `pypto.passes.Pass` made by `create_program_pass`.  It first reads the Program's
objects for anything to decide (a Graph function, host tensor accesses, an SPMD launch); with
nothing, it returns the Program it was given, unprinted.  Otherwise it reads the objects into
legalog's model (`legalog.ir.objects`; where that meets a node it does not know, or the program
is rejected, it prints the Program with PyPTO's printer and reads the text), runs one of
legalog's two passes on it, and makes the rewrite a Program again: only the functions the rewrite changed are parsed by PyPTO's parser, the others are the
input's own objects (`legalog.pypto_objects`).  The GraphBoundaryLegalized post-conditions run
when the PassContext holds a `VerificationInstrument`, as PyPTO verifies every property a pass
produces beyond its lightweight few; `verify_graph_boundary` runs them on any Program.  A rejected program raises
`PassRejected`, a subclass of the `pypto.pypto_core.ValueError` that PyPTO's own passes raise on
a user error (their `CHECK`), carrying legalog's diagnostics; the input Program is never replaced
by a partial rewrite.  A failure of legalog itself (its output does not parse in PyPTO) raises
`pypto.InternalError`, as PyPTO's `INTERNAL_CHECK` does.

PyPTO stays optional: nothing here imports it (or torch) before a pass is made or run.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from legalog.passes import GRAPH, SPMD

if TYPE_CHECKING:
    from legalog.analyzer.diagnostics import Diagnostic
    from legalog.ir.model import Program
    from legalog.passes import PassName
    from legalog.pipeline import Analysis, Stage

P = ParamSpec("P")
R = TypeVar("R")

GRAPH_PASS, SPMD_PASS = GRAPH.title, SPMD.title

# Where the seeds put the passes in the Default strategy ("Position in the pipeline"): each pass
# says it (legalog/passes.py).
SPMD_BEFORE, SPMD_AFTER = SPMD.before, SPMD.after
GRAPH_BEFORE, GRAPH_AFTER = GRAPH.before, GRAPH.after


@dataclass(frozen=True, slots=True)
class Properties:
    """A pass's property declaration in PyPTO's `IRProperty` names."""

    required: tuple[str, ...] = ()
    produced: tuple[str, ...] = ()
    invalidated: tuple[str, ...] = ()


# legalize_graph_boundary.en.txt, "Pass properties": requires SplitIncoreOrch and
# CallDirectionsResolved; produces GraphBoundaryLegalized and CallDirectionsResolved (re-declared
# because the pass rewrites call arguments and their direction attrs, and MaterializeRuntimeScopes,
# next, requires it).  GraphBoundaryLegalized has no `IRProperty` in this PyPTO, so it cannot be
# declared: the pass runs legalog's GraphBoundaryLegalized verifier on its own output instead
# (`legalog.analyzer.verifier`) and rejects the program if that finds anything.
GRAPH_PROPERTIES = Properties(
    required=("SplitIncoreOrch", "CallDirectionsResolved"), produced=("CallDirectionsResolved",)
)

# legalize_spmd_launches.en.txt, "API and properties": requires NoNestedCalls and
# ReturnParamsExplicit; produces NormalizedStmtStructure; invalidates call directions
# (CallDirectionsResolved), runtime scope materialization (RuntimeScopesMaterialized) and loop
# carry classification (IterArgCarryClassified).  "Preserves NoNestedCalls" has no field in
# `PassProperties`: PyPTO keeps every established property a pass does not invalidate, so
# leaving NoNestedCalls out of `invalidated` is how it is preserved.
SPMD_PROPERTIES = Properties(
    required=("NoNestedCalls", "ReturnParamsExplicit"),
    produced=("NormalizedStmtStructure",),
    invalidated=("CallDirectionsResolved", "RuntimeScopesMaterialized", "IterArgCarryClassified"),
)

# Seed property names with no `IRProperty` counterpart in this PyPTO, and what stands in for them.
UNMAPPED = {
    "GraphBoundaryLegalized": "legalog's own GraphBoundaryLegalized verifier, run by the pass on its output"
}


class PipelineError(ValueError):
    """The strategy has no place for a pass: an anchor pass is missing or out of order."""


def _needs_pypto(make: Callable[P, R]) -> Callable[P, R]:
    """`make` imports PyPTO: without it, an ImportError that says what PyPTO is needed for (a bare
    "No module named 'pypto'" reads like a broken legalog install)."""

    @functools.wraps(make)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return make(*args, **kwargs)
        except ModuleNotFoundError as err:
            if not _pypto_missing(err):
                raise
            raise ImportError(
                f"legalog.pypto.{make.__name__} needs PyPTO (`import pypto` failed: {err}): it builds PyPTO "
                "passes and pipelines, printing each Program with PyPTO's python_print and parsing legalog's "
                "rewrite back with pl.parse. Install PyPTO, or use legalog without it: `legalog check` / "
                "`legalog.analyze` on the dumps PyPTO writes (passes_dump/NN_after_<Pass>.py).",
                name=err.name,
            ) from err

    return wrapper


def _pypto_missing(err: ModuleNotFoundError) -> bool:
    """Whether the module not found is PyPTO itself (not one of its own dependencies: that is a
    broken PyPTO install, reported as it is)."""
    return (err.name or "").partition(".")[0] == "pypto"


@_needs_pypto
def legalize_graph_boundary(runtime: str | Any | None = None, *, stage: Stage | None = None) -> Any:
    """LegalizeGraphBoundary as a `pypto.passes.Pass`.

    `runtime`: "host_build_graph", "tensormap_and_ringbuffer" or a `passes.RuntimeKind`; None (the
    default) reads the runtime of the `PassContext` the pass runs in, as PyPTO's passes do (and,
    with no context, PyPTO's default runtime, under which every Graph is rejected).  `stage`
    runs each stage of the pass, as `pipeline.analyze`'s does (`bench/` times them)."""
    return _make_pass(GRAPH_PASS, GRAPH_PROPERTIES, ("graph",), runtime, stage)


@_needs_pypto
def legalize_spmd_launches(*, stage: Stage | None = None) -> Any:
    """LegalizeSpmdLaunches as a `pypto.passes.Pass` (no configuration: the seed's "needs no flag")."""
    return _make_pass(SPMD_PASS, SPMD_PROPERTIES, ("spmd",), None, stage)


@_needs_pypto
def verify_graph_boundary(program: Any, runtime: str | Any | None = None) -> tuple[Diagnostic, ...]:
    """GraphBoundaryLegalized on a PyPTO Program, for a pass after LegalizeGraphBoundary to call:
    the diagnostics of every post-condition that fails (empty when they hold), located in the
    printed program, as the pass itself verifies its own output.  `runtime` as for
    `legalize_graph_boundary`.  A program without a Graph or host tensor access holds them
    trivially and is not printed."""
    from pypto.ir.printer import python_print

    from legalog.pipeline import verify_postconditions
    from legalog.pypto_objects import passes_with_work

    if not passes_with_work(program, ("graph",)):
        return ()
    text = python_print(program, format=False)
    return verify_postconditions(text, "<GraphBoundaryLegalized>", _runtime_name(runtime), passes=("graph",))


@_needs_pypto
def default_pipeline(
    runtime: str | Any | None = None,
    *,
    analyze_auto_scopes_for_deps: bool = False,
    stage: Stage | None = None,
) -> Any:
    """PyPTO's Default strategy with both passes inserted by pass name, as a `passes.PassPipeline`:
    LegalizeSpmdLaunches immediately before DeriveCallDirections (and so after
    LowerL2TensorCollectives, where the strategy has it), LegalizeGraphBoundary after the final
    Simplify, immediately before MaterializeRuntimeScopes.  `runtime` is LegalizeGraphBoundary's
    (see `legalize_graph_boundary`).  Build the pipeline inside the `PassContext` it runs in:
    PyPTO's strategy fixes its pass list from that context's memory planner.
    `stage` as for `legalize_graph_boundary`.
    Raises `PipelineError` when the strategy lacks an anchor or already has either pass."""
    from pypto import passes
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager

    manager = PassManager.get_strategy(
        OptimizationStrategy.Default, analyze_auto_scopes_for_deps=analyze_auto_scopes_for_deps
    )
    ordered = insert_passes(
        list(manager.passes),
        legalize_spmd_launches(stage=stage),
        legalize_graph_boundary(runtime, stage=stage),
    )
    pipeline = passes.PassPipeline()
    for one in ordered:
        pipeline.add_pass(one)
    return pipeline


def insert_passes(strategy: Sequence[Any], spmd: Any, graph: Any) -> list[Any]:
    """`strategy` (passes in execution order) with `spmd` and `graph` at the seeds' positions."""
    names = [p.get_name() for p in strategy]
    for present in (GRAPH_PASS, SPMD_PASS):
        if present in names:
            raise PipelineError(
                f"the strategy already runs {present}; inserting legalog's as well would run it twice"
            )
    spmd_at = _index(names, SPMD_BEFORE, SPMD_PASS)
    if SPMD_AFTER in names and names.index(SPMD_AFTER) > spmd_at:
        raise PipelineError(
            f"{SPMD_PASS} must run after {SPMD_AFTER} and before {SPMD_BEFORE}, "
            f"but this strategy runs {SPMD_AFTER} after {SPMD_BEFORE}"
        )
    graph_at = _index(names, GRAPH_BEFORE, GRAPH_PASS)
    simplify = [i for i, name in enumerate(names) if name == GRAPH_AFTER]
    if not simplify or simplify[-1] > graph_at:
        wrong = (
            f"its last {GRAPH_AFTER} runs after {GRAPH_BEFORE}"
            if simplify
            else f"it has no {GRAPH_AFTER} before {GRAPH_BEFORE}"
        )
        raise PipelineError(
            f"{GRAPH_PASS} runs after the final {GRAPH_AFTER}, immediately before {GRAPH_BEFORE}, "
            f"but in this strategy {wrong}"
        )
    # Insert the later position first, so the earlier index stays valid.
    ordered = list(strategy)
    for at, one in sorted(((spmd_at, spmd), (graph_at, graph)), key=lambda pair: pair[0], reverse=True):
        ordered.insert(at, one)
    return ordered


def _index(names: list[str], anchor: str, for_pass: str) -> int:
    if anchor not in names:
        raise PipelineError(
            f"cannot place {for_pass}: the strategy has no {anchor} pass (passes: {', '.join(names)})"
        )
    return names.index(anchor)


# ------------------------------------------------------------------------------------ the passes


def _make_pass(
    name: str,
    properties: Properties,
    chosen: tuple[PassName, ...],
    runtime: str | Any | None,
    stage: Stage | None,
) -> Any:
    from pypto import passes

    if runtime is not None:
        _runtime_name(runtime)  # a wrong runtime is an error when the pass is made, not when it runs
    declared = passes.PassProperties(
        _property_set(properties.required),
        _property_set(properties.produced),
        _property_set(properties.invalidated),
    )
    run = functools.partial(_transform, name, chosen, runtime, stage or _run)
    return passes.create_program_pass(run, name, declared)


def _run(name: str, run: Callable[[], R], /) -> R:
    return run()


def _property_set(names: tuple[str, ...]) -> Any:
    from pypto import passes

    found = passes.IRPropertySet()
    for name in names:
        found.insert(getattr(passes.IRProperty, name))
    return found


def _runtime_name(runtime: str | Any | None) -> str:
    """legalog's runtime name for `runtime`, or for the active PassContext's when None."""
    from pypto import passes

    from legalog.facts.limits import RUNTIMES

    if isinstance(runtime, str):
        if runtime not in RUNTIMES:
            raise ValueError(
                f"unknown runtime {runtime!r}; expected one of {', '.join(RUNTIMES)} or a passes.RuntimeKind"
            )
        return runtime
    if runtime is None:
        context = passes.PassContext.current()
        runtime = (
            context.get_runtime() if context is not None else passes.RuntimeKind.TENSORMAP_AND_RINGBUFFER
        )
    return str(passes.runtime_kind_to_name(runtime))


def _transform(
    name: str, chosen: tuple[PassName, ...], runtime: str | Any | None, stage: Stage, program: Any
) -> Any:
    """One pass over `program`: the same Program when legal, the rewrite, or an error."""
    from pypto.ir.printer import python_print

    from legalog import pipeline
    from legalog.pypto_objects import kernel_names, passes_with_work, without_kernel_bodies

    if not stage("scan", lambda: passes_with_work(program, chosen)):
        return program  # nothing to decide: PyPTO's own object, never printed
    kernels = kernel_names(program)
    analyze = functools.partial(
        pipeline.analyze,
        path=f"<{name} input>",
        runtime=_runtime_name(runtime),
        passes=chosen,
        stage=stage,
        # GraphBoundaryLegalized is LegalizeGraphBoundary's (legalog's verifier stands in for it), run
        # when PyPTO would verify it (`_verifying`); LegalizeSpmdLaunches produces NormalizedStmtStructure,
        # which PyPTO's own verifier checks.  `check`, `fix` and the library verify both always.
        verify="graph" in chosen and _verifying(),
        report=False,  # a pass reads the status, errors and plans, never what only a report says
    )
    # The objects read as the model, unprinted, where legalog.ir.objects knows every node.
    read = stage("objects", lambda: _read_objects(program, kernels))
    if read is not None:
        analysis = analyze(read)
        if analysis.status == "legal":
            return program
        if analysis.status == "rejected":  # the model's positions are the objects' spans: the user's
            raise _rejected(name, program, analysis.errors, [_span_of(program, d) for d in analysis.errors])
        if analysis.status == "rewritten":
            # The plan the model's rewrite obeyed, obeyed on the objects: no printing, no parsing.
            applied = stage("apply", lambda: _apply_to_objects(analysis, program))
            if applied is not None:
                return applied

            def whole() -> pipeline.Analysis:  # only where the changed functions cannot be parsed alone
                return analyze(python_print(program, format=False))

            return stage("rebuild", lambda: _rebuild(name, analysis, program, whole))
    # format=False is the printing PyPTO's dumps (and so legalog's corpus) use.
    text = stage("print", lambda: python_print(program, format=False))
    # Of a kernel, the analysis reads only its signature and returns: the rest of its body is
    # not read at all (most of a program's text), on the lines it has in `text`.
    analysis = analyze(stage("print", lambda: without_kernel_bodies(text, kernels)))
    if analysis.status == "error" and kernels:  # blanked wrongly (not PyPTO's usual printing)
        analysis = analyze(text)
    if analysis.status == "error":  # legalog cannot read PyPTO's own printing: legalog's failure
        import pypto

        lines = text.splitlines()
        unread = [f"  {d.code} at line {d.line}:{d.column}: {d.message}" for d in analysis.errors]
        quoted = [
            f"      {d.line} | {lines[d.line - 1].strip()[:200]}"
            for d in analysis.errors[:1]
            if 0 < d.line <= len(lines)
        ]
        raise pypto.InternalError(
            "\n".join([f"{name} (legalog) cannot read the printed program:", *unread, *quoted])
        )
    if analysis.status == "rejected":
        raise _rejected(name, program, analysis.errors, _user_spans(program, analysis.errors, text))
    if analysis.status == "legal":
        return program  # nothing changed: keep PyPTO's own nodes and spans
    # The printing names PyPTO's variables as they are named, but where it had to rename one: an
    # applier meets such a name as one it cannot find, and the changed functions are parsed.
    applied = stage("apply", lambda: _apply_to_objects(analysis, program))
    if applied is not None:
        return applied
    return stage("rebuild", lambda: _rebuild(name, analysis, program, lambda: analyze(text)))


def _read_objects(program: Any, kernels: frozenset[str]) -> Program | None:
    """legalog's model of `program` read from its objects (kernels to their returns, as the
    analysis reads them), or None where `legalog.ir.objects` does not know a node."""
    from legalog.ir.objects import Unsupported, read_program

    try:
        return read_program(program, returns_only=kernels)
    except Unsupported:
        return None


def _apply_to_objects(analysis: Analysis, program: Any) -> Any | None:
    """`program` with each pass's plan (`Analysis.plans`) applied to its objects by that plan's
    object applier, or None where an applier meets what it does not know (`Unsupported`): the
    changed functions are then rebuilt from their printing.  A plan names the variables as the
    objects do only where the analysis did not version them into SSA names."""
    from legalog.ir.objects import Unsupported

    if analysis.versions:
        return None
    out = program
    try:
        for pass_name, plan in analysis.plans.items():
            out = _object_applier(pass_name)(out, plan)
    except Unsupported:
        return None
    return out


def _object_applier(pass_name: PassName) -> Callable[[Any, Any], Any]:
    """The applier of a pass's plan onto PyPTO's objects (beside its applier onto the model)."""
    if pass_name == "graph":
        from legalog.rewriter.graph_boundary_objects import apply_graph_plan_to_objects

        return apply_graph_plan_to_objects
    from legalog.rewriter.spmd_guard_objects import apply_guard_plan_to_objects

    return apply_guard_plan_to_objects


def _verifying() -> bool:
    """Whether the pass verifies GraphBoundaryLegalized on its output: when the active PassContext
    holds a `VerificationInstrument`, as PyPTO verifies the properties a pass produces.  PyPTO's
    pipeline on its own, at its default BASIC level, verifies only a fixed set of lightweight
    properties (`GetVerifiedProperties`, src/ir/transforms/passes.cpp: produced ∩ that set); every
    other produced property (NormalizedStmtStructure, SplitIncoreOrch...) is verified only by a
    `VerificationInstrument` (`PassManager`'s docstring: "With property verification via
    PassContext").  A full re-derivation of the pass's post-conditions is no lightweight check,
    and GraphBoundaryLegalized is no `IRProperty` here for that set to hold, so it is verified as
    PyPTO's own heavy properties are.  The instrument's mode is not readable from Python: any
    instrument asks for it (verifying also under BEFORE costs time, never a wrong answer)."""
    from pypto import passes

    context = passes.PassContext.current()
    return context is not None and any(
        isinstance(one, passes.VerificationInstrument) for one in context.get_instruments()
    )


def _rebuild(name: str, analysis: Analysis, program: Any, whole: Callable[[], Analysis]) -> Any:
    """The rewrite as a PyPTO Program: only the changed functions parsed again where
    `legalog.pypto_objects.rebuild` can, else the whole printed rewrite, of the analysis of the
    whole printed program (`whole`: `analysis` read kernels' signatures and returns only)."""
    from legalog.pypto_objects import changed_functions, rebuild

    before, after = analysis.source, analysis.output
    changed = changed_functions(before, after) if before is not None and after is not None else None
    if after is not None and changed is not None:
        spans = functools.partial(_source_map, program) if _parse_takes_source_map() else None
        rebuilt = rebuild(program, after, changed, f"<{name} output>", spans)
        if rebuilt is not None:
            return rebuilt
    return _reparse(name, whole().legalized_text() or "", program)


def _reparse(name: str, text: str, program: Any) -> Any:
    """The rewrite as a PyPTO Program.  Where this PyPTO's parser takes a `source_map`, each
    statement that binds a name the input already bound keeps the input's span, so what later
    passes and codegen report still points at the user's own source; what the pass added (a
    call site's hoisted value, a guard) is placed in the printed output."""
    import pypto
    import pypto.language as pl

    extra = {"source_map": _source_map(program, text)} if _parse_takes_source_map() else {}
    try:
        return pl.parse(text, filename=f"<{name} output>", **extra)
    except Exception as err:  # any parser failure here is legalog's, and said so
        raise pypto.InternalError(
            f"{name} (legalog): PyPTO's parser rejects legalog's rewrite: {type(err).__name__}: {err}"
        ) from err


def _rejection_type() -> type[Exception]:
    """`PassRejected`: a `pypto.pypto_core.ValueError` when PyPTO imports (made on first use: its
    base needs pypto), else a plain `ValueError` of the same shape, so that `except
    legalog.pypto.PassRejected:` works where PyPTO is absent (no pass runs there to raise it)."""
    try:
        from pypto import pypto_core
    except ModuleNotFoundError as err:
        if not _pypto_missing(err):
            raise
        return _rejection_class(ValueError)
    return _rejection_class(pypto_core.ValueError)


@functools.cache
def _rejection_class(base: type[Exception]) -> type[Exception]:
    def init(
        self: Any,
        pass_name: str,
        diagnostics: tuple[Diagnostic, ...],
        sources: tuple[str | None, ...],
        message: str,
    ) -> None:
        base.__init__(self, message)
        self.pass_name = pass_name
        self.diagnostics = diagnostics
        self.sources = sources

    doc = (
        "A legalog pass rejected the program. `diagnostics` are legalog's (code, function, line, "
        "column, message), each placed where it is in the user's own code: the line and column of the "
        "span PyPTO keeps on the node (the statement that binds its subject, else its function), 0:0 "
        "where PyPTO kept none. `sources` holds, for each, that place as `file:line:column`, or None. "
        "A `pypto.pypto_core.ValueError`, as PyPTO's own passes raise on a program they reject "
        "(without PyPTO, where no pass can run, a plain ValueError)."
    )
    return type("PassRejected", (base,), {"__init__": init, "__doc__": doc, "__module__": __name__})


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a finding is in the user's own source: the file PyPTO's span names, line, column."""

    filename: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"


def _rejected(
    name: str, program: Any, errors: tuple[Diagnostic, ...], places: Sequence[_Place | None]
) -> Exception:
    """`PassRejected` for `errors`, each moved to its place in the user's source (0:0 where PyPTO
    kept no span), its message quoting that line where the file is readable."""
    located = tuple(
        replace(d, line=p.line, column=p.column) if p is not None else replace(d, line=0, column=0)
        for d, p in zip(errors, places, strict=True)
    )
    sources = tuple(str(p) if p is not None else None for p in places)
    return _rejection_type()(name, located, sources, _message(name, located, places))


def _message(name: str, errors: tuple[Diagnostic, ...], places: Sequence[_Place | None]) -> str:
    """One line per diagnostic (code, function, where it is in the user's source, message) and
    the source line it names, when the file can be read."""
    import linecache

    out = [f"{name} (legalog) rejects the program: {len(errors)} error{'s' if len(errors) != 1 else ''}"]
    for d, place in zip(errors, places, strict=True):
        where = f"in `{d.function}` " if d.function else ""
        at = f"at {place}" if place is not None else "(PyPTO kept no span for it)"
        out.append(f"  {d.code} {where}{at}: {d.message}")
        if place is not None and (line := linecache.getline(place.filename, place.line).strip()):
            out.append(f"      {place.line} | {line[:200]}")
    return "\n".join(out)


def _span_of(program: Any, d: Diagnostic) -> _Place | None:
    """The place of a finding made on the model read from `program`'s objects: its line and
    column are already the node's span; the file is its function's (else the program's)."""
    fn = program.get_function(d.function) if d.function else None
    span = (fn or program).span
    if d.line <= 0 or not span.is_valid():
        return None
    return _Place(span.filename, d.line, d.column)


def _user_spans(program: Any, errors: tuple[Diagnostic, ...], text: str) -> list[_Place | None]:
    """Where each diagnostic made on PyPTO's printing (`text`) is in the code the user wrote:
    PyPTO keeps a span (file, line, column) on every node it built from a DSL source, and the
    printed IR has lost them.  A finding on a printed line that binds a name is at the assignment
    that line prints: the k-th assignment of that name in the function, as the line is the k-th
    printed one (a name may be bound again outside SSA form); else at the binding of its subject;
    else at its function."""
    from legalog.rewriter.objects_walk import assignments

    lines = text.splitlines()
    walked: dict[str, tuple[dict[str, list[Any]], dict[str, Any]]] = {}  # each function walked once
    out: list[_Place | None] = []
    for d in errors:
        fn = program.get_function(d.function) if d.function else None
        if fn is None:
            out.append(None)
            continue
        if fn.name not in walked:
            walked[fn.name] = (
                {n: [a.span for a in s] for n, s in assignments(fn.body).items()},
                _binding_spans(fn),
            )
        assigned, bound = walked[fn.name]
        span = _printed_assignment(assigned, lines, d.line) or bound.get(d.subject or "") or fn.span
        out.append(_Place(span.filename, span.begin_line, span.begin_column) if span.is_valid() else None)
    return out


def _printed_assignment(assigned: dict[str, list[Any]], lines: list[str], line: int) -> Any | None:
    """The span of the assignment printed at `line` (1-based) of `lines`, among the function's
    assignment spans by name (`assigned`); None when that line prints none."""
    if not 0 < line <= len(lines) or (bound := _assigned(lines[line - 1])) is None:
        return None
    start = next((k for k in range(line - 1, -1, -1) if _DEF.match(lines[k])), 0)
    nth = sum(_assigned(lines[k]) == bound for k in range(start, line - 1))
    spans = assigned.get(bound, [])
    return spans[nth] if nth < len(spans) else None


def _assigned(line: str) -> str | None:
    """The one name a printed line assigns (`name: type = value`, `name = value`), but a branch's
    or loop's `pl.yield_`, which prints no assignment of its own."""
    bound = _BINDING.match(line)
    return bound.group(1) if bound and "yield_(" not in line else None


@functools.cache
def _parse_takes_source_map() -> bool:
    """Whether this PyPTO's `pl.parse` takes a `source_map` (later versions): asked once."""
    import inspect

    import pypto.language as pl

    return "source_map" in inspect.signature(pl.parse).parameters


def _source_map(program: Any, text: str) -> dict[int, tuple[str, int, int]]:
    """Line of `text` -> (file, line, column) of the input's binding of the name that line binds
    in the same function (a `def` line: the function's own span)."""
    out: dict[int, tuple[str, int, int]] = {}
    spans: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if header := _DEF.match(line):
            fn = program.get_function(header.group(1))
            spans = _binding_spans(fn) if fn is not None else {}
            span = fn.span if fn is not None else None
        else:
            bound = _BINDING.match(line)
            span = spans.get(bound.group(1)) if bound else None
        if span is not None and span.is_valid():
            out[number] = (span.filename, span.begin_line, span.begin_column)
    return out


_DEF = re.compile(r"\s*def\s+([A-Za-z_]\w*)\s*\(")
# the name a printed statement binds: `name: type = ...` or `name = ...`
_BINDING = re.compile(r"\s*([A-Za-z_]\w*)\s*[:=]")


def _binding_spans(fn: Any) -> dict[str, Any]:
    """Printed name -> the span of the first node that binds it in `fn` (a parameter, an
    assignment, a loop variable, a loop's iteration argument or result)."""
    from pypto.pypto_core import ir

    spans: dict[str, Any] = {}

    def bind(var: Any) -> None:
        if var.span.is_valid():
            spans.setdefault(var.name_hint, var.span)

    class Bindings(ir.IRVisitor):  # PyPTO's own visitor walks every statement
        def visit_assign_stmt(self, op: Any) -> None:
            if op.span.is_valid():
                spans.setdefault(op.var.name_hint, op.span)
            super().visit_assign_stmt(op)

        def visit_for_stmt(self, op: Any) -> None:
            for var in (op.loop_var, *op.iter_args, *op.return_vars):
                bind(var)
            super().visit_for_stmt(op)

    for param in fn.params:
        bind(param)
    Bindings().visit_stmt(fn.body)
    return spans


def __getattr__(attr: str) -> Any:  # `legalog.pypto.PassRejected`, made when first asked for
    if attr == "PassRejected":
        return _rejection_type()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


__all__ = [
    "GRAPH_PASS",
    "SPMD_PASS",
    "PipelineError",
    "Properties",
    "default_pipeline",
    "insert_passes",
    "legalize_graph_boundary",
    "legalize_spmd_launches",
    "verify_graph_boundary",
]
