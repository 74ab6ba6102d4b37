"""Structural equality over legalog's parsed IR, as PyPTO's `ir.structural_equal` sees it.

PyPTO compares variables by where they are bound, not by what they are called: a parameter or a
local of one program matches the one bound at the same position in the other, whatever its name.
`canonical(program)` renames every bound variable of each function to its first-binding position
(parameters first, then the body in order), leaves free names (dynamic dimensions, globals) and
function names alone, and drops what takes no part in equality (spans, comments, the source
layout).  Two programs are structurally equal exactly when their canonical forms are equal.

`canon(node, names)` is the same form for one node under a given correspondence of names (what
`legalog validate` uses to find the first statement where two functions part), and `shape(node)`
the form with every name erased (what lines statements up before any name is matched).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass, replace
from typing import Any

from legalog.ir.model import Call, Const, Function, Jump, Keyword, Opaque, Program, Stmt, TensorType
from legalog.ir.transform import walk_stmts

_NOT_COMPARED = frozenset({"span", "comments", "layout"})
# The fields that bind a name (every other str field holding a variable is a use, `Name.id`).
_BINDING_FIELDS = ("targets", "index", "iter_args", "as_name")


def binding_order(function: Function) -> list[str]:
    """Every name the function binds, once each, in the order it is first bound."""
    order: dict[str, None] = dict.fromkeys(p.name for p in function.params)
    for stmt in walk_stmts(function.body):
        for name in bound_by(stmt):
            order.setdefault(name)
    return list(order)


def bound_by(stmt: Stmt) -> list[str]:
    """The names one statement binds itself (not its nested bodies), in order."""
    names: list[str] = []
    for attr in _BINDING_FIELDS:
        value = getattr(stmt, attr, None)
        if isinstance(value, str):
            names.append(value)
        elif isinstance(value, tuple):
            names.extend(value)
    return names


# The fields holding a variable's name, per node kind: its uses (`Name.id`) and its bindings.
_NAMED_FIELDS = {
    "Name": ("id",),
    "Param": ("name",),
    "Assign": ("targets",),
    "For": ("index", "iter_args"),
    "With": ("as_name",),
}


def canon(node: Any, names: Mapping[str, str]) -> Any:
    """`node`'s comparable form, each variable spelled as `names` maps it (unmapped: as is)."""
    if isinstance(node, tuple):
        # `pass` is Python's syntax for an empty body; PyPTO's IR has no such statement.
        return tuple(
            canon(item, names) for item in node if not (isinstance(item, Jump) and item.kind == "pass")
        )
    if isinstance(node, Opaque):
        text = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: names.get(m.group(0), m.group(0)), node.text)
        return ("Opaque", text)
    if not is_dataclass(node) or isinstance(node, type):
        return node
    node = _normalised(node)
    renamed = _NAMED_FIELDS.get(type(node).__name__, ())
    out: list[Any] = [type(node).__name__]
    for f in fields(node):
        if f.name in _NOT_COMPARED:
            continue
        value = getattr(node, f.name)
        out.append(_rename(value, names) if f.name in renamed else canon(value, names))
    return tuple(out)


def _normalised(node: Any) -> Any:
    """What PyPTO's IR does not distinguish, made equal."""
    if isinstance(node, TensorType):
        # A type's MemRef (where InitMemRef placed the buffer) takes no part in PyPTO's
        # structural equality: the pass's loop results share their init value's MemRef where
        # the printed input named a fresh one (reference README, class 2: not compared).
        return replace(node, extras=tuple(e for e in node.extras if not _is_memref(e)))
    if isinstance(node, Call):
        # Keyword arguments are a map in PyPTO's IR (printed in the op's own order), not a sequence.
        return replace(node, kwargs=_sorted(node.kwargs))
    if isinstance(node, Function) and node.decorator is not None:
        return replace(node, decorator=_sorted(node.decorator))  # the function's attributes: a map too
    if isinstance(node, Const) and node.dtype == "INDEX" and type(node.value) is int:
        return replace(node, dtype=None)  # a bare integer literal is an INDEX constant
    return node


def _sorted(keywords: tuple[Keyword, ...]) -> tuple[Keyword, ...]:
    return tuple(sorted(keywords, key=lambda k: k.name))


def _is_memref(e: Any) -> bool:
    return isinstance(e, Call) and e.func.rsplit(".", 1)[-1] == "MemRef"


def _rename(value: Any, names: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, tuple):
        return tuple(names.get(v, v) for v in value)
    return value


class _Erased(Mapping[str, str]):
    """Every name spelled `_`."""

    def __getitem__(self, key: str) -> str:
        return "_"

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


_ERASED = _Erased()


def shape(node: Any) -> Any:
    """`node`'s comparable form with every name erased: what is left when nothing is matched yet."""
    return canon(node, _ERASED)


def canonical_function(function: Function) -> Any:
    names = {name: f"%{i}" for i, name in enumerate(binding_order(function))}
    return canon(function, names)


def canonical(program: Program) -> dict[str, Any]:
    """Function name -> its canonical form (PyPTO's Program maps functions by name, unordered)."""
    return {f.name: canonical_function(f) for f in program.functions}


def structurally_equal(a: Program, b: Program) -> bool:
    return canonical(a) == canonical(b) and a.dynamic_dims == b.dynamic_dims
