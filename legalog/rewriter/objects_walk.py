"""PyPTO's `IRVisitor` and `IRMutator` as legalog's object appliers subclass them.

Measured on PyPTO e2d0f78: its C++ visitors reach a Python override for a statement nested in a
block (`visit_seq_stmts` of a loop's body, say) only where the statement holding that block was
itself visited through a Python override; left to C++, a loop's or scope's body never calls back.
`walked_in_python(base)` is `base` with every block-holding statement's visit passed through
Python, so an override sees every statement however deeply it is nested; `assignments` is the
one walk of a body's assignments by name, for the appliers and for placing a rejection.
"""

from __future__ import annotations

import functools
from typing import Any

# every statement that holds a block, and the block itself
COMPOUND = (
    "visit_seq_stmts",
    "visit_for_stmt",
    "visit_while_stmt",
    "visit_if_stmt",
    "visit_in_core_scope_stmt",
    "visit_cluster_scope_stmt",
    "visit_hierarchy_scope_stmt",
    "visit_spmd_scope_stmt",
    "visit_split_aiv_scope_stmt",
    "visit_runtime_scope_stmt",
    "visit_comm_domain_scope_stmt",
)


@functools.cache
def walked_in_python(base: type) -> type:
    """`base` (PyPTO's `IRVisitor` or `IRMutator`) with each compound statement's visit made a
    Python override of its own default, so that every block is walked in Python."""

    def default(name: str) -> Any:
        return lambda self, op: getattr(base, name)(self, op)

    return type(f"Through{base.__name__}", (base,), {n: default(n) for n in COMPOUND if hasattr(base, n)})


def assignments(body: Any) -> dict[str, list[Any]]:
    """Every `AssignStmt` under `body` (a statement), by its target's name, in the order they
    are printed (a name outside SSA form may be assigned more than once)."""
    found: dict[str, list[Any]] = {}
    _assignment_walker()(found).visit_stmt(body)
    return found


@functools.cache
def _assignment_walker() -> type:
    from pypto.pypto_core import ir

    class Assignments(walked_in_python(ir.IRVisitor)):  # type: ignore[misc]
        def __init__(self, found: dict[str, list[Any]]) -> None:
            super().__init__()
            self.found = found

        def visit_assign_stmt(self, op: Any) -> None:
            self.found.setdefault(op.var.name_hint, []).append(op)
            super().visit_assign_stmt(op)

    return Assignments
