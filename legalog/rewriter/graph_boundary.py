"""Apply LegalizeGraphBoundary's decisions: Steps A, B and C on the Graph and at its call sites.

In the Graph: the hoisted bindings and the deleted renames go, readers of a rename get its root,
and the hoisted values become parameters appended after the original signature — allocations,
then views, then scalars, each in definition order, keeping the body variable's name (tensors
before scalars, as CoreTaskArgs requires).

At every call site: each hoisted value is rebuilt in the caller's own terms and bound to a local
`<name>__graph_arg<N>` just before the launch (N counts over the whole program) — scalars first,
then tensors, so a view's offset can read a scalar's local; the launch gets the new arguments in
parameter order and one `arg_directions` entry each.  Nothing is written inline: codegen takes only a variable or
a literal as a task argument.  Source: PyPTO's CallSiteExtender, read in
hw-native-sys/pypto src/ir/transforms/legalize_graph_boundary_pass.cpp.

Every choice is made once, by `plan_graphs`: a `GraphPlan` says what each Graph loses and gains
and what each call site binds and passes.  Two appliers obey it and decide nothing:
`apply_graph_plan` on legalog's model (text, dumps) and
`legalog.rewriter.graph_boundary_objects.apply_graph_plan_to_objects` on PyPTO's objects.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from legalog.analyzer.graph import GraphDecision, plain_name
from legalog.extractor.lower import type_names
from legalog.ir.model import (
    Assign,
    Call,
    Const,
    DictExpr,
    Dotted,
    Expr,
    ExprStmt,
    Function,
    Keyword,
    ListExpr,
    Name,
    Param,
    Program,
    Return,
    Stmt,
    TensorType,
    Type,
)
from legalog.ir.patterns import call_target
from legalog.ir.transform import (
    bound_names,
    drop_bindings,
    expr_names,
    rename,
    splice,
    substitute,
    walk_stmts,
)

N = TypeVar("N")

# a hoisted value's `pl.adir` member at the call site, by its kind ("scalar") or direction
_ADIR = {"scalar": "scalar", "InOut": "inout", "In": "input", "Out": "input"}

# ------------------------------------------------------------------------------------- the plan


@dataclass(frozen=True, slots=True)
class GraphEdit:
    """What one Graph loses and gains."""

    function: str
    dropped: frozenset[str]  # the bindings that go: the hoisted values and the deleted renames
    aliases: tuple[tuple[str, str], ...]  # (deleted rename, the name its readers get)
    params: tuple[Param, ...]  # appended after the original signature, in this order


@dataclass(frozen=True, slots=True)
class HoistedLocal:
    """One hoisted value computed at a call site, bound to a local just before the call.

    `value` and `type` are the Graph's binding in the caller's terms: each Graph name they read
    is the call's argument for a Graph parameter (`from_args`: name, parameter position) or a
    local bound before it at this call site (`from_locals`: name, local)."""

    name: str  # `<hoisted>__graph_arg<N>`, fresh in the caller
    hoisted: str  # the Graph's body variable it computes (the Graph's new parameter)
    type: Type
    value: Expr
    from_args: tuple[tuple[str, int], ...]
    from_locals: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class CallSite:
    """One call of a planned Graph and what it gains.  It is the `index`-th call of a planned
    Graph in `caller`, counting statements in pre-order (nested bodies after the statement that
    holds them, a `return`'s values left to right), as `graph_calls` walks them."""

    caller: str
    index: int
    callee: str
    locals: tuple[HoistedLocal, ...]  # bound before the call's statement, in this order
    args: tuple[str, ...]  # the locals the call gets, appended in parameter order
    directions: tuple[str, ...]  # appended to the call's `arg_directions`, if it has them: `pl.adir` members


@dataclass(frozen=True, slots=True)
class GraphPlan:
    """LegalizeGraphBoundary's rewrite of one program: every Graph that changes, every call site."""

    graphs: tuple[GraphEdit, ...] = ()
    calls: tuple[CallSite, ...] = ()

    @property
    def changes(self) -> bool:
        """Whether the rewrite changes the program: each planned Graph gains a parameter or loses a
        rename's binding (`GraphDecision.changes_anything`); a call site is only of such a Graph."""
        return bool(self.graphs)

    def sites_in(self, caller: str) -> tuple[CallSite, ...]:
        """The call sites in `caller`, by their index."""
        return tuple(c for c in self.calls if c.caller == caller)


def plan_graphs(program: Program, decisions: tuple[GraphDecision, ...]) -> GraphPlan:
    decided = {d.function: d for d in decisions if d.changes_anything}
    if not decided:
        return GraphPlan()
    module_level = frozenset(program.dynamic_dims)
    edits = {
        name: GraphEdit(
            name,
            frozenset(h.name for h in d.hoisted) | {alias for alias, _ in d.aliases},
            d.aliases,
            tuple(
                Param(h.name, parameter_type(h.type, module_level, program.prefix), h.direction)
                for h in d.hoisted
            ),
        )
        for name, d in decided.items()
    }
    originals = {f.name: f for f in program.functions}
    counter = itertools.count()
    calls: list[CallSite] = []
    for fn in program.functions:
        found = list(graph_calls(fn.body, frozenset(decided), program.prefix))
        if not found:
            continue
        if fn.name in edits:  # a Graph calling a Graph: its call sites as its own edit leaves them
            fn = edit_graph(fn, edits[fn.name])
            found = list(graph_calls(fn.body, frozenset(decided), program.prefix))
        taken = bound_names(fn.body) | {p.name for p in fn.params}
        for index, (call, first_arg, callee) in enumerate(found):
            calls.append(
                _call_site(
                    fn.name, index, call.args[first_arg:], decided[callee], originals[callee], counter, taken
                )
            )
    return GraphPlan(tuple(edits[f.name] for f in program.functions if f.name in edits), tuple(calls))


def graph_calls(
    body: tuple[Stmt, ...], planned: frozenset[str], prefix: str
) -> Iterator[tuple[Call, int, str]]:
    """Every call of a planned Graph a statement makes (an assignment's value, an expression
    statement, a `return`'s values), statements in pre-order: the call, the position of its
    first Graph argument, the Graph."""
    for stmt in walk_stmts(body):
        for value in _call_values(stmt):
            target = call_target(value, prefix) if isinstance(value, Call) else None
            if target is not None and target.callee in planned:
                assert isinstance(value, Call)
                yield value, target.first_arg, target.callee


def _call_values(stmt: Stmt) -> tuple[Expr, ...]:
    if isinstance(stmt, (Assign, ExprStmt)):
        return (stmt.value,)
    if isinstance(stmt, Return):
        return stmt.values  # `return self.graph(...)`: a call site as much as an assignment's
    return ()


def _call_site(
    caller: str,
    index: int,
    args: tuple[Expr, ...],
    plan: GraphDecision,
    callee: Function,
    counter: Iterator[int],
    taken: set[str],
) -> CallSite:
    positions = {p.name: k for k, p in enumerate(callee.params)}
    binding: dict[str, Expr] = {p.name: a for p, a in zip(callee.params, args)}
    aliases = dict(plan.aliases)
    links = {name: source for name, source, _ in plan.tensor_links}

    def resolved(name: str) -> str:
        # Renames and same-buffer rebinds name their source's buffer at the call site too.
        seen = set()
        while name not in binding and name not in seen:
            seen.add(name)
            name = aliases.get(name) or links.get(name) or name
        return name

    def lookup(name: str) -> Expr | None:
        return binding.get(resolved(name))

    locals_of_graph = bound_names(callee.body)
    local_for: dict[str, str] = {}
    made: list[HoistedLocal] = []
    # Scalars first, then tensors, each in definition order: a slice's offset is typically a
    # Step A scalar, so its binding has to precede the slice (the seed's order; PyPTO's source
    # interleaves by definition, which the lazy `lookup` above makes unnecessary).
    for h in sorted(plan.hoisted, key=lambda h: (h.kind != "scalar", h.order)):
        value_names, type_reads = expr_names(h.value), type_names(h.type)
        reads = {n: resolved(n) for n in sorted(value_names | type_reads)}
        local = _fresh(f"{plain_name(h.name)}__graph_arg{next(counter)}", taken)
        made.append(
            HoistedLocal(
                local,
                h.name,
                _caller_type(_in_caller(h.type, type_reads, lookup), locals_of_graph),
                _in_caller(h.value, value_names, lookup),
                tuple((n, positions[r]) for n, r in reads.items() if r in positions and r in binding),
                tuple((n, local_for[r]) for n, r in reads.items() if r in local_for),
            )
        )
        binding[h.name] = Name(local)
        local_for[h.name] = local
    return CallSite(
        caller,
        index,
        callee.name,
        tuple(made),
        tuple(local_for[h.name] for h in plan.hoisted),
        tuple(_ADIR["scalar" if h.kind == "scalar" else h.direction] for h in plan.hoisted),
    )


def parameter_type(t: Type, module_level: frozenset[str], prefix: str) -> Type:
    """`t` as a parameter annotation PyPTO's parser reads.

    A signature is resolved before any parameter or body local exists, so its annotations may
    name only literals and module-level symbols (the dynamic dimensions): a body value's MemRef
    offset (`woff * 256 * 4`) or a sibling parameter is a NameError on the `def` line.  A
    parameter's MemRef therefore sits at offset `pl.const(0, pl.INT64)`, as every parameter
    PyPTO prints does (replay patches the boundary tensor's address, so the callee never sees
    the caller's offset); the base and size stay, so the view still names its source's
    allocation.  Any other annotation extra that names something else is dropped."""
    if not isinstance(t, TensorType):
        return t
    extras = tuple(x for x in (_at_offset_zero(x, prefix) for x in t.extras) if expr_names(x) <= module_level)
    return t if extras == t.extras else replace(t, extras=extras)


def _at_offset_zero(extra: Expr, prefix: str) -> Expr:
    """`pl.MemRef(base, offset, size)` with its offset replaced by `pl.const(0, pl.INT64)`."""
    if isinstance(extra, Call) and extra.func == f"{prefix}.MemRef" and len(extra.args) == 3:
        base, _, size = extra.args
        return replace(extra, args=(base, Const(0, "INT64"), size))
    return extra


def _in_caller(node: N, names: set[str], lookup: Callable[[str], Expr | None]) -> N:
    """`substitute(node, lookup)`, `names` being every name `node` reads: `node` itself, unwalked,
    when the call site has a value for none of them (a type whose MemRef names Graph locals)."""
    return substitute(node, lookup) if any(lookup(n) is not None for n in names) else node


def _caller_type(moved: Type, graph_locals: set[str]) -> Type:
    """The hoisted value's type in the caller's terms (`moved`: its names substituted); annotation
    extras that still name a Graph-local (a MemRef offset, say) are dropped: no call site may
    name one."""
    if isinstance(moved, TensorType):
        extras = tuple(x for x in moved.extras if not (expr_names(x) & graph_locals))
        return replace(moved, extras=extras) if extras != moved.extras else moved
    return moved


def _fresh(name: str, taken: set[str]) -> str:
    candidate, k = name, 1
    while candidate in taken:
        candidate, k = f"{name}_{k}", k + 1
    taken.add(candidate)
    return candidate


# --------------------------------------------------------------------------- the model applier


def apply_graph_plan(program: Program, plan: GraphPlan) -> Program:
    """`program` rewritten as `plan` says (legalog's model: what `fix` prints)."""
    if not plan.graphs:
        return program
    edits = {g.function: g for g in plan.graphs}
    planned = frozenset(edits)
    functions = []
    for fn in program.functions:
        if fn.name in edits:
            fn = edit_graph(fn, edits[fn.name])
        if sites := plan.sites_in(fn.name):
            fn = _extend_call_sites(fn, sites, planned, program.prefix)
        functions.append(fn)
    return replace(program, functions=tuple(functions))


def edit_graph(fn: Function, edit: GraphEdit) -> Function:
    body = rename(drop_bindings(fn.body, edit.dropped), dict(edit.aliases))
    return replace(fn, body=body, params=fn.params + edit.params)


def _extend_call_sites(
    fn: Function, sites: tuple[CallSite, ...], planned: frozenset[str], prefix: str
) -> Function:
    pending = iter(sites)

    def extended(value: Expr, prelude: list[Stmt]) -> Expr:
        """`value` with its hoisted arguments when it is a call of a planned Graph (their
        bindings appended to `prelude`), else `value`."""
        target = call_target(value, prefix) if isinstance(value, Call) else None
        if target is None or target.callee not in planned:
            return value
        assert isinstance(value, Call)
        site = next(pending)
        assert site.callee == target.callee, (site, target)  # the plan's walk and this one agree
        prelude.extend(Assign((h.name,), h.type, h.value) for h in site.locals)
        args = value.args + tuple(Name(a) for a in site.args)
        return replace(value, args=args, kwargs=_extend_directions(value.kwargs, site.directions, prefix))

    def edit(stmt: Stmt) -> list[Stmt] | None:
        prelude: list[Stmt] = []
        if isinstance(stmt, (Assign, ExprStmt)):
            new: Stmt = replace(stmt, value=extended(stmt.value, prelude))
        elif isinstance(stmt, Return):
            new = replace(stmt, values=tuple(extended(v, prelude) for v in stmt.values))
        else:
            return None
        return [*prelude, new] if prelude else None

    body = splice(fn.body, edit)
    return fn if body is fn.body else replace(fn, body=body)


def _extend_directions(
    kwargs: tuple[Keyword, ...], directions: tuple[str, ...], prefix: str
) -> tuple[Keyword, ...]:
    out = []
    for kw in kwargs:
        attrs = kw.value
        if (
            kw.name == "attrs"
            and isinstance(attrs, DictExpr)
            and isinstance(attrs.get("arg_directions"), ListExpr)
        ):
            old = attrs.get("arg_directions")
            assert isinstance(old, ListExpr)
            extra = tuple(Dotted(f"{prefix}.adir.{d}") for d in directions)
            values = tuple(ListExpr(old.elts + extra) if v is old else v for v in attrs.values)
            kw = replace(kw, value=replace(attrs, values=values))
        out.append(kw)
    return tuple(out)
