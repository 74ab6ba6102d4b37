"""Turn analyses into what people and tools read: the report model, Ruff-shaped text, SARIF 2.1.0."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import quote

from legalog.version import __version__
from legalog.pipeline import Analysis
from legalog.analyzer.codes import CODES
from legalog.analyzer.diagnostics import Diagnostic
from legalog.analyzer.graph import GraphDecision, plain_name, plain_text
from legalog.surfaces.report import (
    DiagnosticModel,
    FileModel,
    GraphModel,
    HoistedAlloc,
    HoistedScalar,
    HoistedView,
    RemovedAlias,
    LaunchModel,
    ReportModel,
)
from legalog.ir.printer import print_expr


def diagnostic_model(d: Diagnostic) -> DiagnosticModel:
    return DiagnosticModel(code=d.code, severity=d.severity, function=d.function, line=d.line, column=d.column,
                           subject=plain_name(d.subject) if d.subject else None, message=d.message,
                           help=CODES[d.code].help, fixable=d.fixable)  # fmt: skip


def graph_model(g: GraphDecision, params_before: Sequence[str], prefix: str) -> GraphModel:
    def strip(text: str) -> str:
        return " ".join(plain_name(tok) for tok in text.split(" "))

    return GraphModel(
        function=g.function,
        params_after=[plain_name(p) for p in params_before] + [plain_name(h.name) for h in g.hoisted],
        hoisted_scalars=[HoistedScalar(param=plain_name(h.name), value=_plain_expr(g, h.name, prefix))
                         for h in g.hoisted if h.kind == "scalar"],
        removed_aliases=[RemovedAlias(name=plain_name(a), target=plain_name(t)) for a, t in g.aliases],
        kept_invariant=[plain_name(v) for v in g.kept_invariant],
        hoisted_views=[HoistedView(param=plain_name(h.name), source=strip(h.source or ""))
                       for h in g.hoisted if h.kind == "view"],
        hoisted_allocs=[HoistedAlloc(param=plain_name(h.name)) for h in g.hoisted if h.kind == "alloc"],
        node_count=g.node_count,
    )  # fmt: skip


def _plain_expr(g: GraphDecision, name: str, prefix: str) -> str:
    return plain_text(print_expr(g.expanded(name), prefix))


def file_model(analysis: Analysis, used_dump: str | None = None) -> FileModel:
    program = analysis.program
    graphs = []
    if program is not None:
        for g in analysis.graphs:
            fn = program.function(g.function)
            graphs.append(graph_model(g, [p.name for p in fn.params] if fn else [], program.prefix))
    return FileModel(
        path=analysis.path or "<input>",
        status=analysis.status,
        diagnostics=[diagnostic_model(d) for d in analysis.diagnostics],
        graphs=graphs,
        launches=[LaunchModel.model_validate(launch.to_json()) for launch in analysis.launches],
        used_dump=used_dump,
    )


def report(files: Iterable[FileModel]) -> ReportModel:
    return ReportModel(files=list(files))


# ----------------------------------------------------------------------------------- text


def render_text(files: Sequence[FileModel], show_summary: bool = True) -> str:
    """Ruff's shape: `CODE [*] message`, `--> file:line:col`, the line with a caret, help, note."""
    chunks: list[str] = []
    for f in files:
        source = f.used_dump or f.path
        lines = _source_lines(source)
        for d in f.diagnostics:
            chunks.append(_render_one(source, d, lines))
    if show_summary:
        chunks.append(summary(files))
    return "\n".join(chunks)


def _render_one(path: str, d: DiagnosticModel, lines: list[str]) -> str:
    mark = " [*]" if d.fixable else ""
    where = f" in `{d.function}`" if d.function else ""
    out = [f"{d.code}{mark} {d.message}", f"  --> {path}:{d.line}:{d.column}{where}"]
    if 0 < d.line <= len(lines):
        gutter = " " * len(str(d.line))
        text = lines[d.line - 1].rstrip("\n")
        shown = text if len(text) <= 160 else text[: max(d.column + 60, 160)] + " ..."
        out += [f"{gutter} |", f"{d.line} | {shown}", f"{gutter} | {' ' * (d.column - 1)}^"]
    info = CODES.get(d.code)
    if info is not None:
        out += [f"  = help: {d.help or info.help}", f"  = note: {info.note}"]
    if d.fixable:
        out.append("  = fix: `legalog fix` applies this rewrite (safe: the verifier re-checks the result)")
    out.append("")
    return "\n".join(out)


def _source_lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def summary(files: Sequence[FileModel]) -> str:
    statuses = Counter(f.status for f in files)
    codes = Counter(d.code for f in files for d in f.diagnostics)
    fixable = sum(d.fixable for f in files for d in f.diagnostics)
    parts = [f"{len(files)} file{'s' if len(files) != 1 else ''}:"]
    parts += [f"{statuses[s]} {s}" for s in ("legal", "rewritten", "rejected", "error") if statuses[s]]
    line = " ".join([parts[0], ", ".join(parts[1:]) or "nothing to check"])
    if codes:
        line += "\n" + "  ".join(f"{code}: {n}" for code, n in sorted(codes.items()))
    if fixable:
        line += f"\n[*] {fixable} fixable with `legalog fix`"
    return line


# ----------------------------------------------------------------------------------- SARIF


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(files: Sequence[FileModel]) -> dict:
    rules = [
        {"id": info.code, "name": info.name, "shortDescription": {"text": info.title},
         "fullDescription": {"text": info.note}, "help": {"text": info.help},
         "defaultConfiguration": {"level": _level(info.severity)}}
        for info in CODES.values()
    ]  # fmt: skip
    index = {info.code: i for i, info in enumerate(CODES.values())}
    results = [
        {"ruleId": d.code, "ruleIndex": index[d.code], "level": _level(d.severity), "message": {"text": d.message},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.used_dump or f.path)},
                                             "region": {"startLine": max(d.line, 1), "startColumn": max(d.column, 1)}}}]}
        for f in files for d in f.diagnostics
    ]  # fmt: skip
    driver = {"name": "legalog", "version": __version__, "informationUri": "https://github.com/hw-native-sys/pypto",
              "rules": rules}  # fmt: skip
    # columns are characters (Unicode code points), not SARIF's default UTF-16 code units
    run = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _uri(path: str) -> str:
    """A SARIF artifact URI: a file:// URI for an absolute path, a relative reference otherwise."""
    p = Path(path)
    return p.as_uri() if p.is_absolute() else quote(p.as_posix())


def _level(severity: str) -> str:
    return {"error": "error", "warning": "warning", "info": "note"}[severity]
