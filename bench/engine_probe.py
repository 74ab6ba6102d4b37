"""Measures the pyDatalog backend (not a test): evaluate on a tiny program, the reset, fact throughput.

python bench/engine_probe.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyDatalog import pyEngine, pyParser
from pyDatalog.Logic import Logic

from legalog.rules.backends.pydatalog import _active, _database, _store_rows, evaluate
from legalog.rules.language import RuleProgram

RULES = """# probe
reach(X, Y) <= edge(X, Y)
reach(X, Y) <= reach(X, Z) & edge(Z, Y)
node(X) <= edge(X, Y)
node(Y) <= edge(X, Y)
unreach(X, Y) <= node(X) & node(Y) & ~reach(X, Y)
(fanout[X] == len_(Y)) <= edge(X, Y)
"""


def timed(fn, repeat: int) -> float:
    """Median wall time of `fn()` in milliseconds."""
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def main() -> None:
    t0 = time.perf_counter()
    rules = RuleProgram.from_texts({"probe.pyd": RULES})
    database = _database(rules)
    print(
        f"RuleProgram build (lint + load + stratify), {len(RULES.splitlines()) - 1} rules: "
        f"{(time.perf_counter() - t0) * 1e3:.2f} ms"
    )

    tiny = {"edge": [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")]}
    print(
        f"evaluate, tiny program (4 edges, 5 derived relations): {timed(lambda: evaluate(rules, tiny), 200):.3f} ms"
    )
    print(f"evaluate, no facts: {timed(lambda: evaluate(rules, {}), 200):.3f} ms")

    # The reset we use: restore the rules-only stores in place.
    print(f"reset chosen (in-place restore of rules-only stores): {timed(database.reset, 2000) * 1e3:.1f} us")

    # Alternatives, for the record.
    def clear_and_reload() -> None:
        Logic()  # == pyDatalog.clear()
        pyParser.load(RULES)

    print(f"alternative: clear() + reload rules: {timed(clear_and_reload, 50):.3f} ms")
    Logic()
    pyParser.load(RULES)
    snapshot = Logic(True)
    print(
        f"alternative: Logic(snapshot) restore: {timed(lambda: Logic(snapshot), 500) * 1e3:.1f} us "
        "(copies only the predicate dict: the predicates, and their facts, stay shared -> not isolating)"
    )

    # Fact throughput, 10k facts of a binary relation.
    n = 10_000
    rows = [(f"v{i}", i) for i in range(n)]

    def direct() -> None:
        with _active(database.logic):
            pred = pyEngine.insert(pyEngine.Pred("bulk", 2))
            pred.prearity = 2
            _store_rows(pred, rows, {})
            database.reset()

    def engine_assert() -> None:
        Logic()
        for r in rows:
            pyEngine.assert_(pyEngine.Clause(pyEngine.Literal("bulk", [pyEngine.Term_of(a) for a in r]), []))

    def public_assert() -> None:
        from pyDatalog import pyDatalog

        Logic()
        for r in rows:
            pyDatalog.assert_fact("bulk", *r)

    for label, fn, rep in [
        ("direct store (used)", direct, 7),
        ("pyEngine.assert_", engine_assert, 5),
        ("pyDatalog.assert_fact", public_assert, 3),
    ]:
        ms = timed(fn, rep)
        print(
            f"assert 10k facts, {label}: {ms:.1f} ms  ({n / ms * 1e3 / 1e3:.0f}k facts/s, {ms * 1e3 / n:.2f} us/fact)"
        )

    big = {"edge": [(f"n{i}", f"n{i + 1}") for i in range(200)]}
    print(f"evaluate, 200-edge chain (20k reach rows): {timed(lambda: evaluate(rules, big), 3):.0f} ms")


if __name__ == "__main__":
    main()
