"""An analysis to its report entry (`FileModel`): what a worker sends back.  Apart from
`render`, which turns entries into text and SARIF, so that printing entries (a result-cache hit)
loads nothing of the pipeline."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from legalog.analyzer.codes import CODES, PASS_TITLES
from legalog.analyzer.diagnostics import Diagnostic
from legalog.analyzer.findings import KeptValue
from legalog.analyzer.graph import GraphDecision, plain_name, plain_text
from legalog.ir.printer import print_expr
from legalog.pipeline import Analysis, Validation
from legalog.surfaces.edits import fix_functions, function_edits
from legalog.surfaces.report import (
    DiagnosticModel,
    FileModel,
    GraphModel,
    HoistedAlloc,
    HoistedScalar,
    HoistedView,
    KeptModel,
    LaunchModel,
    PairModel,
    RemovedAlias,
)


def diagnostic_model(d: Diagnostic) -> DiagnosticModel:
    return DiagnosticModel(
        code=d.code,
        severity=d.severity,
        function=d.function,
        line=d.line,
        column=d.column,
        subject=d.subject,
        message=d.message,  # the name as the message shows it
        help=CODES[d.code].help,
        fixable=d.fixable,
    )


def graph_model(
    g: GraphDecision,
    params_before: Sequence[str],
    prefix: str,
    kept: Sequence[KeptValue] = (),
    shown: Callable[[str], str] = plain_name,
) -> GraphModel:
    """`shown`: a value's name as the report shows it (default: the SSA suffix dropped)."""

    def strip(text: str) -> str:
        return " ".join(shown(tok) for tok in text.split(" "))

    return GraphModel(
        function=g.function,
        params_after=[shown(p) for p in params_before] + [shown(h.name) for h in g.hoisted],
        hoisted_scalars=[
            HoistedScalar(param=shown(h.name), value=_plain_expr(g, h.name, prefix))
            for h in g.hoisted
            if h.kind == "scalar"
        ],
        removed_aliases=[RemovedAlias(name=shown(a), target=shown(t)) for a, t in g.aliases],
        kept_invariant=[shown(v) for v in g.kept_invariant],
        hoisted_views=[
            HoistedView(param=shown(h.name), source=strip(h.source or ""))
            for h in g.hoisted
            if h.kind == "view"
        ],
        hoisted_allocs=[HoistedAlloc(param=shown(h.name)) for h in g.hoisted if h.kind == "alloc"],
        node_count=g.node_count,
        params_before=[shown(p) for p in params_before],
        kept=[
            KeptModel(name=shown(k.name), kind=k.kind, line=k.line, reason=k.reason)
            for k in kept
            if k.function == g.function
        ],
    )


def _plain_expr(g: GraphDecision, name: str, prefix: str) -> str:
    return plain_text(print_expr(g.expanded(name), prefix))


def _shown_names(analysis: Analysis, function: str) -> Callable[[str], str]:
    """How the report names a value of `function`: a frontend dump's in its own names, and a
    parameter `fix` adds as the written output names it (a name the dump binds twice keeps the
    suffix that tells the two apart: `off__ssa_v0`, `off__ssa_v1`, never `off` twice)."""
    v = analysis.versions.get(function)
    if v is None:
        return plain_name
    written = analysis.output.function(function) if analysis.output is not None else None
    rewritten = analysis.legalized.function(function) if analysis.legalized is not None else None
    params = (
        {a.name: b.name for a, b in zip(rewritten.params, written.params)}
        if rewritten is not None and written is not None
        else {}
    )
    return lambda name: params.get(name) or plain_name(v.printed.get(name, name))


def file_model(analysis: Analysis, used_dump: str | None = None) -> FileModel:
    program = analysis.program
    graphs = []
    if program is not None:
        for g in analysis.graphs:
            fn = program.function(g.function)
            graphs.append(
                graph_model(
                    g,
                    [p.name for p in fn.params] if fn else [],
                    program.prefix,
                    analysis.kept,
                    _shown_names(analysis, g.function),
                )
            )
    edits = function_edits(analysis)
    diagnostics = [diagnostic_model(d) for d in analysis.diagnostics]
    return FileModel(
        path=analysis.path or "<input>",
        status=analysis.status,
        # fixable means `fix` writes it: never on a file it writes nothing for (rejected, or no edits)
        diagnostics=[
            replace(d, fix_functions=fix_functions(d, analysis, edits), fixable=d.fixable and bool(edits))
            for d in diagnostics
        ],
        edits=edits,
        graphs=graphs,
        launches=[LaunchModel(**launch.to_json()) for launch in analysis.launches],  # type: ignore[arg-type]
        used_dump=used_dump,
    )


def validation_model(v: Validation, before: str, after: str | None, folder: str | None = None) -> FileModel:
    """A `validate` entry: reported as the file its findings are located in (in a passes_dump
    folder: the folder, that file its `used_dump`), with the pair it judged."""
    where = v.path or after or before
    return FileModel(
        path=folder or where,
        status=v.status,
        diagnostics=[diagnostic_model(d) for d in v.diagnostics],
        used_dump=where if folder is not None else None,
        pair=PairModel(pass_name=PASS_TITLES[v.pass_name], before=before, after=after),
    )
