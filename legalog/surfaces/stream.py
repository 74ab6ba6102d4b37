"""A report written entry by entry: `check` prints each entry as soon as the batch yields it (in
the batch's order) and then lets it go, so the memory of a batch of any size stays that of the few
entries not yet printable plus a `Tally` — never the whole report.

The bytes are those of rendering the whole report at once (render_text, ReportModel's JSON,
render_sarif's JSON): each format's document is rendered once with its entry list empty, split
at that list, and every entry is rendered alone and indented to the list's depth (JSON strings
never span lines, so indenting every line is exact)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import TextIO

from legalog.surfaces.formats import (
    JUNIT_HEAD,
    JUNIT_TAIL,
    canonical,
    gitlab_issues,
    items,
    json_safe,
    lossy,
)
from legalog.surfaces.render import Tally, quoted_lines, render_sarif, sarif_results, text_chunks
from legalog.surfaces.report import FileModel, ReportModel, RunModel, to_json

__all__ = ["write_report"]

Lines = Mapping[int, str]
# a shard's `run` block, made once every entry is written, from the source lines they quote
RunBlock = Callable[[dict[str, dict[int, str]]], RunModel]


def write_report(
    files: Iterable[FileModel],
    fmt: str,
    out: TextIO,
    *,
    run: RunBlock | None = None,
    verbose: bool = False,
    lines_of: Callable[[str], Lines] | None = None,
    colour: bool = False,
    quiet: bool = False,
) -> Tally:
    """Write the report of `files` (consumed one at a time) in `fmt` (legalog.surfaces.formats:
    full, concise, json, json-lines, sarif, github, gitlab, junit) to `out`, ending with a newline
    (nothing at all for an empty json-lines or github report); `run`: the JSON's shard block
    (ignored by the others); `quiet`: the findings alone (no Graph lines, no summary)."""
    _flush(out)  # what was printed before (the `passes_dump ...` lines)
    fmt = canonical(fmt)
    counts = Tally()
    quoted: dict[str, dict[int, str]] = {}
    if fmt == "full":
        first = True
        for f in files:
            counts.add(f)
            for chunk in text_chunks(f, verbose, lines_of, colour=colour, graphs=not quiet):
                out.write(chunk if first else "\n" + chunk)  # every chunk ends with its own newline
                first = False
            _flush(out)
        if not quiet:
            out.write(("" if first else "\n") + counts.summary() + "\n")
        return counts
    if fmt in ("concise", "json-lines", "github"):
        for f in files:
            counts.add(f)
            out.writelines(line + "\n" for line in items(f, fmt))
            _flush(out)
        if fmt == "concise" and not quiet:
            out.write(counts.summary() + "\n")
        return counts
    if fmt == "junit":
        out.write(JUNIT_HEAD)
        for f in files:
            counts.add(f)
            out.writelines("\n" + suite for suite in items(f, fmt))
            _flush(out)
        out.write("\n" + JUNIT_TAIL + "\n")
        return counts
    if fmt in ("sarif", "gitlab"):
        array = (
            _Array(json.dumps(render_sarif([]), indent=2), "results", out)
            if fmt == "sarif"
            else _Array("[]", None, out)
        )
        for f in files:
            counts.add(f)
            for item in sarif_results(f, lines_of) if fmt == "sarif" else gitlab_issues(f):
                array.item(json.dumps(json_safe(item), indent=2))
            _flush(out)
        array.close()
        return counts
    report = _Array(to_json(ReportModel(files=[]), indent=2), "files", out)
    for f in files:
        counts.add(f)
        report.item(lossy(to_json(f, indent=2)))
        _flush(out)
        if run is not None:
            for path, lines in quoted_lines([f]).items():  # in entry order, as quoted_lines(all) orders them
                quoted.setdefault(path, {}).update(lines)
    # the `run` block comes after `files`: the document's end is rendered once it is known
    report.close(
        lossy(to_json(ReportModel(files=[], run=run(quoted) if run is not None else None), indent=2))
    )
    return counts


def _flush(out: TextIO) -> None:
    # Written means on its way: and a worker process forked now (a pool re-running a crashed file)
    # must not inherit unwritten output, which it would write again when it exits.
    out.flush()


class _Array:
    """A JSON document (`indent=2`) written around its list `key`, whose items arrive one by one;
    `document` is the document rendered with that list empty.  Its head is written at once."""

    def __init__(self, document: str, key: str | None, out: TextIO) -> None:
        self.key, self.out, self.items = key, out, 0
        head, self.indent, self.tail = self._split(document)
        out.write(head)
        _flush(out)

    def item(self, text: str) -> None:
        inner = self.indent + "  "
        self.out.write(
            ("," if self.items else "") + "\n" + "\n".join(inner + line for line in text.split("\n"))
        )
        self.items += 1

    def close(self, document: str | None = None) -> None:
        """Write the document's end; `document`: the whole document again, when its end changed."""
        tail = self._split(document)[2] if document is not None else self.tail
        self.out.write((f"\n{self.indent}" if self.items else "") + tail + "\n")

    def _split(self, document: str) -> tuple[str, str, str]:
        """(the head through the list's `[`, the indent of the list's line, the rest from its `]`):
        the first `"key": []` is the list (a string holding those characters escapes its quotes);
        with no key, the document is the list."""
        if self.key is None:
            return document[:1], "", document[1:]
        marker = f'"{self.key}": ['
        at = document.index(marker + "]")
        indent = document[document.rindex("\n", 0, at) + 1 : at]
        return document[: at + len(marker)], indent, document[at + len(marker) :]
