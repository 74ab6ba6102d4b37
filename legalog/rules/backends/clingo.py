"""The default engine: clingo (Potassco's grounder and solver), on the rules the front end read.

A stratified program has exactly one answer set, and clingo's grounder computes it outright:
every derived atom is a fact once grounding is done (ENGINES.md; the solve step that follows
only confirms it).  This backend translates the front end's `Rule`s 1:1 into ASP once per
program and process, then per evaluation: one `Control`, the parsed rules, the facts through
clingo's C backend interface, ground, solve (asserting exactly one model), and the model's
atoms kept as symbol ids, decoded through the C interface when a relation is first read.

Integers.  clingo's are 32-bit and wrap silently, so nothing out of range may reach it as a
number, and nothing it computes may leave the range:
* an integer fact value in a column the rules only join on or compare for equality stands in
  as the opaque term `_int("<digits>")` and reads back as the integer it was;
* in a column the rules order or compute with (`RuleProgram.numeric`) it raises `Inexact`;
* arithmetic runs in Python (`@add(A, B)`...), exactly as pyDatalog computes it (`//` floors),
  and a result out of range raises `Inexact`; so does a `#sum` whose inputs could leave it.
`legalog.rules.engine` answers an `Inexact` evaluation with the reference engine.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import clingo
from clingo import ast
from clingo._internal import _ffi, _lib  # the C interface clingo's own Python layer is built on
from clingo.symbol import Symbol

from legalog.ir.allocation import return_freed_memory
from legalog.rules.language import (
    INT_MAX,
    INT_MIN,
    Aggregate,
    Atom,
    Comparison,
    Const,
    Derived,
    Literal,
    Row,
    Rule,
    RuleError,
    RuleProgram,
    Term,
    Var,
    numeric_columns,
    validate_facts,
)

__all__ = ["Inexact", "evaluate"]

# Input rows from which an evaluation's freed memory is handed back: the walk costs about 1% of
# such an evaluation, and nothing measurable below it.
_LARGE = 20_000
_BIG = "_int"  # the opaque stand-in of an integer clingo cannot hold (no rule relation starts with `_`)
_RESULT = "V0"  # an aggregate's result; rule variables become `V<name>`, fresh ones `V<digits>` from 1


class Inexact(Exception):
    """clingo cannot compute this evaluation exactly (an integer beyond 32 bits where rules compute)."""


# --------------------------------------------------------------------------- translation


def _name(var: Var) -> str:
    # pyDatalog variables start upper-case or with `_`; clingo's must start upper-case. A fixed
    # prefix keeps the mapping one-to-one (a lone `_` would be clingo's anonymous variable).
    return "V" + var.name


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _term(term: Term) -> str:
    if isinstance(term, Var):
        return _name(term)
    if isinstance(term, Const):
        return _quote(term.value) if isinstance(term.value, str) else str(term.value)
    args = [term.left] if term.right is None else [term.left, term.right]
    return f"@{_FUNCTIONS[term.op]}({','.join(_term(a) for a in args)})"


def _atom(atom: Atom) -> str:
    return f"{atom.relation}({','.join(_term(a) for a in atom.args)})" if atom.args else atom.relation


def _literal(lit: Literal | Comparison) -> str:
    if isinstance(lit, Literal):
        return ("not " if lit.negated else "") + _atom(lit.atom)
    if lit.op == "in":
        return f"{_term(lit.left)}=({';'.join(_term(c) for c in lit.right)})"  # type: ignore[union-attr]
    return f"{_term(lit.left)}{'=' if lit.op == '==' else lit.op}{_term(lit.right)}"  # type: ignore[arg-type]


@dataclass(frozen=True)
class _SumGuard:
    """A `#sum` aggregate's input relation and the column it adds up."""

    relation: str
    column: int


def _aggregate(rule: Rule, aggregate: Aggregate, aux: str) -> tuple[list[str], list[Var]]:
    """`(f[K] == agg(Y, ...)) <= body` as an input relation over exactly the tuples pyDatalog's
    aggregate ranges over (keys, value, for_each; distinct), and `f(K, R)` over its groups."""
    keys = [a for a in rule.head.args if isinstance(a, Var)]
    columns = list(dict.fromkeys([*keys, aggregate.value, *aggregate.for_each]))
    body = ", ".join(_literal(lit) for lit in rule.body)
    group = ",".join(_name(c) if c in keys else "_" for c in columns)
    elements = [aggregate.value, *aggregate.for_each] if aggregate.kind == "sum" else [aggregate.value]
    function = {"len": "#count", "sum": "#sum", "min": "#min", "max": "#max"}[aggregate.kind]
    head = Atom(rule.head.relation, (*rule.head.args, Var(_RESULT[1:])))
    condition = f"{aux}({','.join(map(_name, columns))})"
    lines = [
        f"{condition} :- {body}.",
        f"{_atom(head)} :- {aux}({group}), {_RESULT} = {function}{{{','.join(map(_name, elements))} : {condition}}}.",
    ]
    return lines, columns


def _rule(rule: Rule) -> str:
    if not rule.body:
        return _atom(rule.head) + "."
    return f"{_atom(rule.head)} :- {', '.join(_literal(lit) for lit in rule.body)}."


@dataclass(frozen=True)
class _Program:
    """The rules an evaluation keeps, translated: its ASP text, parsed once (handing clingo the
    parsed statements costs a third of parsing the text again each time), what to read back,
    what to guard."""

    statements: tuple[ast.AST, ...]
    shown: Mapping[str, int]  # derived relations (and #sum inputs) -> arity
    sums: tuple[_SumGuard, ...]
    mentioned: frozenset[str]  # relations the kept rules read: the only facts clingo needs
    numeric: Mapping[str, frozenset[int]]  # relation -> columns the kept rules order or compute with

    @functools.cached_property
    def handles(self) -> tuple[object, ...]:
        """The statements' C handles (kept alive by `statements`), for the builder's C call."""
        return tuple(statement._rep for statement in self.statements)


@dataclass(frozen=True)
class _Translated:
    """One rule in ASP, translated and parsed once per process: a program of rules not evaluated
    together before is the concatenation of their statements, not a new text to parse (which was
    most of the first evaluation of a 1 KB dump)."""

    statements: tuple[ast.AST, ...]
    sum_input: tuple[str, int, int] | None  # a #sum's input relation, its arity and the summed column


@functools.lru_cache(maxsize=4096)
def _translated(rules: RuleProgram, index: int) -> _Translated:
    rule = rules.rules[index]
    if rule.aggregate is None:
        return _Translated(_parsed(_rule(rule)), None)
    aux = f"_agg{index}_{rule.head.relation}"
    text, columns = _aggregate(rule, rule.aggregate, aux)
    summed = (
        (aux, len(columns), columns.index(rule.aggregate.value)) if rule.aggregate.kind == "sum" else None
    )
    return _Translated(_parsed("\n".join(text)), summed)


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> tuple[ast.AST, ...]:
    """`text`'s statements without the `#program base.` clingo's parser puts first (a program's
    statements start with one of their own)."""
    statements: list[ast.AST] = []
    ast.parse_string(text + "\n", statements.append)
    return tuple(s for s in statements if s.ast_type != ast.ASTType.Program)


def _base() -> ast.AST:
    statements: list[ast.AST] = []
    ast.parse_string("", statements.append)
    return statements[0]  # `#program base.`


_BASE = _base()


@functools.lru_cache(maxsize=256)
def _program(rules: RuleProgram, kept: tuple[int, ...], given: frozenset[str]) -> _Program:
    """The ASP statements of the rules `kept` (indices into `rules.rules`; `RuleProgram.firable`);
    `given` are derived relations the facts also hold rows of."""
    statements: list[ast.AST] = [_BASE]
    sums: list[_SumGuard] = []
    heads = {rules.rules[i].head.relation for i in kept} | given
    shown = {name: rules.relations[name].arity for name in sorted(heads)}
    for index in kept:
        translated = _translated(rules, index)
        statements += translated.statements
        if translated.sum_input is not None:
            aux, arity, column = translated.sum_input
            sums.append(_SumGuard(aux, column))
            shown[aux] = arity
    statements += _parsed("#show.")
    for name, arity in shown.items():
        statements += _parsed(f"#show {name}/{arity}.")
    chosen = [rules.rules[i] for i in kept]
    numeric: dict[str, set[int]] = {}
    for relation, column in numeric_columns(chosen):
        numeric.setdefault(relation, set()).add(column)
    read = {lit.atom.relation for rule in chosen for lit in rule.body if isinstance(lit, Literal)} | heads
    return _Program(
        tuple(statements),
        shown,
        tuple(sums),
        frozenset(read),
        {name: frozenset(cols) for name, cols in numeric.items()},
    )


# --------------------------------------------------------------------------- arithmetic


def _exact(fn: Callable[..., int | str]) -> Callable[..., clingo.Symbol]:
    """Python's arithmetic on clingo values (as pyDatalog computes it), refused beyond 32 bits."""

    def apply(*args: clingo.Symbol) -> clingo.Symbol:
        values = [a.number if a.type == clingo.SymbolType.Number else a.string for a in args]
        try:
            result = fn(*values)
        except (ArithmeticError, TypeError) as err:  # the reference engine says what this means
            raise Inexact(f"{fn.__name__}{tuple(values)}: {err}") from err
        if isinstance(result, str):
            return clingo.String(result)
        if not INT_MIN <= result <= INT_MAX:
            raise Inexact(f"{fn.__name__}{tuple(values)} = {result} does not fit clingo's 32 bits")
        return clingo.Number(result)

    return apply


_OPERATORS: Mapping[str, Callable[..., int | str]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
    "neg": operator.neg,
}
_FUNCTIONS = {op: fn.__name__ for op, fn in _OPERATORS.items()}


class _Context:
    """The `@name(...)` functions translated arithmetic calls while grounding."""


for _fn in _OPERATORS.values():
    setattr(_Context, _fn.__name__, staticmethod(_exact(_fn)))


# --------------------------------------------------------------------------- facts


def _check(ok: bool) -> None:
    if not ok:
        raise RuleError(f"clingo: {_ffi.string(_lib.clingo_error_message()).decode()}")


class _FactLoader:
    """Facts straight into clingo's backend through its C interface, before grounding: 40% less
    time than writing ASP text for clingo to parse (0.19 s against 0.34 s at 23k facts), and
    under half of what the `Backend` Python API takes (ENGINES.md: 1.24x the text path).  Each
    distinct value becomes a symbol once."""

    def __init__(self, control: clingo.Control) -> None:
        self.symbols: dict[str | int, int] = {}
        self.symbol_p = _ffi.new("clingo_symbol_t*")
        self.atom_p = _ffi.new("clingo_atom_t*")
        self.head = _ffi.new("clingo_atom_t[1]")
        backend_p = _ffi.new("clingo_backend_t**")
        _check(_lib.clingo_control_backend(control._rep, backend_p))
        self.backend = backend_p[0]

    def load(self, program: _Program, facts: Mapping[str, frozenset[Row]]) -> None:
        _check(_lib.clingo_backend_begin(self.backend))
        for name, rows in facts.items():
            if name in program.mentioned and rows:
                self.relation(name, rows, program.numeric.get(name, frozenset()))
        _check(_lib.clingo_backend_end(self.backend))

    def relation(self, name: str, rows: frozenset[Row], numeric: frozenset[int]) -> None:
        """One relation's rows: every value's symbol looked up in one C-level pass into one
        array, then three C calls a row (make the atom, add it, make it a fact)."""
        ordered = list(rows)
        arity = len(ordered[0])  # one arity a relation (validate_facts)
        flat = list(itertools.chain.from_iterable(ordered))
        symbols = self.symbols
        for value in set(flat).difference(symbols):
            if isinstance(value, str) or INT_MIN <= value <= INT_MAX:
                symbols[value] = self.value(name, value)
            else:  # whether it may stand in depends on its column: per value, not cached
                flat = [self.column_value(name, i % arity, v, numeric) for i, v in enumerate(flat)]
                break
        else:
            flat = list(map(symbols.__getitem__, flat))
        args = _ffi.new("clingo_symbol_t[]", flat)
        symbol_p, atom_p, head, backend = self.symbol_p, self.atom_p, self.head, self.backend
        create_function, add_atom, add_rule = (
            _lib.clingo_symbol_create_function,
            _lib.clingo_backend_add_atom,
            _lib.clingo_backend_rule,
        )
        c_name, null = name.encode(), _ffi.NULL
        # row k's arguments start at k * arity; a relation of arity 0 has one row, ()
        for start in range(0, len(ordered) * arity or 1, arity or 1):
            ok = create_function(c_name, args + start, arity, True, symbol_p) and add_atom(
                backend, symbol_p, atom_p
            )
            head[0] = atom_p[0]
            _check(ok and add_rule(backend, False, head, 1, null, 0))

    def column_value(self, name: str, column: int, value: str | int, numeric: frozenset[int]) -> int:
        if isinstance(value, str) or INT_MIN <= value <= INT_MAX:
            symbol = self.symbols.get(value)
            return symbol if symbol is not None else self.value(name, value)
        if column in numeric:
            raise Inexact(
                f"{name} column {column} holds {value}, beyond clingo's 32 bits, and the rules compute with it"
            )
        return clingo.Function(_BIG, [clingo.String(str(value))])._rep

    def value(self, name: str, value: str | int) -> int:
        """The symbol of a string or of an integer within 32 bits."""
        if isinstance(value, str):
            if "\0" in value:  # a C string ends there
                raise Inexact(f"{name}: a string with a NUL character")
            try:
                encoded = value.encode()
            except UnicodeEncodeError as err:  # a lone surrogate: no UTF-8 for clingo
                raise Inexact(f"{name}: {err}") from err
            _check(_lib.clingo_symbol_create_string(encoded, self.symbol_p))
        else:
            _lib.clingo_symbol_create_number(value, self.symbol_p)
        return self.symbol_p[0]


# --------------------------------------------------------------------------- solve and read


_SYMBOL_NUMBER = _lib.clingo_symbol_type_number
_SYMBOL_STRING = _lib.clingo_symbol_type_string


def _model_symbols(model: clingo.Model, shown: Iterable[str]) -> dict[str, list[int]]:
    """The model's shown atoms, grouped by relation, as clingo symbol ids (one C call for all of
    them, then one per atom for its name).  Decoding arguments waits until a relation is read:
    most relations of an evaluation are never looked at (a pass reads ~20 of 170)."""
    out: dict[str, list[int]] = {name: [] for name in shown}
    size = _ffi.new("size_t*")
    show = _lib.clingo_show_type_shown
    if not _lib.clingo_model_symbols_size(model._rep, show, size):
        raise RuleError(f"clingo: {_ffi.string(_lib.clingo_error_message()).decode()}")
    symbols = _ffi.new("clingo_symbol_t[]", size[0])
    if not _lib.clingo_model_symbols(model._rep, show, symbols, size[0]):
        raise RuleError(f"clingo: {_ffi.string(_lib.clingo_error_message()).decode()}")
    name_p = _ffi.new("char**")
    symbol_name, c_string = _lib.clingo_symbol_name, _ffi.string
    groups: dict[object, list[int]] = {}  # keyed by clingo's interned name pointer
    for symbol in symbols:
        symbol_name(symbol, name_p)
        if (group := groups.get(name_p[0])) is None:
            group = groups[name_p[0]] = out[c_string(name_p[0]).decode()]
        group.append(symbol)
    return out


class _Decoder:
    """Rows from clingo symbol ids through the C interface (about 10x faster a row than the
    `Symbol` API).  clingo interns symbols process-wide, so ids outlive their `Control` and equal
    values share one id: each distinct argument is converted once per evaluation."""

    def __init__(self) -> None:
        self.values: dict[int, str | int] = {}
        self.args_p = _ffi.new("clingo_symbol_t**")
        self.size_p = _ffi.new("size_t*")
        self.int_p = _ffi.new("int*")
        self.str_p = _ffi.new("char**")

    def rows(self, symbols: Iterable[int]) -> frozenset[Row]:
        args_p, size_p, int_p, str_p, values = self.args_p, self.size_p, self.int_p, self.str_p, self.values
        symbol_arguments, symbol_type = _lib.clingo_symbol_arguments, _lib.clingo_symbol_type
        symbol_number, symbol_string, c_string = (
            _lib.clingo_symbol_number,
            _lib.clingo_symbol_string,
            _ffi.string,
        )
        rows = []
        for symbol in symbols:
            symbol_arguments(symbol, args_p, size_p)
            args = args_p[0]
            row = []
            for j in range(size_p[0]):
                arg = args[j]
                if (value := values.get(arg)) is None:
                    kind = symbol_type(arg)
                    if kind == _SYMBOL_NUMBER:
                        symbol_number(arg, int_p)
                        value = int_p[0]
                    elif kind == _SYMBOL_STRING:
                        symbol_string(arg, str_p)
                        value = c_string(str_p[0]).decode()
                    else:  # only the stand-in of a big integer is a compound term here
                        value = int(Symbol(arg).arguments[0].string)
                    values[arg] = value
                row.append(value)
            rows.append(tuple(row))
        return frozenset(rows)


def _check_sums(program: _Program, symbols: Mapping[str, list[int]], decoder: _Decoder) -> None:
    for guard in program.sums:
        values = (row[guard.column] for row in decoder.rows(symbols[guard.relation]))
        if sum(abs(v) for v in values if isinstance(v, int)) > INT_MAX:
            raise Inexact(f"a #sum over {guard.relation} could leave clingo's 32 bits")


def _solve(program: _Program, facts: Mapping[str, frozenset[Row]]) -> dict[str, list[int]]:
    control = clingo.Control(["--warn=none", "--models=2"])
    with ast.ProgramBuilder(control) as builder:
        add, to = _lib.clingo_program_builder_add, builder._rep
        for statement in program.handles:  # the C call `builder.add` wraps, without its wrapper
            _check(add(to, statement))
    _FactLoader(control).load(program, facts)
    control.ground([("base", [])], context=_Context())
    with control.solve(yield_=True) as handle:
        models = iter(handle)
        model = next(models, None)
        if model is None:
            raise RuleError("clingo found no model: a stratified program always has one")
        symbols = _model_symbols(model, program.shown)
        if next(models, None) is not None:
            raise RuleError("clingo found a second model: the program is not stratified")
    return symbols


@functools.lru_cache(maxsize=256)
def _selection(
    rules: RuleProgram, outputs: frozenset[str] | None, leave_out: frozenset[str], fired: tuple[int, ...]
) -> tuple[frozenset[str], tuple[int, ...]]:
    """The relations an evaluation computes and the rules it grounds: the same few keys recur
    (a pass and its verifier, over programs of one shape), and the walk is a tenth of a 1 KB
    dump's evaluation."""
    wanted = rules.closure(outputs) - leave_out
    return wanted, tuple(i for i in fired if rules.rules[i].head.relation in wanted)


def evaluate(
    rules: RuleProgram,
    facts: Mapping[str, Iterable[tuple]],
    outputs: frozenset[str] | None = None,
    leave_out: frozenset[str] = frozenset(),
    firable: tuple[int, ...] | None = None,
) -> Derived:
    """Runs one program's facts through `rules` on clingo; raises `Inexact` where it cannot be exact.
    Only the rules `outputs` (default: every derived relation) are computed from, and of those
    only the ones that can fire over these facts, are grounded; every relation of that closure
    is in the answer (empty where no rule fired), but those in `leave_out`, whose rules are not
    run at all (another engine computes them; nothing outside them may read them)."""
    checked = validate_facts(rules, facts)
    fired = rules.firable(checked) if firable is None else firable  # the caller's work test found it
    wanted, kept = _selection(rules, outputs, leave_out, fired)
    program = _program(rules, kept, frozenset(n for n in wanted if checked.get(n)))
    symbols = _solve(program, checked) if program.shown else {}
    if sum(map(len, checked.values())) >= _LARGE:
        return_freed_memory()  # the freed Control's grounder memory, before the next stage piles on
    decoder = _Decoder()
    _check_sums(program, symbols, decoder)
    given = {name: rows for name, rows in checked.items() if name not in rules.derived}
    empty = dict.fromkeys(
        (rules.inputs.keys() - given.keys()) | (wanted - program.shown.keys()), frozenset[Row]()
    )
    return Derived(
        {**given, **empty},
        {name: functools.partial(decoder.rows, symbols[name]) for name in wanted & program.shown.keys()},
    )
