"""Turn analyses into what people and tools read: the report model, Ruff-shaped text, SARIF 2.1.0."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from legalog.analyzer.codes import CODES
from legalog.analyzer.diagnostics import Diagnostic
from legalog.analyzer.findings import KeptValue
from legalog.analyzer.graph import GraphDecision, plain_name, plain_text
from legalog.ir.parser import source_lines as read_lines
from legalog.ir.printer import print_expr
from legalog.pipeline import Analysis
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
    RemovedAlias,
)
from legalog.surfaces.rule_docs import rule_markdown, rule_text
from legalog.version import __version__


def diagnostic_model(d: Diagnostic) -> DiagnosticModel:
    return DiagnosticModel(code=d.code, severity=d.severity, function=d.function, line=d.line, column=d.column,
                           subject=plain_name(d.subject) if d.subject else None, message=d.message,
                           help=CODES[d.code].help, fixable=d.fixable)  # fmt: skip


def graph_model(g: GraphDecision, params_before: Sequence[str], prefix: str, kept: Sequence[KeptValue] = ()) -> GraphModel:
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
        params_before=[plain_name(p) for p in params_before],
        kept=[KeptModel(name=plain_name(k.name), kind=k.kind, line=k.line, reason=k.reason)
              for k in kept if k.function == g.function],
    )  # fmt: skip


def _plain_expr(g: GraphDecision, name: str, prefix: str) -> str:
    return plain_text(print_expr(g.expanded(name), prefix))


def file_model(analysis: Analysis, used_dump: str | None = None) -> FileModel:
    program = analysis.program
    graphs = []
    if program is not None:
        for g in analysis.graphs:
            fn = program.function(g.function)
            graphs.append(graph_model(g, [p.name for p in fn.params] if fn else [], program.prefix, analysis.kept))
    edits = function_edits(analysis)
    found = sorted(analysis.diagnostics + analysis.findings, key=lambda d: d.sort_key)
    diagnostics = [diagnostic_model(d) for d in found]
    return FileModel(
        path=analysis.path or "<input>",
        status=analysis.status,
        # fixable means `fix` writes it: never on a file it writes nothing for (rejected, or no edits)
        diagnostics=[d.model_copy(update={"fix_functions": fix_functions(d, analysis, edits), "fixable": d.fixable and bool(edits)})
                     for d in diagnostics],
        edits=edits,
        graphs=graphs,
        launches=[LaunchModel.model_validate(launch.to_json()) for launch in analysis.launches],
        used_dump=used_dump,
    )


# ----------------------------------------------------------------------------------- text


def render_text(
    files: Sequence[FileModel], show_summary: bool = True, verbose: bool = False,
    lines_of: Callable[[str], Mapping[int, str]] | None = None,
) -> str:  # fmt: skip
    """Ruff's shape: `CODE [*] message`, `--> file:line:col`, the line with a caret, help, note;
    then one line per Graph (parameters before -> after, nodes against the limit), and with
    `verbose` every value kept in place and why that is safe.  `lines_of(path)`: the source lines
    to quote, by number (default: read the file)."""
    chunks = [chunk for f in files for chunk in text_chunks(f, verbose, lines_of)]
    if show_summary:
        chunks.append(summary(files))
    return "\n".join(chunks)


def text_chunks(f: FileModel, verbose: bool = False, lines_of: Callable[[str], Mapping[int, str]] | None = None) -> list[str]:
    """One entry's part of `render_text`: its findings, then its Graph lines (the report joins
    every entry's chunks, then the summary, with newlines)."""
    source = f.used_dump or f.path
    lines = (lines_of or source_lines)(source)
    chunks = [_render_one(source, d, lines) for d in f.diagnostics]
    if f.graphs:
        chunks.append("".join(graph_line(source, g, _graph_state(f, g), verbose) + "\n" for g in f.graphs))
    return chunks


def _render_one(path: str, d: DiagnosticModel, lines: Mapping[int, str]) -> str:
    mark = " [*]" if d.fixable else ""
    where = f" in `{d.function}`" if d.function else ""
    out = [f"{d.code}{mark} {d.message}", f"  --> {path}:{d.line}:{d.column}{where}"]
    if (text := lines.get(d.line)) is not None:
        gutter = " " * len(str(d.line))
        shown = text if len(text) <= 160 else text[: max(d.column + 60, 160)] + " ..."
        out += [f"{gutter} |", f"{d.line} | {shown}", f"{gutter} | {' ' * (d.column - 1)}^"]
    info = CODES.get(d.code)
    if info is not None:
        out += [f"  = help: {d.help or info.help}", f"  = note: {info.note}"]
    if d.fixable:
        out.append("  = fix: `legalog fix` applies this rewrite (safe: the verifier re-checks the result)")
    out.append("")
    return "\n".join(out)


GRAPH_MAX_NODES = 1024


GraphState = Literal["changes", "rejected", "held"]


def _graph_state(f: FileModel, g: GraphModel) -> GraphState:
    """Whether the rewrite applies to this Graph, the Graph itself is rejected, or another part
    of a rejected program holds it back (`fix` writes nothing for a rejected program)."""
    if f.status != "rejected":
        return "changes"
    mine = any(d.severity == "error" and d.function == g.function for d in f.diagnostics)
    return "rejected" if mine else "held"


def graph_line(path: str, g: GraphModel, state: GraphState = "changes", verbose: bool = False) -> str:
    """`graph `shift` (path): parameters 3 -> 4 (+1 scalar), 1 of 1024 nodes`."""
    added = [(len(g.hoisted_allocs), "allocation"), (len(g.hoisted_views), "view"), (len(g.hoisted_scalars), "scalar")]
    growth = ", ".join(f"+{n} {what}{'s' if n > 1 else ''}" for n, what in added if n)
    removed = f", {len(g.removed_aliases)} rename{'s' if len(g.removed_aliases) > 1 else ''} deleted" if g.removed_aliases else ""
    nodes = "unbounded nodes" if g.node_count is None else f"{g.node_count} of {GRAPH_MAX_NODES} nodes"
    change = {
        "changes": f"parameters {len(g.params_before)} -> {len(g.params_after)}{f' ({growth})' if growth else ''}{removed}",
        "rejected": f"rejected, parameters {len(g.params_before)}",
        "held": f"parameters {len(g.params_before)}, unchanged: the program is rejected elsewhere",
    }[state]
    line = f"graph `{g.function}` ({path}): {change}, {nodes}"
    if verbose:
        line += "".join(f"\n  kept `{k.name}` ({k.kind}, line {k.line}) in place: {k.reason}" for k in g.kept)
    return line


def source_lines(path: str) -> dict[int, str]:
    """A file's lines by number (from 1); none when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    # numbered as the parser numbers them (`str.splitlines` also breaks at a form feed)
    return {n: line.rstrip("\r\n") for n, line in enumerate(read_lines(text), start=1)}


def quoted_lines(files: Iterable[FileModel]) -> dict[str, dict[int, str]]:
    """Exactly the source lines `render_text` quotes for these files, by path and line number."""
    quoted: dict[str, dict[int, str]] = {}
    for f in (f for f in files if f.diagnostics):
        source = f.used_dump or f.path
        lines = source_lines(source)
        quoted.setdefault(source, {}).update((d.line, lines[d.line]) for d in f.diagnostics if d.line in lines)
    return quoted


@dataclass(slots=True)
class Tally:
    """What a report's end needs of its entries, kept instead of the entries: the summary's
    counts, and the severities and failures the exit status depends on."""

    files: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    fixable: int = 0
    severities: set[str] = field(default_factory=set)
    error_codes: set[str] = field(default_factory=set)  # the codes of `error` entries' diagnostics

    def add(self, f: FileModel) -> None:
        self.files += 1
        self.statuses[f.status] += 1
        self.codes.update(d.code for d in f.diagnostics)
        self.fixable += sum(d.fixable for d in f.diagnostics)
        self.severities.update(d.severity for d in f.diagnostics)
        if f.status == "error":
            self.error_codes.update(d.code for d in f.diagnostics)

    def summary(self) -> str:
        """`N files: a legal, b rewritten, ...`, the count of each code, and how many are fixable."""
        parts = [f"{self.files} file{'s' if self.files != 1 else ''}:"]
        parts += [f"{self.statuses[s]} {s}" for s in ("legal", "rewritten", "rejected", "error") if self.statuses[s]]
        line = " ".join([parts[0], ", ".join(parts[1:]) or "nothing to check"])
        if self.codes:
            line += "\n" + "  ".join(f"{code}: {n}" for code, n in sorted(self.codes.items()))
        if self.fixable:
            line += f"\n[*] {self.fixable} fixable with `legalog fix`"
        return line


def tally(files: Iterable[FileModel]) -> Tally:
    counts = Tally()
    for f in files:
        counts.add(f)
    return counts


def summary(files: Iterable[FileModel]) -> str:
    return tally(files).summary()


# ----------------------------------------------------------------------------------- SARIF


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(files: Sequence[FileModel]) -> dict:
    rules = [
        {"id": info.code, "name": info.name, "shortDescription": {"text": info.title},
         "fullDescription": {"text": info.note},
         "help": {"text": rule_text(info.code), "markdown": rule_markdown(info.code)},
         "defaultConfiguration": {"level": _level(info.severity)}}
        for info in CODES.values()
    ]  # fmt: skip
    results = [result for f in files for result in sarif_results(f)]
    driver = {"name": "legalog", "version": __version__, "informationUri": "https://github.com/hw-native-sys/pypto",
              "rules": rules}  # fmt: skip
    # columns are characters (Unicode code points), not SARIF's default UTF-16 code units
    run = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


_RULE_INDEX = {info.code: i for i, info in enumerate(CODES.values())}  # a result's place in `rules`


def sarif_results(f: FileModel) -> list[dict]:
    """One entry's SARIF results, one per diagnostic."""
    return [_sarif_result(f, d, _RULE_INDEX[d.code]) for d in f.diagnostics]


def _sarif_result(f: FileModel, d: DiagnosticModel, rule_index: int) -> dict:
    uri = _uri(f.used_dump or f.path)
    result = {"ruleId": d.code, "ruleIndex": rule_index, "level": _level(d.severity), "message": {"text": d.message},
              "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri},
                                                  "region": {"startLine": max(d.line, 1), "startColumn": max(d.column, 1)}}}]}
    edits = [e for e in f.edits if e.function in d.fix_functions]
    if edits:
        # one fix: every function the decision touches, each replaced whole (legalog/surfaces/edits.py)
        replacements = [
            {"deletedRegion": {"startLine": e.start_line, "startColumn": e.start_column, "endLine": e.end_line,
                               "endColumn": e.end_column, "charOffset": e.char_offset, "charLength": e.char_length},
             "insertedContent": {"text": e.replacement}}
            for e in edits
        ]
        result["fixes"] = [{"description": {"text": f"legalog fix: rewrite {', '.join(f'`{e.function}`' for e in edits)}"},
                            "artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": replacements}]}]
    return result  # fmt: skip


def _uri(path: str) -> str:
    """A SARIF artifact URI: a file:// URI for an absolute path, a relative reference otherwise."""
    p = Path(path)
    return p.as_uri() if p.is_absolute() else quote(p.as_posix())


def _level(severity: str) -> str:
    return {"error": "error", "warning": "warning", "info": "note"}[severity]
