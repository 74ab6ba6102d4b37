"""The one way a row becomes a user's finding.

A finding is a row of a declared relation (legalog/facts/schema.py): a derived relation the rules
fill, or a row the Python decisions hand back (the SPMD prover's verdicts, the verifier's
fixpoint).  The code table (`codes.py`) words each relation once (`Wording`); this module looks the
wording up, fills its template from the row's declared columns, and places the finding.  Nothing
else in legalog writes the text of a Graph, host-control, verifier or SPMD finding.
"""

from __future__ import annotations

from collections.abc import Mapping

from legalog.analyzer.codes import CODES, CodeInfo, Wording
from legalog.analyzer.diagnostics import Diagnostic
from legalog.analyzer.graph import Locator, control_kind, culprit, view_culprit
from legalog.extractor.lower import Lowering
from legalog.facts.ids import function_of, var_name
from legalog.facts.schema import DECLARED
from legalog.ir.model import Program, Span
from legalog.rules.engine import Derived

# the column types a finding can stand on (a `stmt` column is the control statement a row names)
_LOCATED = ("fn", "var", "expr")


def wordings() -> dict[str, tuple[CodeInfo, Wording]]:
    """Each worded relation with its code and wording, read from the table as it is now."""
    return {w.relation: (info, w) for info in CODES.values() for w in info.wordings}


def finding(
    relation: str,
    row: Mapping[str, object],
    line: int,
    column: int,
    function: str | None,
    *,
    prefix: str = "",
) -> Diagnostic:
    """The finding one row of `relation` makes (its columns by their declared names), at a place."""
    info, wording = wordings()[relation]
    return _worded(info, wording, row, line, column, function, prefix)


def _worded(
    info: CodeInfo,
    wording: Wording,
    row: Mapping[str, object],
    line: int,
    column: int,
    function: str | None,
    prefix: str,
) -> Diagnostic:
    message = prefix + wording.message.format_map({**row, "limit": info.limit_value})
    subject = None if wording.subject is None else format(row[wording.subject])
    severity = wording.severity or info.severity
    return Diagnostic(info.code, message, line, column, function, subject, severity, wording.fixable)


def derived_findings(
    program: Program, lowering: Lowering, derived: Derived, *, prefix: str = ""
) -> list[Diagnostic]:
    """One finding per row of every worded relation the rules derived in this evaluation, in
    table order (the pass's own on a check; the verifier's too, with the pass's, on its output)."""
    at = Locator(program, lowering, derived)
    out: list[Diagnostic] = []
    for relation, (info, wording) in wordings().items():
        if relation not in derived:  # a row the Python decisions hand back, or another evaluation's
            continue
        columns = DECLARED[relation].columns
        first = next(c.name for c in columns if c.type in _LOCATED)
        for row in derived.sorted(relation):
            cells = {c.name: _Cell(at, derived, c.type, value) for c, value in zip(columns, row, strict=True)}
            span, function = cells[wording.at or first].place()
            fields = {**cells, **_call_position(at, cells)}
            out.append(_worded(info, wording, fields, span.line, span.col, function, prefix))
    return out


def _call_position(at: Locator, cells: Mapping[str, _Cell]) -> dict[str, str]:
    """`{arg}` and `{param}`: a row's call-site position (columns `E` and `I`) named by its callee
    and the callee's parameter, as a user finds it in the dump."""
    if "E" not in cells or "I" not in cells:
        return {}
    call, i = str(cells["E"].value), int(cells["I"].value)
    return {"arg": at.argument(call, i), "param": at.argument(call, i, "parameter")}


class _Cell:
    """One column of a derived row as a template reads it: `{v}` prints a variable's name, an
    expression's text, a control statement's kind or a value, by the column's declared type; the
    format specs `culprit` and `view_culprit` print the reasons GB118 and GB119 give."""

    def __init__(self, at: Locator, derived: Derived, kind: str, value: str | int) -> None:
        self.at, self.derived, self.kind, self.value = at, derived, kind, value

    def place(self) -> tuple[Span, str]:
        """Where a finding on this column sits, and the function it is in."""
        v = str(self.value)
        if self.kind == "fn":
            return self.at.function_span(v), v
        if self.kind == "var":
            return self.at.var_span(v), function_of(v)
        return self.at.expr_span(v), function_of(v)

    def __format__(self, spec: str) -> str:
        v = str(self.value)
        if spec == "culprit":
            return culprit(self.at, v)
        if spec == "view_culprit":
            return view_culprit(self.derived, self.at, v)
        if self.kind == "var":
            return var_name(v)
        if self.kind == "expr":
            return self.at.text(v)
        if self.kind == "stmt":
            return control_kind(self.derived, v)
        return v
