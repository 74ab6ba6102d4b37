"""The report formats beside text, JSON and SARIF, one entry at a time (`check --output-format`):

* `concise`: `file:line:col: CODE [*] message`, one line a diagnostic (Ruff's `concise`);
* `json-lines`: one JSON object a diagnostic (the report's diagnostic with its file's `path` and
  `status`; an entry with no diagnostic has no line);
* `github`: GitHub Actions workflow commands, `::error file=F,line=L,col=C,title=T::message`
  (`notice` for info findings), which the runner turns into annotations on the pull request;
* `gitlab`: GitLab's code-quality report, a JSON array of issues (`description`, `check_name`,
  `fingerprint`, `severity`, `location.path`, `location.lines.begin`);
* `junit`: JUnit XML, one `testsuite` per file and one `testcase` per diagnostic (a `failure`
  for an error or a warning, an `error` for a file legalog could not analyse; an info finding,
  or a file with nothing to report, passes).

Every string a terminal shows goes through `printable`, so a binary file's bytes, or a file name's
escape sequences, never reach the terminal raw (nor an XML attribute, where most control
characters may not appear at all); every JSON string through `lossy`, so a file name that is not
UTF-8 never makes the JSON invalid (docs/input-safety.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from legalog.digest import sha256
from legalog.surfaces.report import DiagnosticModel, FileModel, to_dict

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit")
ALIASES = {"text": "full"}  # `--format text`, as before `--output-format`


def canonical(fmt: str) -> str:
    """The format's name, an alias resolved; a ValueError for an unknown one."""
    name = ALIASES.get(fmt, fmt)
    if name not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return name


def printable(text: str) -> str:
    """`text` with every control or otherwise unprintable character (but a tab) spelled as Python
    escapes it: `\\x00`, `\\x1b`, `\\u2028`, and each byte of a name that is not UTF-8 as
    U+FFFD (`lossy`).  Printable text is unchanged."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in lossy(text))


_SURROGATE = re.compile("[\ud800-\udfff]")


def lossy(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD: Python reads each byte of a file name that is
    not UTF-8 as one (`os.fsdecode`), which no UTF-8 output, JSON document or XML can hold.  So
    a report shows such a name as Ruff does (Rust's `to_string_lossy`), the same in every
    format and after `merge`; the file itself is still read and written by its real name."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def json_safe(value: Any) -> Any:
    """A JSON-ready value with every string `lossy`."""
    if isinstance(value, str):
        return lossy(value)
    if isinstance(value, dict):
        return {lossy(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def source_of(f: FileModel) -> str:
    """The file the diagnostics' lines are in (a passes_dump entry's dump)."""
    return f.used_dump or f.path


def _mark(d: DiagnosticModel) -> str:
    return " [*]" if d.fixable else ""


# ------------------------------------------------------------------------------ concise


def concise_lines(f: FileModel) -> list[str]:
    source = printable(source_of(f))
    return [f"{source}:{d.line}:{d.column}: {d.code}{_mark(d)} {printable(d.message)}" for d in f.diagnostics]


# --------------------------------------------------------------------------- json-lines


def json_lines(f: FileModel) -> list[str]:
    return [
        json.dumps(
            json_safe(
                {
                    "path": f.path,
                    "used_dump": f.used_dump,
                    "status": f.status,
                    **to_dict(d, exclude={"fix_functions"}),
                }
            )
        )
        for d in f.diagnostics
    ]


# ------------------------------------------------------------------------------- github

_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def github_lines(f: FileModel) -> list[str]:
    """Workflow commands (docs.github.com, "Workflow commands for GitHub Actions"): a property's
    value escapes `%`, CR, LF, `:` and `,`; the message escapes `%`, CR and LF."""
    source = printable(source_of(f))
    out = []
    for d in f.diagnostics:
        title = f"legalog {d.code}" + (" (fixable with legalog fix)" if d.fixable else "")
        props = ",".join(
            f"{k}={_property(v)}"
            for k, v in (("file", source), ("line", str(d.line)), ("col", str(d.column)), ("title", title))
        )
        out.append(
            f"::{_GITHUB_LEVEL[d.severity]} {props}::{_data(f'{d.code}{_mark(d)} {printable(d.message)}')}"
        )
    return out


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


# ------------------------------------------------------------------------------- gitlab

# GitLab's code-quality severities: info, minor, major, critical, blocker
_GITLAB_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def gitlab_issues(f: FileModel) -> list[dict]:
    """The entry's issues for GitLab's code-quality widget (docs.gitlab.com, "Code Quality",
    "Code Quality report format"); the fingerprint is stable while the finding's file, code,
    function, subject and message stay (not its line), and unique within the file."""
    source = lossy(source_of(f))
    seen: dict[str, int] = {}
    out = []
    for d in f.diagnostics:
        key = lossy("\0".join((source, d.code, d.function or "", d.subject or "", d.message)))
        seen[key] = seen.get(key, 0) + 1
        fingerprint = sha256(f"{key}\0{seen[key]}".encode()).hexdigest()
        out.append(
            {
                "description": lossy(f"{d.code}{_mark(d)} {d.message}"),
                "check_name": d.code,
                "fingerprint": fingerprint,
                "severity": _GITLAB_SEVERITY[d.severity],
                "location": {"path": source, "lines": {"begin": max(d.line, 1)}},
            }
        )
    return out


# -------------------------------------------------------------------------------- junit

JUNIT_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="legalog">'
JUNIT_TAIL = "</testsuites>"


def junit_suite(f: FileModel) -> str:
    """One file's `<testsuite>`: its diagnostics as test cases named `CODE line:col`."""
    from xml.etree import ElementTree  # only for JUnit output

    source = printable(source_of(f))
    suite = ElementTree.Element("testsuite", name=source)
    failures = errors = 0
    for d in f.diagnostics:
        case = ElementTree.SubElement(
            suite, "testcase", name=f"{d.code} {d.line}:{d.column}", classname=source
        )
        text = f"{source}:{d.line}:{d.column}: {d.code}{_mark(d)} {printable(d.message)}"
        if f.status == "error":
            errors += 1
            ElementTree.SubElement(case, "error", message=printable(d.message), type=d.code).text = text
        elif d.severity in ("error", "warning"):
            failures += 1
            ElementTree.SubElement(case, "failure", message=printable(d.message), type=d.code).text = text
        else:
            ElementTree.SubElement(case, "system-out").text = text
    if not f.diagnostics:
        ElementTree.SubElement(suite, "testcase", name=f.status, classname=source)
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    return ElementTree.tostring(suite, encoding="unicode")


def items(f: FileModel, fmt: str) -> Iterator[str]:
    """The entry's lines (concise, json-lines, github) or document items (gitlab, junit)."""
    if fmt == "concise":
        yield from concise_lines(f)
    elif fmt == "json-lines":
        yield from json_lines(f)
    elif fmt == "github":
        yield from github_lines(f)
    elif fmt == "gitlab":
        yield from (json.dumps(issue, indent=2) for issue in gitlab_issues(f))
    elif fmt == "junit":
        yield junit_suite(f)
    else:
        raise ValueError(f"not an item format: {fmt}")
