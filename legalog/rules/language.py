"""The rule language legalog's `.pyd` files are written in: read, lint, stratify — for every engine.

The rule files are pyDatalog's language (PYDATALOG.md), which pyDatalog itself accepts almost
any text of and then hangs on or silently answers nothing.  This module is the fence in front
of every backend (``backends/pydatalog.py``, the reference; ``backends/compiled.py``, the default):

* ``lint`` rejects the rule shapes pyDatalog mis-reads without an error (§2.9).
* ``RuleProgram`` reads a set of rule files once per process into a small rule
  representation (``Rule``: atoms, negations, comparisons, arithmetic, four aggregates)
  and refuses what the two engines would not read alike (``portability``).
* ``check_stratification`` rejects recursion through negation or aggregation, on which
  pyDatalog never terminates and no least model exists to compile (§2.6).
* ``validate_facts`` checks the facts handed to an evaluation, ``Derived`` holds its answer.

Only ``str`` and ``int`` constants may reach an engine: pyDatalog compares constants with
``==``, so ``1``, ``1.0`` and ``True`` are one constant (§2.7).
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import itertools
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from legalog.digraph import strongly_connected_components
from legalog.facts.schema import DECLARED, RELATIONS
from legalog.facts.schema import Relation as Declaration
from legalog.facts.store import FactStore

__all__ = [
    "Aggregate",
    "Arith",
    "Atom",
    "Comparison",
    "Const",
    "DeclarationError",
    "Dependency",
    "Derived",
    "FactError",
    "Facts",
    "LintError",
    "Literal",
    "Relation",
    "Rule",
    "RuleError",
    "RuleLintError",
    "RuleProgram",
    "StratificationError",
    "Var",
    "check_declared",
    "check_stratification",
    "lint",
    "rules_text",
    "store_rows",
    "validate_facts",
]

RULES_DIR = Path(__file__).resolve().parent
"""Where packaged rule files (``<property>.pyd``) live."""

Row = tuple[str | int, ...]


# --------------------------------------------------------------------------- errors


class RuleError(Exception):
    """Base class of every error this module raises about rules or facts."""


@dataclass(frozen=True, order=True)
class LintError:
    """One lint finding, located in the rule file (``file:line: message``)."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class RuleLintError(RuleError):
    """Raised by ``RuleProgram`` when a rule file fails ``lint``; carries every finding."""

    def __init__(self, errors: Sequence[LintError]) -> None:
        self.errors = tuple(errors)
        super().__init__("rule files failed lint:\n" + "\n".join(f"  {e}" for e in self.errors))


class StratificationError(RuleError):
    """Recursion through negation or an aggregate: pyDatalog would not terminate, and the rules
    would have no one answer for the compiled engine to compute."""


class FactError(RuleError, ValueError):
    """Facts handed to ``evaluate`` that the engine would silently mis-read."""


class DeclarationError(RuleError):
    """A relation the rules define or read that legalog/facts/schema.py does not declare, or
    declares with another number of columns: the emitter, `query` and the facts export would
    read columns the rules do not give."""


# --------------------------------------------------------------------------- lint

AGGREGATES: Mapping[str, tuple[str, ...]] = {
    # The aggregates of the rule language, the ones both engines read alike, each with the
    # keyword arguments pyDatalog requires (else "argument missing").  pyDatalog's others
    # (concat_, rank_, running_sum_, mean_, tuple_) have no compiled counterpart: the linter
    # refuses them, so the reader and every backend see only these.
    "sum_": ("for_each",),
    "len_": (),
    "min_": ("order_by",),
    "max_": ("order_by",),
}
_RENAMED_AGGREGATES = {"sum": "sum_", "len": "len_", "min": "min_", "max": "max_"}

BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_"))
"""Names pyDatalog leaves to Python: a predicate called ``id`` or ``type`` is never a predicate."""


def _is_variable(name: str) -> bool:
    # pyParser.Term: upper-case or '_' first letter makes a variable, except the bool names.
    return name not in ("True", "False", "None") and (name[0].isupper() or name[0] == "_")


class _RuleLinter:
    """Checks one rule statement; collects findings instead of stopping at the first."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.errors: list[LintError] = []

    def error(self, node: ast.AST, message: str) -> None:
        self.errors.append(LintError(self.filename, getattr(node, "lineno", 0), message))

    # -- statements

    def statement(self, stmt: ast.stmt) -> None:
        if not isinstance(stmt, ast.Expr):
            self.error(stmt, "only rules `head <= body` and facts `+ p(a)` are allowed in a rule file")
            return
        value = stmt.value
        if isinstance(value, ast.Tuple):
            self.error(
                value,
                "`,` between body literals builds a Python tuple: pyDatalog silently keeps "
                "only the first literal; join literals with `&`",
            )
        elif isinstance(value, ast.BoolOp):
            self.error(
                value,
                "`and`/`or` in a rule: Python reads `(head <= a) and b`, so pyDatalog "
                "silently drops the rest of the body; join literals with `&`",
            )
        elif isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.UAdd):
            self.fact(value.operand)
        elif isinstance(value, ast.Compare) and isinstance(value.ops[0], ast.LtE):
            if len(value.ops) > 1:
                self.error(
                    value,
                    "unparenthesised comparison in a rule body: write `& (N > 3)`, "
                    "not `& N > 3` (pyDatalog: 'please verify parenthesis')",
                )
                return
            self.rule(value.left, value.comparators[0])
        else:
            self.error(value, "not a rule: expected `head <= body` or `+ fact(...)`")

    def fact(self, node: ast.expr) -> None:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            self.error(node, "a fact must be `+ name(const, ...)`")
            return
        self.pred_name(node, node.func.id)
        for arg in node.args:
            if isinstance(arg, ast.Name) and _is_variable(arg.id):
                self.error(arg, f"fact {node.func.id}(...) has variable {arg.id}: facts must be ground")
            else:
                self.constant(arg, "fact")

    # -- rules

    def rule(self, head: ast.expr, body: ast.expr) -> None:
        bound: set[str] = set()
        for literal in _conjuncts(body):
            self.body_literal(literal, bound)
        needed = self.head(head)
        if unbound := sorted(needed - bound):
            self.error(
                head,
                f"variable(s) {', '.join(unbound)} only in the head (or only under `~`): "
                "pyDatalog answers True-like rows without values; bind them in the body",
            )
        underscores = sum(1 for n in ast.walk(body) if isinstance(n, ast.Name) and n.id == "_")
        if underscores > 1:
            self.error(
                body,
                "`_` is an ordinary variable in pyDatalog, not a wildcard: every `_` in a rule "
                "must be equal; use distinct names (_A, _B)",
            )

    def head(self, head: ast.expr) -> set[str]:
        """Checks the head; returns the variables it needs bound."""
        if isinstance(head, ast.Call) and isinstance(head.func, ast.Name):
            self.pred_name(head, head.func.id)
            if head.keywords:
                self.error(head, "keyword arguments in a head are not supported")
            return self.plain_args(head.args, "head", allow_none=False)
        if (
            isinstance(head, ast.Compare)
            and len(head.ops) == 1
            and isinstance(head.ops[0], ast.Eq)
            and isinstance(head.left, ast.Subscript)
            and isinstance(head.left.value, ast.Name)
        ):
            self.pred_name(head, head.left.value.id)
            needed = self.plain_args(_keys(head.left.slice), "function key", allow_none=True)
            value = head.comparators[0]
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                name = _RENAMED_AGGREGATES.get(value.func.id, value.func.id)
                if name not in AGGREGATES:
                    self.error(
                        value,
                        f"`{value.func.id}(...)` in a function head is not an aggregate of the rule "
                        f"language ({', '.join(sorted(AGGREGATES))}); pyDatalog's others have no "
                        "compiled counterpart",
                    )
                    return needed
                given = {k.arg for k in value.keywords}
                if missing := [k for k in AGGREGATES[name] if k not in given]:
                    self.error(
                        value,
                        f"{name} needs {', '.join(k + '=' for k in missing)} "
                        "(pyDatalog: 'argument missing in aggregate')",
                    )
                return (
                    needed
                    | self.plain_args(value.args, "aggregate", allow_none=False)
                    | {v for k in value.keywords for v in _variables(k.value)}
                )
            return needed | self.plain_args([value], "function value", allow_none=False)
        self.error(head, "a head must be `name(X, ...)` or `(name[K] == aggregate(...))`")
        return set()

    def plain_args(self, args: Iterable[ast.expr], where: str, *, allow_none: bool) -> set[str]:
        variables: set[str] = set()
        for arg in args:
            if isinstance(arg, ast.Name) and _is_variable(arg.id):
                variables.add(arg.id)
            elif allow_none and isinstance(arg, ast.Constant) and arg.value is None:
                continue
            elif isinstance(arg, (ast.Name, ast.Constant)):
                self.constant(arg, where)
            else:
                self.error(
                    arg,
                    f"expression `{ast.unparse(arg)}` as a {where} argument: pyDatalog "
                    "silently yields nothing; bind it in the body, e.g. `(M == N * 2)`",
                )
        return variables

    def constant(self, node: ast.expr, where: str) -> None:
        if isinstance(node, ast.Name):
            if node.id in ("True", "False", "None"):
                self.error(
                    node,
                    f"`{node.id}` as a {where} constant: bools equal the ints 1/0 in "
                    "pyDatalog; use a string or int",
                )
            return
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (str, int)):
                self.error(
                    node,
                    f"constant {node.value!r} in a {where}: only str and int constants "
                    "are safe (bools equal ints, floats are rounded)",
                )
            return
        self.error(node, f"`{ast.unparse(node)}` is not a constant")

    def pred_name(self, node: ast.AST, name: str) -> None:
        if name in BUILTIN_NAMES or name in AGGREGATES:
            self.error(
                node,
                f"predicate name `{name}` is a Python built-in: pyDatalog never makes it a "
                "predicate (silently nothing, TypeError, or an aggregate error); rename it",
            )
        elif _is_variable(name):
            self.error(node, f"predicate name `{name}` starts upper-case: it would be a variable")

    def body_literal(self, lit: ast.expr, bound: set[str]) -> None:
        if isinstance(lit, ast.Call) and isinstance(lit.func, ast.Name):
            self.pred_name(lit, lit.func.id)
            if lit.keywords:
                self.error(lit, "keyword arguments in a body literal are not supported")
            bound |= self.plain_args(lit.args, "body literal", allow_none=False)
        elif isinstance(lit, ast.UnaryOp) and isinstance(lit.op, ast.Invert):
            inner = lit.operand
            if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)):
                self.error(
                    lit,
                    "negate a named helper predicate (`~has_x(V)`), not a conjunction or "
                    "expression: it can then be materialised and explained",
                )
                return
            self.pred_name(inner, inner.func.id)
            self.plain_args(inner.args, "negated literal", allow_none=False)
            if free := sorted(_variables(inner) - bound):
                self.error(
                    lit,
                    f"negated literal `{ast.unparse(lit)}`: variable(s) {', '.join(free)} not "
                    "bound by an earlier positive literal (an empty result, or 'no such "
                    "tuple' if existential); bind them first or negate a helper predicate",
                )
        elif isinstance(lit, ast.UnaryOp) and isinstance(lit.op, ast.Not):
            self.error(lit, "`not` is Python's boolean not; negation is `~p(X)`")
        elif isinstance(lit, ast.Compare):
            self.comparison(lit, bound)
        elif isinstance(lit, ast.Tuple):
            self.error(lit, "`,` in a body builds a Python tuple; join literals with `&`")
        elif isinstance(lit, ast.BoolOp):
            self.error(lit, "`and`/`or` in a body; join literals with `&`")
        else:
            self.error(lit, f"`{ast.unparse(lit)}` is not a body literal")

    def comparison(self, cmp: ast.Compare, bound: set[str]) -> None:
        if len(cmp.ops) > 1:
            self.error(cmp, "chained or unparenthesised comparison: parenthesise each one")
            return
        op, left, right = cmp.ops[0], cmp.left, cmp.comparators[0]
        if isinstance(left, ast.Subscript) and isinstance(left.value, ast.Name):
            # function lookup `(f[K] == N)`: a generator over the stored function
            self.pred_name(left, left.value.id)
            bound |= _variables(left.slice)
            if isinstance(op, ast.Eq):
                bound |= _variables(right)
            elif free := sorted(_variables(right) - bound):
                self.error(cmp, f"comparison `{ast.unparse(cmp)}`: {', '.join(free)} unbound")
            return
        for side in (left, right):
            for call in (n for n in ast.walk(side) if isinstance(n, ast.Call)):
                self.error(
                    call,
                    f"call `{ast.unparse(call)}` inside a comparison: aggregates belong in a "
                    "function head, predicates in their own literal",
                )
        lfree, rfree = _variables(left) - bound, _variables(right) - bound
        if isinstance(op, ast.Eq) and not rfree and isinstance(left, ast.Name) and lfree:
            bound.add(left.id)
        elif isinstance(op, ast.Eq) and not lfree and isinstance(right, ast.Name) and rfree:
            bound.add(right.id)
        elif isinstance(op, ast.In) and isinstance(left, ast.Name) and not rfree:
            bound.add(left.id)
        elif free := sorted(lfree | rfree):
            self.error(
                cmp,
                f"comparison `{ast.unparse(cmp)}` before {', '.join(free)} is bound: "
                "pyDatalog gives an empty result or 'must be bound'; move it after the "
                "literal that binds it",
            )


def _conjuncts(body: ast.expr) -> Iterator[ast.expr]:
    """Flattens `a & b & c` (left-associative) into its literals, left to right."""
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.BitAnd):
        yield from _conjuncts(body.left)
        yield from _conjuncts(body.right)
    else:
        yield body


def _keys(node: ast.expr) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def _variables(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and _is_variable(n.id)}


def lint(text: str, filename: str = "<rules>") -> list[LintError]:
    """Finds the rule shapes pyDatalog accepts and then mis-evaluates silently (PYDATALOG.md §2.9).

    Checked: a `#` header comment; `,`/`and`/`or`/`not` in rules; expressions and bools in
    heads; built-in predicate names; unparenthesised comparisons; comparisons and negated
    literals before their variables are bound; variables only in the head; aggregates
    without their required keywords; `_` used as a wildcard.
    """
    return _parse_and_lint(text, filename)[1]


def _parse_and_lint(text: str, filename: str) -> tuple[ast.Module | None, list[LintError]]:
    """The file's syntax tree (None if it does not parse) and its lint findings."""
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as exc:
        line = exc.lineno or 0
        hint = ""
        if ":-" in (text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""):
            hint = " (Prolog `:-` is not pyDatalog syntax: write `head <= body`)"
        elif str(exc.msg) == "invalid syntax":
            hint = " (a rule spanning several lines must be wrapped in parentheses)"
        return None, [LintError(filename, line, f"syntax error: {exc.msg}{hint}")]
    linter = _RuleLinter(filename)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if not first.lstrip().startswith("#"):
        linter.errors.append(
            LintError(
                filename,
                1,
                "a rule file must start with a `#` comment header naming the spec paragraph it implements",
            )
        )
    for stmt in tree.body:
        linter.statement(stmt)
    return tree, sorted(linter.errors)


# --------------------------------------------------------------------------- stratification


@dataclass(frozen=True)
class Dependency:
    """`head` uses `body`; `negative` when through `~` or an aggregate (needs `body` complete)."""

    head: str
    body: str
    negative: bool


def check_stratification(preds: Iterable[str], deps: Iterable[Dependency]) -> tuple[tuple[str, ...], ...]:
    """Returns the SCCs of the dependency graph, dependencies first; raises on a negative cycle.

    pyDatalog never checks this and loops forever on `p <= ~q, q <= ~p`, so it must be
    refused before any query. Predicates not in `preds` (inputs) are leaves and ignored.
    """
    nodes = sorted(set(preds))
    node_set = set(nodes)
    edges: dict[str, list[Dependency]] = {n: [] for n in nodes}
    for dep in deps:
        if dep.head in node_set and dep.body in node_set:
            edges[dep.head].append(dep)
    for n in nodes:
        edges[n].sort(key=lambda d: (d.body, d.negative))

    sccs = strongly_connected_components(nodes, {n: [d.body for d in edges[n]] for n in nodes})
    component = {member: scc for scc in sccs for member in scc}
    for n in nodes:
        for dep in edges[n]:
            if dep.negative and component[dep.head] is component[dep.body]:
                raise StratificationError(
                    f"recursion through negation: {dep.head} depends negatively on {dep.body}"
                )
    return tuple(sccs)


# --------------------------------------------------------------------------- the rule representation


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Const:
    value: str | int


@dataclass(frozen=True)
class Arith:
    """`left op right` over bound values (`+ - * // %`), or `neg` of `left` (then `right` is None)."""

    op: str
    left: Term
    right: Term | None = None


Term = Var | Const | Arith


@dataclass(frozen=True)
class Atom:
    relation: str
    args: tuple[Var | Const, ...]


@dataclass(frozen=True)
class Literal:
    atom: Atom
    negated: bool = False


@dataclass(frozen=True)
class Comparison:
    """`left op right` with op one of == != < <= > >=, or `in` a tuple of constants."""

    op: str
    left: Term
    right: Term | tuple[Const, ...]


@dataclass(frozen=True)
class Aggregate:
    """`len_` counts distinct `value`s; `sum_` adds `value` over distinct (value, for_each)
    tuples; `min_`/`max_` (ordered by the value itself) pick the extreme value."""

    kind: str  # len | sum | min | max
    value: Var
    for_each: tuple[Var, ...] = ()


@dataclass(frozen=True)
class Rule:
    """`head <= body`, a rule-file fact (empty body), or an aggregate: `(f[K] == agg) <= body`,
    whose head atom holds the keys and whose result is the relation's last column."""

    head: Atom
    body: tuple[Literal | Comparison, ...]
    aggregate: Aggregate | None
    where: str  # file:line, for messages

    @property
    def arity(self) -> int:
        return len(self.head.args) + (self.aggregate is not None)


@dataclass(frozen=True)
class Relation:
    """A user-facing relation: a function `f[K] == V` is the relation f(K, V)."""

    name: str
    arity: int
    function: bool

    def __str__(self) -> str:
        return f"a function {self.name}[{self.arity - 1}]" if self.function else f"{self.name}/{self.arity}"


_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class _Reader:
    """Reads linted rule statements into `Rule`s; collects what the engines would not read alike.

    The portable language is what both backends evaluate identically (docs/reference.md, "Engines"):
    no `None` keys, no aggregate but len_/sum_/min_/max_ (min_/max_ ordered by their own value),
    only `+ - * // %` and unary `-`, function heads only as aggregates.
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.errors: list[LintError] = []
        self.uses: list[tuple[Relation, str]] = []  # every relation mention, with where
        self.line = 0
        self.fresh = 0

    def error(self, node: ast.AST, message: str) -> None:
        self.errors.append(LintError(self.filename, getattr(node, "lineno", self.line), message))

    def read(self, tree: ast.Module) -> list[Rule]:
        rules = []
        for stmt in tree.body:
            self.line = stmt.lineno
            if (rule := self.statement(stmt.value)) is not None:  # type: ignore[attr-defined]
                rules.append(rule)
        return rules

    def statement(self, value: ast.expr) -> Rule | None:
        where = f"{self.filename}:{self.line}"
        if isinstance(value, ast.UnaryOp):  # `+ fact(...)`
            return Rule(self.atom(value.operand), (), None, where)  # type: ignore[arg-type]
        assert isinstance(value, ast.Compare)
        head, body_node = value.left, value.comparators[0]
        body = tuple(lit for node in _conjuncts(body_node) for lit in self.literal(node))
        if isinstance(head, ast.Call):
            return Rule(self.atom(head), body, None, where)
        assert isinstance(head, ast.Compare) and isinstance(head.left, ast.Subscript)
        keys = tuple(self.arg(k) for k in _keys(head.left.slice))
        name = head.left.value.id  # type: ignore[attr-defined]
        if not isinstance(head.comparators[0], ast.Call):
            self.error(
                head,
                f"function head `{ast.unparse(head)}` without an aggregate: pyDatalog keeps one "
                "value per key, the compiled engine every value; write a relation `f(K, V)` instead",
            )
            return None
        aggregate = self.aggregate(head.comparators[0])
        self.uses.append((Relation(name, len(keys) + 1, True), where))
        return None if aggregate is None else Rule(Atom(name, keys), body, aggregate, where)

    def aggregate(self, call: ast.Call) -> Aggregate | None:
        func: str = call.func.id  # type: ignore[attr-defined]
        name = _RENAMED_AGGREGATES.get(func, func)
        kind = name.removesuffix("_")  # the linter let only AGGREGATES through
        options = {str(k.arg): _keys(k.value) for k in call.keywords}
        value = self.term(call.args[0]) if len(call.args) == 1 else None
        if not isinstance(value, Var):
            self.error(call, f"`{ast.unparse(call)}` must aggregate one variable")
        elif kind in ("min", "max") and [ast.unparse(n) for n in options.get("order_by", [])] != [value.name]:
            self.error(
                call,
                f"{name} ordered by another column (an argmin) has no compiled counterpart: "
                "order by the value itself",
            )
        elif set(options) - {"for_each", "order_by"}:
            self.error(
                call, f"{name}: keyword(s) {', '.join(sorted(set(options) - {'for_each', 'order_by'}))}"
            )
        else:
            for_each = tuple(self.term(n) for n in options.get("for_each", []))
            if not all(isinstance(v, Var) for v in for_each):
                self.error(call, "for_each names variables")
                return None
            return Aggregate(kind, value, for_each)  # type: ignore[arg-type]
        return None

    def literal(self, node: ast.expr) -> list[Literal | Comparison]:
        if isinstance(node, ast.Call):
            return [Literal(self.atom(node))]
        if isinstance(node, ast.UnaryOp):  # `~p(...)` (lint refuses every other unary literal)
            return [Literal(self.atom(node.operand), negated=True)]  # type: ignore[arg-type]
        assert isinstance(node, ast.Compare)
        op, left, right = node.ops[0], node.left, node.comparators[0]
        if isinstance(left, ast.Subscript):  # a function lookup `(f[K] == N)`: the relation f(K, N)
            keys = tuple(self.arg(k) for k in _keys(left.slice))
            name = left.value.id  # type: ignore[attr-defined]
            self.uses.append((Relation(name, len(keys) + 1, True), f"{self.filename}:{self.line}"))
            if isinstance(op, ast.Eq) and isinstance(right, (ast.Name, ast.Constant)):
                return [Literal(Atom(name, (*keys, self.arg(right))))]
            self.fresh += 1
            value = Var(str(self.fresh))  # a digit-led name no rule variable can have
            return [Literal(Atom(name, (*keys, value))), self.comparison(node, op, value, right)]
        return [self.comparison(node, op, self.term(left), right)]

    def comparison(self, node: ast.expr, op: ast.cmpop, left: Term, right: ast.expr) -> Comparison:
        if isinstance(op, ast.In):
            items = right.elts if isinstance(right, (ast.Tuple, ast.List)) else []
            consts = tuple(self.term(n) for n in items)
            if not consts or not all(isinstance(c, Const) for c in consts):
                self.error(node, f"`{ast.unparse(node)}`: `in` takes a tuple of constants")
            return Comparison("in", left, consts)  # type: ignore[arg-type]
        if type(op) not in _COMPARE:
            self.error(node, f"comparison `{ast.unparse(node)}`: only == != < <= > >= and `in` are portable")
            return Comparison("==", left, left)
        return Comparison(_COMPARE[type(op)], left, self.term(right))

    def atom(self, call: ast.Call) -> Atom:
        name = call.func.id  # type: ignore[attr-defined]
        atom = Atom(name, tuple(self.arg(a) for a in call.args))
        self.uses.append((Relation(name, len(atom.args), False), f"{self.filename}:{self.line}"))
        return atom

    def arg(self, node: ast.expr) -> Var | Const:
        term = self.term(node)
        if isinstance(term, Arith):  # lint refuses these; keep the type honest
            self.error(node, f"expression `{ast.unparse(node)}` as an argument")
            return Const(0)
        return term

    def term(self, node: ast.expr) -> Term:
        if isinstance(node, ast.Name):  # a bare lower-case name is the string of that name
            return Var(node.id) if _is_variable(node.id) else Const(node.id)
        if isinstance(node, ast.Constant):
            return self.const(node, node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            if isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
                return self.const(node, -node.operand.value)
            return Arith("neg", self.term(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            return Arith(_ARITH[type(node.op)], self.term(node.left), self.term(node.right))
        self.error(
            node, f"`{ast.unparse(node)}`: only variables, str/int constants and + - * // % are portable"
        )
        return Const(0)

    def const(self, node: ast.expr, value: object) -> Const:
        if type(value) is not int and type(value) is not str:
            self.error(node, f"constant {value!r}: only str and int constants are portable")
            return Const(0)
        return Const(value)


def _relations(uses: Iterable[tuple[Relation, str]]) -> dict[str, Relation]:
    relations: dict[str, Relation] = {}
    for rel, where in uses:
        if (other := relations.setdefault(rel.name, rel)) != rel:
            raise RuleError(
                f"{where}: relation `{rel.name}` is used as {other} and as {rel}: "
                "pyDatalog would treat them as unrelated predicates"
            )
    return relations


def _dependencies(rules: Iterable[Rule]) -> tuple[Dependency, ...]:
    """Who reads whom; an aggregate reads its body complete, as a negation does."""
    return tuple(
        sorted(
            {
                Dependency(
                    f"{rule.head.relation}/{rule.arity}",
                    f"{lit.atom.relation}/{len(lit.atom.args)}",
                    lit.negated or rule.aggregate is not None,
                )
                for rule in rules
                for lit in rule.body
                if isinstance(lit, Literal)
            },
            key=lambda d: (d.head, d.body, d.negative),
        )
    )


def _strata(heads: Iterable[str], deps: Sequence[Dependency]) -> tuple[tuple[str, ...], ...]:
    """Derived relations grouped by stratum: one level up per negative edge between SCCs."""
    stratum: dict[str, int] = {}
    for scc in check_stratification(heads, deps):
        level = max(
            (
                stratum[d.body] + d.negative
                for d in deps
                if d.head in scc and d.body in stratum and d.body not in scc
            ),
            default=0,
        )
        stratum.update(dict.fromkeys(scc, level))
    levels = sorted(set(stratum.values()))
    return tuple(
        tuple(sorted(pid.rpartition("/")[0] for pid, lv in stratum.items() if lv == level))
        for level in levels
    )


def _terms_vars(term: Term | tuple[Const, ...] | None) -> set[str]:
    if isinstance(term, Var):
        return {term.name}
    if isinstance(term, Arith):
        return _terms_vars(term.left) | _terms_vars(term.right)
    return set()


class RuleProgram:
    """A set of rule files, linted, read into `Rule`s and stratified, once per process.

    Build one with ``RuleProgram.load(names)`` (packaged files, cached per process),
    ``RuleProgram.load(names, directory=...)`` or ``RuleProgram.from_texts({...})``; evaluate
    it with ``legalog.rules.engine.evaluate``.  Each backend prepares its own program from it
    once (and caches it per program), so the rule text is read exactly once.
    """

    def __init__(self, sources: Sequence[tuple[str, str]]) -> None:
        """`sources` are (file name, rule text) pairs; lint, portability and stratification errors raise."""
        self.sources = tuple(sources)
        read = [_read_source(name, text) for name, text in self.sources]
        if errors := [e for source in read for e in source.errors]:
            raise RuleLintError(errors)
        rules = [rule for source in read for rule in source.rules]
        uses = [use for source in read for use in source.uses]
        self.rules = tuple(rules)
        self.relations: Mapping[str, Relation] = _relations(uses)
        heads = {rule.head.relation for rule in rules}
        self.derived = frozenset(heads)
        """Relations defined by a rule (or a fact in a rule file)."""
        self.inputs: Mapping[str, int] = {
            r.name: r.arity for r in self.relations.values() if r.name not in heads
        }
        """Relations the rules read but never define: name -> arity. They come from the facts."""
        self.dependencies = _dependencies(rules)
        self.strata = _strata(
            {f"{r.name}/{r.arity}" for r in self.relations.values() if r.name in heads}, self.dependencies
        )
        """Derived relations grouped by stratum (negation/aggregation boundaries); raises on a cycle."""
        self.defined_in: Mapping[str, frozenset[str]] = {
            Path(name).stem: frozenset(rule.head.relation for rule in source.rules)
            for (name, _), source in zip(self.sources, read, strict=True)
        }
        """Rule file stem -> the relations its rules define (what a pass reads of that file)."""

    @functools.cache  # noqa: B019 - programs live for the process (they are cached themselves)
    def closure(self, outputs: frozenset[str] | None) -> frozenset[str]:
        """The derived relations `outputs` are computed from (themselves included); all of them
        when `outputs` is None."""
        if outputs is None:
            return self.derived
        reads: dict[str, set[str]] = {}
        for dep in self.dependencies:
            reads.setdefault(dep.head.rpartition("/")[0], set()).add(dep.body.rpartition("/")[0])
        wanted, todo = set(), [name for name in outputs if name in self.derived]
        while todo:
            if (name := todo.pop()) not in wanted:
                wanted.add(name)
                todo += [r for r in reads.get(name, ()) if r in self.derived]
        return frozenset(wanted)

    def firable(self, facts: Mapping[str, Collection[Row]]) -> tuple[int, ...]:
        """Indices of the rules that can derive anything over `facts`: a rule one of whose
        positive body atoms can match nothing (an input relation with no row holding its
        constants, or a derived one none of whose rules can fire) derives nothing, so leaving it
        out changes no relation.  Most small programs have no Graph, or no launch, so most of
        the rules have nothing to do."""
        return _firable(self, _present(self, facts))

    @classmethod
    def load(
        cls,
        names: Sequence[str],
        directory: str | Path | None = None,
        *,
        declared: Mapping[str, Declaration] | None = None,
    ) -> RuleProgram:
        """Rule files `<name>.pyd` from `directory` (default: the packaged rules), cached by content.
        The packaged files are read once per process: every analysis loads the pass and verifier
        programs, and they cannot change under a running legalog.  The packaged rules are held to
        the schema's declarations (`check_declared`), files from a `directory` to `declared` when
        given (a test's own relations `p`, `q` are declared nowhere)."""
        if directory is None:
            return _packaged_program(tuple(names))
        program = _cached_program(_read_sources(tuple(names), Path(directory)))
        if declared is not None:
            check_declared(program, declared)
        return program

    @classmethod
    def from_texts(cls, texts: Mapping[str, str]) -> RuleProgram:
        """Rule texts keyed by a display name (used in error locations); cached by content."""
        return _cached_program(tuple(texts.items()))

    def __repr__(self) -> str:
        return f"RuleProgram({[name for name, _ in self.sources]!r})"


_Present = frozenset[tuple[str, int, object]]


def _present(rules: RuleProgram, facts: Mapping[str, Collection[Row]]) -> _Present:
    """What of `facts` decides which rules can fire: (input, -1, True) for an input relation with
    rows, (input, column, value) for each constant a rule body names there that a row holds,
    (derived, -1, True) for a derived relation the facts give rows of.  Small, and the same for
    a pass and its verifier, so the rule walk behind it is done once (`_firable`)."""
    present: set[tuple[str, int, object]] = set()
    for name, columns in _constant_values(rules).items():
        if rows := facts.get(name):
            present.add((name, -1, True))
            for column, values in columns:
                present.update((name, column, v) for v in values.intersection(row[column] for row in rows))
    present.update((name, -1, True) for name in rules.derived if facts.get(name))
    return frozenset(present)


@functools.cache
def _constant_values(rules: RuleProgram) -> Mapping[str, tuple[tuple[int, frozenset[object]], ...]]:
    """Input relation -> (column, the constants rule bodies name there) for every input."""
    named: dict[str, dict[int, set[object]]] = {name: {} for name in rules.inputs}
    for rule in rules.rules:
        for lit in rule.body:
            if isinstance(lit, Literal) and not lit.negated and lit.atom.relation in rules.inputs:
                for i, arg in enumerate(lit.atom.args):
                    if isinstance(arg, Const):
                        named[lit.atom.relation].setdefault(i, set()).add(arg.value)
    return {name: tuple((c, frozenset(v)) for c, v in cols.items()) for name, cols in named.items()}


@functools.lru_cache(maxsize=256)
def _firable(rules: RuleProgram, present: _Present) -> tuple[int, ...]:
    waiting: dict[str, list[int]] = {}
    missing: dict[int, int] = {}
    ready: list[int] = []
    for i, need in enumerate(_rule_needs(rules)):
        if not need.inputs <= present:
            continue
        missing[i] = len(need.derived)
        for name in need.derived:
            waiting.setdefault(name, []).append(i)
        if not need.derived:
            ready.append(i)
    # a derived relation the facts also give rows of is non-empty whatever its rules do
    possible = {name for name in rules.derived if (name, -1, True) in present}
    for name in possible:
        ready += _release(name, waiting, missing)
    kept: set[int] = set()
    while ready:
        kept.add(i := ready.pop())
        if (head := rules.rules[i].head.relation) not in possible:
            possible.add(head)
            ready += _release(head, waiting, missing)
    return tuple(sorted(kept))


@dataclass(frozen=True)
class _Need:
    """What one rule needs to fire: rows of its positive input atoms holding their constants
    (column by column: an over-approximation, which only ever keeps a rule that derives
    nothing), and a row of each relation of its positive derived atoms."""

    head: str
    # the `_present` keys of its input atoms: (relation, -1, True), and (relation, column,
    # value) for each constant: one subset test against the facts' keys
    inputs: frozenset[tuple[str, int, object]]
    derived: frozenset[str]


@functools.cache
def _rule_needs(rules: RuleProgram) -> tuple[_Need, ...]:
    needs = []
    for rule in rules.rules:
        atoms = [lit.atom for lit in rule.body if isinstance(lit, Literal) and not lit.negated]
        inputs = frozenset(
            key
            for atom in atoms
            if atom.relation in rules.inputs
            for key in (
                (atom.relation, -1, True),
                *((atom.relation, i, arg.value) for i, arg in enumerate(atom.args) if isinstance(arg, Const)),
            )
        )
        needs.append(
            _Need(
                rule.head.relation,
                inputs,
                frozenset(atom.relation for atom in atoms if atom.relation in rules.derived),
            )
        )
    return tuple(needs)


def _release(name: str, waiting: Mapping[str, list[int]], missing: dict[int, int]) -> list[int]:
    """The rules that became ready now that `name` can hold a row."""
    ready = []
    for i in waiting.get(name, ()):
        missing[i] -= 1
        if missing[i] == 0:
            ready.append(i)
    return ready


def _read_sources(names: tuple[str, ...], base: Path) -> tuple[tuple[str, str], ...]:
    paths = (base / (name if name.endswith(".pyd") else f"{name}.pyd") for name in names)
    return tuple((str(path), path.read_text(encoding="utf-8")) for path in paths)


@functools.cache
def _packaged_program(names: tuple[str, ...]) -> RuleProgram:
    """A packaged program, kept between processes (legalog.rules.disk_cache): read afresh only when
    legalog, this module or a rule file changed, or when what was kept does not hold exactly
    these files."""
    from legalog.rules import disk_cache

    sources = _read_sources(names, RULES_DIR)
    # what builds a program: this module (the reader, the classes) and the stratifier it calls
    builders = [Path(__file__), Path(inspect.getfile(strongly_connected_components))]
    key = disk_cache.key(
        [
            *(path.read_text(encoding="utf-8") for path in builders),
            *(part for source in sources for part in source),
        ]
    )
    program = disk_cache.read(key, {__name__: _KEPT_CLASSES})
    if not (isinstance(program, RuleProgram) and program.sources == sources):
        program = _cached_program(sources)
        disk_cache.write(key, program)
    # checked here, not when built: the key names the rule files, not the schema, so a kept
    # program is held to the declarations of the legalog reading it
    check_declared(program, DECLARED)
    return program


def check_declared(rules: RuleProgram, declared: Mapping[str, Declaration]) -> None:
    """Every relation `rules` define (each rule head) is in `declared` with as many columns; else
    a DeclarationError at the first rule defining it (file:line).  What they read of the facts is
    the extractor's, held to its declarations by `validate_facts` and tests/rules/test_rule_files.py."""
    errors: dict[str, str] = {}
    for rule in rules.rules:
        name, arity = rule.head.relation, rule.arity
        if name in errors or ((decl := declared.get(name)) is not None and decl.arity == arity):
            continue
        errors[name] = (
            f"{rule.where}: the rule derives `{name}/{arity}`, which legalog/facts/schema.py does not "
            "declare: declare it there (DERIVED_RELATIONS) with its columns"
            if decl is None
            else f"{rule.where}: the rule derives `{name}` with {arity} columns, declared with "
            f"{decl.arity}: {decl.signature()}"
        )
    if errors:
        raise DeclarationError("\n".join(errors.values()))


# What a kept RuleProgram's pickle is made of (`disk_cache.read` refuses any other global).
_KEPT_CLASSES = frozenset(
    {
        "RuleProgram",
        "Rule",
        "Atom",
        "Var",
        "Const",
        "Arith",
        "Literal",
        "Comparison",
        "Aggregate",
        "Relation",
        "Dependency",
    }
)


@dataclass(frozen=True)
class _Source:
    """One rule file, linted and read: programs share their files (the pass, explain and verifier
    programs have nine in common), so each file is read once per process."""

    errors: tuple[LintError, ...]
    rules: tuple[Rule, ...]
    uses: tuple[tuple[Relation, str], ...]


@functools.lru_cache(maxsize=64)
def _read_source(name: str, text: str) -> _Source:
    tree, errors = _parse_and_lint(text, name)
    if errors or tree is None:
        return _Source(tuple(errors), (), ())
    reader = _Reader(name)
    rules = reader.read(tree)
    return _Source(tuple(reader.errors), tuple(rules), tuple(reader.uses))


@functools.lru_cache(maxsize=32)
def _cached_program(sources: tuple[tuple[str, str], ...]) -> RuleProgram:
    return RuleProgram(sources)


# --------------------------------------------------------------------------- rules as text


def rules_text(rules: Sequence[Rule], functions: frozenset[str]) -> str:
    """`rules` written back in the rule language (a program the front end reads as it read them),
    as the compiled engine's generated code quotes each rule; `functions` are the function
    relations these rules define (`f[K] == V` in a body); any other relation is read as a plain one."""
    lines = ["# rules written back by legalog.rules.language.rules_text"]
    for rule in rules:
        fresh = {name for lit in rule.body for name in _literal_vars(lit) if not _is_variable(name)}
        names = {name: f"Fresh_{name}" for name in fresh}  # a digit-led name the reader made up
        if not rule.body:
            lines.append(f"+ {_atom_text(rule.head, names)}")
            continue
        body = " & ".join(_literal_text(lit, functions, names) for lit in rule.body)
        if rule.aggregate is None:
            lines.append(f"{_atom_text(rule.head, names)} <= {body}")
            continue
        agg = rule.aggregate
        keys = ", ".join(_term_text(a, names) for a in rule.head.args)
        value = _term_text(agg.value, names)
        option = {"len": "", "min": f", order_by={value}", "max": f", order_by={value}"}.get(agg.kind)
        if option is None:  # sum
            each = [_term_text(v, names) for v in agg.for_each]
            option = f", for_each={each[0] if len(each) == 1 else '(' + ', '.join(each) + ')'}"
        lines.append(f"({rule.head.relation}[{keys}] == {agg.kind}_({value}{option})) <= {body}")
    return "\n".join(lines) + "\n"


def _literal_vars(lit: Literal | Comparison) -> set[str]:
    if isinstance(lit, Literal):
        return {a.name for a in lit.atom.args if isinstance(a, Var)}
    right = set() if isinstance(lit.right, tuple) else _terms_vars(lit.right)
    return _terms_vars(lit.left) | right


def _term_text(term: Term, names: Mapping[str, str]) -> str:
    if isinstance(term, Var):
        return names.get(term.name, term.name)
    if isinstance(term, Const):
        return repr(term.value)
    if term.right is None:
        return f"(-{_term_text(term.left, names)})"
    return f"({_term_text(term.left, names)} {term.op} {_term_text(term.right, names)})"


def _atom_text(atom: Atom, names: Mapping[str, str]) -> str:
    return f"{atom.relation}({', '.join(_term_text(a, names) for a in atom.args)})"


def _literal_text(lit: Literal | Comparison, functions: frozenset[str], names: Mapping[str, str]) -> str:
    if isinstance(lit, Comparison):
        right = (
            f"({', '.join(_term_text(c, names) for c in lit.right)},)"
            if isinstance(lit.right, tuple)
            else _term_text(lit.right, names)
        )
        return f"({_term_text(lit.left, names)} {lit.op} {right})"
    atom = lit.atom
    if atom.relation in functions:
        *keys, value = (_term_text(a, names) for a in atom.args)
        text = f"({atom.relation}[{', '.join(keys)}] == {value})"
    else:
        text = _atom_text(atom, names)
    return f"~{text}" if lit.negated else text


# --------------------------------------------------------------------------- facts


# What an evaluation reads: rows by relation name, or legalog's own fact store.
Facts = Mapping[str, Iterable[tuple]] | FactStore


def validate_facts(rules: RuleProgram, facts: Facts) -> dict[str, frozenset[Row]]:
    """Checks names, arities and column types; returns name -> distinct rows (as an answer holds
    them: an engine hands the input relations back without another copy).

    The same checks stand in front of every engine, so a fact set one engine refuses the
    other refuses too.  A relation is checked whole at C speed (the types of its rows, their
    lengths, the types of their values); only a failing one is walked row by row, for the message.
    A `FactStore` checked each row against its declaration as it went in, so of its relations
    only the names are checked, and each declaration against the rules, once.
    """
    if isinstance(facts, FactStore):
        return {name: frozenset(rows) for name, rows in store_rows(rules, facts).items()}
    return {name: _checked(rules, name, rows) for name, rows in facts.items()}


def store_rows(rules: RuleProgram, store: FactStore) -> dict[str, Collection[Row]]:
    """A `FactStore`'s relations, as `validate_facts` checks them, uncopied: the store's own lists
    (its rows may repeat), and the checked distinct rows of a relation the rules read with other
    columns than declared."""
    return {
        name: rows if _as_declared(rules, name) else _checked(rules, name, rows)
        for name, rows in store.as_mapping().items()
    }


@functools.lru_cache(maxsize=4096)
def _as_declared(rules: RuleProgram, name: str) -> bool:
    """Whether the rules read the declared relation `name` with its declared columns (then its
    rows in a `FactStore` need no check; tests/rules/test_rule_files.py holds every rule to it)."""
    rel = _fact_relation(rules, name)
    return rel is None or rel.arity == RELATIONS[name].arity


def _checked(rules: RuleProgram, name: str, rows: Iterable[tuple]) -> frozenset[Row]:
    """The distinct rows of relation `name`, checked (`validate_facts`)."""
    rel = _fact_relation(rules, name)
    listed = rows if isinstance(rows, (list, tuple, set, frozenset)) else list(rows)
    if not listed:
        return _NO_ROWS  # most relations of a small program: nothing to look at
    if not set(map(type, listed)) <= _ROW_TYPES:
        _refuse(name, rel, listed)
    arities = set(map(len, listed))
    if (
        len(arities) > 1
        or (rel is not None and rel.arity not in arities)
        or not set(map(type, itertools.chain.from_iterable(listed))) <= _VALUE_TYPES
    ):
        _refuse(name, rel, listed)
    return frozenset(listed)


_ROW_TYPES = frozenset({tuple})
_VALUE_TYPES = frozenset({str, int})
_NO_ROWS: frozenset[Row] = frozenset()


@functools.lru_cache(maxsize=4096)
def _fact_relation(rules: RuleProgram, name: object) -> Relation | None:
    """The relation facts named `name` fill (None: one the rules do not read); a FactError for a
    name no engine can hold.  The same few names recur in every evaluation: checked once."""
    if not isinstance(name, str) or not name.isidentifier() or _is_variable(name):
        raise FactError(f"relation name {name!r} is not a lower-case identifier")
    if name in BUILTIN_NAMES:
        raise FactError(f"relation name `{name}` is a Python built-in; pyDatalog cannot store it")
    rel = rules.relations.get(name)
    if rel is not None and rel.function:
        raise FactError(f"`{name}` is computed by a function rule ({rel}); it takes no facts")
    return rel


def _refuse(name: str, rel: Relation | None, rows: Iterable[object]) -> NoReturn:
    """Raises the FactError for the first row `validate_facts` refuses."""
    arity = rel.arity if rel is not None else None
    for row in rows:
        if not isinstance(row, tuple):
            raise FactError(f"{name}: row {row!r} is not a tuple")
        if arity is None:
            arity = len(row)
        elif len(row) != arity:
            where = "the rules use" if rel is not None else "earlier rows have"
            raise FactError(f"{name}: row {row!r} has {len(row)} columns but {where} {arity}")
        for value in row:
            if type(value) is not str and type(value) is not int:
                raise FactError(
                    f"{name}{row!r}: column value {value!r} is {type(value).__name__}; "
                    "facts hold only str and int (pyDatalog equates 1, 1.0 and True)"
                )
    raise AssertionError(f"{name}: refused, yet every row is fine")


# --------------------------------------------------------------------------- results


# A row as a decision reads it.  Every value is a `str` or an `int`, but which one a column holds
# is fixed by the relation's rule file (or its schema declaration), which Python's types cannot
# follow through a relation name; readers unpack rows into the types their relation declares.
ReadRow = tuple[Any, ...]


class Derived(Mapping[str, frozenset[ReadRow]]):
    """Every relation of one evaluation (inputs and derived): name -> frozenset of rows.

    Unknown names raise ``KeyError`` on purpose: pyDatalog's silent "undefined means empty"
    is the trap this layer exists to close. Relations the rules mention but nobody filled
    are present and empty.  An engine may hand relations over as the sets it computed them in,
    which the answer owns from then on and freezes on first read (most relations of an
    evaluation are never read).
    """

    def __init__(self, relations: Mapping[str, Collection[Row]]) -> None:
        self._relations = dict(relations)

    def __getitem__(self, name: str) -> frozenset[ReadRow]:
        rows = self._relations[name]
        if type(rows) is not frozenset:
            rows = self._relations[name] = frozenset(rows)
        return rows

    def __contains__(self, name: object) -> bool:
        return name in self._relations

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._relations))

    def __len__(self) -> int:
        return len(self._relations)

    def sorted(self, name: str) -> list[ReadRow]:
        """Rows of `name` in a deterministic order (ints before strs within a column)."""
        return sorted(self[name], key=_row_key)

    def __repr__(self) -> str:
        return "Derived(" + ", ".join(self) + ")"


def _row_key(row: Row) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, v) if isinstance(v, int) else (1, v) for v in row)
