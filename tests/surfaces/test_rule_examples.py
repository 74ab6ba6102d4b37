"""The before/after `legalog rule CODE` shows are checked, not just printed: each is the marked
region of a whole dump in legalog/surfaces/rule_examples/, and the real pipeline must report the
code on the before (at a line the user is shown) and not on the after.  A `validate` code's
before and after are two outputs of a pass on its `<CODE>.input.txt`, judged by `validate`."""

from __future__ import annotations

import re

import pytest

from legalog.analyzer.codes import CODES
from legalog.analyzer.verifier import verify
from legalog.ir.parser import parse
from legalog.pipeline import analyze, validate
from legalog.surfaces.rule_docs import EXAMPLES_DIR, TEXT_EXAMPLES, example, example_path, shown_lines

# the codes whose before/after stays text, and why no dump can show them
NOT_A_PROGRAM = {
    "INTERNAL": "a bug in legalog, not a property of a dump: tests/robust/test_failures.py injects one",
    "TIMEOUT": "a file past its time limit depends on --timeout and the machine: tests/robust/test_failures.py",
    "TV531": "a pass that let a rejected program through has no right output to show (it should have raised): "
    "tests/analyzer/test_validation.py",
    "TV532": "a pass that left no output has no output to show: tests/analyzer/test_validation.py",
}
# the verifier's codes no analysis of a dump reports (the rewrite never leaves what they find)
VERIFIER_ONLY = {"GB122"}
_RUNTIME = re.compile(r"^# rule-doc: runtime (\w+)$", re.MULTILINE)
_PASS = re.compile(r"^# rule-doc: pass (graph|spmd)$", re.MULTILINE)
CHECKED = [code for code in CODES if code not in NOT_A_PROGRAM]


def codes_at(code: str, side: str) -> tuple[list[int], str]:
    """The lines at which the pipeline reports `code` on one side of its example, and the status."""
    path = example_path(code, side)
    text = path.read_text(encoding="utf-8")
    if code in VERIFIER_ONLY:
        return [d.line for d in verify(parse(text)) if d.code == code], "verified"
    if (source := example_path(code, "input")).exists():  # a `validate` code: an output of a pass
        given = source.read_text(encoding="utf-8")
        named = _PASS.search(given)
        assert named is not None, f"{source.name} names no pass (`# rule-doc: pass graph|spmd`)"
        judged = validate(given, text, named.group(1), str(source), str(path))
        return [d.line for d in judged.diagnostics if d.code == code], judged.status
    runtime = m.group(1) if (m := _RUNTIME.search(text)) else "host_build_graph"
    analysis = analyze(text, str(path), runtime=runtime)
    return [d.line for d in analysis.diagnostics if d.code == code], analysis.status


def test_the_text_examples_are_exactly_the_exempt_codes() -> None:
    assert set(TEXT_EXAMPLES) == set(NOT_A_PROGRAM)


def test_every_example_file_belongs_to_a_checked_code() -> None:
    files = {p.name for p in EXAMPLES_DIR.glob("*")}
    sides = {
        code: ("input", "before", "after") if code.startswith("TV") else ("before", "after")
        for code in CHECKED
    }
    assert files == {f"{code}.{side}.txt" for code in CHECKED for side in sides[code]}


@pytest.mark.parametrize("code", CHECKED)
def test_the_before_reports_its_code_at_a_shown_line(code: str) -> None:
    lines, _ = codes_at(code, "before")
    assert lines, f"{code}: the pipeline does not report it on {code}.before.txt"
    shown = {line for line, _ in shown_lines(example_path(code, "before").read_text(encoding="utf-8"))}
    assert set(lines) & shown, f"{code}: reported at {lines}, outside the shown region"


@pytest.mark.parametrize("code", CHECKED)
def test_the_after_does_not_report_it(code: str) -> None:
    lines, status = codes_at(code, "after")
    assert lines == [], f"{code}.after.txt still reports it"
    # and no other rejection hides it: the after is what a user may ship (or `legalog fix` writes)
    assert status in ("legal", "rewritten", "verified"), f"{code}.after.txt is {status}"


@pytest.mark.parametrize("code", [c for c in CHECKED if example_path(c, "input").exists()])
def test_a_validate_codes_after_is_accepted_whole(code: str) -> None:
    """The after a TV5xx code shows is an output `validate` accepts: no finding of any code."""
    given = example_path(code, "input").read_text(encoding="utf-8")
    named = _PASS.search(given)
    assert named is not None
    judged = validate(given, example_path(code, "after").read_text(encoding="utf-8"), named.group(1))
    assert [d.code for d in judged.diagnostics] == []


@pytest.mark.parametrize("code", CHECKED)
def test_no_marker_is_shown(code: str) -> None:
    pair = example(code)
    assert "rule-doc" not in pair.before + pair.after
    assert pair.before.strip() and pair.after.strip()
