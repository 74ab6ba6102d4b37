"""The reference engine: pyDatalog (0.22.4), evaluated bottom-up over one program's facts.

Each derived predicate is asked once with all arguments free, in dependency order, and its
answers replace its rules, so later strata (and negations) read stored facts (PYDATALOG.md §4,
"materialize" mode: 2-14x faster than asking the outputs top-down).  A `RuleProgram`'s text is
loaded once per process into a private pyDatalog database, kept as a rules-only snapshot and
restored in place after every evaluation, so no fact leaks into the next call.

pyDatalog reads the rule text itself (it is its own language); the front end
(`legalog.rules.language`) has linted and stratified it before it gets here.
"""

from __future__ import annotations

import functools
import gc
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pyDatalog import pyEngine, pyParser
from pyDatalog.Logic import Logic

from legalog.rules.language import (
    Dependency,
    Derived,
    Facts,
    Row,
    RuleError,
    RuleProgram,
    check_stratification,
    validate_facts,
)

__all__ = ["evaluate"]

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


def _body_target(literal: Any) -> tuple[str, bool] | None:
    """The predicate a body literal depends on, and whether the dependency is negative."""
    pred = literal.pred
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

    pred: Any
    clauses: list[Any]
    facts: list[Any]
    recursive: bool
    prearity: int | None


def _check_storage_layout(pred: Any) -> None:
    """Fails fast if the installed engine stores facts differently from what we write into.

    The wheel's compiled ``pyEngine`` .so is built from an older source than the
    ``pyEngine.py`` shipped next to it: it keeps ``pred.db`` / ``pred.clauses`` as dicts
    keyed by clause id and ``pred.index`` as a list of ``{term id: set(clause)}``. The
    .py file's ``FactDb``/``FactIndex`` layout is only used if the .so fails to import.
    """
    if not (isinstance(pred.db, dict) and isinstance(pred.index, list)):
        raise TypeError(
            f"unsupported pyDatalog fact storage {type(pred.db).__name__}/"
            f"{type(pred.index).__name__}: legalog expects the compiled 0.22.4 engine "
            "(dict db, list-of-dict index)"
        )


@contextmanager
def _active(logic: Any) -> Iterator[None]:
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


def _store_rows(pred: Any, rows: Iterable[Row]) -> None:
    """Adds ground facts to a predicate through pyDatalog's own `assert_` (what
    `pyDatalog.assert_fact` calls).  Writing them straight into `pred.db` and `pred.index` instead
    bought nothing measurable: the pass's program over corpus 07 (5,876 input rows, 10,065
    derived) took 521-541 ms either way, min of 3, `evaluate` timed in one process."""
    literal_of, clause_of, const_of, assert_ = (
        pyEngine.Literal,
        pyEngine.Clause,
        pyEngine.Const,
        pyEngine.assert_,
    )
    for row in rows:
        assert_(clause_of(literal_of(pred, [const_of(value) for value in row]), []))


class _Database:
    """One `RuleProgram` loaded into a private pyDatalog database, with its rules-only snapshot."""

    def __init__(self, rules: RuleProgram) -> None:
        self.lock = threading.Lock()
        self.logic = object.__new__(Logic)
        with _active(self.logic):
            pyEngine.clear()
            pyParser.clear()
            for name, text in rules.sources:
                pyParser.load(text, newglobals={}, function=name)
            for pred in list(self.logic.Db.values()):
                # `~r(X)` registers `~r/1` but not `r/1`; asking the negation of a relation
                # no rule defines then raises "Predicate without definition". Make it empty.
                base = getattr(pred, "base_pred", None)
                if base is not None and base.id not in self.logic.Db:
                    pyEngine.insert(base)
            db: dict[str, Any] = dict(self.logic.Db)
            _check_storage_layout(pyEngine.Pred("_legalog_layout_probe", 1))
        self._db = db
        self._registry = dict(self.logic.Pred_registry)
        self._saved = [
            _Saved(
                p, list(p.clauses.values()), [c for c in p.db.values() if not c.body], p.recursive, p.prearity
            )
            for p in db.values()
            if p.prim is None
        ]
        self.order = self._materialisation_order()
        """SCCs of pyDatalog predicates with rules (aggregate helpers included), dependencies first."""
        self.pred_ids = {rel.name: rel.pred_id for pid in db if (rel := _relation_of(pid)) is not None}
        self.reset()

    def _materialisation_order(self) -> tuple[tuple[str, ...], ...]:
        heads = {s.pred.id for s in self._saved if s.clauses or s.facts}
        deps = [
            Dependency(s.pred.id, target[0], target[1])
            for s in self._saved
            for clause in s.clauses
            for literal in clause.body
            if (target := _body_target(literal)) is not None
        ]
        return check_stratification(heads, deps)

    def reset(self) -> None:
        """Puts the rules-only database back: O(predicates + rules), independent of fact count.

        Predicates are pyDatalog objects shared with the rule clauses, so instead of
        copying the database (`Logic(snapshot)` copies only the dict, and would leak facts
        into the shared predicates) each predicate gets fresh stores refilled with its rules.
        What writing pyDatalog's stores (`pred.db`, `pred.clauses`, `pred.index`) buys: 0.45 ms
        for the pass's program, against 81 ms to load its rule text into a fresh database for
        every evaluation (min of 5 and of 3, in one process).
        """
        logic = self.logic
        logic.Db = dict(self._db)
        logic.Pred_registry.clear()
        logic.Pred_registry.update(self._registry)
        logic.Subgoals = {}
        for saved in self._saved:
            pred = saved.pred
            pred.recursive = saved.recursive
            pred.prearity = saved.prearity
            _clear_pred(pred)
            for clause in saved.clauses:
                key = clause.get_id()
                pred.db[key] = pred.clauses[key] = clause
            for clause in saved.facts:
                pred.db[clause.get_id()] = clause
                for column, term in zip(pred.index, clause.head.terms, strict=True):
                    column.setdefault(term.id, set()).add(clause)


def _clear_pred(pred: Any) -> None:
    """Empties a predicate's rules, facts and index (fresh containers: O(1), no per-fact work)."""
    pred.db = {}
    pred.clauses = {}
    pred.index = [{} for _ in range(pred.arity)]


@functools.lru_cache(maxsize=32)
def _database(rules: RuleProgram) -> _Database:
    return _Database(rules)


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


def _materialise(pred: Any, function: bool) -> set[tuple]:
    """Asks `pred` with every argument free and replaces its rules with the answers."""
    arity: int = pred.arity
    terms: list[object] = [pyEngine.Var(f"_V{i}") for i in range(arity)]
    if function:
        terms[0] = pyEngine.Const(_CLASS)
    answers = pyEngine.Literal(pred, terms).ask()
    Logic.tl.logic.Subgoals = {}  # drop the tables now, not at the next ask
    if answers is True:  # only for arity 0, or a rule whose head variable is never bound
        if arity:
            raise RuleError(f"{pred.id} answered True without values: a head variable is never bound")
        rows: set[tuple] = {()}
    else:
        rows = set(answers)
    pred.recursive = False
    _clear_pred(pred)
    return rows


def evaluate(rules: RuleProgram, facts: Facts) -> Derived:
    """Runs one program's facts through `rules` on pyDatalog, in isolation from any other call."""
    checked = validate_facts(rules, facts)
    database = _database(rules)
    result: dict[str, frozenset[Row]] = {}
    with database.lock, _active(database.logic), _rare_collections():
        try:
            db = database.logic.Db
            for name, given in checked.items():
                pred = db.get(database.pred_ids.get(name))
                if pred is None:
                    arity = len(next(iter(given))) if given else rules.inputs.get(name, 0)
                    pred = pyEngine.insert(pyEngine.Pred(name, arity))
                    pred.prearity = arity
                    _clear_pred(pred)
                _store_rows(pred, given)
                result[name] = given
            for scc in database.order:
                for pred_id in scc:
                    pred = db[pred_id]
                    rel = _relation_of(pred_id)
                    function = rel is not None and rel.function
                    rows = _materialise(pred, function)
                    _store_rows(pred, rows)
                    if rel is not None:
                        result[rel.name] = frozenset(r[1:] for r in rows) if function else frozenset(rows)
        finally:
            database.reset()
    for name in rules.relations:
        result.setdefault(name, frozenset())
    return Derived(result)
