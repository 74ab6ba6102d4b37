"""Every code's documentation as a user reads it (`legalog rule CODE`), written once.

The meaning, the runtime's reason and what to do come from `legalog.analyzer.codes`; this module
adds a before/after in printed IR.  Each is a whole dump, `rule_examples/<CODE>.before.txt` and
`.after.txt` (package data), of which the user is shown only the region between `# rule-doc: begin`
and `# rule-doc: end`; tests/surfaces/test_rule_examples.py analyses both, so the before must report
the code at a shown line and the after must not.  A `validate` code (TV5xx) judges a pass's output
against its input, so its example has a third dump, `<CODE>.input.txt` (the pass's input, naming the
pass in a `# rule-doc: pass graph|spmd` line), and its before and after are two outputs of that pass.
The same text is `legalog rule`'s output, SARIF's rule `help`, and docs/codes.md's code table
(`readme_table`; a test holds docs/codes.md to it).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from legalog.analyzer.codes import CODES, CodeInfo

EXAMPLES_DIR = Path(__file__).resolve().parent / "rule_examples"
BEGIN, END = "# rule-doc: begin", "# rule-doc: end"
# `# rule-doc: show TEXT` stands for the line below it in the shown text (a 129-parameter `def`
# is analysed in full and shown with `...`)
SHOW = "# rule-doc: show "
# a directive line the examples' test reads (the runtime to analyse for); never shown
DIRECTIVE = "# rule-doc:"


@dataclass(frozen=True, slots=True)
class Example:
    before: str
    after: str
    input: str | None = None  # a `validate` code's: the pass's input, of which before and after are outputs


# codes whose before/after is not a program: their tests say why (tests/surfaces/test_rule_examples.py)
TEXT_EXAMPLES: dict[str, Example] = {
    "INTERNAL": Example(
        "legalog: INTERNAL KeyError: 'layer/win' (at legalog/analyzer/graph.py:111 in graph_decisions)",
        "# report it: the command, `legalog --version` and the dump; `--debug` shows the traceback",
    ),
    "TIMEOUT": Example(
        "legalog check --timeout 5 huge_dump.py",
        "legalog check --timeout 600 huge_dump.py   # or --timeout 0: no limit",
    ),
    "TV531": Example(
        "passes_dump/45_after_Simplify.py                  # legalog check: GB112, a launch under a runtime loop\n"
        "passes_dump/46_after_LegalizeGraphBoundary.py     # the pass wrote an output anyway",
        "passes_dump/45_after_Simplify.py                  # the pass raised: no 46_after_LegalizeGraphBoundary.py",
    ),
    "TV532": Example(
        "passes_dump/45_before_LegalizeGraphBoundary.py    # legalog check: rewritten (Step A hoists `base`)\n"
        "                                                  # the pass raised: no 46_after_LegalizeGraphBoundary.py",
        "passes_dump/45_before_LegalizeGraphBoundary.py\n"
        "passes_dump/46_after_LegalizeGraphBoundary.py     # the pass's output, `base` a new parameter",
    ),
}


def example_path(code: str, side: str) -> Path:
    """`rule_examples/<CODE>.before.txt`, `.after.txt` or `.input.txt`: a whole dump the examples'
    test analyses."""
    return EXAMPLES_DIR / f"{code}.{side}.txt"


@cache
def example(code: str) -> Example:
    """The before/after a user reads: the marked region of each example file, markers stripped."""
    if code in TEXT_EXAMPLES:
        return TEXT_EXAMPLES[code]
    before, after = (
        shown(example_path(code, side).read_text(encoding="utf-8")) for side in ("before", "after")
    )
    source = example_path(code, "input")
    return Example(before, after, shown(source.read_text(encoding="utf-8")) if source.exists() else None)


def shown_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line, shown text) of each region between BEGIN and END (from the file's start if
    it has no BEGIN); a `...` line stands between two regions, `SHOW` lines stand for the line below
    them, and other directives are dropped.  Line 0 is a `...` the file does not hold."""
    lines = text.splitlines()
    marked = any(line.strip() == BEGIN for line in lines)
    out: list[tuple[int, str]] = []
    inside, replace = not marked, None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped in (BEGIN, END):
            if stripped == BEGIN and out:
                out.append((0, "..."))
            inside = stripped == BEGIN
        elif not inside:
            continue
        elif stripped.startswith(SHOW):
            replace = line[: len(line) - len(line.lstrip())] + stripped.removeprefix(SHOW)
        elif not stripped.startswith(DIRECTIVE):
            out.append((i + 1, line if replace is None else replace))
            replace = None
    return out


def shown(text: str) -> str:
    """The shown text, dedented; the `...` between two regions sits at the next region's indent."""
    pairs = shown_lines(text)
    body = iter(textwrap.dedent("".join(f"{line}\n" for at, line in pairs if at)).splitlines())
    out = [next(body) if at else "" for at, _ in pairs]
    for i in range(len(out) - 2, -1, -1):
        if not pairs[i][0]:  # line 0: the gap between regions
            out[i] = out[i + 1][: len(out[i + 1]) - len(out[i + 1].lstrip())] + "..."
    return "".join(f"{line}\n" for line in out)


def rule_text(code: str) -> str:
    """`legalog rule CODE`: what it means, why the runtime cares, before/after, what to do."""
    info = CODES[code]
    pair = example(code)
    fix = " [*] fixed by `legalog fix`" if info.fix != "none" else ""
    return "\n".join(
        [
            f"{info.code} ({info.name}, {info.severity}){fix}",
            "",
            f"What it means: {info.title}.",
            f"Why the runtime cares: {info.note}.",
            f"What to do instead: {info.help}.",
            "",
            *(["The pass's input (BEFORE):", _indent(pair.input)] if pair.input is not None else []),
            "Before:" if pair.input is None else "Before (an output `validate` reports):",
            _indent(pair.before),
            "After:" if pair.input is None else "After (an output it accepts):",
            _indent(pair.after),
        ]
    )


def rule_markdown(code: str) -> str:
    """The same documentation for SARIF's `help.markdown`."""
    info = CODES[code]
    pair = example(code)
    source = (
        "" if pair.input is None else f"**The pass's input:**\n\n```python\n{pair.input.rstrip()}\n```\n\n"
    )
    return (
        f"**{info.code}** ({info.name}): {info.title}.\n\n**Why the runtime cares:** {info.note}.\n\n"
        f"**What to do instead:** {info.help}.\n\n{source}**Before:**\n\n```python\n{pair.before.rstrip()}\n```\n\n"
        f"**After:**\n\n```python\n{pair.after.rstrip()}\n```\n"
    )


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line.strip() else "" for line in text.rstrip("\n").splitlines())


def all_rules() -> str:
    return "\n\n".join(rule_text(code) for code in CODES)


def readme_table() -> str:
    """docs/codes.md's code table: one row per code, from the same text."""
    rows = ["| code | name | severity | meaning | what to do instead |", "|---|---|---|---|---|"]
    rows += [
        f"| {i.code} | {i.name} | {_severity(i)} | {_cell(i.title)} | {_cell(i.help)} |"
        for i in CODES.values()
    ]
    return "\n".join(rows)


def _severity(info: CodeInfo) -> str:
    return "info `[*]`" if info.severity == "info" else info.severity


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
