"""Turn report entries into what people and tools read: Ruff-shaped text, SARIF 2.1.0 (the entries
themselves are built from analyses in `legalog.surfaces.file_models`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from legalog.analyzer.codes import CODES
from legalog.facts.limits import GRAPH_MAX_NODES
from legalog.files import read_regular
from legalog.ir.lines import source_lines as read_lines
from legalog.surfaces.formats import lossy, printable
from legalog.surfaces.report import DiagnosticModel, EditModel, FileModel, GraphModel
from legalog.surfaces.rule_docs import rule_markdown, rule_text
from legalog.version import __version__

# ----------------------------------------------------------------------------------- text


def render_text(
    files: Sequence[FileModel],
    show_summary: bool = True,
    verbose: bool = False,
    lines_of: Callable[[str], Mapping[int, str]] | None = None,
    colour: bool = False,
) -> str:
    """Ruff's shape: `severity[CODE] [*] message`, `--> file:line:col`, the line with a caret,
    help, note; then one line per Graph (parameters before -> after, nodes against the limit),
    and with `verbose` every value kept in place and why that is safe.  `lines_of(path)`: the
    source lines to quote, by number (default: read the file); `colour`: ANSI colours."""
    chunks = [chunk for f in files for chunk in text_chunks(f, verbose, lines_of, colour=colour)]
    if show_summary:
        chunks.append(summary(files))
    return "\n".join(chunks)


def text_chunks(
    f: FileModel,
    verbose: bool = False,
    lines_of: Callable[[str], Mapping[int, str]] | None = None,
    *,
    colour: bool = False,
    graphs: bool = True,
) -> list[str]:
    """One entry's part of `render_text`: its findings, then its Graph lines unless not `graphs`
    (the report joins every entry's chunks, then the summary, with newlines)."""
    lines = (lines_of or source_lines)(f.used_dump or f.path)
    source = printable(f.used_dump or f.path)
    paint = _paint if colour else _plain
    chunks = [_render_one(source, d, lines, paint) for d in f.diagnostics]
    if f.status == "rejected" and f.ignored and not any(d.severity == "error" for d in f.diagnostics):
        chunks.append(
            f"{source}: rejected, but every error is ignored ({', '.join(f.ignored)}); "
            "`legalog fix` writes nothing for it\n"
        )
    if f.graphs and graphs:
        chunks.append("".join(graph_line(source, g, _graph_state(f, g), verbose) + "\n" for g in f.graphs))
    return chunks


# SGR colours as Ruff uses them: the severity by its weight, the code bold, the gutter blue
_STYLES = {"error": "1;31", "warning": "1;33", "info": "1;36", "code": "1", "gutter": "1;34", "fix": "32"}


def _paint(text: str, style: str) -> str:
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"


def _plain(text: str, style: str) -> str:
    return text


def _render_one(
    path: str, d: DiagnosticModel, lines: Mapping[int, str], paint: Callable[[str, str], str] = _plain
) -> str:
    """One diagnostic; `path` as it is shown (`printable`)."""
    mark = paint(" [*]", "fix") if d.fixable else ""
    where = f" in `{d.function}`" if d.function else ""
    head = paint(d.severity, d.severity) + paint(f"[{d.code}]", "code")
    out = [
        f"{head}{mark} {printable(d.message)}",
        f"  {paint('-->', 'gutter')} {path}:{d.line}:{d.column}{where}",
    ]
    if (text := lines.get(d.line)) is not None:
        gutter = " " * len(str(d.line))
        shown = text if len(text) <= 160 else text[: max(d.column + 60, 160)] + " ..."
        caret = " " * len(
            printable(shown[: d.column - 1])
        )  # under the character, however its prefix is spelled
        bar = paint("|", "gutter")
        out += [
            f"{gutter} {bar}",
            f"{paint(str(d.line), 'gutter')} {bar} {printable(shown)}",
            f"{gutter} {bar} {caret}{paint('^', d.severity)}",
        ]
    info = CODES.get(d.code)
    if info is not None:
        out += [f"  = help: {d.help or info.help}", f"  = note: {info.note}"]
    if d.fixable:
        out.append("  = fix: `legalog fix` applies this rewrite (safe: the verifier re-checks the result)")
    out.append("")
    return "\n".join(out)


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
    added = [
        (len(g.hoisted_allocs), "allocation"),
        (len(g.hoisted_views), "view"),
        (len(g.hoisted_scalars), "scalar"),
    ]
    growth = ", ".join(f"+{n} {what}{'s' if n > 1 else ''}" for n, what in added if n)
    removed = (
        f", {len(g.removed_aliases)} rename{'s' if len(g.removed_aliases) > 1 else ''} deleted"
        if g.removed_aliases
        else ""
    )
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
        text = read_regular(path).decode("utf-8", errors="replace")
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
        quoted.setdefault(source, {}).update(
            (d.line, lines[d.line]) for d in f.diagnostics if d.line in lines
        )
    return quoted


@dataclass(slots=True)
class Tally:
    """What a report's end needs of its entries, kept instead of the entries: the summary's
    counts, and the severities and failures the exit status depends on."""

    files: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    fixable: int = 0
    fixable_codes: set[str] = field(default_factory=set)
    severities: set[str] = field(default_factory=set)
    error_codes: set[str] = field(default_factory=set)  # the codes of `error` entries' diagnostics

    def add(self, f: FileModel) -> None:
        self.files += 1
        self.statuses[f.status] += 1
        self.codes.update(d.code for d in f.diagnostics)
        self.fixable += sum(d.fixable for d in f.diagnostics)
        self.fixable_codes.update(d.code for d in f.diagnostics if d.fixable)
        self.severities.update(d.severity for d in f.diagnostics)
        if f.status == "error":
            self.error_codes.update(d.code for d in f.diagnostics)

    def summary(self) -> str:
        """`N files: a legal, b rewritten, ...`, the count of each code, and how many are fixable."""
        parts = [f"{self.files} file{'s' if self.files != 1 else ''}:"]
        parts += [
            counted(self.statuses[s], s)
            for s in ("legal", "rewritten", "rejected", "error")
            if self.statuses[s]
        ]
        line = " ".join([parts[0], ", ".join(parts[1:]) or "nothing to check"])
        if self.codes:
            line += "\n" + "  ".join(f"{code}: {n}" for code, n in sorted(self.codes.items()))
        if self.fixable:
            line += f"\n[*] {self.fixable} fixable with `legalog fix`"
        return line


def counted(n: int, status: str) -> str:
    """`3 rewritten`, `1 error`, `3 errors`: a status or outcome word with its count."""
    return f"{n} {status}s" if status == "error" and n != 1 else f"{n} {status}"


def statistics(counts: Tally) -> str:
    """`check --statistics`, as Ruff's: each code's count (most first), `[*]` where fixable, its name."""
    rows = sorted(counts.codes.items(), key=lambda kv: (-kv[1], kv[0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(
        f"{n:>{width}}\t{code}\t{'[*]' if code in counts.fixable_codes else '[ ]'} {CODES[code].name}\n"
        for code, n in rows
    )


def fixes_listing(files: Iterable[FileModel]) -> str:
    """`--show-fixes`, as Ruff's: per file, how many findings of each code `legalog fix` fixes."""
    lines = []
    for f in files:
        codes = Counter(d.code for d in f.diagnostics if d.fixable)
        if codes:
            lines.append(f"- {f.used_dump or f.path}:")
            lines += [f"    {n} x {code} ({CODES[code].name})" for code, n in sorted(codes.items())]
    if not lines:
        return "\nNo fixes available: `legalog fix` changes nothing.\n"
    return "\nFixable with `legalog fix`:\n" + "\n".join(lines) + "\n"


def tally(files: Iterable[FileModel]) -> Tally:
    counts = Tally()
    for f in files:
        counts.add(f)
    return counts


def summary(files: Iterable[FileModel]) -> str:
    return tally(files).summary()


# ----------------------------------------------------------------------------------- SARIF


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(
    files: Sequence[FileModel], lines_of: Callable[[str], Mapping[int, str]] | None = None
) -> dict:
    """`lines_of(path)`: the source lines, by number, that give each region its end (default:
    read the file)."""
    rules = [
        {
            "id": info.code,
            "name": info.name,
            "shortDescription": {"text": info.title},
            "fullDescription": {"text": info.note},
            "help": {"text": rule_text(info.code), "markdown": rule_markdown(info.code)},
            "defaultConfiguration": {"level": _level(info.severity)},
        }
        for info in CODES.values()
    ]
    results = [result for f in files for result in sarif_results(f, lines_of)]
    driver = {"name": "legalog", "version": __version__, "rules": rules}
    if (docs := documentation_url()) is not None:
        driver["informationUri"] = docs
    # columns are characters (Unicode code points), not SARIF's default UTF-16 code units
    run = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def documentation_url() -> str | None:
    """Where legalog's documentation is, as its package says (`[project.urls]` Documentation,
    else Homepage, in pyproject.toml); None when it names none: SARIF's `informationUri` is
    then left out rather than pointing at another project."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("legalog").get_all("Project-URL") or []
    except PackageNotFoundError:  # run from a checkout that was never installed
        return None
    named = dict(url.split(", ", 1) for url in urls if ", " in url)
    return next((named[k] for k in ("Documentation", "Homepage") if k in named), None)


def _rule_index(code: str) -> int:
    """A result's place in `rules`, as render_sarif lists the table now (an index taken once, at
    import, named the wrong rule, or none, for a code added to the table after it)."""
    return list(CODES).index(code)


def sarif_results(f: FileModel, lines_of: Callable[[str], Mapping[int, str]] | None = None) -> list[dict]:
    """One entry's SARIF results, one per diagnostic.  Fixes apply independently: the fixable
    results whose decisions change a common function share one fix (a whole function is the unit
    of an edit), carried by the first of them; each of the others carries none and points to it
    (`properties.fixedWith`, and a related location).  So the offered fixes never overlap, and
    applying all of them gives `legalog fix`'s output."""
    uri = _uri(f.used_dump or f.path)
    lines = (lines_of or source_lines)(f.used_dump or f.path) if f.diagnostics else {}
    carrier_of, functions_of = fix_groups(f.diagnostics)
    results = []
    for i, d in enumerate(f.diagnostics):
        result = _sarif_result(d, uri, lines)
        carrier = carrier_of.get(i)
        if carrier == i:
            result["guid"] = _fix_guid(uri, i, d)
            result["fixes"] = [
                _sarif_fix(
                    uri,
                    [e for e in f.edits if e.function in functions_of[i]],
                    f.diagnostics,
                    i,
                    [j for j, c in carrier_of.items() if c == i and j != i],
                )
            ]
        elif carrier is not None:
            by = f.diagnostics[carrier]
            result["relatedLocations"] = [
                {
                    "id": 0,
                    "physicalLocation": _location(uri, by, lines),
                    "message": {"text": f"fixed by the fix of {by.code} at {by.line}:{by.column}"},
                }
            ]
            result["properties"] = {"fixedWith": _fix_guid(uri, carrier, by)}
        results.append(result)
    return results


def fix_groups(diagnostics: Sequence[DiagnosticModel]) -> tuple[dict[int, int], dict[int, set[str]]]:
    """For each fixable diagnostic (by index), the index of the first diagnostic whose fix it
    shares (functions in common join fixes, transitively), and for each such first one, the
    functions of the shared fix."""
    carrier_of: dict[int, int] = {}
    functions_of: dict[int, set[str]] = {}
    for i, d in enumerate(diagnostics):
        if not d.fix_functions:
            continue
        mine = set(d.fix_functions)
        joined = sorted({c for c, functions in functions_of.items() if functions & mine})
        carrier = joined[0] if joined else i
        functions_of[carrier] = functions_of.get(carrier, set()) | mine
        for other in joined[1:]:  # this one bridges two groups: the later joins the earlier
            functions_of[carrier] |= functions_of.pop(other)
            carrier_of.update({j: carrier for j, c in carrier_of.items() if c == other})
        carrier_of[i] = carrier
    return carrier_of, functions_of


def _sarif_result(d: DiagnosticModel, uri: str, lines: Mapping[int, str]) -> dict:
    return {
        "ruleId": d.code,
        "ruleIndex": _rule_index(d.code),
        "level": _level(d.severity),
        "message": {"text": d.message},
        "locations": [{"physicalLocation": _location(uri, d, lines)}],
    }


def _location(uri: str, d: DiagnosticModel, lines: Mapping[int, str]) -> dict:
    """The diagnostic's place, to the end of its line (a diagnostic names where a statement or
    expression starts; what follows on that line is what it is about)."""
    line, column = max(d.line, 1), max(d.column, 1)
    text = lines.get(line)
    end = max(len(text) + 1, column + 1) if text is not None else column + 1
    return {
        "artifactLocation": {"uri": uri},
        "region": {"startLine": line, "startColumn": column, "endLine": line, "endColumn": end},
    }


def _sarif_fix(
    uri: str,
    edits: Sequence[EditModel],
    diagnostics: Sequence[DiagnosticModel],
    carrier: int,
    others: Sequence[int],
) -> dict:
    """One fix: every function the decisions touch, each replaced whole (legalog/surfaces/edits.py)."""
    replacements = [
        {
            "deletedRegion": {
                "startLine": e.start_line,
                "startColumn": e.start_column,
                "endLine": e.end_line,
                "endColumn": e.end_column,
                "charOffset": e.char_offset,
                "charLength": e.char_length,
            },
            "insertedContent": {"text": e.replacement},
        }
        for e in edits
    ]
    also = "".join(
        f"; also fixes {diagnostics[j].code} at {diagnostics[j].line}:{diagnostics[j].column}" for j in others
    )
    text = f"legalog fix: rewrite {', '.join(f'`{e.function}`' for e in edits)}{also}"
    return {
        "description": {"text": text},
        "artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": replacements}],
    }


def _fix_guid(uri: str, index: int, d: DiagnosticModel) -> str:
    """A stable GUID for the result carrying a shared fix: the same input gives the same report."""
    import uuid  # only for SARIF output

    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"legalog:{uri}#{index}:{d.code}:{d.line}:{d.column}"))


def _uri(path: str) -> str:
    """A SARIF artifact URI: a file:// URI for an absolute path, a relative reference otherwise
    (a name that is not UTF-8 as every report shows it, `lossy`)."""
    p = Path(lossy(path))
    return p.as_uri() if p.is_absolute() else quote(p.as_posix())


def _level(severity: str) -> str:
    return {"error": "error", "warning": "warning", "info": "note"}[severity]
