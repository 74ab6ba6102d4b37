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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import replace

from legalog.analyzer.graph import GraphDecision, HoistedValue, plain_name
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
from legalog.ir.transform import bound_names, drop_bindings, expr_names, rename, splice, substitute

_ADIR = {"scalar": "scalar", "InOut": "inout", "In": "input", "Out": "input"}


def legalize_graphs(program: Program, decisions: tuple[GraphDecision, ...]) -> Program:
    plans = {d.function: d for d in decisions if d.changes_anything}
    if not plans:
        return program
    originals = {f.name: f for f in program.functions}
    counter = itertools.count()
    functions = []
    for fn in program.functions:
        if fn.name in plans:
            fn = _rewrite_graph(fn, plans[fn.name], program)
        functions.append(_rewrite_call_sites(fn, plans, originals, counter, program.prefix))
    return replace(program, functions=tuple(functions))


# ------------------------------------------------------------------------------------- the Graph


def _rewrite_graph(fn: Function, plan: GraphDecision, program: Program) -> Function:
    gone = {h.name for h in plan.hoisted} | {alias for alias, _ in plan.aliases}
    body = rename(drop_bindings(fn.body, gone), dict(plan.aliases))
    module_level = frozenset(program.dynamic_dims)
    new_params = tuple(
        Param(h.name, parameter_type(h.type, module_level, program.prefix), h.direction) for h in plan.hoisted
    )
    return replace(fn, body=body, params=fn.params + new_params)


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


# --------------------------------------------------------------------------------- call sites


def _rewrite_call_sites(
    fn: Function,
    plans: dict[str, GraphDecision],
    originals: dict[str, Function],
    counter: Iterator[int],
    prefix: str,
) -> Function:
    taken = bound_names(fn.body) | {p.name for p in fn.params}

    def extended(value: Expr, prelude: list[Stmt]) -> Expr:
        """`value` with its hoisted arguments when it is a call of a planned Graph (their
        computations appended to `prelude`), else `value`."""
        target = call_target(value, prefix) if isinstance(value, Call) else None
        if target is None or target.callee not in plans:
            return value
        assert isinstance(value, Call)
        callee = target.callee
        before, call = _extend_call(
            value, target.first_arg, plans[callee], originals[callee], counter, taken, prefix
        )
        prelude.extend(before)
        return call

    def edit(stmt: Stmt) -> list[Stmt] | None:
        prelude: list[Stmt] = []
        if isinstance(stmt, (Assign, ExprStmt)):
            new: Stmt = replace(stmt, value=extended(stmt.value, prelude))
        elif isinstance(stmt, Return):
            # `return self.graph(...)`: a call site as much as an assignment's
            new = replace(stmt, values=tuple(extended(v, prelude) for v in stmt.values))
        else:
            return None
        return [*prelude, new] if prelude else None

    body = splice(fn.body, edit)
    return fn if body is fn.body else replace(fn, body=body)


def _extend_call(
    call: Call,
    first_arg: int,
    plan: GraphDecision,
    callee: Function,
    counter: Iterator[int],
    taken: set[str],
    prefix: str,
) -> tuple[list[Stmt], Call]:
    binding: dict[str, Expr] = {p.name: a for p, a in zip(callee.params, call.args[first_arg:])}
    aliases = dict(plan.aliases)
    links = {name: source for name, source, _ in plan.tensor_links}

    def lookup(name: str) -> Expr | None:
        # Renames and same-buffer rebinds name their source's buffer at the call site too.
        seen = set()
        while name not in binding and name not in seen:
            seen.add(name)
            name = aliases.get(name) or links.get(name) or name
        return binding.get(name)

    locals_of_graph = bound_names(callee.body)
    prelude: list[Stmt] = []
    local_for: dict[str, str] = {}
    # Scalars first, then tensors, each in definition order: a slice's offset is typically a
    # Step A scalar, so its binding has to precede the slice (the seed's order; PyPTO's source
    # interleaves by definition, which the lazy `lookup` above makes unnecessary).
    for h in sorted(plan.hoisted, key=lambda h: (h.kind != "scalar", h.order)):
        value = substitute(h.value, lookup)
        local = _fresh(f"{plain_name(h.name)}__graph_arg{next(counter)}", taken)
        prelude.append(Assign((local,), _caller_type(h.type, lookup, locals_of_graph), value))
        binding[h.name] = Name(local)
        local_for[h.name] = local
    args = call.args + tuple(Name(local_for[h.name]) for h in plan.hoisted)
    return prelude, replace(call, args=args, kwargs=_extend_directions(call.kwargs, plan.hoisted, prefix))


def _caller_type(t: Type, lookup: Callable[[str], Expr | None], graph_locals: set[str]) -> Type:
    """The hoisted value's type in the caller's terms; annotation extras that still name a
    Graph-local (a MemRef offset, say) are dropped: no call site may name one."""
    moved = substitute(t, lookup)
    if isinstance(moved, TensorType):
        extras = tuple(x for x in moved.extras if not (expr_names(x) & graph_locals))
        return replace(moved, extras=extras) if extras != moved.extras else moved
    return moved


def _extend_directions(
    kwargs: tuple[Keyword, ...], hoisted: tuple[HoistedValue, ...], prefix: str
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
            extra = tuple(
                Dotted(f"{prefix}.adir.{_ADIR['scalar' if h.kind == 'scalar' else h.direction]}")
                for h in hoisted
            )
            values = tuple(ListExpr(old.elts + extra) if v is old else v for v in attrs.values)
            kw = replace(kw, value=replace(attrs, values=values))
        out.append(kw)
    return tuple(out)


def _fresh(name: str, taken: set[str]) -> str:
    candidate, k = name, 1
    while candidate in taken:
        candidate, k = f"{name}_{k}", k + 1
    taken.add(candidate)
    return candidate
