"""The printer: exact text for every construct, and every printed text is valid Python."""

from __future__ import annotations

import ast
import dataclasses

import pytest

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
    SourceLayout,
    Stmt,
    Subscript,
    TensorType,
    TupleExpr,
    TupleType,
    UnaryOp,
    While,
    With,
)
from legalog.ir.printer import PrintError, print_expr, print_function, print_program, print_type

a, b, c, x, y = Name("a"), Name("b"), Name("c"), Name("x"), Name("y")
INDEX = Dotted("pl.INDEX")


def cast(e: Expr) -> Call:
    return Call("pl.cast", (e, INDEX))


def parses(text: str) -> str:
    ast.parse(text)
    return text


# ----------------------------------------------------------------------------------- expressions

EXPRS: list[tuple[Expr | Keyword, str]] = [
    # precedence
    (BinOp("*", BinOp("+", a, b), c), "(a + b) * c"),
    (BinOp("+", a, BinOp("*", b, c)), "a + b * c"),
    (BinOp("-", a, BinOp("-", b, c)), "a - (b - c)"),
    (BinOp("-", BinOp("-", a, b), c), "a - b - c"),
    (BinOp("//", a, BinOp("*", b, c)), "a // (b * c)"),
    (
        BinOp("*", BinOp("//", BinOp("+", Name("n__ssa_v0"), Const(15)), Const(16)), Const(4)),
        "(n__ssa_v0 + 15) // 16 * 4",
    ),
    (UnaryOp("-", BinOp("+", a, b)), "-(a + b)"),
    (UnaryOp("-", BinOp("**", x, Const(2))), "-x ** 2"),
    (BinOp("**", UnaryOp("-", x), Const(2)), "(-x) ** 2"),
    (BinOp("**", Const(-2), Const(2)), "(-2) ** 2"),
    (BinOp("**", Const(2), Const(-1)), "2 ** -1"),
    (BinOp("**", a, BinOp("**", b, c)), "a ** b ** c"),
    (BinOp("**", BinOp("**", a, b), c), "(a ** b) ** c"),
    (BinOp("+", a, Const(-5)), "a + -5"),
    (BinOp("&", BinOp("<<", a, Const(1)), BinOp("|", b, c)), "a << 1 & (b | c)"),
    (BinOp("^", a, BinOp("&", b, c)), "a ^ b & c"),
    (UnaryOp("not", BoolOp("and", (a, b))), "not (a and b)"),
    (UnaryOp("not", Compare("<", a, b)), "not a < b"),
    (UnaryOp("not", UnaryOp("not", a)), "not not a"),
    (UnaryOp("~", a), "~a"),
    (UnaryOp("+", a), "+a"),
    (UnaryOp("-", UnaryOp("-", a)), "--a"),
    (BoolOp("or", (BoolOp("and", (a, b)), c)), "a and b or c"),
    (BoolOp("and", (BoolOp("or", (a, b)), c)), "(a or b) and c"),
    (BoolOp("and", (BoolOp("and", (a, b)), c)), "(a and b) and c"),
    (BoolOp("and", (a, b, c)), "a and b and c"),
    (BoolOp("and", (Compare("<", Const(0), cast(x)), y)), "0 < pl.cast(x, pl.INDEX) and y"),
    (
        BoolOp("and", (Compare("<=", Const(0), cast(x)), Compare("<=", Const(0), cast(y)))),
        "0 <= pl.cast(x, pl.INDEX) and 0 <= pl.cast(y, pl.INDEX)",
    ),
    (Compare("<", Compare("<", a, b), c), "(a < b) < c"),
    (Compare("==", a, Compare("!=", b, c)), "a == (b != c)"),
    (Compare(">=", UnaryOp("not", a), b), "(not a) >= b"),
    (Compare(">", BinOp("+", a, Const(1)), BinOp("|", b, c)), "a + 1 > b | c"),
    (BinOp("+", BoolOp("or", (a, b)), Const(1)), "(a or b) + 1"),
    # constants
    (Const(0, "INT64"), "pl.const(0, pl.INT64)"),
    (Const(-3, "INT32"), "pl.const(-3, pl.INT32)"),
    (Const(1.0, "FP16"), "pl.const(1.0, pl.FP16)"),
    (
        BinOp("*", Const(128, "INDEX"), Const(192, "INDEX")),
        "pl.const(128, pl.INDEX) * pl.const(192, pl.INDEX)",
    ),
    (Const(-5), "-5"),
    (Const(0.011048543456039806), "0.011048543456039806"),
    (Const(1e-06), "1e-06"),
    (Const(2.0), "2.0"),
    (Const(-0.5), "-0.5"),
    (Const(True), "True"),
    (Const(False), "False"),
    (Const(None), "None"),
    (Const("round"), '"round"'),
    (Const('a "q"\n\\'), '"a \\"q\\"\\n\\\\"'),
    (Const("it's \U0001f600 \ud800"), '"it\'s \U0001f600 \\ud800"'),
    # containers and calls
    (
        Call("pl.tensor.slice", (x, ListExpr((Const(64), Const(64))), ListExpr((a, Const(0))))),
        "pl.tensor.slice(x, [64, 64], [a, 0])",
    ),
    (Call("pl.system.task_dummy", (), (Keyword("deps", ListExpr(())),)), "pl.system.task_dummy(deps=[])"),
    (
        Call(
            "self.k",
            (a,),
            (
                Keyword(
                    "attrs", DictExpr((Const("arg_directions"),), (ListExpr((Dotted("pl.adir.input"),)),))
                ),
            ),
        ),
        'self.k(a, attrs={"arg_directions": [pl.adir.input]})',
    ),
    (
        Call("pl.range", (Const(4),), (Keyword("init_values", TupleExpr((a,))),)),
        "pl.range(4, init_values=(a,))",
    ),
    (Call("f", (BoolOp("or", (a, b)), UnaryOp("not", c))), "f(a or b, not c)"),
    (
        Call("pl.submit", (Dotted("self.k"), a), (Keyword("predicate", Compare(">", a, Const(0))),)),
        "pl.submit(self.k, a, predicate=(a > 0))",
    ),
    (TupleExpr(()), "()"),
    (TupleExpr((a,)), "(a,)"),
    (TupleExpr((a, b)), "(a, b)"),
    (ListExpr(()), "[]"),
    (DictExpr((), ()), "{}"),
    (DictExpr((Const("k"), Const("j")), (Const(True), a)), '{"k": True, "j": a}'),
    (Subscript(Name("ret__tmp_v0"), Const(1)), "ret__tmp_v0[1]"),
    (Subscript(BinOp("+", a, b), Const(0)), "(a + b)[0]"),
    (
        Subscript(Call("pl.MemRef", (Const("m"),), (Keyword("slots", Const(2)),)), Const(0)),
        'pl.MemRef("m", slots=2)[0]',
    ),
    (Keyword("core_num", BinOp("*", a, Const(8))), "core_num=a * 8"),
    (Dotted("pl.Mem.Vec"), "pl.Mem.Vec"),
    (Opaque("a < b < c", ("a", "b", "c")), "a < b < c"),
    (BoolOp("and", (Opaque("a < b < c"), x)), "a < b < c and x"),
    (BinOp("+", Opaque("a if b else c"), Const(1)), "(a if b else c) + 1"),
    (BinOp("*", Opaque("a + b"), Opaque("c[0]")), "(a + b) * c[0]"),
    (BinOp("-", a, Opaque("not valid python ((")), "a - not valid python (("),
]


@pytest.mark.parametrize(("expr", "text"), EXPRS, ids=[t for _, t in EXPRS])
def test_expr(expr: Expr, text: str) -> None:
    assert print_expr(expr) == text


_AST_BINOPS = {
    "+": ast.Add,
    "-": ast.Sub,
    "*": ast.Mult,
    "/": ast.Div,
    "//": ast.FloorDiv,
    "%": ast.Mod,
    "**": ast.Pow,
    "&": ast.BitAnd,
    "|": ast.BitOr,
    "^": ast.BitXor,
    "<<": ast.LShift,
    ">>": ast.RShift,
}
_AST_CMPOPS = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE}
_AST_UNARY = {"-": ast.USub, "+": ast.UAdd, "~": ast.Invert, "not": ast.Not}


def to_ast(e: Expr | Keyword) -> ast.AST:
    """The Python tree a model node means (independent of the printer): the oracle for parentheses."""
    match e:
        case Name(id=name):
            return ast.Name(name, ast.Load())
        case Const(value=value, dtype=None):
            if isinstance(value, (int, float)) and not isinstance(value, bool) and str(value).startswith("-"):
                return ast.UnaryOp(ast.USub(), ast.Constant(-value))
            return ast.Constant(value)
        case Const(value=value, dtype=dtype):
            return to_ast(Call("pl.const", (Const(value), Dotted(f"pl.{dtype}"))))
        case Dotted(path=path):
            return ast.parse(path, mode="eval").body
        case BinOp(op=op, left=left, right=right):
            return ast.BinOp(to_ast(left), _AST_BINOPS[op](), to_ast(right))
        case UnaryOp(op=op, operand=operand):
            return ast.UnaryOp(_AST_UNARY[op](), to_ast(operand))
        case Compare(op=op, left=left, right=right):
            return ast.Compare(to_ast(left), [_AST_CMPOPS[op]()], [to_ast(right)])
        case BoolOp(op=op, values=values):
            return ast.BoolOp(ast.And() if op == "and" else ast.Or(), [to_ast(v) for v in values])
        case Keyword(name=name, value=value):
            return ast.keyword(name, to_ast(value))
        case Call(func=func, args=args, kwargs=kwargs):
            func_node = ast.parse(func, mode="eval").body
            return ast.Call(func_node, [to_ast(v) for v in args], [to_ast(k) for k in kwargs])
        case ListExpr(elts=elts):
            return ast.List([to_ast(v) for v in elts], ast.Load())
        case TupleExpr(elts=elts):
            return ast.Tuple([to_ast(v) for v in elts], ast.Load())
        case DictExpr(keys=keys, values=values):
            return ast.Dict([to_ast(k) for k in keys], [to_ast(v) for v in values])
        case Subscript(value=value, index=index):
            return ast.Subscript(to_ast(value), to_ast(index), ast.Load())
        case Opaque(text=text):
            return ast.parse(text, mode="eval").body
    raise TypeError(e)


@pytest.mark.parametrize(("expr", "text"), [e for e in EXPRS if "not valid" not in e[1]], ids=lambda v: "")
def test_expr_means_what_the_model_says(expr: Expr, text: str) -> None:
    """The printed parentheses give Python exactly the model's tree."""
    if isinstance(expr, Keyword):
        tree: ast.AST = ast.parse(f"f({print_expr(expr)})", mode="eval").body.keywords[0]  # type: ignore[attr-defined]
    else:
        tree = ast.parse(print_expr(expr), mode="eval").body
    assert ast.dump(tree) == ast.dump(to_ast(expr))


def test_expr_other_prefix() -> None:
    assert print_expr(Const(7, "INT64"), prefix="ir") == "ir.const(7, ir.INT64)"


def test_deep_expressions_do_not_overflow() -> None:
    left: Expr = a
    right: Expr = a
    for _ in range(20_000):
        left = BinOp("+", left, b)
        right = BinOp("-", b, right)
    assert print_expr(left) == "a" + " + b" * 20_000
    assert print_expr(right) == "b - (" * 19_999 + "b - a" + ")" * 19_999
    nested: Expr = a
    for _ in range(20_000):
        nested = Call("f", (nested,))
    assert print_expr(nested).count("(") == 20_000


@pytest.mark.parametrize(
    "bad",
    [
        BoolOp("and", ()),
        BinOp("@", a, b),
        UnaryOp("!", a),
        DictExpr((a,), ()),
        Const(b"x"),
        ScalarType("INDEX"),
    ],  # type: ignore[arg-type]
)
def test_malformed_expressions_raise(bad: Expr) -> None:
    with pytest.raises(PrintError):
        print_expr(bad)


# ----------------------------------------------------------------------------------------- types

MEMREF = Call("pl.MemRef", (Const("mem_ddr_0"), Const(0, "INT64"), Const(524288)))
TENSOR = TensorType("Tensor", (Const(1024), Const(128)), "FP32")

TYPES = [
    (ScalarType("INDEX"), "pl.Scalar[pl.INDEX]"),
    (TENSOR, "pl.Tensor[[1024, 128], pl.FP32]"),
    (
        TensorType("Tensor", (Name("N"), Const(128)), "BF16", (MEMREF,)),
        'pl.Tensor[[N, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 524288)]',
    ),
    (
        TensorType(
            "Tile",
            (Const(8), Const(1024)),
            "FP32",
            (Call("pl.MemRef", (Name("mem_vec_3"),)), Dotted("pl.Mem.Vec")),
        ),
        "pl.Tile[[8, 1024], pl.FP32, pl.MemRef(mem_vec_3), pl.Mem.Vec]",
    ),
    (TensorType("Tensor", (), "FP32"), "pl.Tensor[[], pl.FP32]"),
    (TensorType("Tensor", (BinOp("//", Const(64), Const(2)),), "FP32"), "pl.Tensor[[64 // 2], pl.FP32]"),
    (ArrayType(Const(8), "TASK_ID"), "pl.Array[8, pl.TASK_ID]"),
    (
        TupleType((TENSOR, ScalarType("TASK_ID"))),
        "pl.Tuple[pl.Tensor[[1024, 128], pl.FP32], pl.Scalar[pl.TASK_ID]]",
    ),
    (TupleType((ScalarType("TASK_ID"),)), "pl.Tuple[pl.Scalar[pl.TASK_ID]]"),
    (TupleType(()), "pl.Tuple[()]"),
    (OtherType(Dotted("pl.Ptr")), "pl.Ptr"),
    (
        OtherType(Subscript(Dotted("pld.DistributedTensor"), ListExpr((Const(4),)))),
        "pld.DistributedTensor[[4]]",
    ),
    (ScalarType("pl.BFLOAT16"), "pl.BFLOAT16".join(["pl.Scalar[", "]"])),
]


@pytest.mark.parametrize(("typ", "text"), TYPES, ids=[t for _, t in TYPES])
def test_type(typ, text: str) -> None:  # type: ignore[no-untyped-def]
    assert print_type(typ) == text
    ast.parse(text, mode="eval")


def test_type_other_prefix() -> None:
    assert print_type(TupleType((ScalarType("INDEX"),)), "ir") == "ir.Tuple[ir.Scalar[ir.INDEX]]"


# ------------------------------------------------------------------------------------ statements

T64 = TensorType("Tensor", (Const(64), Const(64)), "FP32")
TID = ScalarType("TASK_ID")


def body_text(*stmts: Stmt) -> str:
    """The printed body of a bare function holding `stmts`, dedented to column 0."""
    f = Function("f", None, False, (), None, False, tuple(stmts))
    lines = print_function(f, indent="").splitlines()[2:]
    return "\n".join(line[4:] for line in lines)


STMTS: list[tuple[list[Stmt], str]] = [
    ([Assign(("x",), ScalarType("INDEX"), BinOp("*", a, Const(64)))], "x: pl.Scalar[pl.INDEX] = a * 64"),
    ([Assign(("x",), None, a)], "x = a"),
    ([Assign(("a", "b"), None, Call("pl.yield_", (x, y)))], "a, b = pl.yield_(x, y)"),
    (
        [ExprStmt(Call("pl.func_attr", (DictExpr((Const("k"),), (Const(True),)),)))],
        'pl.func_attr({"k": True})',
    ),
    ([ExprStmt(Opaque("..."))], "..."),
    ([Return(())], "return"),
    ([Return((a,))], "return a"),
    ([Return((a, b))], "return a, b"),
    ([Jump("pass"), Jump("break"), Jump("continue")], "pass\nbreak\ncontinue"),
    ([], "pass"),
    (
        [
            For(
                "i",
                ("acc",),
                True,
                Call("pl.range", (Const(4),), (Keyword("init_values", TupleExpr((a,))),)),
                (Assign(("acc__rv",), T64, Call("pl.yield_", (Name("acc"),))),),
            )
        ],
        "for i, (acc,) in pl.range(4, init_values=(a,)):\n    acc__rv: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(acc)",
    ),
    (
        [
            For(
                "i",
                ("p", "q"),
                True,
                Call("pl.parallel", (a,)),
                (Assign(("r", "s"), None, Call("pl.yield_", (Name("p"), Name("q")))),),
            )
        ],
        "for i, (p, q) in pl.parallel(a):\n    r, s = pl.yield_(p, q)",
    ),
    (
        [For("i", (), False, Call("pl.range", (Const(0), a, Const(16))), ())],
        "for i in pl.range(0, a, 16):\n    pass",
    ),
    (
        [
            For(
                None,
                ("x",),
                True,
                Call("pl.while_", (), (Keyword("init_values", TupleExpr((a,))),)),
                (
                    ExprStmt(Call("pl.cond", (Compare("<", Name("x"), Const(8)),))),
                    Assign(("xr",), None, Call("pl.yield_", (BinOp("+", Name("x"), Const(1)),))),
                ),
            )
        ],
        "for (x,) in pl.while_(init_values=(a,)):\n    pl.cond(x < 8)\n    xr = pl.yield_(x + 1)",
    ),
    ([While(BoolOp("and", (a, UnaryOp("not", b))), (Jump("break"),))], "while a and not b:\n    break"),
    ([If(Compare(">", a, Const(0)), (Jump("pass"),))], "if a > 0:\n    pass"),
    (
        [
            If(
                Compare(">", a, Const(0)),
                (Assign(("r",), TID, Call("pl.yield_", (b,))),),
                (Assign(("r",), TID, Call("pl.yield_", (c,))),),
            )
        ],
        "if a > 0:\n    r: pl.Scalar[pl.TASK_ID] = pl.yield_(b)\nelse:\n    r: pl.Scalar[pl.TASK_ID] = pl.yield_(c)",
    ),
    (
        [If(a, (), (If(b, (Jump("pass"),), ()),))],
        "if a:\n    pass\nelse:\n    if b:\n        pass",
    ),
    (
        [
            With(
                Call("pl.scope", (), (Keyword("mode", Dotted("pl.ScopeMode.MANUAL")),)), None, (Return((a,)),)
            )
        ],
        "with pl.scope(mode=pl.ScopeMode.MANUAL):\n    return a",
    ),
    (
        [With(Call("pl.at", (), (Keyword("level", Dotted("pl.Level.CORE_GROUP")),)), "tid", ())],
        "with pl.at(level=pl.Level.CORE_GROUP) as tid:\n    pass",
    ),
    (
        [
            Assign(("x",), None, a, comments=("# first", "#second")),
            If(a, (Jump("pass", comments=("# inner",)),), comments=("# on if",)),
        ],
        "# first\n#second\nx = a\n# on if\nif a:\n    # inner\n    pass",
    ),
]


@pytest.mark.parametrize(("stmts", "text"), STMTS, ids=[t.splitlines()[0] for _, t in STMTS])
def test_statement(stmts: list[Stmt], text: str) -> None:
    assert body_text(*stmts) == text
    ast.parse(text)


def test_malformed_loop_target_raises() -> None:
    with pytest.raises(PrintError):
        body_text(For(None, (), True, a, ()))


# ------------------------------------------------------------------------------------- functions


def graph_decorator(kind: str = "Graph") -> tuple[Keyword, ...]:
    return (
        Keyword("type", Dotted(f"pl.FunctionType.{kind}")),
        Keyword("level", Dotted("pl.Level.CHIP")),
        Keyword("role", Dotted("pl.Role.Orchestrator")),
    )


LAYER = Function(
    name="layer",
    decorator=graph_decorator(),
    has_self=True,
    params=(
        Param("x__ssa_v0", TensorType("Tensor", (Name("N"), Const(64)), "FP32")),
        Param("acc__ssa_v0", T64, "InOut"),
        Param("o__ssa_v0", T64, "Out"),
        Param("idx__ssa_v0", ScalarType("INDEX")),
    ),
    returns=(T64,),
    returns_tuple=False,
    body=(
        Assign(
            ("base__ssa_v0",),
            ScalarType("INDEX"),
            BinOp("*", Name("idx__ssa_v0"), Const(64)),
            comments=("# Step A",),
        ),
        Assign(
            ("acc__ssa_v1",),
            T64,
            Call(
                "self.scale",
                (Name("x__ssa_v0"), Name("acc__ssa_v0")),
                (
                    Keyword(
                        "attrs",
                        DictExpr(
                            (Const("arg_directions"),),
                            (ListExpr((Dotted("pl.adir.input"), Dotted("pl.adir.inout"))),),
                        ),
                    ),
                ),
            ),
        ),
        Return((Name("acc__ssa_v0"),)),
    ),
    comments=("# the graph",),
)

LAYER_TEXT = """\
    # the graph
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, x__ssa_v0: pl.Tensor[[N, 64], pl.FP32], acc__ssa_v0: pl.InOut[pl.Tensor[[64, 64], pl.FP32]], \
o__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]], idx__ssa_v0: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        # Step A
        base__ssa_v0: pl.Scalar[pl.INDEX] = idx__ssa_v0 * 64
        acc__ssa_v1: pl.Tensor[[64, 64], pl.FP32] = self.scale(x__ssa_v0, acc__ssa_v0, \
attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return acc__ssa_v0
"""

KERNEL = Function(
    name="k",
    decorator=None,
    has_self=False,
    params=(Param("t", ScalarType("INDEX")),),
    returns=None,
    returns_tuple=False,
    body=(),
)


def test_function_in_full() -> None:
    assert print_function(LAYER) == LAYER_TEXT


def test_function_indent_and_prefix() -> None:
    text = print_function(dataclasses.replace(LAYER, comments=()), indent="", prefix="pl")
    assert text.startswith("@pl.function(type=pl.FunctionType.Graph")
    assert text.splitlines()[2] == "    # Step A"
    assert (
        print_function(KERNEL, indent="", prefix="ir")
        == "@ir.function\ndef k(t: ir.Scalar[ir.INDEX]):\n    pass\n"
    )


def test_function_returns() -> None:
    two = dataclasses.replace(KERNEL, returns=(T64, TID), returns_tuple=True)
    assert (
        "def k(t: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]]:"
        in print_function(two)
    )
    one = dataclasses.replace(KERNEL, returns=(TID,), returns_tuple=True)
    assert "-> tuple[pl.Scalar[pl.TASK_ID]]:" in print_function(one)
    empty = dataclasses.replace(KERNEL, returns=(), returns_tuple=True, decorator=())
    assert (
        print_function(empty, indent="")
        == "@pl.function()\ndef k(t: pl.Scalar[pl.INDEX]) -> tuple[()]:\n    pass\n"
    )


# --------------------------------------------------------------------------------------- program


def program(*functions: Function, dims: tuple[str, ...] = ("M", "N"), prefix: str = "pl") -> Program:
    return Program("Demo", prefix, dims, functions)


def test_program_canonical() -> None:
    text = print_program(program(KERNEL, dataclasses.replace(LAYER, comments=())))
    head = '# pypto.program: Demo\nimport pypto.language as pl\n\nM = pl.dynamic("M")\nN = pl.dynamic("N")\n\n@pl.program\nclass Demo:\n'
    assert text.startswith(head)
    rest = text[len(head) :]
    assert rest == print_function(KERNEL) + print_function(dataclasses.replace(LAYER, comments=()))
    parses(text)


def test_program_canonical_without_dims_and_other_prefix() -> None:
    text = print_program(program(KERNEL, dims=(), prefix="ir"))
    assert text == (
        "# pypto.program: Demo\nfrom pypto import language as ir\n\n@ir.program\nclass Demo:\n"
        "    @ir.function\n    def k(t: ir.Scalar[ir.INDEX]):\n        pass\n"
    )
    assert parses(print_program(program())).endswith("class Demo:\n    pass\n")


SOURCE = """\
# pypto.program: Demo
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class Demo:
    @pl.function
    def k(t: pl.Scalar[pl.INDEX]):
        pass  # a trailing comment the model does not hold

    @pl.function(type=pl.FunctionType.Spmd)
    def w(self, t: pl.Scalar[pl.INDEX]):
        self.k(
            t,
        )
# trailing text
"""


def layout_program() -> Program:
    """`SOURCE` as the parser would read it, with its layout."""
    k = dataclasses.replace(KERNEL, body=(Jump("pass"),))
    w = Function(
        "w",
        (Keyword("type", Dotted("pl.FunctionType.Spmd")),),
        True,
        KERNEL.params,
        None,
        False,
        (ExprStmt(Call("self.k", (Name("t"),))),),
    )
    k_start = SOURCE.index("    @pl.function\n")
    w_start = SOURCE.index("    @pl.function(type")
    spans = ((k_start, SOURCE.index("\n\n", k_start) + 1), (w_start, SOURCE.index("# trailing")))
    layout = SourceLayout(SOURCE, spans, (k, w), "    ")
    return Program("Demo", "pl", ("N",), (k, w), layout)


def test_layout_unchanged_is_byte_for_byte() -> None:
    assert print_program(layout_program()) == SOURCE


def test_layout_reprints_only_changed_functions() -> None:
    p = layout_program()
    w2 = dataclasses.replace(p.functions[1], body=(Return(()),))
    text = print_program(dataclasses.replace(p, functions=(p.functions[0], w2)))
    expected = SOURCE.replace("        self.k(\n            t,\n        )\n", "        return\n").replace(
        "def w(self, t: pl.Scalar[pl.INDEX]):", "def w(self, t: pl.Scalar[pl.INDEX]):"
    )
    assert text == expected
    parses(text)


def test_layout_with_added_function_falls_back() -> None:
    p = layout_program()
    extra = dataclasses.replace(KERNEL, name="k2")
    text = print_program(dataclasses.replace(p, functions=(*p.functions, extra)))
    head = SOURCE[: p.layout.function_spans[0][0]]  # type: ignore[union-attr]
    assert text.startswith(head)
    assert text.endswith(print_function(extra) + "# trailing text\n")
    assert "pass  # a trailing comment the model does not hold" in text  # unchanged k keeps its text
    parses(text)


def test_layout_with_removed_function_falls_back() -> None:
    p = layout_program()
    text = print_program(dataclasses.replace(p, functions=(p.functions[1],)))
    assert "def k(" not in text and "def w(self" in text
    parses(text)


def test_layout_header_follows_new_dynamic_dims() -> None:
    p = layout_program()
    text = print_program(dataclasses.replace(p, dynamic_dims=("M", "N")))
    assert 'M = pl.dynamic("M")\nN = pl.dynamic("N")\n' in text
    assert text.endswith(SOURCE[p.layout.function_spans[0][0] :])  # type: ignore[union-attr]
    parses(text)


def test_every_printed_text_is_python() -> None:
    for stmts, _ in STMTS:
        body = tuple(s for s in stmts if not (isinstance(s, Jump) and s.kind != "pass"))
        f = Function("f", graph_decorator("Orchestration"), True, LAYER.params, LAYER.returns, False, body)
        parses(print_program(program(f, LAYER, KERNEL)))
