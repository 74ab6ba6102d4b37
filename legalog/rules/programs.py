"""Which rule files each evaluation loads.  One place, so the check path, `why`/`query` and
the verifier cannot drift apart."""

from __future__ import annotations

# LegalizeGraphBoundary and LegalizeSpmdLaunches, as `check` and `fix` evaluate them.
PASS_RULES = ("base", "invariant", "scalars", "views", "allocs", "topology", "boundary", "host_control", "spmd")

# The why-not relations cost about a third of an evaluation and only `why` / `query` read them,
# so they are solved on demand, never on the check path.
EXPLAIN_RULES = (*PASS_RULES, "explain")

# GraphBoundaryLegalized.  verifier.pyd reads only base structure and the replay-invariant set
# (tests/rules/test_rule_files.py holds it to that); it is solved in the same evaluation as the
# pass rules' re-check of the rewritten program, which saves a whole engine run.
VERIFIER_RULES = (*PASS_RULES, "verifier")
