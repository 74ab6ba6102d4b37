"""`legalog query`: one ad-hoc Datalog atom over a program's facts and every derived relation.

The query language is the rules' own atom syntax: `relation(X, "y", 3, _)` with capitalised
variables, quoted strings, integers and `_` as a wildcard; a variable used twice must take the
same value in both columns.  It is evaluated against `Analysis.derived` (already materialised),
so it never touches pyDatalog: unknown relations and wrong arities are clear errors, not the
engine's silent empty answer.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from legalog.analyzer.graph import plain_name
from legalog.facts.ids import split_var
from legalog.facts.schema import DECLARED, RELATIONS
from legalog.rules.engine import Derived

Cell = str | int


class QueryError(Exception):
    """A query that cannot be asked as written; the message says what would work."""


@dataclass(frozen=True, slots=True)
class Var:
    name: str


@dataclass(frozen=True, slots=True)
class Wildcard:
    pass


Term = Var | Wildcard | Cell


@dataclass(frozen=True, slots=True)
class Query:
    relation: str
    terms: tuple[Term, ...]

    @property
    def variables(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for t in self.terms:
            if isinstance(t, Var):
                seen.setdefault(t.name)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class RelationInfo:
    name: str
    columns: tuple[str, ...]
    kind: str  # "input" or "derived", as facts/schema.py declares it
    meaning: str

    def signature(self) -> str:
        return f"{self.name}({', '.join(self.columns)})"


@dataclass(frozen=True, slots=True)
class Answer:
    query: Query
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    matched: int

    def to_json(self) -> dict[str, Any]:
        return {
            "relation": self.query.relation,
            "columns": list(self.columns),
            "rows": [list(r) for r in self.rows],
            "matched": self.matched,
        }

    def render_text(self) -> str:
        if not self.columns:
            return "yes" if self.matched else "no"
        table = [self.columns] + [tuple(str(c) for c in row) for row in self.rows]
        widths = [max(len(r[i]) for r in table) for i in range(len(self.columns))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
        lines.insert(1, "  ".join("-" * w for w in widths))
        lines.append(f"({len(self.rows)} row{'s' if len(self.rows) != 1 else ''})")
        return "\n".join(lines)


# --------------------------------------------------------------------------------- parse

_VARIABLE = re.compile(r"^[A-Z][A-Za-z0-9_]*$")


def parse_query(text: str) -> Query:
    """`relation(X, "y", 3, _)` -> Query; QueryError says what is wrong and where."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as err:
        raise QueryError(f"cannot read the query {text!r}: {err.msg} (column {err.offset})") from None
    if isinstance(node, ast.Name):
        raise QueryError(
            f"`{node.id}` needs its arguments: write {node.id}(X, ...) (see `legalog query FILE --list`)"
        )
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.keywords:
        raise QueryError(
            'a query is one atom: relation(Arg, ...) with variables (X), strings ("a"), ints or _'
        )
    return Query(node.func.id, tuple(_term(a) for a in node.args))


def _term(node: ast.expr) -> Term:
    if isinstance(node, ast.Name):
        if node.id == "_":
            return Wildcard()
        if _VARIABLE.match(node.id) or node.id.startswith("_"):
            return Var(node.id)
        raise QueryError(
            f'`{node.id}` is neither a variable (capitalised) nor a string: write "{node.id}" for the constant'
        )
    if isinstance(node, ast.Constant) and (isinstance(node.value, str) or type(node.value) is int):
        return node.value  # a str or an int (bool excluded), as checked
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    raise QueryError(
        f"unsupported argument `{ast.unparse(node)}`: use a variable, a quoted string, an int or _"
    )


# ------------------------------------------------------------------------------- catalogue


def catalogue(derived: Mapping[str, Any]) -> dict[str, RelationInfo]:
    """Every relation of an analysis with its columns and meaning, as the schema declares it
    (legalog/facts/schema.py: the extractor's inputs and every relation the rules derive)."""
    out: dict[str, RelationInfo] = {}
    for name in sorted(derived):
        decl = DECLARED[name]
        kind = "input" if name in RELATIONS else "derived"
        out[name] = RelationInfo(name, tuple(c.name for c in decl.columns), kind, decl.meaning)
    return out


# ----------------------------------------------------------------------------------- ask


def ask(derived: Derived | Mapping[str, Any], query: Query) -> Answer:
    """Rows of `query.relation` matching the query, projected on its variables, sorted."""
    relations = catalogue(derived)
    info = relations.get(query.relation)
    if info is None:
        close = difflib.get_close_matches(query.relation, sorted(relations), n=4, cutoff=0.6)
        hint = (
            f"; did you mean {', '.join(close)}?" if close else "; `legalog query FILE --list` names them all"
        )
        raise QueryError(f"unknown relation `{query.relation}`{hint}")
    if len(query.terms) != len(info.columns):
        raise QueryError(
            f"`{query.relation}` has {len(info.columns)} column{'s' if len(info.columns) != 1 else ''}, "
            f"the query gives {len(query.terms)}: {info.signature()}"
        )
    matched = [row for row in derived[query.relation] if _matches(query.terms, row)]
    names = query.variables
    positions = [next(i for i, t in enumerate(query.terms) if t == Var(n)) for n in names]
    projected = {tuple(row[i] for i in positions) for row in matched}
    return Answer(query, names, tuple(sorted(projected, key=_key)), len(matched))


def spellings(ids: Iterable[str], printed: Mapping[str, Mapping[str, str]]) -> dict[str, set[str]]:
    """Every way a user may write a value of the program, mapped to the ids (`F/name`) it names:
    the name as printed, without its SSA suffix, as a frontend dump wrote it (`printed`: per
    function, internal name -> the dump's), each alone and after `F/`."""
    out: dict[str, set[str]] = {}
    for vid in ids:
        function, name = split_var(vid)
        for spelled in {name, plain_name(name), printed.get(function, {}).get(name, name)}:
            for key in (spelled, f"{function}/{spelled}"):
                if key != vid:
                    out.setdefault(key, set()).add(vid)
    return out


def resolve_names(
    query: Query, derived: Derived | Mapping[str, Any], names: Mapping[str, set[str]]
) -> tuple[Query, dict[str, str]]:
    """`query` with each quoted name that is no value of its column but names a value of the
    program (`"win"` for `patch/win__ssa_v0`) replaced by that value's id, and what was
    replaced.  A name of several values means the one its column holds; a QueryError lists
    them when that does not decide."""
    rows = derived.get(query.relation, ())
    terms, used = list(query.terms), {}
    for i, term in enumerate(terms):
        if not isinstance(term, str) or term not in names:
            continue
        column = {row[i] for row in rows if len(row) > i}
        if term in column:
            continue
        ids = sorted(names[term])
        held = [v for v in ids if v in column]
        if len(held) != 1 and len(ids) != 1:
            raise QueryError(f'"{term}" names {len(ids)} values: {", ".join(ids)}; quote the one you mean')
        terms[i] = used[term] = held[0] if len(held) == 1 else ids[0]
    return Query(query.relation, tuple(terms)), used


def _matches(terms: Sequence[Term], row: Sequence[Cell]) -> bool:
    bound: dict[str, Cell] = {}
    for term, value in zip(terms, row):
        if isinstance(term, Wildcard):
            continue
        if isinstance(term, Var):
            if bound.setdefault(term.name, value) != value:
                return False
        elif type(term) is not type(value) or term != value:
            return False
    return True


def _key(row: tuple[Cell, ...]) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, c) if isinstance(c, int) else (1, c) for c in row)
