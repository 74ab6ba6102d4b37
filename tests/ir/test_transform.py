"""`CHILD_FIELDS`: the fields of each IR node class that can hold another node, read from the
model's annotations.  A walk through them must reach every node a walk through all compared
fields reaches, in the same order; the checks and the lowering depend on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from legalog.ir.model import Assign, Call, Const, For, Name, Param, TensorType
from legalog.ir.parser import parse
from legalog.ir.transform import CHILD_FIELDS, node_fields
from tests.conftest import corpus_files


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        (Name, ()),  # `id` is a string
        (Const, ()),  # a literal and its dtype
        (Call, ("args", "kwargs")),  # not `func`
        (Assign, ("type", "value")),  # not `targets`, nor `comments`
        (For, ("iterable", "body")),  # not `index`, `iter_args`, `carried`
        (TensorType, ("shape", "extras")),  # not `kind`, `dtype`
        (Param, ("type",)),
        (str, None),
        (type(None), None),
    ],
)
def test_child_fields_are_the_fields_that_can_hold_a_node(kind: type, fields: tuple[str, ...] | None) -> None:
    assert CHILD_FIELDS[kind] == fields


def _walk(root: object, fields_of: Callable[[type], tuple[str, ...] | None]) -> list[object]:
    """Every node under `root`, pre-order, through the fields `fields_of(kind)` names."""
    found: list[object] = []
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(reversed(item))
        elif (names := fields_of(type(item))) is not None:
            found.append(item)
            stack.extend(reversed([getattr(item, n) for n in names]))
    return found


@pytest.mark.shared
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_a_walk_through_child_fields_reaches_every_node_in_order(path: Path) -> None:
    program = parse(path.read_text(encoding="utf-8"), str(path))
    for fn in program.functions:
        root = (fn.params, fn.returns, fn.body)
        assert [id(n) for n in _walk(root, CHILD_FIELDS.__getitem__)] == [
            id(n) for n in _walk(root, node_fields)
        ]
