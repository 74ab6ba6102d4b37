"""Read a printed PyPTO program (a `python_print` IR dump) into the IR model.

The text goes through Python's own `ast.parse` and nothing else: the input is never executed,
evaluated or imported.  Every construct IR_FORMAT.md names is modelled; any other expression
becomes an `Opaque` node that prints back verbatim, so a new PyPTO op never breaks reading.
Anything that is not a PyPTO program, or that the model cannot hold, is a `ParseError` located
at path:line:col.
"""

from __future__ import annotations

import ast
import itertools
import re
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from legalog.collector import bulk_allocation
from legalog.files import read_regular
from legalog.ir.errors import ParseError
from legalog.ir.lines import source_lines
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
    Refusal,
    Return,
    ScalarType,
    SourceLayout,
    Span,
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
from legalog.ir.patterns import DEFAULT_PREFIX, reaches_program

# A method PyPTO's decorator may meet: it reads only a plain `def` as a function; an `async def`
# is read here as well, so that calls of it resolve, and refused as the coroutine it is (IR408).
_Method = ast.FunctionDef | ast.AsyncFunctionDef
_METHODS = (ast.FunctionDef, ast.AsyncFunctionDef)
_HEADER = re.compile(r"#\s*pypto\.program(?::\s*(?P<name>\S+))?")
# A line and its end, where Python's tokenizer ends lines: at \n, \r\n or \r only.
_NEWLINE = re.compile(r"\r\n|\r|\n")
_INDENT = " \t\f"  # what may precede a statement or comment on its line

_BINOPS: dict[type, str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}
_CMPOPS: dict[type, str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_UNARYOPS: dict[type, str] = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
_DIRECTIONS = {"InOut": "InOut", "Out": "Out", "In": "In"}
MAX_EXPR_DEPTH = 256  # operators one expression may nest (every walk after the reader stays within it)


def parse(
    text: str, path: str | None = None, *, reuse: Mapping[tuple[str, str], Function] | None = None
) -> Program:
    """Parse dump text into a `Program`.  Raises `ParseError` (path, line, column, reason).

    `reuse`, for a reading that is only compared with the program it was printed from
    (`printer.print_checked`): functions already read, by (import prefix, their text from the
    line of the first decorator through the last line); a method whose text is one of them is
    that function, not read again, and Python's compiler is not asked for the refusals the
    checks report (the layout, which holds them, is no part of a comparison)."""
    text = text.removeprefix("\ufeff")  # a UTF-8 byte order mark is valid Python source; it is not kept
    if not text.strip():
        raise ParseError("empty file: not a PyPTO program (no `@pl.program` class)", path)
    if "\x00" in text:
        line, col = _position(text, text.index("\x00"))
        raise ParseError("binary input: NUL byte in the text", path, line, col)
    with bulk_allocation():
        try:
            with warnings.catch_warnings():  # `"\d"` and the like warn: not the user's report
                warnings.simplefilter("ignore")
                module = ast.parse(text, filename=path or "<input>")
        except SyntaxError as err:
            reason = err.msg or "invalid syntax"
            raise ParseError(
                f"invalid Python syntax: {reason}", path, err.lineno or 1, err.offset or 1
            ) from None
        except (RecursionError, MemoryError):
            raise ParseError("nesting too deep to read", path) from None
        lines = source_lines(text)  # split once: the column fix-up and the reader share it
        if not text.isascii():
            _character_columns(module, lines)
        try:
            return _Reader(text, path, lines).program(module, reuse)
        except RecursionError:
            raise ParseError("expression nesting too deep to read", path) from None


def parse_file(path: str | Path) -> Program:
    """Read and parse one dump file; undecodable bytes are a `ParseError` like any other."""
    name = str(path)
    try:
        data = read_regular(path)
    except OSError as err:
        raise ParseError(f"cannot read file: {err.strerror or err}", name) from None
    return parse_bytes(data, name)


def parse_bytes(data: bytes, name: str) -> Program:
    """Parse a dump's bytes (read elsewhere: a batch worker on another machine gets them shipped)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[: err.start].decode("utf-8", "replace")
        line, col = _position(before, len(before))
        raise ParseError(
            f"not UTF-8 text: byte 0x{data[err.start]:02x} cannot be decoded", name, line, col
        ) from None
    return parse(text, name)


def _leading_whitespace(line: str) -> str:
    return line[: len(line) - len(line.lstrip(_INDENT))]


def _character_columns(module: ast.Module, lines: list[str]) -> None:
    """`ast` gives columns as UTF-8 byte offsets; make them character offsets, in place, so a
    non-ASCII name earlier on a line does not move what a diagnostic points at."""
    encoded: dict[int, bytes] = {}

    def column(line: int | None, offset: int | None) -> int | None:
        if line is None or offset is None or not 0 < line <= len(lines) or lines[line - 1].isascii():
            return offset
        raw = encoded.setdefault(line, lines[line - 1].encode("utf-8"))
        return len(raw[:offset].decode("utf-8", "replace"))

    for node in ast.walk(module):
        if hasattr(node, "col_offset"):
            node.col_offset = column(node.lineno, node.col_offset)  # type: ignore[attr-defined]
            node.end_col_offset = column(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def _position(text: str, offset: int) -> tuple[int, int]:
    """Line and column of `offset`, with lines counted as `source_lines` (and `ast`) count them."""
    lines = source_lines(text[:offset])
    last = lines[-1] if lines and not lines[-1].endswith(("\n", "\r")) else ""
    return len(lines) + (0 if last else 1), len(last) + 1


def _span(node: ast.AST) -> Span:
    # every node the parser locates is a statement, an expression or an argument: all carry these
    at: Any = node
    return Span(at.lineno, at.col_offset + 1, at.end_lineno or at.lineno, (at.end_col_offset or 0) + 1)


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for an attribute chain rooted at a plain name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Reader:
    """One reading of one text: holds the path, the prefix and the comment lines."""

    def __init__(self, text: str, path: str | None, lines: list[str]) -> None:
        self.text = text
        self.path = path
        self.prefix = DEFAULT_PREFIX
        self.lines = lines
        self.depth = 0  # of the expression being read
        # character offset of each line's start (and of the end): a function's span in O(1)
        self.line_starts = list(itertools.accumulate((len(line) for line in self.lines), initial=0))
        # Each reader takes its own node class (dispatch is by `type(node)`), hence `Any`.
        self._expr_readers: dict[type[ast.expr], Callable[[Any], Expr]] = {
            ast.Name: self._name,
            ast.Constant: self._constant,
            ast.Attribute: self._attribute,
            ast.BinOp: self._binop,
            ast.UnaryOp: self._unaryop,
            ast.Compare: self._compare,
            ast.BoolOp: self._boolop,
            ast.Call: self._call,
            ast.List: lambda n: ListExpr(tuple(self.expr(e) for e in n.elts), span=_span(n)),
            ast.Tuple: lambda n: TupleExpr(tuple(self.expr(e) for e in n.elts), span=_span(n)),
            ast.Dict: self._dict,
            ast.Subscript: self._subscript,
        }

    def error(self, reason: str, node: ast.AST | None = None) -> ParseError:
        if node is None or not hasattr(node, "lineno"):
            return ParseError(reason, self.path)
        return ParseError(reason, self.path, node.lineno, node.col_offset + 1)  # type: ignore[attr-defined]

    # ------------------------------------------------------------------------------- module

    def program(self, module: ast.Module, reuse: Mapping[tuple[str, str], Function] | None = None) -> Program:
        header = _HEADER.match(self.lines[0].strip()) if self.lines else None
        classes = [n for n in module.body if isinstance(n, ast.ClassDef) and self._program_decorator(n)]
        if not classes:
            raise self.error("not a PyPTO program: no `@pl.program` class (is this an IR dump?)")
        self.prefix = self._import_prefix(module)
        cls = self._the_program(classes)
        dims = tuple(d for n in module.body if (d := self._dynamic_dim(n)) is not None)
        methods = self._methods(cls)
        spans = tuple(self._function_span(m) for m in methods)
        known = reuse or {}
        functions = tuple(
            known.get((self.prefix, self.text[start:end])) or self.function(m)
            for m, (start, end) in zip(methods, spans)
        )
        indent, step = self._indents(methods[0])
        newline = found.group() if (found := _NEWLINE.search(self.text)) else "\n"
        # The class is the program's name, as PyPTO's parser takes it; a header that says otherwise
        # is kept as written and reported (IR410), never a reason to rename the class.
        header_name = header.group("name") if header else None
        # identical earlier copies (`_the_program`): reported (IR415) and never written again
        earlier = classes[:-1]
        copies = (self._line_start(earlier[0]), self._line_start(cls)) if earlier else None
        refusals = _refusals(module, methods, self.text) if reuse is None else ()
        layout = SourceLayout(
            self.text,
            spans,
            functions,
            indent,
            step,
            newline,
            header_name,
            refusals,
            _module_names(module),
            tuple(c.lineno for c in earlier),
            copies,
        )
        return Program(cls.name, self.prefix, dims, functions, layout)

    def _the_program(self, classes: list[ast.ClassDef]) -> ast.ClassDef:
        """The program PyPTO's `pl.parse` compiles from the text.  Two names are two programs,
        which it refuses ("Multiple functions/programs found").  Copies of one program under one
        name (dumps concatenated) are that program, whichever copy it reads: its decorator looks
        a class's source up by name, which finds the first copy before Python 3.13 and the
        class's own from 3.13 (`__firstlineno__`), and `pl.parse` returns the last.  So copies
        that differ have no one meaning, and are refused saying so."""
        last = classes[-1]
        other = next((c for c in classes if c.name != last.name), None)
        if other is not None:
            raise self.error(
                f"two programs in one dump, `{other.name}` (line {other.lineno}) and `{last.name}` "
                f"(line {last.lineno}): PyPTO's `pl.parse` refuses a text holding more than one "
                "program; give each its own dump",
                last,
            )
        differing = next((c for c in classes[:-1] if self._class_text(c) != self._class_text(last)), None)
        if differing is not None:
            raise self.error(
                f"two different programs named `{last.name}` (lines {differing.lineno} and "
                f"{last.lineno}): PyPTO's `pl.parse` finds a class's source by its name, so which "
                "one it compiles depends on the Python it runs on (the first before 3.13, the last "
                "from 3.13); keep one program per dump",
                last,
            )
        return last

    def _class_text(self, cls: ast.ClassDef) -> str:
        return self.text[self._line_start(cls) : self.line_starts[cls.end_lineno or cls.lineno]]

    def _methods(self, cls: ast.ClassDef) -> list[_Method]:
        methods = [n for n in cls.body if isinstance(n, _METHODS) and self._is_function(n)]
        if not methods:
            raise self.error(f"program `{cls.name}` has no `@{self.prefix}.function` method", cls)
        return methods

    def _program_decorator(self, node: ast.ClassDef) -> bool:
        """Whether a class is decorated `@pl.program`, `@pl.program()` or
        `@pl.program(strict_ssa=...)`, the spellings PyPTO's `pl.program` takes.  Any other
        argument is refused by name: PyPTO's decorator takes no `name=` (the class is the
        program's name) and no class as an argument, and raises a TypeError on either."""
        for d in node.decorator_list:
            call = d if isinstance(d, ast.Call) else None
            if not (dotted_name(call.func if call is not None else d) or "").endswith(".program"):
                continue
            if call is None:
                return True
            bad = next((k for k in call.keywords if k.arg != "strict_ssa"), None)
            if bad is not None:
                written = f"{bad.arg}=..." if bad.arg is not None else "**..."
                raise self.error(
                    f"`@{dotted_name(call.func)}({written})`: PyPTO's `pl.program` takes only "
                    f"`strict_ssa=` (the class `{node.name}` is the program's name), so its parser "
                    "refuses this decorator",
                    bad,
                )
            if call.args:
                raise self.error(
                    f"`@{dotted_name(call.func)}(...)` with a positional argument: PyPTO's "
                    "`pl.program` decorates the class it stands above and takes only `strict_ssa=`",
                    call.args[0],
                )
            return True
        return False

    def _is_function(self, node: _Method) -> bool:
        for d in node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            if dotted_name(target) == f"{self.prefix}.function":
                return True
        return False

    def _import_prefix(self, module: ast.Module) -> str:
        for node in module.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "pypto.language":
                        return alias.asname or "pypto.language"
            if isinstance(node, ast.ImportFrom) and node.module == "pypto":
                for alias in node.names:
                    if alias.name == "language":
                        return alias.asname or "language"
        return DEFAULT_PREFIX

    def _dynamic_dim(self, node: ast.stmt) -> str | None:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            return None
        value = node.value
        if isinstance(value, ast.Call) and dotted_name(value.func) == f"{self.prefix}.dynamic":
            return node.targets[0].id
        return None

    def _indents(self, method: _Method) -> tuple[str, str]:
        """The text before a method's first line, and what its body adds to it: a function that
        is reprinted indents as the ones kept byte-for-byte do (tabs stay tabs)."""
        outer = _leading_whitespace(self.lines[self._first_line(method) - 1])
        inner = _leading_whitespace(self.lines[method.body[0].lineno - 1])
        step = inner[len(outer) :] if inner.startswith(outer) and len(inner) > len(outer) else INDENT_STEP
        return outer, step

    def _function_span(self, node: _Method) -> tuple[int, int]:
        return self.line_starts[self._first_line(node) - 1], self.line_starts[node.end_lineno or node.lineno]

    def _line_start(self, node: _Method | ast.ClassDef) -> int:
        return self.line_starts[self._first_line(node) - 1]

    def _first_line(self, node: _Method | ast.ClassDef) -> int:
        """The line of the `@` of a method's first decorator (or of its `def`).  `ast` places a
        decorator at its expression, which need not share the `@`'s line (`@ \\` then a newline, or
        `@(` ... `)` across lines); a decorator's `@` always begins its line, so the first line at
        or above the expression that starts with `@` is it."""
        if not node.decorator_list:
            return node.lineno
        line = node.decorator_list[0].lineno
        while line > 1 and not self.lines[line - 1].lstrip(_INDENT).startswith("@"):
            line -= 1
        return line

    # ----------------------------------------------------------------------------- function

    def function(self, node: _Method) -> Function:
        args = node.args
        if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults:
            raise self.error(f"function `{node.name}`: only plain positional parameters are allowed", node)
        params = list(args.args)
        has_self = bool(params) and params[0].arg == "self" and params[0].annotation is None
        if has_self:
            params = params[1:]
        decorator = self._decorator(node)
        returns, returns_tuple = self._returns(node.returns)
        return Function(
            name=node.name,
            decorator=decorator,
            has_self=has_self,
            params=tuple(self.param(p) for p in params),
            returns=returns,
            returns_tuple=returns_tuple,
            body=self.block(node.body),
            span=_span(node),
        )

    def _decorator(self, node: _Method) -> tuple[Keyword, ...] | None:
        for d in node.decorator_list:
            if isinstance(d, ast.Call):
                if d.args:
                    raise self.error("`@pl.function` takes keywords only", d)
                return self._keywords(d)
        return None

    def param(self, node: ast.arg) -> Param:
        if node.annotation is None:
            raise self.error(f"parameter `{node.arg}` has no type annotation", node)
        direction = "In"
        ann = node.annotation
        if isinstance(ann, ast.Subscript):
            wrapper = dotted_name(ann.value)
            if wrapper is not None and wrapper.startswith(f"{self.prefix}."):
                kind = wrapper[len(self.prefix) + 1 :]
                if kind in _DIRECTIONS:
                    direction, ann = _DIRECTIONS[kind], ann.slice
        return Param(node.arg, self.type(ann), direction, span=_span(node))  # type: ignore[arg-type]

    def _returns(self, node: ast.expr | None) -> tuple[tuple[Type, ...] | None, bool]:
        if node is None:
            return None, False
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "tuple":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return tuple(self.type(e) for e in elts), True
        return (self.type(node),), False

    # -------------------------------------------------------------------------------- types

    def type(self, node: ast.expr) -> Type:
        modelled = self._modelled_type(node) if isinstance(node, ast.Subscript) else None
        return modelled if modelled is not None else OtherType(self.expr(node), span=_span(node))

    def _modelled_type(self, node: ast.Subscript) -> Type | None:
        head = dotted_name(node.value)
        if head is None or not head.startswith(f"{self.prefix}."):
            return None
        kind = head[len(self.prefix) + 1 :]
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        span = _span(node)
        if kind == "Scalar" and len(items) == 1 and (dt := self._dtype(items[0])):
            return ScalarType(dt, span=span)
        tensor_like = kind in ("Tensor", "Tile") and len(items) >= 2 and isinstance(items[0], ast.List)
        if tensor_like and (dt := self._dtype(items[1])):
            shape = tuple(self.expr(e) for e in items[0].elts)  # type: ignore[attr-defined]
            extras = tuple(self.expr(e) for e in items[2:])
            return TensorType(kind, shape, dt, extras, span=span)  # type: ignore[arg-type]
        if kind == "Array" and len(items) == 2 and (dt := self._dtype(items[1])):
            return ArrayType(self.expr(items[0]), dt, span=span)
        if kind == "Tuple" and not (isinstance(node.slice, ast.Tuple) and not node.slice.elts):
            return TupleType(tuple(self.type(e) for e in items), span=span)
        if kind == "Tuple":
            return TupleType((), span=span)
        return None

    def _dtype(self, node: ast.expr) -> str | None:
        name = dotted_name(node)
        if name is None or not name.startswith(f"{self.prefix}.") or name.count(".") != 1:
            return None
        return name[len(self.prefix) + 1 :]

    # ---------------------------------------------------------------------------- statements

    def block(self, nodes: list[ast.stmt]) -> tuple[Stmt, ...]:
        return tuple(self.stmt(n) for n in nodes)

    def stmt(self, node: ast.stmt) -> Stmt:
        comments = self._leading_comments(node)
        span = _span(node)
        match node:
            case ast.AnnAssign(target=ast.Name(id=target), annotation=ann, value=value) if value is not None:
                return Assign((target,), self.type(ann), self.expr(value), comments=comments, span=span)
            case ast.Assign(targets=[ast.Name(id=target)], value=value):
                return Assign((target,), None, self.expr(value), comments=comments, span=span)
            case ast.Assign(targets=[ast.Tuple(elts=elts)], value=value) if elts and all(
                isinstance(e, ast.Name) for e in elts
            ):
                names = tuple(e.id for e in elts)  # type: ignore[attr-defined]
                return Assign(names, None, self.expr(value), comments=comments, span=span)
            case ast.Expr(value=value):
                return ExprStmt(self.expr(value), comments=comments, span=span)
            case ast.For(orelse=[]):
                index, iter_args, carried = self._for_target(node.target)
                return For(
                    index,
                    iter_args,
                    carried,
                    self.expr(node.iter),
                    self.block(node.body),
                    comments=comments,
                    span=span,
                )
            case ast.While(orelse=[]):
                return While(self.expr(node.test), self.block(node.body), comments=comments, span=span)
            case ast.If():
                return If(
                    self.expr(node.test),
                    self.block(node.body),
                    self.block(node.orelse),
                    comments=comments,
                    span=span,
                )
            case ast.With(items=[item]):
                as_name = self._with_target(item.optional_vars)
                return With(
                    self.expr(item.context_expr), as_name, self.block(node.body), comments=comments, span=span
                )
            case ast.Return(value=None):
                return Return((), comments=comments, span=span)
            case ast.Return(value=ast.Tuple(elts=elts)):
                return Return(tuple(self.expr(e) for e in elts), comments=comments, span=span)
            case ast.Return(value=value):
                return Return((self.expr(value),), comments=comments, span=span)  # type: ignore[arg-type]
            case ast.Pass():
                return Jump("pass", comments=comments, span=span)
            case ast.Break():
                return Jump("break", comments=comments, span=span)
            case ast.Continue():
                return Jump("continue", comments=comments, span=span)
        raise self.error(f"unsupported statement in a function body: {_describe(node)}", node)

    def _for_target(self, node: ast.expr) -> tuple[str | None, tuple[str, ...], bool]:
        if isinstance(node, ast.Name):
            return node.id, (), False
        if isinstance(node, ast.Tuple) and node.elts:
            *head, last = node.elts
            carried = isinstance(last, ast.Tuple) and all(isinstance(e, ast.Name) for e in last.elts)
            if carried and len(head) == 1 and isinstance(head[0], ast.Name):
                return head[0].id, tuple(e.id for e in last.elts), True  # type: ignore[attr-defined]
            if all(isinstance(e, ast.Name) for e in node.elts):
                return None, tuple(e.id for e in node.elts), True  # type: ignore[attr-defined]
        raise self.error("unsupported loop target: expected `i`, `i, (a, b)` or `(a,)`", node)

    def _with_target(self, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        if isinstance(node, ast.Name):
            return node.id
        raise self.error("unsupported `with ... as` target: expected a single name", node)

    def _leading_comments(self, node: ast.stmt) -> tuple[str, ...]:
        """Comment lines directly above a statement (before it, after the previous code line)."""
        found: list[str] = []
        index = node.lineno - 2
        while index >= 0:
            # Only the indentation and the line end go: the comment's own bytes are kept.
            comment = self.lines[index].lstrip(_INDENT).rstrip("\r\n")
            if not comment.startswith("#"):
                break
            found.append(comment)
            index -= 1
        return tuple(reversed(found))

    # --------------------------------------------------------------------------- expressions

    def expr(self, node: ast.expr) -> Expr:
        # Bounded here, once, so that no later walk of an expression (lowering, folding, Z3, the
        # printer) meets Python's recursion limit: Python itself stops at 200 brackets, so only
        # an operator chain of hundreds of terms without them is declined.
        self.depth += 1
        try:
            if self.depth > MAX_EXPR_DEPTH:
                raise self.error(
                    f"expression nested more than {MAX_EXPR_DEPTH} operators deep: "
                    "split it into named intermediate values",
                    node,
                )
            reader = self._expr_readers.get(type(node))
            return reader(node) if reader is not None else self._opaque(node)
        finally:
            self.depth -= 1

    def _opaque(self, node: ast.expr) -> Opaque:
        # An opaque value is one no analysis looks into: a call or launch of the program's own
        # functions inside it (`self.g(x) if c else y`) would be a call site nothing sees, so
        # a Graph would be rewritten while that call kept its old arguments.  (An `await` or
        # `yield` is refused as IR408 whatever it holds.)
        inner = list(ast.walk(node))
        hidden = next((n for n in inner if isinstance(n, ast.Call) and self._calls_program(n)), None)
        if hidden is not None and not isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
            raise self.error(
                f"`{ast.unparse(hidden.func)}` is called inside an expression legalog does not read "
                f"(`{ast.unparse(node)[:60]}`): bind the call to a name of its own",
                hidden,
            )
        names = tuple(sorted({n.id for n in inner if isinstance(n, ast.Name)}))
        return Opaque(ast.unparse(node), names, span=_span(node))

    def _calls_program(self, call: ast.Call) -> bool:
        return reaches_program(dotted_name(call.func) or "", self.prefix)

    def _name(self, node: ast.Name) -> Expr:
        return Name(node.id, span=_span(node))

    def _constant(self, node: ast.Constant) -> Expr:
        value = node.value
        if value is None or isinstance(value, (bool, int, float, str)):
            return Const(value, span=_span(node))
        return self._opaque(node)

    def _attribute(self, node: ast.Attribute) -> Expr:
        path = dotted_name(node)
        return Dotted(path, span=_span(node)) if path is not None else self._opaque(node)

    def _binop(self, node: ast.BinOp) -> Expr:
        op = _BINOPS.get(type(node.op))
        if op is None:
            return self._opaque(node)
        return BinOp(op, self.expr(node.left), self.expr(node.right), span=_span(node))  # type: ignore[arg-type]

    def _unaryop(self, node: ast.UnaryOp) -> Expr:
        operand = node.operand
        # A negative literal is one constant in the IR; `ast` splits it into minus and a literal.
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant):
            value = operand.value
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return Const(-value, span=_span(node))
        return UnaryOp(_UNARYOPS[type(node.op)], self.expr(operand), span=_span(node))  # type: ignore[arg-type]

    def _compare(self, node: ast.Compare) -> Expr:
        op = _CMPOPS.get(type(node.ops[0]))
        if len(node.ops) != 1 or op is None:
            return self._opaque(node)
        return Compare(op, self.expr(node.left), self.expr(node.comparators[0]), span=_span(node))  # type: ignore[arg-type]

    def _boolop(self, node: ast.BoolOp) -> Expr:
        op: Literal["and", "or"] = "and" if isinstance(node.op, ast.And) else "or"
        return BoolOp(op, tuple(self.expr(v) for v in node.values), span=_span(node))

    def _call(self, node: ast.Call) -> Expr:
        # `f(*xs)` / `f(**kw)`: PyPTO's parser reads neither, and as an opaque value such a call
        # would hide a call or launch of the program's own functions (a Graph rewritten while
        # its hidden call site kept the old arguments)
        unpacked = next((a for a in node.args if isinstance(a, ast.Starred)), None)
        if unpacked is not None:
            raise self.error(
                f"a starred argument (`{ast.unparse(unpacked)}`) in a call: PyPTO reads none", unpacked
            )
        if (spread := next((k for k in node.keywords if k.arg is None), None)) is not None:
            raise self.error(
                f"a `**` argument (`**{ast.unparse(spread.value)}`) in a call: PyPTO reads none", spread
            )
        func = dotted_name(node.func)
        if func is None:
            return self._opaque(node)
        if func == f"{self.prefix}.const" and len(node.args) == 2 and not node.keywords:
            typed = self._typed_const(node)
            if typed is not None:
                return typed
        args = tuple(self.expr(a) for a in node.args)
        return Call(func, args, self._keywords(node), span=_span(node))

    def _typed_const(self, node: ast.Call) -> Const | None:
        value = self.expr(node.args[0])
        dtype = self._dtype(node.args[1])
        if (
            not isinstance(value, Const)
            or dtype is None
            or isinstance(value.value, (str, bool))
            or value.value is None
        ):
            return None
        return Const(value.value, dtype, span=_span(node))

    def _keywords(self, node: ast.Call) -> tuple[Keyword, ...]:
        return tuple(
            Keyword(k.arg, self.expr(k.value), span=_span(k)) for k in node.keywords if k.arg is not None
        )

    def _dict(self, node: ast.Dict) -> Expr:
        if any(k is None for k in node.keys):
            return self._opaque(node)
        keys = tuple(self.expr(k) for k in node.keys if k is not None)
        return DictExpr(keys, tuple(self.expr(v) for v in node.values), span=_span(node))

    def _subscript(self, node: ast.Subscript) -> Expr:
        if isinstance(node.slice, ast.Slice):
            return self._opaque(node)
        return Subscript(self.expr(node.value), self.expr(node.slice), span=_span(node))


def _module_names(module: ast.Module) -> frozenset[str]:
    """Every name the module binds outside class bodies (imports, dimensions, constants, and
    whatever an `if` or `try` at module level binds): taken wide, so that no name PyPTO's parser
    could resolve from the module is ever called unbound."""
    names: set[str] = set()
    stack: list[ast.AST] = list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)  # its body binds its own names, not the module's
        else:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            stack.extend(ast.iter_child_nodes(node))
    return frozenset(names)


_RefusalKind = Literal["jump", "async", "yield", "compile"]
_REFUSED_KINDS: tuple[tuple[str, _RefusalKind], ...] = (
    ("'break'", "jump"),
    ("'continue'", "jump"),
    ("'await'", "async"),
    ("asynchronous", "async"),
    ("'yield'", "yield"),
)


# the words without which no method holds a jump, an await or a yield: a text none of them
# appears in has no body to walk (a 5 MB dump's walk is seconds)
_REFUSED_WORDS = re.compile(r"\b(?:break|continue|await|yield)\b")


def _refusals(module: ast.Module, methods: list[_Method], text: str) -> tuple[Refusal, ...]:
    """What Python's compiler refuses in text `ast.parse` accepted, and the generator and
    coroutine forms it accepts in a function but PyPTO's parser does not: every `break` or
    `continue` outside a loop and every `await` / `yield` of a method body, then the compiler's
    own first refusal anywhere else (a `return` in the class body, a `nonlocal` without a
    binding, a repeated keyword...).  Compiled, never run; its warnings are not the user's report."""
    walked = methods if _REFUSED_WORDS.search(text) else []
    found = {(r.span.line, r.span.col): r for m in walked for r in _body_refusals(m)}
    for m in methods:
        if isinstance(m, ast.AsyncFunctionDef):
            line, col = m.lineno, m.col_offset + 1
            found[(line, col)] = Refusal(
                "coroutine",
                f"`async def {m.name}`: an `async def` is a coroutine, and PyPTO's parser reads only "
                f"a plain `def` as a function, so the program has no function `{m.name}`",
                Span(line, col, line, col),
            )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(module, "<input>", "exec", dont_inherit=True)
    except SyntaxError as err:
        line, col = err.lineno or 1, err.offset or 1
        kind: _RefusalKind = next(
            (k for prefix, k in _REFUSED_KINDS if err.msg.startswith(prefix)), "compile"
        )
        if not any(r.kind == kind and r.span.line == line for r in found.values()):  # said once per line
            found[(line, col)] = Refusal(kind, err.msg, Span(line, col, line, col))
    except (RecursionError, MemoryError, ValueError):
        pass  # the reader's own limits decide such a text; the compiler's verdict adds nothing
    return tuple(found[k] for k in sorted(found))


def _body_refusals(method: _Method) -> list[Refusal]:
    """Jumps outside a loop, awaits and yields in one method body (an explicit stack: nesting
    depth is the input's, not Python's recursion limit)."""
    out = []
    stack: list[tuple[ast.AST, bool]] = [(s, False) for s in reversed(method.body)]
    children: list[tuple[ast.AST, bool]]
    while stack:
        node, in_loop = stack.pop()
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            word = "break" if isinstance(node, ast.Break) else "continue"
            out.append(Refusal("jump", f"'{word}' outside loop", _span(node)))
        elif isinstance(node, ast.Await) and not isinstance(method, ast.AsyncFunctionDef):
            out.append(Refusal("async", "'await' outside async function", _span(node)))
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            out.append(Refusal("yield", "'yield' makes the function a generator", _span(node)))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue  # a scope of its own (and refused by the reader as a statement anyway)
        if isinstance(node, (ast.For, ast.While)):
            heads: list[ast.AST] = [node.test] if isinstance(node, ast.While) else [node.target, node.iter]
            children = [(c, in_loop) for c in heads]
            children += [(c, True) for c in node.body]
            children += [(c, in_loop) for c in node.orelse]
        else:
            children = [(c, in_loop) for c in ast.iter_child_nodes(node)]
        stack.extend(reversed(children))
    return out


def _describe(node: ast.AST) -> str:
    kinds = {
        ast.FunctionDef: "nested `def`",
        ast.ClassDef: "nested `class`",
        ast.Import: "`import`",
        ast.ImportFrom: "`import`",
        ast.Try: "`try`",
        ast.Assert: "`assert`",
        ast.Raise: "`raise`",
        ast.Delete: "`del`",
        ast.Global: "`global`",
        ast.Nonlocal: "`nonlocal`",
        ast.AugAssign: "augmented assignment",
        ast.AnnAssign: "annotation without a value",
        ast.Assign: "assignment to a non-name target",
        ast.For: "`for ... else`",
        ast.While: "`while ... else`",
        ast.With: "`with` of several items",
    }
    return kinds.get(type(node), type(node).__name__)
