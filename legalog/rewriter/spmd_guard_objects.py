"""LegalizeSpmdLaunches' plan applied to PyPTO's own objects: a new `ir.Program` in which only the
functions with a guard are rebuilt (by PyPTO's `IRMutator`), every other function the input's
own object; nothing is printed or parsed.

The statements are built as PyPTO's parser builds the text rewrite (`spmd_guard.apply_guard_plan`
printed): `IfStmt` with `return_vars` typed as its parser types them (a single yield's
annotation, else the then-branch values' types), `YieldStmt`s, a branch of one statement
unwrapped, `ir.gt(count, ConstInt(0, INDEX))`, `system.task_dummy` with its `dummy_task` and
`manual_dep_edges` attributes, new Vars typed by the plan's slot types read off the objects
(the caller variable's type, or the launch's own).  Spans are the launch statement's.

The plan is in the program's own names: every name the plan reads is one Var's `name_hint` in
its function (a plan of legalog's reading of the objects, or of their printing without SSA
versions).  Anything else raises `Unsupported` and the caller rebuilds another way: a name two
Vars share, a launch site that is not where the plan says, a scope launch (`with pl.spmd`), a
guarded tuple read other than by `t[i]`.

Needs PyPTO: imported inside each function.
"""

from __future__ import annotations

import functools
from typing import Any

from legalog.ir.objects import Unsupported
from legalog.rewriter.objects_walk import assignments, walked_in_python
from legalog.rewriter.spmd_guard import FunctionGuards, Guard, GuardPlan

__all__ = ["apply_guard_plan_to_objects"]


def apply_guard_plan_to_objects(program: Any, plan: GuardPlan) -> Any:
    """`program` (a PyPTO `ir.Program`) with `plan` applied; `Unsupported` where this applier
    does not build what the plan asks for."""
    from pypto.pypto_core import ir

    if not plan.functions:
        return program
    rebuilt: dict[str, Any] = {}
    for fg in plan.functions:
        fn = program.get_function(fg.function)
        if fn is None:
            raise Unsupported(f"no function {fg.function}")
        rebuilt[fg.function] = _guarder()(fn, fg).visit_function(fn)
    functions = [rebuilt.get(f.name, f) for f in program.functions.values()]
    return ir.Program(functions, program.name, program.span)


def _var_names(fn: Any) -> dict[str, Any]:
    """Every Var of `fn` (parameters, bindings, iteration arguments, merged results) by name;
    `Unsupported` where two share one."""
    from pypto.pypto_core import ir

    found: dict[str, Any] = {}

    def add(var: Any) -> None:
        if found.setdefault(var.name_hint, var).unique_id != var.unique_id:
            raise Unsupported(f"two variables named {var.name_hint}")

    class Names(ir.IRVisitor):
        def visit_var(self, op: Any) -> None:
            add(op)

        def visit_iter_arg(self, op: Any) -> None:
            add(op)
            super().visit_iter_arg(op)

        def visit_assign_stmt(self, op: Any) -> None:
            add(op.var)
            super().visit_assign_stmt(op)

    for p in fn.params:
        add(p)
    Names().visit_function(fn)
    return found


def _scratch(fn: Any, names: set[str]) -> dict[str, Any]:
    """The AssignStmts of `fn` that bind `names` (scratch to move), by name."""
    bound = assignments(fn.body) if names else {}
    found = {n: bound[n][-1] for n in names if n in bound}
    if set(found) != names:
        raise Unsupported(f"scratch not bound by an assignment: {sorted(names - set(found))}")
    return found


def _launch_value(stmt: Any) -> Any:
    """The launch a statement is (legalog's `launch_sites`): a Submit with a block count, or a
    call of a function with a `core_num` attribute, assigned or evaluated; else None."""
    from pypto.pypto_core import ir

    value = (
        stmt.value
        if isinstance(stmt, ir.AssignStmt)
        else stmt.expr
        if isinstance(stmt, ir.EvalStmt)
        else None
    )
    if isinstance(value, ir.Submit) and value.core_num is not None:
        return value
    if isinstance(value, ir.Call) and isinstance(value.op, ir.GlobalVar) and "core_num" in value.attrs:
        return value
    return None


def _body(stmts: list[Any], span: Any) -> Any:
    """A branch as PyPTO's builder makes one: one statement is itself, more a SeqStmts."""
    from pypto.pypto_core import ir

    return stmts[0] if len(stmts) == 1 else ir.SeqStmts(stmts, span)


@functools.cache
def _guarder() -> type:
    """The mutator class, made once (PyPTO imported on first use)."""
    from pypto.pypto_core import DataType, ir

    class Guarder(walked_in_python(ir.IRMutator)):  # type: ignore[misc]
        def __init__(self, fn: Any, plan: FunctionGuards) -> None:
            super().__init__()
            self.plan = plan
            self.vars = _var_names(fn)
            self.guards = {g.ordinal: g for g in plan.guards}
            self.site = 0  # launch sites met so far, in pre-order
            self.scratch = _scratch(fn, {n for g in plan.guards for n in g.scratch})
            self.reads: dict[tuple[int, int], Any] = {}  # (tuple Var id, slot) -> its merged Var
            self.renamed: dict[int, Any] = {}  # Var id -> the merged Var reads take instead
            self.replaced: set[int] = set()  # ids of tuples whose every read must be `t[i]`

        def binding(self, name: str) -> Any:
            var = self.vars.get(name)
            if var is None:
                raise Unsupported(f"no variable {name}")
            return var

        # -- statements

        def visit_seq_stmts(self, op: Any) -> Any:
            out: list[Any] = []
            for s in op.stmts:
                expanded = self.statement(s)
                out.extend(expanded)
            if len(out) == len(op.stmts) and all(a.same_as(b) for a, b in zip(out, op.stmts)):
                return op
            return ir.SeqStmts(out, op.span)

        def statement(self, s: Any) -> list[Any]:
            if isinstance(s, ir.AssignStmt) and s.var.name_hint in self.plan.removed:
                return []
            launch = _launch_value(s)
            guard = self.guards.get(self.site) if launch is not None else None
            if guard is None:
                return [self.visit_stmt(s)]
            self.site += 1
            return self.guard(guard, s, launch)

        def launch_site(self, op: Any) -> None:
            """An unguarded launch met (or a guarded one standing alone as a branch)."""
            if _launch_value(op) is not None:
                if self.site in self.guards:
                    raise Unsupported("a guarded launch as a whole branch")
                self.site += 1

        def visit_assign_stmt(self, op: Any) -> Any:
            if op.var.name_hint in self.plan.removed:
                raise Unsupported("a removed binding as a whole branch")
            self.launch_site(op)
            return super().visit_assign_stmt(op)

        def visit_eval_stmt(self, op: Any) -> Any:
            self.launch_site(op)
            return super().visit_eval_stmt(op)

        def visit_spmd_scope_stmt(self, op: Any) -> Any:
            # a launch site of its own, before its body (legalog's `launch_sites`)
            if self.site in self.guards:
                raise Unsupported("a guarded `with pl.spmd` scope")
            self.site += 1
            return super().visit_spmd_scope_stmt(op)

        def guard(self, g: Guard, s: Any, launch: Any) -> list[Any]:
            span = s.span
            target = s.var if isinstance(s, ir.AssignStmt) else None
            if (target.name_hint if target is not None else None) != g.target or g.form == "scope":
                raise Unsupported(f"launch site {g.ordinal} is not the plan's")
            launch = self.visit_expr(launch)
            count = launch.core_num if isinstance(launch, ir.Submit) else launch.attrs["core_num"]
            prefix: list[Any] = []
            if g.count is not None:
                bound = ir.Var(g.count, ir.ScalarType(DataType.INDEX), span)
                prefix.append(ir.AssignStmt(bound, count, span))
                count = bound
                launch = _with_count(ir, launch, bound)
            then: list[Any] = [self.scratch[n] for n in g.scratch]
            orelse: list[Any] = []
            yielded: list[Any] = []
            results: list[Any] = []
            if g.local is None:
                then.append(ir.EvalStmt(launch, span))
            else:
                local = ir.Var(g.local, self.slot_type(g, target, None), span)
                then.append(ir.AssignStmt(local, launch, span))
                if g.tuple_result:
                    for slot in g.slots:
                        value = ir.Var(slot.then, self.slot_type(g, target, slot.index), span)
                        then.append(ir.AssignStmt(value, ir.TupleGetItemExpr(local, slot.index, span), span))
                        yielded.append(value)
                else:
                    yielded = [local] if g.slots else []
            if g.slots:
                results = [ir.Var(slot.result, v.type, span) for slot, v in zip(g.slots, yielded)]
                then.append(ir.YieldStmt(yielded, span))
                empty: list[Any] = []
                for slot in g.slots:
                    if slot.dummy:
                        tid = ir.Var(slot.empty, ir.ScalarType(DataType.TASK_ID), span)
                        orelse.append(ir.AssignStmt(tid, _dummy(ir, launch, span), span))
                        empty.append(tid)
                    else:
                        empty.append(self.binding(slot.empty))
                orelse.append(ir.YieldStmt(empty, span))
                assert target is not None
                if g.tuple_result:
                    self.replaced.add(target.unique_id)
                    for slot, r in zip(g.slots, results):
                        self.reads[(target.unique_id, slot.index)] = r
                else:
                    self.renamed[target.unique_id] = results[0]
            elif target is not None:
                self.replaced.add(target.unique_id)
            cond = ir.gt(count, ir.ConstInt(0, DataType.INDEX, span), span)
            else_body = _body(orelse, span) if orelse else None
            return [*prefix, ir.IfStmt(cond, _body(then, span), else_body, results, span)]

        def slot_type(self, g: Guard, target: Any, index: int | None) -> Any:
            """The type of slot `index` (None: of the whole result) as the plan says it is made."""
            if index is None and g.tuple_result:
                return ir.TupleType([self.slot_type(g, target, i) for i in range(len(g.types))])
            st = g.types[index or 0]
            if st.of is not None:
                return self.binding(st.of).type
            own = target.type if target is not None else None
            if index is None or not g.tuple_result:
                if own is None:
                    raise Unsupported("an untyped launch result")
                return own
            if isinstance(own, ir.TupleType) and index < len(own.types):
                return own.types[index]
            return ir.ScalarType(DataType.TASK_ID)

        # -- expressions: `t[i]` -> the merged Var; a single result's reads -> its merged Var

        def visit_tuple_get_item_expr(self, op: Any) -> Any:
            t = op.tuple
            if isinstance(t, ir.Var) and (merged := self.reads.get((t.unique_id, op.index))) is not None:
                return merged
            return super().visit_tuple_get_item_expr(op)

        def visit_var(self, op: Any) -> Any:
            if op.unique_id in self.replaced:
                raise Unsupported(f"{op.name_hint} read other than by a guarded slot")
            return self.renamed.get(op.unique_id, op)

    return Guarder


def _with_count(ir: Any, launch: Any, count: Any) -> Any:
    """`launch` with its block count `count`."""
    if isinstance(launch, ir.Submit):
        return ir.Submit(
            launch.op,
            list(launch.args),
            list(launch.deps),
            dict(launch.kwargs),
            _attrs(launch.attrs),
            launch.type,
            launch.span,
            core_num=count,
            sync_start=launch.sync_start,
            allow_early_resolve=launch.allow_early_resolve,
            predicate=launch.predicate,
        )
    attrs = [(k, count if k == "core_num" else v) for k, v in launch.attrs.items()]
    return ir.Call(launch.op, list(launch.args), dict(launch.kwargs), attrs, launch.type, launch.span)


def _attrs(attrs: Any) -> list[tuple[str, Any]] | None:
    items = list(attrs.items())
    return items or None


def _dummy(ir: Any, launch: Any, span: Any) -> Any:
    """`pl.system.task_dummy(deps=[...])` as PyPTO's parser builds it, with the launch's explicit
    predecessors (a Submit's deps, a call's `manual_dep_edges`)."""
    deps = (
        list(launch.deps)
        if isinstance(launch, ir.Submit)
        else list(launch.attrs.get("manual_dep_edges") or [])
    )
    base = ir.create_op_call("system.task_dummy", [], {}, span)
    attrs: list[tuple[str, Any]] = [("dummy_task", True)]
    if deps:
        attrs.append(("manual_dep_edges", deps))
    return ir.Call(base.op, base.args, base.kwargs, attrs, base.type, base.span)
