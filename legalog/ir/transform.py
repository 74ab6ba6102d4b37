"""Structural edits on the frozen IR: rename or substitute variables, drop bindings, splice
statements.  Pure functions returning new nodes; nodes nothing touched are returned as they
are, so an untouched function stays equal to its original and prints byte-for-byte."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass, replace
from typing import Any, TypeVar

from legalog.ir.model import (
    NO_SPAN,
    Assign,
    BinOp,
    BoolOp,
    Call,
    Compare,
    DictExpr,
    Expr,
    ListExpr,
    Name,
    Opaque,
    Stmt,
    Subscript,
    TupleExpr,
    UnaryOp,
)

Node = TypeVar("Node")
Substitution = Callable[[str], Expr | None]

_BODY_FIELDS = ("body", "orelse")


def substitute(node: Node, lookup: Substitution) -> Node:
    """Replace every use of a variable (in expressions and type annotations, at any depth) by
    `lookup(name)` when that is not None.  Assignment targets are left alone."""
    if isinstance(node, Name):
        new = lookup(node.id)
        if isinstance(new, Name) and new.span == NO_SPAN:
            return replace(node, id=new.id)  # a renamed use keeps its place
        return node if new is None else new  # type: ignore[return-value]
    if isinstance(node, Opaque):
        return _substitute_opaque(node, lookup)  # type: ignore[return-value]
    if isinstance(node, tuple):
        items = tuple(substitute(item, lookup) for item in node)
        return node if all(a is b for a, b in zip(items, node)) else items  # type: ignore[return-value]
    if not is_dataclass(node) or isinstance(node, type):
        return node
    changes = {}
    for f in fields(node):
        if f.name in ("span", "comments", "targets"):
            continue
        value = getattr(node, f.name)
        new = substitute(value, lookup)
        if new is not value:
            changes[f.name] = new
    return replace(node, **changes) if changes else node


def _substitute_opaque(node: Opaque, lookup: Substitution) -> Opaque:
    from legalog.ir.printer import print_expr  # the printer knows precedence; opaque text needs it

    mapping = {n: new for n in node.names if (new := lookup(n)) is not None}
    if not mapping:
        return node
    text = re.sub(
        r"\b(" + "|".join(re.escape(n) for n in mapping) + r")\b",
        lambda m: "(" + print_expr(mapping[m.group(1)]) + ")" if not isinstance(mapping[m.group(1)], Name)
        else mapping[m.group(1)].id,  # type: ignore[union-attr]
        node.text,
    )
    names = tuple(sorted((set(node.names) - set(mapping)) | {n.id for n in mapping.values() if isinstance(n, Name)}))
    return Opaque(text, names, span=node.span)


def rename(node: Node, names: dict[str, str]) -> Node:
    return substitute(node, lambda n: Name(names[n]) if n in names else None)


def drop_bindings(body: tuple[Stmt, ...], names: frozenset[str] | set[str]) -> tuple[Stmt, ...]:
    """Remove every single-target assignment binding one of `names`, in nested bodies too."""
    out: list[Stmt] = []
    changed = False
    for stmt in body:
        if isinstance(stmt, Assign) and len(stmt.targets) == 1 and stmt.targets[0] in names:
            changed = True
            continue
        new = map_bodies(stmt, lambda b: drop_bindings(b, names))
        changed |= new is not stmt
        out.append(new)
    return tuple(out) if changed else body


def splice(body: tuple[Stmt, ...], edit: Callable[[Stmt], Iterable[Stmt] | None]) -> tuple[Stmt, ...]:
    """Replace each statement for which `edit` returns statements (a prefix plus the statement,
    say) by those statements; recurse into nested bodies of the others."""
    out: list[Stmt] = []
    changed = False
    for stmt in body:
        replacement = edit(stmt)
        if replacement is not None:
            out.extend(replacement)
            changed = True
            continue
        new = map_bodies(stmt, lambda b: splice(b, edit))
        changed |= new is not stmt
        out.append(new)
    return tuple(out) if changed else body


def map_bodies(stmt: Stmt, fn: Callable[[tuple[Stmt, ...]], tuple[Stmt, ...]]) -> Stmt:
    """`stmt` with `fn` applied to each of its nested bodies (itself when none changes)."""
    changes: dict[str, Any] = {}  # body fields: every Stmt kind names its own
    for name in _BODY_FIELDS:
        body = getattr(stmt, name, None)
        if body is not None:
            new = fn(body)
            if new is not body:
                changes[name] = new
    return replace(stmt, **changes) if changes else stmt


def walk_stmts(body: tuple[Stmt, ...]) -> Iterable[Stmt]:
    """Every statement, pre-order, nested bodies included."""
    for stmt in body:
        yield stmt
        for name in _BODY_FIELDS:
            yield from walk_stmts(getattr(stmt, name, ()))


def bindings(body: tuple[Stmt, ...]) -> list[str]:
    """Every name a body binds (assignment targets, loop variables, `with ... as`), in binding
    order: statements pre-order, a loop's index before its iteration arguments."""
    names: list[str] = []
    for stmt in walk_stmts(body):
        names += getattr(stmt, "targets", ())
        if (index := getattr(stmt, "index", None)) is not None:
            names.append(index)
        names += getattr(stmt, "iter_args", ())
        if (as_name := getattr(stmt, "as_name", None)) is not None:
            names.append(as_name)
    return names


def bound_names(body: tuple[Stmt, ...]) -> set[str]:
    """Every name a body binds, as a set."""
    return set(bindings(body))


def expr_names(e: Expr) -> set[str]:
    """Every variable name used anywhere inside an expression."""
    found: set[str] = set()
    stack: list[Expr] = [e]
    while stack:
        node = stack.pop()
        match node:
            case Name(id=name):
                found.add(name)
            case Opaque(names=names):
                found.update(names)
            case BinOp(left=left, right=right) | Compare(left=left, right=right):
                stack += (left, right)
            case UnaryOp(operand=operand):
                stack.append(operand)
            case BoolOp(values=values) | ListExpr(elts=values) | TupleExpr(elts=values):
                stack += values
            case Call(args=args, kwargs=kwargs):
                stack += args
                stack += [k.value for k in kwargs]
            case DictExpr(keys=keys, values=values):
                stack += keys
                stack += values
            case Subscript(value=value, index=index):
                stack += (value, index)
    return found
