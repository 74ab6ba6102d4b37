"""The engines alone, side by side: one rule evaluation, same facts, same process (issue 30, target 1).

    python bench/engines.py                      # every corpus dump, K=50 and K=200, the 5 MB program
    python bench/engines.py --engines compiled pydatalog --no-large

For each input: its facts (legalog's own lowering), then the pass program's evaluation exactly as
`legalog.pipeline.solve` asks for it (the outputs of the passes with work, the rules that can
fire), timed on each engine in turn, interleaved, best of `--repeat` after one warm-up run each
(a process compiles or parses a program once; that is not the evaluation's cost).  Every
relation of the closure is compared across engines: a difference is printed and fails the run.
Inputs: ../shared/corpus (and its graph/), bench/generate.py at K=50 and K=200 (T=8), and the
5 MB program (K=1650, T=8).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

from generate import generate  # noqa: E402 - after the sys.path setup above

from legalog.pipeline import analyze, pass_rules  # noqa: E402
from legalog.rules.engine import Derived, evaluate  # noqa: E402
from legalog.rules.programs import RULES_OF, work  # noqa: E402

CORPUS = (REPO / ".." / "shared" / "corpus").resolve()


def inputs(large: bool) -> list[tuple[str, str]]:
    """(name, dump text) of every input measured."""
    out = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.py"))]
    out += [
        (f"graph/{p.name}", p.read_text(encoding="utf-8")) for p in sorted((CORPUS / "graph").glob("*.py"))
    ]
    out += [(f"synthetic K={k} T=8", generate(k, 8, 0)) for k in (50, 200)]
    if large:
        out.append(("synthetic K=1650 T=8 (5 MB)", generate(1650, 8, 0)))
    return out


def measure(text: str, name: str, engines: list[str], repeat: int) -> dict[str, object] | None:
    """Best-of-`repeat` seconds per engine for the pass program's evaluation; None when the dump
    gives the passes nothing to decide (no evaluation happens)."""
    analysis = analyze(text, name)  # the facts the pipeline evaluates (a frontend dump versioned)
    if analysis.lowering is None:
        return None
    facts: Mapping[str, list[tuple]] = analysis.lowering.facts.as_mapping()
    rules = pass_rules()
    found = work(rules, facts, ("graph", "spmd"))
    if not found.passes:
        return None
    outputs = frozenset().union(*(RULES_OF[p].outputs(rules) for p in found.passes))
    answers: dict[str, Derived] = {e: evaluate(rules, facts, e, outputs, found.firable) for e in engines}
    times: dict[str, list[float]] = {e: [] for e in engines}
    for _ in range(repeat):
        for engine in engines:
            start = time.perf_counter()
            evaluate(rules, facts, engine, outputs, found.firable)
            times[engine].append(time.perf_counter() - start)
    wanted = rules.closure(outputs)
    first = engines[0]
    differing = sorted(
        n for e in engines[1:] for n in wanted if answers[e][n] != answers[first][n]
    )  # every relation of the closure, on every engine
    return {
        "facts": sum(map(len, facts.values())),
        "best": {e: min(t) for e, t in times.items()},
        "differing": differing,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", nargs="+", default=["compiled", "pydatalog"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-large", action="store_true", help="without the 5 MB program")
    ap.add_argument("--only", help="only the inputs whose name holds this text")
    args = ap.parse_args(argv)
    engines: list[str] = args.engines
    head = f"{'input':58} {'facts':>7} " + " ".join(f"{e + ' ms':>12}" for e in engines)
    if len(engines) > 1:
        head += " " + " ".join(f"{e + '/' + engines[0]:>20}" for e in engines[1:])
    print(head)
    print("-" * len(head))
    ratios: dict[str, list[float]] = {e: [] for e in engines[1:]}
    failed = False
    for name, text in inputs(not args.no_large):
        if args.only and args.only not in name:
            continue
        repeat = args.repeat if len(text) < 1_000_000 else 2
        row = measure(text, name, engines, repeat)
        if row is None:
            print(f"{name[:58]:58} {'':>7} nothing to decide: no evaluation")
            continue
        best: dict[str, float] = row["best"]  # type: ignore[assignment]
        cells = " ".join(f"{best[e] * 1e3:12.2f}" for e in engines)
        for e in engines[1:]:
            ratios[e].append(best[e] / best[engines[0]])
        ratio_cells = " ".join(f"{best[e] / best[engines[0]]:19.1f}x" for e in engines[1:])
        print(f"{name[:58]:58} {row['facts']:7d} {cells} {ratio_cells}", flush=True)
        if row["differing"]:
            failed = True
            print(f"   DIFFERENT RELATIONS: {row['differing'][:10]}")
    for e, values in ratios.items():
        corpus = values[: len(values) - (0 if args.only else 2 if args.no_large else 3)] or values
        print(
            f"\n{e} / {engines[0]}: corpus median {statistics.median(corpus):.1f}x "
            f"(min {min(corpus):.1f}x, max {max(corpus):.1f}x over {len(corpus)} dumps)"
        )
    print("every relation identical on every engine" if not failed else "ENGINES DIFFER")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
