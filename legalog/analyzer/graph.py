"""LegalizeGraphBoundary's decisions and diagnostics, read off the derived relations.

The rules decide (legalog/rules/*.pyd); this module only turns their relations into data the
rewriter obeys and messages people read.  Every message names the function and the variable,
says what the runtime would do with it, and what to do instead.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

from legalog.analyzer.diagnostics import Diagnostic, diagnostic
from legalog.extractor.lower import Lowering, var_name
from legalog.facts.store import Row
from legalog.ir.model import Assign, Expr, Name, Program, Span, Type
from legalog.ir.printer import print_expr
from legalog.ir.transform import substitute
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
    tensor_links: tuple[tuple[str, str, int], ...]  # (name, same-buffer source, order): call sites follow them
    kept_invariant: tuple[str, ...]
    kept_views: tuple[str, ...]
    node_count: int | None

    @property
    def changes_anything(self) -> bool:
        return bool(self.hoisted or self.aliases)

    def expanded(self, name: str) -> Expr:
        """A hoisted scalar's value in the Graph's parameters only (earlier hoists expanded)."""
        values = {h.name: h.value for h in self.hoisted if h.kind == "scalar"}
        roots = dict(self.aliases)

        def lookup(n: str) -> Expr | None:
            if n in roots:
                return lookup(roots[n]) or Name(roots[n])
            if n in values:
                return substitute(values[n], lookup)
            return None

        return lookup(name) or Name(name)


def _order(sid: str) -> int:
    return int(sid.rsplit("/s", 1)[1])


def first_definitions(derived: Derived) -> dict[str, tuple[str, str]]:
    """Each variable's defining (statement, expression).  Under SSA there is one; a pre-SSA
    (frontend) dump may assign a name again, and then the first assignment speaks for it —
    chosen by statement order, never by set iteration order, so answers are reproducible."""
    found: dict[str, tuple[str, str]] = {}
    for s, v, e in sorted(derived["assign"], key=lambda row: _order(row[0]), reverse=True):
        found[v] = (s, e)
    return found


def _by_function(rows: frozenset[Row]) -> dict[str, list[Row]]:
    """Rows grouped by the function their first column (an id `F/...`) belongs to: one pass,
    so each Graph reads its own rows instead of every Graph scanning all of them."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[str(row[0]).split("/", 1)[0]].append(row)
    return groups


def graph_decisions(program: Program, lowering: Lowering, derived: Derived) -> tuple[GraphDecision, ...]:
    assign = first_definitions(derived)
    graphs = [f for f in program.functions if f.type == "Graph"]
    view_root = _view_roots(derived)
    grouped = {rel: _by_function(derived[rel])
               for rel in ("hoisted_alloc", "hoisted_view", "hoisted_scalar", "kept_invariant", "kept_view",
                           "same_buffer_edge", "scalar_alias")}  # fmt: skip
    roots: dict[str, str] = dict(derived["alias_root"])
    counts: dict[str, int] = dict(derived["node_count"])
    out = []
    for fn in graphs:

        def local(rel: str, function: str = fn.name) -> list[str]:
            return sorted((str(r[0]) for r in grouped[rel].get(function, ())), key=lambda name: _order(assign[name][0]))

        def hoist(v: str, kind: HoistKind, direction: str, source: str | None = None) -> HoistedValue:
            stmt = lowering.stmts[assign[v][0]]
            assert isinstance(stmt, Assign) and stmt.type is not None
            return HoistedValue(var_name(v), kind, stmt.value, stmt.type, direction, _order(assign[v][0]), source)  # type: ignore[arg-type]

        allocs = [hoist(v, "alloc", "InOut") for v in local("hoisted_alloc")]
        views = [hoist(v, "view", *view_root[v]) for v in local("hoisted_view")]
        scalars = [hoist(v, "scalar", "In") for v in local("hoisted_scalar")]
        aliases = _aliases(grouped["scalar_alias"].get(fn.name, []), roots, assign)
        links = sorted(
            ((var_name(str(v)), var_name(str(w)), _order(assign[str(v)][0]))
             for v, w in grouped["same_buffer_edge"].get(fn.name, ()) if v in assign),
            key=lambda t: t[2],
        )  # fmt: skip
        out.append(GraphDecision(
            function=fn.name,
            hoisted=tuple(allocs + views + scalars),
            aliases=aliases,
            tensor_links=tuple(links),
            kept_invariant=tuple(var_name(v) for v in local("kept_invariant")),
            kept_views=tuple(var_name(v) for v in local("kept_view")),
            node_count=counts.get(fn.name),
        ))  # fmt: skip
    return tuple(out)


def _aliases(scalar_aliases: list[Row], roots: dict, assign: dict) -> tuple[tuple[str, str], ...]:
    rows = [(str(v), str(roots[v])) for v, _ in scalar_aliases]
    rows.sort(key=lambda row: _order(assign[row[0]][0]))
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


class _Locator:
    """From ids in derived rows back to source positions and printable text."""

    def __init__(self, program: Program, lowering: Lowering, derived: Derived) -> None:
        self.program = program
        self.lowering = lowering
        self.definitions = first_definitions(derived)
        self.assign = {v: s for v, (s, _e) in self.definitions.items()}
        # blocking leaves by the root they block: one pass, read per diagnostic
        self.blocking: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for r, x, why in derived["blocking"]:
            self.blocking[str(r)].append((str(x), str(why)))
        self.functions = {f.name: f for f in program.functions}
        self.callees = {str(e): str(callee) for e, callee, _form in derived["launch"]}
        self.params = {(str(f), int(i)): str(v) for f, i, v in derived["param"]}

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
        fn = self.functions.get(vid.split("/", 1)[0])
        param = fn.param(var_name(vid)) if fn else None
        return param.span if param else (fn.span if fn else Span(1, 1, 1, 1))

    def text(self, eid: str) -> str:
        return print_expr(self.lowering.exprs[eid], self.program.prefix)

    def function_span(self, name: str) -> Span:
        fn = self.functions.get(name)
        return fn.span if fn else Span(1, 1, 1, 1)


def graph_diagnostics(program: Program, lowering: Lowering, derived: Derived) -> list[Diagnostic]:
    at = _Locator(program, lowering, derived)
    out: list[Diagnostic] = []

    def emit(code: str, span: Span, function: str | None, subject: str | None, message: str, fixable: bool = False) -> None:
        out.append(diagnostic(code, message, span.line, span.col, function=function, subject=subject, fixable=fixable))

    def fn_of(i: str) -> str:
        return i.split("/", 1)[0]

    for g, rt in derived.sorted("graph_wrong_runtime"):
        emit("GB101", at.function_span(g), g, None,
             f"Graph function `{g}` requires the host_build_graph runtime, but this compilation targets `{rt}`")
    for (g,) in derived.sorted("graph_no_tensor"):
        emit("GB102", at.function_span(g), g, None, f"Graph function `{g}` takes no tensor parameters: its boundary is empty")
    for g, n in derived.sorted("graph_too_many_tensors"):
        emit("GB103", at.function_span(g), g, None,
             f"Graph function `{g}` takes {n} tensor parameters after hoisting, over the runtime's limit of 128")
    for g, n in derived.sorted("graph_too_many_scalars"):
        emit("GB104", at.function_span(g), g, None,
             f"Graph function `{g}` takes {n} scalar parameters after Step A, over the runtime's limit of 64")
    for e, i in derived.sorted("runtime_allocated_output"):
        emit("GB105", at.expr_span(e), fn_of(e), None,
             f"{at.argument(e, i)} of this Graph launch has direction `output`: the runtime would allocate a boundary output")
    for v, d in derived.sorted("scalar_param_not_in"):
        emit("GB106", at.var_span(v), fn_of(v), var_name(v), f"Graph scalar parameter `{var_name(v)}` is declared {d}; a boundary scalar can only be In")
    for g, pos, e in derived.sorted("returns_computed"):
        emit("GB107", at.expr_span(e), g, at.text(e),
             f"Graph function `{g}` returns `{at.text(e)}` (position {pos}), a value it computed rather than one of its own parameters")
    for g, n in derived.sorted("node_count_out_of_range"):
        what = "launches no tasks" if n < 1 else f"launches {n} tasks, over the runtime's per-graph limit of 1024"
        emit("GB108", at.function_span(g), g, None, f"Graph function `{g}` {what}")
    for v, c in derived.sorted("alloc_under_runtime"):
        emit("GB109", at.var_span(v), fn_of(v), var_name(v),
             f"`{var_name(v)}` is allocated under a {_control(derived, c)}, so the number of allocation nodes can differ between calls")
    for v, x in derived.sorted("create_shape_varies"):
        emit("GB110", at.var_span(v), fn_of(v), var_name(v),
             f"`{var_name(v)}` is allocated with extent `{at.text(x)}`, which is not a compile-time constant")
    for e, g in derived.sorted("region_full"):
        emit("GB111", at.expr_span(e), g, None, f"Graph function `{g}` calls tensor.full inside the region")
    for x, c in derived.sorted("launch_under_runtime"):
        emit("GB112", at.expr_span(x), fn_of(x), None,
             f"this launch sits under a {_control(derived, c)}: the recording fixes the launch count and branch on the first call")
    for e, i, x in derived.sorted("inline_varying_arg"):
        emit("GB113", at.expr_span(x), fn_of(e), at.text(x),
             f"{at.argument(e, i)} `{at.text(x)}` is computed inline and can differ between calls; it has no name to hoist and no boundary slot")
    for e, g, callee in derived.sorted("graph_calls_graph"):
        emit("GB114", at.expr_span(e), g, callee, f"Graph function `{g}` calls Graph function `{callee}`: nested graphs are not supported")
    for e, i in derived.sorted("graph_call_missing_arg"):
        emit("GB115", at.expr_span(e), fn_of(e), None,
             f"this Graph call does not supply {at.argument(e, i, 'parameter')}: a graph has no runtime-allocated tail")
    for (e,) in derived.sorted("graph_launch_deps"):
        emit("GB116", at.expr_span(e), fn_of(e), None, "this Graph launch carries explicit dependencies (deps=)")
    for (e,) in derived.sorted("graph_launch_predicate"):
        emit("GB117", at.expr_span(e), fn_of(e), None, "this Graph launch carries a dispatch predicate")
    for e, _slot, w in derived.sorted("unslotted_scalar"):
        emit("GB118", at.expr_span(e), fn_of(e), var_name(w),
             f"scalar `{var_name(w)}` reaches a task but is neither a parameter, hoistable, nor replay-invariant"
             f"{_culprit(derived, at, w)}: replay would reuse the first call's value")
    for (v,) in derived.sorted("moving_view"):
        emit("GB119", at.var_span(v), fn_of(v), var_name(v),
             f"view `{var_name(v)}` of a boundary tensor has a window that is neither reconstructible at the call site "
             f"nor the same on every replay{_view_culprit(derived, at, v)}")
    for v, x in derived.sorted("view_extent_varies"):
        emit("GB120", at.var_span(v), fn_of(v), var_name(v),
             f"view `{var_name(v)}` of a boundary tensor has extent `{at.text(x)}`, which is neither constant nor replay-invariant")
    for e, x in derived.sorted("core_num_not_literal"):
        emit("GB121", at.expr_span(e), fn_of(e), at.text(x), f"this launch's core_num `{at.text(x)}` is not a compile-time constant")
    for e, i, w in derived.sorted("host_tensor_to_device"):
        emit("HC201", at.expr_span(e), fn_of(e), var_name(w),
             f"`{var_name(w)}` is read or written by host graph construction and also passed to a device kernel, as {at.argument(e, i)}")
    for e, v in derived.sorted("host_reads_device_value"):
        emit("HC202", at.expr_span(e), fn_of(e), var_name(v),
             f"host graph construction reads `{var_name(v)}`, a runtime allocation or a value a device task produces")
    return out


def _control(derived: Derived, c: str) -> str:
    if any(r[0] == c for r in derived["branch"]):
        return "conditional (if)"
    if any(r[0] == c for r in derived["while_loop"]):
        return "while loop"
    return "loop whose trip count is not a compile-time constant"


def _culprit(derived: Derived, at: _Locator, v: str) -> str:
    root = at.definitions[v][1] if v in at.definitions else None
    rows = sorted(at.blocking.get(root, ())) if root is not None else []
    return f" (it depends on `{at.text(rows[0][0])}`: {BLOCKING_REASONS.get(rows[0][1], rows[0][1])})" if rows else ""


def _view_culprit(derived: Derived, at: _Locator, v: str) -> str:
    operands = {r for w, r in derived["view_operand"] if w == v}
    blocked = sorted(row for r in operands for row in at.blocking.get(str(r), ()))
    return f": it depends on `{at.text(blocked[0][0])}` ({BLOCKING_REASONS.get(blocked[0][1], blocked[0][1])})" if blocked else ""


# why a value cannot be recomputed at the call site (the first blocking leaf), in the words `why`
# uses; findings.py says the same of a kept scalar
BLOCKING_REASONS = {
    "call": "a call or tensor read the call site cannot repeat",
    "loop_index": "a loop index the call site cannot name",
    "carried": "a loop-carried or branch-merged value",
    "not_scalar_param": "a value that is not one of the Graph's scalar parameters",
}

