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

The rewriter decides nothing the analysis decided (`SpmdOutcome`, legalog/analyzer/spmd.py),
and makes its own choices once: `plan_guards` makes a `GuardPlan` (every fresh name, slot type,
what each path yields, what is removed or moved), which `apply_guard_plan` applies to legalog's
model and `spmd_guard_objects.apply_guard_plan_to_objects` to PyPTO's objects.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from legalog.analyzer.spmd import LaunchDecision, ResultSlot, SpmdOutcome
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

__all__ = [
    "FunctionGuards",
    "Guard",
    "GuardPlan",
    "GuardedSlot",
    "SlotType",
    "apply_guard_plan",
    "launch_sites",
    "plan_guards",
]

TASK_ID = ScalarType("TASK_ID")


@dataclass(frozen=True)
class SlotType:
    """The type a slot of the guarded launch's result has: `type`, which is the type of the
    caller variable `of` (the buffer the slot writes in place) or, with `of` None, the launch's
    own type of that slot (a TaskId's: `pl.Scalar[pl.TASK_ID]`)."""

    type: Type | None
    of: str | None


@dataclass(frozen=True)
class GuardedSlot:
    """One escaping slot: the positive path yields `then` (the launch's projection, its result,
    or a scope's binding), the empty path `empty` (the caller's preserved variable, or with
    `dummy` the fresh name of a `pl.system.task_dummy` TaskId); the merged value is `result`."""

    index: int
    then: str
    result: str
    empty: str
    dummy: bool


@dataclass(frozen=True)
class Guard:
    """One guarded launch, `ordinal`-th of its function's `launch_sites` (and bound to `target`
    where it is an assignment).  `count` is the fresh name its block count is bound to first
    (None: the count is a name or a literal, the condition reads it as it is).  `local` is the
    positive path's binding of the launch's result (None: a scope or a launch whose result is
    not bound), typed `local_type`; `types` are its slots' types, all of them; `slots` the
    escaping ones, yielded (a single yield annotated `yield_type`).  `scratch` are the buffers
    that move to the head of the positive path."""

    ordinal: int
    target: str | None
    form: str
    tuple_result: bool
    count: str | None
    local: str | None
    local_type: Type | None
    types: tuple[SlotType, ...]
    slots: tuple[GuardedSlot, ...]
    yield_type: Type | None
    scratch: tuple[str, ...]


@dataclass(frozen=True)
class FunctionGuards:
    """A function's guards, and the single-name bindings the rewrite drops where they stand
    (dead projections and aliases of a guarded result, and the scratch that moves)."""

    function: str
    guards: tuple[Guard, ...]
    removed: frozenset[str]


@dataclass(frozen=True)
class GuardPlan:
    """LegalizeSpmdLaunches' rewrite with every choice made: per changed function its guards."""

    functions: tuple[FunctionGuards, ...] = ()

    @property
    def changes(self) -> bool:
        """Whether the rewrite changes the program: a function is planned for its guarded
        launches, each of which the rewrite wraps in an `if`."""
        return bool(self.functions)


def launch_sites(body: tuple[Stmt, ...], prefix: str) -> Iterator[Stmt]:
    """The statements that launch, in pre-order: a single-target assignment or an expression
    statement of a call with a block count, and a `with pl.spmd(n):` scope (before its body)."""
    for s in body:
        match s:
            case Assign(targets=(_,), value=Call() as call) | ExprStmt(value=Call() as call) if (
                core_num(call) is not None
            ):
                yield s
            case With() if spmd_scope_count(s, prefix) is not None:
                yield s
        for inner in _children(s):
            yield from launch_sites(inner, prefix)


def plan_guards(program: Program, outcome: SpmdOutcome) -> GuardPlan:
    """Every choice of the rewrite of `outcome`'s guarded launches, made once."""
    by_fn: dict[str, list[LaunchDecision]] = {}
    for d in outcome.launches:
        if d.outcome == "guarded":
            by_fn.setdefault(d.function, []).append(d)
    return GuardPlan(
        tuple(_Planner(program.prefix, f, by_fn[f.name]).run() for f in program.functions if f.name in by_fn)
    )


def apply_guard_plan(program: Program, plan: GuardPlan) -> Program:
    """`plan` applied to legalog's model; unchanged functions stay the same objects (so they
    print byte-for-byte)."""
    if not plan.functions:
        return program
    by_fn = {g.function: g for g in plan.functions}
    functions = tuple(
        _Applier(program.prefix, f, by_fn[f.name]).run() if f.name in by_fn else f for f in program.functions
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


def _bindings(body: tuple[Stmt, ...], wanted: set[str]) -> dict[str, Assign]:
    """The single-name assignments of `wanted` names anywhere in `body` (the last one of a name)."""
    found: dict[str, Assign] = {}
    for s in body:
        if isinstance(s, Assign) and len(s.targets) == 1 and s.targets[0] in wanted:
            found[s.targets[0]] = s
        for inner in _children(s):
            found.update(_bindings(inner, wanted))
    return found


class _Planner:
    """One function's guards planned, fresh names made in the order the rewrite meets them (a
    scope's body before the scope)."""

    def __init__(self, prefix: str, fn: Function, decisions: list[LaunchDecision]) -> None:
        self.pl = prefix
        self.fn = fn
        self.names = _all_names(fn)
        # By the launch's own position, never by its target: a name may be bound again by another
        # launch, which is not the one decided.
        self.by_span = {(d.line, d.column): d for d in decisions}
        self.scratch = _bindings(fn.body, {s for d in decisions for s in d.scratch})
        self.dead = frozenset(w for d in decisions for w in d.dead_bindings)
        self.ordinals = {id(s): k for k, s in enumerate(launch_sites(fn.body, prefix))}
        self.guards: list[Guard] = []

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def run(self) -> FunctionGuards:
        self.block(self.fn.body)
        return FunctionGuards(self.fn.name, tuple(self.guards), self.dead | frozenset(self.scratch))

    def block(self, body: tuple[Stmt, ...]) -> None:
        for s in body:
            match s:
                case Assign(targets=(target,)) if target in self.dead or target in self.scratch:
                    continue
                case Assign(targets=(_,), value=Call() as call) | ExprStmt(value=Call() as call) if (
                    call.span.line,
                    call.span.col,
                ) in self.by_span:
                    self.guards.append(self.launch(self.by_span[(call.span.line, call.span.col)], s, call))
                case With(body=inner) if (s.span.line, s.span.col) in self.by_span:
                    self.block(inner)
                    self.guards.append(self.scope(self.by_span[(s.span.line, s.span.col)], s))
                case _:
                    for inner in _children(s):
                        self.block(inner)

    def count(self, count: Expr | None) -> str | None:
        assert count is not None
        return None if isinstance(count, (Name, Const)) else self.fresh("spmd_core_num")

    def launch(self, d: LaunchDecision, s: Stmt, call: Call) -> Guard:
        count = self.count(core_num(call))
        scratch = tuple(n for n in d.scratch if n in self.scratch)
        ordinal = self.ordinals[id(s)]
        if d.target is None:
            return Guard(ordinal, None, d.form, d.tuple_result, count, None, None, (), (), None, scratch)
        t = d.target
        if d.tuple_result:
            own = s.type.elts if isinstance(s, Assign) and isinstance(s.type, TupleType) else ()
            elt_types = tuple(
                slot.type or (own[slot.index] if slot.index < len(own) else TASK_ID) for slot in d.slots
            )
            types = tuple(_slot_type(slot, typ) for slot, typ in zip(d.slots, elt_types))
            local = self.fresh(f"{t}_nonempty")
            escaping = [slot for slot in d.slots if slot.escapes]
            projections = [self.fresh(f"{local}_{slot.index}") for slot in escaping]
            results = [self.fresh(f"{t}_guarded_{slot.index}") for slot in escaping]
            slots = tuple(
                GuardedSlot(slot.index, then, result, *self.empty(slot))
                for slot, then, result in zip(escaping, projections, results)
            )
            local_type = TupleType(elt_types)
            yield_type = elt_types[escaping[0].index] if escaping else None
            return Guard(
                ordinal, t, d.form, True, count, local, local_type, types, slots, yield_type, scratch
            )
        slot = d.slots[0]
        types = (_slot_type(slot, s.type if isinstance(s, Assign) else None),)
        local = self.fresh(f"{t}_nonempty")
        single: tuple[GuardedSlot, ...] = ()
        if slot.escapes:
            assert slot.preserved is not None
            single = (GuardedSlot(slot.index, local, t, slot.preserved, False),)
        return Guard(
            ordinal, t, d.form, False, count, local, types[0].type, types, single, types[0].type, scratch
        )

    def scope(self, d: LaunchDecision, scope: With) -> Guard:
        count = self.count(spmd_scope_count(scope, self.pl))
        ordinal = self.ordinals[id(scope)]
        if not d.outputs:
            return Guard(ordinal, None, d.form, True, count, None, None, (), (), None, ())
        results = [self.fresh(f"{o}_guarded") for o in d.outputs]
        slots = tuple(
            GuardedSlot(slot.index, o, r, *self.empty(slot))
            for slot, o, r in zip(d.slots, d.outputs, results)
        )
        types = tuple(_slot_type(slot, None) for slot in d.slots)
        single = d.slots[0].type if len(d.slots) == 1 else None
        return Guard(ordinal, None, d.form, True, count, None, None, types, slots, single, ())

    def empty(self, slot: ResultSlot) -> tuple[str, bool]:
        """What the empty path yields for `slot`: a dummy task's TaskId, or the caller's tensor."""
        if slot.task_id:
            return self.fresh("spmd_empty_tid"), True
        assert slot.preserved is not None  # the analyzer rejects an unmapped escaping slot
        return slot.preserved, False


def _slot_type(slot: ResultSlot, own: Type | None) -> SlotType:
    """The analyzer's type of `slot` (its preserved buffer's where it has one), else `own`."""
    if slot.type is None:
        return SlotType(own, None)
    return SlotType(slot.type, slot.preserved if slot.preserved is not None and not slot.task_id else None)


class _Applier:
    """A function's guards applied to legalog's model."""

    def __init__(self, prefix: str, fn: Function, plan: FunctionGuards) -> None:
        self.pl = prefix
        self.fn = fn
        self.plan = plan
        self.guards = {g.ordinal: g for g in plan.guards}
        self.sites = {id(s): k for k, s in enumerate(launch_sites(fn.body, prefix))}
        self.scratch = _bindings(fn.body, {n for g in plan.guards for n in g.scratch})
        self.subst: dict[str, dict[int, str]] = {}  # tuple name -> slot -> guarded result name
        self.whole: dict[str, Expr] = {}  # bare use of a guarded tuple -> the tuple of its results

    def run(self) -> Function:
        return replace(self.fn, body=self.block(self.fn.body))

    def guard_of(self, s: Stmt) -> Guard | None:
        k = self.sites.get(id(s))
        return None if k is None else self.guards.get(k)

    # -- statements

    def block(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for s in body:
            out.extend(self.stmt(s))
        return tuple(out)

    def stmt(self, s: Stmt) -> list[Stmt]:
        g = self.guard_of(s)
        match s:
            case Assign(targets=(target,)) if target in self.plan.removed:
                return []  # a dead result binding, or scratch that moves into its launch's branch
            case Assign(targets=(_,), value=Call() as call) | ExprStmt(value=Call() as call) if g is not None:
                return self.guard(g, s, call)
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
            case With(context=context, body=inner) if g is not None:
                return self.guard_scope(g, replace(s, context=self.expr(context), body=self.block(inner)))
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

    def guard(self, g: Guard, s: Stmt, call: Call) -> list[Stmt]:
        count = core_num(call)
        assert count is not None
        prefix: list[Stmt] = []
        if g.count is not None:
            prefix.append(Assign((g.count,), ScalarType("INDEX"), count))
            count = Name(g.count)
            call = _with_core_num(call, count)
        then: list[Stmt] = [self.scratch[n] for n in g.scratch]
        orelse: list[Stmt] = []
        if g.local is None:
            then.append(ExprStmt(call))
        else:
            then.append(Assign((g.local,), g.local_type, call))
        if g.tuple_result and g.target is not None:
            for slot in g.slots:
                typ = g.types[slot.index].type
                then.append(Assign((slot.then,), typ, Subscript(Name(g.local or ""), Const(slot.index))))
            self.subst[g.target] = {slot.index: slot.result for slot in g.slots}
            self.whole[g.target] = TupleExpr(tuple(Name(slot.result) for slot in g.slots))
        if g.slots:
            then.append(self._yield(g, [Name(slot.then) for slot in g.slots]))
            orelse.extend(self._dummies(g, call))
            orelse.append(self._yield(g, [Name(slot.empty) for slot in g.slots]))
        cond = Compare(">", count, Const(0))
        return [*prefix, If(cond, tuple(then), tuple(orelse), comments=s.comments)]

    def guard_scope(self, g: Guard, scope: With) -> list[Stmt]:
        """`with pl.spmd(n):` as its launch is guarded: the scope runs under `if n > 0`, and its
        results merge with the caller's tensors (a dummy task for its TaskId) on the empty path;
        later reads take the merged names."""
        count = spmd_scope_count(scope, self.pl)
        assert count is not None and isinstance(scope.context, Call)
        prefix: list[Stmt] = []
        if g.count is not None:
            prefix.append(Assign((g.count,), ScalarType("INDEX"), count))
            context = scope.context
            args = (Name(g.count), *context.args[1:]) if context.args else context.args
            kwargs = tuple(
                Keyword("core_num", Name(g.count)) if k.name == "core_num" else k for k in context.kwargs
            )
            scope = replace(scope, context=replace(context, args=args, kwargs=kwargs))
            count = Name(g.count)
        then: list[Stmt] = [scope]
        orelse: list[Stmt] = []
        opened = scope.context
        assert isinstance(opened, Call)
        if g.slots:
            orelse.extend(self._dummies(g, opened))
            then.append(self._yield(g, [Name(slot.then) for slot in g.slots]))
            orelse.append(self._yield(g, [Name(slot.empty) for slot in g.slots]))
            for slot in g.slots:
                self.whole[slot.then] = Name(slot.result)
        cond = Compare(">", count, Const(0))
        return [*prefix, If(cond, tuple(then), tuple(orelse), comments=scope.comments)]

    def _dummies(self, g: Guard, launch: Call) -> list[Stmt]:
        return [Assign((slot.empty,), TASK_ID, _dummy(self.pl, launch)) for slot in g.slots if slot.dummy]

    def _yield(self, g: Guard, values: list[Expr]) -> Assign:
        value = Call(f"{self.pl}.yield_", tuple(values))
        if len(g.slots) == 1:
            return Assign((g.slots[0].result,), g.yield_type, value)
        return Assign(tuple(slot.result for slot in g.slots), None, value)

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
