"""What a printed construct means, asked in one place: which function a call reaches, the launch
forms, the scalar builtins, yields, loops and kernel scopes.

Every question takes the dump's own DSL prefix (`Program.prefix`: `pl` for `import
pypto.language as pl`, whatever a dump names it), so no room spells `"pl."` itself.  These are
pure functions of one node; the extractor, the well-formedness checks, the decisions, the prover
and the rewriters all ask here instead of keeping their own copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from legalog.ir.model import Assign, Call, DictExpr, Dotted, Expr, Function, Stmt, With

__all__ = [
    "DEFAULT_PREFIX",
    "LOOP_ITERATORS",
    "LOOP_KINDS",
    "CallTarget",
    "LaunchForm",
    "ScalarBuiltin",
    "call_target",
    "core_num",
    "dsl_op",
    "group_call",
    "is_dim_query",
    "is_kernel_scope",
    "is_loop_iterator",
    "is_python_body",
    "is_yield",
    "loop_kind",
    "reaches_program",
    "scalar_builtin",
    "scope_kind",
    "spmd_scope_count",
    "yielded",
]

# The DSL prefix of a dump that names none (`import pypto.language as pl`), and of programs built
# in code: the one default every reader, printer and recogniser falls back to.
DEFAULT_PREFIX = "pl"

LaunchForm: TypeAlias = Literal["call", "submit", "spmd_submit"]
ScalarBuiltin: TypeAlias = Literal["min", "max", "abs", "cast"]

# `pl.range(...)` and its scheduling variants are counted loops; `pl.while_` is not.
LOOP_KINDS = frozenset({"range", "parallel", "unroll", "pipeline"})
# What PyPTO's parser takes as a loop's iterator, `for ... in <x>.<name>(...)` (it reads the
# attribute's name alone, whatever is before the dot); any other `for` it refuses
# (ast_parser.py, `_validate_for_loop_iterator`: "For loop must use pl.range(), ...").
LOOP_ITERATORS = LOOP_KINDS | {"while_", "spmd", "split_aiv"}
_SUBMITS: dict[str, LaunchForm] = {"submit": "submit", "spmd_submit": "spmd_submit"}
# `self.call_group(group, ...)` calls a function group of older dumps (corpus/SOURCES.md), not a
# function named `call_group`.
_SELF_BUILTINS = frozenset({"call_group"})
# Python's own min/max/abs are scalar arithmetic in the DSL as `pl.min` etc. are (PyPTO's parser
# reads both into its Min/Max/Abs nodes); `pl.cast` is the unary Cast.
_PYTHON_BUILTINS: dict[str, ScalarBuiltin] = {"min": "min", "max": "max", "abs": "abs"}
_DSL_BUILTINS: dict[str, ScalarBuiltin] = {"min": "min", "max": "max", "abs": "abs", "cast": "cast"}
# Shape queries: pure functions of an immutable shape, never negative.
_DIM_OPS = frozenset({"tensor.dim", "tile.dim"})
# Scopes whose body is kernel code, outlined into a function of its own (OutlineIncoreScopes,
# OutlineClusterScopes): what is computed inside is not orchestration code.
_KERNEL_SCOPES = frozenset({"at", "spmd"})


@dataclass(frozen=True)
class CallTarget:
    """The program function a call reaches, how, and where its own arguments start in the call
    (`pl.submit(self.k, a, b)` passes `a, b`: first_arg 1)."""

    callee: str
    form: LaunchForm
    first_arg: int

    def arguments(self, call: Call) -> tuple[Expr, ...]:
        return call.args[self.first_arg :]


def dsl_op(func: str, prefix: str) -> str | None:
    """`pl.tensor.slice` -> `tensor.slice` (None: not a DSL op of this dump)."""
    head = f"{prefix}."
    return func[len(head) :] if func.startswith(head) else None


def _self_function(path: str) -> str | None:
    return path[5:] if path.startswith("self.") else None


def call_target(call: Call, prefix: str) -> CallTarget | None:
    """`self.f(...)` is a call of f; `pl.submit(self.f, ...)` / `pl.spmd_submit(self.f, ...)` a
    launch of f.  Anything else (an op, a builtin) reaches no program function."""
    if (name := _self_function(call.func)) is not None:
        return None if name in _SELF_BUILTINS else CallTarget(name, "call", 0)
    form = _SUBMITS.get(dsl_op(call.func, prefix) or "")
    first = call.args[0] if call.args else None
    if form is not None and isinstance(first, Dotted) and (name := _self_function(first.path)) is not None:
        return CallTarget(name, form, 1)
    return None


def reaches_program(func: str, prefix: str) -> bool:
    """Whether a call spelled `func` can reach a program function: `self.<name>(...)`, or a
    launch (`pl.submit(...)`, `pl.spmd_submit(...)`), as `call_target` reads them."""
    return _self_function(func) is not None or dsl_op(func, prefix) in _SUBMITS


def group_call(call: Call) -> CallTarget | None:
    """`self.call_group(group, ...)`: a launch of an older dump's function group (a task like any
    call, counted as one), though no program function is named `call_group`."""
    return CallTarget("call_group", "call", 0) if _self_function(call.func) in _SELF_BUILTINS else None


def core_num(call: Call) -> Expr | None:
    """A launch's block count: `core_num=` on a spmd_submit, or `attrs={"core_num": n}` on a
    call.  A call carrying one is an SPMD launch whatever its callee's FunctionType."""
    if (count := call.kwarg("core_num")) is not None:
        return count
    attrs = call.kwarg("attrs")
    return attrs.get("core_num") if isinstance(attrs, DictExpr) else None


def scalar_builtin(func: str, prefix: str) -> ScalarBuiltin | None:
    """`min`/`max`/`abs` (Python's or the DSL's) and `pl.cast`: scalar arithmetic, not calls."""
    if (op := dsl_op(func, prefix)) is not None:
        return _DSL_BUILTINS.get(op)
    return _PYTHON_BUILTINS.get(func)


def is_dim_query(func: str, prefix: str) -> bool:
    return dsl_op(func, prefix) in _DIM_OPS


def is_yield(e: Expr | None, prefix: str) -> bool:
    """`pl.yield_(...)`: the values a branch or loop body hands to its merged results."""
    return isinstance(e, Call) and dsl_op(e.func, prefix) == "yield_"


def yielded(stmt: Stmt | None, prefix: str) -> tuple[Expr, ...] | None:
    """The values an `a, b = pl.yield_(x, y)` statement yields (None: not a yield binding)."""
    if isinstance(stmt, Assign) and is_yield(stmt.value, prefix):
        assert isinstance(stmt.value, Call)
        return stmt.value.args
    return None


# Levels at or above HOST (PyPTO's LevelToLinquLevel >= 3), aliases included
_HOST_LEVELS = frozenset(
    {"HOST", "NODE", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "POD", "CLOS1", "CLOS2", "GLOBAL"}
)


def is_python_body(fn: Function) -> bool:
    """A SubWorker at HOST level or above: PyPTO keeps its body as Python source to run on the
    host (an InlineStmt), never reading it as IR, so none of the IR's rules hold inside it."""
    chosen = {
        kw.name: kw.value.path.rsplit(".", 1)[-1] for kw in fn.decorator or () if isinstance(kw.value, Dotted)
    }
    return chosen.get("role") == "SubWorker" and chosen.get("level") in _HOST_LEVELS


def is_loop_iterator(iterable: Expr) -> bool:
    """Whether PyPTO's parser reads `for ... in iterable:` as a loop (`LOOP_ITERATORS`)."""
    if not isinstance(iterable, Call):
        return False
    _, dot, name = iterable.func.rpartition(".")
    return bool(dot) and name in LOOP_ITERATORS


def loop_kind(iterable: Expr, prefix: str) -> str | None:
    """`range`, `parallel`, ... for a counted loop, `while_` for `pl.while_`, else None."""
    if not isinstance(iterable, Call):
        return None
    op = dsl_op(iterable.func, prefix)
    return op if op in LOOP_KINDS or op == "while_" else None


def _scope_op(stmt: With, prefix: str) -> str | None:
    return dsl_op(stmt.context.func, prefix) if isinstance(stmt.context, Call) else None


def scope_kind(stmt: With, prefix: str) -> str:
    """`at`, `spmd`, `scope`, `manual_scope`, ... for `with pl.<kind>(...)`; `other` otherwise."""
    return _scope_op(stmt, prefix) or "other"


def is_kernel_scope(stmt: Stmt, prefix: str) -> bool:
    """`with pl.at(level=...)` and `with pl.spmd(n)`: their bodies are outlined into kernels."""
    return isinstance(stmt, With) and _scope_op(stmt, prefix) in _KERNEL_SCOPES


def spmd_scope_count(stmt: Stmt, prefix: str) -> Expr | None:
    """The block count of a `with pl.spmd(n, ...)` scope (positional or `core_num=`): in a
    frontend dump it is the SPMD launch OutlineClusterScopes makes of it."""
    if not isinstance(stmt, With) or _scope_op(stmt, prefix) != "spmd":
        return None
    assert isinstance(stmt.context, Call)
    return stmt.context.args[0] if stmt.context.args else stmt.context.kwarg("core_num")
