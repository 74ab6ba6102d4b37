"""`legalog fix` as text edits on the input: one replacement per changed function.

`fix` prints a changed function in PyPTO's raw style and every other one byte-for-byte, so the
natural unit of an edit is a whole function: its span in the input (decorator to last line)
and its new text.  Applying every edit of a file to the input gives exactly `fix`'s output;
when the printer had to reprint more than the changed functions (a reordered or renamed
program), the file's edit is one replacement of the whole text, so that stays true.

A fixable finding's fix is the edits of the functions its decision touches: a Graph finding
(GB201-GB204) changes the Graph and every function that launches it; a guarded launch (SP310)
changes the function it sits in.
"""

from __future__ import annotations

from collections.abc import Sequence

from legalog.analyzer.codes import CODES
from legalog.facts.ids import function_of
from legalog.ir.model import Function
from legalog.ir.printer import print_function
from legalog.pipeline import Analysis
from legalog.surfaces.report import DiagnosticModel, EditModel

WHOLE_FILE = "<program>"


def function_edits(analysis: Analysis) -> list[EditModel]:
    """The edits that turn the input into `fix`'s output (none when `fix` writes nothing)."""
    # the dump as read and `fix`'s output in the dump's own names (a frontend dump is analysed in
    # SSA form, but its edits are of the text the user wrote)
    program, legalized, expected = (
        analysis.source or analysis.program,
        analysis.output,
        analysis.legalized_text(),
    )
    if program is None or legalized is None or expected is None or legalized == program:
        return []
    lay = program.layout
    if lay is None:
        return []
    edits = [
        _edit(lay.text, f.name, start, end, print_function(f, lay.indent, legalized.prefix))
        for f, original, (start, end) in zip(legalized.functions, lay.originals, lay.function_spans)
        if f != original
    ]
    if _names(legalized.functions) != _names(lay.originals) or apply_edits(lay.text, edits) != expected:
        return [_edit(lay.text, WHOLE_FILE, 0, len(lay.text), expected)]
    return edits


def _names(functions: Sequence[Function]) -> list[str]:
    return [f.name for f in functions]


def _edit(text: str, function: str, start: int, end: int, replacement: str) -> EditModel:
    start_line, start_col = position(text, start)
    end_line, end_col = position(text, end)
    return EditModel(
        function=function,
        start_line=start_line,
        start_column=start_col,
        end_line=end_line,
        end_column=end_col,
        char_offset=start,
        char_length=end - start,
        replacement=replacement,
    )


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset; the offset just past a newline is column 1
    of the next line."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def apply_edits(text: str, edits: Sequence[EditModel]) -> str:
    """The text with non-overlapping edits applied (each once, whatever order they come in)."""
    unique = sorted({(e.char_offset, e.char_length, e.replacement) for e in edits})
    out, pos = [], 0
    for offset, length, replacement in unique:
        if offset < pos:
            raise ValueError(f"overlapping edits at character {offset}")
        out += [text[pos:offset], replacement]
        pos = offset + length
    return "".join(out) + text[pos:]


def fix_functions(d: DiagnosticModel, analysis: Analysis, edits: Sequence[EditModel]) -> list[str]:
    """The functions whose edits make up a fixable finding's fix."""
    changed = [e.function for e in edits]
    if not d.fixable or not changed:
        return []
    if changed == [WHOLE_FILE]:
        return changed
    callers = CODES[d.code].fix == "callers"
    touched = {d.function} | (_launchers(analysis, d.function) if callers else set())
    return [f for f in changed if f in touched]


def _launchers(analysis: Analysis, graph: str | None) -> set[str]:
    if analysis.derived is None:
        return set()
    return {function_of(str(e)) for e, callee, _form in analysis.derived["launch"] if callee == graph}
