"""Diagnostics: a stable code, where, the function and variable, and what to do instead."""

from __future__ import annotations

from dataclasses import dataclass

from legalog.analyzer.codes import CODES, Severity
from legalog.ir.errors import ParseError


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
    code: str, message: str, line: int, column: int, *, function: str | None = None,
    subject: str | None = None, fixable: bool = False,
) -> Diagnostic:  # fmt: skip
    """A diagnostic with the code's default severity."""
    return Diagnostic(code, message, line, column, function, subject, CODES[code].severity, fixable)


def parse_diagnostic(err: ParseError) -> Diagnostic:
    return diagnostic("PARSE", err.reason, err.line, err.col)
