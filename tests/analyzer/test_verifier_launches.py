"""The verifier holds a rewritten program to the SPMD spec's last sentence: codegen rejects a
launch that may be non-positive, so a program still carrying one is not `rewritten` but wrong."""

from __future__ import annotations

from pathlib import Path

from legalog.analyzer.verifier import verify
from legalog.ir.parser import parse_file
from legalog.pipeline import analyze

SPMD_COUNTS = Path(__file__).resolve().parents[2] / "examples" / "spmd_counts.py"


def test_an_unguarded_unproven_launch_is_a_verifier_error() -> None:
    found = [d for d in verify(parse_file(SPMD_COUNTS), passes=("spmd",)) if d.code == "SP310"]
    assert found and all(d.severity == "error" and d.message.startswith("verifier:") for d in found)


def test_the_guarded_rewrite_passes_the_same_check() -> None:
    analysis = analyze(SPMD_COUNTS.read_text(encoding="utf-8"), str(SPMD_COUNTS))
    assert analysis.status == "rewritten" and analysis.legalized is not None
    assert verify(analysis.legalized, passes=("spmd",)) == []
