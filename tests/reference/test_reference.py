"""legalog against PyPTO's own passes: every entry of `../shared/reference/cases.json`.

Each entry is one printed program and what PyPTO's C++ pass (one pass, at its own position) did
to it.  legalog runs with only that pass and must give the same verdict; for `rewritten`, the
same program up to variable names (`structural.py`, as `ir.structural_equal` compares).  An entry
that does not agree is in one of two reviewed tables below, and its test asserts that it still
shows exactly the difference the table says, so a table row that stops being true fails:

* `KNOWN`: one of the reference README's four classes where the seeds overrule that version;
* `READINGS`: a difference that is a reading of the seeds or of the input, with the sentence
  that decides it.

By default the run takes the 16 corpus programs, every 8th variant and every table row (about
60 programs); `LEGALOG_REFERENCE_ALL=1` runs all 271.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from legalog.analyzer.structural import structurally_equal
from legalog.ir.model import Program
from legalog.ir.parser import parse
from legalog.pipeline import Analysis, analyze
from tests.conftest import REFERENCE

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

PASS_OF = {"LegalizeGraphBoundary": "graph", "LegalizeSpmdLaunches": "spmd"}
EVERY = 8


@dataclass(frozen=True)
class Entry:
    input: str
    pass_name: str  # legalog's name for it: "graph" or "spmd"
    verdict: str
    output: str | None
    message: str

    @property
    def name(self) -> str:
        return Path(self.input).name.removesuffix(".py")


def _entries() -> list[Entry]:
    path = REFERENCE / "cases.json"
    if not path.exists():
        return []
    return [
        Entry(e["input"], PASS_OF[e["pass"]], e["verdict"], e.get("output"), e.get("message", ""))
        for e in json.loads(path.read_text())
    ]


ENTRIES = _entries()

# The README's classes (`../shared/reference/README.md`, "Where the seeds decide differently").
OUT_PARAMETER, HOISTED_VIEW_TYPE, STRONGER_PROOF, NEVER_RUNS = 1, 2, 3, 4
KNOWN: dict[str, int] = {
    # Step D's table: "Out with caller-supplied storage is legal; only a call-site
    # ArgDirection::Output is rejected".  07a0a9a6 rejects the Out parameter itself.
    "m0355__b14_manual_out_graph.graph_input__alpha_rename": OUT_PARAMETER,
    # `for i in pl.range(m - m)` never runs, so `core_num=i` is never launched: Z3 proves the
    # launch (no value of i exists); the reference's analyzer guards it.
    "m1142__b13_spmd_edge_counts.spmd_input__annotation+loop_bounds": STRONGER_PROOF,
    # `if 0 < al9999` where al9999 ends a 10,000-link alias chain from n: Z3 follows the chain
    # and proves `blocks = (n + 15) // 16 * 4 >= 1`; the reference's analyzer guards it.
    "m1343__a09_orch_spmd_counts.spmd_input__many_stmts": STRONGER_PROOF,
}

# Differences that are readings, each with what decides it.  `status` is legalog's status.
READINGS: dict[str, tuple[str, str]] = {
    # Same verdict, same decisions: the outputs differ only where PyPTO's parser reads an input
    # statement differently from its text, which legalog keeps as written (lossless where untouched).
    "m0568__a03_derive_chain.graph_input__odd_statement+indent_unit": (
        "rewritten",
        "a statement-level `pl.yield_()` with nothing to yield: PyPTO's parser drops it",
    ),
    "m0793__a14_manual_graph_barrier.spmd_input__byte_near_token": (
        "rewritten",
        "`l.range(...)`: PyPTO's parser resolves the loop by its attribute and prints `pl.range`",
    ),
    "m0966__a14_manual_graph_barrier.spmd_input__swap_stmts": (
        "rewritten",
        "a `pl.yield_` that is not its branch's last statement: PyPTO's parser keeps it unbound",
    ),
    "m1253__b03_offset_algebra.graph_input__annotation": (
        "rewritten",
        "a UINT8 scalar in INDEX arithmetic: PyPTO's parser inserts `pl.cast(x, pl.INDEX)`",
    ),
    "m1376__a14_manual_graph_barrier.spmd_input__tuple_unpack_submit": (
        "rewritten",
        "`(a, t) = pl.spmd_submit(...)`: PyPTO's parser binds one tuple and projects it",
    ),
}


def _selected() -> list[Entry]:
    if os.environ.get("LEGALOG_REFERENCE_ALL") == "1":
        return ENTRIES
    variants = [e for e in ENTRIES if e.name.startswith("m")]
    sampled = {e.name for e in variants[::EVERY]}
    return [
        e
        for e in ENTRIES
        if not e.name.startswith("m") or e.name in sampled or e.name in KNOWN or e.name in READINGS
    ]


@cache
def _run(entry: Entry) -> Analysis | None:
    """legalog with only the entry's pass; None when it crashed (a READINGS row says so)."""
    path = REFERENCE / entry.input
    try:
        return analyze(path.read_text(), str(path), passes=(entry.pass_name,))
    except RecursionError:
        return None
    except Exception as err:  # z3 reports a RecursionError in its own ctypes wrapper as ArgumentError
        if "RecursionError" in str(err):
            return None
        raise


def _reference_output(entry: Entry) -> Program:
    assert entry.output is not None
    return parse((REFERENCE / entry.output).read_text(), entry.output)


def _agrees(entry: Entry, result: Analysis | None) -> bool:
    if result is None or result.status != entry.verdict:
        return False
    if entry.verdict != "rewritten":
        return True
    assert result.output is not None
    return structurally_equal(result.output, _reference_output(entry))


@pytest.mark.shared
def test_the_reference_cases_are_there() -> None:
    assert len(ENTRIES) == 271
    assert set(KNOWN) | set(READINGS) <= {e.name for e in ENTRIES}, "a table row names no entry"


@pytest.mark.shared
@pytest.mark.parametrize("entry", _selected(), ids=lambda e: e.name)
def test_decides_as_pypto(entry: Entry) -> None:
    result = _run(entry)
    if entry.name in KNOWN:
        _assert_known_class(entry, result, KNOWN[entry.name])
    elif entry.name in READINGS:
        status, why = READINGS[entry.name]
        assert (result.status if result else "crash") == status, why
        assert not _agrees(entry, result), f"agrees now: drop its READINGS row ({why})"
    else:
        assert result is not None
        assert result.status == entry.verdict, [
            f"{d.code} {d.message}" for d in result.errors
        ] or entry.message
        if entry.verdict == "rewritten":
            assert result.output is not None
            assert structurally_equal(result.output, _reference_output(entry)), (
                "same verdict, another program"
            )


def _assert_known_class(entry: Entry, result: Analysis | None, known: int) -> None:
    assert result is not None
    assert not _agrees(entry, result), "agrees now: drop its KNOWN row"
    if known == OUT_PARAMETER:
        assert entry.verdict == "rejected" and "as Out" in entry.message
        assert result.status != "rejected"
        graphs = [f for f in result.program.functions if f.type == "Graph"] if result.program else []
        assert any(p.direction == "Out" for f in graphs for p in f.params)
    elif known == STRONGER_PROOF:
        # the reference guards a launch legalog proves positive, and nothing else differs in kind
        assert entry.verdict == "rewritten"
        proven = [d for d in result.launches if d.outcome == "proven"]
        assert proven, "legalog proves no launch here"
        assert (REFERENCE / entry.output).read_text().count("_nonempty") > (
            result.legalized_text() or ""
        ).count("_nonempty")
    else:
        raise AssertionError(f"class {known} has no check yet")
