"""LegalizeGraphBoundary's plan applied to PyPTO's own objects: the rewrite inside PyPTO's
pipeline without printing or parsing anything.

`apply_graph_plan_to_objects` obeys a `GraphPlan` (legalog/rewriter/graph_boundary.py) on an
`ir.Program` and returns a new one in which only the planned Graphs and the functions that call
them are rebuilt; every other function is the input's own object.  It decides nothing: the
names, the order, the parameters and the directions are the plan's.  What it builds is what
PyPTO's parser builds from the printed rewrite (`ir.structural_equal`, tests/pypto):

* a Graph's new parameter is a fresh `ir.Var` of the hoisted binding's name and type, its MemRef
  at byte offset 0 (an index constant, as the parser reads `pl.const(0, pl.INT64)`); every
  reader of the binding, and of a deleted rename, reads the parameter or the rename's root;
* a call site's local is the Graph's own binding cloned by `ir.deep_clone`, each Graph name it
  reads seeded with the call's argument or an earlier local, as the plan says, and bound to a
  fresh `ir.Var` of the plan's name just before the call's statement;
* the call gets the locals as arguments and, where it has `arg_directions`, one
  `ir.ArgDirection` each.

Plan names are PyPTO's `name_hint`s: the plan must have been made on the model
`legalog.ir.objects` read from this Program, and not versioned (`Analysis.versions` empty for
the functions it changes).  Wherever a name does not find exactly one variable, or the program
holds something this module does not rebuild (a launch through `pl.submit`, a binding whose
block would be left empty, a pinned or slotted MemRef, a type naming a Graph local), it raises
`Unsupported`, and the caller rebuilds the functions from their printed text instead.

PyPTO is imported inside the functions: importing legalog never imports it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from legalog.ir.objects import Unsupported
from legalog.rewriter.graph_boundary import CallSite, GraphEdit, GraphPlan, HoistedLocal
from legalog.rewriter.objects_walk import assignments, walked_in_python

__all__ = ["Unsupported", "apply_graph_plan_to_objects"]


def apply_graph_plan_to_objects(program: Any, plan: GraphPlan) -> Any:
    """`program` (a `pypto.ir.Program`) rewritten as `plan` says; the input itself when the plan
    changes nothing.  Raises `Unsupported` where this module does not know how (see above)."""
    from pypto.pypto_core import ir

    if not plan.graphs:
        return program
    edits = {g.function: g for g in plan.graphs}
    callers = {c.caller for c in plan.calls}
    graphs = _Graphs({name: _function(program, name) for name in edits}, ir)
    functions = []
    for fn in program.functions.values():
        if fn.name in edits or fn.name in callers:
            fn = _rewritten(fn, edits.get(fn.name), plan.sites_in(fn.name), graphs, ir)
        functions.append(fn)
    return ir.Program(functions, program.name, program.span)


def _function(program: Any, name: str) -> Any:
    fn = program.get_function(name)
    if fn is None:
        raise Unsupported(f"the plan names a function `{name}` the program does not hold")
    return fn


# a Graph's variables by name (`_definitions`), its assignments by target name (the last of
# each), and the identities of its variables (which no call site's local may read)
_GraphNames = tuple[dict[str, Any], dict[str, Any], frozenset[int]]


class _Graphs:
    """The planned Graphs as the input holds them (`originals`), and what the Graph edit and the
    call sites read of each, found on first use and once for both."""

    def __init__(self, originals: Mapping[str, Any], ir: Any) -> None:
        self.originals, self.ir = originals, ir
        self._names: dict[str, dict[str, Any]] = {}
        self._read: dict[str, _GraphNames] = {}

    def names(self, graph: str) -> dict[str, Any]:
        """The Graph's variables by name (`_definitions`)."""
        if (found := self._names.get(graph)) is None:
            found = self._names[graph] = _definitions(self.originals[graph], self.ir)
        return found

    def read(self, graph: str) -> _GraphNames:
        """What a call site reads of the Graph: its names, assignments and variables' ids."""
        if (found := self._read.get(graph)) is None:
            names = self.names(graph)
            found = self._read[graph] = (
                names,
                {n: a[-1] for n, a in assignments(self.originals[graph].body).items()},
                frozenset(id(v) for v in names.values() if v is not None),
            )
        return found


def _rewritten(fn: Any, edit: GraphEdit | None, sites: tuple[CallSite, ...], graphs: _Graphs, ir: Any) -> Any:
    """One function with its Graph edit (if it is a planned Graph) and its call sites extended."""
    params = list(zip(fn.params, fn.param_directions))
    body = fn.body
    if edit is not None:
        new_params, body = _edit_graph(fn, edit, graphs.names(fn.name), ir)
        params += new_params
    if sites:
        body = _extend_call_sites(body, sites, graphs, ir)
    return ir.Function(
        fn.name,
        params,
        fn.return_types,
        body,
        fn.span,
        fn.func_type,
        fn.level,
        fn.role,
        fn.attrs,
        fn.requires_runtime_binding,
    )


# ------------------------------------------------------------------------------------- the Graph


def _edit_graph(
    fn: Any, edit: GraphEdit, names: Mapping[str, Any], ir: Any
) -> tuple[list[tuple[Any, Any]], Any]:
    """The Graph's new parameters (with their directions) and its body without the dropped
    bindings, every reader of one reading the parameter or the rename's root (`names`: its
    variables by name)."""
    new_params = []
    replaced: dict[str, Any] = {}
    for p in edit.params:
        old = _var(names, p.name, fn.name)
        var = ir.Var(p.name, _parameter_type(old.type, ir), old.span)
        new_params.append((var, getattr(ir.ParamDirection, p.direction)))
        replaced[p.name] = var
    pairs = [(_var(names, name, fn.name), var) for name, var in replaced.items()]
    for alias, root in edit.aliases:
        pairs.append((_var(names, alias, fn.name), replaced.get(root) or _var(names, root, fn.name)))
    body = _dropper()(edit.dropped).visit_stmt(fn.body)
    return new_params, ir.substitute_stmt(body, pairs) if pairs else body


def _parameter_type(t: Any, ir: Any) -> Any:
    """A hoisted binding's type as the Graph's parameter: its MemRef at byte offset 0, as the
    parser reads the plan's `pl.const(0, pl.INT64)` (`graph_boundary.parameter_type`)."""
    if isinstance(t, ir.ScalarType):
        return t
    if not isinstance(t, ir.TensorType) or getattr(t, "tensor_view", None) is not None:
        raise Unsupported(f"a hoisted value of type {t}: only scalars and plain tensors are rebuilt")
    memref = t.memref
    if memref is None:
        return t
    if memref.is_pinned_ or memref.slot_count_ != 1 or memref.slot_index_ is not None:
        raise Unsupported("a hoisted tensor with a pinned or slotted MemRef")
    at_zero = ir.MemRef(memref.base_, ir.ConstInt(0, _index(), memref.span), memref.size_, memref.span)
    return ir.TensorType(t.shape, t.dtype, at_zero)


def _index() -> Any:
    from pypto.pypto_core import DataType

    return DataType.INDEX


@functools.cache
def _dropper() -> type:
    """An `IRMutator` that leaves out every single assignment binding one of its names (the
    mutator, made once: a class per call costs more than a small Graph's walk)."""
    from pypto.pypto_core import ir

    class Drop(walked_in_python(ir.IRMutator)):  # type: ignore[misc]
        def __init__(self, names: frozenset[str]) -> None:
            super().__init__()
            self.names = names

        def visit_seq_stmts(self, op: Any) -> Any:
            kept = [s for s in op.stmts if not self.dropped(s)]
            new = [self.visit_stmt(s) for s in kept]
            if not new:  # the model writes `pass` for a block left empty
                raise Unsupported("a block whose every statement is a hoisted binding")
            if len(new) == len(op.stmts) and all(a.same_as(b) for a, b in zip(new, op.stmts)):
                return op
            return ir.SeqStmts(new, op.span)

        def visit_assign_stmt(self, op: Any) -> Any:
            if self.dropped(op):  # not in a SeqStmts: its block would be left empty
                raise Unsupported("a block whose every statement is a hoisted binding")
            return super().visit_assign_stmt(op)

        def dropped(self, stmt: Any) -> bool:
            return isinstance(stmt, ir.AssignStmt) and stmt.var.name_hint in self.names

    return Drop


# --------------------------------------------------------------------------------- call sites


def _extend_call_sites(body: Any, sites: tuple[CallSite, ...], graphs: _Graphs, ir: Any) -> Any:
    extender = _extender()(sites, graphs)
    out = extender.visit_stmt(body)
    if extender.next != len(sites):
        raise Unsupported(f"the plan has {len(sites)} call sites here, the objects {extender.next}")
    return out


@functools.cache
def _extender() -> type:
    """An `IRMutator` that extends the plan's call sites, in the order the plan counts them
    (statements in pre-order): each statement whose value is a call of a planned Graph gets the
    site's locals bound just before it, in its block."""
    from pypto.pypto_core import ir

    class Extend(walked_in_python(ir.IRMutator)):  # type: ignore[misc]
        def __init__(self, sites: tuple[CallSite, ...], graphs: _Graphs) -> None:
            super().__init__()
            self.sites, self.graphs = sites, graphs
            self.next = 0

        def visit_seq_stmts(self, op: Any) -> Any:
            out: list[Any] = []
            changed = False
            for stmt in op.stmts:
                if self.calls_of_graphs(stmt):
                    out += self.extended(stmt)
                    changed = True
                else:
                    new = self.visit_stmt(stmt)
                    changed |= not new.same_as(stmt)
                    out.append(new)
            return ir.SeqStmts(out, op.span) if changed else op

        def visit_assign_stmt(self, op: Any) -> Any:
            self.alone(op)
            return super().visit_assign_stmt(op)

        def visit_eval_stmt(self, op: Any) -> Any:
            self.alone(op)
            return super().visit_eval_stmt(op)

        def visit_return_stmt(self, op: Any) -> Any:
            self.alone(op)
            return super().visit_return_stmt(op)

        def visit_submit(self, op: Any) -> Any:
            if isinstance(op.op, ir.GlobalVar) and op.op.name in self.graphs.originals:
                raise Unsupported("a launch of a planned Graph through pl.submit")
            return super().visit_submit(op)

        def alone(self, stmt: Any) -> None:
            """A call site outside any block: no place to bind its locals before it."""
            if self.calls_of_graphs(stmt):
                raise Unsupported("a call of a planned Graph that is not in a block")

        def calls_of_graphs(self, stmt: Any) -> list[Any]:
            return [v for v in _values(stmt, ir) if self.planned(v)]

        def planned(self, value: Any) -> bool:
            return (
                isinstance(value, ir.Call)
                and isinstance(value.op, ir.GlobalVar)
                and value.op.name in self.graphs.originals
            )

        def extended(self, stmt: Any) -> list[Any]:
            prelude: list[Any] = []

            def extend(value: Any) -> Any:
                if not self.planned(value):
                    return value
                if self.next >= len(self.sites):
                    raise Unsupported("more calls of planned Graphs than the plan has call sites")
                site = self.sites[self.next]
                self.next += 1
                if site.callee != value.op.name:
                    raise Unsupported(
                        f"call site {site.index} calls `{value.op.name}`, the plan `{site.callee}`"
                    )
                graph = self.graphs.originals[site.callee]
                return _extend_call(value, site, graph, self.graphs.read(site.callee), prelude, ir)

            if isinstance(stmt, ir.AssignStmt):
                new = ir.AssignStmt(stmt.var, extend(stmt.value), stmt.span)
            elif isinstance(stmt, ir.EvalStmt):
                new = ir.EvalStmt(extend(stmt.expr), stmt.span)
            else:
                new = ir.ReturnStmt([extend(v) for v in stmt.value], stmt.span)
            return [*prelude, new]

    return Extend


def _values(stmt: Any, ir: Any) -> list[Any]:
    """The values a statement computes at its top level, where the model reads a call site."""
    if isinstance(stmt, ir.AssignStmt):
        return [stmt.value]
    if isinstance(stmt, ir.EvalStmt):
        return [stmt.expr]
    if isinstance(stmt, ir.ReturnStmt):
        return list(stmt.value)
    return []


def _extend_call(
    call: Any,
    site: CallSite,
    graph: Any,
    graph_names: _GraphNames,
    prelude: list[Any],
    ir: Any,
) -> Any:
    """`call` with the site's locals as arguments (their bindings appended to `prelude`)."""
    from pypto.language import arg_direction

    names, assigns, graph_vars = graph_names
    locals_: dict[str, Any] = {}
    for local in site.locals:
        stmt = _binding(assigns, local, graph)
        seeds = [(_var(names, n, graph.name), _argument(call, k, local)) for n, k in local.from_args]
        seeds += [(_var(names, n, graph.name), locals_[v]) for n, v in local.from_locals]
        clone, _ = ir.deep_clone(stmt, seeds)
        _reads_no_graph_local(clone, graph_vars, graph.name, local)
        var = ir.Var(local.name, clone.var.type, call.span)
        prelude.append(ir.AssignStmt(var, clone.value, call.span))
        locals_[local.name] = var
    args = [*call.args, *(locals_[a] for a in site.args)]
    attrs = dict(call.attrs)
    if "arg_directions" in attrs:
        attrs["arg_directions"] = [
            *attrs["arg_directions"],
            *(getattr(arg_direction, d) for d in site.directions),
        ]
    return ir.Call(call.op, args, call.kwargs, attrs, call.type, call.span)


def _binding(assigns: Mapping[str, Any], local: HoistedLocal, graph: Any) -> Any:
    stmt = assigns.get(local.hoisted)
    if stmt is None:
        raise Unsupported(f"`{local.hoisted}` is no single assignment in `{graph.name}`")
    return stmt


def _argument(call: Any, position: int, local: HoistedLocal) -> Any:
    if position >= len(call.args):
        raise Unsupported(f"`{local.hoisted}` reads a parameter the call does not pass")
    return call.args[position]


def _reads_no_graph_local(clone: Any, graph_vars: frozenset[int], graph: str, local: HoistedLocal) -> None:
    """The clone may read no variable of the Graph (`graph_vars`, their ids): the model drops an
    annotation extra that still names one (`_caller_type`), which this module does not mirror."""
    found = _var_reader()(graph_vars)
    found.visit_stmt(clone)
    if found.hit:
        raise Unsupported(f"`{local.name}` in the caller would read a variable of `{graph}`")


@functools.cache
def _var_reader() -> type:
    from pypto.pypto_core import ir

    class Reads(walked_in_python(ir.IRVisitor)):  # type: ignore[misc]
        def __init__(self, ids: frozenset[int]) -> None:
            super().__init__()
            self.ids, self.hit = ids, False

        def visit_var(self, op: Any) -> None:
            self.hit |= id(op) in self.ids
            super().visit_var(op)

    return Reads


# ------------------------------------------------------------------------------------- names


def _definitions(fn: Any, ir: Any) -> dict[str, Any]:
    """Every variable `fn` defines (parameters, assignment targets, loop variables, iteration
    arguments, a loop's or an `if`'s return variables) by name; None for a name two different
    variables share (the plan cannot tell them apart)."""
    found: dict[str, Any] = {}

    def define(var: Any) -> None:
        seen = found.get(var.name_hint, var)
        found[var.name_hint] = var if seen is not None and seen.same_as(var) else None

    for p in fn.params:
        define(p)
    collector = _definer()(define)
    collector.visit_stmt(fn.body)
    return found


@functools.cache
def _definer() -> type:
    from pypto.pypto_core import ir

    class Defs(walked_in_python(ir.IRVisitor)):  # type: ignore[misc]
        def __init__(self, define: Any) -> None:
            super().__init__()
            self.define = define

        def visit_assign_stmt(self, op: Any) -> None:
            self.define(op.var)
            super().visit_assign_stmt(op)

        def visit_for_stmt(self, op: Any) -> None:
            for v in (op.loop_var, *op.iter_args, *op.return_vars):
                self.define(v)
            super().visit_for_stmt(op)

        def visit_while_stmt(self, op: Any) -> None:
            for v in (*op.iter_args, *op.return_vars):
                self.define(v)
            super().visit_while_stmt(op)

        def visit_if_stmt(self, op: Any) -> None:
            for v in op.return_vars:
                self.define(v)
            super().visit_if_stmt(op)

    return Defs


def _var(names: Mapping[str, Any], name: str, function: str) -> Any:
    var = names.get(name)
    if var is None:
        why = "two variables share" if name in names else "no variable has"
        raise Unsupported(f"{why} the plan's name `{name}` in `{function}`")
    return var
