"""The code table (legalog/analyzer/codes.py) is the one place a code is declared: every relation
a code words is declared (legalog/facts/schema.py), a derived one with the rules' own arity, and
its template reads declared columns; every code has a golden fixture and a doc; every runtime
limit is read by a rule."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from legalog.analyzer.codes import CODES
from legalog.analyzer.emitter import wordings
from legalog.facts.limits import LIMITS
from legalog.facts.schema import DECIDED_RELATIONS, DECLARED, DERIVED_RELATIONS
from legalog.rules.language import RULES_DIR, RuleProgram
from legalog.rules.programs import EXPLAIN_RULES
from legalog.surfaces.rule_docs import example
from tests.graph.test_cases import case_files

EVERY = RuleProgram.load((*EXPLAIN_RULES, "verifier"))  # the pass's, why's and the verifier's
WORDED = wordings()

# codes no dump in tests/graph/cases can show, and where each is held instead
NO_FIXTURE = {
    "PARSE": "the golden cases are programs every engine and the oracle read: tests/robust/test_inputs.py "
    "and its rule-doc dump (tests/surfaces/test_rule_examples.py)",
    "INTERNAL": "a bug in legalog: tests/robust/test_failures.py injects one",
    "TIMEOUT": "a file past its time limit: tests/robust/test_failures.py",
    "GB122": "the verifier's, on a rewrite that left a rename: tests/analyzer/test_graph.py and its rule-doc "
    "dump, checked through `verify`",
    "IR410": "reported at the header, line 1, which no `# expect:` can sit above: tests/robust/test_any_input.py "
    "and its rule-doc dump",
    **{
        code: "a `validate` finding judges a pass's output against its input, a pair no golden case is: "
        "tests/analyzer/test_validation.py, tests/reference/test_validate_reference.py and its rule-doc dumps"
        for code in CODES
        if code.startswith("TV")
    },
}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("relation", sorted(WORDED), ids=str)
def test_a_worded_relation_is_declared_and_its_template_reads_declared_columns(relation: str) -> None:
    info, wording = WORDED[relation]
    assert relation in DECLARED, f"{info.code}: `{relation}` is not declared in legalog/facts/schema.py"
    columns = [c.name for c in DECLARED[relation].columns]
    # `{arg}` / `{param}`: the call-site position of columns `E` and `I`, named by callee and parameter
    positions = {"arg", "param"} if {"E", "I"} <= set(columns) else set()
    assert _fields(wording.message) <= {*columns, *positions, "limit"}, (
        f"{info.code}: the message reads an undeclared column"
    )
    assert {wording.at, wording.subject} - {None} <= set(columns)


@pytest.mark.parametrize("relation", [r.name for r in DERIVED_RELATIONS])
def test_a_declared_derived_relation_is_the_rules_own(relation: str) -> None:
    """The rules define it, with the declared arity."""
    assert relation in EVERY.derived, f"no rule derives `{relation}`"
    assert EVERY.relations[relation].arity == len(DECLARED[relation].columns)


def test_every_relation_the_rules_derive_is_declared() -> None:
    assert set(EVERY.derived) <= {r.name for r in DERIVED_RELATIONS}


@pytest.mark.parametrize("relation", [r.name for r in DECIDED_RELATIONS])
def test_a_decided_relation_is_worded_and_no_rule_defines_it(relation: str) -> None:
    assert relation in WORDED and relation not in EVERY.relations


def test_each_relation_is_worded_by_one_code() -> None:
    worded = [w.relation for info in CODES.values() for w in info.wordings]
    assert len(worded) == len(set(worded))


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_every_limit_is_read_by_a_rule_and_quoted_by_its_code(name: str) -> None:
    rule_text = "".join(p.read_text(encoding="utf-8") for p in RULES_DIR.glob("*.pyd"))
    assert f"runtime_limit('{name}'" in rule_text, f"no rule reads the limit {name}"
    for info in CODES.values():
        if info.limit == name:
            assert str(LIMITS[name]) in info.title, f"{info.code}'s title does not state its limit"


def test_no_rule_file_types_a_limit_by_hand() -> None:
    for path in RULES_DIR.glob("*.pyd"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith("#"):
                for value in LIMITS.values():
                    assert not re.search(rf"\b{value}\b", line), (
                        f"{path.name}:{n}: the limit {value} typed in a rule"
                    )


def _fixture_codes() -> set[str]:
    found: set[str] = set()
    for case in case_files():
        for m in re.finditer(r"^\s*#\s*expect(?:-finding)?:\s*(.+)$", case.read_text(encoding="utf-8"), re.M):
            found |= {c.strip() for c in m.group(1).split(",")}
    return found


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_a_fixture_and_a_doc(code: str) -> None:
    assert example(code).before, f"{code} has no before/after (legalog/surfaces/rule_examples/)"
    if code in NO_FIXTURE:
        assert code not in _fixture_codes(), f"{code} has a fixture now: drop it from NO_FIXTURE"
        return
    assert code in _fixture_codes(), f"{code} has no golden case in tests/graph/cases (`# expect: {code}`)"


def test_contributing_says_a_code_is_one_table_entry_and_one_rule() -> None:
    text = (Path(__file__).resolve().parents[2] / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "legalog/analyzer/codes.py" in text and "one rule" in text
