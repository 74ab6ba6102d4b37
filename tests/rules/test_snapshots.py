"""The snapshot tier: every relation the pass rules derive, for every corpus dump, as sorted rows
in `snapshots/<dump>.txt` (as Soufflé's tests compare `.csv` outputs).  A rule change shows
in the diff exactly which rows it adds or removes, on real dumps, before any verdict moves.

Regenerate after a deliberate change, then review the diff before committing:

    LEGALOG_ACCEPT=1 python -m pytest tests/rules/test_snapshots.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from legalog.pipeline import analyze
from legalog.rules.engine import Derived, RuleProgram, evaluate
from legalog.rules.programs import PASS_RULES
from tests.conftest import GRAPH

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
ACCEPT = os.environ.get("LEGALOG_ACCEPT") == "1"
DUMPS = sorted(GRAPH.glob("*.py"))
DERIVED = sorted(RuleProgram.load(PASS_RULES).derived)

pytestmark = pytest.mark.shared  # a snapshot per corpus/graph dump


def _cell(value: str | int) -> str:
    # ints bare, strings quoted: `3` and `"3"` are different constants to the engines
    return str(value) if isinstance(value, int) else json.dumps(value, ensure_ascii=False)


def snapshot(name: str, derived: Derived) -> str:
    lines = [
        f"# relations the pass rules derive for {name} (host_build_graph); "
        "LEGALOG_ACCEPT=1 python -m pytest tests/rules/test_snapshots.py rewrites this file"
    ]
    for relation in DERIVED:
        rows = derived.sorted(relation)
        lines.append(f"## {relation} ({len(rows)})")
        lines += ["\t".join(_cell(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def _path(dump: Path) -> Path:
    return SNAPSHOTS / (dump.name.removesuffix(".py") + ".txt")


@pytest.mark.parametrize("dump", DUMPS, ids=lambda p: p.name)
def test_derived_relations_match_their_snapshot(dump: Path) -> None:
    analysis = analyze(dump.read_text(encoding="utf-8"), str(dump))
    assert analysis.lowering is not None, [d.message for d in analysis.diagnostics]
    # every pass rule over the program's facts (an analysis evaluates only what its passes need:
    # tests/rules/test_selection.py holds that to the same rows)
    got = snapshot(dump.name, evaluate(RuleProgram.load(PASS_RULES), analysis.lowering.facts.as_mapping()))
    path = _path(dump)
    if ACCEPT:
        path.write_text(got, encoding="utf-8")
    assert path.exists(), (
        f"no snapshot {path.name}: run LEGALOG_ACCEPT=1 python -m pytest tests/rules/test_snapshots.py"
    )
    want = path.read_text(encoding="utf-8")
    if got != want:
        changed = sorted(set(got.splitlines()) ^ set(want.splitlines()))[:20]
        pytest.fail(
            f"{dump.name}: derived rows changed (review, then LEGALOG_ACCEPT=1): " + "\n".join(changed)
        )


def test_every_snapshot_belongs_to_a_corpus_dump() -> None:
    """A snapshot left behind by a removed dump would never be checked again."""
    assert {p.name for p in SNAPSHOTS.glob("*.txt")} == {_path(d).name for d in DUMPS}
