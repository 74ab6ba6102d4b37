"""The default engine: clingo (Potassco's grounder and solver), on the rules the front end read.

A stratified program has exactly one answer set, and clingo's grounder computes it outright:
every derived atom is a fact once grounding is done (ENGINES.md; the solve step that follows
only confirms it).  This backend translates the front end's `Rule`s 1:1 into ASP once per
program and process, then per evaluation: one `Control`, the rule text, the facts as ASP text
(faster than the backend API), ground, solve, and the model read back through clingo's C
interface (about 10x faster per row than the `Symbol` API).  It asserts exactly one model.

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
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

import clingo
from clingo._internal import _ffi, _lib  # the C interface clingo's own Python layer is built on
from clingo.symbol import Symbol

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
    validate_facts,
)

__all__ = ["Inexact", "evaluate", "translate"]

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
    lines = [f"{condition} :- {body}.",
             f"{_atom(head)} :- {aux}({group}), {_RESULT} = {function}{{{','.join(map(_name, elements))} : {condition}}}."]
    return lines, columns


def _rule(rule: Rule) -> str:
    if not rule.body:
        return _atom(rule.head) + "."
    return f"{_atom(rule.head)} :- {', '.join(_literal(lit) for lit in rule.body)}."


@dataclass(frozen=True)
class _Program:
    """A `RuleProgram` translated once: its ASP text, what to read back, what to guard."""

    text: str
    shown: Mapping[str, int]  # derived relations (and #sum inputs) -> arity
    sums: tuple[_SumGuard, ...]
    mentioned: frozenset[str]  # relations the rules read or define: the only facts clingo needs
    numeric: Mapping[str, frozenset[int]]  # relation -> columns the rules order or compute with


def translate(rules: RuleProgram) -> str:
    """The ASP text clingo evaluates for `rules` (rules and #show directives, no facts)."""
    return _program(rules).text


@functools.lru_cache(maxsize=32)
def _program(rules: RuleProgram) -> _Program:
    lines: list[str] = []
    sums: list[_SumGuard] = []
    shown = {name: rules.relations[name].arity for name in sorted(rules.derived)}
    for index, rule in enumerate(rules.rules):
        if rule.aggregate is None:
            lines.append(_rule(rule))
            continue
        aux = f"_agg{index}_{rule.head.relation}"
        text, columns = _aggregate(rule, rule.aggregate, aux)
        lines += text
        if rule.aggregate.kind == "sum":
            sums.append(_SumGuard(aux, columns.index(rule.aggregate.value)))
            shown[aux] = len(columns)
    lines.append("#show.")
    lines += [f"#show {name}/{arity}." for name, arity in shown.items()]
    numeric: dict[str, set[int]] = {}
    for relation, column in rules.numeric:
        numeric.setdefault(relation, set()).add(column)
    return _Program("\n".join(lines) + "\n", shown, tuple(sums), frozenset(rules.relations),
                    {name: frozenset(cols) for name, cols in numeric.items()})


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
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
    "%": operator.mod, "neg": operator.neg,
}
_FUNCTIONS = {op: fn.__name__ for op, fn in _OPERATORS.items()}


class _Context:
    """The `@name(...)` functions translated arithmetic calls while grounding."""


for _fn in _OPERATORS.values():
    setattr(_Context, _fn.__name__, staticmethod(_exact(_fn)))


# --------------------------------------------------------------------------- facts


def _facts_text(program: _Program, facts: Mapping[str, set[Row]]) -> str:
    """The facts clingo needs as ASP text, one `%`-format per column-type signature."""
    parts: list[str] = []
    for name, rows in facts.items():
        if name in program.mentioned and rows:
            parts += _fact_lines(name, rows, program.numeric.get(name, frozenset()))
    return "\n".join(parts)


_PLACEHOLDER = {int: "%d", str: '"%s"'}


def _fact_lines(name: str, rows: Iterable[Row], numeric: frozenset[int]) -> Iterator[str]:
    formats: dict[tuple[type, ...], str] = {}
    for row in rows:
        for value in row:
            if type(value) is str:
                if '"' in value or "\\" in value or "\n" in value:
                    break
            elif not INT_MIN <= value <= INT_MAX:  # type: ignore[operator]
                break
        else:
            signature = tuple(map(type, row))
            if (fmt := formats.get(signature)) is None:
                fmt = formats[signature] = name + "(" + ",".join(_PLACEHOLDER[t] for t in signature) + ")."
            yield fmt % row
            continue
        yield f"{name}({','.join(_value(name, i, v, numeric) for i, v in enumerate(row))})."


def _value(name: str, column: int, value: str | int, numeric: frozenset[int]) -> str:
    if isinstance(value, str):
        return _quote(value)
    if INT_MIN <= value <= INT_MAX:
        return str(value)
    if column in numeric:
        raise Inexact(f"{name} column {column} holds {value}, beyond clingo's 32 bits, and the rules compute with it")
    return f'{_BIG}("{value}")'


# --------------------------------------------------------------------------- solve and read


_SYMBOL_NUMBER = _lib.clingo_symbol_type_number
_SYMBOL_STRING = _lib.clingo_symbol_type_string


def _read_model(model: clingo.Model, shown: Iterable[str]) -> dict[str, set[Row]]:
    """The model's shown atoms as rows, through the C interface: one call for every symbol,
    then name and arguments per symbol, each distinct argument converted once (clingo interns
    symbols, so equal values share one id)."""
    out: dict[str, set[Row]] = {name: set() for name in shown}
    size = _ffi.new("size_t*")
    show = _lib.clingo_show_type_shown
    if not _lib.clingo_model_symbols_size(model._rep, show, size):
        raise RuleError(f"clingo: {_lib.clingo_error_message()}")
    symbols = _ffi.new("clingo_symbol_t[]", size[0])
    if not _lib.clingo_model_symbols(model._rep, show, symbols, size[0]):
        raise RuleError(f"clingo: {_lib.clingo_error_message()}")
    args_p = _ffi.new("clingo_symbol_t**")
    int_p = _ffi.new("int*")
    str_p = _ffi.new("char**")
    symbol_name, symbol_arguments, symbol_type = _lib.clingo_symbol_name, _lib.clingo_symbol_arguments, _lib.clingo_symbol_type
    symbol_number, symbol_string, c_string = _lib.clingo_symbol_number, _lib.clingo_symbol_string, _ffi.string
    names: dict[object, set[Row]] = {}
    values: dict[int, str | int] = {}
    for symbol in symbols:
        symbol_name(symbol, str_p)
        if (rows := names.get(str_p[0])) is None:
            rows = names[str_p[0]] = out[c_string(str_p[0]).decode()]
        symbol_arguments(symbol, args_p, size)
        args = args_p[0]
        row = []
        for j in range(size[0]):
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
        rows.add(tuple(row))
    return out


def _check_sums(program: _Program, rows: Mapping[str, set[Row]]) -> None:
    for guard in program.sums:
        values = (row[guard.column] for row in rows[guard.relation])
        if sum(abs(v) for v in values if isinstance(v, int)) > INT_MAX:
            raise Inexact(f"a #sum over {guard.relation} could leave clingo's 32 bits")


def _solve(program: _Program, facts_text: str) -> dict[str, set[Row]]:
    control = clingo.Control(["--warn=none", "--models=2"])
    control.add("base", [], program.text)
    control.add("base", [], facts_text)
    control.ground([("base", [])], context=_Context())
    with control.solve(yield_=True) as handle:
        models = iter(handle)
        model = next(models, None)
        if model is None:
            raise RuleError("clingo found no model: a stratified program always has one")
        rows = _read_model(model, program.shown)
        if next(models, None) is not None:
            raise RuleError("clingo found a second model: the program is not stratified")
    return rows


def evaluate(rules: RuleProgram, facts: Mapping[str, Iterable[tuple]]) -> Derived:
    """Runs one program's facts through `rules` on clingo; raises `Inexact` where it cannot be exact."""
    checked = validate_facts(rules, facts)
    program = _program(rules)
    rows = _solve(program, _facts_text(program, checked))
    _check_sums(program, rows)
    result = {name: frozenset(r) for name, r in checked.items()}
    for name in rules.derived:
        result[name] = frozenset(rows[name])
    for name in rules.relations:
        result.setdefault(name, frozenset())
    return Derived(result)

