"""Structural edits on the frozen IR: rename or substitute variables, drop bindings, splice
statements.  Pure functions returning new nodes; nodes nothing touched are returned as they
are, so an untouched function stays equal to its original and prints byte-for-byte."""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass, replace
from typing import Any, Literal, TypeVar, get_args, get_origin, get_type_hints

from legalog.ir.model import (
    NO_SPAN,
    Assign,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Const,
    DictExpr,
    Expr,
    Jump,
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
    `lookup(name)` when that is not None.  Assignment targets are left alone.

    Walked with an explicit stack, each distinct node once (by identity): a deep tree costs no
    recursion, and a subtree shared by many parents (an expansion reuses the earlier ones it
    reads) is rebuilt once, so the result shares it too."""
    done: dict[int, Any] = {}  # id of a node seen -> its result (the node itself when unchanged)
    # an entry is a node to visit (children None) or one to rebuild over its children's results
    stack: list[tuple[Any, tuple[Any, ...] | None]] = [(node, None)]
    push, pop, seen = stack.append, stack.pop, done.get
    while stack:
        item, children = pop()
        key = id(item)
        if key in done:
            continue
        if children is not None:
            done[key] = _rebuilt(item, children, done)
            continue
        kind = type(item)
        if kind is Name:
            done[key] = _substitute_name(item, lookup)
        elif kind is Opaque:
            done[key] = _substitute_opaque(item, lookup)
        elif kind is tuple or (names := _use_fields(kind)):
            children = item if kind is tuple else tuple([getattr(item, name) for name in names])
            push((item, children))
            # leaves (strings, numbers, None) are pushed nowhere: `_rebuilt` keeps them as they are
            for child in children:
                if _walked(type(child)) and seen(id(child)) is None:
                    push((child, None))
        else:
            done[key] = item
    return done[id(node)]


# fields of a node that hold no use of a variable: where it was read, its comments, the names it binds
_NOT_USES = frozenset(("span", "comments", "targets"))
_USE_FIELDS: dict[type, tuple[str, ...]] = {}


def _use_fields(cls: type) -> tuple[str, ...]:
    """The fields of an IR node class that can hold a use; () for any other class (a leaf)."""
    if (names := _USE_FIELDS.get(cls)) is None:
        names = _USE_FIELDS[cls] = (
            tuple(f.name for f in fields(cls) if f.name not in _NOT_USES) if is_dataclass(cls) else ()
        )
    return names


def _walked(kind: type) -> bool:
    """Whether a value of `kind` can hold a use: a tuple or an IR node (a string or a number is a leaf)."""
    return kind is tuple or kind is Name or kind is Opaque or bool(_use_fields(kind))


def _rebuilt(item: Any, children: tuple[Any, ...], done: dict[int, Any]) -> Any:
    """`item` over its children's results; `item` itself when none changed.  A child not in
    `done` is a leaf, its own result (alive in the tree, so its id is no other node's)."""
    results = [done.get(id(child), child) for child in children]
    if all(a is b for a, b in zip(results, children)):
        return item
    if type(item) is tuple:
        return tuple(results)
    names = _use_fields(type(item))
    return replace(item, **{n: new for n, new, old in zip(names, results, children) if new is not old})


def _substitute_name(node: Name, lookup: Substitution) -> Expr:
    new = lookup(node.id)
    if isinstance(new, Name) and new.span == NO_SPAN:
        return replace(node, id=new.id)  # a renamed use keeps its place
    return node if new is None else new


def _substitute_opaque(node: Opaque, lookup: Substitution) -> Opaque:
    from legalog.ir.printer import print_expr  # the printer knows precedence; opaque text needs it

    mapping = {n: new for n in node.names if (new := lookup(n)) is not None}
    if not mapping:
        return node
    text = re.sub(
        r"\b(" + "|".join(re.escape(n) for n in mapping) + r")\b",
        lambda m: (
            "(" + print_expr(mapping[m.group(1)]) + ")"
            if not isinstance(mapping[m.group(1)], Name)
            else mapping[m.group(1)].id  # type: ignore[union-attr]
        ),
        node.text,
    )
    names = tuple(
        sorted((set(node.names) - set(mapping)) | {n.id for n in mapping.values() if isinstance(n, Name)})
    )
    return Opaque(text, names, span=node.span)


_NODE_FIELDS: dict[type, tuple[str, ...] | None] = {}


def node_fields(kind: type) -> tuple[str, ...] | None:
    """The fields of an IR node class that equality compares (all but its span), once per
    class; None for a class that is no IR node."""
    if kind not in _NODE_FIELDS:
        _NODE_FIELDS[kind] = tuple(f.name for f in fields(kind) if f.compare) if is_dataclass(kind) else None
    return _NODE_FIELDS[kind]


class _ChildFields(dict[type, tuple[str, ...] | None]):
    """Per IR node class, the fields that can hold another node (a node, a tuple of nodes, or
    None where optional), in declaration order; None for a class that is no IR node.  A walk
    that reads only these never pushes a name, an operator or a comment it would pop for
    nothing: `wellformed`'s walk of every body popped four leaves per node it kept."""

    def __missing__(self, kind: type) -> tuple[str, ...] | None:
        names = node_fields(kind)  # what equality compares: a node's span is no child
        if names is not None:
            hints = get_type_hints(kind)
            names = tuple(name for name in names if _holds_nodes(hints[name]))
        self[kind] = names
        return names


CHILD_FIELDS = _ChildFields()

_LEAF_TYPES = frozenset((str, int, float, bool, types.NoneType))


def _holds_nodes(hint: object) -> bool:
    """Whether a field annotated `hint` can hold an IR node (`str | None`, `Literal[...]` and
    `tuple[str, ...]` cannot)."""
    origin = get_origin(hint)
    if origin is Literal:
        return False
    if origin is None:
        return hint not in _LEAF_TYPES
    return any(_holds_nodes(arg) for arg in get_args(hint) if arg is not Ellipsis)


def rename(node: Node, names: dict[str, str]) -> Node:
    if not names:
        return node  # nothing to rename: no walk (most Graphs a rewrite touches have no alias)
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
    if changed and not out:
        # a block whose every statement was dropped (a hoisted binding alone under an `if`)
        # still needs one: the `pass` the printer writes for it, so the program is its text
        out.append(Jump("pass", span=body[0].span))
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
    return names_in((e,))


def names_in(exprs: Iterable[Expr]) -> set[str]:
    """Every variable name used anywhere inside any of `exprs` (one walk for all of them)."""
    found: set[str] = set()
    stack: list[Expr] = list(exprs)
    while stack:
        node = stack.pop()
        if type(node) is Name:
            found.add(node.id)
        elif type(node) is Opaque:
            found.update(node.names)
        elif type(node) is not Const:  # the commonest leaf (shapes), past `_operands`' tests
            stack += _operands(node)
    return found


def tree_size(e: Expr, weight: Callable[[str], int]) -> int:
    """How many nodes `e` has as a tree, a name counting `weight(name)` nodes (what it would be
    replaced by); an opaque node counts one plus its names."""
    total = 0
    stack: list[Expr] = [e]
    while stack:
        node = stack.pop()
        match node:
            case Name(id=name):
                total += weight(name)
            case Opaque(names=names):
                total += 1 + sum(weight(n) for n in names)
            case _:
                total += 1
                stack += _operands(node)
    return total


def _operands(node: Expr) -> list[Expr]:
    """An expression's direct sub-expressions (a call's keyword values among them).  Tested by
    exact class, the commonest first: this runs for every node of every expression walked."""
    if type(node) is Call:
        return [*node.args, *[k.value for k in node.kwargs]]
    if type(node) is BinOp or type(node) is Compare:
        return [node.left, node.right]
    if type(node) is TupleExpr or type(node) is ListExpr:
        return list(node.elts)
    if type(node) is UnaryOp:
        return [node.operand]
    if type(node) is BoolOp:
        return list(node.values)
    if type(node) is Subscript:
        return [node.value, node.index]
    if type(node) is DictExpr:
        return [*node.keys, *node.values]
    return []
