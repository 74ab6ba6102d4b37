"""Translation validation (`legalog validate`): is AFTER a correct result of one pass on BEFORE?

Five looks, each a TV5xx finding (codes.py) located in AFTER, or in BEFORE when there is no AFTER:

1. AFTER's post-conditions, however it was produced: the GraphBoundaryLegalized verifier and
   Step D run on it again (TV501); every SPMD launch proven positive or guarded (TV502).
2. AFTER readable by PyPTO: a signature reads only the module's names (TV511: `pl.parse`
   executes each `def`, and Python evaluates its annotations in the class body); a body's type
   reads only names bound before it (TV512); nothing PyPTO's parser refuses (TV513).
3. The same decisions as legalog's on BEFORE, compared as PyPTO's `ir.structural_equal` compares
   (`structural.py`: variables by position, never by name): each value a Graph derives hoisted,
   kept or deleted alike, each launch guarded or not alike (TV521); the same boundary, parameters
   and call-site arguments (TV522); nothing else apart in a function the pass rewrites (TV523).
4. Nothing else changed: a function legalog leaves alone is structurally BEFORE's (TV524).
5. The same verdict: legalog rejects BEFORE and yet there is an AFTER (TV531), or accepts it and
   there is none (TV532).

Where the seeds decide otherwise than the version of the pass the reference cases ran
(../shared/reference/README.md names four classes), the difference is TV541, a warning quoting
the seed sentence legalog follows: a reading, not a pass bug.  A post-condition finding in a
function whose decisions already differ is left out: the difference says more about the same
thing (a hoist undone is one finding, not three).

Everything here reads legalog's own IR model, so it applies to a pass output however it reached
legalog (a printed dump, or a PyPTO program once an object frontend reads one).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, Protocol

from legalog.analyzer.codes import PASS_TITLES
from legalog.analyzer.diagnostics import Diagnostic, diagnostic, in_dump_names
from legalog.analyzer.explain import WhyError
from legalog.analyzer.structural import bound_by, canon, canonical_function, shape
from legalog.analyzer.verifier import verify
from legalog.analyzer.wellformed import unbound_type_reads, wellformed_diagnostics
from legalog.extractor.lower import FULL_BODY_KINDS
from legalog.ir.model import (
    Assign,
    Call,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Jump,
    Name,
    Param,
    Program,
    Return,
    ScalarType,
    Span,
    Stmt,
    TensorType,
    While,
    With,
)
from legalog.ir.patterns import call_target, core_num, spmd_scope_count
from legalog.ir.printer import print_expr
from legalog.ir.ssa import version_program
from legalog.ir.transform import bound_names, expr_names

if TYPE_CHECKING:
    from legalog.analyzer.explain import Explanation
    from legalog.analyzer.graph import GraphDecision
    from legalog.analyzer.spmd import LaunchDecision


# The seed sentence legalog follows where the reference's pass version decides otherwise
# (../shared/reference/README.md, "Where the seeds decide differently"), quoted in every TV541.
SEED_READINGS = {
    "out-parameter": (
        "LegalizeGraphBoundary, Step D",
        "Out describes write-only access and is legal with caller-supplied storage. Call-site "
        "OutputExisting and InOut are supported; ArgDirection::Output is rejected because it "
        "requests a new allocation",
    ),
    "view-memref": (
        "LegalizeGraphBoundary, Step B",
        "Step B moves that slice out and passes the result in as an additional boundary tensor",
    ),
    "stronger-proof": (
        "LegalizeSpmdLaunches",
        "This pass uses arith::Analyzer to prove core_num >= 1, including pure scalar SSA bindings, "
        "loop bounds and enclosing branch constraints. Proven-positive launches are unchanged",
    ),
    "never-runs": (
        "LegalizeSpmdLaunches",
        "Otherwise, it emits if core_num > 0; the non-positive path skips the compute launch and "
        "preserves the caller's existing output tensors",
    ),
}


def seed_note(reading: str) -> str:
    where, sentence = SEED_READINGS[reading]
    return f'the pass\'s specification ({where}): "{sentence}"'


class Decided(Protocol):
    """What validation reads of legalog's own analysis of BEFORE, with only the pass validated
    (`legalog.pipeline.Analysis` is one): the decisions room never imports the pipeline."""

    @property
    def status(self) -> str: ...
    @property
    def source(self) -> Program | None: ...  # BEFORE as read
    @property
    def output(self) -> Program | None: ...  # legalog's result, in BEFORE's own names
    @property
    def graphs(self) -> tuple[GraphDecision, ...]: ...
    @property
    def launches(self) -> tuple[LaunchDecision, ...]: ...
    @property
    def errors(self) -> tuple[Diagnostic, ...]: ...
    def explain(self, function: str, var: str) -> Explanation: ...


def validation_findings(
    legalog: Decided,
    after: Program | None,
    pass_name: str,
    runtime: str = "host_build_graph",
    engine: str | None = None,
) -> list[Diagnostic]:
    """Every TV5xx finding on AFTER (None: the pass left no AFTER) as a result of `pass_name`
    ("graph" or "spmd") on the program `legalog` analysed, in AFTER's source order."""
    before = legalog.source
    assert before is not None, "validation needs a BEFORE legalog could read"
    if after is None:
        return _missing_after(legalog, before)
    readable = list(_readability(after, before))
    if legalog.status == "rejected":
        found = [_let_through(legalog, after)]
    else:
        found = _Comparison(legalog, before, after, pass_name).findings()
    if not any(d.code == "TV513" for d in readable):  # the rules assume what the parser checks
        post = postconditions(after, pass_name, runtime, engine)
        found += [d for d in post if not _said(d, found, after)]
    return sorted(readable + found, key=lambda d: d.sort_key)


# the findings that say what each side decided: a post-condition finding on the same thing adds nothing
_DECISIONS = ("TV521", "TV522", "TV541")


def _said(post: Diagnostic, found: Sequence[Diagnostic], after: Program) -> bool:
    """Whether a post-condition finding is what a decision difference already says: in the same
    function, at the same line or about the same value, or about the whole function (at its `def`)."""
    mine = [d for d in found if d.function == post.function and d.code in _DECISIONS]
    fn = after.function(post.function or "")
    whole = post.subject is None and fn is not None and post.line == fn.span.line
    return any(d.line == post.line or (post.subject and d.subject == post.subject) or whole for d in mine)


# ------------------------------------------------------------------------------------- verdicts


def _missing_after(legalog: Decided, before: Program) -> list[Diagnostic]:
    """No AFTER: right when legalog rejects BEFORE too; otherwise TV532, or TV541 where the
    reference's version refuses an Out Graph parameter that the seeds accept."""
    if legalog.status == "rejected":
        return []
    outs = [
        (fn, p) for fn in before.functions if fn.type == "Graph" for p in fn.params if p.direction == "Out"
    ]
    if outs:
        fn, p = outs[0]
        return [
            diagnostic(
                "TV541",
                f"the pass left no AFTER, and Graph `{fn.name}` declares parameter `{p.name}` as Out: a version "
                f"that refuses an Out Graph parameter ('the runtime allocates it') reads Step D otherwise than "
                f"legalog, which accepts it; {seed_note('out-parameter')}",
                p.span.line,
                p.span.col,
                function=fn.name,
                subject=p.name,
            )
        ]
    changed = _changed_functions(before, legalog.output or before)
    where = next((fn for fn in before.functions if fn.name in changed), None) or _first(before)
    did = f"rewrites {_names(changed)}" if changed else "leaves it unchanged"
    return [
        diagnostic(
            "TV532",
            f"the pass left no AFTER (it refused the program), yet legalog accepts BEFORE: it {did}",
            where.span.line if where else 1,
            where.span.col if where else 1,
            function=where.name if where else None,
        )
    ]


def _let_through(legalog: Decided, after: Program) -> Diagnostic:
    first = legalog.errors[0]
    more = f" (and {len(legalog.errors) - 1} more)" if len(legalog.errors) > 1 else ""
    fn = (after.function(first.function) if first.function else None) or _first(after)
    return diagnostic(
        "TV531",
        f"legalog rejects BEFORE: {first.code} at BEFORE line {first.line}: {first.message}{more}; yet the pass "
        "produced AFTER",
        fn.span.line if fn else 1,
        fn.span.col if fn else 1,
        function=fn.name if fn else None,
        subject=first.subject,
    )


def _first(program: Program) -> Function | None:
    return program.functions[0] if program.functions else None


def _names(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _changed_functions(before: Program, result: Program) -> list[str]:
    mine = {f.name: canonical_function(f) for f in before.functions}
    return [f.name for f in result.functions if mine.get(f.name) != canonical_function(f)]


# ------------------------------------------------------------------------------ post-conditions


def postconditions(after: Program, pass_name: str, runtime: str, engine: str | None) -> list[Diagnostic]:
    """The pass's post-conditions on AFTER alone: TV501 for each finding of the GraphBoundaryLegalized
    verifier (with Step D and the hoists run again), TV502 for each launch neither proven nor guarded."""
    program, versions = version_program(after, FULL_BODY_KINDS)
    out = []
    for d in verify(program, runtime, engine, passes=(pass_name,)):
        d = in_dump_names(d, versions)
        if d.code == "SP310":
            message = (
                d.message.removeprefix("verifier: ")
                + ": guard it with `if core_num > 0`, or codegen's preflight refuses it"
            )
            code = "TV502"
        else:
            message = f"AFTER fails GraphBoundaryLegalized: {d.code} {d.message.removeprefix('verifier: ')}"
            code = "TV501"
        out.append(diagnostic(code, message, d.line, d.column, function=d.function, subject=d.subject))
    return out


# -------------------------------------------------------------------------------- readability


def _readability(after: Program, before: Program) -> Iterator[Diagnostic]:
    """TV511/TV512 for each name a type reads where it is not bound; TV513 for what PyPTO's
    parser refuses in AFTER."""
    for read in unbound_type_reads(after):
        fn = after.function(read.function)
        assert fn is not None
        if read.in_signature:
            what = "the return type" if read.owner == "return" else f"the type of parameter `{read.owner}`"
            added = _added_parameter(fn, before, read.owner)
            message = (
                f"{what} of `{fn.name}` reads `{read.name}`, which the module does not bind: PyPTO's `pl.parse` "
                f"raises NameError on this `def` (Python evaluates a signature in the class body)"
                + (" - a parameter the pass added" if added else "")
            )
            yield diagnostic(
                "TV511", message, read.span.line, read.span.col, function=fn.name, subject=read.name
            )
        else:
            elsewhere = [f.name for f in after.functions if f is not fn and read.name in _binds(f)]
            home = f" (`{read.name}` is bound in {_names(elsewhere)})" if elsewhere else ""
            message = (
                f"the type of `{read.owner}` in `{fn.name}` reads `{read.name}`, which nothing in `{fn.name}` binds "
                f"before it{home}: PyPTO's parser reads it as a new dynamic dimension, not that value"
            )
            yield diagnostic(
                "TV512", message, read.span.line, read.span.col, function=fn.name, subject=read.name
            )
    for d in wellformed_diagnostics(after):
        if d.severity == "error":
            yield diagnostic(
                "TV513",
                f"PyPTO's parser refuses AFTER: {d.code} {d.message}",
                d.line,
                d.column,
                function=d.function,
                subject=d.subject,
            )


def _added_parameter(fn: Function, before: Program, name: str) -> bool:
    original = before.function(fn.name)
    return original is not None and [p.name for p in fn.params].index(name) >= len(original.params)


def _binds(fn: Function) -> set[str]:
    return {p.name for p in fn.params} | bound_names(fn.body)


# --------------------------------------------------------------------------- lining statements up


@dataclass(frozen=True, slots=True)
class _Flat:
    """One statement of a body walked pre-order, without its nested bodies (they follow it),
    and the path of blocks it sits in."""

    stmt: Stmt
    path: tuple[str, ...]


_BLOCKS = ("body", "orelse")


def _flat(body: Sequence[Stmt], path: tuple[str, ...] = ()) -> Iterator[_Flat]:
    for stmt in body:
        if isinstance(stmt, Jump) and stmt.kind == "pass":
            continue  # Python's empty body; PyPTO's IR has no such statement
        if isinstance(stmt, (For, While, If, With)):
            yield _Flat(_header(stmt), path)
            for block in _BLOCKS:
                yield from _flat(getattr(stmt, block, ()), (*path, f"{type(stmt).__name__}.{block}"))
        else:
            yield _Flat(stmt, path)


def _header(stmt: For | While | If | With) -> Stmt:
    """A compound statement without its nested bodies."""
    if isinstance(stmt, If):
        return replace(stmt, body=(), orelse=())
    return replace(stmt, body=())


_WILD = "?"  # a value hoisted out: it matches whatever stands for it


def kept_bindings(before: Function, other: Function) -> dict[str, Assign]:
    """Each single binding of BEFORE's body that `other` (the same function after a pass) still
    binds, to the binding there: the same value, compared as `ir.structural_equal` compares
    (BEFORE's parameters by position, earlier kept bindings as matched).  A value gone from the
    body reads as a wildcard wherever it is used later (the pass made it a parameter), a deleted
    rename as its root; so are the parameters `other` adds.  Matched in order, each once."""
    mine = {p.name: f"%{i}" for i, p in enumerate(before.params)}
    theirs = {p.name: f"%{i}" if i < len(before.params) else _WILD for i, p in enumerate(other.params)}
    candidates = [
        x.stmt for x in _flat(other.body) if isinstance(x.stmt, Assign) and len(x.stmt.targets) == 1
    ]
    kept: dict[str, Assign] = {}
    start = 0
    for x in _flat(before.body):
        if not (isinstance(x.stmt, Assign) and len(x.stmt.targets) == 1):
            continue
        var, value = x.stmt.targets[0], canon(x.stmt.value, mine)
        match = next(
            (k for k in range(start, len(candidates)) if canon(candidates[k].value, theirs) == value), None
        )
        if match is None:
            root = x.stmt.value
            mine[var] = mine.get(root.id, root.id) if isinstance(root, Name) else _WILD
            continue
        mine[var] = theirs[candidates[match].targets[0]] = f"v{len(kept)}"
        kept[var] = candidates[match]
        start = match + 1
    return kept


@dataclass(frozen=True, slots=True)
class _Difference:
    """Where two versions of a function first part: AFTER's node and the other's (None: that
    side has nothing there), and what part of the function it is."""

    mine: Stmt | Param | None
    other: Stmt | Param | None
    part: Literal["parameters", "returns", "attributes", "statements"]
    position: int = 0  # for a parameter: its index


def first_difference(mine: Function, other: Function) -> _Difference | None:
    """The first place `mine` and `other` differ as `ir.structural_equal` sees them, walking both
    in order: parameters by position, then statements, every name `mine` binds read as the name
    `other` binds at the same place."""
    names: dict[str, str] = {}
    for k in range(max(len(mine.params), len(other.params))):
        p = mine.params[k] if k < len(mine.params) else None
        q = other.params[k] if k < len(other.params) else None
        if p is None or q is None or p.direction != q.direction or canon(p.type, {}) != canon(q.type, {}):
            return _Difference(p, q, "parameters", k)
        names[p.name] = q.name
    if canon(mine.returns, names) != canon(other.returns, {}):
        return _Difference(None, None, "returns")
    if canon(mine.decorator, {}) != canon(other.decorator, {}):
        return _Difference(None, None, "attributes")
    a, b = list(_flat(mine.body)), list(_flat(other.body))
    for k in range(max(len(a), len(b))):
        x, y = (a[k] if k < len(a) else None), (b[k] if k < len(b) else None)
        if x is None or y is None or x.path != y.path:
            return _Difference(x.stmt if x else None, y.stmt if y else None, "statements")
        for m, o in zip(bound_by(x.stmt), bound_by(y.stmt)):
            names.setdefault(m, o)
        if canon(x.stmt, names) != canon(y.stmt, {}):
            return _Difference(x.stmt, y.stmt, "statements")
    return None


def statement_text(stmt: Stmt, prefix: str, limit: int = 100) -> str:
    """One line saying what a statement is (its nested bodies left out)."""
    match stmt:
        case Assign(targets=targets, value=value):
            text = f"{', '.join(targets)} = {print_expr(value, prefix)}"
        case ExprStmt(value=value):
            text = print_expr(value, prefix)
        case Return(values=values):
            text = f"return {', '.join(print_expr(v, prefix) for v in values)}"
        case For(iterable=iterable):
            text = f"for ... in {print_expr(iterable, prefix)}"
        case While(cond=cond) | If(cond=cond):
            text = f"{'while' if isinstance(stmt, While) else 'if'} {print_expr(cond, prefix)}"
        case With(context=context):
            text = f"with {print_expr(context, prefix)}"
        case Jump(kind=kind):
            text = kind
    return short(text, limit)


def short(text: str, limit: int = 200) -> str:
    """A reason quoted in a message, cut to `limit` characters (a 10,000-link chain stays a line)."""
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def _param_text(p: Param) -> str:
    """`base` (In scalar)."""
    kind = (
        "scalar"
        if isinstance(p.type, ScalarType)
        else "tensor"
        if isinstance(p.type, TensorType)
        else "value"
    )
    return f"`{p.name}` ({p.direction} {kind})"


# ------------------------------------------------------------------------------------ comparing


@dataclass(frozen=True, slots=True)
class _Launch:
    stmt: Stmt
    call: Call | None  # None: a `with pl.spmd(n)` scope
    depth: int  # enclosing `if`s

    @property
    def span(self) -> Span:
        return self.call.span if self.call is not None else self.stmt.span


class _Comparison:
    """AFTER against legalog's result on BEFORE, one function at a time (PyPTO's Program maps
    its functions by name)."""

    def __init__(self, legalog: Decided, before: Program, after: Program, pass_name: str) -> None:
        self.legalog = legalog
        self.before = before
        self.after = after
        self.result = legalog.output or before
        self.pass_name = pass_name
        self.prefix = before.prefix
        self.graphs = {f.name for f in before.functions if f.type == "Graph"}
        self.decided: set[str] = set()  # functions whose values, launches or parameters differ

    def findings(self) -> list[Diagnostic]:
        b = {f.name: f for f in self.before.functions}
        result = {f.name: f for f in self.result.functions}
        out: list[Diagnostic] = []
        for name, theirs in result.items():
            if name in b and (mine := self.after.function(name)) is not None:
                if self.pass_name == "graph" and name in self.graphs:
                    out += self._values(b[name], theirs, mine)
                elif self.pass_name == "spmd":
                    out += self._launches(b[name], theirs, mine)
        for fn in self.after.functions:
            if fn.name not in result:
                out.append(
                    self._at(fn, "TV523", f"AFTER adds function `{fn.name}`, which legalog's result has not")
                )
        first = _first(self.after)
        # Graphs first: a call site differs because its Graph's values or parameters do
        for name, theirs in sorted(result.items(), key=lambda item: item[0] not in self.graphs):
            mine = self.after.function(name)
            if mine is None:
                message = (
                    f"AFTER drops function `{name}` (BEFORE line {theirs.span.line}), which legalog keeps"
                )
                out.append(self._at(first, "TV523", message))
            elif self._explained(mine) or canonical_function(mine) == canonical_function(theirs):
                continue
            else:
                out += self._function(b.get(name), theirs, mine)
        return out

    def _explained(self, fn: Function) -> bool:
        """Whether a function's differences are already said: its values or launches are decided
        otherwise, or it calls a Graph whose values or parameters are."""
        return fn.name in self.decided or bool(_callees(fn, self.prefix) & self.decided & self.graphs)

    def _at(
        self, fn: Function | None, code: str, message: str, at: Span | None = None, subject: str | None = None
    ) -> Diagnostic:
        """A finding in `fn`, at `at` (default: the function's `def`)."""
        span = at or (fn.span if fn is not None else Span(1, 1, 1, 1))
        return diagnostic(
            code, message, span.line, span.col, function=fn.name if fn else None, subject=subject
        )

    # --------------------------------------------------------------------- Graph values (Steps A-C)

    def _values(self, before: Function, result: Function, mine: Function) -> list[Diagnostic]:
        """TV521 for each value of the Graph's body that AFTER hoists, keeps or deletes otherwise
        than legalog; with the same values, TV541 where AFTER gives a new parameter the view's MemRef."""
        theirs = kept_bindings(before, result)
        kept = kept_bindings(before, mine)
        out = []
        for x in _flat(before.body):
            if not (isinstance(x.stmt, Assign) and len(x.stmt.targets) == 1):
                continue
            var = x.stmt.targets[0]
            if (var in theirs) == (var in kept) or (var in theirs and self._launches_program(x.stmt)):
                continue  # decided alike, or a task AFTER changed rather than moved (TV523 says how)
            verdict, why = self._why(before.name, var)
            if var in kept:
                verb = "deletes" if verdict == "removed_alias" else "hoists"
                named = f" (as `{kept[var].targets[0]}`)" if kept[var].targets[0] != var else ""
                message = f"AFTER keeps `{var}`{named} inside Graph `{mine.name}`; legalog {verb} it: {why}"
                out.append(self._at(mine, "TV521", message, kept[var].span, subject=var))
            else:
                message = (
                    f"AFTER takes `{var}` (BEFORE line {x.stmt.span.line}) out of Graph `{mine.name}`; "
                    f"legalog keeps it: {why}"
                )
                out.append(self._at(mine, "TV521", message, subject=var))
        if out:
            self.decided.add(mine.name)
            return out
        return self._view_memrefs(before, result, mine)

    def _why(self, function: str, var: str) -> tuple[str, str]:
        """legalog's verdict on a value and why, as `legalog why` says it."""
        try:
            explanation = self.legalog.explain(function, var)
        except WhyError:
            return "", "no explanation (the value is not one legalog decides)"
        step = _STEPS.get("alias" if explanation.verdict == "removed_alias" else explanation.kind)
        why = short(explanation.summary)
        return explanation.verdict, f"{step}, {why}" if step else why

    def _launches_program(self, stmt: Assign) -> bool:
        """Whether a binding is a call or launch of a program function: a task, never hoisted."""
        return isinstance(stmt.value, Call) and call_target(stmt.value, self.prefix) is not None

    def _view_memrefs(self, before: Function, result: Function, mine: Function) -> list[Diagnostic]:
        """TV541 once per Graph whose new parameters carry the view's MemRef offset where
        legalog's sit at offset 0 (reference README, class 2)."""
        start = len(before.params)
        copied = [
            (p, offset)
            for p, q in zip(mine.params[start:], result.params[start:])
            if (offset := _memref_offset(p)) is not None and expr_names(offset) and not _memref_names(q)
        ]
        if not copied:
            return []
        first, offset = copied[0]
        message = (
            f"AFTER gives {len(copied)} new parameter{'s' if len(copied) > 1 else ''} of Graph `{mine.name}` "
            f"({_names(p.name for p, _ in copied)}) the view's own type, MemRef offset included "
            f"(`{print_expr(offset, self.prefix)}`); legalog's new parameter is the view itself, at offset 0 "
            f"as every parameter PyPTO prints; {seed_note('view-memref')}"
        )
        return [self._at(mine, "TV541", message, first.span, subject=first.name)]

    # ---------------------------------------------------------------------------- SPMD launches

    def _launches(self, before: Function, result: Function, mine: Function) -> list[Diagnostic]:
        """TV521 for a launch AFTER leaves unguarded where legalog guards it, or drops where
        legalog proves it runs; TV541 for one AFTER guards where legalog proves it (a stronger
        proof) or drops where legalog guards it (a launch that may never run)."""
        b = _launch_sites(before, self.prefix)
        if not b:
            return []
        theirs = _launch_sites(result, self.prefix)
        ours = _launch_sites(mine, self.prefix)
        to_theirs = _lined_up(b, theirs, self.prefix)
        to_ours = _lined_up(b, ours, self.prefix)
        decisions = {(d.line, d.column): d for d in self.legalog.launches if d.function == before.name}
        out = []
        for i, launch in enumerate(b):
            decision = decisions.get((launch.span.line, launch.span.col))
            guarded = i in to_theirs and theirs[to_theirs[i]].depth > launch.depth
            callee, count = _launch_text(launch, self.prefix)
            reason = short(decision.reason) if decision is not None else ""
            if i not in to_ours:
                if guarded:
                    message = (
                        f"AFTER drops the launch of `{callee}` (BEFORE line {launch.span.line}); legalog guards it "
                        f"with `if {count} > 0` ({reason or 'not proven positive'}): dropping it is safe only if "
                        f"core_num can never be positive there; {seed_note('never-runs')}"
                    )
                    out.append(self._at(mine, "TV541", message, subject=callee))
                else:
                    message = (
                        f"AFTER drops the launch of `{callee}` (BEFORE line {launch.span.line}); legalog proves "
                        f"core_num `{count}` >= 1 there ({reason or 'proven'}): the launch runs"
                    )
                    out.append(self._at(mine, "TV521", message, subject=callee))
                continue
            where = ours[to_ours[i]]
            guarded_here = where.depth > launch.depth
            if guarded and not guarded_here:
                message = (
                    f"AFTER launches `{callee}` unguarded; legalog guards it with `if {count} > 0`: "
                    f"{reason or 'core_num is not proven >= 1'}"
                )
                out.append(self._at(mine, "TV521", message, where.span, subject=callee))
            elif guarded_here and not guarded:
                message = (
                    f"AFTER guards the launch of `{callee}`; legalog proves core_num `{count}` >= 1 "
                    f"({reason or 'proven'}), so it leaves the launch unchanged; {seed_note('stronger-proof')}"
                )
                out.append(self._at(mine, "TV541", message, where.span, subject=callee))
        if out:
            self.decided.add(mine.name)
        return out

    # ------------------------------------------------------------------------- whole functions

    def _function(self, before: Function | None, result: Function, mine: Function) -> list[Diagnostic]:
        """TV524 when legalog leaves the function as BEFORE has it; else TV522 for its boundary
        or a Graph's call site, TV523 for anything else, at the first place they part."""
        untouched = before is not None and canonical_function(before) == canonical_function(result)
        other = before if untouched and before is not None else result
        diff = first_difference(mine, other)
        at = diff.mine.span if diff is not None and isinstance(diff.mine, (Param, *_STMTS)) else None
        side = "BEFORE" if untouched else "legalog"
        detail = self._detail(diff, side)
        if untouched:
            message = (
                f"AFTER changes `{mine.name}`, which {PASS_TITLES[self.pass_name]} leaves untouched: {detail}"
            )
            return [self._at(mine, "TV524", message, at)]
        if diff is not None and diff.part == "parameters":
            self.decided.add(mine.name)
        boundary = diff is not None and (diff.part == "parameters" or self._at_call_site(diff, result))
        code = "TV522" if boundary else "TV523"
        return [self._at(mine, code, f"AFTER's `{mine.name}` differs from legalog's result: {detail}", at)]

    def _detail(self, diff: _Difference | None, side: str) -> str:
        if diff is None:
            return "the same statements, named differently where PyPTO compares names"
        if diff.part == "parameters":
            mine, other = (
                _param_text(p) if isinstance(p, Param) else "none" for p in (diff.mine, diff.other)
            )
            return f"parameter no. {diff.position + 1}: AFTER has {mine}, {side} has {other}"
        if diff.part != "statements":
            return f"its {diff.part} differ"
        mine = f"`{statement_text(diff.mine, self.prefix)}`" if isinstance(diff.mine, _STMTS) else "nothing"
        other = (
            f"`{statement_text(diff.other, self.prefix)}`" if isinstance(diff.other, _STMTS) else "nothing"
        )
        line = (
            f" (line {diff.other.span.line})" if side == "BEFORE" and isinstance(diff.other, _STMTS) else ""
        )
        return f"AFTER has {mine} where {side} has {other}{line}"

    def _at_call_site(self, diff: _Difference, result: Function) -> bool:
        """Whether a statement difference is a Graph's call, or a value its call site binds for it."""
        for stmt in (diff.mine, diff.other):
            if isinstance(stmt, (Assign, ExprStmt, Return)) and self._graph_calls(stmt):
                return True
        if not isinstance(diff.other, Assign):
            return False
        targets = set(diff.other.targets)
        return any(
            targets & expr_names(call)
            for x in _flat(result.body)
            if isinstance(x.stmt, (Assign, ExprStmt, Return))
            for call in self._graph_calls(x.stmt)
        )

    def _graph_calls(self, stmt: Assign | ExprStmt | Return) -> list[Call]:
        values = stmt.values if isinstance(stmt, Return) else (stmt.value,)
        return [
            v
            for v in values
            if isinstance(v, Call)
            and (t := call_target(v, self.prefix)) is not None
            and t.callee in self.graphs
        ]


# the seed's step that decides each kind of value (`Explanation.kind`; a deleted rename is Step A's)
_STEPS = {"scalar": "Step A", "alias": "Step A", "view": "Step B", "allocation": "Step C"}
_STMTS = (Assign, ExprStmt, For, While, If, With, Return, Jump)


def _callees(fn: Function, prefix: str) -> set[str]:
    out = set()
    for x in _flat(fn.body):
        values = (
            x.stmt.values
            if isinstance(x.stmt, Return)
            else (x.stmt.value,)
            if isinstance(x.stmt, (Assign, ExprStmt))
            else ()
        )
        out |= {t.callee for v in values if isinstance(v, Call) and (t := call_target(v, prefix)) is not None}
    return out


def _memref_offset(p: Param) -> Expr | None:
    if isinstance(p.type, TensorType):
        for x in p.type.extras:
            if isinstance(x, Call) and x.func.rsplit(".", 1)[-1] == "MemRef" and len(x.args) == 3:
                return x.args[1]
    return None


def _memref_names(p: Param) -> set[str]:
    offset = _memref_offset(p)
    return expr_names(offset) if offset is not None else set()


def _launch_sites(fn: Function, prefix: str) -> list[_Launch]:
    """The SPMD launches of a function in source order, each with how many `if`s enclose it."""
    out: list[_Launch] = []

    def walk(body: Sequence[Stmt], depth: int) -> None:
        for stmt in body:
            value = stmt.value if isinstance(stmt, (Assign, ExprStmt)) else None
            if isinstance(value, Call) and core_num(value) is not None:
                out.append(_Launch(stmt, value, depth))
            elif spmd_scope_count(stmt, prefix) is not None:
                out.append(_Launch(stmt, None, depth))
            inner = depth + isinstance(stmt, If)
            for block in _BLOCKS:
                walk(getattr(stmt, block, ()), inner)

    if fn.type != "Graph":  # a Graph's launches are LegalizeGraphBoundary's (GB121)
        walk(fn.body, 0)
    return out


def _launch_text(launch: _Launch, prefix: str) -> tuple[str, str]:
    """The launched function and its core_num, as printed."""
    if launch.call is None:
        assert isinstance(launch.stmt, With)
        count = spmd_scope_count(launch.stmt, prefix)
        return "pl.spmd scope", print_expr(count, prefix) if count is not None else "?"
    target = call_target(launch.call, prefix)
    count = core_num(launch.call)
    return (target.callee if target else launch.call.func), print_expr(
        count, prefix
    ) if count is not None else "?"


def _lined_up(a: Sequence[_Launch], b: Sequence[_Launch], prefix: str) -> Mapping[int, int]:
    """Index in `a` -> index in `b` of the same launch: lined up by callee and core_num's shape."""

    def key(launch: _Launch) -> object:
        callee, _ = _launch_text(launch, prefix)
        count = core_num(launch.call) if launch.call is not None else None
        return callee, shape(count)

    matcher = difflib.SequenceMatcher(None, [key(x) for x in a], [key(x) for x in b], autojunk=False)
    return {i + k: j + k for i, j, n in matcher.get_matching_blocks() for k in range(n)}
