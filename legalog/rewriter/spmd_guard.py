"""LegalizeSpmdLaunches, the rewrite: wrap every 'guarded' launch in PyPTO's `if core_num > 0`.

Spec: seeds/legalize_spmd_launches.en.txt ("SSA and dependencies"); the IR shape is PyPTO's
`Guard(expr, lhs)` (notes §4.3).  For `t = pl.spmd_submit(self.k, a, b, core_num=n, deps=[p])`
whose callee returns (b, a):

    if n > 0:
        t_nonempty: pl.Tuple[T_b, T_a, pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.k, a, b, core_num=n, deps=[p])
        t_nonempty_0: T_b = t_nonempty[0]
        t_nonempty_1: T_a = t_nonempty[1]
        t_nonempty_2: pl.Scalar[pl.TASK_ID] = t_nonempty[2]
        t_guarded_0, t_guarded_1, t_guarded_2 = pl.yield_(t_nonempty_0, t_nonempty_1, t_nonempty_2)
    else:
        spmd_empty_tid: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy(deps=[p])
        t_guarded_0, t_guarded_1, t_guarded_2 = pl.yield_(b, a, spmd_empty_tid)

and every later `x = t[i]` reads `t_guarded_i`.  A count that is neither a name nor a literal is
first bound to `spmd_core_num`.  Generated tensor types are the caller buffers' types; the
launch keeps all its metadata on the positive path; compiler GM pipe scratch used only by the
launch moves into the positive branch; dead projection/alias bindings of the result are removed
and only escaping slots are yielded.  New names are made unique in the function (`_1`, `_2`).

The rewriter decides nothing: it applies `SpmdOutcome` (legalog/analyzer/spmd.py).
"""

from __future__ import annotations

from dataclasses import replace

from legalog.analyzer.spmd import LaunchDecision, SpmdOutcome
from legalog.ir.model import (
    Assign,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Const,
    DictExpr,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Keyword,
    ListExpr,
    Name,
    Program,
    Return,
    ScalarType,
    Stmt,
    Subscript,
    TupleExpr,
    TupleType,
    Type,
    UnaryOp,
    While,
    With,
)
from legalog.ir.patterns import core_num, spmd_scope_count
from legalog.ir.transform import expr_names

__all__ = ["guard_launches"]

TASK_ID = ScalarType("TASK_ID")


def guard_launches(program: Program, outcome: SpmdOutcome) -> Program:
    """`program` with every 'guarded' launch of `outcome` wrapped; unchanged functions stay the
    same objects (so they print byte-for-byte)."""
    by_fn: dict[str, list[LaunchDecision]] = {}
    for d in outcome.launches:
        if d.outcome == "guarded":
            by_fn.setdefault(d.function, []).append(d)
    if not by_fn:
        return program
    functions = tuple(
        _FunctionGuard(program.prefix, f, by_fn[f.name]).run() if f.name in by_fn else f
        for f in program.functions
    )
    return replace(program, functions=functions)


def _all_names(fn: Function) -> set[str]:
    names = {p.name for p in fn.params}

    def block(body: tuple[Stmt, ...]) -> None:
        for s in body:
            match s:
                case Assign(targets=targets, value=value):
                    names.update(targets)
                    names.update(expr_names(value))
                case ExprStmt(value=value):
                    names.update(expr_names(value))
                case For(index=index, iter_args=iter_args, iterable=iterable, body=inner):
                    names.update(iter_args)
                    if index is not None:
                        names.add(index)
                    names.update(expr_names(iterable))
                    block(inner)
                case While(cond=cond, body=inner):
                    names.update(expr_names(cond))
                    block(inner)
                case If(cond=cond, body=then, orelse=orelse):
                    names.update(expr_names(cond))
                    block(then)
                    block(orelse)
                case With(context=context, as_name=as_name, body=inner):
                    names.update(expr_names(context))
                    if as_name is not None:
                        names.add(as_name)
                    block(inner)
                case Return(values=values):
                    for v in values:
                        names.update(expr_names(v))

    block(fn.body)
    return names


class _FunctionGuard:
    def __init__(self, prefix: str, fn: Function, decisions: list[LaunchDecision]) -> None:
        self.pl = prefix
        self.fn = fn
        self.names = _all_names(fn)
        # By the launch's own position, never by its target: a name may be bound again by another
        # launch, which is not the one decided.
        self.by_span = {(d.line, d.column): d for d in decisions}
        self.dead = {w for d in decisions for w in d.dead_bindings}
        self.scratch_names = {s for d in decisions for s in d.scratch}
        self.scratch: dict[str, Assign] = {}
        self.subst: dict[str, dict[int, str]] = {}  # tuple name -> slot -> guarded result name
        self.whole: dict[str, Expr] = {}  # bare use of a guarded tuple -> the tuple of its results

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def run(self) -> Function:
        self._collect_scratch(self.fn.body)
        return replace(self.fn, body=self.block(self.fn.body))

    def _collect_scratch(self, body: tuple[Stmt, ...]) -> None:
        for s in body:
            if isinstance(s, Assign) and len(s.targets) == 1 and s.targets[0] in self.scratch_names:
                self.scratch[s.targets[0]] = s
            for inner in _children(s):
                self._collect_scratch(inner)

    # -- statements

    def block(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for s in body:
            out.extend(self.stmt(s))
        return tuple(out)

    def stmt(self, s: Stmt) -> list[Stmt]:
        match s:
            case Assign(targets=(target,)) if target in self.dead or target in self.scratch:
                return []  # a dead result binding, or scratch that moves into its launch's branch
            case Assign(targets=(_,), value=Call() as call) | ExprStmt(value=Call() as call) if (
                call.span.line,
                call.span.col,
            ) in self.by_span:
                return self.guard(self.by_span[(call.span.line, call.span.col)], s, call)
            case Assign(targets=targets, value=value):
                kept: list[Stmt] = [replace(s, value=self.expr(value))]
                self._rebound(targets)
                return kept
            case ExprStmt(value=value):
                return [replace(s, value=self.expr(value))]
            case For(iterable=iterable, body=inner):
                return [replace(s, iterable=self.expr(iterable), body=self.block(inner))]
            case While(cond=cond, body=inner):
                return [replace(s, cond=self.expr(cond), body=self.block(inner))]
            case If(cond=cond, body=then, orelse=orelse):
                return [replace(s, cond=self.expr(cond), body=self.block(then), orelse=self.block(orelse))]
            case With(context=context, body=inner) if (s.span.line, s.span.col) in self.by_span:
                scope = replace(s, context=self.expr(context), body=self.block(inner))
                return self.guard_scope(self.by_span[(s.span.line, s.span.col)], scope)
            case With(context=context, body=inner):
                return [replace(s, context=self.expr(context), body=self.block(inner))]
            case Return(values=values):
                returned = tuple(self.expr(v) for v in values)
                if len(returned) == 1 and isinstance(returned[0], TupleExpr):
                    # `return t` of a guarded launch's whole tuple: `return (t_guarded_0, ...)` is
                    # printed, and read back, as `return t_guarded_0, ...`: so it is those values
                    returned = returned[0].elts
                return [replace(s, values=returned)]
        return [s]

    def _rebound(self, targets: tuple[str, ...]) -> None:
        """A guarded tuple's name bound again: later reads of it are the new value's."""
        for t in targets:
            self.subst.pop(t, None)
            self.whole.pop(t, None)

    def guard(self, d: LaunchDecision, s: Stmt, call: Call) -> list[Stmt]:
        pl = self.pl
        count = core_num(call)
        assert count is not None
        prefix: list[Stmt] = []
        if not isinstance(count, (Name, Const)):
            name = self.fresh("spmd_core_num")
            prefix.append(Assign((name,), ScalarType("INDEX"), count))
            count = Name(name)
            call = _with_core_num(call, count)
        then: list[Stmt] = [self.scratch[n] for n in d.scratch if n in self.scratch]
        orelse: list[Stmt] = []
        escaping = [slot for slot in d.slots if slot.escapes]
        if d.target is None:
            then.append(ExprStmt(call))
        elif d.tuple_result:
            t = d.target
            own = s.type.elts if isinstance(s, Assign) and isinstance(s.type, TupleType) else ()
            elt_types = tuple(
                slot.type or (own[slot.index] if slot.index < len(own) else TASK_ID) for slot in d.slots
            )
            local = self.fresh(f"{t}_nonempty")
            then.append(Assign((local,), TupleType(elt_types), call))
            true_values: list[Expr] = []
            for slot in escaping:
                ti = self.fresh(f"{local}_{slot.index}")
                then.append(Assign((ti,), elt_types[slot.index], Subscript(Name(local), Const(slot.index))))
                true_values.append(Name(ti))
            results = [self.fresh(f"{t}_guarded_{slot.index}") for slot in escaping]
            self.subst[t] = {slot.index: r for slot, r in zip(escaping, results)}
            self.whole[t] = TupleExpr(tuple(Name(r) for r in results))
            if escaping:
                then.append(self._yield(results, true_values, elt_types[escaping[0].index]))
                else_values: list[Expr] = []
                for slot in escaping:
                    if slot.task_id:
                        tid = self.fresh("spmd_empty_tid")
                        orelse.append(Assign((tid,), TASK_ID, _dummy(pl, call)))
                        else_values.append(Name(tid))
                    else:
                        assert slot.preserved is not None  # the analyzer rejects an unmapped escaping slot
                        else_values.append(Name(slot.preserved))
                orelse.append(self._yield(results, else_values, elt_types[escaping[0].index]))
        else:
            t = d.target
            slot = d.slots[0]
            own_type = s.type if isinstance(s, Assign) else None
            typ = slot.type or own_type
            local = self.fresh(f"{t}_nonempty")
            then.append(Assign((local,), typ, call))
            if slot.escapes:
                assert slot.preserved is not None
                then.append(self._yield([t], [Name(local)], typ))
                orelse.append(self._yield([t], [Name(slot.preserved)], typ))
        cond = Compare(">", count, Const(0))
        return [*prefix, If(cond, tuple(then), tuple(orelse), comments=s.comments)]

    def guard_scope(self, d: LaunchDecision, scope: With) -> list[Stmt]:
        """`with pl.spmd(n):` as its launch is guarded: the scope runs under `if n > 0`, and its
        results merge with the caller's tensors (a dummy task for its TaskId) on the empty path;
        later reads take the merged names."""
        count = spmd_scope_count(scope, self.pl)
        assert count is not None and isinstance(scope.context, Call)
        prefix: list[Stmt] = []
        if not isinstance(count, (Name, Const)):
            name = self.fresh("spmd_core_num")
            prefix.append(Assign((name,), ScalarType("INDEX"), count))
            context = scope.context
            args = (Name(name), *context.args[1:]) if context.args else context.args
            kwargs = tuple(
                Keyword("core_num", Name(name)) if k.name == "core_num" else k for k in context.kwargs
            )
            scope = replace(scope, context=replace(context, args=args, kwargs=kwargs))
            count = Name(name)
        then: list[Stmt] = [scope]
        orelse: list[Stmt] = []
        opened = scope.context
        assert isinstance(opened, Call)
        if d.outputs:
            results = [self.fresh(f"{o}_guarded") for o in d.outputs]
            else_values: list[Expr] = []
            for slot in d.slots:
                if slot.task_id:
                    tid = self.fresh("spmd_empty_tid")
                    orelse.append(Assign((tid,), TASK_ID, _dummy(self.pl, opened)))
                    else_values.append(Name(tid))
                else:
                    assert slot.preserved is not None  # the analyzer rejects an output it cannot preserve
                    else_values.append(Name(slot.preserved))
            single = d.slots[0].type if len(d.slots) == 1 else None
            then.append(self._yield(results, [Name(o) for o in d.outputs], single))
            orelse.append(self._yield(results, else_values, single))
            for o, r in zip(d.outputs, results):
                self.whole[o] = Name(r)
        cond = Compare(">", count, Const(0))
        return [*prefix, If(cond, tuple(then), tuple(orelse), comments=scope.comments)]

    def _yield(self, targets: list[str], values: list[Expr], single_type: Type | None) -> Assign:
        value = Call(f"{self.pl}.yield_", tuple(values))
        if len(targets) == 1:
            return Assign((targets[0],), single_type, value)
        return Assign(tuple(targets), None, value)

    # -- expressions: `t[i]` -> `t_guarded_i`, a bare `t` -> `(t_guarded_0, ...)`

    def expr(self, e: Expr) -> Expr:
        if not self.subst and not self.whole:
            return e
        match e:
            case Subscript(value=Name(id=t), index=Const(value=int() as i)) if (
                t in self.subst and i in self.subst[t]
            ):
                return Name(self.subst[t][i])
            case Name(id=t) if t in self.whole:
                return self.whole[t]
            case Subscript(value=value, index=index):
                return replace(e, value=self.expr(value), index=self.expr(index))
            case BinOp(left=left, right=right) | Compare(left=left, right=right):
                return replace(e, left=self.expr(left), right=self.expr(right))
            case UnaryOp(operand=operand):
                return replace(e, operand=self.expr(operand))
            case BoolOp(values=values):
                return replace(e, values=tuple(self.expr(v) for v in values))
            case Call(args=args, kwargs=kwargs):
                return replace(
                    e,
                    args=tuple(self.expr(a) for a in args),
                    kwargs=tuple(replace(k, value=self.expr(k.value)) for k in kwargs),
                )
            case ListExpr(elts=elts) | TupleExpr(elts=elts):
                return replace(e, elts=tuple(self.expr(x) for x in elts))
            case DictExpr(keys=keys, values=values):
                return replace(
                    e, keys=tuple(self.expr(k) for k in keys), values=tuple(self.expr(v) for v in values)
                )
        return e


def _children(s: Stmt) -> list[tuple[Stmt, ...]]:
    match s:
        case For(body=body) | While(body=body) | With(body=body):
            return [body]
        case If(body=body, orelse=orelse):
            return [body, orelse]
    return []


def _with_core_num(call: Call, count: Expr) -> Call:
    if call.kwarg("core_num") is not None:
        kwargs = tuple(Keyword(k.name, count) if k.name == "core_num" else k for k in call.kwargs)
        return replace(call, kwargs=kwargs)
    rebuilt: list[Keyword] = []
    for k in call.kwargs:
        if k.name == "attrs" and isinstance(k.value, DictExpr):
            values = tuple(
                count if isinstance(key, Const) and key.value == "core_num" else v
                for key, v in zip(k.value.keys, k.value.values)
            )
            k = Keyword(k.name, replace(k.value, values=values))
        rebuilt.append(k)
    return replace(call, kwargs=tuple(rebuilt))


def _dummy(pl: str, call: Call) -> Call:
    """`pl.system.task_dummy(deps=[...])` with the launch's explicit predecessors (a Submit's
    `deps=`, or a call's `manual_dep_edges` attribute); the printer always spells `deps=`."""
    deps = call.kwarg("deps")
    if deps is None and isinstance(attrs := call.kwarg("attrs"), DictExpr):
        deps = attrs.get("manual_dep_edges")
    if not isinstance(deps, ListExpr):
        deps = ListExpr(()) if deps is None else ListExpr((deps,))
    return Call(f"{pl}.system.task_dummy", (), (Keyword("deps", deps),))
