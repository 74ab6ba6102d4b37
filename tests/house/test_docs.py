"""The README is a user's page: short, with a table of contents, no references to what a user
does not have (the project's specification files, its issue numbers), every link to a file that
exists, and the placeholders of its CI snippets said plainly."""

from __future__ import annotations

import re

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_page_a_user_reads() -> None:
    assert 200 <= len(README.splitlines()) <= 320
    assert "**Contents:**" in README
    for absent in ("CONTRACT.md", "PYDATALOG.md", "seeds"):
        assert absent not in README, absent
    assert not re.search(r"\bissues? \d+", README, re.IGNORECASE)


def test_every_link_of_the_readme_and_its_docs_leads_somewhere() -> None:
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (page.parent / target).exists(), f"{page.name} links to {target}, which is not there"


def test_the_ci_snippets_say_what_to_put_for_their_placeholders() -> None:
    assert "replace `OWNER/legalog`" in README and "`COMMIT` with one of its tags" in README
