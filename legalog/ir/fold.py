"""Constant folding as PyPTO folds it: the one place an integer expression built only from
literals gets its value.

PyPTO's parser folds literal arithmetic (`+ - * // % **`, unary `-`/`+`) into one `ConstInt`,
an int64: `2**62 * 4` is 2**64, which no ConstInt holds, and the parser refuses it (the checks,
`analyzer/wellformed.py`: IR404, fold `literals_only`).  The scalar builtins `min`, `max`, `abs`
and an integer `cast` it keeps as calls (PyPTO e2d0f78 parses `pl.cast(2**62, pl.INT64) * 4`
and prints it back unfolded), but their value is the same, so the positivity prover
(`analyzer/positivity.py`: literal core_num, divisors, loop steps) folds through them too.

A value is never computed far past INT64 (`2 ** 2 ** 40` stays cheap): an operation on an
operand outside INT64, or a power certain to overflow, folds to `OUT_OF_RANGE`, just outside
the range, which is all a caller needs to know.  The walk is iterative, so a long literal
chain costs no recursion depth, and a `memo` (by node identity) keeps shared subtrees linear.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias

from legalog.ir.model import BinOp, Call, Const, Dotted, Expr, Name, UnaryOp
from legalog.ir.patterns import DEFAULT_PREFIX, scalar_builtin

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
OUT_OF_RANGE = INT64_MAX + 1
"""What an expression folds to once an intermediate value leaves INT64."""

# Integer dtypes whose `cast` is the identity on a constant that fits (overflow is IR404's).
INT_DTYPES = frozenset({"INDEX", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"})

_BINOPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,  # Python's floor division, as PyPTO's DSL floors
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
}


ArithBuiltin: TypeAlias = Literal["min", "max", "abs"]


def in_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def int_literal(e: Expr) -> int | None:
    """The value of an integer literal itself (`3`, `-` not included; `True` is no integer here):
    what a dump spells as a number, before any folding."""
    if isinstance(e, Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    return None


def scalar_call(call: Call, prefix: str = DEFAULT_PREFIX) -> tuple[ArithBuiltin, tuple[Expr, ...]] | None:
    """`min`/`max` over positional arguments or `abs` of one, and those arguments: the arities at
    which the builtins are integer arithmetic (PyPTO's Min/Max/Abs); any other call is None."""
    if call.kwargs or not call.args:
        return None
    match scalar_builtin(call.func, prefix):
        case "min" | "max" as kind:
            return kind, call.args
        case "abs" if len(call.args) == 1:
            return "abs", call.args
    return None


def int_cast_operand(call: Call, prefix: str = DEFAULT_PREFIX) -> Expr | None:
    """The operand of `cast(x, <integer dtype>)`, which folds and encodes as `x` itself."""
    if scalar_builtin(call.func, prefix) != "cast" or not call.args:
        return None
    dtype = call.args[1] if len(call.args) > 1 else call.kwarg("dtype") or call.kwarg("target_type")
    match dtype:
        case Dotted(path=p) | Name(id=p) if p.rsplit(".", 1)[-1] in INT_DTYPES:
            return call.args[0]
    return None


def _operands(e: Expr, prefix: str, literals_only: bool) -> Sequence[Expr] | None:
    """What `e`'s value folds from, or None when `e` is no literal-only integer expression (with
    `literals_only`, no builtin call is one)."""
    if literals_only and isinstance(e, Call):
        return None
    match e:
        case Const(value=int()):  # bool is an int: True folds to 1
            return ()
        case UnaryOp(op="-" | "+", operand=x):
            return (x,)
        case BinOp(op=op, left=left, right=right) if op in _BINOPS:
            return (left, right)
        case Call():
            if (builtin := scalar_call(e, prefix)) is not None:
                return builtin[1]
            inner = int_cast_operand(e, prefix)
            return None if inner is None else (inner,)
    return None


def _combine(e: Expr, values: list[int], prefix: str) -> int | None:
    match e:
        case Const(value=int() as v):
            return int(v)
        case UnaryOp(op=op):
            return -values[0] if op == "-" else values[0]
        case BinOp(op=op):
            a, b = values
            if not (in_int64(a) and in_int64(b)):
                return OUT_OF_RANGE
            if (op in ("//", "%") and b == 0) or (op == "**" and b < 0):
                return None
            if op == "**" and abs(a) > 1 and b > 64:
                return OUT_OF_RANGE
            return _BINOPS[op](a, b)
        case Call():
            if not all(in_int64(v) for v in values):
                return OUT_OF_RANGE
            match scalar_call(e, prefix):
                case ("min", _):
                    return min(values)
                case ("max", _):
                    return max(values)
                case ("abs", _):
                    return abs(values[0])
            return values[0]  # an integer cast
    return None


def fold(
    e: Expr,
    prefix: str = DEFAULT_PREFIX,
    memo: dict[int, int | None] | None = None,
    *,
    literals_only: bool = False,
) -> int | None:
    """The value `e` folds to (possibly outside INT64, as `OUT_OF_RANGE` or the exact value of
    a single out-of-range step), or None when `e` is not built from integer literals (and, with
    `literals_only`, from literal arithmetic alone, as PyPTO's parser folds it).  `memo` may be
    shared by the calls over one tree whose nodes stay alive, with one `literals_only`."""
    memo = {} if memo is None else memo
    stack = [e]
    while stack:
        node = stack[-1]
        if id(node) in memo:
            stack.pop()
            continue
        operands = _operands(node, prefix, literals_only)
        if operands is None:
            memo[id(node)] = None
            stack.pop()
            continue
        pending = [x for x in operands if id(x) not in memo]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        values = [memo[id(x)] for x in operands]
        memo[id(node)] = None if None in values else _combine(node, values, prefix)  # type: ignore[arg-type]
    return memo[id(e)]


def fold_constant(e: Expr, prefix: str = DEFAULT_PREFIX, *, literals_only: bool = False) -> int | None:
    """The INT64 value of a literal-only integer expression, else None (a value outside INT64
    is no ConstInt, and a huge one has no decimal text to show).  With `literals_only`, the
    ConstInt PyPTO's parser makes of `e` (literal arithmetic, no builtin call), if it makes one."""
    value = fold(e, prefix, literals_only=literals_only)
    return value if value is not None and in_int64(value) else None
