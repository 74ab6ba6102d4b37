"""`legalog why`: the decision for one value, and its derivation, read off the rules' relations.

Nothing here decides anything.  The verdict is the relation the value sits in (`hoisted_scalar`,
`scalar_alias`, `kept_invariant`, `unslotted_scalar`, `hoisted_view`, `kept_view`,
`moving_view`, `hoisted_alloc`, `left_alloc`, ...), and every reason given is a row of a
relation: `blocking(Root, Leaf, Reason)` for why a value cannot be recomputed at the call site,
`varying_leaf(Expr, Leaf, Reason)` (rules/explain.pyd) for why it is not replay-invariant,
`invariant_seed` for why a kept value is safe, `prov_edge` / `inplace_edge` / `view_anchor` for
a view's provenance.  Each explanation lists the rows it cites under "evidence".
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from legalog.analyzer.graph import BLOCKING_REASONS, GraphDecision, plain_name
from legalog.facts.ids import function_of, split_var, var_name
from legalog.ir.printer import print_expr

if TYPE_CHECKING:
    from legalog.analyzer.diagnostics import Diagnostic
    from legalog.extractor.lower import Lowering
    from legalog.ir.model import Program
    from legalog.ir.ssa import VersionedFunction
    from legalog.rules.engine import Derived


class Analysis(Protocol):
    """What an explanation reads of a pipeline run (`legalog.pipeline.Analysis` is one): the
    decisions room never imports the pipeline that runs it."""

    @property
    def path(self) -> str | None: ...
    @property
    def program(self) -> Program | None: ...
    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]: ...
    @property
    def graphs(self) -> tuple[GraphDecision, ...]: ...
    @property
    def lowering(self) -> Lowering | None: ...
    @property
    def full_derived(self) -> Derived | None: ...
    @property
    def versions(self) -> Mapping[str, VersionedFunction]: ...


Verdict = Literal["hoisted", "kept", "rejected", "removed_alias", "not_boundary"]

VARYING = {
    "scalar_param": "a scalar parameter: replay patches it on every call",
    "runtime_loop_index": "the index of a loop whose trip count is not a compile-time constant",
    "carried": "a loop-carried or branch-merged value",
    "unbound_name": "a name bound nowhere in the function (a module dynamic dimension or a leak)",
    "non_scalar_value": "a name bound to a tensor or other non-scalar value",
    "opaque": "a call or op result (a tensor read, a task output) other than tensor.dim(param, literal)",
}
SEEDS = {
    "literal": "a literal",
    "const_loop_index": "the index of a constant-trip loop (recording bakes each iteration's value)",
    "dim_of_boundary_tensor": "tensor.dim of a boundary tensor with a literal axis (the boundary shape is checked)",
}


class WhyError(Exception):
    """The question cannot be answered as asked (unknown function, unknown or ambiguous name)."""

    def __init__(self, message: str, candidates: Iterable[str] = (), places: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)
        # where each candidate is: `line 8`, `parameter, line 7` ("" where unknown)
        self.places = tuple(places) or ("",) * len(self.candidates)

    def described(self) -> tuple[str, ...]:
        """Each candidate with its place: `woff (line 8)`."""
        return tuple(f"{c} ({p})" if p else c for c, p in zip(self.candidates, self.places))


@dataclass(frozen=True, slots=True)
class DerivationNode:
    """One node of a derivation picture: the value, an expression, or a tensor on its provenance."""

    id: str
    label: str
    role: Literal["value", "expr", "tensor"]
    notes: tuple[str, ...] = ()
    blocking: bool = False  # the leaf that kept the value from being hoisted


@dataclass(frozen=True, slots=True)
class DerivationEdge:
    source: str
    target: str
    label: str


@dataclass
class Explanation:
    """One value's verdict and derivation; `evidence` holds every relation row cited."""

    path: str
    function: str
    var: str  # the name as the dump prints it (an SSA dump's with its suffix, a frontend dump's its own)
    kind: str  # scalar, tensor, view, allocation, loop index
    verdict: Verdict
    summary: str
    line: int | None = None
    definition: str | None = None
    tree: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    provenance: list[str] = field(default_factory=list)
    operands: list[dict[str, Any]] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    evidence: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    nodes: list[DerivationNode] = field(default_factory=list)
    edges: list[DerivationEdge] = field(default_factory=list)

    def cite(self, relation: str, *row: Any) -> None:
        if (relation, row) not in self.evidence:
            self.evidence.append((relation, row))

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "function": self.function,
            "var": self.var,
            "name": plain_name(self.var),
            "kind": self.kind,
            "verdict": self.verdict,
            "summary": self.summary,
            "line": self.line,
            "definition": self.definition,
            "tree": self.tree,
            "reasons": self.reasons,
            "provenance": self.provenance,
            "operands": self.operands,
            "diagnostics": self.diagnostics,
            "evidence": [{"relation": r, "row": list(row)} for r, row in self.evidence],
            "graph": {
                "nodes": [
                    {
                        "id": n.id,
                        "label": n.label,
                        "role": n.role,
                        "notes": list(n.notes),
                        "blocking": n.blocking,
                    }
                    for n in self.nodes
                ],
                "edges": [{"source": e.source, "target": e.target, "label": e.label} for e in self.edges],
            },
        }

    def render_text(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        out = [f"why `{self.var}` in `{self.function}` ({where})"]
        if self.definition:
            out.append(f"  {self.var} = {self.definition}")
        out.append(f"verdict: {self.verdict.replace('_', ' ')} ({self.kind}) - {self.summary}")
        for title, lines in (
            ("because", self.reasons),
            ("expression tree", self.tree),
            ("provenance", self.provenance),
        ):
            if lines:
                out.append(f"{title}:")
                out += [f"  {line}" for line in lines]
        if self.operands:
            out.append("offset operands:")
            for op in self.operands:
                out.append(f"  {op['expr']}: {op['status']}" + (f" - {op['why']}" if op.get("why") else ""))
        if self.diagnostics:
            out.append("diagnostics:")
            out += [f"  {d}" for d in self.diagnostics]
        if self.evidence:
            out.append("evidence (relation rows):")
            out += [f"  {r}({', '.join(_show(c) for c in row)})" for r, row in self.evidence]
        return "\n".join(out)


def _show(cell: Any) -> str:
    return str(cell) if isinstance(cell, int) else f'"{cell}"'


# --------------------------------------------------------------------------------- resolve


def resolve(analysis: Analysis, function: str, var: str) -> str:
    """The variable id (`F/name`) for a printed name with or without its SSA suffix, or the name
    a frontend dump wrote.  A WhyError's candidates say where each one is, in the dump's names."""
    d = _derived(analysis)
    kinds = dict(d["function"])
    if function not in kinds:
        close = difflib.get_close_matches(function, sorted(kinds), n=5)
        shown = close or sorted(kinds, key=lambda f: (_function_line(analysis, f), f))
        raise WhyError(
            f"no function `{function}` in {analysis.path or 'the input'}",
            shown,
            [f"line {_function_line(analysis, f)}" for f in shown],
        )
    names = _names(analysis, function)
    if var in names:
        return f"{function}/{var}"
    printed = _printed(analysis, function)
    matches = sorted(n for n in names if var in (plain_name(n), printed.get(n)))
    if len(matches) == 1:
        return f"{function}/{matches[0]}"
    lines = _lines(analysis, function, names)
    if matches:  # several values one name: each by the name that tells them apart, and its line
        ordered = sorted(matches, key=lambda n: (lines.get(n) or (0, ""), n))
        raise WhyError(
            f"`{var}` is ambiguous in `{function}`: it names {len(matches)} SSA values",
            ordered,
            [_where(lines, [n]) for n in ordered],
        )
    spelled: dict[str, list[str]] = {}  # the dump's name -> the values it names
    for n in names:
        spelled.setdefault(printed.get(n, n), []).append(n)
    accepted: dict[str, set[str]] = {}  # every spelling `why` takes -> the dump's names it means
    for name in spelled:
        accepted.setdefault(name, set()).add(name)
        accepted.setdefault(plain_name(name), set()).add(name)
    close = difflib.get_close_matches(var, sorted(accepted), n=5)
    shown = list(dict.fromkeys(n for c in close for n in sorted(accepted[c])))
    shown = shown or sorted(spelled, key=lambda c: (_first(lines, spelled[c]), c))
    raise WhyError(f"no variable `{var}` in `{function}`", shown, [_where(lines, spelled[c]) for c in shown])


def _printed(analysis: Analysis, function: str) -> Mapping[str, str]:
    versioned = analysis.versions.get(function)
    return versioned.printed if versioned is not None else {}


def _function_line(analysis: Analysis, function: str) -> int:
    fn = analysis.program.function(function) if analysis.program is not None else None
    return fn.span.line if fn is not None else 0


def _lines(analysis: Analysis, function: str, names: set[str]) -> dict[str, tuple[int, str]]:
    """Where each value of `function` is bound: (line, "parameter" or "binding" or "loop")."""
    d, low = _derived(analysis), analysis.lowering
    stmts = {str(v): str(st) for st, v, _e in d["assign"]}
    fn = analysis.program.function(function) if analysis.program is not None else None
    out: dict[str, tuple[int, str]] = {}
    for n in names:
        param = fn.param(n) if fn is not None else None
        if param is not None:
            out[n] = (param.span.line, "parameter")
        elif (st := stmts.get(f"{function}/{n}")) is not None and low is not None:
            out[n] = (low.stmts[st].span.line, "binding")
    return out


def _first(lines: Mapping[str, tuple[int, str]], values: Sequence[str]) -> int:
    return min((lines[v][0] for v in values if v in lines), default=1 << 30)


def _where(lines: Mapping[str, tuple[int, str]], values: Sequence[str]) -> str:
    """`line 8`, `parameter, line 7`, `lines 7, 16, 21`; values bound by no statement (loop
    indices and carries) are `a loop or branch value`."""
    found = sorted({lines[v] for v in values if v in lines})
    if not found:
        return "a loop or branch value"
    if len(found) == 1:
        line, kind = found[0]
        return f"parameter, line {line}" if kind == "parameter" else f"line {line}"
    return "lines " + ", ".join(str(line) for line, _kind in found)


def _names(analysis: Analysis, function: str) -> set[str]:
    d = _derived(analysis)
    prefix = f"{function}/"
    ids = {r[0] for r in d["var_fn"]} | {r[1] for r in d["loop"]} | {r[0] for r in d["carried"]}
    return {var_name(i) for i in ids if isinstance(i, str) and i.startswith(prefix)}


def _derived(analysis: Analysis):
    if analysis.full_derived is None or analysis.lowering is None or analysis.program is None:
        raise WhyError(f"{analysis.path or 'the input'} could not be analysed: {_first_error(analysis)}")
    return analysis.full_derived


def _first_error(analysis: Analysis) -> str:
    d = next(iter(analysis.diagnostics), None)
    return f"{d.code} {d.message} (line {d.line}:{d.column})" if d else "no program"


# --------------------------------------------------------------------------------- explain


def explain(analysis: Analysis, function: str, var: str) -> Explanation:
    """The verdict for `var` in `function`, with its derivation read off `analysis.derived`."""
    vid = resolve(analysis, function, var)
    ex = _Explainer(analysis).explain(vid)
    versioned = analysis.versions.get(ex.function)
    return ex if versioned is None else _in_dump_names(ex, versioned)


def _in_dump_names(ex: Explanation, v: VersionedFunction) -> Explanation:
    """A frontend dump's explanation in the names the dump wrote (`cw`, never `cw__ssa_v0`), as
    its diagnostics are.  The evidence stays the rules' own rows: their ids are what `query` reads."""
    spell = v.spell
    return replace(
        ex,
        var=spell(ex.var),
        summary=spell(ex.summary),
        definition=None if ex.definition is None else spell(ex.definition),
        tree=[spell(line) for line in ex.tree],
        reasons=[spell(line) for line in ex.reasons],
        provenance=[spell(line) for line in ex.provenance],
        operands=[{k: spell(x) if isinstance(x, str) else x for k, x in op.items()} for op in ex.operands],
        nodes=[replace(n, label=spell(n.label), notes=tuple(map(spell, n.notes))) for n in ex.nodes],
        edges=[replace(e, label=spell(e.label)) for e in ex.edges],
    )


class _Explainer:
    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        self.d = _derived(analysis)
        self.low = analysis.lowering
        self.prefix = analysis.program.prefix  # type: ignore[union-attr]
        self.assign = {v: (s, e) for s, v, e in self.d["assign"]}
        self.cited: list[tuple[str, tuple[Any, ...]]] = []  # rows read while walking provenance
        self.children: dict[str, list[tuple[int, str]]] = {}
        for e, i, x in self.d["operand"]:
            self.children.setdefault(e, []).append((i, x))

    # -- small readers

    def has(self, relation: str, *row: Any) -> bool:
        return tuple(row) in self.d[relation]

    def rows(self, relation: str, first: Any) -> list[tuple[Any, ...]]:
        return sorted((r for r in self.d[relation] if r[0] == first), key=lambda r: tuple(map(str, r)))

    def text(self, eid: str, limit: int = 90) -> str:
        node = self.low.exprs.get(eid)  # type: ignore[union-attr]
        shown = print_expr(node, self.prefix) if node is not None else eid
        return shown if len(shown) <= limit else shown[: limit - 4] + " ..."

    def pos(self, eid: str) -> tuple[int, int, str]:
        node = self.low.exprs.get(eid)  # type: ignore[union-attr]
        return (node.span.line, node.span.col, eid) if node is not None else (1 << 30, 0, eid)

    def name(self, vid: str) -> str:
        return var_name(vid)

    def about(self, d: Diagnostic, vid: str, line: int | None) -> bool:
        """Whether `d` is about the value `vid`: its subject names it as the message shows it.  Where
        that name is another value's too (a frontend dump's `off` bound twice, its diagnostics
        spelled `off`), only one at the value's own line, or naming it with its suffix, is."""
        fn, name = split_var(vid)
        printed = _printed(self.a, fn)
        shown = plain_name(printed.get(name, name))
        if d.subject is None or plain_name(d.subject) != shown:
            return False
        twins = sum(1 for n in _names(self.a, fn) if plain_name(printed.get(n, n)) == shown) > 1
        return not twins or d.subject == name or d.line == line

    def line_of(self, vid: str) -> int | None:
        if vid in self.assign:
            return self.low.stmts[self.assign[vid][0]].span.line  # type: ignore[union-attr]
        fn = self.a.program.function(function_of(vid))  # type: ignore[union-attr]
        param = fn.param(self.name(vid)) if fn else None
        return param.span.line if param else None

    # -- entry

    def explain(self, vid: str) -> Explanation:
        fn = function_of(vid)
        kind = dict(self.d["function"])[fn]
        ex = Explanation(
            self.a.path or "<input>",
            fn,
            self.name(vid),
            self.kind_of(vid),
            "not_boundary",
            "",
            line=self.line_of(vid),
        )
        if vid in self.assign:
            ex.definition = self.text(self.assign[vid][1], 160)
        ex.diagnostics = [
            f"{d.code} line {d.line}:{d.column}: {d.message}"
            for d in self.a.diagnostics  # GB2xx included: what the rewrite does
            if d.function == fn and d.subject is not None and self.about(d, vid, ex.line)
        ]
        if kind != "Graph":
            ex.cite("function", fn, kind)
            ex.summary = f"`{fn}` is a {kind} function; LegalizeGraphBoundary only rewrites Graph functions"
            return ex
        self.classify(vid, ex)
        for relation, row in self.cited:
            ex.cite(relation, *row)
        self.derivation(vid, ex)
        return ex

    # -- the same derivation as a graph (`why --format dot`)

    def derivation(self, vid: str, ex: Explanation) -> None:
        """The value, its definition's expression tree down to the leaves, and its provenance
        through views, aliases and in-place calls; the blocking leaf cited above is marked."""
        blocking = {row[1] for relation, row in ex.evidence if relation == "blocking"}
        nodes: dict[str, DerivationNode] = {}
        edges: list[DerivationEdge] = []
        nodes[vid] = DerivationNode(vid, f"{ex.var}\n{ex.verdict.replace('_', ' ')} ({ex.kind})", "value")

        def expr(x: str, parent: str, label: str, depth: int) -> None:
            edges.append(DerivationEdge(parent, x, label))
            if x in nodes or depth > 8 or len(nodes) > 80:
                return
            nodes[x] = DerivationNode(x, self.text(x, 60), "expr", tuple(self.node_notes(x)), x in blocking)
            for i, child in sorted(self.children.get(x, [])):
                expr(child, x, str(i), depth + 1)
            for _x, v in self.rows("ref", x):  # a local name: follow it to its definition
                if v in self.assign and not any(r[2] == v for r in self.d["param"]):
                    expr(self.assign[v][1], x, f"{self.name(v)} =", depth + 1)

        def tensor(v: str, depth: int) -> None:
            for how, nxt in self.edges(v):
                edges.append(DerivationEdge(v, nxt, how.removesuffix(" of").removesuffix(":")))
                if nxt not in nodes and depth < 12 and len(nodes) <= 80:
                    nodes[nxt] = DerivationNode(
                        nxt, self.name(nxt) + self.origin(nxt).replace(" - ", "\n", 1), "tensor"
                    )
                    tensor(nxt, depth + 1)

        if vid in self.assign:
            expr(self.assign[vid][1], vid, "=", 0)
        tensor(vid, 0)
        ex.nodes, ex.edges = list(nodes.values()), edges

    def kind_of(self, vid: str) -> str:
        classes = {c for v, c in self.d["var_class"] if v == vid}
        if any(r[1] == vid for r in self.d["loop"]):
            return "loop index"
        if self.rows("region_create", vid):
            return "allocation"
        if self.rows("view", vid):
            return "view"
        return next(iter(classes), "value")

    def classify(self, vid: str, ex: Explanation) -> None:
        if any(r[2] == vid for r in self.d["param"]):
            return self.parameter(vid, ex)
        if loops := [r for r in self.d["loop"] if r[1] == vid]:
            return self.loop_index(vid, loops[0][0], ex)
        if self.rows("scalar_def", vid):
            return self.scalar(vid, ex)
        if self.rows("region_create", vid):
            return self.allocation(vid, ex)
        if self.rows("view", vid):
            return self.view(vid, ex)
        return self.other(vid, ex)

    # -- parameters and loop indices

    def parameter(self, vid: str, ex: Explanation) -> None:
        ex.cite("param", *next(r for r in self.d["param"] if r[2] == vid))
        if self.has("scalar_param", vid):
            ex.cite("scalar_param", vid)
            ex.summary = (
                "already a boundary scalar: every call site passes it, and replay patches it on every call"
            )
        else:
            ex.summary = "a boundary tensor: the runtime records its address and patches it on replay"

    def loop_index(self, vid: str, loop: str, ex: Explanation) -> None:
        ex.cite("loop", loop, vid)
        trips = self.rows("loop_trip", loop)
        if trips:
            ex.cite("loop_trip", *trips[0])
            ex.verdict, ex.summary = (
                "kept",
                (
                    f"the index of a constant-trip loop ({trips[0][1]} iterations): recording "
                    "bakes each iteration's value into its own node, so replay is correct"
                ),
            )
            return
        self.unslotted(vid, ex)
        ex.reasons.append(f"`{ex.var}` is {VARYING['runtime_loop_index']}")
        ex.cite("varying_var", vid)
        if ex.verdict != "rejected":
            ex.summary = (
                "varies between calls (a runtime loop's index), and the loop itself is rejected (GB112)"
            )

    def unslotted(self, vid: str, ex: Explanation) -> bool:
        rows = sorted(r for r in self.d["unslotted_scalar"] if r[2] == vid)
        for r in rows:
            ex.cite("unslotted_scalar", *r)
        if rows:
            ex.verdict = "rejected"
            ex.summary = (
                f"a task reads `{ex.var}` (GB118), but it is neither a parameter, hoistable, nor "
                "replay-invariant: replay would reuse the first call's value"
            )
        return bool(rows)

    # -- scalars (Step A)

    def scalar(self, vid: str, ex: Explanation) -> None:
        root = self.assign[vid][1]
        ex.cite("scalar_def", vid, root)
        ex.tree = self.tree(root)
        if aliases := self.rows("scalar_alias", vid):
            return self.alias(vid, aliases[0], ex)
        if self.has("hoisted_scalar", vid):
            return self.hoisted_scalar(vid, ex)
        self.why_not_hoistable(root, ex)
        if self.has("kept_invariant", vid):
            ex.cite("kept_invariant", vid)
            ex.verdict = "kept"
            ex.summary = "not recomputable at the call site, but replay-invariant: frozen on the first call, correct on every replay"
            ex.reasons += self.seeds(root)
            return
        self.why_varying(root, ex)
        if self.unslotted(vid, ex):
            return
        if self.has("task_id", vid):
            ex.summary = "a TASK_ID: ordering metadata, never a boundary scalar"
            return
        users = self.view_users(vid)
        ex.summary = "varies between calls and cannot be hoisted; no task reads it by name" + (
            f", but it decides the window of {users}" if users else ""
        )

    def alias(self, vid: str, row: tuple[Any, ...], ex: Explanation) -> None:
        ex.cite("scalar_alias", *row)
        target = next((r for r in self.rows("alias_root", vid)), None)
        if target:
            ex.cite("alias_root", *target)
        root = self.name(target[1]) if target else self.name(row[1])
        ex.verdict = "removed_alias"
        ex.summary = (
            f"a bare rename of `{self.name(row[1])}`: the runtime rejects `int64_t n = m;`, so the binding is "
            f"deleted and its readers use `{root}`"
        )

    def hoisted_scalar(self, vid: str, ex: Explanation) -> None:
        ex.cite("hoistable", vid)
        ex.cite("hoisted_scalar", vid)
        ex.verdict = "hoisted"
        value = self.expanded(vid)
        ex.summary = (
            f"every leaf is a scalar parameter or a literal, so each call site computes `{value}` and "
            "passes it as a new trailing scalar parameter"
        )
        ex.reasons.append(f"at the call site: {ex.var} = {value}")

    def expanded(self, vid: str) -> str:
        fn, name = split_var(vid)
        graph = next((g for g in self.a.graphs if g.function == fn), None)
        if graph is None:
            return name
        return print_expr(graph.expanded(name), self.prefix)

    def why_not_hoistable(self, root: str, ex: Explanation) -> None:
        rows = sorted(self.rows("blocking", root), key=lambda r: self.pos(r[1]))
        if not rows:
            return
        ex.cite("blocking", *rows[0])
        ex.reasons.append(
            f"not hoistable: it depends on `{self.text(rows[0][1])}`, {BLOCKING_REASONS.get(rows[0][2], rows[0][2])}"
            + (f" (and {len(rows) - 1} more blocking leaves)" if len(rows) > 1 else "")
        )

    def why_varying(self, root: str, ex: Explanation) -> None:
        rows = sorted(self.rows("varying_leaf", root), key=lambda r: self.pos(r[1]))
        if not rows:
            return
        ex.cite("varying_expr", root)
        ex.cite("varying_leaf", *rows[0])
        ex.reasons.append(
            f"not replay-invariant: `{self.text(rows[0][1])}` is {VARYING.get(rows[0][2], rows[0][2])}"
        )

    def seeds(self, root: str) -> list[str]:
        nodes = {x for r, x in self.d["tree"] if r == root}
        out = []
        for x, why in sorted(
            (r for r in self.d["invariant_seed"] if r[0] in nodes), key=lambda r: self.pos(r[0])
        ):
            out.append(f"replay-invariant seed `{self.text(x)}`: {SEEDS.get(why, why)}")
        return out or ["every name it reads is bound to a replay-invariant value"]

    def view_users(self, vid: str) -> str:
        refs = {x for x, v in self.d["ref"] if v == vid}
        roots = {r for r, x in self.d["tree"] if x in refs}
        views = sorted({self.name(v) for v, r in self.d["view_operand"] if r in roots})
        return ", ".join(f"view `{v}`" for v in views)

    def tree(self, root: str, depth: int = 0, seen: set[str] | None = None) -> list[str]:
        seen = seen if seen is not None else set()
        if depth > 8 or root in seen or len(seen) > 60:
            return [f"{'  ' * depth}..."]
        seen.add(root)
        notes = self.node_notes(root)
        lines = [f"{'  ' * depth}{self.text(root)}" + (f"    <- {'; '.join(notes)}" if notes else "")]
        for _i, child in sorted(self.children.get(root, [])):
            lines += self.tree(child, depth + 1, seen)
        return lines

    def node_notes(self, x: str) -> list[str]:
        notes = [
            f"blocks hoisting: {BLOCKING_REASONS[w]}"
            for r, leaf, w in self.d["blocking"]
            if r == x and leaf == x
        ]
        notes += [f"varies: {VARYING[w]}" for e, leaf, w in self.d["varying_leaf"] if e == x and leaf == x]
        notes += [f"invariant: {SEEDS[w]}" for s, w in self.d["invariant_seed"] if s == x]
        for _e, v in (r for r in self.d["ref"] if r[0] == x):
            if self.has("scalar_param", v):
                notes.append("scalar parameter")
            elif self.has("hoistable", v):
                notes.append("hoistable (the call site computes it)")
            elif v in self.assign and self.has("scalar_def", v, self.assign[v][1]):
                notes.append(f"defined as `{self.text(self.assign[v][1], 60)}`")
        return sorted(set(notes))

    # -- allocations (Step C)

    def allocation(self, vid: str, ex: Explanation) -> None:
        row = self.rows("region_create", vid)[0]
        ex.cite("region_create", *row)
        if self.has("hoisted_alloc", vid):
            ex.cite("hoisted_alloc", vid)
            ex.verdict, ex.summary = (
                "hoisted",
                "a top-level allocation: each call site creates it and passes it as an InOut parameter",
            )
            return
        left = self.rows("left_alloc", vid)
        for r in left:
            ex.cite("left_alloc", *r)
        shapes = sorted(r for r in self.d["create_shape_varies"] if r[0] == vid)
        controls = sorted(r for r in self.d["alloc_under_runtime"] if r[0] == vid)
        if shapes:
            ex.cite("create_shape_varies", *shapes[0])
            ex.verdict, ex.summary = (
                "rejected",
                f"its extent `{self.text(shapes[0][1])}` is not a compile-time constant (GB110)",
            )
        elif controls:
            ex.cite("alloc_under_runtime", *controls[0])
            ex.verdict, ex.summary = (
                "rejected",
                "allocated under a runtime loop, while or if: the allocation-node count can differ between calls (GB109)",
            )
        else:
            ex.verdict, ex.summary = (
                "kept",
                "allocated inside a constant-trip loop: a fresh buffer per iteration, counted as nodes",
            )

    # -- views (Step B)

    def view(self, vid: str, ex: Explanation) -> None:
        _v, src, e = self.rows("view", vid)[0]
        ex.cite("view", vid, src, e)
        ex.provenance = self.provenance(vid)
        for anchor in self.rows("view_anchor", vid):
            ex.cite("view_anchor", *anchor)
        ex.operands = self.view_operands(vid, ex)
        if not self.has("boundary_view", vid):
            roots = [self.name(r) for _v, r in self.rows("root", vid)]
            ex.summary = (
                "a view of a region-local tensor"
                + (f" (its buffer is `{', '.join(roots)}`)" if roots else "")
                + ": Step B only moves views of boundary tensors"
            )
            return
        ex.cite("boundary_view", vid)
        self.view_verdict(vid, ex)
        for r in sorted(r for r in self.d["view_extent_varies"] if r[0] == vid):
            ex.cite("view_extent_varies", *r)
            ex.verdict = "rejected"
            ex.reasons.append(
                f"its extent `{self.text(r[1])}` is neither constant nor replay-invariant (GB120)"
            )

    def view_verdict(self, vid: str, ex: Explanation) -> None:
        if self.has("hoisted_view", vid):
            ex.cite("hoisted_view", vid)
            ex.verdict, ex.summary = (
                "hoisted",
                "every offset is recomputable at the call site: the slice is taken there and passed in as a new tensor parameter",
            )
        elif self.has("kept_view", vid):
            ex.cite("kept_view", vid)
            ex.verdict, ex.summary = (
                "kept",
                "its offsets are replay-invariant: the window is the same on every replay, so it stays in place",
            )
        elif self.has("moving_view", vid):
            ex.cite("moving_view", vid)
            ex.verdict, ex.summary = (
                "rejected",
                "its window is neither recomputable at the call site nor the same on every replay (GB119)",
            )
        elif anchors := [a for _v, a in self.rows("view_anchor", vid) if self.has("bad_view", a)]:
            ex.cite("inherits_bad", vid)
            ex.verdict, ex.summary = (
                "rejected",
                f"it is taken from view `{self.name(anchors[0])}`, which is rejected",
            )
        else:
            anchors = [a for _v, a in self.rows("view_anchor", vid)]
            ex.summary = f"built on a view left in place ({', '.join(self.name(a) for a in anchors)}): the call site has no name for it"

    def view_operands(self, vid: str, ex: Explanation) -> list[dict[str, Any]]:
        out = []
        for _v, r in sorted(self.rows("view_operand", vid), key=lambda row: self.pos(row[1])):
            ex.cite("view_operand", vid, r)
            blocked = sorted(self.rows("blocking", r), key=lambda row: self.pos(row[1]))
            varying = sorted(self.rows("varying_leaf", r), key=lambda row: self.pos(row[1]))
            status = {
                (False, False): "hoistable and replay-invariant",
                (False, True): "hoistable (varies per call)",
                (True, False): "replay-invariant only",
                (True, True): "neither hoistable nor replay-invariant",
            }[(bool(blocked), bool(varying))]
            why = []
            if blocked:
                ex.cite("blocking", *blocked[0])
                why.append(
                    f"`{self.text(blocked[0][1])}` is {BLOCKING_REASONS.get(blocked[0][2], blocked[0][2])}"
                )
            if varying:
                ex.cite("varying_leaf", *varying[0])
                why.append(f"`{self.text(varying[0][1])}` is {VARYING.get(varying[0][2], varying[0][2])}")
            out.append(
                {
                    "expr": self.text(r),
                    "status": status,
                    "hoistable": not blocked,
                    "invariant": not varying,
                    "why": "; ".join(why),
                    "decided": False,
                }
            )
        self.mark_decisive(out)
        return out

    @staticmethod
    def mark_decisive(ops: list[dict[str, Any]]) -> None:
        """The operand that decided: for a rejection the one that is neither (else the first
        non-hoistable one of a mix); for a kept view the first non-hoistable one."""
        pick = next((o for o in ops if not o["hoistable"] and not o["invariant"]), None)
        pick = pick or next((o for o in ops if not o["hoistable"]), None)
        if pick is not None:
            pick["decided"] = True
            pick["status"] += " (decided the outcome)"

    def provenance(self, vid: str, depth: int = 0, seen: set[str] | None = None) -> list[str]:
        seen = seen if seen is not None else set()
        pad = "  " * depth
        if vid in seen:
            return [f"{pad}`{self.name(vid)}` (seen above)"]
        seen.add(vid)
        if depth > 12:
            return [f"{pad}..."]
        lines = [f"{pad}`{self.name(vid)}`" + self.origin(vid)]
        for how, nxt in self.edges(vid):
            lines.append(f"{pad}  {how}:")
            lines += self.provenance(nxt, depth + 2, seen)
        return lines

    def origin(self, vid: str) -> str:
        if param := [r for r in self.d["param"] if r[2] == vid]:
            direction = next((d for v, d in self.d["param_dir"] if v == vid), "In")
            return f" - parameter {param[0][1]} of `{param[0][0]}` ({direction}): a boundary tensor"
        if self.has("hoisted_alloc", vid):
            return " - a hoisted allocation (a boundary tensor after Step C)"
        if vid in self.assign and not self.rows("view", vid) and not self.rows("same_buffer_edge", vid):
            return f" - computed in the region: `{self.text(self.assign[vid][1], 70)}`"
        return ""

    def edges(self, vid: str) -> list[tuple[str, str]]:
        out = [(f"a view ({self.text(e, 70)}) of", src) for _v, src, e in self.rows("view", vid)]
        for _v, w in self.rows("same_buffer_edge", vid):
            out.append((self.edge_kind(vid, w), w))
        return out

    def edge_kind(self, vid: str, w: str) -> str:
        for relation in ("alias_edge", "carried_edge", "inplace_edge"):
            if self.has(relation, vid, w):
                self.cited.append((relation, (vid, w)))
        if self.has("alias_edge", vid, w):
            return "a bare alias of"
        if self.has("carried_edge", vid, w):
            return "loop-carried / merged from"
        for _v, e, p in self.rows("launch_result", vid):
            for _e, callee, _form in self.rows("launch", e):
                for _c, _p, i in (r for r in self.d["ret_param"] if r[0] == callee and r[1] == p):
                    return f"in-place call: `{callee}` returns its parameter {i}, supplied as"
        return "in-place (tensor.assemble into)"

    # -- anything else

    def other(self, vid: str, ex: Explanation) -> None:
        if self.rows("same_buffer_edge", vid) or self.rows("prov_edge", vid):
            ex.provenance = self.provenance(vid)
            roots = [self.name(r) for _v, r in self.rows("root", vid)]
            ex.summary = "a tensor the region computes; Steps A-C do not move it" + (
                f" (it denotes the buffer of `{', '.join(roots)}`)" if roots else ""
            )
            return
        if self.has("carried", vid, next((e for v, e in self.d["carried"] if v == vid), "")):
            ex.reasons.append(f"`{ex.var}` is {VARYING['carried']}")
            if not self.unslotted(vid, ex):
                ex.summary = "a loop-carried or branch-merged value: never a boundary value itself"
            return
        ex.summary = "not a value Steps A-C move (not a scalar definition, view or allocation)"
