"""`python -m tests.reference.counts`: agree / known class / differ per pass over all 271
reference cases, as the closing notes quote them (the same runs and tables as test_reference)."""

from __future__ import annotations

from collections import Counter

from tests.reference.test_reference import ENTRIES, KNOWN, _agrees, _run


def main() -> None:
    counts: Counter[tuple[str, str]] = Counter()
    for entry in ENTRIES:
        agrees = _agrees(entry, _run(entry))
        kind = "agree" if agrees else "known class" if entry.name in KNOWN else "differ"
        counts[entry.pass_name, kind] += 1
    for pass_name in ("graph", "spmd"):
        row = {k: counts[pass_name, k] for k in ("agree", "known class", "differ")}
        print(pass_name, sum(row.values()), row)


if __name__ == "__main__":
    main()
