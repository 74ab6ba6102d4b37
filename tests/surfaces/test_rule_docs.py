"""Every code legalog can emit is documented: `legalog rule CODE`, SARIF's help and the README
table all read the same text, so a code without its before/after would crash SARIF output."""

from __future__ import annotations

import pytest

from legalog.analyzer.codes import CODES
from legalog.surfaces.rule_docs import EXAMPLES, rule_markdown, rule_text


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_its_rule_text(code: str) -> None:
    assert code in EXAMPLES, f"{code} has no before/after in legalog/surfaces/rule_docs.py"
    text = rule_text(code)
    assert text.startswith(code) and CODES[code].help in text
    assert CODES[code].title in rule_markdown(code) or code in rule_markdown(code)


def test_no_example_documents_a_code_that_does_not_exist() -> None:
    assert set(EXAMPLES) <= set(CODES)
