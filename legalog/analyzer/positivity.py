"""The Z3 positivity prover: is `core_num >= 1` at an SPMD launch?

LegalizeSpmdLaunches keeps a launch unchanged only when `core_num >= 1` follows from the pure
scalar SSA bindings, the enclosing loop ranges and the enclosing branch conditions; otherwise it
guards the launch with `if core_num > 0`.  This module decides that implication with Z3:

* proven   — (context ∧ core_num < 1) is unsat;
* refuted  — it is sat, and the model is the counterexample (`core_num = 0 when n = 1`);
* unknown  — the solver ran out of its resource budget.  Never reported as proven or refuted.

Soundness rule: anything the encoder does not understand (a tensor read, an unknown call, a
float, true division, bit operations) becomes a fresh unconstrained Int named after its source
text.  An unconstrained symbol can only make a proof fail, never make a false one succeed.

Reproducibility: every query runs in its own Z3 context with a fixed `random_seed` and an
`rlimit` (a deterministic step budget), never a wall-clock timeout, so the same goal always gets
the same verdict and the same model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:  # imported on first use (`_load_z3`)
    import z3

from legalog.ir.fold import fold_constant, int_cast_operand, scalar_call
from legalog.ir.model import (
    BinOp,
    BoolOp,
    Call,
    Compare,
    Const,
    DictExpr,
    Dotted,
    Expr,
    Keyword,
    ListExpr,
    Name,
    Opaque,
    Subscript,
    TupleExpr,
    UnaryOp,
)
from legalog.ir.patterns import DEFAULT_PREFIX, is_dim_query, scalar_builtin
from legalog.ir.transform import expr_names

__all__ = [
    "CORE_NUM",
    "DEFAULT_RLIMIT",
    "DEFAULT_SEED",
    "LoopRange",
    "Outcome",
    "PositivityGoal",
    "Verdict",
    "expr_text",
    "literal_verdict",
    "prove",
    "proven_by",
    "smt2",
    "solve",
    "value_domain",
]

Outcome: TypeAlias = Literal["proven", "refuted", "unknown"]

# A budget in Z3's deterministic resource units.  The corpus goals need a few thousand; this is
# generous enough for small nonlinear goals and still bounded, so a hard goal ends as "unknown".
DEFAULT_RLIMIT = 5_000_000
DEFAULT_SEED = 0
# The key under which the counterexample reports the launch count itself.
CORE_NUM = "core_num"


# ------------------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class LoopRange:
    """An enclosing `for index in pl.range(start, stop, step)`."""

    index: str
    start: Expr
    stop: Expr
    step: Expr = Const(1)

    @property
    def label(self) -> str:
        """How an explanation names the assumption: `i in range(0, n, 1)`."""
        return (
            f"{self.index} in range({expr_text(self.start)}, {expr_text(self.stop)}, {expr_text(self.step)})"
        )


@dataclass(frozen=True)
class PositivityGoal:
    """Everything known at one launch.

    `bindings` are the SSA scalar definitions visible there (name -> defining expr); they are
    asserted as equalities with the name kept symbolic, so a range fact about `remaining` still
    applies to `((remaining + 15) // 16) * 4`.  `facts` are the enclosing branch conditions with
    their polarity (True: then-path, False: else-path).  `nonneg` names are known to be >= 0
    (dynamic dimensions, `pl.tensor.dim` results).  `dtypes` are the declared scalar dtypes:
    a free name ranges over its dtype's values (`value_domain`), as PyPTO's analyzer assumes.
    """

    core_num: Expr
    bindings: Mapping[str, Expr] = field(default_factory=dict)
    facts: Sequence[tuple[Expr, bool]] = ()
    loops: Sequence[LoopRange] = ()
    nonneg: frozenset[str] = frozenset()
    dtypes: Mapping[str, str] = field(default_factory=dict)
    prefix: str = DEFAULT_PREFIX  # the dump's DSL prefix: `pl.min`, `pl.cast`, ... (legalog.ir.patterns)


# The integer dtypes by bit width, signed and unsigned.
_SIGNED_BITS = {"INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64}
_UNSIGNED_BITS = {"UINT8": 8, "UINT16": 16, "UINT32": 32, "UINT64": 64}


def value_domain(dtype: str) -> tuple[int | None, int | None]:
    """The values a scalar of `dtype` can hold, as PyPTO's arith::Analyzer assumes them
    (None: unbounded on that side).  INDEX is never negative: the analyzer and Simplify rely on
    it (reference README: "an INDEX scalar is never negative, so it proves m + 1 >= 1").  The
    fixed-width integers hold what their bits represent (the range const_int_bound.cpp gives a
    cast to them); BOOL is 0 or 1.  Any other dtype (floats, TASK_ID) adds nothing."""
    if dtype == "INDEX":
        return 0, None
    if dtype == "BOOL":
        return 0, 1
    if (bits := _UNSIGNED_BITS.get(dtype)) is not None:
        return 0, (1 << bits) - 1
    if (bits := _SIGNED_BITS.get(dtype)) is not None:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return None, None


# ------------------------------------------------------------------------------------- output


@dataclass(frozen=True)
class Verdict:
    """The answer for one goal.

    `counterexample` (refuted only) maps the free symbols — parameters, loop indices, opaque
    leaves by their source text — and `CORE_NUM` to model values, sorted by name.
    `literal_nonpositive` marks a core_num that constant-folds to a value <= 0 (its own
    diagnostic: the DSL parser rejects it, no guard is emitted).  `used` lists, for a proof, the
    assumptions Z3 needed (an unsat core), so an explanation never re-derives anything.
    """

    outcome: Outcome
    counterexample: dict[str, int]
    reason: str
    literal_nonpositive: bool = False
    used: tuple[str, ...] = ()

    @property
    def proven(self) -> bool:
        return self.outcome == "proven"

    def describe_counterexample(self) -> str:
        """`core_num = 0 when n = 1` (or just `core_num = 0` with no free symbol)."""
        return _describe(self.counterexample)


def _describe(cex: Mapping[str, int]) -> str:
    if CORE_NUM not in cex:
        return ""
    head = f"{CORE_NUM} = {cex[CORE_NUM]}"
    rest = [f"{k} = {v}" for k, v in cex.items() if k != CORE_NUM]
    return f"{head} when {', '.join(rest)}" if rest else head


# ------------------------------------------------------------------------------ source text


def expr_text(e: Expr) -> str:
    """Python-like source text of an expression; names opaque symbols and labels assumptions."""
    match e:
        case Name(id=i):
            return i
        case Const(value=v, dtype=None):
            return repr(v)
        case Const(value=v, dtype=d):
            return f"pl.const({v!r}, {d})"
        case Dotted(path=p):
            return p
        case Opaque(text=t):
            return t
        case BinOp(op=op, left=l, right=r):
            return f"{_operand_text(l)} {op} {_operand_text(r)}"
        case UnaryOp(op="not", operand=x):
            return f"not {_operand_text(x)}"
        case UnaryOp(op=op, operand=x):
            return f"{op}{_operand_text(x)}"
        case Compare(op=op, left=l, right=r):
            return f"{_operand_text(l)} {op} {_operand_text(r)}"
        case BoolOp(op=op, values=vs):
            return f" {op} ".join(_operand_text(v) for v in vs)
        case Call(func=f, args=args, kwargs=kws):
            return f"{f}({', '.join([*map(expr_text, args), *map(_kw_text, kws)])})"
        case ListExpr(elts=es):
            return f"[{', '.join(map(expr_text, es))}]"
        case TupleExpr(elts=es):
            return f"({', '.join(map(expr_text, es))}{',' if len(es) == 1 else ''})"
        case DictExpr(keys=ks, values=vs):
            return "{" + ", ".join(f"{expr_text(k)}: {expr_text(v)}" for k, v in zip(ks, vs)) + "}"
        case Subscript(value=v, index=i):
            return f"{_operand_text(v)}[{expr_text(i)}]"
    return repr(e)


def _operand_text(e: Expr) -> str:
    # Parenthesise compound operands: exact precedence does not matter for a label, ambiguity does.
    compound = isinstance(e, (BinOp, UnaryOp, Compare, BoolOp))
    return f"({expr_text(e)})" if compound else expr_text(e)


def _kw_text(k: Keyword) -> str:
    return f"{k.name}={expr_text(k.value)}"


# ------------------------------------------------------------------------------------- encoder


@dataclass
class _Assumption:
    label: str
    formula: z3.BoolRef


class _Encoder:
    """Translates IR expressions into Z3 terms in one private context.

    Side conditions (binding equalities, loop ranges, non-negativity) accumulate in `assumptions`
    with a human-readable label each, so a proof can report which ones it used.
    """

    def __init__(self, goal: PositivityGoal, ctx: z3.Context) -> None:
        self.ctx = ctx
        self.bindings = goal.bindings
        self.nonneg = goal.nonneg
        self.dtypes = goal.dtypes
        self.prefix = goal.prefix
        self.assumptions: list[_Assumption] = []
        self.names: dict[str, z3.ArithRef] = {}
        self.free: dict[str, z3.ArithRef] = {}  # display name -> symbol, for counterexamples
        self._opaque_count: dict[str, int] = {}
        self._dims: dict[str, z3.ArithRef] = {}

    # -- public entry points

    def int_of(self, e: Expr) -> z3.ArithRef:
        return self._as_int(self._encode(e))

    def bool_of(self, e: Expr) -> z3.BoolRef:
        return self._as_bool(self._encode(e))

    def assume(self, label: str, formula: z3.BoolRef) -> None:
        self.assumptions.append(_Assumption(label, formula))

    def declare_loop_index(self, name: str) -> z3.ArithRef:
        """A loop index is a free symbol even if a stale binding of the same name exists."""
        sym = z3.Int(name, self.ctx)
        self.names[name] = sym
        self.free[name] = sym
        return sym

    # -- sorts: Python mixes bools and ints freely, Z3 does not

    def _as_int(self, t: z3.ExprRef) -> z3.ArithRef:
        if z3.is_bool(t):
            return z3.If(t, z3.IntVal(1, self.ctx), z3.IntVal(0, self.ctx))
        return t

    def _as_bool(self, t: z3.ExprRef) -> z3.BoolRef:
        return t if z3.is_bool(t) else t != 0

    # -- dispatch

    def _encode(self, e: Expr) -> z3.ExprRef:
        match e:
            case Name(id=i):
                return self._name(i)
            case Const():
                return self._const(e)
            case BinOp():
                return self._binop(e)
            case UnaryOp():
                return self._unary(e)
            case Compare():
                return self._compare(e)
            case BoolOp():
                return self._boolop(e)
            case Call():
                return self._call(e)
        return self._opaque(e)

    def _name(self, name: str) -> z3.ArithRef:
        """A name's symbol, its definition assumed (and the definitions it reads, first).

        Bindings chain (`a2 = a1`, `a3 = a2 + 1`, ... 10,000 deep): the chain is walked with an
        explicit stack, not by recursion, in the order a recursive walk would take (each name's
        non-negativity on entry, its definition once every name it reads is defined), so the
        depth of a chain never meets Python's recursion limit.  `_read_names` says which names
        encoding a definition reads; when the definition is encoded they are all known."""
        if name in self.names:
            return self.names[name]
        stack: list[tuple[str, Expr, Iterator[str]]] = []
        entering: str | None = name
        while True:
            if entering is not None and (definition := self._enter(entering)) is not None:
                stack.append((entering, definition, iter(_read_names(definition, self.prefix))))
            if not stack:
                return self.names[name]
            current, definition, reads = stack[-1]
            entering = next((n for n in reads if n not in self.names), None)
            if entering is None:
                stack.pop()
                self.assume(
                    f"{current} = {expr_text(definition)}", self.names[current] == self.int_of(definition)
                )

    def _enter(self, name: str) -> Expr | None:
        """Register `name` (before its definition, so a malformed cyclic binding terminates);
        its definition when the encoder can look into it, else None (a free symbol)."""
        sym = z3.Int(name, self.ctx)
        self.names[name] = sym
        if name in self.nonneg:
            self.assume(f"{name} >= 0", sym >= 0)
        definition = self.bindings.get(name)
        if definition is None or _is_opaque_leaf(definition, self.prefix):
            # No usable definition: the name itself is the free symbol users recognise, ranging
            # over its dtype's values (a bound name takes its definition's value instead).
            self.free[name] = sym
            self._assume_domain(name, sym)
            return None
        return definition

    def _assume_domain(self, name: str, sym: z3.ArithRef) -> None:
        dtype = self.dtypes.get(name)
        low, high = value_domain(dtype) if dtype is not None else (None, None)
        if low is not None:
            self.assume(f"{name}: {dtype} >= {low}", sym >= low)
        if high is not None:
            self.assume(f"{name}: {dtype} <= {high}", sym <= high)

    def _const(self, c: Const) -> z3.ExprRef:
        match c.value:
            case bool() as v:
                return z3.BoolVal(v, self.ctx)
            case int() as v:
                return z3.IntVal(v, self.ctx)
        return self._opaque(c)  # floats, strings, None: not integer arithmetic

    def _binop(self, e: BinOp) -> z3.ExprRef:
        if e.op not in ("+", "-", "*", "//", "%", "<<", ">>", "**"):
            return self._opaque(e)  # `/` is true division (float); bit ops are not modelled
        a = self.int_of(e.left)
        if e.op in ("<<", ">>", "**"):
            return self._power_like(e, a)
        b = self.int_of(e.right)
        match e.op:
            case "+":
                return a + b
            case "-":
                return a - b
            case "*":
                return a * b
            case "//":
                return self._floordiv(a, b, fold_constant(e.right, self.prefix))
        return self._mod(a, b, fold_constant(e.right, self.prefix))

    def _power_like(self, e: BinOp, a: z3.ArithRef) -> z3.ExprRef:
        """`x << k`, `x >> k`, `x ** k` for a small literal k; anything else is opaque."""
        k = fold_constant(e.right, self.prefix)
        if k is None or not 0 <= k <= 62:
            return self._opaque(e)
        if e.op == "<<":
            return a * (2**k)
        if e.op == ">>":
            return self._floordiv(a, z3.IntVal(2**k, self.ctx), 2**k)  # arithmetic shift floors
        if k > 8:
            return self._opaque(e)
        result: z3.ArithRef = z3.IntVal(1, self.ctx)
        for _ in range(k):
            result = result * a
        return result

    def _floordiv(self, a: z3.ArithRef, b: z3.ArithRef, b_const: int | None) -> z3.ArithRef:
        """Python's `a // b` (floor).

        Z3's integer `div` is Euclidean: it agrees with floor division for b > 0 but not for
        b < 0 (Z3: -7 div -2 == 4, Python: -7 // -2 == 3).  Since floor(a/b) == floor(-a/-b),
        a negative divisor is handled by negating both operands.  b == 0 stays Z3's
        unspecified value: the program would have failed before launching anyway.
        """
        if b_const is not None and b_const > 0:
            return a / b  # linear, and readable in the SMT-LIB dump
        if b_const is not None and b_const < 0:
            return (-a) / (-b)
        return z3.If(b > 0, a / b, (-a) / (-b))

    def _mod(self, a: z3.ArithRef, b: z3.ArithRef, b_const: int | None) -> z3.ArithRef:
        """Python's `a % b`: the remainder takes the sign of b (a == b * (a // b) + a % b)."""
        if b_const is not None and b_const > 0:
            return a % b  # Z3's Euclidean mod agrees with Python's for a positive divisor
        return a - b * self._floordiv(a, b, b_const)

    def _unary(self, e: UnaryOp) -> z3.ExprRef:
        match e.op:
            case "not":
                return z3.Not(self.bool_of(e.operand))
            case "-":
                return -self.int_of(e.operand)
            case "+":
                return self.int_of(e.operand)
        return -self.int_of(e.operand) - 1  # `~x` on Python ints

    def _compare(self, e: Compare) -> z3.BoolRef:
        a, b = self.int_of(e.left), self.int_of(e.right)
        match e.op:
            case "==":
                return a == b
            case "!=":
                return a != b
            case "<":
                return a < b
            case "<=":
                return a <= b
            case ">":
                return a > b
        return a >= b

    def _boolop(self, e: BoolOp) -> z3.ExprRef:
        terms = [self._encode(v) for v in e.values]
        if all(z3.is_bool(t) for t in terms):
            return (z3.And if e.op == "and" else z3.Or)(*terms)
        # Python value semantics: `a or b` is a if a is truthy else b; `a and b` the mirror.
        result = self._as_int(terms[-1])
        for t in reversed(terms[:-1]):
            ti = self._as_int(t)
            truthy = self._as_bool(t)
            result = z3.If(truthy, ti, result) if e.op == "or" else z3.If(truthy, result, ti)
        return result

    def _call(self, e: Call) -> z3.ExprRef:
        match scalar_call(e, self.prefix):
            case ("min" | "max") as kind, args:
                return self._min_max(kind, [self.int_of(a) for a in args])
            case "abs", (arg,):
                x = self.int_of(arg)
                return z3.If(x >= 0, x, -x)
        if (operand := int_cast_operand(e, self.prefix)) is not None:
            return self.int_of(operand)  # identity on integers; wrap-around is not modelled
        if is_dim_query(e.func, self.prefix):
            return self._dim(e)
        return self._opaque(e)

    def _min_max(self, kind: str, xs: list[z3.ArithRef]) -> z3.ArithRef:
        result = xs[0]
        for x in xs[1:]:
            pick_x = x < result if kind == "min" else x > result
            result = z3.If(pick_x, x, result)
        return result

    def _dim(self, e: Call) -> z3.ArithRef:
        """A shape query: one shared non-negative symbol per distinct source text."""
        text = expr_text(e)
        if text not in self._dims:
            sym = z3.Int(text, self.ctx)
            self._dims[text] = sym
            self.free[text] = sym
            self.assume(f"{text} >= 0", sym >= 0)
        return self._dims[text]

    def _opaque(self, e: Expr) -> z3.ArithRef:
        """A fresh unconstrained Int per occurrence (equal text need not mean equal value:
        a tensor read may observe a later write).  `#` never occurs in an identifier, so the
        Z3 name cannot capture a program variable."""
        text = expr_text(e)
        k = self._opaque_count.get(text, 0) + 1
        self._opaque_count[text] = k
        sym = z3.Int(f"{text}#{k}", self.ctx)
        self.free[text if k == 1 else f"{text}#{k}"] = sym
        return sym


def _read_names(e: Expr, prefix: str) -> Iterator[str]:
    """The names `_Encoder` passes to `_name` while encoding `e`, in its order: it looks into
    exactly the operands it encodes (an opaque part hides its names)."""
    stack = [e]
    while stack:
        node = stack.pop()
        match node:
            case Name(id=i):
                yield i
            case BinOp(op=op, left=left, right=right) if op in ("+", "-", "*", "//", "%"):
                stack += [right, left]
            case BinOp(op=op, left=left) if op in ("<<", ">>", "**"):
                stack.append(left)  # the literal exponent or shift is folded, not encoded
            case UnaryOp(operand=x):
                stack.append(x)
            case Compare(left=left, right=right):
                stack += [right, left]
            case BoolOp(values=vs):
                stack += reversed(vs)
            case Call() if (builtin := scalar_call(node, prefix)) is not None:
                stack += reversed(builtin[1])
            case Call() if (operand := int_cast_operand(node, prefix)) is not None:
                stack.append(operand)


def _is_opaque_leaf(e: Expr, prefix: str) -> bool:
    """A definition the encoder cannot look into at all (so equating it adds nothing)."""
    match e:
        case Const(value=int()):
            return False
        case Const():
            return True
        case Call(func=f):
            return scalar_builtin(f, prefix) is None and not is_dim_query(f, prefix)
        case BinOp(op=op):
            return op not in ("+", "-", "*", "//", "%", "<<", ">>", "**")
    return isinstance(e, (Opaque, Dotted, Subscript, ListExpr, TupleExpr, DictExpr))


# ------------------------------------------------------------------------------------- queries


@dataclass
class _Query:
    encoder: _Encoder
    core: z3.ArithRef
    negated_goal: z3.BoolRef


def _build(goal: PositivityGoal, ctx: z3.Context) -> _Query:
    enc = _Encoder(goal, ctx)
    # Loop indices first, so a binding mentioning the index meets the loop's symbol.
    for loop in goal.loops:
        _encode_loop(enc, loop)
    for cond, polarity in goal.facts:
        b = enc.bool_of(cond)
        text = expr_text(cond)
        enc.assume(text if polarity else f"not ({text})", b if polarity else z3.Not(b))
    core = enc.int_of(goal.core_num)
    return _Query(enc, core, core < 1)


def _encode_loop(enc: _Encoder, loop: LoopRange) -> None:
    """The body runs only for start <= i < stop (positive step) or stop < i <= start (negative),
    on the step's lattice when the step is a literal."""
    i = enc.declare_loop_index(loop.index)
    start, stop, step = enc.int_of(loop.start), enc.int_of(loop.stop), enc.int_of(loop.step)
    label = loop.label
    k = fold_constant(loop.step, enc.prefix)
    if k is None:
        up = z3.And(step > 0, start <= i, i < stop)
        down = z3.And(step < 0, stop < i, i <= start)
        enc.assume(label, z3.Or(up, down))
    elif k > 0:
        enc.assume(label, z3.And(start <= i, i < stop, (i - start) % k == 0))
    elif k < 0:
        enc.assume(label, z3.And(stop < i, i <= start, (start - i) % (-k) == 0))
    # k == 0 raises at run time: the body never runs with any particular i, so assume nothing.


def _solver(ctx: z3.Context, rlimit: int, seed: int) -> z3.Solver:
    s = z3.Solver(ctx=ctx)
    s.set("random_seed", seed)
    s.set("rlimit", rlimit)
    return s


def prove(goal: PositivityGoal, *, rlimit: int = DEFAULT_RLIMIT, seed: int = DEFAULT_SEED) -> Verdict:
    """Decide `core_num >= 1` under the goal's bindings, facts, loops and non-negative names.
    Equal goals (spans aside) get one answer per process: a program repeats its launches, and the
    verifier asks again about every launch the rewrite left as it was."""
    key = (_goal_key(goal), rlimit, seed)
    if (verdict := _VERDICTS.get(key)) is None:
        if len(_VERDICTS) >= _REMEMBERED:
            _VERDICTS.clear()
        verdict = _VERDICTS[key] = _decide(goal, rlimit, seed)
    return verdict


_VERDICTS: dict[tuple[object, ...], Verdict] = {}
# Enough for every launch of a 10,000-launch program and the verifier's second look at each: a
# key holds only what its goal reads, so 65,536 of them are a few tens of MB at most.
_REMEMBERED = 65_536


def _goal_key(goal: PositivityGoal) -> tuple[object, ...]:
    """The goal as a dictionary key, with only the dtypes and non-negative names of the names it
    reads: a function's full dtype table is shared by all its launches, and keying on it made a
    function with N launches cost N^2 in time and in the keys kept (the encoder never looks up a
    name the goal does not read, so the verdict cannot depend on the others)."""
    read = _goal_names(goal)
    return (
        goal.core_num,
        tuple(sorted(goal.bindings.items())),
        tuple(goal.facts),
        tuple(goal.loops),
        frozenset(goal.nonneg & read),
        tuple(sorted((n, goal.dtypes[n]) for n in read & goal.dtypes.keys())),
        goal.prefix,
    )


def _goal_names(goal: PositivityGoal) -> frozenset[str]:
    """Every name the goal's expressions read or bind (core_num, bindings, facts, loops)."""
    exprs = [goal.core_num, *goal.bindings.values(), *(cond for cond, _ in goal.facts)]
    exprs += [bound for loop in goal.loops for bound in (loop.start, loop.stop, loop.step)]
    names = set(goal.bindings).union(*(expr_names(e) for e in exprs))
    return frozenset(names.union(loop.index for loop in goal.loops))


def _decide(goal: PositivityGoal, rlimit: int, seed: int) -> Verdict:
    literal = fold_constant(goal.core_num, goal.prefix)
    if literal is not None:
        return literal_verdict(literal)
    if (bound := _lower_bound(goal, goal.core_num, set())) is not None and bound[0] >= 1:
        return proven_by(bound[1])
    return solve(goal, rlimit=rlimit, seed=seed)


def proven_by(labels: Sequence[str]) -> Verdict:
    """A proof without the solver, from the assumptions it used (their labels, as Z3's are)."""
    used = tuple(dict.fromkeys(labels))
    return Verdict(
        "proven", {}, f"core_num >= 1 follows from {'; '.join(used) or 'the expression alone'}", used=used
    )


def solve(goal: PositivityGoal, *, rlimit: int = DEFAULT_RLIMIT, seed: int = DEFAULT_SEED) -> Verdict:
    """`prove` by Z3 alone, whatever the goal (what the solver-free bound is checked against)."""
    ctx = _context()
    q = _build(goal, ctx)
    s = _solver(ctx, rlimit, seed)
    trackers: dict[str, str] = {}
    for n, a in enumerate(q.encoder.assumptions):
        tracker = f"@{n}"  # not an identifier: cannot collide with a program name
        trackers[tracker] = a.label
        s.assert_and_track(a.formula, z3.Bool(tracker, ctx))
    s.add(q.negated_goal)
    result = s.check()
    if result == z3.unsat:
        return _proven(s, trackers)
    if result == z3.sat:
        return _refuted(s.model(), q)
    return Verdict("unknown", {}, f"solver gave up: {s.reason_unknown()}")


_CONTEXTS = threading.local()


def _load_z3() -> None:
    """Import Z3 where a goal first needs it: it is a tenth of a second of a one-file check,
    and a program with no launch, or only launches decided without a solver, never needs it."""
    global z3
    import z3


def _context() -> z3.Context:
    """One Z3 context per thread, for the whole process: creating one costs about 10 ms, more
    than most goals take to solve.  Each goal still gets its own solver (seeded, limited), and
    nothing is asserted in the context itself, so a verdict does not depend on the goals before."""
    if (ctx := getattr(_CONTEXTS, "ctx", None)) is None:
        _load_z3()
        ctx = _CONTEXTS.ctx = z3.Context()
    return ctx


# How many bindings deep the solver-free bound follows a name: a longer chain (10,000 aliases) is
# Z3's, whose encoder walks it without recursion.
_SOLVER_FREE_CHAIN = 200


def _lower_bound(goal: PositivityGoal, e: Expr, seen: set[str]) -> tuple[int, tuple[str, ...]] | None:
    """A lower bound of `e` from what needs no solver: literals, a loop index with literal
    bounds, names known non-negative, the bindings they are defined by, and `+`, `*` of
    non-negatives, `//` by a positive literal, min and max over them; with the labels of the
    assumptions it used (as the Z3 encoding names them).  None: no bound this simply."""
    if (value := fold_constant(e, goal.prefix)) is not None:
        return value, ()
    match e:
        case Name(id=name) if name not in seen and len(seen) < _SOLVER_FREE_CHAIN:
            return _name_bound(goal, name, seen | {name})
        case BinOp(op="+" | "*" as op, left=left, right=right):
            a, b = _lower_bound(goal, left, seen), _lower_bound(goal, right, seen)
            if a is None or b is None or (op == "*" and (a[0] < 0 or b[0] < 0)):
                return None
            return (a[0] + b[0] if op == "+" else a[0] * b[0]), a[1] + b[1]
        case BinOp(op="//", left=left, right=right) if (
            k := fold_constant(right, goal.prefix)
        ) is not None and k > 0:
            a = _lower_bound(goal, left, seen)
            return None if a is None else (a[0] // k, a[1])
        case Call() if (builtin := scalar_call(e, goal.prefix)) is not None and builtin[0] != "abs":
            kind, args = builtin
            found = [b for x in args if (b := _lower_bound(goal, x, seen)) is not None]
            if kind == "max":
                return _max_bound(found)  # max(a, b) >= a: one bounded argument is enough
            if len(found) < len(args):
                return None
            return min(b[0] for b in found), tuple(label for b in found for label in b[1])
    return None


def _max_bound(bounds: list[tuple[int, tuple[str, ...]]]) -> tuple[int, tuple[str, ...]] | None:
    return max(bounds, key=lambda b: b[0]) if bounds else None


def _name_bound(goal: PositivityGoal, name: str, seen: set[str]) -> tuple[int, tuple[str, ...]] | None:
    for loop in goal.loops:  # a loop index shadows a stale binding of its name (declare_loop_index)
        if loop.index == name:
            start, stop, step = (
                fold_constant(loop.start, goal.prefix),
                fold_constant(loop.stop, goal.prefix),
                fold_constant(loop.step, goal.prefix),
            )
            if step is not None and step > 0 and start is not None:
                return start, (loop.label,)
            if step is not None and step < 0 and stop is not None:
                return stop + 1, (loop.label,)
            return None
    bounds: list[tuple[int, tuple[str, ...]]] = []
    if name in goal.nonneg:
        bounds.append((0, (f"{name} >= 0",)))
    for cond, polarity in goal.facts:  # an enclosing `if name > c:` (a guard legalog wrote, say)
        if (bound := _branch_bound(cond, polarity, name, goal.prefix)) is not None:
            text = expr_text(cond)
            bounds.append((bound, (text if polarity else f"not ({text})",)))
    definition = goal.bindings.get(name)
    if definition is not None and (inner := _lower_bound(goal, definition, seen)) is not None:
        bounds.append((inner[0], (f"{name} = {expr_text(definition)}", *inner[1])))
    return _max_bound(bounds)


_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def _branch_bound(cond: Expr, polarity: bool, name: str, prefix: str) -> int | None:
    """The lower bound a branch condition puts on `name` (`name > c`, `c <= name`, `not (name <= c)`...)."""
    if not isinstance(cond, Compare):
        return None
    op = cond.op if polarity else _NEGATED[cond.op]
    if (
        isinstance(cond.left, Name)
        and cond.left.id == name
        and (c := fold_constant(cond.right, prefix)) is not None
    ):
        return {">": c + 1, ">=": c, "==": c}.get(op)
    if (
        isinstance(cond.right, Name)
        and cond.right.id == name
        and (c := fold_constant(cond.left, prefix)) is not None
    ):
        return {"<": c + 1, "<=": c, "==": c}.get(op)
    return None


def literal_verdict(value: int) -> Verdict:
    """A literal count is decided as written: >= 1 is proven, anything else is the literal
    non-positive launch the DSL parser rejects."""
    if value >= 1:
        return Verdict("proven", {}, f"literal core_num {value} >= 1")
    return Verdict(
        "refuted", {CORE_NUM: value}, f"literal core_num {value} is not positive", literal_nonpositive=True
    )


def _proven(s: z3.Solver, trackers: Mapping[str, str]) -> Verdict:
    # Keep the assertion order (deterministic and readable) rather than Z3's core order.
    core_names = {str(b) for b in s.unsat_core()}
    used = tuple(label for tracker, label in trackers.items() if tracker in core_names)
    why = "; ".join(used) if used else "the expression alone"
    return Verdict("proven", {}, f"core_num >= 1 follows from {why}", used=used)


def _refuted(model: z3.ModelRef, q: _Query) -> Verdict:
    values = {name: _model_int(model, sym) for name, sym in q.encoder.free.items() if name != CORE_NUM}
    values[CORE_NUM] = _model_int(model, q.core)
    cex = dict(sorted(values.items()))
    return Verdict("refuted", cex, f"core_num can be < 1: {_describe(cex)}")


def _model_int(model: z3.ModelRef, t: z3.ArithRef) -> int:
    return model.eval(t, model_completion=True).as_long()


def smt2(goal: PositivityGoal) -> str:
    """The SMT-LIB2 text of the query (sat means refuted), with each assumption's label as a
    comment header, for debugging dumps."""
    _load_z3()
    ctx = z3.Context()
    q = _build(goal, ctx)
    s = z3.Solver(ctx=ctx)
    for a in q.encoder.assumptions:
        s.add(a.formula)
    s.add(q.negated_goal)
    header = [f"; goal: {expr_text(goal.core_num)} >= 1 (query: its negation)"]
    header += [f"; assume: {a.label}" for a in q.encoder.assumptions]
    return "\n".join(header) + "\n" + s.to_smt2()
