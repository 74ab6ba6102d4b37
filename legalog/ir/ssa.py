"""Frontend dumps in SSA form: version rebound names as PyPTO's ConvertToSSA does, and back.

A frontend dump (`00_frontend.py`) binds a name again and again — a parameter rebound by an
in-place call, an accumulator in a loop, a value merged after an `if` — while every analysis here
reads one binding per name.  `version_function` gives each binding a unique name the way
ConvertToSSA (hw-native-sys/pypto src/ir/transforms/convert_to_ssa_pass.cpp, at the snapshot that
printed `../shared/corpus/graph/`) does: `x__ssa_vN` per assignment, loop-carried and
loop-escaping names as `x__iter_vN` iteration arguments whose values leave the loop as
`x__rv_vN` (a natural `while` becomes `pl.while_`), names changed in an `if` merged as `x__phi_vN`
yields, loop indices as `i__idx_v0`; existing iteration arguments and yields are kept.  Every
internal name remembers the name the dump printed, so diagnostics and rewrites speak the user's
names, and `unversion_function` writes a rewritten function back in the dump's own style.

What ConvertToSSA cannot give a meaning to is declined, never guessed: a name read on a path
where nothing binds it (`x__FREE_VAR` in PyPTO's output), which includes a name first bound in a
loop and read after it (PyPTO carries it out of the loop with no initial value).  Only a function
that binds some name twice is versioned: one that binds every name once is SSA as it stands
(`needs_versioning` says why a loop's binding read after it does not change that).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from legalog.ir.model import (
    Assign,
    Call,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Jump,
    Keyword,
    Name,
    Opaque,
    Param,
    Program,
    Return,
    Span,
    Stmt,
    TupleExpr,
    Type,
    While,
    With,
)
from legalog.ir.patterns import yielded
from legalog.ir.transform import (
    bindings,
    bound_names,
    expr_names,
    map_bodies,
    node_fields,
    rename,
    substitute,
    walk_stmts,
)

# Scopes ConvertToSSA keeps fully transparent (RuntimeScopeStmt); every other `with` is an
# outlined region whose nested loops never carry a name out for a use after the region.
_RUNTIME_SCOPES = frozenset({"scope", "manual_scope"})


@dataclass(frozen=True, slots=True)
class Declined:
    """A frontend construct versioning cannot give a sound meaning: where, which name, why."""

    span: Span
    name: str
    reason: str


@dataclass(frozen=True, slots=True)
class VersionedFunction:
    """A function in SSA form, and the way back to the dump's own names and shape."""

    function: Function
    printed: dict[str, str]  # internal name -> the name the dump printed
    synthesized: frozenset[str]  # iteration arguments, loop results and phis versioning added
    whiles: frozenset[Span]  # natural `while` loops written as `pl.while_`
    declined: tuple[Declined, ...] = field(default=())

    def spell(self, text: str) -> str:
        """`text` (a message, an expression) with each internal name as the dump printed it."""
        return _IDENTIFIER.sub(lambda m: self.printed.get(m.group(0), m.group(0)), text)


_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def needs_versioning(fn: Function, prefix: str) -> bool:
    """Whether a function is not already in SSA form: some name is bound twice (a parameter
    rebound, a name reassigned, a name bound in both branches of an `if` without a yield).

    A function that binds every name once is SSA as it stands, even where a name bound inside a
    loop is read after it: that is PyPTO's "leak mode" (a loop without return values), which
    its structural UseAfterDef verifier, run around every pass, accepts ("body-local
    definitions are visible after the loop", src/ir/verifier/verify_use_after_def.cpp); the
    SSAVerify that would call it a scope violation checks SSAForm, a property InitMemRef has
    dropped by the passes' positions.  Such a name is the one value its binding gives it;
    versioning would instead carry it out of the loop with no initial value, a frontend reading
    (FE401) of a dump no ConvertToSSA runs on again."""
    seen = {p.name for p in fn.params}
    if len(seen) != len(fn.params):
        return False  # duplicate parameters are the parser's to report, not a rebinding
    return _rebinds(fn.body, seen, prefix)


def version_function(fn: Function, prefix: str) -> VersionedFunction:
    """`fn` as ConvertToSSA would version it (see the module docstring)."""
    return _Versioner(fn, prefix).run()


def unversion_function(fn: Function, versioned: VersionedFunction, prefix: str) -> Function | None:
    """A rewritten SSA function back in the dump's own names and shape: versioning's iteration
    arguments, loop results and phis go, each name prints as the dump printed it.  A new
    parameter whose printed name another binding also uses keeps its internal name.  The result
    is checked by versioning it again: it must mean exactly `fn`, or None is returned (print
    `fn` itself then: it is valid SSA input)."""
    shaped = _strip(fn.body, versioned, prefix)
    old_params = {p.name for p in versioned.function.params}
    new_params = [p.name for p in fn.params if p.name not in old_params]
    spelled = {**versioned.printed, **_derived_spellings(fn, versioned)}
    attempts = [spelled]
    clashing = _clashing(new_params, fn, spelled)
    if clashing:
        attempts.append({k: v for k, v in spelled.items() if k not in clashing})
    for printed in attempts:
        candidate = _rename_function(replace(fn, body=shaped), _spelling(printed))
        # Versioning reads a repeated parameter name as a rebinding, so `def step(off, off)`
        # would "mean" the SSA function; PyPTO's parser refuses it.  Parameters stay distinct.
        if not _distinct_params(candidate):
            continue
        again = version_function(candidate, prefix)
        if again.declined:
            continue
        # versioned back to `fn` itself (half the corpus' rewritten functions): no renaming to compare
        if again.function == fn:
            return candidate
        if _alpha_equivalent(again.function, fn):
            return candidate
    return None


def _distinct_params(fn: Function) -> bool:
    return len({p.name for p in fn.params}) == len(fn.params)


# ------------------------------------------------------------------------------------ versioning


class _Versioner:
    def __init__(self, fn: Function, prefix: str) -> None:
        self.fn = fn
        self.prefix = prefix
        self.counter: dict[str, int] = {}
        self.current: dict[str, str] = {}
        self.types: dict[str, Type | None] = {}
        self.printed: dict[str, str] = {}
        self.taken: set[str] = set()
        self.synthesized: set[str] = set()
        self.whiles: set[Span] = set()
        self.declined: list[Declined] = []
        self.bound = bound_names(fn.body) | {p.name for p in fn.params}

    def run(self) -> VersionedFunction:
        params = []
        for p in self.fn.params:
            params.append(
                replace(p, type=substitute(p.type, self.current_name), name=self.bind(p.name, "ssa", p.type))
            )
        body = self.block(self.fn.body, frozenset())
        fn = replace(self.fn, params=tuple(params), body=body)
        return VersionedFunction(
            fn, self.printed, frozenset(self.synthesized), frozenset(self.whiles), tuple(self.declined)
        )

    # ---- names

    def fresh(self, base: str, role: str, version: int | None = None) -> str:
        if version is None:
            version = self.counter.get(base, 0)
            self.counter[base] = version + 1
        name, k = f"{base}__{role}_v{version}", 1
        while name in self.taken:  # PyPTO's printer makes equal names unique the same way
            name, k = f"{base}__{role}_v{version}_{k}", k + 1
        self.taken.add(name)
        self.printed[name] = base
        return name

    def bind(self, base: str, role: str, t: Type | None) -> str:
        name = self.fresh(base, role)
        self.current[base] = name
        self.types[name] = t
        return name

    def lookup(self, span: Span) -> Callable[[str], Expr | None]:
        def find(name: str) -> Expr | None:
            internal = self.current.get(name)
            if internal is None and name in self.bound:
                self.declined.append(
                    Declined(
                        span,
                        name,
                        f"is read where no binding reaches it on every path (ConvertToSSA leaves it `{name}__FREE_VAR`)",
                    )
                )
                return Name(f"{name}__FREE_VAR")  # what PyPTO prints for it
            return None if internal is None else Name(internal)

        return find

    def expr(self, e: Expr, span: Span) -> Expr:
        return substitute(e, self.lookup(span))

    def current_name(self, name: str) -> Expr | None:
        return Name(self.current[name]) if name in self.current else None

    def type(self, t: Type | None) -> Type | None:
        # annotations are symbolic: a name they mention may be bound nowhere here (IR_FORMAT §3.3)
        return None if t is None else substitute(t, self.current_name)

    # ---- statements

    def block(self, body: tuple[Stmt, ...], after: frozenset[str]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for stmt, live in zip(body, _live_after(body, after)):
            out.extend(self.stmt(stmt, live))
        return tuple(out)

    def stmt(self, stmt: Stmt, future: frozenset[str]) -> list[Stmt]:
        match stmt:
            case Assign(targets=targets, type=t, value=value):
                new_value = self.expr(value, stmt.span)
                new_type = self.type(t)
                names = tuple(self.bind(n, "ssa", t if len(targets) == 1 else None) for n in targets)
                return [replace(stmt, targets=names, type=new_type, value=new_value)]
            case ExprStmt(value=value):
                return [replace(stmt, value=self.expr(value, stmt.span))]
            case Return(values=values):
                return [replace(stmt, values=tuple(self.expr(v, stmt.span) for v in values))]
            case With(context=context, as_name=as_name, body=body):
                new_context = self.expr(context, stmt.span)
                new_as = None if as_name is None else self.bind(as_name, "ssa", None)
                if _scope_kind(context, self.prefix) not in _RUNTIME_SCOPES:
                    future = frozenset(n for n in future if n in self.current)
                return [replace(stmt, context=new_context, as_name=new_as, body=self.block(body, future))]
            case If():
                return [self.if_(stmt, future)]
            case For():
                return [self.for_(stmt, future)]
            case While():
                return [self.while_(stmt, future)]
            case Jump():
                return [stmt]
        raise AssertionError(f"unhandled statement {type(stmt).__name__}")

    def if_(self, stmt: If, future: frozenset[str]) -> If:
        cond = self.expr(stmt.cond, stmt.span)
        then_body, then_yield = _split_yield(stmt.body, self.prefix)
        else_body, else_yield = _split_yield(stmt.orelse, self.prefix)
        before = dict(self.current)
        new_then = self.block(then_body, future)
        then_values = self.yield_values(then_yield)
        after_then = dict(self.current)
        self.current = dict(before)
        new_else = self.block(else_body, future)
        else_values = self.yield_values(else_yield)
        after_else = dict(self.current)
        self.current = dict(before)
        merged = sorted(
            n
            for n in set(after_then) | set(after_else)
            if (n in before and (after_then.get(n) != before[n] or after_else.get(n) != before[n]))
            or (n not in before and n in after_then and n in after_else)
        )
        own = then_yield.targets if then_yield is not None else ()
        others = else_yield.targets if else_yield is not None else ()
        if own != others:
            # `if c: r = pl.yield_(v)` with no yield of `r` on the other path: the `if` gives `r`
            # no value there, and the phis below would have nothing to put in that branch's yield
            self.declined.append(
                Declined(
                    stmt.span,
                    (own or others)[0],
                    "is yielded by one branch of this `if` and not the other, so it has no value on the other path",
                )
            )
            merged, own = [], own or others
        if merged and own:
            self.declined.append(
                Declined(
                    stmt.span,
                    merged[0],
                    "is rebound inside an `if` that yields values of its own (ConvertToSSA would overwrite those yields)",
                )
            )
            merged = []
        phis = []
        for n in merged:
            then_var, else_var = after_then.get(n, before.get(n)), after_else.get(n, before.get(n))
            phi = self.bind(n, "phi", self.types.get(then_var or ""))
            self.synthesized.add(phi)
            phis.append((phi, then_var, else_var))
        typed = then_yield or else_yield
        own_targets = tuple(self.bind(n, "rv", typed.type if typed else None) for n in own)
        new_then = new_then + self.yield_stmt(
            then_yield, own_targets, then_values, [(p, t) for p, t, _ in phis], stmt.span
        )
        new_else = new_else + self.yield_stmt(
            else_yield, own_targets, else_values, [(p, e) for p, _, e in phis], stmt.span
        )
        return replace(stmt, cond=cond, body=new_then, orelse=new_else)

    def yield_values(self, stmt: Assign | None) -> tuple[Expr, ...]:
        if stmt is None:
            return ()
        assert isinstance(stmt.value, Call)
        return tuple(self.expr(a, stmt.span) for a in stmt.value.args)

    def yield_stmt(
        self,
        original: Assign | None,
        own: tuple[str, ...],
        values: tuple[Expr, ...],
        added: list[tuple[str, str | None]],
        span: Span,
    ) -> tuple[Stmt, ...]:
        targets = own + tuple(name for name, _ in added)
        if not targets:
            return ()
        # a branch yielding fewer values than the `if` has (declined above) yields free names
        # for the rest, so the statement stays well-formed for the stages after versioning
        free = tuple(Name(f"{self.printed[n]}__FREE_VAR") for n in own[len(values) :])
        values = (values + free)[: len(own)]
        args = values + tuple(
            Name(value) if value is not None else Name(f"{name}__FREE_VAR") for name, value in added
        )
        t = None
        if len(targets) == 1 and original is not None:
            t = original.type
        elif len(targets) == 1 and added:
            t = self.type(self.types.get(added[0][1] or ""))
        call = Call(f"{self.prefix}.yield_", args, span=span)
        base = original if original is not None else Assign((), None, call, span=span)
        return (replace(base, targets=targets, type=t, value=call),)

    def loop_names(
        self, body: tuple[Stmt, ...], own: tuple[str, ...], index: str | None, future: frozenset[str]
    ) -> list[str]:
        assigned = _assigned(body, self.prefix) - set(own) - ({index} if index else set())
        return sorted(n for n in assigned if n in self.current or n in future)

    def carry_in(self, names: list[str], span: Span) -> list[tuple[str, str, str, Expr]]:
        """(name, iteration argument, loop result, initial value) for each name the loop carries."""
        out = []
        for n in names:
            init: Expr = Name(self.current[n]) if n in self.current else Name(f"{n}__FREE_VAR")
            if n not in self.current:
                self.declined.append(
                    Declined(
                        span,
                        n,
                        f"is first bound inside this loop and read after it, so the loop carries it out with no value before the first iteration (ConvertToSSA starts it at `{n}__FREE_VAR`)",
                    )
                )
            t = self.types.get(self.current.get(n, ""))
            iter_arg, result = self.fresh(n, "iter"), self.fresh(n, "rv")
            self.types[iter_arg] = self.types[result] = t
            self.synthesized.update((iter_arg, result))
            out.append((n, iter_arg, result, init))
        return out

    def loop_body(
        self,
        body: tuple[Stmt, ...],
        carried: list[tuple[str, str, str, Expr]],
        own_yield: Assign | None,
        future: frozenset[str],
        span: Span,
    ) -> tuple[tuple[Stmt, ...], tuple[Expr, ...]]:
        """The converted body and the values it yields (its own first, then the carried names)."""
        new_body = self.block(body, future)
        values = self.yield_values(own_yield)
        carried_values = []
        for n, _iter, _result, _init in carried:
            last = self.current.get(n)
            if self.types.get(_iter) is None and last is not None:  # an escaping name: its final type
                self.types[_iter] = self.types[_result] = self.types.get(last)
            if last is None:
                self.declined.append(
                    Declined(span, n, "is carried by this loop but bound on only some paths through its body")
                )
            carried_values.append(Name(last) if last is not None else Name(f"{n}__FREE_VAR"))
        return new_body, values + tuple(carried_values)

    def for_(self, stmt: For, future: frozenset[str]) -> For:
        iterable = self.expr(stmt.iterable, stmt.span)
        body, own_yield = _split_yield(stmt.body, self.prefix)
        own = own_yield.targets if own_yield is not None else ()
        before = dict(self.current)
        carried = self.carry_in(self.loop_names(body, stmt.iter_args, stmt.index, future), stmt.span)
        for ia in stmt.iter_args:
            self.current[ia] = ia
        for n, iter_arg, _result, _init in carried:
            self.current[n] = iter_arg
        index = None
        if stmt.index is not None:
            index = self.fresh(stmt.index, "idx", version=0)
            self.current[stmt.index] = index
        new_body, values = self.loop_body(body, carried, own_yield, future, stmt.span)
        self.current = before
        for name in own:
            self.current[name] = name
        for n, _iter, result, _init in carried:
            self.current[n] = result
        if not carried:
            return replace(
                stmt, index=index, iterable=iterable, body=new_body + self.own_yield(own_yield, values)
            )
        if not isinstance(iterable, Call):
            # `for i in xs:` has no init_values to carry a rebound name in: ConvertToSSA reads
            # only the DSL's loop calls, so there is no single value to analyse.
            self.declined.append(
                Declined(
                    stmt.span,
                    carried[0][0],
                    "is rebound in a loop that is no DSL loop call, so nothing can carry it",
                )
            )
            return replace(stmt, index=index, iterable=iterable, body=new_body)
        iter_args = stmt.iter_args + tuple(ia for _n, ia, _r, _i in carried)
        iterable = _with_inits(iterable, tuple(init for *_rest, init in carried))
        results = own + tuple(r for _n, _ia, r, _i in carried)
        return replace(
            stmt,
            index=index,
            iter_args=iter_args,
            carried=True,
            iterable=iterable,
            body=new_body + (self.loop_yield(own_yield, results, values, stmt.span),),
        )

    def while_(self, stmt: While, future: frozenset[str]) -> Stmt:
        before = dict(self.current)
        carried = self.carry_in(self.loop_names(stmt.body, (), None, future), stmt.span)
        for n, iter_arg, _result, _init in carried:
            self.current[n] = iter_arg
        cond = self.expr(stmt.cond, stmt.span)
        new_body, values = self.loop_body(stmt.body, carried, None, future, stmt.span)
        self.current = before
        for n, _iter, result, _init in carried:
            self.current[n] = result
        if not carried:
            return replace(stmt, cond=cond, body=new_body)
        self.whiles.add(stmt.span)
        inits = TupleExpr(tuple(init for *_rest, init in carried))
        head = ExprStmt(Call(f"{self.prefix}.cond", (cond,), span=stmt.span), span=stmt.span)
        results = tuple(r for _n, _ia, r, _i in carried)
        return For(
            None,
            tuple(ia for _n, ia, _r, _i in carried),
            True,
            Call(f"{self.prefix}.while_", (), (Keyword("init_values", inits),), span=stmt.span),
            (head, *new_body, self.loop_yield(None, results, values, stmt.span)),
            comments=stmt.comments,
            span=stmt.span,
        )

    def own_yield(self, original: Assign | None, values: tuple[Expr, ...]) -> tuple[Stmt, ...]:
        if original is None:
            return ()
        assert isinstance(original.value, Call)
        return (replace(original, value=replace(original.value, args=values)),)

    def loop_yield(
        self, original: Assign | None, results: tuple[str, ...], values: tuple[Expr, ...], span: Span
    ) -> Assign:
        t = self.types.get(results[0]) if len(results) == 1 and original is None else None
        if original is not None and len(results) == 1:
            t = original.type
        call = Call(f"{self.prefix}.yield_", values, span=span)
        if original is not None:
            return replace(original, targets=results, type=t, value=replace(original.value, args=values))  # type: ignore[arg-type]
        return Assign(results, t, call, span=span)


# ---------------------------------------------------------------------------------- unversioning


def _strip(body: tuple[Stmt, ...], v: VersionedFunction, prefix: str) -> tuple[Stmt, ...]:
    """The body without the iteration arguments, loop results and phis versioning added."""
    out: list[Stmt] = []
    for stmt in body:
        match stmt:
            case For() if stmt.span in v.whiles and stmt.index is None and stmt.body:
                head, *rest = stmt.body
                assert isinstance(head, ExprStmt) and isinstance(head.value, Call)
                kept = _strip_yield(tuple(rest), v, prefix)
                out.append(
                    While(head.value.args[0], _strip(kept, v, prefix), comments=stmt.comments, span=stmt.span)
                )
            case For():
                keep = [i for i, ia in enumerate(stmt.iter_args) if ia not in v.synthesized]
                iterable = stmt.iterable
                if isinstance(iterable, Call) and len(keep) != len(stmt.iter_args):
                    init = iterable.kwarg("init_values")
                    inits = init.elts if isinstance(init, TupleExpr) else ()
                    iterable = _with_inits(
                        iterable, tuple(inits[i] for i in keep if i < len(inits)), replace_all=True
                    )
                body = _strip(_strip_yield(stmt.body, v, prefix), v, prefix)
                iter_args = tuple(stmt.iter_args[i] for i in keep)
                # a loop whose every iteration argument versioning added had none in the dump
                only_added = bool(stmt.iter_args) and not keep
                carried = bool(iter_args) or (stmt.carried and not only_added)
                out.append(replace(stmt, iter_args=iter_args, carried=carried, iterable=iterable, body=body))
            case If():
                then = _strip(_strip_yield(stmt.body, v, prefix), v, prefix)
                orelse = _strip(_strip_yield(stmt.orelse, v, prefix), v, prefix)
                out.append(replace(stmt, body=then, orelse=orelse))
            case While() | With():
                out.append(replace(stmt, body=_strip(stmt.body, v, prefix)))
            case _:
                out.append(stmt)
    return tuple(out)


def _strip_yield(body: tuple[Stmt, ...], v: VersionedFunction, prefix: str) -> tuple[Stmt, ...]:
    rest, last = _split_yield(body, prefix)
    if last is None:
        return body
    assert isinstance(last.value, Call)
    keep = [i for i, t in enumerate(last.targets) if t not in v.synthesized]
    if not keep:
        return rest
    if len(keep) == len(last.targets):
        return body
    args = tuple(last.value.args[i] for i in keep)
    targets = tuple(last.targets[i] for i in keep)
    return rest + (
        replace(
            last,
            targets=targets,
            type=last.type if len(keep) == 1 else None,
            value=replace(last.value, args=args),
        ),
    )


def _derived_spellings(fn: Function, v: VersionedFunction) -> dict[str, str]:
    """New bindings a rewrite named after a versioned one (`t__ssa_v0_guarded_0`) spelled after
    the dump's name instead (`t_guarded_0`), unless that name is taken."""
    bound = bound_names(fn.body) | {p.name for p in fn.params}
    taken = {v.printed.get(n, n) for n in bound}
    out: dict[str, str] = {}
    for name in sorted(bound - set(v.printed)):
        base = max((k for k in v.printed if name.startswith(k + "_")), key=len, default=None)
        if base is not None and (spelled := v.printed[base] + name[len(base) :]) not in taken:
            out[name] = spelled
            taken.add(spelled)
    return out


def _spelling(printed: dict[str, str]) -> Callable[[str], str]:
    return lambda name: printed.get(name, name)


def _clashing(new_params: list[str], fn: Function, printed: dict[str, str]) -> set[str]:
    """New parameters whose printed name some other binding of `fn` prints too."""
    names = [p.name for p in fn.params] + sorted(bound_names(fn.body))
    shown: dict[str, list[str]] = {}
    for n in names:
        shown.setdefault(printed.get(n, n), []).append(n)
    return {p for p in new_params if len(shown.get(printed.get(p, p), ())) > 1}


def _alpha_equivalent(a: Function, b: Function) -> bool:
    """Whether `a` and `b` are one function up to the names they bind (each bound name standing
    for its place in binding order, parameters first), compared in one walk of both trees
    rather than by building each renamed."""
    order_a, order_b = _binding_order(a), _binding_order(b)

    def same(x: str | None, y: str | None) -> bool:
        return (order_a.get(x, x) if x is not None else None) == (
            order_b.get(y, y) if y is not None else None
        )

    stack: list[tuple[Any, Any]] = [(a, b)]  # pairs of one type (checked first)
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, tuple):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, Name):
            if not same(x.id, y.id):
                return False
        elif isinstance(x, Opaque):
            ours = rename(x, {n: f"#{order_a[n]}" for n in x.names if n in order_a})
            theirs = rename(y, {n: f"#{order_b[n]}" for n in y.names if n in order_b})
            if (ours.text, ours.names) != (theirs.text, theirs.names):
                return False
        elif (names := node_fields(type(x))) is not None:
            binding = _BINDING_FIELDS.get(type(x), ())
            for name in names:
                u, v = getattr(x, name), getattr(y, name)
                if name not in binding:
                    if type(u) in _LEAVES:  # compared here: a third of the pairs, never pushed
                        if type(u) is not type(v) or u != v:
                            return False
                    else:
                        stack.append((u, v))
                elif isinstance(u, tuple):
                    if len(u) != len(v) or not all(map(same, u, v)):
                        return False
                elif not same(u, v):
                    return False
        elif x != y:
            return False
    return True


# values no walk descends into: compared as they are (a name there is no use: uses are `Name`s)
_LEAVES = frozenset((str, int, float, bool, type(None)))

# the fields of a node that name what it binds (compared through the binding order)
_BINDING_FIELDS: dict[type, tuple[str, ...]] = {
    Assign: ("targets",),
    For: ("index", "iter_args"),
    With: ("as_name",),
    Param: ("name",),
}


def _binding_order(fn: Function) -> dict[str, int]:
    order: dict[str, int] = {}
    for name in [p.name for p in fn.params] + bindings(fn.body):
        order.setdefault(name, len(order))
    return order


def _rename_function(fn: Function, name: Callable[[str], str]) -> Function:
    """Every name of `fn`, bound or used, renamed by `name` (uses first, then binding sites)."""

    def use(n: str) -> Expr | None:
        new = name(n)
        return None if new == n else Name(new)

    params = tuple(replace(p, name=name(p.name), type=substitute(p.type, use)) for p in fn.params)
    return replace(fn, params=params, body=_rename_bindings(substitute(fn.body, use), name))


def _rename_bindings(body: tuple[Stmt, ...], name: Callable[[str], str]) -> tuple[Stmt, ...]:
    return tuple(map_bodies(_rename_sites(stmt, name), lambda b: _rename_bindings(b, name)) for stmt in body)


def _rename_sites(stmt: Stmt, name: Callable[[str], str]) -> Stmt:
    """`stmt` with the names it binds itself (not those of nested bodies) renamed."""
    match stmt:
        case Assign(targets=targets):
            return replace(stmt, targets=tuple(name(t) for t in targets))
        case For(index=index, iter_args=iter_args):
            return replace(
                stmt,
                index=None if index is None else name(index),
                iter_args=tuple(name(a) for a in iter_args),
            )
        case With(as_name=as_name) if as_name is not None:
            return replace(stmt, as_name=name(as_name))
    return stmt


# --------------------------------------------------------------------------------------- helpers


def _split_yield(body: tuple[Stmt, ...], prefix: str) -> tuple[tuple[Stmt, ...], Assign | None]:
    if body and yielded(body[-1], prefix) is not None:
        return body[:-1], body[-1]  # type: ignore[return-value]
    return body, None


def _with_inits(iterable: Expr, inits: tuple[Expr, ...], replace_all: bool = False) -> Expr:
    """`iterable` with its `init_values` extended by `inits` (or replaced, with `replace_all`);
    init_values is printed first among the keywords, as PyPTO prints it."""
    assert isinstance(iterable, Call)
    old = iterable.kwarg("init_values")
    kept = () if replace_all or not isinstance(old, TupleExpr) else old.elts
    others = tuple(k for k in iterable.kwargs if k.name != "init_values")
    values = kept + inits
    if not values:
        return replace(iterable, kwargs=others)
    span = old.span if old is not None else iterable.span
    return replace(
        iterable, kwargs=(Keyword("init_values", TupleExpr(values, span=span), span=span), *others)
    )


def _scope_kind(context: Expr, prefix: str) -> str:
    if isinstance(context, Call) and context.func.startswith(f"{prefix}."):
        return context.func[len(prefix) + 1 :]
    return ""


def _reads(body: Iterable[Stmt]) -> frozenset[str]:
    """Every name a statement list reads (values, conditions, loop headers), nested bodies too."""
    found: set[str] = set()
    for stmt in walk_stmts(tuple(body)):
        match stmt:
            case (
                Assign(value=e)
                | ExprStmt(value=e)
                | If(cond=e)
                | While(cond=e)
                | With(context=e)
                | For(iterable=e)
            ):
                found |= expr_names(e)
            case Return(values=values):
                for v in values:
                    found |= expr_names(v)
    return frozenset(found)


def _live_after(body: tuple[Stmt, ...], after: frozenset[str]) -> list[frozenset[str]]:
    """For each statement, the names read after it before being bound again (ConvertToSSA's
    future needs): only a straight-line binding, in the list itself or a scope in it, kills."""
    out: list[frozenset[str]] = []
    live = set(after)
    for stmt in reversed(body):
        out.append(frozenset(live))
        live = _live_before(stmt, live)
    return out[::-1]


def _live_in(body: tuple[Stmt, ...], live: set[str]) -> set[str]:
    for stmt in reversed(body):
        live = _live_before(stmt, live)
    return live


def _live_before(stmt: Stmt, live: set[str]) -> set[str]:
    """Names read at or after `stmt` before a binding: a loop body or branch reads what it uses
    before binding it there; only straight-line bindings (scopes included) kill."""
    match stmt:
        case Assign(targets=targets, value=value):
            return (live - set(targets)) | expr_names(value)
        case With(context=context, as_name=as_name, body=body):
            return (_live_in(body, set(live)) - {as_name}) | expr_names(context)
        case For(index=index, iter_args=iter_args, iterable=iterable, body=body):
            return live | expr_names(iterable) | (_live_in(body, set()) - {index, *iter_args})
        case While(cond=cond, body=body):
            return live | expr_names(cond) | _live_in(body, set())
        case If(cond=cond, body=body, orelse=orelse):
            return live | expr_names(cond) | _live_in(body, set()) | _live_in(orelse, set())
    return live | _reads((stmt,))


def _assigned(body: tuple[Stmt, ...], prefix: str) -> set[str]:
    """Names a loop body assigns (ConvertToSSA's AssignmentCollector): assignment targets and
    nested loop indices, at any depth; yields bind loop results and phis, not assignments."""
    names: set[str] = set()
    for stmt in walk_stmts(body):
        if isinstance(stmt, Assign) and yielded(stmt, prefix) is None:
            names.update(stmt.targets)
        elif isinstance(stmt, For) and stmt.index is not None:
            names.add(stmt.index)
    return names


def _rebinds(body: tuple[Stmt, ...], seen: set[str], prefix: str) -> bool:
    for stmt in body:
        match stmt:
            case Assign(targets=targets) if yielded(stmt, prefix) is None:
                if any(t in seen for t in targets):
                    return True
                seen.update(targets)
            case For(index=index, iter_args=iter_args, body=inner):
                new = ([index] if index else []) + list(iter_args)
                if any(n in seen for n in new):
                    return True
                seen.update(new)
                if _rebinds(inner, seen, prefix):
                    return True
                _, last = _split_yield(inner, prefix)
                seen.update(last.targets if last else ())
            case If(body=then, orelse=orelse):
                then_seen, else_seen = set(seen), set(seen)
                if _rebinds(then, then_seen, prefix) or _rebinds(orelse, else_seen, prefix):
                    return True
                if (then_seen - seen) & (else_seen - seen) - _yield_targets(then, prefix):
                    return True
                seen |= then_seen | else_seen | _yield_targets(then, prefix) | _yield_targets(orelse, prefix)
            case While(body=inner) | With(body=inner):
                if isinstance(stmt, With) and stmt.as_name is not None:
                    if stmt.as_name in seen:
                        return True
                    seen.add(stmt.as_name)
                if _rebinds(inner, seen, prefix):
                    return True
    return False


def _yield_targets(body: tuple[Stmt, ...], prefix: str) -> set[str]:
    _, last = _split_yield(body, prefix)
    return set(last.targets) if last else set()


# ------------------------------------------------------------------------------------- programs


def version_program(program: Program, kinds: frozenset[str]) -> tuple[Program, dict[str, VersionedFunction]]:
    """The program with every function of `kinds` that is not in SSA form versioned; the others
    (already SSA, or kernels read only by signature) stay as they are."""
    versions = {
        fn.name: version_function(fn, program.prefix)
        for fn in program.functions
        if fn.type in kinds and needs_versioning(fn, program.prefix)
    }
    if not versions:
        return program, versions
    functions = tuple(versions[f.name].function if f.name in versions else f for f in program.functions)
    return replace(program, functions=functions), versions


def unversion_program(rewritten: Program, source: Program, versions: dict[str, VersionedFunction]) -> Program:
    """A rewritten versioned program in the dump's own style: a function nobody changed is the
    one the dump holds (so it prints byte-for-byte), a changed one goes back to the dump's names."""
    if not versions:
        return rewritten
    original = {f.name: f for f in source.functions}
    functions = []
    for fn in rewritten.functions:
        v = versions.get(fn.name)
        if v is None:
            functions.append(fn)
        elif fn == v.function:
            functions.append(original[fn.name])
        else:
            functions.append(unversion_function(fn, v, source.prefix) or fn)
    return replace(rewritten, functions=tuple(functions), layout=source.layout)
