"""Print the IR model back as PyPTO's printed IR (`python_print` dumps), in the RAW printer style.

The raw style is what PyPTO writes when ruff is not on PATH (IR_FORMAT.md §1): every statement on
one line, no blank line between methods, 4-space indentation.  Expressions use Python syntax with
precedence-minimal parentheses (§6.3), typed constants as `pl.const(v, pl.DT)` (§6.2).

`print_program` keeps the text a program was read from byte-for-byte (`Program.layout`) and only
reprints the functions that changed, so an unchanged dump prints exactly as it was read.

Expressions print without recursion (an explicit work stack), so thousands of nested operators
never raise `RecursionError`; the statement and type printers recurse only as deep as the program's
block or type nesting, and report overflow as a `PrintError`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TypeAlias

from legalog.ir.errors import ParseError
from legalog.ir.model import (
    INDENT_STEP,
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
    Type,
    UnaryOp,
    While,
    With,
)
from legalog.ir.parser import parse
from legalog.ir.patterns import DEFAULT_PREFIX

__all__ = ["PrintError", "print_checked", "print_expr", "print_function", "print_program", "print_type"]

STEP = INDENT_STEP
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class PrintError(ValueError):
    """A model the printer cannot write as valid Python (malformed node, or nesting too deep)."""


# ------------------------------------------------------------------------------------ precedence
# Python's operator precedence, lowest first (the levels `ast.unparse` uses).

TEST = 0  # any expression: call arguments, list/tuple/dict items, statement positions
OR = 1
AND = 2
NOT = 3
CMP = 4
BOR = 5
BXOR = 6
BAND = 7
SHIFT = 8
ARITH = 9
TERM = 10
UNARY = 11
POWER = 12
ATOM = 13

_BINOP_PREC: dict[str, int] = {
    "|": BOR,
    "^": BXOR,
    "&": BAND,
    "<<": SHIFT,
    ">>": SHIFT,
    "+": ARITH,
    "-": ARITH,
    "*": TERM,
    "/": TERM,
    "//": TERM,
    "%": TERM,
    "**": POWER,
}
_BOOLOP_PREC = {"or": OR, "and": AND}
_AST_BINOP_PREC: dict[type, int] = {
    ast.BitOr: BOR,
    ast.BitXor: BXOR,
    ast.BitAnd: BAND,
    ast.LShift: SHIFT,
    ast.RShift: SHIFT,
    ast.Add: ARITH,
    ast.Sub: ARITH,
    ast.Mult: TERM,
    ast.MatMult: TERM,
    ast.Div: TERM,
    ast.FloorDiv: TERM,
    ast.Mod: TERM,
    ast.Pow: POWER,
}

# One piece of printed output: literal text, or an expression still to print.
Piece: TypeAlias = "str | Expr | Keyword"


def _const_text(value: object) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # shortest round-trip form: 1e-06, 0.011048543456039806, 2.0
    if isinstance(value, str):
        return _str_literal(value)
    raise PrintError(f"unprintable constant {value!r} of type {type(value).__name__}")


def _str_literal(value: str) -> str:
    """A double-quoted Python literal (not JSON: `\\uXXXX` pairs would split astral characters)."""
    text = repr(value)
    if text.startswith('"'):
        return text
    out: list[str] = []
    body, i = text[1:-1], 0
    while i < len(body):
        if body[i] == "\\":
            escape = body[i : i + 2]
            out.append("'" if escape == "\\'" else escape)
            i += 2
            continue
        out.append('\\"' if body[i] == '"' else body[i])
        i += 1
    return '"' + "".join(out) + '"'


@lru_cache(maxsize=4096)
def _opaque_prec(text: str) -> int:
    """Precedence of verbatim text, read from its own parse (unparseable text stays as is)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ATOM
    match node:
        case ast.BoolOp(op=ast.Or()):
            return OR
        case ast.BoolOp():
            return AND
        case ast.UnaryOp(op=ast.Not()):
            return NOT
        case ast.UnaryOp():
            return UNARY
        case ast.Compare():
            return CMP
        case ast.BinOp(op=ast.Pow()):
            return POWER
        case ast.BinOp(op=op):
            return _AST_BINOP_PREC.get(type(op), ARITH)
        case ast.Lambda() | ast.IfExp() | ast.NamedExpr() | ast.Yield() | ast.YieldFrom() | ast.Starred():
            return TEST
        case ast.Await():
            return POWER
    return ATOM


def _prec(e: Expr | Keyword) -> int:
    while isinstance(e, BoolOp) and len(e.values) == 1:  # a one-value BoolOp prints as its value
        e = e.values[0]
    match e:
        case BinOp(op=op):
            return _BINOP_PREC.get(op, ATOM)  # an unknown operator fails when it is printed
        case UnaryOp(op="not"):
            return NOT
        case UnaryOp():
            return UNARY
        case Compare():
            return CMP
        case BoolOp(op=op):
            return _BOOLOP_PREC.get(op, ATOM)
        case Const(value=int() | float() as v, dtype=None) if not isinstance(v, bool):
            return UNARY if _const_text(v).startswith("-") else ATOM
        case Opaque(text=text):
            return _opaque_prec(text)
        case Keyword():
            return TEST
    return ATOM


def _operand(e: Expr, need: int) -> list[Piece]:
    """`e` as an operand that must bind at least as tightly as `need`."""
    return ["(", e, ")"] if _prec(e) < need else [e]


def _joined(
    items: tuple[Expr, ...] | tuple[Keyword, ...] | list[Expr | Keyword], sep: str = ", "
) -> list[Piece]:
    pieces: list[Piece] = []
    for i, item in enumerate(items):
        if i:
            pieces.append(sep)
        pieces.append(item)
    return pieces


# ----------------------------------------------------------------------------------- expressions
# Each handler returns the node's pieces: text, and children that are printed in turn.


def _dtype(dtype: str, prefix: str) -> str:
    return dtype if "." in dtype else f"{prefix}.{dtype}"


def _p_name(e: Name, prefix: str) -> list[Piece]:
    return [e.id]


def _p_const(e: Const, prefix: str) -> list[Piece]:
    text = _const_text(e.value)
    return [f"{prefix}.const({text}, {_dtype(e.dtype, prefix)})" if e.dtype is not None else text]


def _p_dotted(e: Dotted, prefix: str) -> list[Piece]:
    return [e.path]


def _p_binop(e: BinOp, prefix: str) -> list[Piece]:
    prec = _BINOP_PREC.get(e.op)
    if prec is None:
        raise PrintError(f"unknown binary operator {e.op!r}")
    # `**` is right-associative and binds less tightly than a unary operator on its right.
    left_need, right_need = (POWER + 1, UNARY) if e.op == "**" else (prec, prec + 1)
    return [*_operand(e.left, left_need), f" {e.op} ", *_operand(e.right, right_need)]


def _p_unaryop(e: UnaryOp, prefix: str) -> list[Piece]:
    if e.op == "not":
        return ["not ", *_operand(e.operand, NOT)]
    if e.op not in ("-", "+", "~"):
        raise PrintError(f"unknown unary operator {e.op!r}")
    return [e.op, *_operand(e.operand, UNARY)]


def _p_compare(e: Compare, prefix: str) -> list[Piece]:
    # Comparisons chain (`a < b < c`), so a comparison operand needs parentheses on either side.
    return [*_operand(e.left, CMP + 1), f" {e.op} ", *_operand(e.right, CMP + 1)]


def _p_boolop(e: BoolOp, prefix: str) -> list[Piece]:
    if e.op not in _BOOLOP_PREC:
        raise PrintError(f"unknown boolean operator {e.op!r}")
    if not e.values:
        raise PrintError(f"empty `{e.op}`: a BoolOp needs at least one value")
    if len(e.values) == 1:
        return [e.values[0]]
    need = _BOOLOP_PREC[e.op] + 1  # a nested BoolOp of the same kind keeps its parentheses
    pieces: list[Piece] = []
    for i, value in enumerate(e.values):
        if i:
            pieces.append(f" {e.op} ")
        pieces.extend(_operand(value, need))
    return pieces


def _p_keyword(e: Keyword, prefix: str) -> list[Piece]:
    if e.name == "predicate":  # PyPTO always parenthesises a launch predicate (§6.6)
        return [f"{e.name}=(", e.value, ")"]
    return [f"{e.name}=", e.value]


def _p_call(e: Call, prefix: str) -> list[Piece]:
    return [f"{e.func}(", *_joined([*e.args, *e.kwargs]), ")"]


def _p_list(e: ListExpr, prefix: str) -> list[Piece]:
    return ["[", *_joined(e.elts), "]"]


def _p_tuple(e: TupleExpr, prefix: str) -> list[Piece]:
    if len(e.elts) == 1:
        return ["(", e.elts[0], ",)"]
    return ["(", *_joined(e.elts), ")"]


def _p_dict(e: DictExpr, prefix: str) -> list[Piece]:
    if len(e.keys) != len(e.values):
        raise PrintError(f"dict with {len(e.keys)} keys and {len(e.values)} values")
    pieces: list[Piece] = ["{"]
    for i, (key, value) in enumerate(zip(e.keys, e.values)):
        pieces.extend([", "] if i else [])
        pieces.extend([key, ": ", value])
    return [*pieces, "}"]


def _p_subscript(e: Subscript, prefix: str) -> list[Piece]:
    return [*_operand(e.value, ATOM), "[", e.index, "]"]


def _p_opaque(e: Opaque, prefix: str) -> list[Piece]:
    return [e.text]


_EXPR_PRINTERS: dict[type, Callable[..., list[Piece]]] = {
    Name: _p_name,
    Const: _p_const,
    Dotted: _p_dotted,
    BinOp: _p_binop,
    UnaryOp: _p_unaryop,
    Compare: _p_compare,
    BoolOp: _p_boolop,
    Keyword: _p_keyword,
    Call: _p_call,
    ListExpr: _p_list,
    TupleExpr: _p_tuple,
    DictExpr: _p_dict,
    Subscript: _p_subscript,
    Opaque: _p_opaque,
}


def print_expr(e: Expr | Keyword, prefix: str = DEFAULT_PREFIX) -> str:
    """An expression in Python syntax with precedence-minimal parentheses (never recursive)."""
    out: list[str] = []
    stack: list[Piece] = [e]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        printer = _EXPR_PRINTERS.get(type(item))
        if printer is None:
            raise PrintError(f"not an expression: {type(item).__name__}")
        stack.extend(reversed(printer(item, prefix)))
    return "".join(out)


# ----------------------------------------------------------------------------------------- types


def _t_scalar(t: ScalarType, prefix: str) -> str:
    return f"{prefix}.Scalar[{_dtype(t.dtype, prefix)}]"


def _t_tensor(t: TensorType, prefix: str) -> str:
    shape = ", ".join(print_expr(d, prefix) for d in t.shape)
    items = [f"[{shape}]", _dtype(t.dtype, prefix), *(print_expr(x, prefix) for x in t.extras)]
    return f"{prefix}.{t.kind}[{', '.join(items)}]"


def _t_array(t: ArrayType, prefix: str) -> str:
    return f"{prefix}.Array[{print_expr(t.size, prefix)}, {_dtype(t.dtype, prefix)}]"


def _t_tuple(t: TupleType, prefix: str) -> str:
    inner = ", ".join(print_type(x, prefix) for x in t.elts) if t.elts else "()"
    return f"{prefix}.Tuple[{inner}]"


def _t_other(t: OtherType, prefix: str) -> str:
    return print_expr(t.expr, prefix)


_TYPE_PRINTERS: dict[type, Callable[..., str]] = {
    ScalarType: _t_scalar,
    TensorType: _t_tensor,
    ArrayType: _t_array,
    TupleType: _t_tuple,
    OtherType: _t_other,
}


def print_type(t: Type, prefix: str = DEFAULT_PREFIX) -> str:
    """A type annotation: `pl.Scalar[pl.INDEX]`, `pl.Tensor[[M, 128], pl.FP32, ...]`, ..."""
    printer = _TYPE_PRINTERS.get(type(t))
    if printer is None:
        raise PrintError(f"not a type: {type(t).__name__}")
    return printer(t, prefix)


def _param(p: Param, prefix: str) -> str:
    text = print_type(p.type, prefix)
    if p.direction != "In":
        text = f"{prefix}.{p.direction}[{text}]"
    return f"{p.name}: {text}"


# ------------------------------------------------------------------------------------ statements


def _comment_lines(comments: tuple[str, ...], ind: str) -> list[str]:
    """One `#` line per comment line, its text byte-for-byte (the reader keeps a comment's own bytes:
    a form feed in it is no line break, hence no `str.splitlines`)."""
    lines: list[str] = []
    for comment in comments:
        for line in _LINE_BREAK.split(comment):
            text = line.lstrip(" \t")
            lines.append(f"{ind}{text}" if text.startswith("#") else f"{ind}# {text}".rstrip())
    return lines


def _block(body: tuple[Stmt, ...], ind: str, prefix: str) -> list[str]:
    if not body:
        return [f"{ind}pass"]
    lines: list[str] = []
    for stmt in body:
        lines.extend(_comment_lines(stmt.comments, ind))
        printer = _STMT_PRINTERS.get(type(stmt))
        if printer is None:
            raise PrintError(f"not a statement: {type(stmt).__name__}")
        lines.extend(printer(stmt, ind, prefix))
    return lines


def _s_assign(s: Assign, ind: str, prefix: str) -> list[str]:
    value = print_expr(s.value, prefix)
    if not s.targets:
        raise PrintError("assignment without a target")
    if len(s.targets) > 1:
        return [f"{ind}{', '.join(s.targets)} = {value}"]
    if s.type is None:
        return [f"{ind}{s.targets[0]} = {value}"]
    return [f"{ind}{s.targets[0]}: {print_type(s.type, prefix)} = {value}"]


def _s_expr(s: ExprStmt, ind: str, prefix: str) -> list[str]:
    return [f"{ind}{print_expr(s.value, prefix)}"]


def _for_target(s: For) -> str:
    carried = f"({s.iter_args[0]},)" if len(s.iter_args) == 1 else f"({', '.join(s.iter_args)})"
    if s.index is None:
        if not s.iter_args:
            raise PrintError("a `for` loop with neither an index nor carried values")
        return carried
    return f"{s.index}, {carried}" if s.carried else s.index


def _s_for(s: For, ind: str, prefix: str) -> list[str]:
    header = f"{ind}for {_for_target(s)} in {print_expr(s.iterable, prefix)}:"
    return [header, *_block(s.body, ind + STEP, prefix)]


def _s_while(s: While, ind: str, prefix: str) -> list[str]:
    return [f"{ind}while {print_expr(s.cond, prefix)}:", *_block(s.body, ind + STEP, prefix)]


def _s_if(s: If, ind: str, prefix: str) -> list[str]:
    lines = [f"{ind}if {print_expr(s.cond, prefix)}:", *_block(s.body, ind + STEP, prefix)]
    if s.orelse:
        lines += [f"{ind}else:", *_block(s.orelse, ind + STEP, prefix)]
    return lines


def _s_with(s: With, ind: str, prefix: str) -> list[str]:
    target = f" as {s.as_name}" if s.as_name is not None else ""
    context = print_expr(s.context, prefix)
    if isinstance(s.context, TupleExpr):  # `with (a, b):` would be two context managers
        context = f"({context})"
    return [f"{ind}with {context}{target}:", *_block(s.body, ind + STEP, prefix)]


def _s_return(s: Return, ind: str, prefix: str) -> list[str]:
    if not s.values:
        return [f"{ind}return"]
    return [f"{ind}return {', '.join(print_expr(v, prefix) for v in s.values)}"]


def _s_jump(s: Jump, ind: str, prefix: str) -> list[str]:
    if s.kind not in ("pass", "break", "continue"):
        raise PrintError(f"unknown jump statement {s.kind!r}")
    return [f"{ind}{s.kind}"]


_STMT_PRINTERS: dict[type, Callable[..., list[str]]] = {
    Assign: _s_assign,
    ExprStmt: _s_expr,
    For: _s_for,
    While: _s_while,
    If: _s_if,
    With: _s_with,
    Return: _s_return,
    Jump: _s_jump,
}

# ------------------------------------------------------------------------------------- functions


def _decorator(f: Function, prefix: str) -> str:
    if f.decorator is None:
        return f"@{prefix}.function"
    return f"@{prefix}.function({', '.join(print_expr(k, prefix) for k in f.decorator)})"


def _returns(f: Function, prefix: str) -> str:
    if f.returns is None:
        return ""
    if f.returns_tuple or len(f.returns) != 1:
        inner = ", ".join(print_type(t, prefix) for t in f.returns) if f.returns else "()"
        return f" -> tuple[{inner}]"
    return f" -> {print_type(f.returns[0], prefix)}"


def _signature(f: Function, prefix: str) -> str:
    params = ["self"] if f.has_self else []
    params += [_param(p, prefix) for p in f.params]
    return f"def {f.name}({', '.join(params)}){_returns(f, prefix)}:"


def print_function(
    f: Function, indent: str = STEP, prefix: str = DEFAULT_PREFIX, step: str = STEP, newline: str = "\n"
) -> str:
    """One `@pl.function` method in PyPTO's raw style, indented by `indent` plus `step` per block
    level, each line ended by `newline` (a reprinted function takes the layout of its dump)."""
    try:
        lines = [
            *_comment_lines(f.comments, ""),
            _decorator(f, prefix),
            _signature(f, prefix),
            *_block(f.body, STEP, prefix),
        ]
    except RecursionError:
        raise PrintError(f"function `{f.name}`: statements or types nested too deeply to print") from None
    return "".join(_reindented(line, indent, step) + newline for line in lines)


def _reindented(line: str, indent: str, step: str) -> str:
    """A line printed at depth d (d STEPs before its text, which never starts with a space) at
    `indent` plus d `step`s."""
    text = line.lstrip(" ")
    return indent + step * ((len(line) - len(text)) // len(STEP)) + text


# --------------------------------------------------------------------------------------- program


def _import_line(prefix: str) -> str:
    return (
        "import pypto.language as pl"
        if prefix == DEFAULT_PREFIX
        else f"from pypto import language as {prefix}"
    )


def _header(p: Program) -> str:
    """Everything before the first function: header comment, import, dynamic dims, class line."""
    text = f"# pypto.program: {p.name}\n{_import_line(p.prefix)}\n\n"
    if p.dynamic_dims:
        text += "".join(f'{d} = {p.prefix}.dynamic("{d}")\n' for d in p.dynamic_dims) + "\n"
    return text + f"@{p.prefix}.program\nclass {p.name}:\n"


def _canonical(p: Program) -> str:
    functions = "".join(print_function(f, STEP, p.prefix) for f in p.functions)
    return _header(p) + (functions or f"{STEP}pass\n")


_CLASS_RE = re.compile(r"^class\s+(\w+)\s*[:(]", re.MULTILINE)
_IMPORT_RE = re.compile(
    r"^(?:import pypto\.language as (\w+)|from pypto import language as (\w+))\s*$", re.MULTILINE
)
_DYNAMIC_RE = re.compile(r"^(\w+)\s*=\s*(\w+)\.dynamic\(", re.MULTILINE)


def _header_matches(head: str, p: Program) -> bool:
    """Whether the kept text before the first function still declares `p`'s name, prefix and dims.
    Unrecognised (legacy) headers are trusted as they are."""
    cls, imp = _CLASS_RE.search(head), _IMPORT_RE.search(head)
    if cls is None or imp is None:
        return True
    dims = tuple(m.group(1) for m in _DYNAMIC_RE.finditer(head))
    return cls.group(1) == p.name and (imp.group(1) or imp.group(2)) == p.prefix and dims == p.dynamic_dims


def _spans_valid(lay: SourceLayout) -> bool:
    ends = [0] + [x for span in lay.function_spans for x in span] + [len(lay.text)]
    return len(lay.function_spans) == len(lay.originals) and ends == sorted(ends)


def _with_layout(p: Program, lay: SourceLayout) -> str:
    spans = lay.function_spans
    head = lay.text[: spans[0][0]]
    if lay.copies is not None:  # earlier copies of the program: it is written once
        start, end = lay.copies
        head = lay.text[:start] + lay.text[end : spans[0][0]]
    if not _header_matches(head, p):
        head = _header(p).replace("\n", lay.newline)

    def reprinted(f: Function) -> str:
        return print_function(f, lay.indent, p.prefix, lay.step, lay.newline)

    if [f.name for f in p.functions] == [f.name for f in lay.originals]:
        pieces, pos = [head], spans[0][0]
        for f, original, (start, end) in zip(p.functions, lay.originals, spans):
            if f != original:
                pieces += [lay.text[pos:start], reprinted(f)]
                pos = end
        return "".join(pieces) + lay.text[pos:]
    # Functions added, removed or reordered: reprint the function block, reusing the original
    # text of every function that is unchanged.
    kept: dict[str, tuple[Function | None, str]] = {
        o.name: (o, lay.text[s:e]) for o, (s, e) in zip(lay.originals, spans)
    }
    body = []
    for f in p.functions:
        kept_original, text = kept.get(f.name, (None, ""))
        body.append(text if kept_original == f and text.endswith(("\n", "\r")) else reprinted(f))
    return head + "".join(body) + lay.text[spans[-1][1] :]


def print_program(p: Program) -> str:
    """The program's text: its source layout with changed functions reprinted, or canonical text."""
    lay = p.layout
    if lay is None or not lay.function_spans or not _spans_valid(lay):
        return _canonical(p)
    return _with_layout(p, lay)


def print_checked(p: Program) -> str:
    """`print_program`, read back with legalog's own parser and compared with `p` node for node
    before anyone writes it: a text that does not parse, or parses to another program (a span
    that started in the wrong place, a line break the reader counts differently), is a
    `PrintError`, legalog's bug, and nothing is written.  This holds for every input, not only
    the spellings a test thought of.  A function the text holds exactly as the dump did (the
    printer copied it) is the function read from it then: only the reprinted ones are read again."""
    text = print_program(p)
    lay, read = p.layout, {}
    if lay is not None and lay.function_spans and _spans_valid(lay):
        read = {
            (p.prefix, lay.text[s:e]): f for f, (s, e) in zip(lay.originals, lay.function_spans, strict=True)
        }
    try:
        again = parse(text, reuse=read)
    except ParseError as err:
        raise PrintError(
            f"the program legalog would write does not read back ({err.line}:{err.col}: {err.reason})"
        ) from None
    if again != p:
        differs = [f.name for f, g in zip(p.functions, again.functions) if f != g]
        what = f"function `{differs[0]}`" if differs else "the program's name, dims or functions"
        raise PrintError(f"the program legalog would write reads back differently ({what}); nothing written")
    return text
