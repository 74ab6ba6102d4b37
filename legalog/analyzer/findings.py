"""What LegalizeGraphBoundary will change, as findings people read: one per decision.

Every hoisted value and every deleted rename is an info finding (GB201-GB204), fixable, at the
statement the rewrite removes; each says what the runtime would do with the value as written
and what `legalog fix` does instead.  Values the pass leaves in place because they are
replay-invariant are no findings (nothing changes); `kept_values` says why each is safe, for
`--verbose` and the JSON report.  Nothing here decides: the decisions are `GraphDecision`s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from legalog.analyzer.diagnostics import Diagnostic, diagnostic
from legalog.analyzer.graph import BLOCKING_REASONS, GraphDecision, HoistedValue, first_definitions
from legalog.extractor.lower import Lowering
from legalog.ir.model import Program, Span
from legalog.ir.printer import print_expr
from legalog.ir.transform import substitute
from legalog.rules.engine import Derived

FINDING_CODES = {"scalar": "GB201", "view": "GB202", "alloc": "GB203", "alias": "GB204"}


@dataclass(frozen=True, slots=True)
class KeptValue:
    """A value Steps A/B leave in place because replay restores it correctly."""

    function: str
    name: str
    kind: Literal["scalar", "view"]
    line: int
    reason: str


def graph_findings(
    program: Program, lowering: Lowering, derived: Derived, decisions: tuple[GraphDecision, ...]
) -> tuple[Diagnostic, ...]:
    """GB201-GB204: one fixable info finding per hoist and per deleted rename, in source order."""
    spans = _definition_spans(lowering, derived)
    out: list[Diagnostic] = []
    for g in decisions:
        for h in g.hoisted:
            span = spans.get(f"{g.function}/{h.name}", Span(1, 1, 1, 1))
            out.append(
                diagnostic(
                    FINDING_CODES[h.kind],
                    _hoist_message(g, h, program.prefix),
                    span.line,
                    span.col,
                    function=g.function,
                    subject=h.name,
                    fixable=True,
                )
            )
        for alias, root in g.aliases:
            span = spans.get(f"{g.function}/{alias}", Span(1, 1, 1, 1))
            message = (
                f"`{alias}` is a bare rename of a scalar: the runtime rejects the integer copy "
                f"(`int64_t {alias} = ...;`); the rename is deleted and its readers use `{root}`"
            )
            out.append(
                diagnostic(
                    FINDING_CODES["alias"],
                    message,
                    span.line,
                    span.col,
                    function=g.function,
                    subject=alias,
                    fixable=True,
                )
            )
    return tuple(sorted(out, key=lambda d: d.sort_key))


def _hoist_message(g: GraphDecision, h: HoistedValue, prefix: str) -> str:
    if h.kind == "scalar":
        value = print_expr(g.expanded(h.name), prefix)
        return (
            f"derived boundary scalar `{h.name}` would be frozen at the first call's value on replay; "
            f"hoisted: each call site computes `{value}` and passes it as a new trailing scalar parameter"
        )
    # in the Graph's own parameters, as for a scalar: earlier hoists and renames expanded
    local = {x.name for x in g.hoisted if x.kind == "scalar"} | {alias for alias, _ in g.aliases}
    value = print_expr(substitute(h.value, lambda n: g.expanded(n) if n in local else None), prefix)
    if h.kind == "view":
        return (
            f"view `{h.name}` of boundary tensor `{h.source}` is taken inside the region, where replay would "
            f"restore the first call's window; hoisted: each call site takes `{value}` and passes it as a new "
            f"tensor parameter ({h.direction})"
        )
    return (
        f"`{h.name}` is allocated inside the region, and the graph heap never reclaims it mid-run; hoisted: "
        f"each call site allocates `{value}` and passes it as a new InOut tensor parameter"
    )


def _definition_spans(lowering: Lowering, derived: Derived) -> dict[str, Span]:
    return {v: lowering.stmts[s].span for v, (s, _e) in first_definitions(derived).items()}


def kept_values(
    program: Program, lowering: Lowering, derived: Derived, decisions: tuple[GraphDecision, ...]
) -> tuple[KeptValue, ...]:
    """Every value kept in place because it is replay-invariant, with the reason it is safe."""
    spans = _definition_spans(lowering, derived)
    defs = {v: e for v, (_s, e) in first_definitions(derived).items()}
    out: list[KeptValue] = []
    for g in decisions:
        for name in g.kept_invariant:
            vid = f"{g.function}/{name}"
            out.append(
                KeptValue(
                    g.function,
                    name,
                    "scalar",
                    spans[vid].line,
                    _kept_scalar_reason(program, lowering, derived, defs.get(vid)),
                )
            )
        for name in g.kept_views:
            out.append(
                KeptValue(
                    g.function,
                    name,
                    "view",
                    spans[f"{g.function}/{name}"].line,
                    "its offsets are replay-invariant: the window is the same on every replay, "
                    "so the recorded view is correct and it stays in place",
                )
            )
    return tuple(sorted(out, key=lambda k: (k.function, k.line, k.name)))


def _kept_scalar_reason(program: Program, lowering: Lowering, derived: Derived, root: str | None) -> str:
    blocked = sorted((str(leaf), str(why)) for r, leaf, why in derived["blocking"] if r == root)
    safe = (
        "but every leaf is replay-invariant, so the value recorded on the first call is right on every replay"
    )
    if not blocked:
        return f"not recomputable at the call site, {safe}"
    leaf, why = blocked[0]
    node = lowering.exprs.get(leaf)
    text = print_expr(node, program.prefix) if node is not None else leaf
    return f"not recomputable at the call site (it depends on `{text}`, {BLOCKING_REASONS.get(why, why)}), {safe}"
