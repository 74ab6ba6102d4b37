"""Which rules cost clingo's grounder the most on one dump: a per-rule profile.

    python bench/rule_ground.py FILE [--verifier] [--top 25]

A whole evaluation's grounding time says nothing about which rule is expensive, and clingo
reports no per-rule figure.  So every relation of a full evaluation (the facts and every derived
row) is loaded into one `Control` as facts, and then each rule the evaluation grounds is grounded
alone, in a multi-shot program part of its own, with its head renamed (so no atom is defined
twice), and timed.  A rule whose time grows faster than the dump (compare K = 412 and K = 1650
from `bench/generate.py`) is a join to look at: this is how `topology.pyd`'s quadratic
`local_before` was found (issue 19).  `--verifier` profiles the verifier's evaluation of the
rewritten program instead of the pass's.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import clingo  # noqa: E402 - after the sys.path setup above
from clingo import ast  # noqa: E402 - after the sys.path setup above

from legalog.extractor.lower import lower  # noqa: E402 - after the sys.path setup above
from legalog.pipeline import analyze  # noqa: E402 - after the sys.path setup above
from legalog.rules.backends import clingo as backend  # noqa: E402 - after the sys.path setup above
from legalog.rules.engine import RuleProgram, evaluate  # noqa: E402 - after the sys.path setup above
from legalog.rules.language import Atom  # noqa: E402 - after the sys.path setup above
from legalog.rules.programs import PASS_RULES, RULES_OF, VERIFIER_RULES, work  # noqa: E402


def profile(path: str, verifier: bool) -> tuple[list[tuple[float, str, str, int]], float, int]:
    """(seconds, rule location, head, rows of the head) per rule, slowest first; the time to
    load every row; how many rows."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SystemExit(f"{path}: cannot read it: {err}") from None
    analysis = analyze(text, path)
    program = analysis.legalized if verifier else analysis.program
    if program is None:
        why = "; ".join(f"{d.line}:{d.column}: {d.code} {d.message}" for d in analysis.errors)
        raise SystemExit(f"{path}: {analysis.status}, nothing to profile ({why})")
    rules = RuleProgram.load(VERIFIER_RULES if verifier else PASS_RULES)
    facts = lower(program, "host_build_graph").facts.as_mapping()
    found = work(rules, facts, ("graph", "spmd"))
    outputs = frozenset().union(*(RULES_OF[name].outputs(rules) for name in found.passes))
    if verifier and "graph" in found.passes:
        outputs |= rules.defined_in["verifier"]
    derived = evaluate(rules, facts, "clingo", outputs, found.firable)
    wanted = rules.closure(outputs)
    kept = [i for i in found.firable if rules.rules[i].head.relation in wanted]
    rows = {name: set(derived[name]) for name in wanted | set(rules.inputs) if name in derived}
    control = clingo.Control(["--warn=none"])
    loaded = backend._Program((), {}, (), frozenset(rows), {})
    start = time.perf_counter()
    backend._FactLoader(control).load(loaded, {name: r for name, r in rows.items() if r})
    load_s = time.perf_counter() - start
    control.ground([("base", [])])
    with ast.ProgramBuilder(control) as builder:
        for i in kept:
            rule = rules.rules[i]
            alone = dataclasses.replace(rule, head=Atom(f"zz{i}_{rule.head.relation}", rule.head.args))
            if alone.aggregate is None:
                text = backend._rule(alone)
            else:
                text = "\n".join(backend._aggregate(alone, alone.aggregate, f"_aggzz{i}")[0])
            ast.parse_string(f"#program r{i}.\n{text}\n", builder.add)
    timed = []
    for i in kept:
        start = time.perf_counter()
        control.ground([(f"r{i}", [])], context=backend._Context())
        rule = rules.rules[i]
        timed.append(
            (
                time.perf_counter() - start,
                rule.where,
                rule.head.relation,
                len(rows.get(rule.head.relation, ())),
            )
        )
    return sorted(timed, reverse=True), load_s, sum(map(len, rows.values()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="an IR dump")
    ap.add_argument("--verifier", action="store_true", help="the verifier's evaluation of the rewrite")
    ap.add_argument("--top", type=int, default=25, help="how many rules to list")
    args = ap.parse_args(argv)
    timed, load_s, count = profile(args.file, args.verifier)
    print(
        f"loaded {count} rows in {load_s:.3f} s; {len(timed)} rules, {sum(t for t, *_ in timed):.3f} s in all"
    )
    for seconds, where, head, rows in timed[: args.top]:
        print(f"{seconds * 1e3:9.1f} ms  {Path(where).name:28} {head} ({rows} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
