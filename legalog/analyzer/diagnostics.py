"""Diagnostics: a stable code, where, the function and variable, and what to do instead."""

from __future__ import annotations

from dataclasses import dataclass, replace

from legalog.analyzer.codes import CODES, Severity
from legalog.ir.errors import ParseError
from legalog.ir.ssa import VersionedFunction


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    line: int
    column: int
    function: str | None = None
    subject: str | None = None
    severity: Severity = "error"
    fixable: bool = False

    @property
    def help(self) -> str:
        return CODES[self.code].help

    @property
    def note(self) -> str:
        return CODES[self.code].note

    @property
    def sort_key(self) -> tuple[int, int, str, str]:
        return (self.line, self.column, self.code, self.subject or "")


def diagnostic(
    code: str,
    message: str,
    line: int,
    column: int,
    *,
    function: str | None = None,
    subject: str | None = None,
    fixable: bool = False,
) -> Diagnostic:
    """A diagnostic with the code's default severity."""
    return Diagnostic(code, message, line, column, function, subject, CODES[code].severity, fixable)


def parse_diagnostic(err: ParseError) -> Diagnostic:
    return diagnostic("PARSE", err.reason, err.line, err.col)


def in_dump_names(d: Diagnostic, versions: dict[str, VersionedFunction]) -> Diagnostic:
    """`d` with the versioned names of its function spelled as the dump printed them."""
    v = versions.get(d.function or "")
    if v is None:
        return d
    return replace(d, message=v.spell(d.message), subject=None if d.subject is None else v.spell(d.subject))


def declined_diagnostics(versions: dict[str, VersionedFunction]) -> list[Diagnostic]:
    """One FE401 per frontend construct versioning cannot give a sound meaning."""
    out = []
    for name, v in sorted(versions.items()):
        for item in v.declined:
            out.append(
                diagnostic(
                    "FE401",
                    f"`{item.name}` {item.reason}: this frontend binding has no single value to analyse",
                    item.span.line,
                    item.span.col,
                    function=name,
                    subject=item.name,
                )
            )
    return out
