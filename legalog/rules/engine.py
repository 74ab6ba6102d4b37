"""The engine layer every rule file runs on: load, lint, stratify, evaluate.

pyDatalog (0.22.4) accepts almost any text and then hangs or silently answers nothing
(see shared/design/PYDATALOG.md). This module is the fence around it:

* ``lint`` rejects the rule shapes that pyDatalog mis-reads without an error (§2.9).
* ``check_stratification`` rejects recursion through negation or aggregation, on which
  pyDatalog never terminates (§2.6).
* ``RuleProgram`` loads a set of rule files once per process and keeps the loaded
  database as a private, rules-only snapshot.
* ``evaluate`` runs one program's facts against that snapshot, bottom-up: each derived
  predicate is asked once with all arguments free, in dependency order, and its answers
  replace its rules, so later strata read stored facts (§4, "materialize" mode).
  After the run the snapshot is restored in place, so no fact leaks into the next call.

Only ``str`` and ``int`` constants may reach the engine: pyDatalog compares constants
with ``==``, so ``1``, ``1.0`` and ``True`` are one constant (§2.7).
"""

from __future__ import annotations

import ast
import builtins
import functools
import gc
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pyDatalog import pyEngine, pyParser
from pyDatalog.Logic import Logic

__all__ = [
    "Dependency",
    "Derived",
    "FactError",
    "LintError",
    "RuleError",
    "RuleLintError",
    "RuleProgram",
    "StratificationError",
    "check_stratification",
    "evaluate",
    "lint",
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
    """Recursion through negation or an aggregate: pyDatalog would not terminate."""


class FactError(RuleError, ValueError):
    """Facts handed to ``evaluate`` that the engine would silently mis-read."""


# --------------------------------------------------------------------------- lint

AGGREGATES: Mapping[str, tuple[str, ...]] = {
    # aggregate name -> keyword arguments pyDatalog requires (else "argument missing")
    "sum_": ("for_each",),
    "len_": (),
    "min_": ("order_by",),
    "max_": ("order_by",),
    "concat_": ("order_by", "sep"),
    "rank_": ("order_by",),
    "running_sum_": ("group_by", "order_by"),
    "mean_": ("for_each",),
    "tuple_": ("order_by",),
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
            self.error(value, "`,` between body literals builds a Python tuple: pyDatalog silently keeps "
                              "only the first literal; join literals with `&`")
        elif isinstance(value, ast.BoolOp):
            self.error(value, "`and`/`or` in a rule: Python reads `(head <= a) and b`, so pyDatalog "
                              "silently drops the rest of the body; join literals with `&`")
        elif isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.UAdd):
            self.fact(value.operand)
        elif isinstance(value, ast.Compare) and isinstance(value.ops[0], ast.LtE):
            if len(value.ops) > 1:
                self.error(value, "unparenthesised comparison in a rule body: write `& (N > 3)`, "
                                  "not `& N > 3` (pyDatalog: 'please verify parenthesis')")
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
            self.error(head, f"variable(s) {', '.join(unbound)} only in the head (or only under `~`): "
                             "pyDatalog answers True-like rows without values; bind them in the body")
        underscores = sum(1 for n in ast.walk(body) if isinstance(n, ast.Name) and n.id == "_")
        if underscores > 1:
            self.error(body, "`_` is an ordinary variable in pyDatalog, not a wildcard: every `_` in a rule "
                             "must be equal; use distinct names (_A, _B)")

    def head(self, head: ast.expr) -> set[str]:
        """Checks the head; returns the variables it needs bound."""
        if isinstance(head, ast.Call) and isinstance(head.func, ast.Name):
            self.pred_name(head, head.func.id)
            if head.keywords:
                self.error(head, "keyword arguments in a head are not supported")
            return self.plain_args(head.args, "head", allow_none=False)
        if (isinstance(head, ast.Compare) and len(head.ops) == 1 and isinstance(head.ops[0], ast.Eq)
                and isinstance(head.left, ast.Subscript) and isinstance(head.left.value, ast.Name)):
            self.pred_name(head, head.left.value.id)
            needed = self.plain_args(_keys(head.left.slice), "function key", allow_none=True)
            value = head.comparators[0]
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                name = _RENAMED_AGGREGATES.get(value.func.id, value.func.id)
                if name not in AGGREGATES:
                    self.error(value, f"`{value.func.id}(...)` in a function head is not an aggregate "
                                      f"({', '.join(sorted(AGGREGATES))})")
                    return needed
                given = {k.arg for k in value.keywords}
                if missing := [k for k in AGGREGATES[name] if k not in given]:
                    self.error(value, f"{name} needs {', '.join(k + '=' for k in missing)} "
                                      "(pyDatalog: 'argument missing in aggregate')")
                return needed | self.plain_args(value.args, "aggregate", allow_none=False) | {
                    v for k in value.keywords for v in _variables(k.value)}
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
                self.error(arg, f"expression `{ast.unparse(arg)}` as a {where} argument: pyDatalog "
                                "silently yields nothing; bind it in the body, e.g. `(M == N * 2)`")
        return variables

    def constant(self, node: ast.expr, where: str) -> None:
        if isinstance(node, ast.Name):
            if node.id in ("True", "False", "None"):
                self.error(node, f"`{node.id}` as a {where} constant: bools equal the ints 1/0 in "
                                 "pyDatalog; use a string or int")
            return
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (str, int)):
                self.error(node, f"constant {node.value!r} in a {where}: only str and int constants "
                                 "are safe (bools equal ints, floats are rounded)")
            return
        self.error(node, f"`{ast.unparse(node)}` is not a constant")

    def pred_name(self, node: ast.AST, name: str) -> None:
        if name in BUILTIN_NAMES or name in AGGREGATES:
            self.error(node, f"predicate name `{name}` is a Python built-in: pyDatalog never makes it a "
                             "predicate (silently nothing, TypeError, or an aggregate error); rename it")
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
                self.error(lit, "negate a named helper predicate (`~has_x(V)`), not a conjunction or "
                                "expression: it can then be materialised and explained")
                return
            self.pred_name(inner, inner.func.id)
            self.plain_args(inner.args, "negated literal", allow_none=False)
            if free := sorted(_variables(inner) - bound):
                self.error(lit, f"negated literal `{ast.unparse(lit)}`: variable(s) {', '.join(free)} not "
                                "bound by an earlier positive literal (an empty result, or 'no such "
                                "tuple' if existential); bind them first or negate a helper predicate")
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
                self.error(call, f"call `{ast.unparse(call)}` inside a comparison: aggregates belong in a "
                                 "function head, predicates in their own literal")
        lfree, rfree = _variables(left) - bound, _variables(right) - bound
        if isinstance(op, ast.Eq) and not rfree and isinstance(left, ast.Name) and lfree:
            bound.add(left.id)
        elif isinstance(op, ast.Eq) and not lfree and isinstance(right, ast.Name) and rfree:
            bound.add(right.id)
        elif isinstance(op, ast.In) and isinstance(left, ast.Name) and not rfree:
            bound.add(left.id)
        elif free := sorted(lfree | rfree):
            self.error(cmp, f"comparison `{ast.unparse(cmp)}` before {', '.join(free)} is bound: "
                            "pyDatalog gives an empty result or 'must be bound'; move it after the "
                            "literal that binds it")


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
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as exc:
        line = exc.lineno or 0
        hint = ""
        if ":-" in (text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""):
            hint = " (Prolog `:-` is not pyDatalog syntax: write `head <= body`)"
        elif str(exc.msg) == "invalid syntax":
            hint = " (a rule spanning several lines must be wrapped in parentheses)"
        return [LintError(filename, line, f"syntax error: {exc.msg}{hint}")]
    linter = _RuleLinter(filename)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if not first.lstrip().startswith("#"):
        linter.errors.append(LintError(filename, 1, "a rule file must start with a `#` comment header "
                                                    "naming the spec paragraph it implements"))
    for stmt in tree.body:
        linter.statement(stmt)
    return sorted(linter.errors)


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

    # Tarjan, iterative (rule sets are small, but recursion limits are not worth the risk).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    sccs: list[tuple[str, ...]] = []
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                succ = edges[node][i].body
                if succ not in index:
                    work.append((succ, 0))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    scc.append(member)
                    if member == node:
                        break
                sccs.append(tuple(sorted(scc)))
    component = {member: scc for scc in sccs for member in scc}
    for n in nodes:
        for dep in edges[n]:
            if dep.negative and component[dep.head] is component[dep.body]:
                raise StratificationError(f"recursion through negation: {dep.head} depends negatively "
                                          f"on {dep.body}")
    return tuple(sccs)


# --------------------------------------------------------------------------- the engine bridge

_FUNCTION = re.compile(r"^(?P<name>[^\[\]!~]+)\[(?P<keys>\d+)\](?P<op>==|!=|<=|>=|<|>)$")
_CLASS = "_pyD_class"  # pyDatalog's placeholder first term of every function literal


@dataclass(frozen=True)
class _Relation:
    """How a user-facing relation maps onto one pyDatalog predicate."""

    name: str
    arity: int  # user-facing arity (a function `f[K]==V` is the relation f(K, V))
    pred_id: str
    function: bool


def _relation_of(pred_id: str) -> _Relation | None:
    """User-facing view of a pyDatalog predicate id, or None for engine internals."""
    name, _, arity_text = pred_id.rpartition("/")
    arity = int(arity_text)
    if m := _FUNCTION.match(name):
        if m["op"] != "==":
            return None
        return _Relation(m["name"], arity - 1, pred_id, True)
    if not name or name.startswith(("~", "_pyD_")) or not name.isidentifier():
        return None
    return _Relation(name, arity, pred_id, False)


def _body_target(literal: object) -> tuple[str, bool] | None:
    """The predicate a body literal depends on, and whether the dependency is negative."""
    pred = literal.pred  # type: ignore[attr-defined]
    if pred.prim is not None:
        return None
    name, arity = pred.name, pred.arity
    if getattr(literal, "aggregate", None) is not None:
        return f"{name}/{arity - 1}", True  # the aggregate is computed over the completed base
    if name.startswith("~"):
        return f"{name[1:]}/{arity}", True
    if (m := _FUNCTION.match(name)) and m["op"] != "==":
        return f"{m['name']}[{m['keys']}]==/{arity}", False
    return pred.id, False


@dataclass
class _Saved:
    """A predicate's rules-only state, restored in place after every evaluation."""

    pred: object
    clauses: list[object]
    facts: list[object]
    recursive: bool
    prearity: int | None


def _check_storage_layout(pred: object) -> None:
    """Fails fast if the installed engine stores facts differently from what we write into.

    The wheel's compiled ``pyEngine`` .so is built from an older source than the
    ``pyEngine.py`` shipped next to it: it keeps ``pred.db`` / ``pred.clauses`` as dicts
    keyed by clause id and ``pred.index`` as a list of ``{term id: set(clause)}``. The
    .py file's ``FactDb``/``FactIndex`` layout is only used if the .so fails to import.
    """
    if not (isinstance(pred.db, dict) and isinstance(pred.index, list)):  # type: ignore[attr-defined]
        raise RuntimeError(f"unsupported pyDatalog fact storage {type(pred.db).__name__}/"  # type: ignore[attr-defined]
                           f"{type(pred.index).__name__}: legalog expects the compiled 0.22.4 engine "
                           "(dict db, list-of-dict index)")


@contextmanager
def _active(logic: object) -> Iterator[None]:
    """Makes `logic` this thread's pyDatalog database for the block, then puts back the old one.

    pyDatalog keeps its database in a thread-local (`Logic.tl`); switching the handle is
    free, unlike `Logic(snapshot)`, which copies the predicate dict.
    """
    tl = Logic.tl
    previous = getattr(tl, "logic", None)
    tl.logic = logic
    if not hasattr(pyEngine.Fresh_var.tl, "counter"):
        pyEngine.Fresh_var.tl.counter = 0
    if not hasattr(pyParser.Thread_storage, "variables"):
        pyParser.clear()
    try:
        yield
    finally:
        if previous is None:
            del tl.logic
        else:
            tl.logic = previous


def _store_rows(pred: object, rows: Iterable[Row], consts: dict[object, object]) -> None:
    """Adds ground facts straight into a predicate's store (PYDATALOG.md §2.2, fastest path).

    `pyEngine.assert_` first retracts the clause (a hash probe plus a Python loop) to keep
    functions single-valued; rows here are already distinct and functions come from
    pyDatalog's own answers (one per key), so the store and index are filled directly.
    """
    literal_of, clause_of, const_of = pyEngine.Literal, pyEngine.Clause, pyEngine.Const
    db, index = pred.db, pred.index  # type: ignore[attr-defined]
    for row in rows:
        terms = []
        for value in row:
            if (term := consts.get(value)) is None or type(term.id) is not type(value):
                term = consts[value] = const_of(value)
            terms.append(term)
        clause = clause_of(literal_of(pred, terms), [])
        db[clause.get_id()] = clause
        for column, term in zip(index, terms):
            if (bucket := column.get(term.id)) is None:
                column[term.id] = {clause}
            else:
                bucket.add(clause)


class RuleProgram:
    """A set of rule files, linted, stratified and loaded once into a private pyDatalog database.

    Build one with ``RuleProgram.load(names)`` (packaged files, cached per process),
    ``RuleProgram.load(names, directory=...)`` or ``RuleProgram.from_texts({...})``.
    The database is only ever used through ``evaluate``, which restores it afterwards.
    """

    def __init__(self, sources: Sequence[tuple[str, str]]) -> None:
        """`sources` are (file name, rule text) pairs; lint and stratification errors raise."""
        self.sources = tuple(sources)
        errors = [e for name, text in self.sources for e in lint(text, name)]
        if errors:
            raise RuleLintError(errors)
        self._lock = threading.Lock()
        self._logic = object.__new__(Logic)
        with _active(self._logic):
            pyEngine.clear()
            pyParser.clear()
            for name, text in self.sources:
                pyParser.load(text, newglobals={}, function=name)
            for pred in list(self._logic.Db.values()):  # type: ignore[attr-defined]
                # `~r(X)` registers `~r/1` but not `r/1`; asking the negation of a relation
                # no rule defines then raises "Predicate without definition". Make it empty.
                base = getattr(pred, "base_pred", None)
                if base is not None and base.id not in self._logic.Db:  # type: ignore[attr-defined]
                    pyEngine.insert(base)
            db: dict[str, object] = dict(self._logic.Db)  # type: ignore[attr-defined]
            _check_storage_layout(pyEngine.Pred("_legalog_layout_probe", 1))
        self._db = db
        self._registry = dict(self._logic.Pred_registry)  # type: ignore[attr-defined]
        self._saved = [_Saved(p, list(p.clauses.values()),  # type: ignore[attr-defined]
                              [c for c in p.db.values() if not c.body],  # type: ignore[attr-defined]
                              p.recursive, p.prearity)  # type: ignore[attr-defined]
                       for p in db.values() if p.prim is None]  # type: ignore[attr-defined]
        self._build_schema()
        self._reset()

    # -- construction helpers

    @classmethod
    def load(cls, names: Sequence[str], directory: str | Path | None = None) -> RuleProgram:
        """Rule files `<name>.pyd` from `directory` (default: the packaged rules), cached by content."""
        base = Path(directory) if directory is not None else RULES_DIR
        sources = []
        for name in names:
            path = base / (name if name.endswith(".pyd") else f"{name}.pyd")
            sources.append((str(path), path.read_text(encoding="utf-8")))
        return _cached_program(tuple(sources))

    @classmethod
    def from_texts(cls, texts: Mapping[str, str]) -> RuleProgram:
        """Rule texts keyed by a display name (used in error locations); cached by content."""
        return _cached_program(tuple(texts.items()))

    def _build_schema(self) -> None:
        deps: list[Dependency] = []
        heads: set[str] = set()
        mentioned: set[str] = set()
        for saved in self._saved:
            pred = saved.pred
            if saved.clauses or saved.facts:
                heads.add(pred.id)  # type: ignore[attr-defined]
            for clause in saved.clauses:
                for literal in clause.body:  # type: ignore[attr-defined]
                    if (target := _body_target(literal)) is not None:
                        mentioned.add(target[0])
                        deps.append(Dependency(pred.id, target[0], target[1]))  # type: ignore[attr-defined]
        self.dependencies = tuple(deps)
        self.order = check_stratification(heads, deps)
        """SCCs of derived predicates (pyDatalog ids), dependencies first: the evaluation order."""

        relations: dict[str, _Relation] = {}
        for pred_id in sorted(heads | mentioned):
            if (rel := _relation_of(pred_id)) is None:
                continue
            if (other := relations.get(rel.name)) is not None and other != rel:
                raise RuleError(f"relation `{rel.name}` is used as {_show(other)} and as {_show(rel)}: "
                                "pyDatalog would treat them as unrelated predicates")
            relations[rel.name] = rel
        self.relations: Mapping[str, _Relation] = relations
        self.derived = frozenset(r.name for r in relations.values() if r.pred_id in heads)
        """Relations defined by a rule (or a fact in a rule file)."""
        self.inputs: Mapping[str, int] = {r.name: r.arity for r in relations.values()
                                           if r.pred_id not in heads}
        """Relations the rules read but never define: name -> arity. They come from the facts."""

        stratum: dict[str, int] = {}
        for scc in self.order:
            level = 0
            for dep in deps:
                if dep.head in scc and dep.body in stratum and dep.body not in scc:
                    level = max(level, stratum[dep.body] + (1 if dep.negative else 0))
            for member in scc:
                stratum[member] = level
        by_level: dict[int, list[str]] = {}
        for pred_id, level in stratum.items():
            if (rel := _relation_of(pred_id)) is not None:
                by_level.setdefault(level, []).append(rel.name)
        self.strata = tuple(tuple(sorted(set(by_level[k]))) for k in sorted(by_level))
        """User-facing derived relations grouped by stratum (negation/aggregation boundaries)."""

    # -- per-evaluation state

    def _reset(self) -> None:
        """Puts the rules-only database back: O(predicates + rules), independent of fact count.

        Predicates are pyDatalog objects shared with the rule clauses, so instead of
        copying the database (`Logic(snapshot)` copies only the dict, and would leak facts
        into the shared predicates) each predicate gets fresh stores refilled with its rules.
        """
        logic = self._logic
        logic.Db = dict(self._db)  # type: ignore[attr-defined]
        logic.Pred_registry.clear()  # type: ignore[attr-defined]
        logic.Pred_registry.update(self._registry)  # type: ignore[attr-defined]
        logic.Subgoals = {}  # type: ignore[attr-defined]
        for saved in self._saved:
            pred = saved.pred
            pred.recursive = saved.recursive  # type: ignore[attr-defined]
            pred.prearity = saved.prearity  # type: ignore[attr-defined]
            _clear_pred(pred)
            for clause in saved.clauses:
                key = clause.get_id()  # type: ignore[attr-defined]
                pred.db[key] = pred.clauses[key] = clause  # type: ignore[attr-defined]
            for clause in saved.facts:
                pred.db[clause.get_id()] = clause  # type: ignore[attr-defined]
                for column, term in zip(pred.index, clause.head.terms):  # type: ignore[attr-defined]
                    column.setdefault(term.id, set()).add(clause)

    def __repr__(self) -> str:
        return f"RuleProgram({[name for name, _ in self.sources]!r})"


def _clear_pred(pred: object) -> None:
    """Empties a predicate's rules, facts and index (fresh containers: O(1), no per-fact work)."""
    pred.db = {}  # type: ignore[attr-defined]
    pred.clauses = {}  # type: ignore[attr-defined]
    pred.index = [{} for _ in range(pred.arity)]  # type: ignore[attr-defined]


def _show(rel: _Relation) -> str:
    return f"a function {rel.name}[{rel.arity - 1}]" if rel.function else f"{rel.name}/{rel.arity}"


@functools.lru_cache(maxsize=32)
def _cached_program(sources: tuple[tuple[str, str], ...]) -> RuleProgram:
    return RuleProgram(sources)


# --------------------------------------------------------------------------- results


class Derived(Mapping[str, frozenset[Row]]):
    """Every relation of one evaluation (inputs and derived): name -> frozenset of rows.

    Unknown names raise ``KeyError`` on purpose: pyDatalog's silent "undefined means empty"
    is the trap this layer exists to close. Relations the rules mention but nobody filled
    are present and empty.
    """

    def __init__(self, relations: Mapping[str, frozenset[Row]]) -> None:
        self._relations = dict(relations)

    def __getitem__(self, name: str) -> frozenset[Row]:
        return self._relations[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._relations))

    def __len__(self) -> int:
        return len(self._relations)

    def sorted(self, name: str) -> list[Row]:
        """Rows of `name` in a deterministic order (ints before strs within a column)."""
        return sorted(self._relations[name], key=_row_key)

    def __repr__(self) -> str:
        return "Derived(" + ", ".join(f"{k}: {len(v)}" for k, v in sorted(self._relations.items())) + ")"


def _row_key(row: Row) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, v) if isinstance(v, int) else (1, v) for v in row)


# --------------------------------------------------------------------------- evaluate


def _validate_facts(rules: RuleProgram, facts: Mapping[str, Iterable[tuple]]) -> dict[str, tuple[int, set[Row]]]:
    """Checks names, arities and column types; returns name -> (arity, distinct rows)."""
    checked: dict[str, tuple[int, set[Row]]] = {}
    for name, rows in facts.items():
        if not isinstance(name, str) or not name.isidentifier() or _is_variable(name):
            raise FactError(f"relation name {name!r} is not a lower-case identifier")
        if name in BUILTIN_NAMES:
            raise FactError(f"relation name `{name}` is a Python built-in; pyDatalog cannot store it")
        rel = rules.relations.get(name)
        if rel is not None and rel.function:
            raise FactError(f"`{name}` is computed by a function rule ({_show(rel)}); it takes no facts")
        arity = rel.arity if rel is not None else None
        distinct: set[Row] = set()
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
                    raise FactError(f"{name}{row!r}: column value {value!r} is {type(value).__name__}; "
                                    "facts hold only str and int (pyDatalog equates 1, 1.0 and True)")
            distinct.add(row)
        checked[name] = (arity if arity is not None else 0, distinct)
    return checked


@contextmanager
def _rare_collections(first_generation: int = 200_000) -> Iterator[None]:
    """Collect garbage less often while the engine runs.  pyDatalog allocates tables, subgoals
    and clauses by the hundred thousand, and CPython's default threshold (700 allocations) then
    runs full-heap collections over and over: at K=200 Graphs that was half the run (20.9 s
    against 7.5 s; bench/run.py).  The threshold is restored afterwards; nothing is leaked, the
    garbage is only collected in fewer, larger sweeps (peak RSS 179 -> 191 MiB there)."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], first_generation), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _materialise(pred: object, function: bool) -> set[tuple]:
    """Asks `pred` with every argument free and replaces its rules with the answers."""
    arity: int = pred.arity  # type: ignore[attr-defined]
    terms: list[object] = [pyEngine.Var(f"_V{i}") for i in range(arity)]
    if function:
        terms[0] = pyEngine.Const(_CLASS)
    answers = pyEngine.Literal(pred, terms).ask()
    Logic.tl.logic.Subgoals = {}  # drop the tables now, not at the next ask
    if answers is True:  # only for arity 0, or a rule whose head variable is never bound
        if arity:
            raise RuleError(f"{pred.id} answered True without values: a head variable is never bound")  # type: ignore[attr-defined]
        rows: set[tuple] = {()}
    else:
        rows = set(answers)
    pred.recursive = False  # type: ignore[attr-defined]
    _clear_pred(pred)
    return rows


def evaluate(rules: RuleProgram, facts: Mapping[str, Iterable[tuple]]) -> Derived:
    """Runs one program's facts through `rules`, bottom-up, in isolation from any other call.

    Each derived predicate is asked once with all arguments free, in `rules.order`, and its
    answers replace its rules as stored facts, so later strata (and negations) read an
    indexed table instead of re-deriving (PYDATALOG.md §4.2 "materialize": 2-14x faster
    than asking the outputs top-down). The rules-only database is restored afterwards.
    """
    checked = _validate_facts(rules, facts)
    result: dict[str, frozenset[Row]] = {}
    consts: dict[object, object] = {}
    with rules._lock, _active(rules._logic), _rare_collections():
        try:
            for name, (arity, rows) in checked.items():
                rel = rules.relations.get(name)
                pred = rules._logic.Db.get(rel.pred_id) if rel else None  # type: ignore[attr-defined]
                if pred is None:
                    pred = pyEngine.insert(pyEngine.Pred(name, arity))
                    pred.prearity = arity
                    _clear_pred(pred)
                _store_rows(pred, rows, consts)
                result[name] = frozenset(rows)
            db = rules._logic.Db  # type: ignore[attr-defined]
            for scc in rules.order:
                for pred_id in scc:
                    pred = db[pred_id]
                    rel = _relation_of(pred_id)
                    function = rel is not None and rel.function
                    rows = _materialise(pred, function)
                    _store_rows(pred, rows, consts)
                    if rel is not None:
                        result[rel.name] = frozenset(r[1:] for r in rows) if function else frozenset(rows)
        finally:
            rules._reset()
    for name in rules.relations:
        result.setdefault(name, frozenset())
    return Derived(result)
