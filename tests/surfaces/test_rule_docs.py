"""Every code legalog can emit is documented: `legalog rule CODE`, SARIF's help and docs/codes.md
table all read the same text, so a code without its before/after would crash SARIF output."""

from __future__ import annotations

import pytest

from legalog.analyzer.codes import CODES
from legalog.surfaces.rule_docs import TEXT_EXAMPLES, example, example_path, rule_markdown, rule_text


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_its_rule_text(code: str) -> None:
    assert code in TEXT_EXAMPLES or example_path(code, "before").exists(), f"{code} has no before/after"
    info, pair = CODES[code], example(code)
    for text in (rule_text(code), rule_markdown(code)):
        assert info.title in text and info.help in text and info.note in text, (
            f"{code}: the doc lost part of the table"
        )
        assert pair.before.strip().splitlines()[0].strip() in text, f"{code}: the doc lost its before"
        assert pair.after.strip().splitlines()[0].strip() in text, f"{code}: the doc lost its after"
    assert rule_text(code).startswith(f"{code} ({info.name}, {info.severity})")


def test_no_example_documents_a_code_that_does_not_exist() -> None:
    assert set(TEXT_EXAMPLES) <= set(CODES)
