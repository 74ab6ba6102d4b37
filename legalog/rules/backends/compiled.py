"""The default engine: a rule program compiled into one Python module, specialised to its rules.

As Soufflé compiles Datalog to C++ rather than interpreting it, legalog writes each rule program
(the pass, explain and verifier programs) as Python source once: one function per rule, whose
body literals are nested loops over dict indexes, ordered so every lookup is on bound columns
(`_plan`); one function per index its rules read, building it in one loop on first use; and a
table of the program's SCCs in dependency order.  Per evaluation the driver (`evaluate`) runs,
SCC by SCC, only the rules selected for it (`RuleProgram.closure` of the outputs asked for, and
`RuleProgram.firable` over the facts), so a selection needs no new code; the schedule of a
selection is made once.  A rule of a non-recursive SCC adds its rows straight to its relation;
a recursive SCC runs its rules once over what is known, then semi-naive rounds: each rule once
per body atom of the SCC, that atom reading only the rows the last round added (its "delta").
Negation and aggregates read only completed lower SCCs (the program is stratified).
Aggregates have pyDatalog's semantics: over the distinct tuples of keys, value and `for_each`
(`len_` counts distinct values, `sum_` adds the value over distinct (value, for_each) tuples,
`min_`/`max_` the extreme value); arithmetic is Python's (exact integers, `//` floors).

The generated source is kept in the cache folder under a key naming this generator, the rule
language and every rule file (`legalog.rules.disk_cache`: checksummed, written atomically, read only
where no other user can write), so a process compiles it but never regenerates it;
`legalog rules --emit NAME` prints it.  An evaluation whose arithmetic or ordering raises (a
division by zero, a string compared with an integer) is answered by the reference engine, which
says what the rules mean there.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import marshal
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

from legalog.collector import bulk_allocation
from legalog.facts.store import FactStore
from legalog.rules import disk_cache, language
from legalog.rules.language import (
    Arith,
    Atom,
    Comparison,
    Const,
    Derived,
    Facts,
    Literal,
    Row,
    Rule,
    RuleProgram,
    Term,
    Var,
    check_stratification,
    store_rows,
    validate_facts,
)

__all__ = ["evaluate", "load", "source"]

RuleFunction = Callable[..., None]
# an index by its relation, the columns it is keyed by and the columns it reads (`_Indexes`)
IndexKey = tuple[str, tuple[int, ...], tuple[int, ...]]
IndexBuilder = Callable[[Any, Iterable[Row]], None]


# --------------------------------------------------------------------------- planning a rule body


def _vars(term: Term | tuple[Const, ...] | None) -> set[str]:
    if isinstance(term, Var):
        return {term.name}
    if isinstance(term, Arith):
        return _vars(term.left) | _vars(term.right)
    return set()


def _literal_vars(lit: Literal | Comparison) -> set[str]:
    if isinstance(lit, Literal):
        return {a.name for a in lit.atom.args if isinstance(a, Var)}
    return _vars(lit.left) | (set() if isinstance(lit.right, tuple) else _vars(lit.right))


def _binds(lit: Comparison, bound: set[str]) -> str | None:
    """The variable an `==` (or `in`) comparison assigns, when every other side is bound."""
    if lit.op == "in":
        return lit.left.name if isinstance(lit.left, Var) and lit.left.name not in bound else None
    if lit.op != "==" or isinstance(lit.right, tuple):
        return None
    for target, other in ((lit.left, lit.right), (lit.right, lit.left)):
        if isinstance(target, Var) and target.name not in bound and _vars(other) <= bound:
            return target.name
    return None


Weak = frozenset[tuple[str, int]]


def _weak_columns(rules: RuleProgram) -> Weak:
    """The (relation, column) pairs some rule matches against an integer constant: positions and
    counts (`operand(E, 0, A)`, `launch_result(V, E, 0)`), which a few values fill for every row.
    A lookup on such a column alone reads a large part of the relation (at 5 MB, one by result
    position 0 read every launch of the program, once per round of a 1,666-round recursion)."""
    return frozenset(
        (lit.atom.relation, i)
        for rule in rules.rules
        for lit in rule.body
        if isinstance(lit, Literal)
        for i, arg in enumerate(lit.atom.args)
        if isinstance(arg, Const) and isinstance(arg.value, int)
    )


def _cost(lit: Literal | Comparison, bound: set[str], position: int, weak: Weak) -> tuple[float, int] | None:
    """How early `lit` should run once `bound` are bound (lower first), None if it cannot yet.
    Tests first (a bound atom, a negation, a comparison of bound values), then assignments, then
    lookups by the share of their columns bound (a weak column counting a quarter), then scans,
    each in the rule's written order."""
    free = _literal_vars(lit) - bound
    if isinstance(lit, Comparison):
        if not free:
            return (0, position)
        return (1, position) if _binds(lit, bound) is not None and len(free) == 1 else None
    if lit.negated:
        return None if free else (0, position)
    if not free:
        return (0, position)
    args = lit.atom.args
    fixed = [i for i, a in enumerate(args) if isinstance(a, Const) or a.name in bound]
    share = sum(0.25 if (lit.atom.relation, i) in weak else 1 for i in fixed) / len(args)
    return (3 - share, position) if fixed else (4, position)


def _plan(
    body: Sequence[Literal | Comparison], weak: Weak, first: int | None = None
) -> list[Literal | Comparison]:
    """`body` in the order the generated loops run it; `first` (a body position) runs first."""
    left = list(enumerate(body))
    order: list[Literal | Comparison] = []
    bound: set[str] = set()
    if first is not None:
        order.append(body[first])
        bound |= _literal_vars(body[first])
        left = [(i, lit) for i, lit in left if i != first]
    while left:
        costs = [(cost, i, lit) for i, lit in left if (cost := _cost(lit, bound, i, weak)) is not None]
        if not costs:  # the linter guarantees the written order can run; this is a bug
            raise language.RuleError(f"no order binds every variable of {body}")
        _, i, lit = min(costs, key=lambda c: c[0])
        order.append(lit)
        bound |= _literal_vars(lit)
        left = [(j, other) for j, other in left if j != i]
    return order


# --------------------------------------------------------------------------- writing a rule


def _name(var: str) -> str:
    return f"v_{var}"  # rule variables (`X`, `_A`, a fresh `1`) as Python locals of their own


def _expr(term: Term) -> str:
    if isinstance(term, Var):
        return _name(term.name)
    if isinstance(term, Const):
        return repr(term.value)
    if term.right is None:
        return f"(-{_expr(term.left)})"
    return f"({_expr(term.left)} {term.op} {_expr(term.right)})"


class _Writer:
    """The Python text of one rule (or of one of its delta variants): a function that adds the
    rule's head rows over the relations `R` to the set `out`."""

    def __init__(self, rule: Rule, indexes: dict[IndexKey, int], tested: set[str]) -> None:
        self.rule = rule
        self.indexes = indexes  # every index the program's rules read, numbered, for `_builder`
        self.tested = tested  # every relation the program's rules test a row's membership of
        self.lines: list[str] = []
        self.prelude: dict[str, str] = {}  # local name -> what it is bound to, in first-use order
        self.depth = 1
        self.temps = itertools.count()

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def nest(self, text: str) -> None:
        self.emit(text)
        self.depth += 1

    def member(self, name: str) -> str:
        """The relation `name`, to test a row's membership of."""
        self.tested.add(name)
        return self.relation(name, False)

    def relation(self, name: str, delta: bool) -> str:
        local = f"{'d' if delta else 'r'}_{name}"
        self.prelude.setdefault(local, f"{'D' if delta else 'R'}[{name!r}]")
        return local

    def index(self, name: str, fixed: tuple[int, ...], read: tuple[int, ...]) -> str:
        n = self.indexes.setdefault((name, fixed, read), len(self.indexes))
        self.prelude.setdefault(f"i{n}", f"ix[{n}]")
        return f"i{n}"

    def function(self, name: str, body: Sequence[Literal | Comparison], delta: int | None) -> str:
        """`def name(R, ix, out[, D])`: the rule with body literal `delta` reading the delta `D`."""
        rule = self.rule
        needed = {a.name for a in rule.head.args if isinstance(a, Var)}
        if rule.aggregate is not None:
            needed |= {rule.aggregate.value.name, *(v.name for v in rule.aggregate.for_each)}
        after = []  # the variables each literal's successors (and the head) read
        for lit in reversed(body):
            after.append(set(needed))
            needed |= _literal_vars(lit)
        bound: set[str] = set()
        for lit, later in zip(body, reversed(after), strict=True):
            is_delta = delta is not None and lit is rule.body[delta]
            self.literal(lit, bound, later, is_delta)
        self.head()
        # a positive atom over an empty relation matches nothing: such a rule returns before it
        # builds an index (a program without a Graph leaves most derived relations empty)
        needs = [
            self.relation(lit.atom.relation, False)
            for i, lit in enumerate(rule.body)
            if isinstance(lit, Literal) and not lit.negated and i != delta
        ]
        args = "R, ix, out, D" if delta is not None else "R, ix, out"
        relations = [f"    {k} = {v}" for k, v in self.prelude.items() if not k.startswith("i")]
        guard = [f"    if not ({' and '.join(dict.fromkeys(needs))}):", "        return"] if needs else []
        indexes = [f"    {k} = {v}" for k, v in self.prelude.items() if k.startswith("i")]
        return "\n".join([f"def {name}({args}):", *relations, *guard, *indexes, *self.lines]) + "\n"

    def literal(self, lit: Literal | Comparison, bound: set[str], later: set[str], delta: bool) -> None:
        if isinstance(lit, Comparison):
            self.comparison(lit, bound)
        elif lit.negated:
            values = [_expr(a) for a in lit.atom.args]
            self.nest(f"if {_row(values)} not in {self.member(lit.atom.relation)}:")
        else:
            self.atom(lit.atom, bound, later, delta)

    def comparison(self, lit: Comparison, bound: set[str]) -> None:
        target = _binds(lit, bound)
        if lit.op == "in":
            choices = _row([_expr(c) for c in lit.right])  # type: ignore[union-attr]
            if target is not None:
                self.nest(f"for {_name(target)} in {choices}:")
                bound.add(target)
            else:
                self.nest(f"if {_expr(lit.left)} in {choices}:")
            return
        assert not isinstance(lit.right, tuple)
        if target is not None:
            value = lit.right if isinstance(lit.left, Var) and lit.left.name == target else lit.left
            self.emit(f"{_name(target)} = {_expr(value)}")
            bound.add(target)
            return
        self.nest(f"if {_expr(lit.left)} {lit.op} {_expr(lit.right)}:")

    def atom(self, atom: Atom, bound: set[str], later: set[str], delta: bool) -> None:
        """A positive atom: a test when no column it binds is read later (membership of its bound
        columns), else a loop over the rows it matches, read through an index on its bound
        columns holding only the columns read later (a projection when none is bound), or over
        the delta's rows."""
        args = atom.args
        fixed = tuple(i for i, a in enumerate(args) if isinstance(a, Const) or a.name in bound)
        free = [i for i in range(len(args)) if i not in fixed]
        names = [args[i].name for i in free]  # type: ignore[union-attr]
        kept = tuple(i for i, n in zip(free, names, strict=True) if n in later or names.count(n) > 1)
        key = [_expr(args[i]) for i in fixed]
        if delta:
            self.scan(atom, bound, later)
        elif not kept and len(fixed) == len(args):  # rows are tuples
            self.nest(f"if {_row(key)} in {self.member(atom.relation)}:")
        elif not kept:  # the index's keys: a value, or a tuple of several
            source = self.index(atom.relation, fixed, ()) if fixed else self.relation(atom.relation, False)
            self.nest(
                f"if {key[0] if len(key) == 1 else _row(key)} in {source}:" if fixed else f"if {source}:"
            )
        else:
            names, checks = self.unpack([args[i] for i in kept], bound)
            if fixed:
                rows = f"{self.index(atom.relation, fixed, kept)}.get({key[0] if len(key) == 1 else _row(key)}, ())"
                targets = names[0] if len(names) == 1 else _row(names)
            else:  # a scan of the rows themselves (a projection would be one more pass over them)
                rows = self.relation(atom.relation, False)
                read = dict(zip(kept, names, strict=True))
                targets = _row([read.get(i, "_") for i in range(len(args))])
            self.nest(f"for {targets} in {rows}:")
            if checks:
                self.nest(f"if {' and '.join(checks)}:")

    def scan(self, atom: Atom, bound: set[str], later: set[str]) -> None:
        """Every row of the delta, its bound columns tested."""
        rows = self.relation(atom.relation, True)
        if not any(isinstance(a, Var) and (a.name in later) for a in atom.args) and not any(
            isinstance(a, Const) or a.name in bound for a in atom.args
        ):
            self.nest(f"if {rows}:")
            return
        targets, checks = [], []
        for arg in atom.args:
            if isinstance(arg, Var) and arg.name not in bound:
                targets.append(_name(arg.name))
                bound.add(arg.name)
            else:
                temp = f"t_{next(self.temps)}"
                targets.append(temp)
                checks.append(f"{temp} == {_expr(arg)}")
        self.nest(f"for {_row(targets)} in {rows}:")
        if checks:
            self.nest(f"if {' and '.join(checks)}:")

    def unpack(self, args: Sequence[Var | Const], bound: set[str]) -> tuple[list[str], list[str]]:
        """The names the columns `args` are read into, and the tests of a variable repeated
        among them."""
        targets, checks = [], []
        for arg in args:
            assert isinstance(arg, Var)
            if arg.name in bound:  # a variable twice in the atom: the later column must equal it
                temp = f"t_{next(self.temps)}"
                targets.append(temp)
                checks.append(f"{temp} == {_name(arg.name)}")
            else:
                targets.append(_name(arg.name))
                bound.add(arg.name)
        return targets, checks

    def head(self) -> None:
        """The head row added to `out`, or, for an aggregate, the tuple pyDatalog aggregates over
        added to its group; each group's value is computed after the loops."""
        rule = self.rule
        values = _row([_expr(a) for a in rule.head.args])
        aggregate = rule.aggregate
        if aggregate is None:
            self.emit(f"out.add({values})")
            return
        element = [
            _name(n) for n in dict.fromkeys([aggregate.value.name, *(v.name for v in aggregate.for_each)])
        ]
        self.emit(
            f"groups.setdefault({values}, set()).add({element[0] if len(element) == 1 else _row(element)})"
        )
        self.depth = 1
        self.lines.insert(0, "    groups = {}")
        total = {
            "len": "len(elements)",
            "sum": "sum(e[0] for e in elements)" if len(element) > 1 else "sum(elements)",
            "min": "min(elements)",
            "max": "max(elements)",
        }[aggregate.kind]
        self.emit("for group, elements in groups.items():")
        self.emit(f"    out.add((*group, {total}))")


def _row(values: Sequence[str]) -> str:
    """A tuple display of `values` (`()`, `(a,)`, `(a, b)`)."""
    return f"({values[0]},)" if len(values) == 1 else f"({', '.join(values)})"


# --------------------------------------------------------------------------- writing a program


@dataclass(frozen=True)
class _Component:
    """One SCC of the program's derived relations, in dependency order: its relations, whether
    they recurse, and its rules (indices into `RuleProgram.rules`)."""

    relations: tuple[str, ...]
    recursive: bool
    rules: tuple[int, ...]


def _components(rules: RuleProgram) -> tuple[_Component, ...]:
    heads = {f"{rule.head.relation}/{rule.arity}" for rule in rules.rules}
    order = check_stratification(heads, rules.dependencies)
    out = []
    for scc in order:
        names = tuple(sorted(pid.rpartition("/")[0] for pid in scc))
        members = tuple(i for i, rule in enumerate(rules.rules) if rule.head.relation in names)
        recursive = any(
            isinstance(lit, Literal) and not lit.negated and lit.atom.relation in names
            for i in members
            for lit in rules.rules[i].body
        )
        out.append(_Component(names, recursive, members))
    return tuple(out)


def _deltas(rule: Rule, component: _Component) -> tuple[int, ...]:
    """The body positions of a recursive rule's atoms of its own SCC: one delta variant each."""
    if not component.recursive:
        return ()
    return tuple(
        i
        for i, lit in enumerate(rule.body)
        if isinstance(lit, Literal) and not lit.negated and lit.atom.relation in component.relations
    )


def source(rules: RuleProgram) -> str:
    """The Python module of `rules`: one function per rule (and per delta variant of a recursive
    rule), each commented with the rule it implements, then the table the driver runs by."""
    lines = [
        f"# legalog's compiled rules, generated by {__name__}",
        "# from: " + ", ".join(Path(name).name for name, _ in rules.sources),
        "# def rN(R, ix, out): adds rule N's head rows, over the relations R (name -> set of rows),",
        "# to the set `out`.  ix[N]: index N (`INDEXES`: (name, bound, read)), of a relation on its",
        "# `bound` columns, key -> the `read` columns of its rows (no `read`: the set of keys), built",
        "# on first use by its function xN(index, rows).  rN_dK(R, ix, out, D): rule N with body literal",
        "# K reading only D, the rows the last round of its recursive SCC added.",
        "",
        "from operator import itemgetter",
        "",
    ]
    components = _components(rules)
    weak = _weak_columns(rules)
    indexes: dict[IndexKey, int] = {}
    tested: set[str] = set()
    table = []
    for component in components:
        for i in component.rules:
            rule = rules.rules[i]
            text = language.rules_text([rule], _functions(rules)).splitlines()[-1]
            lines.append(f"# {Path(rule.where).name}: {text}")
            lines.append(_Writer(rule, indexes, tested).function(f"r{i}", _plan(rule.body, weak), None))
            variants = _deltas(rule, component)
            for k in variants:
                lines.append(
                    _Writer(rule, indexes, tested).function(f"r{i}_d{k}", _plan(rule.body, weak, k), k)
                )
            table.append((i, variants))
        lines.append("")
    lines += [_builder(f"x{n}", key, rules.relations[key[0]].arity) for key, n in indexes.items()]
    lines.append("")
    lines.append("# rule -> (its function, its delta variants with the relation each reads the delta of)")
    lines.append("RULES = {")
    for i, ks in table:
        deltas = "".join(f"(r{i}_d{k}, {_atom_of(rules.rules[i].body[k]).relation!r}), " for k in ks)
        lines.append(f"    {i}: (r{i}, ({deltas})),")
    lines.append("}")
    lines.append("# index -> (its relation, the type of an empty one, the function adding rows to it)")
    lines.append("INDEXES = {")
    lines += [
        f"    {n}: ({key[0]!r}, {'dict' if key[2] else 'set'}, x{n}),  # {key!r}"
        for key, n in indexes.items()
    ]
    lines.append("}")
    lines.append("# the relations a rule tests a row's membership of (the others are only iterated)")
    lines.append(f"TESTED = frozenset({sorted(tested)!r})")
    lines.append("# the SCCs, dependencies first: (relations, recursive, rules)")
    lines.append("COMPONENTS = (")
    lines += [f"    ({c.relations!r}, {c.recursive}, {c.rules!r})," for c in components]
    lines.append(")")
    return "\n".join(lines) + "\n"


def _builder(name: str, key: IndexKey, arity: int) -> str:
    """`def name(index, rows)`, adding `rows` to the index `key` (see `_Indexes`): one loop
    unpacking the columns it keeps, so an index costs no call per row."""
    _, fixed, read = key
    if not read:  # the set of keys
        return f"def {name}(index, rows):\n    index.update(map(itemgetter({', '.join(map(str, fixed))}), rows))\n"
    columns = _row([f"c{i}" if i in fixed or i in read else "_" for i in range(arity)])
    k = f"c{fixed[0]}" if len(fixed) == 1 else _row([f"c{i}" for i in fixed])
    v = f"c{read[0]}" if len(read) == 1 else _row([f"c{i}" for i in read])
    # a bucket is a set when columns are left out (two rows may agree on those kept), else a list
    bucket, add = ("{%s}", "add") if len(fixed) + len(read) < arity else ("[%s]", "append")
    return (
        f"def {name}(index, rows):\n"
        f"    for {columns} in rows:\n"
        f"        if (b := index.get({k})) is None:\n"
        f"            index[{k}] = {bucket % v}\n"
        f"        else:\n"
        f"            b.{add}({v})\n"
    )


def _atom_of(lit: Literal | Comparison) -> Atom:
    assert isinstance(lit, Literal)  # a delta variant's literal is an atom of its SCC
    return lit.atom


def _functions(rules: RuleProgram) -> frozenset[str]:
    return frozenset(name for name, rel in rules.relations.items() if rel.function)


# --------------------------------------------------------------------------- loading a program


@dataclass(frozen=True)
class _Module:
    """A program's compiled module: rule index -> (its function, its delta variants), the SCCs in
    dependency order, and how each index its rules read is made."""

    rules: Mapping[int, tuple[RuleFunction, tuple[tuple[RuleFunction, str], ...]]]
    components: tuple[tuple[tuple[str, ...], bool, tuple[int, ...]], ...]
    indexes: Mapping[int, tuple[str, type, IndexBuilder]]
    tested: frozenset[str]


def _key(rules: RuleProgram) -> str:
    """What the module is made from: this generator, the rule language that read the rules, and
    every rule file's name and text."""
    builders = (Path(__file__), Path(inspect.getfile(language)))
    return disk_cache.key(
        [
            "compiled",
            *(p.read_text(encoding="utf-8") for p in builders),
            *(x for s in rules.sources for x in s),
        ]
    )


@functools.lru_cache(maxsize=32)
def load(rules: RuleProgram) -> _Module:
    """The program's module, compiled once per process from the code kept in the cache folder,
    or generated (and kept, the source beside its code) when there is none or it fails its
    checksum."""
    k = _key(rules)
    code = _kept_code(k)
    if code is None:
        text = source(rules)
        code = compile(text, f"<legalog compiled rules {k[:16]}>", "exec")
        disk_cache.write_bytes(k, ".py", text.encode())
        disk_cache.write_bytes(k, ".code", marshal.dumps(code))
    namespace: dict[str, Any] = {}
    # The one exec in legalog, and why it is safe: the code is generated from legalog's own rule
    # files (packaged, or a caller's own RuleProgram), never from a dump or any input a user checks;
    # a rule's names are identifiers the rule language's ast reader accepted and its constants are
    # str/int written with repr, so no text reaches the module except as a literal; facts arrive
    # only as data at evaluation.  Code read back from the cache folder is used only when its
    # checksum holds and no other user can write there (disk_cache, docs/input-safety.md).
    exec(code, namespace)
    return _Module(namespace["RULES"], namespace["COMPONENTS"], namespace["INDEXES"], namespace["TESTED"])


def _kept_code(k: str) -> CodeType | None:
    if (body := disk_cache.read_bytes(k, ".code")) is None:
        return None
    try:
        code = marshal.loads(body)
    except (EOFError, ValueError, TypeError):  # checksummed, so another Python's layout at most
        return None
    return code if isinstance(code, CodeType) else None


# --------------------------------------------------------------------------- evaluating


class _Indexes(dict[int, Any]):
    """The indexes one evaluation reads, built on first use (`ix[N]`, a dict lookup by a small
    int once built) by the module's own function for each: {key of the bound columns: the
    `read` columns of its rows} (a list, or a set where columns are left out, so a row is read
    once); with no column read, the set of keys.  A relation that grows (`growing`: a recursive
    SCC's) has its indexes grown with it."""

    def __init__(
        self,
        relations: Mapping[str, Iterable[Row]],
        builders: Mapping[int, tuple[str, type, IndexBuilder]],
        growing: Iterable[str],
    ) -> None:
        super().__init__()
        self.relations = relations
        self.builders = builders
        self.of: dict[str, list[tuple[IndexBuilder, Any]]] = {name: [] for name in growing}

    def __missing__(self, n: int) -> Any:
        name, kind, build = self.builders[n]
        index = self[n] = kind()
        build(index, self.relations[name])
        if (grown := self.of.get(name)) is not None:
            grown.append((build, index))
        return index

    def grow(self, name: str, rows: Iterable[Row]) -> None:
        for build, index in self.of.get(name, ()):
            build(index, rows)


@dataclass(frozen=True)
class _Step:
    """A recursive SCC of an evaluation, with the chosen rules alone: (function, head) of each,
    and their delta variants as (variant, the relation of its delta atom, head)."""

    relations: tuple[str, ...]
    rules: tuple[tuple[RuleFunction, str], ...]
    variants: tuple[tuple[RuleFunction, str, str], ...]


# What an evaluation runs, in order: a rule of a non-recursive SCC as (function, head, None),
# whose rows go straight into its head's relation, or a recursive SCC as (None, "", its step).
_Schedule = tuple[tuple[RuleFunction | None, str, _Step | None], ...]


@dataclass(frozen=True)
class _Selection:
    """What one evaluation computes (`wanted`) and how (`schedule`); the same few selections
    recur (a pass and its verifier, over programs of one shape), so each is made once."""

    wanted: tuple[str, ...]
    schedule: _Schedule
    growing: frozenset[str]  # the relations of its recursive SCCs


@functools.lru_cache(maxsize=256)
def _selection(rules: RuleProgram, outputs: frozenset[str] | None, fired: tuple[int, ...]) -> _Selection:
    wanted = rules.closure(outputs)
    chosen = {i for i in fired if rules.rules[i].head.relation in wanted}
    module = load(rules)
    schedule: list[tuple[RuleFunction | None, str, _Step | None]] = []
    for names, recursive, members in module.components:
        run = [(i, rules.rules[i].head.relation) for i in members if i in chosen]
        variants = tuple((v, read, head) for i, head in run for v, read in module.rules[i][1])
        if recursive and variants:
            schedule.append(
                (None, "", _Step(names, tuple((module.rules[i][0], h) for i, h in run), variants))
            )
        else:  # no chosen rule reads the SCC's own relations: one pass computes them
            schedule += [(module.rules[i][0], head, None) for i, head in run]
    growing = frozenset(name for _, _, step in schedule if step is not None for name in step.relations)
    return _Selection(tuple(sorted(wanted)), tuple(schedule), growing)


def evaluate(
    rules: RuleProgram,
    facts: Facts,
    outputs: frozenset[str] | None = None,
    firable: tuple[int, ...] | None = None,
) -> Derived:
    """Every relation `outputs` (default: every derived relation) are computed from, and the
    inputs, over `facts`; of the rules, only those that can fire over these facts run
    (`firable`: `rules.firable(facts)` when the caller has it)."""
    # every row, index and answer made lives until the answer is read: nothing for the collector
    with bulk_allocation():
        checked = _given(rules, facts)
        fired = rules.firable(checked) if firable is None else firable
        selection = _selection(rules, outputs, fired)
        # the inputs (empty unless given), every other relation given but none the rules define,
        # and a set to fill for each relation computed (holding its given rows)
        relations: dict[str, Any] = dict(_no_inputs(rules))
        relations.update(checked)
        for name in rules.derived.intersection(checked).difference(selection.wanted):
            del relations[name]
        wanted = selection.wanted
        relations.update(zip(wanted, map(set, map(checked.get, wanted, itertools.repeat(())))))
        if _run(selection.schedule, relations, _Indexes(relations, load(rules).indexes, selection.growing)):
            return Derived(relations)
    # `//` by zero, `<` between str and int: the reference engine says what the rules mean there
    from legalog.rules.backends import pydatalog

    return pydatalog.evaluate(rules, facts)


def _run(schedule: _Schedule, relations: dict[str, Any], index: _Indexes) -> bool:
    """Runs `schedule` over `relations`; False when the rules' arithmetic or ordering raised."""
    try:
        for function, head, step in schedule:
            if function is not None:
                function(relations, index, relations[head])
            else:
                _fixpoint(step, relations, index)  # type: ignore[arg-type]
    except (ArithmeticError, TypeError):
        return False
    return True


def _given(rules: RuleProgram, facts: Facts) -> Mapping[str, Collection[Row]]:
    """The checked facts.  Of a `FactStore`, a copy of each relation's rows as they are (checked
    on the way in), a set only where a rule tests membership: the rules only iterate the others,
    and a tuple copy hashes nothing (a row twice in the store adds its head rows twice to a set;
    the answer holds it once, as `Derived` freezes it on reading)."""
    if not isinstance(facts, FactStore):
        return validate_facts(rules, facts)
    tested = load(rules).tested
    return {
        name: frozenset(rows) if name in tested else tuple(rows)
        for name, rows in store_rows(rules, facts).items()
    }


@functools.cache
def _no_inputs(rules: RuleProgram) -> Mapping[str, frozenset[Row]]:
    return dict.fromkeys(rules.inputs, frozenset())


def _fixpoint(step: _Step, relations: dict[str, Any], index: _Indexes) -> None:
    """A recursive SCC: its rules once over what is known, then rounds in which each recursive
    rule runs once per atom of the SCC in its body, that atom reading only the last round's new
    rows, until a round adds nothing."""
    if len(step.relations) == 1:
        _fixpoint_one(step, relations, index)
        return
    new: dict[str, set[Row]] = {name: set() for name in step.relations}
    for function, head in step.rules:
        function(relations, index, new[head])
    while delta := _merge(new, relations, index):
        new = {name: set() for name in step.relations}
        for variant, read, head in step.variants:
            if delta[read]:  # else its delta atom matches nothing this round
                variant(relations, index, new[head], delta)


def _fixpoint_one(step: _Step, relations: dict[str, Any], index: _Indexes) -> None:
    """`_fixpoint` of an SCC of one relation (most are): its rows and delta as plain sets."""
    (name,) = step.relations
    known = relations[name]
    new: set[Row] = set()
    for function, _ in step.rules:
        function(relations, index, new)
    new -= known
    while new:
        known |= new
        index.grow(name, new)
        delta = {name: new}
        new = set()
        for variant, _, _ in step.variants:
            variant(relations, index, new, delta)
        new -= known


def _merge(new: Mapping[str, set[Row]], relations: dict[str, Any], index: _Indexes) -> dict[str, set[Row]]:
    """Adds a round's rows to their relations (and indexes); the rows that were new, per relation
    (every relation of the SCC named, so a variant can read its delta), or {} when none was."""
    delta = {name: rows - relations[name] for name, rows in new.items()}
    if not any(delta.values()):
        return {}
    for name, rows in delta.items():
        if rows:
            relations[name] |= rows
            index.grow(name, rows)
    return delta
