"""The oracle's counts: how many inputs, and how many of `fix`'s outputs, PyPTO accepts at each stage.

    python -m tests.oracle.report        (from the repository root, with PyPTO installed or in $LEGALOG_PYPTO)

A stage's total counts the subjects it applies to: parse and round trip every one, the pipeline
suffix and codegen the dumps at a pipeline position.  Codegen's BLOCKED (the snapshot emits no
Graph launch) counts as accepted, and is shown apart.
"""

from __future__ import annotations

from tests.oracle.pypto_oracle import Verdict, load
from tests.oracle.subjects import STAGES, Subject, corpus_subjects, golden_subjects


def _counts(verdicts: list[Verdict], stage: str) -> str:
    stages = [getattr(v, stage) for v in verdicts]  # skipped (an earlier stage rejected) is not accepted
    accepted = sum(s.accepted for s in stages)
    blocked = sum(s.status == "blocked" for s in stages)
    return f"{accepted}/{len(stages)}" + (f" ({blocked} blocked)" if blocked else "")


def _table(title: str, subjects: tuple[Subject, ...]) -> list[str]:
    oracle = load()
    before = [oracle.verdict(s.source, s.first_pass, s.name) for s in subjects]
    after = [oracle.verdict(s.fixed, s.first_pass, s.name) for s in subjects]
    positional = [i for i, s in enumerate(subjects) if s.first_pass is not None]
    lines = [f"{title}: {len(subjects)} rewritten, {len(positional)} at a pipeline position"]
    for stage in STAGES:
        pick = range(len(subjects)) if stage in STAGES[:2] else positional
        lines.append(
            f"  {stage:<10} input {_counts([before[i] for i in pick], stage):<18} "
            f"output {_counts([after[i] for i in pick], stage)}"
        )
    for s, v in zip(subjects, after):
        lost = [
            f"{stage}: {getattr(v, stage).detail.splitlines()[0][:90]}"
            for stage in STAGES
            if getattr(v, stage).status == "reject"
        ]
        lines += [f"    {s.name} -> {x}" for x in lost]
    return lines


def main() -> None:
    print("\n".join(_table("corpus/graph", corpus_subjects()) + _table("golden cases", golden_subjects())))


if __name__ == "__main__":
    main()
