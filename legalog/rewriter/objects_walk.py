"""PyPTO's `IRVisitor` and `IRMutator` as legalog's object appliers subclass them.

Measured on PyPTO e2d0f78: its C++ visitors reach a Python override for a statement nested in a
block (`visit_seq_stmts` of a loop's body, say) only where the statement holding that block was
itself visited through a Python override; left to C++, a loop's or scope's body never calls back.
`walked_in_python(base)` is `base` with every block-holding statement's visit passed through
Python, so an override sees every statement however deeply it is nested.
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
