"""What PyPTO's parser would refuse, and what the rules cannot run on: checked before the rules.

`ast` reads far more than PyPTO's parser (`pl.parse`) accepts, and the rules assume what that
parser guarantees: every call names a function of the program with the right number of
arguments, parameters are distinct, every integer constant fits INT64.  Recursion (a function
that calls or launches itself, directly or through others) PyPTO's parser does accept, but no
runtime can execute it and the rules' provenance through a callee's returns would chase itself:
it is found here, on the call graph, so no rule ever sees a cyclic call graph.  A binding without
a type annotation inside a Graph cannot be hoisted (a new parameter needs a type) and is said so
rather than silently left in place.  What Python's own compiler refuses (`break` outside a loop,
`await`, a `return` in the class body, ...) or turns into something else (`yield` makes a
generator) PyPTO's parser refuses too: IR407-IR409, at the line the compiler names.  A launch's
`core_num` that is not an integer expression (`core_num=2.5`) is SP304: no block count to prove.
A `# pypto.program:` header naming another program than the class is a warning (IR410): the class
is the name PyPTO reads, and the header is kept as written.  So is an identical copy of the
program in the same text (IR415): it is one program, read once and written once.

Any error here stops the analysis before the rules run (`pipeline.analyze`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

from legalog.analyzer.diagnostics import Diagnostic, diagnostic
from legalog.digraph import strongly_connected_components
from legalog.ir.fold import INT_DTYPES, fold, in_int64
from legalog.ir.model import (
    ArrayType,
    Assign,
    BinOp,
    Call,
    Const,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Jump,
    ListExpr,
    Name,
    Opaque,
    OtherType,
    Program,
    Return,
    ScalarType,
    Span,
    Stmt,
    TensorType,
    TupleExpr,
    TupleType,
    Type,
    UnaryOp,
    While,
    With,
)
from legalog.ir.patterns import (
    LOOP_KINDS,
    call_target,
    core_num,
    group_call,
    is_loop_iterator,
    is_python_body,
    is_yield,
    loop_kind,
    yielded,
)
from legalog.ir.transform import CHILD_FIELDS, walk_stmts

_OUTPUT_DIRECTIONS = ("Out", "InOut")


def wellformed_diagnostics(program: Program) -> list[Diagnostic]:
    """Every violation, in source order."""
    # each body walked once, for every check that reads its nodes or its statements (a third
    # of the checks' time at 1 MB was walking the same trees again)
    read = [_read(fn) for fn in program.functions]
    sites = {r.fn.name: list(_call_sites(program, r.calls)) for r in read}
    found = [
        *_duplicates(program),
        *_calls(program, sites),
        *_recursion(program, sites),
        *_integers(program, read),
        *_unannotated(program, read),
        *_python_loops(program, read),
        *_loop_carries(program, read),
        *_branch_yields(program, read),
        *_undefined_names(program, read),
        *_refused(program),
        *_header(program),
        *_shadowed(program),
        *_core_nums(program, read),
    ]
    return sorted(found, key=lambda d: d.sort_key)


Sites = dict[str, list[tuple[Call, str, str]]]

_STMT_KINDS = (Assign, ExprStmt, For, While, If, With, Return, Jump)


class _Read(NamedTuple):
    """One function as the checks read it: the nodes of its body (types included) that some
    check reads, each kind in pre-order."""

    fn: Function
    stmts: list[Stmt]  # nested bodies included, in `walk_stmts`' order
    calls: list[Call]
    numbers: list[Const | BinOp | UnaryOp]  # what may fold to an integer constant
    python: bool  # a host SubWorker's body: Python PyPTO runs as written, no IR


def _read(fn: Function) -> _Read:
    stmts: list[Stmt] = []
    calls: list[Call] = []
    numbers: list[Const | BinOp | UnaryOp] = []
    # each kind's list by its exact class (the model's classes are final): one lookup a node
    kept: dict[type, list[Any]] = {Call: calls, Const: numbers, BinOp: numbers, UnaryOp: numbers}
    kept.update(dict.fromkeys(_STMT_KINDS, stmts))
    into = kept.get
    # a statement's own expressions come before its nested bodies in its fields, so the
    # statements among the nodes are in `walk_stmts`' order
    for node in _nodes(fn.body):
        if (bucket := into(type(node))) is not None:
            bucket.append(node)
    return _Read(fn, stmts, calls, numbers, is_python_body(fn))


# ------------------------------------------------------------------------------ call sites


class _Children(dict[type, tuple[Callable[[object], Any] | None, bool] | None]):
    """Per class, its children as one getter (`CHILD_FIELDS`, last first, the order a walk's
    stack pushes them) and whether it gives several (a tuple); None for a class that is no IR
    node.  One C call a node instead of a `getattr` a field in the walk's loop."""

    def __missing__(self, kind: type) -> tuple[Callable[[object], Any] | None, bool] | None:
        names = CHILD_FIELDS[kind]
        entry = None if names is None else (attrgetter(*names[::-1]) if names else None, len(names) > 1)
        self[kind] = entry
        return entry


_CHILDREN = _Children()


def _nodes(node: object) -> list[object]:
    """Every IR node under `node` (expressions, types, statements), pre-order."""
    found: list[object] = []
    stack: list[Any] = [node]
    keep, push, pop, children = found.append, stack.append, stack.pop, _CHILDREN
    while stack:
        item = pop()
        if type(item) is tuple:
            stack += item[::-1]
        elif (entry := children[type(item)]) is not None:
            keep(item)
            get, several = entry
            if get is None:
                continue
            if several:
                stack += get(item)
            else:
                push(get(item))
    return found


def _call_sites(program: Program, calls: list[Call]) -> Iterator[tuple[Call, str, str]]:
    """(call, callee, form) for every call or launch of a program function among a body's calls."""
    for node in calls:
        if (target := call_target(node, program.prefix)) is not None:
            yield node, target.callee, target.form


def _at(code: str, span: Span, message: str, function: str | None, subject: str | None = None) -> Diagnostic:
    return diagnostic(code, message, span.line, span.col, function=function, subject=subject)


def _calls(program: Program, sites: Sites) -> Iterator[Diagnostic]:
    """PyPTO's parser: the callee exists, and a call passes exactly its parameters; a Submit may
    leave out Out/InOut parameters (the runtime allocates them) but never passes more."""
    functions = {f.name: f for f in program.functions}
    for fn in program.functions:
        for call, name, form in sites[fn.name]:
            callee = functions.get(name)
            if callee is None:
                yield _at(
                    "IR402",
                    call.span,
                    f"`{fn.name}` {'calls' if form == 'call' else 'launches'} `{name}`, "
                    "which the program does not define",
                    fn.name,
                    name,
                )
                continue
            got = len(call.args) - (form != "call")
            most = len(callee.params)
            least = (
                most if form == "call" else sum(p.direction not in _OUTPUT_DIRECTIONS for p in callee.params)
            )
            if form == "call" and got < most and callee.type == "Graph":
                continue  # a Graph call site missing parameters is GB115, the pass's own diagnostic
            if not least <= got <= most:
                expected = str(most) if least == most else f"{least}..{most}"
                yield _at(
                    "IR401",
                    call.span,
                    f"`{name}` takes {expected} argument(s), but this "
                    f"{'call' if form == 'call' else form} passes {got}",
                    fn.name,
                    name,
                )


def _duplicates(program: Program) -> Iterator[Diagnostic]:
    seen_functions: set[str] = set()
    for fn in program.functions:
        if fn.name in seen_functions:
            yield _at(
                "IR403", fn.span, f"function `{fn.name}` is defined twice in the program", fn.name, fn.name
            )
        seen_functions.add(fn.name)
        seen: set[str] = set()
        for p in fn.params:
            if p.name in seen:
                yield _at(
                    "IR403", p.span, f"`{fn.name}` declares parameter `{p.name}` twice", fn.name, p.name
                )
            seen.add(p.name)


# -------------------------------------------------------------------------------- recursion


def _recursion(program: Program, sites: Sites) -> Iterator[Diagnostic]:
    """A call inside a cycle of the call graph (Tarjan's strongly connected components, so a
    cycle through any number of functions is found in linear time)."""
    functions = {f.name: f for f in program.functions}
    edges: dict[str, list[tuple[str, Call]]] = {
        fn.name: [(callee, call) for call, callee, _form in sites[fn.name] if callee in functions]
        for fn in program.functions
    }
    component = _components({f: [c for c, _ in out] for f, out in edges.items()})
    for fn in program.functions:
        for callee, call in edges[fn.name]:
            if component[callee] != component[fn.name]:
                continue
            cycle = _cycle(edges, callee, fn.name, component)
            path = " -> ".join(f"`{n}`" for n in (fn.name, *cycle))
            verb = "launches" if not call.func.startswith("self.") else "calls"
            if fn.type == "Graph":
                message = f"Graph function `{fn.name}` {verb} a Graph through its own call chain ({path}): nested graphs are not supported"
                yield _at("GB114", call.span, message, fn.name, callee)
            else:
                yield _at(
                    "IR405",
                    call.span,
                    f"`{fn.name}` {verb} itself through {path}: recursion cannot run",
                    fn.name,
                    callee,
                )


def _components(graph: dict[str, list[str]]) -> dict[str, int]:
    """Each node's strongly connected component: an edge lies on a cycle exactly when both ends
    share one (a node alone without a self-loop is a component of its own)."""
    return {m: i for i, members in enumerate(strongly_connected_components(graph, graph)) for m in members}


def _cycle(
    edges: dict[str, list[tuple[str, Call]]], start: str, goal: str, component: dict[str, int]
) -> list[str]:
    """The shortest path start -> ... -> goal inside their component (breadth first)."""
    previous: dict[str, str | None] = {start: None}
    queue = [start]
    for node in queue:
        if node == goal:
            break
        for nxt, _call in edges[node]:
            if nxt not in previous and component[nxt] == component[goal]:
                previous[nxt] = node
                queue.append(nxt)
    path: list[str] = []
    step: str | None = goal
    while step is not None:
        path.append(step)
        step = previous.get(step)
    return list(reversed(path))


# --------------------------------------------------------------------------------- integers


def _integers(program: Program, read: list[_Read]) -> Iterator[Diagnostic]:
    """An integer constant outside INT64, as written or as PyPTO folds it (`ConstInt` is an
    int64): reported once, at the outermost expression that folds out of range."""
    for fn, _stmts, _calls, numbers, _python in read:
        memo: dict[int, int | None] = {}
        reported: list[Span] = []
        for node in itertools.chain(_nodes((fn.params, fn.returns)), numbers):
            if type(node) is Const:  # most nodes: a literal alone folds to itself
                value = node.value if type(node.value) is int else None
            elif type(node) is BinOp or type(node) is UnaryOp:  # PyPTO's parser folds no call
                value = fold(node, program.prefix, memo, literals_only=True)
            else:
                continue
            if value is not None and not in_int64(value) and not any(_inside(node.span, r) for r in reported):
                reported.append(node.span)
                yield _at(
                    "IR404",
                    node.span,
                    f"an integer constant in `{fn.name}` does not fit INT64 "
                    "(PyPTO's ConstInt is a 64-bit integer)",
                    fn.name,
                )


def _inside(span: Span, outer: Span) -> bool:
    return (outer.line, outer.col) <= (span.line, span.col) and (span.end_line, span.end_col) <= (
        outer.end_line,
        outer.end_col,
    )


# ------------------------------------------------------------------------- Graph annotations


def _unannotated(program: Program, read: list[_Read]) -> Iterator[Diagnostic]:
    """A Graph binding without a type, where the pass needs one: Step A-C would need its type
    for the new parameter, and a value the pass cannot type is a value it cannot judge.
    Loop-carried merges (`a, b = pl.yield_(...)`) carry their types on the loop, and a launch's
    results (`out, tid = pl.submit(...)`, which Python cannot annotate) are never hoisted and
    take the callee's return types (and a TaskId): neither is a binding of this kind."""
    for fn, stmts, _calls, _numbers, _python in read:
        if fn.type != "Graph":
            continue
        for stmt in stmts:
            if isinstance(stmt, Assign) and stmt.type is None:
                if is_yield(stmt.value, program.prefix) or _launches(stmt.value, program.prefix):
                    continue
                names = ", ".join(f"`{t}`" for t in stmt.targets)
                yield _at(
                    "IR406",
                    stmt.span,
                    f"{names} in Graph function `{fn.name}` is bound without a type "
                    "annotation, so the pass cannot type (or hoist) it",
                    fn.name,
                    stmt.targets[0],
                )


def _launches(value: Expr, prefix: str) -> bool:
    return isinstance(value, Call) and (call_target(value, prefix) or group_call(value)) is not None


# ---------------------------------------------------------------------------- Python loops


def _python_loops(program: Program, read: list[_Read]) -> Iterator[Diagnostic]:
    """A `for` over anything but a PyPTO loop (`for x in xs:`, `for i in range(4):`): PyPTO's
    parser refuses it at the iterator, and versioning would have no iteration arguments to carry
    what the body rebinds.  A host SubWorker's body is Python PyPTO runs as written: any loop."""
    for fn, stmts, _calls, _numbers, python in read:
        if python:
            continue
        for stmt in stmts:
            if isinstance(stmt, For) and not is_loop_iterator(stmt.iterable):
                yield _at(
                    "IR411",
                    stmt.iterable.span,
                    f"a `for` loop in `{fn.name}` iterates over a Python value, not a PyPTO loop "
                    f"(`{program.prefix}.range(...)`, `{program.prefix}.while_(...)`, ...)",
                    fn.name,
                )


def _loop_carries(program: Program, read: list[_Read]) -> Iterator[Diagnostic]:
    """A counted or `pl.while_` loop whose carried values do not pair up, as PyPTO's parser
    checks them: one iteration argument per initial value (a carried target needs
    `init_values`, `init_values` a carried target), and, where the body yields by assignment,
    one bound result per iteration argument; with `init_values`, no bare `pl.yield_(...)`.  The
    facts pair the three positionally: unmatched, the rules would carry the wrong value."""
    prefix = program.prefix
    for fn, stmts, _calls, _numbers, python in read:
        if python:
            continue
        for stmt in stmts:
            if not isinstance(stmt, For) or not isinstance(stmt.iterable, Call):
                continue
            if loop_kind(stmt.iterable, prefix) not in (*LOOP_KINDS, "while_"):
                continue
            init = stmt.iterable.kwarg("init_values")
            inits = init.elts if isinstance(init, (TupleExpr, ListExpr)) else None
            at = init.span if init is not None else stmt.iterable.span
            carried = stmt.carried and bool(stmt.iter_args)
            if init is not None and inits is None:
                why = "`init_values` is not a tuple or a list of initial values"
            elif init is not None and not stmt.carried:
                why = "the loop has `init_values` but its target carries no iteration arguments"
            elif carried and len(stmt.iter_args) != len(inits or ()):
                why = f"{len(stmt.iter_args)} iteration argument(s) but {len(inits or ())} initial value(s)"
            elif (bare := _bare_yield(stmt.body, prefix)) is not None and inits:
                why, at = "a bare `pl.yield_(...)` in a loop with `init_values` binds no result", bare.span
            elif inits and (results := _yield_results(stmt.body, prefix)) and len(results) != len(inits):
                why = f"{len(stmt.iter_args)} iteration argument(s) but its `pl.yield_` binds {len(results)} result(s)"
            else:
                continue
            yield _at("IR412", at, f"a loop in `{fn.name}`: {why}", fn.name)


def _branch_yields(program: Program, read: list[_Read]) -> Iterator[Diagnostic]:
    """An `if` whose two branches do not yield the same results.  PyPTO's parser gives the `if`
    every name a yield of either branch binds (its return values), so a branch that yields
    other names, or none (no `else` at all), leaves them without a value on its path: its
    SSAVerify reports MISSING_YIELD or YIELD_COUNT_MISMATCH, and orchestration codegen refuses
    the `if`.  The parser itself accepts it; nothing after it can."""
    prefix = program.prefix
    for fn, stmts, _calls, _numbers, python in read:
        if python:
            continue
        for stmt in stmts:
            if not isinstance(stmt, If):
                continue
            then, orelse = _yield_results(stmt.body, prefix), _yield_results(stmt.orelse, prefix)
            if then == orelse:
                continue
            if not orelse or not then:
                said = f"yields {_names(then or orelse)} from its {'then' if then else 'else'} branch only"
            else:
                said = f"yields {_names(then)} from its then branch but {_names(orelse)} from its else branch"
            yield _at(
                "IR414",
                stmt.span,
                f"an `if` in `{fn.name}` {said}: every result of an `if` needs a value on both paths",
                fn.name,
                (then or orelse)[0],
            )


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _loop_level(body: tuple[Stmt, ...]) -> Iterator[Stmt]:
    """A loop body's statements at the loop's own level: a scope (`with`) is no level of its
    own for PyPTO's parser, a nested loop or branch is (it takes its own yields)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, With):
            yield from _loop_level(stmt.body)


def _yield_results(body: tuple[Stmt, ...], prefix: str) -> list[str]:
    return [
        t
        for s in _loop_level(body)
        if isinstance(s, Assign) and yielded(s, prefix) is not None
        for t in s.targets
    ]


def _bare_yield(body: tuple[Stmt, ...], prefix: str) -> ExprStmt | None:
    return next((s for s in _loop_level(body) if isinstance(s, ExprStmt) and is_yield(s.value, prefix)), None)


# --------------------------------------------------------------------------- undefined names

_TYPES = frozenset((ScalarType, TensorType, ArrayType, TupleType, OtherType))


def _undefined_names(program: Program, read: list[_Read]) -> Iterator[Diagnostic]:
    """A name a statement reads before anything binds it (a warning: older printers wrote such
    reads): PyPTO's parser resolves a name from its scopes, then from the module, and refuses it
    otherwise.  Checked wide, never stricter than the parser: every binding counts from where it
    stands on, in source order, whatever scope it is in (the parser's scopes hide more); names in
    types are not checked (the parser makes a dimension of an unknown one), nor dotted or opaque
    text, nor a host SubWorker's Python body.  Once per name a function."""
    layout = program.layout
    module = set(program.dynamic_dims) | (set(layout.module_names) if layout is not None else set())
    for fn, stmts, _calls, _numbers, python in read:
        if python:
            continue
        bound = module | {p.name for p in fn.params}
        reported: set[str] = set()
        for stmt in stmts:
            for name in _reads(stmt):
                if name.id not in bound and name.id not in reported:
                    reported.add(name.id)
                    yield _at(
                        "IR413",
                        name.span,
                        f"`{name.id}` is read in `{fn.name}` where nothing binds it yet",
                        fn.name,
                        name.id,
                    )
            bound.update(_binds(stmt, program.prefix))


def _reads(stmt: Stmt) -> list[Name]:
    """The variables a statement's own expressions read (not its nested bodies', nor types),
    last first (the order the names are reported in)."""
    match stmt:
        case Assign(value=value) | ExprStmt(value=value):
            roots: tuple[object, ...] = (value,)
        case For(iterable=iterable):
            roots = (iterable,)
        case While(cond=cond) | If(cond=cond):
            roots = (cond,)
        case With(context=context):
            roots = (context,)
        case Return(values=values):
            roots = values
        case _:
            roots = ()
    # walked first to last, as `_nodes` walks, and turned round: names are leaves, so this is
    # the order a walk popping last children first finds them in
    found: list[Name] = []
    stack: list[Any] = [roots]  # nodes, tuples of them, None
    keep, push, pop, children = found.append, stack.append, stack.pop, _CHILDREN
    while stack:
        node = pop()
        if (kind := type(node)) is Name:
            keep(node)
        elif kind is tuple:
            stack += node[::-1]
        elif kind is Call and group_call(node) is not None:
            push((node.args[1:], node.kwargs))  # the group an older dump names is no variable
        elif kind not in _TYPES and (entry := children[kind]) is not None:
            get, several = entry
            if get is None:
                continue
            if several:
                stack += get(node)
            else:
                push(get(node))
    found.reverse()
    return found


def _binds(stmt: Stmt, prefix: str) -> Iterator[str]:
    """What a statement binds for what follows it: its targets, a loop's index and iteration
    arguments, a scope's `as` name; a carried loop without a yield also `<arg>_out`, the names
    PyPTO's parser gives its results then."""
    match stmt:
        case Assign(targets=targets):
            yield from targets
        case For(index=index, iter_args=iter_args, body=body):
            if index is not None:
                yield index
            yield from iter_args
            if iter_args and not _yield_results(body, prefix):
                yield from (f"{a}_out" for a in iter_args)
        case With(as_name=as_name) if as_name is not None:
            yield as_name


@dataclass(frozen=True, slots=True)
class TypeRead:
    """A name a type reads where nothing binds it."""

    function: str
    owner: str  # the parameter or binding the type annotates; "return" for the return type
    name: str
    span: Span
    in_signature: bool  # a parameter's or the return type


def unbound_type_reads(program: Program) -> Iterator[TypeRead]:
    """Each name a type reads where it is not bound, once per function and name (`_undefined_names`
    leaves types alone).  A signature's types are evaluated by Python itself when `pl.parse`
    executes the `def` in the class body, where only the module's names (and the functions
    defined so far) exist: anything else, a sibling parameter included, is a NameError.  A body's
    types are read by PyPTO's parser, which makes a fresh dynamic dimension of a name it cannot
    resolve, so a type reading a name no earlier statement binds no longer names that value."""
    layout = program.layout
    module = set(program.dynamic_dims) | (set(layout.module_names) if layout is not None else set())
    module |= {fn.name for fn in program.functions}
    for fn in program.functions:
        if is_python_body(fn):
            continue
        seen: set[str] = set()
        signature = [(p.name, p.type) for p in fn.params] + [("return", t) for t in fn.returns or ()]
        for owner, t in signature:
            for name, span in _unbound(t, module, seen):
                yield TypeRead(fn.name, owner, name, span, True)
        bound = module | {p.name for p in fn.params}
        for stmt in walk_stmts(fn.body):
            if isinstance(stmt, Assign) and stmt.type is not None:
                for name, span in _unbound(stmt.type, bound, seen):
                    yield TypeRead(fn.name, stmt.targets[0], name, span, False)
            bound.update(_binds(stmt, program.prefix))


def _unbound(t: Type, bound: set[str], seen: set[str]) -> Iterator[tuple[str, Span]]:
    """The names `t` reads outside `bound` and not in `seen` (added to it), with where.  A
    MemRef's base is no read: PyPTO's parser interns the allocation by its name."""
    bases: set[int] = set()
    for node in _nodes(t):
        if isinstance(node, Call) and node.func.rsplit(".", 1)[-1] == "MemRef" and node.args:
            bases.add(id(node.args[0]))
        elif isinstance(node, (Name, Opaque)) and id(node) not in bases:
            for name in [node.id] if isinstance(node, Name) else sorted(node.names):
                if name not in bound and name not in seen:
                    seen.add(name)
                    yield name, node.span


# ------------------------------------------------------------------ what the compiler refuses

_REFUSAL_CODES = {
    "jump": "IR407",
    "async": "IR408",
    "yield": "IR408",
    "coroutine": "IR408",
    "compile": "IR409",
}
# what the compiler refuses that another code already says, at the same place
_SAID_ELSEWHERE = ("duplicate argument",)  # IR403


def _refused(program: Program) -> Iterator[Diagnostic]:
    """The parser's record of what Python's compiler refuses (or makes a generator or coroutine
    of), each at its line, in the function it sits in (none for the class body)."""
    if program.layout is None:
        return
    for refusal in program.layout.refusals:
        if refusal.message.startswith(_SAID_ELSEWHERE):
            continue
        line = refusal.span.line
        fn = next((f.name for f in program.functions if f.span.line <= line <= f.span.end_line), None)
        where = f"in `{fn}`" if fn is not None else "in the program"
        # an `async def` Python compiles: what refuses it is PyPTO's parser, and the message says so
        said = (
            refusal.message
            if refusal.kind == "coroutine"
            else f"Python refuses this {where}: {refusal.message}"
        )
        yield _at(_REFUSAL_CODES[refusal.kind], refusal.span, said, fn)


def _header(program: Program) -> Iterator[Diagnostic]:
    named = program.layout.header_name if program.layout is not None else None
    if named is not None and named != program.name:
        yield diagnostic(
            "IR410",
            f"the `# pypto.program: {named}` header names another program than the class "
            f"`{program.name}`; the class's name is kept",
            1,
            1,
        )


def _shadowed(program: Program) -> Iterator[Diagnostic]:
    """An earlier program of the same name (two dumps concatenated): a warning at it, since the
    program analysed is the last one, as PyPTO's `pl.parse` returns it."""
    lines = program.layout.shadowed if program.layout is not None else ()
    for line in lines:
        yield diagnostic(
            "IR415",
            f"program `{program.name}` is defined again, identically, further down (dumps "
            "concatenated): it is one program to PyPTO's `pl.parse`, analysed once, and `fix` "
            "writes it once",
            line,
            1,
        )


# ---------------------------------------------------------------------------------- core_num


def _not_integer(count: Expr) -> Const | None:
    """A constant in `count` that makes it other than an integer (a float, a string, a bool,
    None, a typed constant of a non-integer dtype), or None."""
    for node in _nodes(count):
        if not isinstance(node, Const):
            continue
        if isinstance(node.value, bool) or not isinstance(node.value, int):
            return node
        if node.dtype is not None and node.dtype not in INT_DTYPES:
            return node
    return None


def _core_nums(program: Program, read: list[_Read]) -> Iterator[Diagnostic]:
    """SP304: a block count that is not an integer expression is no count the launch can prove
    positive (`core_num = 0 when 2.5 = 0` would be the prover's nonsense), nor one a runtime reads."""
    for fn, _stmts, calls, _numbers, _python in read:
        for node in calls:
            if (count := core_num(node)) is not None and (bad := _not_integer(count)):
                launched = (
                    target.callee if (target := call_target(node, program.prefix)) is not None else node.func
                )
                yield _at(
                    "SP304",
                    count.span,
                    f"the launch of `{launched}` in `{fn.name}` has a core_num with the "
                    f"non-integer constant {bad.value!r}: a block count is an integer",
                    fn.name,
                    launched,
                )
