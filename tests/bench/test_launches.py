"""bench/launches.py's program is what the benchmark claims: N distinct guarded launches of a09."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import launches

import legalog

pytestmark = pytest.mark.shared


def test_n_distinct_launches_each_decided() -> None:
    launches.SEED = CORPUS / "graph" / launches.SEED.name
    text = launches.program(5)
    seed = launches.SEED.read_text(encoding="utf-8")
    assert launches.program(5) == text and text.count("spmd_submit(") == seed.count("spmd_submit(") + 5
    rewritten = legalog.analyze(text, path="launches_5.py").legalized_text()
    # n >= 1 in the branch, yet (n + i) // 16 * 4 is 0 for n = 1: each new launch gets its guard
    assert [f"if blocks__ssa_v{i} > 0:" in rewritten for i in range(1, 6)] == [True] * 5
