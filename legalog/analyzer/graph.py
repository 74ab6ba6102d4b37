"""LegalizeGraphBoundary's decisions and diagnostics, read off the derived relations.

The rules decide (legalog/rules/*.pyd); this module only turns their relations into data the
rewriter obeys and messages people read.  Every message names the function and the variable,
says what the runtime would do with it, and what to do instead.
"""

from __future__ import annotations

import re
import weakref
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Literal

from legalog.extractor.lower import Lowering
from legalog.facts.ids import function_of, stmt_order, var_name
from legalog.facts.store import Row
from legalog.ir.model import Assign, Expr, Function, Name, Program, Span, Type
from legalog.ir.parser import MAX_EXPR_DEPTH
from legalog.ir.printer import print_expr
from legalog.ir.transform import expr_names, substitute, tree_size
from legalog.rules.engine import Derived

_SSA_ROLE = r"__(?:ssa|tmp|idx|iter|rv|phi)_v\d+(?:_\d+)?"
_SSA_SUFFIX = re.compile(_SSA_ROLE + "$")
_SSA_NAME = re.compile(r"\b(\w+?)" + _SSA_ROLE + r"\b")

HoistKind = Literal["alloc", "view", "scalar"]


def plain_name(name: str) -> str:
    """A printed name without its SSA suffix: `base__ssa_v0` -> `base` (CONTRACT.md)."""
    return _SSA_SUFFIX.sub("", name)


def plain_text(text: str) -> str:
    """Printed text with every name's SSA suffix removed: `idx__ssa_v0 * 128` -> `idx * 128`."""
    return _SSA_NAME.sub(r"\1", text)


@dataclass(frozen=True, slots=True)
class HoistedValue:
    """A value Step A/B/C moves to every call site, where it becomes a new parameter."""

    name: str  # the body variable, which is also the new parameter's name
    kind: HoistKind
    value: Expr  # its definition, in the Graph's own terms
    type: Type
    direction: Literal["In", "InOut", "Out"]
    order: int  # definition order in the body
    source: str | None = None  # for a view: the boundary tensor it is taken from


@dataclass(frozen=True, slots=True)
class GraphDecision:
    function: str
    hoisted: tuple[HoistedValue, ...]  # parameter order: allocations, views, scalars
    aliases: tuple[tuple[str, str], ...]  # (deleted rename, the name its readers get), definition order
    tensor_links: tuple[
        tuple[str, str, int], ...
    ]  # (name, same-buffer source, order): call sites follow them
    kept_invariant: tuple[str, ...]
    kept_views: tuple[str, ...]
    node_count: int | None
    # `expanded`'s table, filled on first use (a cache: no part of the decision)
    _expansions: dict[str, Expr] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def changes_anything(self) -> bool:
        return bool(self.hoisted or self.aliases)

    def expanded(self, name: str) -> Expr:
        """A hoisted scalar's value in the Graph's parameters: renames resolved and earlier
        hoists expanded, as long as the whole stays within `SHOWN_NODES` nodes; past that, the
        earlier hoists it reads keep their names (each is a parameter of the rewritten Graph,
        computed by the call site just before).  A name that is neither is itself."""
        if not self._expansions:
            self._expansions.update(_expansions(self))
        return self._expansions.get(name) or Name(name)


# An expansion is shown whole only within this many nodes: so it nests no deeper than the reader
# takes back, and a chain of hoists, each reading the one before (or twice: `a2 = a1 + a1`),
# never prints values that grow with the chain's length (or exponentially).
SHOWN_NODES = MAX_EXPR_DEPTH


def _expansions(g: GraphDecision) -> dict[str, Expr]:
    """`GraphDecision.expanded` of every hoisted scalar and deleted rename, in one walk of the
    chain (earlier expansions are shared, not rebuilt)."""
    values = {h.name: h.value for h in g.hoisted if h.kind == "scalar"}
    roots = dict(g.aliases)
    sizes: dict[str, int] = {}  # a hoisted value's size expanded, saturated at SHOWN_NODES + 1
    out: dict[str, Expr] = {}

    def hoisted_root(n: str) -> str | None:
        r = roots.get(n, n)
        return r if r in values else None

    def whole(n: str) -> Expr | None:
        r = roots.get(n, n)
        if r in out and sizes[r] <= SHOWN_NODES:
            return out[r]
        return Name(r) if n in roots else None

    def one_level(n: str) -> Expr | None:
        return Name(roots[n]) if n in roots else None

    for name in _dependency_order(values, hoisted_root):
        size = tree_size(values[name], lambda n: sizes.get(hoisted_root(n) or "", 1))
        sizes[name] = min(size, SHOWN_NODES + 1)
        out[name] = substitute(values[name], whole if size <= SHOWN_NODES else one_level)
    for alias, root in g.aliases:
        out[alias] = out.get(root) or Name(root)
    return out


def _dependency_order(values: Mapping[str, Expr], hoisted_root: Callable[[str], str | None]) -> list[str]:
    """The hoisted scalars, each after the hoisted scalars its value reads (a depth-first walk
    on an explicit stack; a name met again while in progress is left as it is)."""
    order: list[str] = []
    state: dict[str, bool] = {}  # False: in progress, True: placed
    for start in values:
        stack = [(start, False)]
        while stack:
            name, placed = stack.pop()
            if placed:
                state[name] = True
                order.append(name)
            elif name not in state:
                state[name] = False
                stack.append((name, True))
                reads = {r for n in expr_names(values[name]) if (r := hoisted_root(n)) is not None}
                stack.extend((r, False) for r in sorted(reads) if r not in state)
    return order


# first_definitions of each live evaluation, by its identity: decisions, diagnostics and
# findings all read it, and sorting every binding once per reader was most of their cost
_DEFINITIONS: dict[int, Mapping[str, tuple[str, str]]] = {}


def first_definitions(derived: Derived) -> Mapping[str, tuple[str, str]]:
    """Each variable's defining (statement, expression).  Under SSA there is one; a pre-SSA
    (frontend) dump may assign a name again, and then the first assignment speaks for it —
    chosen by statement order, never by set iteration order, so answers are reproducible.
    Computed once per evaluation (and forgotten with it)."""
    key = id(derived)
    if (found := _DEFINITIONS.get(key)) is None:
        table: dict[str, tuple[str, str]] = {}
        for s, v, e in sorted(derived["assign"], key=lambda row: stmt_order(row[0]), reverse=True):
            table[v] = (s, e)
        found = _DEFINITIONS[key] = MappingProxyType(table)
        weakref.finalize(derived, _DEFINITIONS.pop, key, None)
    return found


def _by_function(rows: frozenset[Row]) -> dict[str, list[Row]]:
    """Rows grouped by the function their first column (an id `F/...`) belongs to: one pass,
    so each Graph reads its own rows instead of every Graph scanning all of them."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[function_of(str(row[0]))].append(row)
    return groups


def graph_decisions(program: Program, lowering: Lowering, derived: Derived) -> tuple[GraphDecision, ...]:
    assign = first_definitions(derived)
    graphs = [f for f in program.functions if f.type == "Graph"]
    view_root = _view_roots(derived)
    grouped = {
        rel: _by_function(derived[rel])
        for rel in (
            "hoisted_alloc",
            "hoisted_view",
            "hoisted_scalar",
            "kept_invariant",
            "kept_view",
            "same_buffer_edge",
            "scalar_alias",
        )
    }
    roots: dict[str, str] = dict(derived["alias_root"])
    counts: dict[str, int] = dict(derived["node_count"])
    out = []
    for fn in graphs:

        def local(rel: str, function: str = fn.name) -> list[str]:
            return sorted(
                (str(r[0]) for r in grouped[rel].get(function, ())),
                key=lambda name: stmt_order(assign[name][0]),
            )

        def hoist(v: str, kind: HoistKind, direction: str, source: str | None = None) -> HoistedValue:
            stmt = lowering.stmts[assign[v][0]]
            assert isinstance(stmt, Assign) and stmt.type is not None
            return HoistedValue(
                var_name(v),
                kind,
                stmt.value,
                stmt.type,
                direction,  # type: ignore[arg-type]
                stmt_order(assign[v][0]),
                source,
            )

        allocs = [hoist(v, "alloc", "InOut") for v in local("hoisted_alloc")]
        views = [hoist(v, "view", *view_root[v]) for v in local("hoisted_view")]
        scalars = [hoist(v, "scalar", "In") for v in local("hoisted_scalar")]
        aliases = _aliases(grouped["scalar_alias"].get(fn.name, []), roots, assign)
        links = sorted(
            (
                (var_name(str(v)), var_name(str(w)), stmt_order(assign[str(v)][0]))
                for v, w in grouped["same_buffer_edge"].get(fn.name, ())
                if v in assign
            ),
            key=lambda t: t[2],
        )
        out.append(
            GraphDecision(
                function=fn.name,
                hoisted=tuple(allocs + views + scalars),
                aliases=aliases,
                tensor_links=tuple(links),
                kept_invariant=tuple(var_name(v) for v in local("kept_invariant")),
                kept_views=tuple(var_name(v) for v in local("kept_view")),
                node_count=counts.get(fn.name),
            )
        )
    return tuple(out)


def _aliases(scalar_aliases: list[Row], roots: dict, assign: Mapping) -> tuple[tuple[str, str], ...]:
    rows = [(str(v), str(roots[v])) for v, _ in scalar_aliases]
    rows.sort(key=lambda row: stmt_order(assign[row[0]][0]))
    return tuple((var_name(v), var_name(r)) for v, r in rows)


def _view_roots(derived: Derived) -> dict[str, tuple[str, str]]:
    """A hoisted view's direction (its root's: a hoisted allocation is InOut) and its source."""
    directions: dict[str, str] = dict(derived["param_dir"])
    hoisted_allocs = {r[0] for r in derived["hoisted_alloc"]}
    source: dict[str, str] = {v: s for v, s, _ in derived["view"]}
    roots: dict[str, tuple[str, str]] = {}
    for v, r in derived["root"]:
        root_name: str = r
        origin = source.get(v, root_name)
        if r in hoisted_allocs:
            roots[v] = ("InOut", var_name(origin))
        elif r in directions:
            roots[v] = (directions[r], var_name(origin))
    return roots


# ---------------------------------------------------------------------------------- diagnostics


class Locator:
    """From ids in derived rows back to source positions and printable text.  Each table is
    made on first read: most evaluations (a legal program's, the verifier's) have no finding to
    place, and then none is."""

    def __init__(self, program: Program, lowering: Lowering, derived: Derived) -> None:
        self.program = program
        self.lowering = lowering
        self.derived = derived

    @cached_property
    def definitions(self) -> Mapping[str, tuple[str, str]]:
        return first_definitions(self.derived)

    @cached_property
    def assign(self) -> dict[str, str]:
        return {v: s for v, (s, _e) in self.definitions.items()}

    @cached_property
    def blocking(self) -> dict[str, list[tuple[str, str]]]:
        """Blocking leaves by the root they block: one pass, read per diagnostic."""
        found: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for r, x, why in self.derived["blocking"]:
            found[str(r)].append((str(x), str(why)))
        return found

    @cached_property
    def functions(self) -> dict[str, Function]:
        return {f.name: f for f in self.program.functions}

    @cached_property
    def callees(self) -> dict[str, str]:
        return {str(e): str(callee) for e, callee, _form in self.derived["launch"]}

    @cached_property
    def params(self) -> dict[tuple[str, int], str]:
        return {(str(f), int(i)): str(v) for f, i, v in self.derived["param"]}

    def argument(self, call: str, i: int, word: str = "argument") -> str:
        """`argument 2 (`idx` of `shift`)`: a call-site position named by its callee and parameter."""
        callee = self.callees.get(call)
        param = self.params.get((callee, i)) if callee is not None else None
        if callee is None:
            return f"{word} {i}"
        return f"{word} {i} (`{var_name(param)}` of `{callee}`)" if param else f"{word} {i} of `{callee}`"

    def expr_span(self, eid: str) -> Span:
        node = self.lowering.exprs.get(eid) or self.lowering.stmts[eid]
        return node.span

    def stmt_span(self, sid: str) -> Span:
        return self.lowering.stmts[sid].span

    def var_span(self, vid: str) -> Span:
        if vid in self.assign:
            return self.stmt_span(self.assign[vid])
        fn = self.functions.get(function_of(vid))
        param = fn.param(var_name(vid)) if fn else None
        return param.span if param else (fn.span if fn else Span(1, 1, 1, 1))

    def text(self, eid: str) -> str:
        return print_expr(self.lowering.exprs[eid], self.program.prefix)

    def function_span(self, name: str) -> Span:
        fn = self.functions.get(name)
        return fn.span if fn else Span(1, 1, 1, 1)


def control_kind(derived: Derived, c: str) -> str:
    """What a control statement a finding names is, in words."""
    if any(r[0] == c for r in derived["branch"]):
        return "conditional (if)"
    if any(r[0] == c for r in derived["while_loop"]):
        return "while loop"
    return "loop whose trip count is not a compile-time constant"


def culprit(at: Locator, v: str) -> str:
    """Why scalar `v` cannot be recomputed at the call site (GB118), or nothing."""
    root = at.definitions[v][1] if v in at.definitions else None
    rows = sorted(at.blocking.get(root, ())) if root is not None else []
    return (
        f" (it depends on `{at.text(rows[0][0])}`: {BLOCKING_REASONS.get(rows[0][1], rows[0][1])})"
        if rows
        else ""
    )


def view_culprit(derived: Derived, at: Locator, v: str) -> str:
    """What makes view `v`'s window vary (GB119), or nothing."""
    operands = {r for w, r in derived["view_operand"] if w == v}
    blocked = sorted(row for r in operands for row in at.blocking.get(str(r), ()))
    return (
        f": it depends on `{at.text(blocked[0][0])}` ({BLOCKING_REASONS.get(blocked[0][1], blocked[0][1])})"
        if blocked
        else ""
    )


# why a value cannot be recomputed at the call site (the first blocking leaf, rules/scalars.pyd's
# `blocking`): the words of GB118's and GB119's messages, of `why` and of a kept scalar's reason
BLOCKING_REASONS = {
    "call": "a call or tensor read the call site cannot repeat",
    "loop_index": "a loop index the call site cannot name",
    "carried": "a loop-carried or branch-merged value the call site cannot name",
    "not_scalar_param": "a value that is not one of the Graph's scalar parameters",
}
