"""Hypothesis strategies for random valid IR models (programs with `layout=None`).

"Valid" means: the printer writes Python that the parser reads back into an equal model.  The
strategies therefore avoid the few models that have no printed form of their own (see
`round_trips`): text is the contract, and these models print the same text as another model.
"""

from __future__ import annotations

import keyword
import string

from hypothesis import strategies as st

from legalog.ir.model import (
    ArrayType,
    Assign,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Const,
    DictExpr,
    Dotted,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Jump,
    Keyword,
    ListExpr,
    Name,
    Opaque,
    OtherType,
    Param,
    Program,
    Return,
    ScalarType,
    Stmt,
    Subscript,
    TensorType,
    TupleExpr,
    TupleType,
    Type,
    UnaryOp,
    While,
    With,
)

# every scalar dtype whose value domain the prover models (positivity.value_domain), and a few others
INT_DTYPES = ("BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "INDEX")
DTYPES = (*INT_DTYPES, "FP16", "FP32", "BF16", "TASK_ID")
BINOPS = ("+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>")
CMPOPS = ("==", "!=", "<", "<=", ">", ">=")
DOTTED = ("pl.FP32", "pl.Mem.Vec", "pl.adir.input", "pl.ScopeMode.MANUAL", "self.kernel", "pld.comm.x")
CALLEES = (
    "pl.tensor.slice",
    "pl.yield_",
    "pl.range",
    "self.k",
    "pl.system.task_dummy",
    "min",
    "pld.x.y",
    "pl.spmd_submit",
    "pl.spmd",
    "pl.at",
    "pl.cast",
    "pl.tile.dim",
)
# Opaque nodes as the parser makes them: `ast.unparse` text, and the sorted names it mentions.
OPAQUES = (
    Opaque("a < b < c", ("a", "b", "c")),
    Opaque("x if y else z", ("x", "y", "z")),
    Opaque("t[1:2]", ("t",)),
    Opaque("lambda: 0"),
    Opaque("(lambda: f)()", ("f",)),
)
OTHER_TYPES = (
    OtherType(Dotted("pl.Ptr")),
    OtherType(Dotted("pld.CommCtxType")),
    OtherType(Dotted("pl.MemRefType")),
)

RESERVED = {"self", "pl", "pld"}

names = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s) and s not in RESERVED
)
dtypes = st.sampled_from(DTYPES)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
comment_text = st.text(alphabet=string.ascii_letters + string.digits + " #:_-()[]=.,", max_size=20)
comments = st.lists(comment_text.map(lambda s: ("#" + s).strip()), max_size=2).map(tuple)


def _untyped_const() -> st.SearchStrategy[Const]:
    return st.one_of(
        st.integers(-(10**20), 10**20).map(Const),
        finite_floats.map(Const),
        st.booleans().map(Const),
        st.none().map(Const),
        st.text(max_size=8).map(Const),
    )


def _typed_const() -> st.SearchStrategy[Const]:
    return st.builds(Const, st.one_of(st.integers(-(10**6), 10**6), finite_floats), dtypes)


leaves: st.SearchStrategy[Expr] = st.one_of(
    names.map(Name),
    _untyped_const(),
    _typed_const(),
    st.sampled_from(DOTTED).map(Dotted),
    st.sampled_from(OPAQUES),
)


def _folds(op: str, operand: Expr) -> bool:
    """`-5` reads back as the literal -5, not as minus applied to 5: that UnaryOp has no text."""
    if op != "-" or not isinstance(operand, Const) or operand.dtype is not None:
        return False
    value = operand.value
    return type(value) in (int, float) and not repr(value).startswith("-")


def _unique_keywords(values: st.SearchStrategy[Expr]) -> st.SearchStrategy[tuple[Keyword, ...]]:
    pairs = st.lists(st.tuples(names, values), max_size=3, unique_by=lambda kv: kv[0])
    return pairs.map(lambda kvs: tuple(Keyword(k, v) for k, v in kvs))


def _extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    small = st.lists(children, max_size=3).map(tuple)
    # (maps rather than filters: a filter over a recursive strategy makes Hypothesis print its repr)
    unary = st.tuples(st.sampled_from(("-", "+", "~", "not")), children).map(
        lambda t: ("~", t[1]) if _folds(*t) else t
    )
    return st.one_of(
        st.builds(BinOp, st.sampled_from(BINOPS), children, children),
        unary.map(lambda t: UnaryOp(t[0], t[1])),
        st.builds(Compare, st.sampled_from(CMPOPS), children, children),
        st.builds(
            BoolOp, st.sampled_from(("and", "or")), st.lists(children, min_size=2, max_size=3).map(tuple)
        ),
        st.builds(Call, st.sampled_from(CALLEES), small, _unique_keywords(children)),
        small.map(ListExpr),
        small.map(TupleExpr),
        st.lists(st.tuples(children, children), max_size=2).map(
            lambda kv: DictExpr(tuple(k for k, _ in kv), tuple(v for _, v in kv))
        ),
        st.builds(Subscript, children, children),
    )


exprs: st.SearchStrategy[Expr] = st.recursive(leaves, _extend, max_leaves=8)
small_exprs: st.SearchStrategy[Expr] = st.recursive(leaves, _extend, max_leaves=3)

# ----------------------------------------------------------------------------------------- types


def _extend_types(children: st.SearchStrategy[Type]) -> st.SearchStrategy[Type]:
    return st.lists(children, max_size=3).map(lambda ts: TupleType(tuple(ts)))


base_types: st.SearchStrategy[Type] = st.one_of(
    st.builds(ScalarType, dtypes),
    st.builds(
        TensorType,
        st.sampled_from(("Tensor", "Tile")),
        st.lists(small_exprs, max_size=3).map(tuple),
        dtypes,
        st.lists(small_exprs, max_size=2).map(tuple),
    ),
    st.builds(ArrayType, small_exprs, dtypes),
    st.sampled_from(OTHER_TYPES),
)
types: st.SearchStrategy[Type] = st.recursive(base_types, _extend_types, max_leaves=4)

# ------------------------------------------------------------------------------------ statements


def _return(values: tuple[Expr, ...]) -> bool:
    """`return (a, b)` reads back as `return a, b`: one tuple value has no text of its own."""
    return not (len(values) == 1 and isinstance(values[0], TupleExpr))


def _simple_statements(in_loop: bool) -> st.SearchStrategy[Stmt]:
    jumps = ("pass", "break", "continue") if in_loop else ("pass",)
    return st.one_of(
        st.builds(lambda t, ty, v, c: Assign((t,), ty, v, comments=c), names, types, exprs, comments),
        st.builds(lambda t, v, c: Assign((t,), None, v, comments=c), names, exprs, comments),
        st.builds(
            lambda ts, v, c: Assign(tuple(ts), None, v, comments=c),
            st.lists(names, min_size=2, max_size=3),
            exprs,
            comments,
        ),
        st.builds(lambda v, c: ExprStmt(v, comments=c), exprs, comments),
        st.builds(
            lambda vs, c: Return(tuple(vs), comments=c),
            st.lists(exprs, max_size=2).map(lambda vs: tuple(vs) if _return(tuple(vs)) else ()),
            comments,
        ),
        st.builds(lambda k, c: Jump(k, comments=c), st.sampled_from(jumps), comments),
    )


def _for(body: st.SearchStrategy[tuple[Stmt, ...]]) -> st.SearchStrategy[Stmt]:
    def build(
        index: str | None,
        carried: bool,
        iter_args: list[str],
        it: Expr,
        b: tuple[Stmt, ...],
        c: tuple[str, ...],
    ) -> For:
        if index is None:  # `for (a, b) in ...`: always carried, never empty
            return For(None, tuple(iter_args) or ("x",), True, it, b, comments=c)
        return For(index, tuple(iter_args) if carried else (), carried, it, b, comments=c)

    return st.builds(
        build, st.none() | names, st.booleans(), st.lists(names, max_size=3), exprs, body, comments
    )


def statements(depth: int = 2, in_loop: bool = False) -> st.SearchStrategy[Stmt]:
    """Any statement, compound ones nested up to `depth` blocks deep."""
    simple = _simple_statements(in_loop)
    if depth == 0:
        return simple
    block = blocks(depth - 1, in_loop)
    loop_block = blocks(depth - 1, True)
    return st.one_of(
        simple,
        _for(loop_block),
        st.builds(lambda c, b, cm: While(c, b, comments=cm), exprs, loop_block, comments),
        st.builds(lambda c, b, o, cm: If(c, b, o, comments=cm), exprs, block, st.just(()) | block, comments),
        st.builds(lambda x, n, b, cm: With(x, n, b, comments=cm), exprs, st.none() | names, block, comments),
    )


def blocks(depth: int = 2, in_loop: bool = False) -> st.SearchStrategy[tuple[Stmt, ...]]:
    """A non-empty block (an empty one prints `pass`, which reads back as one `pass`).  Deferred,
    so that Hypothesis does not spell out the whole nested strategy in its repr."""
    return st.deferred(lambda: st.lists(statements(depth, in_loop), min_size=1, max_size=3).map(tuple))


# ------------------------------------------------------------------------------------- functions

params = st.builds(Param, names, types, st.sampled_from(("In", "Out", "InOut")))


@st.composite
def functions(draw: st.DrawFn, name: str | None = None) -> Function:
    ps = draw(st.lists(params, max_size=3, unique_by=lambda p: p.name))
    returns_tuple = draw(st.booleans())
    returns = draw(
        st.none() | (st.lists(types, max_size=2).map(tuple) if returns_tuple else types.map(lambda t: (t,)))
    )
    return Function(
        name=name if name is not None else draw(names),
        decorator=draw(st.none() | _unique_keywords(small_exprs)),
        has_self=draw(st.booleans()),
        params=tuple(ps),
        returns=returns,
        returns_tuple=returns_tuple and returns is not None,
        body=draw(blocks(2)),
    )


@st.composite
def programs(draw: st.DrawFn) -> Program:
    fnames = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    return Program(
        name=draw(names),
        prefix="pl",
        dynamic_dims=tuple(draw(st.lists(names, max_size=3, unique=True))),
        functions=tuple(draw(functions(n)) for n in fnames),
    )


# ------------------------------------------------------------------ printed programs, by shape
#
# Whole dumps in the printed style, for the pipeline's property tests: each strategy draws the
# constructs PyPTO's passes tell apart (every launch form, each scalar dtype, kernel scopes,
# frontend rebinding), so the next difference from PyPTO is found by the suite, not by a reader.

LAUNCH_FORMS = ("call", "spmd_submit", "scope")
KERNEL_KINDS = ("AIV", "InCore", "Spmd", "Opaque")
_T = "pl.Tensor[[64], pl.FP32]"
_TILE = "pl.Tile[[64], pl.FP32, pl.Mem.Vec]"


def launch_statements(form: str, count: str, src: str, dst: str, out: str) -> list[str]:
    """One SPMD launch of `self.k` writing `dst` in place, its result named `out`."""
    if form == "call":
        return [f'{out}: {_T} = self.k({src}, {dst}, attrs={{"core_num": {count}, "sync_start": True}})']
    if form == "spmd_submit":
        return [
            f"{out}_r: pl.Tuple[{_T}, pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.k, {src}, {dst}, core_num={count})",
            f"{out}: {_T} = {out}_r[0]",
        ]
    return [  # `with pl.spmd(n):` writes the caller's tensor under its own name (frontend style)
        f'with pl.spmd({count}, name_hint="blk"):',
        f"    {out}_t: {_TILE} = pl.tile.load({src}, [0], [64], [64], target_memory=pl.Mem.Vec)",
        f"    {dst}: {_T} = pl.tile.store({out}_t, [0], {dst})",
    ]


@st.composite
def spmd_programs(draw: st.DrawFn) -> tuple[dict[str, str], str, str]:
    """({launch form: dump text}, the count's free scalar's dtype, the count expression): the
    same Orchestration `main(x, y, m)` launching `k` once in each form, its count an affine
    function of `m`, optionally under a branch on `m`.  A call-form launch reaches a kernel of
    any FunctionType."""
    kind = draw(st.sampled_from(KERNEL_KINDS))
    dtype = draw(st.sampled_from(INT_DTYPES))
    scale, offset = draw(st.integers(-2, 2)), draw(st.integers(-300, 300))
    count = f"m * {scale} + {offset}" if scale else str(max(offset, 1))
    guard = draw(st.sampled_from([None, ">", ">=", "<"]))
    bound = draw(st.integers(-3, 3))
    texts = {}
    for form in LAUNCH_FORMS:
        out = "y" if form == "scope" else "y1"
        launch = launch_statements(form, "c", "x", "y", out)
        lines = [f"c: pl.Scalar[pl.INDEX] = {count}"]
        if guard is None:
            lines += [*launch, f"return {out}"]
        else:
            lines += [
                f"if m {guard} {bound}:",
                *(f"    {x}" for x in launch),
                f"    return {out}",
                "return y",
            ]
        texts[form] = (
            "import pypto.language as pl\n\n@pl.program\nclass Drawn:\n"
            f"    @pl.function(type=pl.FunctionType.{kind if form == 'call' else 'AIV'}, level=pl.Level.AIV, "
            "role=pl.Role.SubWorker)\n"
            f"    def k(x: {_T}, y: pl.Out[{_T}]) -> {_T}:\n        return y\n"
            "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
            f"    def main(self, x: {_T}, y: pl.InOut[{_T}], m: pl.Scalar[pl.{dtype}]) -> {_T}:\n"
            + "".join(f"        {line}\n" for line in lines)
        )
    return texts, dtype, count


@st.composite
def frontend_graph_programs(draw: st.DrawFn) -> str:
    """A frontend (un-SSA'd) dump: a Graph whose scalars are derived from its parameter and
    rebound (`off = idx * 2; off = off + 64`), with `with pl.at(...)` kernel scopes that compute
    their own offsets (kernel code) and load at the Graph's scalars; `main` calls it in a loop."""
    body: list[str] = []
    scalars = ["idx"]  # what a later statement may read
    for k in range(draw(st.integers(1, 6))):
        action = draw(st.sampled_from(["derive", "rebind", "scope"]))
        src = draw(st.sampled_from(scalars))
        if action == "scope":
            inner = [
                f"o{k}: pl.Scalar[pl.INDEX] = {src} * 2 + {draw(st.integers(0, 64))}",
                *_load_store(f"o{k}", k),
            ]
            body += _kernel_scope(inner)
            continue
        name = draw(st.sampled_from(("off", "lim"))) if action == "rebind" else f"s{k}"
        body.append(
            f"{name}: pl.Scalar[pl.INDEX] = {src} * {draw(st.integers(1, 4))} + {draw(st.integers(0, 64))}"
        )
        scalars += [] if name in scalars else [name]
    body += _kernel_scope(_load_store(scalars[-1], 99)) + ["return y"]
    t, s = "pl.Tensor[[1024, 128], pl.FP32]", "pl.Tensor[[128, 128], pl.FP32]"
    return (
        "# pypto.program: Drawn\nimport pypto.language as pl\n\n@pl.program\nclass Drawn:\n"
        "    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        f"    def g(self, x: {t}, y: pl.InOut[{s}], idx: pl.Scalar[pl.INDEX]) -> {s}:\n"
        + "".join(f"        {line}\n" for line in body)
        + "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        f"    def main(self, x: {t}, y: pl.InOut[{s}]) -> {s}:\n"
        f"        for i in pl.range(4):\n            y: {s} = self.g(x, y, i)\n        return y\n"
    )


def _kernel_scope(body: list[str]) -> list[str]:
    return ["with pl.at(level=pl.Level.CORE_GROUP):", *(f"    {line}" for line in body)]


def _load_store(offset: str, k: int) -> list[str]:
    """A tile load at `offset`, stored back into `y`."""
    return [
        f"t{k}: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [{offset}, 0], [64, 128], [64, 128], "
        "target_memory=pl.Mem.Vec)",
        f"y: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t{k}, [0, 0], y)",
    ]
