"""The ids facts carry, and the one place they are built and read back.

Every id is a string that starts with its function's name: a function is `F`, a variable `F/name`,
an expression node `F/eN`, a statement `F/sN` and a statement list `F/sN/body` (or `F/body`).
Expression and statement numbers count the body in source order.  No other module splits an id.
"""

from __future__ import annotations

from typing import TypeAlias

FactId: TypeAlias = str
"""An id of a function, variable, expression, statement or statement list (see above)."""


def var_id(function: str, name: str) -> FactId:
    return f"{function}/{name}"


def function_of(fact_id: FactId) -> str:
    """The function an id belongs to (a function's own id is its name)."""
    return fact_id.split("/", 1)[0]


def var_name(vid: FactId) -> str:
    """A variable id's name in its function: `layer/base__ssa_v0` -> `base__ssa_v0`."""
    return vid.split("/", 1)[1]


def stmt_order(sid: FactId) -> int:
    """A statement id's place in its function: ids number the body in source order (`F/sN`), an
    enclosing statement before the statements inside it."""
    return int(sid.rsplit("/s", 1)[1])


def expr_order(eid: FactId) -> int:
    """An expression id's place in its function (`F/eN`): numbered in source order too."""
    return int(eid.rsplit("/e", 1)[1])


def split_var(vid: FactId) -> tuple[str, str]:
    """A variable id's function and name: `layer/base` -> (`layer`, `base`)."""
    function, name = vid.split("/", 1)
    return function, name
