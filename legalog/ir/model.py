"""The IR model: frozen dataclasses for a printed PyPTO program.

Every node carries a `span` (1-based line and column of the source it was read from) that takes
no part in equality, so a rewritten node compares equal to a freshly parsed one.  Whatever the
model does not name is kept as an `Opaque` node holding its source text: a new PyPTO op or
annotation never breaks reading, and it prints back exactly.

Names follow IR_FORMAT.md (`../shared/design/IR_FORMAT.md`): expressions (§6), types (§4),
statements (§5), functions (§3) and the module (§2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node was read: 1-based line and column, end exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int


NO_SPAN = Span(0, 0, 0, 0)


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


# ---------------------------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Name:
    """A variable: parameter, local, loop variable or module-level dynamic dimension."""

    id: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Const:
    """A literal. `dtype` is set for the typed spelling `pl.const(v, pl.DT)` (bare ints are INDEX)."""

    value: int | float | bool | str | None
    dtype: str | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Dotted:
    """A dotted reference that is not a variable: `pl.FP32`, `pl.adir.inout`, `self.kernel`."""

    path: str
    span: Span = _span()


BinOpKind: TypeAlias = Literal["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"]
CompareKind: TypeAlias = Literal["==", "!=", "<", "<=", ">", ">="]


@dataclass(frozen=True, slots=True)
class BinOp:
    op: BinOpKind
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class UnaryOp:
    op: Literal["-", "+", "~", "not"]
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Compare:
    """A single comparison; PyPTO prints one operator per node (chains stay `Opaque`)."""

    op: CompareKind
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BoolOp:
    op: Literal["and", "or"]
    values: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Keyword:
    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Call:
    """Any call: an op (`pl.tensor.slice`), a builtin (`min`), a function (`self.kernel`),
    a launch (`pl.submit(self.k, ...)`).  `func` is the dotted callee as printed."""

    func: str
    args: tuple[Expr, ...] = ()
    kwargs: tuple[Keyword, ...] = ()
    span: Span = _span()

    def kwarg(self, name: str) -> Expr | None:
        return next((k.value for k in self.kwargs if k.name == name), None)


@dataclass(frozen=True, slots=True)
class ListExpr:
    elts: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TupleExpr:
    elts: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DictExpr:
    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]
    span: Span = _span()

    def get(self, key: str) -> Expr | None:
        for k, v in zip(self.keys, self.values):
            if isinstance(k, Const) and k.value == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class Subscript:
    """`t[i]`: a tuple projection, or a MemRef slot index."""

    value: Expr
    index: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Opaque:
    """Source text the model does not name (printed back verbatim).  `names` are the
    variable names it mentions, so opaque text still reports its uses."""

    text: str
    names: tuple[str, ...] = ()
    span: Span = _span()


Expr: TypeAlias = (
    Name
    | Const
    | Dotted
    | BinOp
    | UnaryOp
    | Compare
    | BoolOp
    | Call
    | ListExpr
    | TupleExpr
    | DictExpr
    | Subscript
    | Opaque
)

# ---------------------------------------------------------------------------------------- types


@dataclass(frozen=True, slots=True)
class ScalarType:
    dtype: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TensorType:
    """`pl.Tensor[[d0, d1], pl.DT, <TensorView>?, <MemRef>?]`; `kind` is "Tensor" or "Tile"."""

    kind: Literal["Tensor", "Tile"]
    shape: tuple[Expr, ...]
    dtype: str
    extras: tuple[Expr, ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ArrayType:
    size: Expr
    dtype: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TupleType:
    elts: tuple[Type, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class OtherType:
    """Any annotation not modelled above (`pl.Ptr`, `pld.DistributedTensor[...]`, ...), verbatim."""

    expr: Expr
    span: Span = _span()


Type: TypeAlias = ScalarType | TensorType | ArrayType | TupleType | OtherType

Direction: TypeAlias = Literal["In", "Out", "InOut"]

# ----------------------------------------------------------------------------------- statements


def _comments() -> tuple[str, ...]:
    return field(default=(), kw_only=True)


@dataclass(frozen=True, slots=True)
class Assign:
    """`x: T = e` (one target, typed), `x = e` (one target, untyped) or `a, b = pl.yield_(...)`."""

    targets: tuple[str, ...]
    type: Type | None
    value: Expr
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ExprStmt:
    value: Expr
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class For:
    """`for i, (a, b) in pl.range(...)`; `index` is None for `for (x,) in pl.while_(...)`.
    `carried` tells whether the target has the iteration-argument tuple at all."""

    index: str | None
    iter_args: tuple[str, ...]
    carried: bool
    iterable: Expr
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class While:
    cond: Expr
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class If:
    cond: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class With:
    """A scope: `pl.scope(mode=...)`, `pl.manual_scope()`, `pl.at(...)`, `pl.spmd(...)`, ..."""

    context: Expr
    as_name: str | None
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Return:
    values: tuple[Expr, ...]
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Jump:
    """`pass`, `break` or `continue`."""

    kind: Literal["pass", "break", "continue"]
    comments: tuple[str, ...] = _comments()
    span: Span = _span()


Stmt: TypeAlias = Assign | ExprStmt | For | While | If | With | Return | Jump

# ------------------------------------------------------------------------------ functions/module


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: Type
    direction: Direction = "In"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Function:
    """One `@pl.function` method.  `decorator` holds every keyword in printed order (None for a
    bare `@pl.function`); `type` is the FunctionType name read from it ("Opaque" when absent)."""

    name: str
    decorator: tuple[Keyword, ...] | None
    has_self: bool
    params: tuple[Param, ...]
    returns: tuple[Type, ...] | None
    returns_tuple: bool
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = _comments()
    span: Span = _span()

    @property
    def type(self) -> str:
        for kw in self.decorator or ():
            if kw.name == "type" and isinstance(kw.value, Dotted):
                return kw.value.path.rsplit(".", 1)[-1]
        return "Opaque"

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


INDENT_STEP = "    "  # one block level in PyPTO's printer style (IR_FORMAT.md §1)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A construct `ast` reads but Python's compiler (or PyPTO's parser after it) refuses: a
    `break` outside a loop, an `await`, a `yield`, a `return` outside a function, ...  `kind` is
    "jump", "async", "yield" or "compile" (anything else the compiler says), or "coroutine": an
    `async def` method, which Python compiles and PyPTO's parser does not read as a function."""

    kind: Literal["jump", "async", "yield", "compile", "coroutine"]
    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class SourceLayout:
    """The text a program was read from, and where each function sits in it, so that a function
    nobody changed prints byte-for-byte (comments, layout, header and all)."""

    text: str
    function_spans: tuple[tuple[int, int], ...]  # [start, end) character offsets, one per function
    originals: tuple[Function, ...]
    indent: str  # before each method's first line
    step: str = INDENT_STEP  # what one more block level adds, so a reprinted function matches the rest
    newline: str = "\n"  # the text's line break: "\n", "\r\n" or "\r"
    header_name: str | None = None  # the name a `# pypto.program: NAME` first line gives, if any
    refusals: tuple[Refusal, ...] = ()  # what the compiler refuses in the text, in source order
    # what the module binds beside the program class (imports, dimensions, constants): a body
    # may read them, as PyPTO's parser resolves a name it does not bind from the module
    module_names: frozenset[str] = frozenset()
    # earlier identical copies of the program (dumps concatenated): their `class` lines (IR415
    # reports each) and the [start, end) of the text they fill, which a printed program leaves
    # out, so that it holds the program once
    shadowed: tuple[int, ...] = ()
    copies: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Program:
    name: str
    prefix: str
    dynamic_dims: tuple[str, ...]
    functions: tuple[Function, ...]
    layout: SourceLayout | None = field(default=None, compare=False, repr=False)

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)


FUNCTION_TYPES = ("Opaque", "Orchestration", "InCore", "AIC", "AIV", "Group", "Spmd", "Inline", "Graph")
KERNEL_TYPES = frozenset({"InCore", "AIC", "AIV", "Group"})
