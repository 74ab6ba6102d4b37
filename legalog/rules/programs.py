"""Which rule files each evaluation loads, and which facts give each pass work.  One place, so
the check path, `why`/`query` and the verifier cannot drift apart."""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from legalog.rules.language import Row, RuleProgram


@dataclass(frozen=True)
class PassRules:
    """The rule files of one pass (beyond `base`, which both read), and the derived relations
    without a row of which it has nothing to decide (`keys`)."""

    files: tuple[str, ...]
    keys: frozenset[str]

    def outputs(self, rules: RuleProgram) -> frozenset[str]:
        """The relations this pass's own files define: what its decisions read."""
        return frozenset().union(*(rules.defined_in[name] for name in self.files))


# LegalizeGraphBoundary: every rule reads a Graph (`graph`, `region`, `graph_stmt`...), except
# the host control checks, which read orchestration-level tensor reads and writes.
GRAPH = PassRules(
    ("invariant", "scalars", "views", "allocs", "topology", "boundary", "host_control"),
    frozenset({"graph", "host_tensor"}),
)
# LegalizeSpmdLaunches: an SPMD launch is a launch carrying a core_num (spmd.pyd, spmd_launch) or
# a `with pl.spmd(n):` scope (spmd_scope).
SPMD = PassRules(("spmd",), frozenset({"spmd_launch", "spmd_scope"}))
RULES_OF: Mapping[str, PassRules] = {"graph": GRAPH, "spmd": SPMD}


@dataclass(frozen=True)
class Work:
    """What a program's facts give the passes to do: the passes with work, and the rules that can
    fire (`RuleProgram.firable`), found once for the work test and the evaluation that follows."""

    passes: frozenset[str]
    firable: tuple[int, ...]


def work(rules: RuleProgram, facts: Mapping[str, Collection[Row]], passes: Collection[str]) -> Work:
    """The passes among `passes` that have something to decide over `facts`: a key relation can
    hold a row (`RuleProgram.firable`, decided from which input rows exist, before any engine runs)."""
    fired = rules.firable(facts)
    possible = _heads(rules, fired)
    return Work(frozenset(name for name in passes if RULES_OF[name].keys & possible), fired)


@functools.lru_cache(maxsize=256)
def _heads(rules: RuleProgram, fired: tuple[int, ...]) -> frozenset[str]:
    """The relations the rules `fired` define (the same few selections recur)."""
    return frozenset(rules.rules[i].head.relation for i in fired)


# LegalizeGraphBoundary and LegalizeSpmdLaunches, as `check` and `fix` evaluate them.
PASS_RULES = ("base", *GRAPH.files, *SPMD.files)

# The why-not relations cost about a third of an evaluation and only `why` / `query` read them,
# so they are solved on demand, never on the check path.
EXPLAIN_RULES = (*PASS_RULES, "explain")

# GraphBoundaryLegalized.  verifier.pyd reads only base structure and the replay-invariant set
# (tests/rules/test_rule_files.py holds it to that); it is solved in the same evaluation as the
# pass rules' re-check of the rewritten program, which saves a whole engine run.
VERIFIER_RULES = (*PASS_RULES, "verifier")

# Each program by its name (legalog.rules.engine_names.PROGRAMS, `legalog rules --emit NAME`).
PROGRAMS: Mapping[str, tuple[str, ...]] = {
    "pass": PASS_RULES,
    "explain": EXPLAIN_RULES,
    "verifier": VERIFIER_RULES,
}
