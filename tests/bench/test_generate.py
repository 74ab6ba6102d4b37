"""The benchmark generator's own correctness: its programs are what the benchmark claims."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from generate import generate

import legalog
from legalog.analyzer.verifier import verify


@pytest.fixture(scope="module", params=[(1, 1), (2, 3), (3, 8)], ids=lambda p: f"K{p[0]}T{p[1]}")
def analysed(request):
    k, t = request.param
    text = generate(k, t, seed=k)
    return k, t, text, legalog.analyze(text, path=f"synth_k{k}.py")


def test_deterministic_and_sized() -> None:
    assert generate(3, 8, 1) == generate(3, 8, 1)
    assert generate(3, 8, 1) != generate(3, 8, 2)
    small, big = len(generate(10, 8)), len(generate(20, 8))
    assert 1.8 < big / small < 2.1  # grows linearly in K


def test_parses_everywhere(analysed) -> None:
    k, _t, text, _a = analysed
    ast.parse(text)
    program = legalog.parse(text)
    graphs = [f for f in program.functions if "Graph" in str(getattr(f, "type", getattr(f, "kind", "")))]
    assert text.count("pl.FunctionType.Graph") == k
    assert graphs == [] or len(graphs) == k


def test_rewritten_with_no_diagnostics_but_sp310(analysed) -> None:
    k, _t, _text, a = analysed
    assert a.status == "rewritten"
    assert {d.code for d in a.diagnostics if d not in a.findings} <= {"SP310"}
    assert len(a.graphs) == k
    for g in a.graphs:
        kinds = sorted(h.kind for h in g.hoisted)
        assert kinds == ["alloc", "scalar", "scalar", "view"], g.function  # scr, base, lim, wv
        assert sorted(a for a, _ in g.aliases) == ["m__ssa_v0", "n__ssa_v0"]  # renames deleted
        assert g.kept_views == ("xv__ssa_v0",)  # loop-IV view kept


def test_fix_output_rechecks_legal(analysed) -> None:
    _k, _t, _text, a = analysed
    fixed = a.legalized_text()
    assert fixed is not None
    again = legalog.analyze(fixed, path="fixed.py")
    assert again.status == "legal", [(d.code, d.message) for d in again.diagnostics]
    assert not [d for d in again.diagnostics if d.severity == "error"]
    assert verify(legalog.parse(fixed)) == []
