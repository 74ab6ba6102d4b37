"""What the oracle is asked about: every input `fix` rewrites, with legalog's output, and how PyPTO's
verdict on the output may differ from its verdict on the input.

The rule (issue 11): PyPTO's parser reads the output and the round trip holds; for a dump at a
pipeline position, the pipeline suffix and codegen accept the output whenever they accept the
input.  One difference is known and allowed, and only in its exact words: this snapshot's
orchestration codegen cannot consume a TaskId that an `if` yields (docs/validation.md, "What PyPTO's
oracle says"), which every guard of a launch whose TaskId feeds a later `deps=` produces.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from legalog.pipeline import analyze
from tests.conftest import CORPUS
from tests.graph.test_cases import case_files, expected_path
from tests.oracle.pypto_oracle import Stage, Verdict, suffix_pass

STAGES = ("parse", "roundtrip", "suffix", "codegen")

# The snapshot's refusal of a TaskId produced in a closed C++ scope (an `if` branch).
TASK_ID_SCOPE_LIMIT = "cannot be honored: its TaskId is produced inside a scope that has already closed"


@dataclass(frozen=True)
class Subject:
    name: str
    source: str
    fixed: str
    first_pass: str | None  # the pipeline pass the dump's position resumes at, if it has one


@cache
def corpus_subjects() -> tuple[Subject, ...]:
    """Every dump under corpus/graph that `fix` rewrites."""
    found = []
    for path in sorted((CORPUS / "graph").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        fixed = analyze(text, str(path)).legalized_text()
        if fixed is not None and fixed != text:
            found.append(Subject(path.name, text, fixed, suffix_pass(path)))
    return tuple(found)


def golden_subjects() -> tuple[Subject, ...]:
    """Every golden case with an expected output (the exact `fix` output, held by tests/graph)."""
    return tuple(
        Subject(
            case.name, case.read_text(encoding="utf-8"), expected_path(case).read_text(encoding="utf-8"), None
        )
        for case in case_files()
        if expected_path(case).exists()
    )


def is_task_id_scope_limit(stage: Stage) -> bool:
    # PyPTO wraps codegen errors in a table: join its cells back into one line first.
    return stage.status == "reject" and TASK_ID_SCOPE_LIMIT in " ".join(
        stage.detail.replace("|", " ").split()
    )


def regressions(before: Verdict, after: Verdict) -> dict[str, Stage]:
    """The stages of `after` (legalog's output) that reject what `before` (its input) passed."""
    found: dict[str, Stage] = {}
    for name in STAGES:
        if getattr(before, name).accepted and not getattr(after, name).accepted:
            found[name] = getattr(after, name)
    return found
