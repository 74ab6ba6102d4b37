"""`analyze(report=False)`, as PyPTO's pipeline runs each pass (legalog/pypto.py): it leaves out
only what a report reads (GB201-GB204's fixable info findings and the kept values); what a pass
acts on (status, errors, every other diagnostic, the rewrite and its plans) is the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.pipeline import analyze
from tests.conftest import corpus_files, on_shared

CASES = sorted((Path(__file__).resolve().parents[1] / "graph" / "cases").glob("*.py"))


@pytest.mark.parametrize("passes", [("graph",), ("spmd",), ("graph", "spmd")], ids="+".join)
@pytest.mark.parametrize("path", [*CASES, *on_shared(corpus_files())], ids=lambda p: p.name)
def test_a_pass_without_its_report_acts_on_the_same_analysis(path: Path, passes: tuple[str, ...]) -> None:
    text = path.read_text()
    full = analyze(text, str(path), passes=passes)
    bare = analyze(text, str(path), passes=passes, report=False)
    assert (bare.findings, bare.kept) == ((), ())
    assert bare.status == full.status
    assert bare.errors == full.errors
    assert bare.diagnostics == tuple(d for d in full.diagnostics if d not in full.findings)
    assert bare.legalized == full.legalized
    assert bare.plans == full.plans
    assert bare.legalized_text() == full.legalized_text()
