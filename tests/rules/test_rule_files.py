"""The packaged rule files: lint-clean, stratified, citing their spec paragraph, and reading only
relations that exist — pyDatalog itself accepts a typo'd body relation as silently empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.facts.schema import RELATIONS
from legalog.rules.language import RULES_DIR, RuleProgram, lint
from legalog.rules.programs import EXPLAIN_RULES, PASS_RULES, VERIFIER_RULES

RULE_FILES = sorted(RULES_DIR.glob("*.pyd"))


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_rule_file_is_lint_clean_and_cites_its_spec(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert lint(text, path.name) == []
    header = "".join(line for line in text.splitlines(keepends=True)[:12] if line.startswith("#"))
    assert "seeds/legalize_" in header, f"{path.name} must open with the spec paragraph it implements"


@pytest.mark.parametrize(
    "names", [PASS_RULES, EXPLAIN_RULES, VERIFIER_RULES], ids=["pass", "explain", "verifier"]
)
def test_rule_programs_are_stratified_and_read_only_declared_facts(names: tuple[str, ...]) -> None:
    program = RuleProgram.load(names)  # raises on recursion through negation or aggregation
    undeclared = {name for name in program.inputs if name not in RELATIONS}
    assert not undeclared, f"rules read relations no rule defines and the extractor never emits: {undeclared}"
    for name, arity in program.inputs.items():
        assert RELATIONS[name].arity == arity, (
            f"{name} is read with arity {arity}, declared {RELATIONS[name].arity}"
        )


def test_every_rule_file_is_loaded_by_some_program() -> None:
    assert {p.stem for p in RULE_FILES} <= set(EXPLAIN_RULES) | set(VERIFIER_RULES)


def test_the_verifier_reads_no_decision_of_the_pass() -> None:
    """The spec: the verifier shares exactly one thing with the pass, the replay-invariant set."""
    shared = RuleProgram.load(("base", "invariant"))
    decisions = RuleProgram.load(PASS_RULES).derived - shared.derived
    verifier = RuleProgram.load(("base", "invariant", "verifier"))
    own = verifier.derived - shared.derived
    assert own >= {"assert_rename_survives", "assert_moving_window"}
    read = {d.body.split("/")[0].lstrip("~") for d in verifier.dependencies if d.head.split("/")[0] in own}
    assert read, "the verifier's rules read nothing?"
    assert not read & decisions, f"verifier.pyd reads pass decisions: {read & decisions}"
