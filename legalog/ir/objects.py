"""Read a PyPTO `ir.Program` object into the IR model: the second frontend, beside the text reader.

Inside PyPTO's pipeline the program is already objects; printing it with `python_print` and
reading the text back (`legalog.ir.parser`) was most of what legalog's passes cost there.  This
module walks the objects and builds the model the text reader builds from PyPTO's printing of
them (`format=False`): the same names, types, statements and decorator keywords, in the
printer's function order (callees first).  Spans are the nodes' own: where the user's DSL
source has the node (line and column), not a position in printed text.

It reads what PyPTO's printer prints plainly.  Wherever the printer has a special case this
module does not reproduce (a renamed variable, a tile view, a slotted MemRef, an SPMD scope, a
scope's task id, an op with sugar of its own...), it raises `Unsupported`, and the caller reads
the printed text instead: what the model holds never depends on how much of PyPTO this module
covers.

PyPTO is imported inside the functions: importing legalog never imports it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Iterable
from typing import Any

from legalog.ir.model import (
    NO_SPAN,
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
    OtherType,
    Param,
    Program,
    Return,
    ScalarType,
    Span,
    Stmt,
    Subscript,
    TensorType,
    TupleType,
    Type,
    UnaryOp,
    With,
)
from legalog.ir.parser import MAX_EXPR_DEPTH
from legalog.ir.patterns import DEFAULT_PREFIX

P = DEFAULT_PREFIX  # PyPTO prints with `import pypto.language as pl`
# Deeper than these, the text reader and Python's compiler have verdicts of their own (an
# expression nested too deep, "too many statically nested blocks" at 20): the text decides.
_MAX_DEPTH = MAX_EXPR_DEPTH // 2
_MAX_BLOCKS = 15


class Unsupported(Exception):
    """A node this frontend does not read as PyPTO's printer prints it: read the printed text."""


def read_program(program: Any, *, returns_only: Collection[str] = ()) -> Program:
    """The model of `program` (a `pypto.ir.Program`), as `legalog.ir.parser.parse` reads
    `python_print(program, format=False)`, spans aside.  Each function named in `returns_only`
    (kernels, of which the analysis reads no more) keeps only its top-level returns where it has
    one, as `legalog.pypto_objects.without_kernel_bodies` leaves its printed text.  Raises
    `Unsupported` where it does not know the printing."""
    if program.name == "":
        raise Unsupported("an unnamed program")
    functions = list(program.functions.values())  # each call of `functions` wraps every one anew
    dynamic, calls = _survey(functions)
    ordered = _printed_order({f.name: f for f in functions}, calls)
    read = [_function(f, f.name in returns_only, dynamic) for f in ordered]
    return Program(program.name, P, tuple(sorted(dynamic.values())), tuple(read))


def _survey(functions: list[Any]) -> tuple[dict[int, str], dict[str, list[str]]]:
    """One walk of every function: the printer's `pl.dynamic(...)` declarations
    (`CollectDynVarMapping`), each variable a dimension names (in the types of the parameters,
    the return types and the variables the body visits) that no function defines, by unique id
    -> its name; and the functions each function calls, by name (sorted)."""
    from pypto.pypto_core import ir

    survey = _surveyor()()
    defined: set[int] = set()
    calls: dict[str, list[str]] = {}
    for fn in functions:
        survey.callees = set()
        for param in fn.params:
            survey.visit_expr(param)
            defined.add(param.unique_id)
            view = getattr(param.type, "tensor_view", None)
            if view is not None and any(type(d).__name__ != "ConstInt" for d in view.valid_shape):
                raise Unsupported("a parameter's valid shape naming a variable")  # declared anyway
        for t in fn.return_types:
            _dims(t, survey.found, ir)
        body = fn.body
        if body is not None:
            survey.visit_stmt(body)
            _definitions(body, defined)
        calls[fn.name] = sorted(survey.callees)
    names: dict[str, int] = {}
    out: dict[int, str] = {}
    for uid, var in survey.found.items():
        if uid in defined:
            continue
        if names.setdefault(var.name_hint, uid) != uid:
            raise Unsupported(f"two dynamic dimensions named {var.name_hint}")  # renamed
        out[uid] = var.name_hint
    return out, calls


@functools.cache
def _surveyor() -> type:
    """The visitor of `_survey`, made once (a nanobind class per call costs more than a small
    function's walk): PyPTO's own `IRVisitor` walks the statements and expressions, and calls
    back for variables (`DynVarCollector`: a Var's own type, not the Vars it names), calls and
    launches."""
    from pypto.pypto_core import ir

    class Survey(ir.IRVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: dict[int, Any] = {}  # dimension variables, by unique id
            self.typed: set[int] = set()  # variables whose type is read: a variable's type is one
            self.callees: set[str] = set()  # of the function being walked

        def visit_var(self, op: Any) -> None:
            uid = op.unique_id
            if uid not in self.typed:
                self.typed.add(uid)
                _dims(op.type, self.found, ir)

        def visit_call(self, op: Any) -> None:
            callee = op.op
            if isinstance(callee, ir.GlobalVar):
                self.callees.add(callee.name)
            super().visit_call(op)

        def visit_submit(self, op: Any) -> None:
            callee = op.op
            if isinstance(callee, ir.GlobalVar):
                self.callees.add(callee.name)
            super().visit_submit(op)

    return Survey


def _dims(t: Any, found: dict[int, Any], ir: Any) -> None:
    """The variables `t`'s dimensions name (shape, and a view's valid shape, stride and offset)
    into `found`, by unique id."""
    kind = type(t).__name__
    if kind == "TupleType":
        for inner in t.types:
            _dims(inner, found, ir)
        return
    if kind not in ("TensorType", "TileType"):
        return
    parts = list(t.shape)
    view = t.tensor_view if kind == "TensorType" else t.tile_view
    if view is not None:
        parts += [*view.valid_shape, *view.stride]
        if kind == "TileType":
            parts.append(view.start_offset)
    for d in parts:
        _leaves(d, found, ir)


def _leaves(e: Any, found: dict[int, Any], ir: Any) -> None:
    kind = type(e).__name__
    if kind == "Var":  # `As<Var>` is the exact kind: an IterArg is not one
        found.setdefault(e.unique_id, e)
    elif kind == "ConstInt" or e is None:  # most dimensions
        return
    elif isinstance(e, ir.BinaryExpr):
        _leaves(e.left, found, ir)
        _leaves(e.right, found, ir)
    elif isinstance(e, ir.UnaryExpr):
        _leaves(e.operand, found, ir)


def _printed_order(by_name: dict[str, Any], calls: dict[str, list[str]]) -> list[Any]:
    """The printer's order: by name, each function after the functions it calls (a cycle: by
    name)."""
    out: list[str] = []
    done: set[str] = set()
    if not all(_after_callees(name, frozenset(), calls, done, out) for name in sorted(by_name)):
        out = sorted(by_name)
    return [by_name[name] for name in out]


def _after_callees(
    name: str, busy: frozenset[str], calls: dict[str, list[str]], done: set[str], out: list[str]
) -> bool:
    """`name` appended to `out` after each function it calls (of the program's); False on a
    cycle."""
    if name in done:
        return True
    if name in busy:
        return False
    if not all(_after_callees(c, busy | {name}, calls, done, out) for c in calls[name] if c in calls):
        return False
    done.add(name)
    out.append(name)
    return True


_SCOPES = frozenset(
    {
        "InCoreScopeStmt",
        "ClusterScopeStmt",
        "HierarchyScopeStmt",
        "SpmdScopeStmt",
        "SplitAivScopeStmt",
        "RuntimeScopeStmt",
    }
)
_LEAVES = frozenset({"EvalStmt", "ReturnStmt", "YieldStmt", "BreakStmt", "ContinueStmt"})


def _definitions(s: Any, out: set[int]) -> None:
    """The unique ids of the variables `s` defines as `VarDefUseCollector` counts them
    (assignments, loop variables, iter args, loop and branch results), walked in Python: a
    statement walk is a fraction of an `IRVisitor`'s, which calls into Python at every node."""
    kind = type(s).__name__
    if kind == "SeqStmts":
        for inner in s.stmts:
            _definitions(inner, out)
    elif kind == "AssignStmt":
        out.add(s.var.unique_id)
    elif kind in ("ForStmt", "WhileStmt"):
        loop = [s.loop_var] if kind == "ForStmt" else []
        out.update(v.unique_id for v in [*loop, *s.return_vars, *s.iter_args])
        _definitions(s.body, out)
    elif kind == "IfStmt":
        out.update(v.unique_id for v in s.return_vars)
        _definitions(s.then_body, out)
        if s.else_body is not None:
            _definitions(s.else_body, out)
    elif kind in _SCOPES:
        _definitions(s.body, out)
    elif kind not in _LEAVES:
        raise Unsupported(f"statement {kind}")


def _span(node: Any) -> Span:
    span = node.span
    if not span.is_valid():
        return NO_SPAN
    return Span(span.begin_line, span.begin_column, span.end_line, span.end_column)


# ----------------------------------------------------------------------------------- functions


def _function(fn: Any, returns_only: bool, dynamic: dict[int, str]) -> Function:
    from pypto.pypto_core import ir

    body = fn.body
    if fn.requires_runtime_binding or body is None:
        raise Unsupported("a function without a body")
    attrs = fn.attrs  # each read of a node's field converts it anew: read once
    if any(k != "split" or attrs[k] != 0 for k in attrs):
        raise Unsupported("function attributes")
    reader = _Reader(ir, fn, dynamic)
    role, func_type, level = fn.role, fn.func_type, fn.level
    decorator: list[Keyword] = []
    if func_type != ir.FunctionType.Opaque:
        decorator.append(Keyword("type", Dotted(f"{P}.FunctionType.{func_type.name}")))
    if level is not None:
        decorator.append(Keyword("level", Dotted(f"{P}.Level.{level.name}")))
    if role is not None:
        decorator.append(Keyword("role", Dotted(f"{P}.Role.{role.name}")))
    fn_params = fn.params
    for var in [*fn_params, *ir.collect_def_vars(body)]:  # defined anywhere, before or after a use
        reader.bind(var)
    params = tuple(reader.param(v, d) for v, d in zip(fn_params, fn.param_directions, strict=True))
    returns = tuple(reader.type(t, signature=True) for t in fn.return_types)
    read = reader.function_body(body, returns_only=returns_only)
    if reader.used - reader.defined:  # the printer marks a free variable `__FREE_VAR`
        raise Unsupported("a variable used and never defined")
    return Function(
        name=fn.name,
        decorator=tuple(decorator) if decorator else None,
        has_self=role != ir.Role.SubWorker,
        params=params,
        returns=returns or None,
        returns_tuple=len(returns) > 1,
        body=read,
        span=_span(fn),
    )


@functools.cache
def _dtype_names() -> dict[int, str]:
    """DataType code -> the name PyPTO prints (`FP32`, `INDEX`, ...)."""
    from pypto.pypto_core import DataType

    out: dict[int, str] = {}
    for name in dir(DataType):
        value = getattr(DataType, name)
        if isinstance(value, DataType) and not name.startswith("DEFAULT"):
            out.setdefault(value.code(), name)
    return out


def _dtype(dt: Any) -> str:
    found = _dtype_names().get(dt.code())
    if found is None:
        raise Unsupported(f"data type {dt}")
    return found


def _float(value: float) -> float:
    if not math.isfinite(value):
        raise Unsupported("a non-finite float")
    return value


# PyPTO op kinds printed with sugar of their own (python_printer.cpp, VisitExpr_(Call)), or whose
# int keywords print as enums: read from the text
_SPECIAL_OPS = frozenset(
    {
        "tensor.add",
        "tile.reinterpret_view",
        "tensor.reinterpret_view",
        "system.syncall",
        "tile.gather_row",
        "tensor.gather_row",
        "tile.mgather",
        "tile.aiv_shard",
        "tile.aic_gather",
        "tensor.aiv_shard",
        "tensor.aic_gather",
        "system.sync_set",
        "system.sync_wait",
    }
)
# Int keywords the printer prints as names (python_printer.cpp, the kwargs of VisitExpr_(Call);
# `pipe` only on the sync ops, which are read from the text): PipeType, CastModeToString,
# AtomicTypeToString, each by its value.
_PIPES = ("MTE1", "MTE2", "MTE3", "M", "V", "S", "FIX", "ALL")
_ENUM_KEYWORDS: dict[str, Callable[[int], Expr]] = {
    "set_pipe": lambda v: Dotted(f"{P}.PipeType.{_PIPES[v]}"),
    "wait_pipe": lambda v: Dotted(f"{P}.PipeType.{_PIPES[v]}"),
    "mode": lambda v: Const(("none", "rint", "round", "floor", "ceil", "trunc", "odd")[v]),
    "atomic": lambda v: Dotted(f"{P}.AtomicType.{('None_', 'Add')[v]}"),
}

_MEMREF = f"{P}.MemRef"
_LOOPS = {"Sequential": "range", "Parallel": "parallel", "Unroll": "unroll", "Pipeline": "pipeline"}

_BINARY = {
    "Add": "+",
    "Sub": "-",
    "Mul": "*",
    "FloorDiv": "//",
    "FloorMod": "%",
    "FloatDiv": "/",
    "Pow": "**",
    "BitAnd": "&",
    "BitOr": "|",
    "BitXor": "^",
    "BitShiftLeft": "<<",
    "BitShiftRight": ">>",
}
_COMPARE = {"Eq": "==", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">="}


class _Reader:
    """One function's reading: the names its variables print as."""

    def __init__(self, ir: Any, fn: Any, dynamic: dict[int, str]) -> None:
        self.ir = ir
        self.dynamic = dynamic  # the program's dynamic dimensions: unique id -> name
        self.names: dict[str, int] = {}  # printed name -> the variable's unique id
        self.params: set[int] = set()  # a MemRef base among them prints as a string
        self.defined: set[int] = set()  # parameters and variables the body binds
        self.used: set[int] = set()
        self.signature = True
        self.depth = 0  # of the expression being read
        # A Var is one object shared by its definition and every use, its span the definition's:
        # a use is placed at the statement that reads it, as the text reader places it on its line.
        self.reading = NO_SPAN
        self.blocks = 0  # statements the one being read is nested in
        self.loops = 0  # loops it is nested in (a jump outside one is refused by Python's compiler)
        self.typed_index = False  # inside a pure constant tree or a type's composite dimension

    # ------------------------------------------------------------------------------- names

    def name(self, var: Any) -> str:
        """The name `var` prints as; two variables of one name would be renamed by the printer."""
        name = var.name_hint
        uid = var.unique_id
        if self.names.setdefault(name, uid) != uid:
            raise Unsupported(f"two variables named {name}")
        return name

    def bind(self, var: Any) -> str:
        self.defined.add(var.unique_id)
        return self.name(var)

    def param(self, var: Any, direction: Any) -> Param:
        name = self.bind(var)
        self.params.add(var.unique_id)
        kind = direction.name
        if kind not in ("In", "Out", "InOut"):
            raise Unsupported(f"parameter direction {kind}")
        return Param(name, self.type(var.type, signature=True), kind, span=_span(var))

    # ------------------------------------------------------------------------------- types

    def type(self, t: Any, *, signature: bool = False) -> Type:
        ir = self.ir
        kind = type(t).__name__
        if kind == "ScalarType":
            return ScalarType(_dtype(t.dtype))
        if kind == "TensorType":
            # each read of a field converts it anew (a shape: every dimension): read once
            shape, view, memref = t.shape, t.tensor_view, t.memref
            extras: tuple[Expr, ...] = ()
            if view is not None:
                extras += (self.tensor_view(view, shape),)
            if memref is not None:
                extras += (self.memref(memref, signature),)
            return TensorType("Tensor", self.shape(shape), _dtype(t.dtype), extras)
        if kind == "TileType":
            if t.tile_view is not None:
                raise Unsupported("a tile view")
            memref, space = t.memref, t.memory_space
            tile_extras: list[Expr] = []
            if memref is not None:
                tile_extras.append(self.memref(memref, signature))
            if space is not None:
                tile_extras.append(Dotted(f"{P}.Mem.{space.name}"))
            return TensorType("Tile", self.shape(t.shape), _dtype(t.dtype), tuple(tile_extras))
        if kind == "TupleType":
            return TupleType(tuple(self.type(e, signature=signature) for e in t.types))
        if kind == "PtrType":
            return OtherType(Dotted(f"{P}.Ptr"))
        if kind == "ArrayType" and isinstance(t, ir.ArrayType) and len(t.shape) == 1:
            return ArrayType(self.shape(t.shape)[0], _dtype(t.dtype))
        raise Unsupported(f"type {kind}")

    def shape(self, dims: Iterable[Any]) -> tuple[Expr, ...]:
        out: list[Expr] = []
        for d in dims:
            kind = type(d).__name__
            if kind == "ConstInt":
                out.append(Const(int(d.value)))
            elif kind == "Var" and (d.unique_id in self.dynamic or d.unique_id in self.defined):
                out.append(Name(self.name(d)))
            else:  # composite shapes; a variable of another function's prints marked free
                raise Unsupported(f"a dimension {kind}")
        return tuple(out)

    def tensor_view(self, view: Any, shape: Any) -> Expr:
        """`PrintTensorView`: `pl.TensorView(valid_shape=..., stride=..., layout=..., pad=...)`,
        each part only where it is not the default (a view of defaults: `pl.TensorView()`)."""
        keywords: list[Keyword] = []
        valid, dims = self.shape(view.valid_shape), self.shape(shape)
        if valid and valid != dims:
            keywords.append(Keyword("valid_shape", ListExpr(valid)))
        layout, pad = view.layout.name, view.pad.name
        if keywords or view.stride or layout != "ND" or pad != "null":
            keywords.append(Keyword("stride", ListExpr(self.shape(view.stride))))
            keywords.append(Keyword("layout", Dotted(f"{P}.TensorLayout.{layout}")))
            if pad != "null":
                keywords.append(Keyword("pad", Dotted(f"{P}.PadValue.{pad}")))
        return Call(f"{P}.TensorView", (), tuple(keywords))

    def memref(self, m: Any, signature: bool) -> Expr:
        if m.slot_count_ > 1 or m.slot_index_ is not None:
            raise Unsupported("a slotted MemRef")
        base = m.base_
        name = self.name(base)
        if m.is_pinned_:  # the author's allocation: its name alone (`PrintMemRef`)
            return Call(_MEMREF, (Const(name),))
        uid = base.unique_id
        bare = not signature and uid in self.defined and uid not in self.params
        ref: Expr = Name(name) if bare else Const(name)
        return Call(_MEMREF, (ref, self.expr(m.byte_offset_), Const(int(m.size_))))

    # -------------------------------------------------------------------------- statements

    def function_body(self, body: Any, *, returns_only: bool = False) -> tuple[Stmt, ...]:
        """A function's statements; `returns_only`: only its top-level returns, where it has one
        (a kernel, of which the analysis reads no more), else all of them."""
        ir = self.ir
        stmts = list(body.stmts) if isinstance(body, ir.SeqStmts) else [body]
        returns = [s for s in stmts if isinstance(s, (ir.ReturnStmt, ir.YieldStmt))]
        if returns_only and returns:
            self.signature = False
            stmts = returns
        if not stmts:
            return (Jump("pass"),)
        out: list[Stmt] = []
        for s in stmts:
            if isinstance(s, ir.YieldStmt):  # a function's yield prints as its return
                span = self.reading = _span(s)
                out.append(Return(tuple(self.expr(v) for v in s.value), comments=self.comments(s), span=span))
            else:
                out.extend(self.block(s))
        return tuple(out)

    def comments(self, s: Any) -> tuple[str, ...]:
        lines = s.leading_comments
        return tuple(f"# {line}" for line in lines) if lines else ()

    def block(self, s: Any) -> list[Stmt]:
        """A statement as the printer's `PrintStmtBlock` prints it (a sequence flattened)."""
        if isinstance(s, self.ir.SeqStmts):
            return [x for inner in s.stmts for x in self.block(inner)]
        return [self.stmt(s)]

    def body(self, body: Any, return_vars: list[Any]) -> tuple[Stmt, ...]:
        """A loop's or branch's body (`VisitStmtBody`): its last yield assigns the results."""
        self.blocks += 1
        try:
            if self.blocks > _MAX_BLOCKS:
                raise Unsupported("statements nested deep")
            return self.nested_body(body, return_vars)
        finally:
            self.blocks -= 1

    def nested_body(self, body: Any, return_vars: list[Any]) -> tuple[Stmt, ...]:
        ir = self.ir
        if isinstance(body, ir.SeqStmts) and len(body.stmts) == 1:
            return self.body(body.stmts[0], return_vars)
        if isinstance(body, ir.YieldStmt):
            return (self.yield_(body, return_vars),)
        if isinstance(body, ir.SeqStmts):
            stmts = list(body.stmts)
            if not stmts:
                return (Jump("pass"),)
            out: list[Stmt] = []
            for i, s in enumerate(stmts):
                if isinstance(s, ir.YieldStmt):
                    out.append(self.yield_(s, return_vars if i == len(stmts) - 1 else []))
                else:
                    out.extend(self.block(s))
            return tuple(out)
        if isinstance(body, ir.RuntimeScopeStmt) and not body.manual:
            inner = self.body(body.body, return_vars)
            return (With(_scope(False), None, inner, comments=self.comments(body), span=_span(body)),)
        return tuple(self.block(body))

    def yield_(self, s: Any, return_vars: list[Any], span: Span | None = None) -> Stmt:
        """`pl.yield_(...)`, assigning `return_vars` where there are any; `span`: `s`'s, where
        read already."""
        span = self.reading = (
            _span(s) if span is None else span
        )  # a leaf: the statement around it restores its own
        values = tuple(self.expr(v) for v in s.value)
        call = Call(f"{P}.yield_", values, span=span)
        comments = self.comments(s)
        if not values or not return_vars:
            return ExprStmt(call, comments=comments, span=span)
        names = tuple(self.bind(v) for v in return_vars)
        typed = self.type(return_vars[0].type) if len(return_vars) == 1 else None
        return Assign(names, typed, call, comments=comments, span=span)

    def stmt(self, s: Any) -> Stmt:
        outer, self.reading = self.reading, _span(s)
        try:
            return self.statement(s, self.reading)
        finally:
            self.reading = outer

    def statement(self, s: Any, span: Span) -> Stmt:
        comments = self.comments(s)
        kind = type(s).__name__
        if kind == "AssignStmt":
            self.signature = False
            name = self.bind(s.var)
            value = self.expr(s.value)
            return Assign((name,), self.type(s.var.type), value, comments=comments, span=span)
        if kind == "EvalStmt":
            return ExprStmt(self.expr(s.expr), comments=comments, span=span)
        if kind == "ReturnStmt":
            return Return(tuple(self.expr(v) for v in s.value), comments=comments, span=span)
        if kind == "YieldStmt":
            return self.yield_(s, [], span)
        if kind == "ForStmt":
            return self.for_(s, comments, span)
        if kind == "IfStmt":
            cond = self.expr(s.condition)
            then = self.body(s.then_body, list(s.return_vars))
            orelse = self.body(s.else_body, list(s.return_vars)) if s.else_body is not None else ()
            return If(cond, then, orelse, comments=comments, span=span)
        if kind == "RuntimeScopeStmt":
            return With(_scope(s.manual), None, self.scope_body(s), comments=comments, span=span)
        if kind == "InCoreScopeStmt":
            return self.at(s, [Keyword("level", Dotted(f"{P}.Level.CORE_GROUP")), *self.optimizations(s)])
        if kind == "HierarchyScopeStmt":
            keywords = [Keyword("level", Dotted(f"{P}.Level.{s.level.name}"))]
            if s.role is not None:
                keywords.append(Keyword("role", Dotted(f"{P}.Role.{s.role.name}")))
            return self.at(s, keywords)
        if kind in ("BreakStmt", "ContinueStmt") and not self.loops:
            raise Unsupported("a jump outside a loop")
        if kind == "BreakStmt":
            return Jump("break", comments=comments, span=span)
        if kind == "ContinueStmt":
            return Jump("continue", comments=comments, span=span)
        raise Unsupported(f"statement {kind}")

    def scope_body(self, s: Any) -> tuple[Stmt, ...]:
        """A scope's body, printed as a block: no yield in it becomes an assignment."""
        self.blocks += 1
        try:
            if self.blocks > _MAX_BLOCKS:
                raise Unsupported("statements nested deep")
            return tuple(self.block(s.body))
        finally:
            self.blocks -= 1

    def at(self, s: Any, keywords: list[Keyword]) -> Stmt:
        """`with pl.at(level=..., ...):`, an InCore or hierarchy scope: its name and the attributes
        the printer writes as keywords, in its order (`PrintScope...Attr`)."""
        attrs = dict(s.attrs)
        if "task_id_var" in attrs:  # `as tid`, and the placeholder before it left unprinted
            raise Unsupported("a scope with a task id")
        if s.name_hint:
            keywords.append(Keyword("name_hint", Const(_unescaped(s.name_hint))))
        for key, keyword in (
            ("manual_dep_edges", "deps"),
            ("arg_direction_overrides_vars", "no_dep_args"),
            ("dump_vars", "dumps"),
        ):
            value = attrs.get(key, [])
            if not isinstance(value, list):  # no list of Vars: the printer skips it
                raise Unsupported(f"scope attribute {key}")
            listed = [v for v in value if v is not None]
            if not all(isinstance(v, self.ir.Var) for v in listed):
                raise Unsupported(f"scope attribute {key}")
            if listed:
                keywords.append(Keyword(keyword, ListExpr(tuple(self.var(v) for v in listed))))
        for flag in ("allow_early_resolve", "windowize"):
            value = attrs.get(flag, False)
            if not isinstance(value, bool):
                raise Unsupported(f"scope attribute {flag}")
            if value:
                keywords.append(Keyword(flag, Const(True)))
        call = Call(f"{P}.at", (), tuple(keywords))
        return With(call, None, self.scope_body(s), comments=self.comments(s), span=_span(s))

    def optimizations(self, s: Any) -> tuple[Keyword, ...]:
        """An InCore scope's `optimizations=[pl.split(...), pl.cross_core_slot(slot_num=n)]`."""
        found: list[Expr] = []
        split = s.split
        if split is not None and split.name != "NONE":
            found.append(Call(f"{P}.split", (Dotted(f"{P}.SplitMode.{split.name}"),)))
        attrs = dict(s.attrs)
        if "slot_num" in attrs:
            slots = attrs["slot_num"]
            if not isinstance(slots, int) or isinstance(slots, bool):
                raise Unsupported("scope attribute slot_num")
            found.append(Call(f"{P}.cross_core_slot", (), (Keyword("slot_num", Const(slots)),)))
        return (Keyword("optimizations", ListExpr(tuple(found))),) if found else ()

    def for_(self, s: Any, comments: tuple[str, ...], span: Span) -> Stmt:
        kind = s.kind.name
        if kind not in _LOOPS:
            raise Unsupported(f"a {kind} loop")
        attrs = dict(s.attrs)
        index = self.bind(s.loop_var)
        iter_args = list(s.iter_args)
        carried = tuple(self.bind(a) for a in iter_args)
        start, stop, step = s.start, s.stop, s.step
        bounds: list[Expr]
        if _index_const(start, 0) and _index_const(step, 1):
            bounds = [self.expr(stop)]
        elif _index_const(step, 1):
            bounds = [self.expr(start), self.expr(stop)]
        else:
            bounds = [self.expr(start), self.expr(stop), self.expr(step)]
        keywords: list[Keyword] = []
        if kind == "Pipeline":  # its stages print as `stage=`, not among the attributes
            stages = attrs.pop("pipeline_stages", None)
            if not isinstance(stages, int) or isinstance(stages, bool):
                raise Unsupported("a pipelined loop's stages")
            keywords.append(Keyword("stage", Const(stages)))
        if iter_args:
            from legalog.ir.model import TupleExpr

            inits = TupleExpr(tuple(self.expr(a.initValue) for a in iter_args))
            keywords.append(Keyword("init_values", inits))
        if attrs:  # `attrs={...}`: only scalars print there
            if not all(isinstance(v, (bool, int, float, str)) for v in attrs.values()):
                raise Unsupported(f"loop attributes {sorted(attrs)}")
            keys = tuple(Const(_printable(k)) for k in attrs)
            values = tuple(self.attr_literal(v) for v in attrs.values())
            keywords.append(Keyword("attrs", DictExpr(keys, values)))
        iterable = Call(f"{P}.{_LOOPS[kind]}", tuple(bounds), tuple(keywords))
        self.loops += 1
        try:
            body = self.body(s.body, list(s.return_vars))
        finally:
            self.loops -= 1
        return For(index, carried, bool(iter_args), iterable, body, comments=comments, span=span)

    # ------------------------------------------------------------------------- expressions

    def expr(self, e: Any) -> Expr:
        reader = _EXPRS.get(type(e).__name__)
        if reader is None:
            raise Unsupported(f"expression {type(e).__name__}")
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH:
                raise Unsupported("an expression nested deep")
            return reader(self, e)
        finally:
            self.depth -= 1

    def var(self, e: Any) -> Expr:
        if e.unique_id not in self.dynamic:  # a dynamic dimension is the program's: never free
            self.used.add(e.unique_id)
        return Name(self.name(e), span=self.reading)

    def const_int(self, e: Any) -> Expr:
        dtype = _dtype(e.dtype)
        value = int(e.value)
        if dtype == "INDEX" and not self.typed_index:
            return Const(value, span=_span(e))
        return Const(value, dtype, span=_span(e))

    def const_float(self, e: Any) -> Expr:
        from pypto.pypto_core import DataType

        value = _float(float(e.value))
        if e.dtype.code() == DataType.DEFAULT_CONST_FLOAT.code():
            return Const(value, span=_span(e))
        return Const(value, _dtype(e.dtype), span=_span(e))

    def cast(self, e: Any) -> Expr:
        if type(e.type).__name__ != "ScalarType":
            raise Unsupported("a cast to a non-scalar type")
        target = Dotted(f"{P}.{_dtype(e.type.dtype)}")
        return Call(f"{P}.cast", (self.expr(e.operand), target), span=_span(e))

    def neg(self, e: Any) -> Expr:
        operand = self.expr(e.operand)
        if isinstance(operand, Const) and operand.dtype is None and isinstance(operand.value, (int, float)):
            return Const(-operand.value, span=_span(e))
        return UnaryOp("-", operand, span=_span(e))

    def binary(self, e: Any, op: Any) -> Expr:
        with self.pure_constants(e):
            return BinOp(op, self.expr(e.left), self.expr(e.right), span=_span(e))

    def compare(self, e: Any, op: Any) -> Expr:
        with self.pure_constants(e):
            return Compare(op, self.expr(e.left), self.expr(e.right), span=_span(e))

    def bool_op(self, op: Any, e: Any) -> Expr:
        with self.pure_constants(e):
            return BoolOp(op, (self.expr(e.left), self.expr(e.right)), span=_span(e))

    def pure_constants(self, e: Any) -> _Typed:
        """`PrintBinaryOp`: a tree of integer constants only prints them typed."""
        return _Typed(self, self.typed_index or _const_tree(e))

    def function_op(self, name: str, e: Any) -> Expr:
        return Call(f"{P}.{name}", (self.expr(e.left), self.expr(e.right)), span=_span(e))

    def call(self, e: Any) -> Expr:
        ir = self.ir
        op = e.op
        args = tuple(self.expr(a) for a in e.args)
        if isinstance(op, ir.GlobalVar):
            return Call(f"self.{op.name}", args, self.call_attrs(e), span=_span(e))
        name = op.name
        if name in ("tile.full", "tensor.full") and len(e.args) >= 2 and not e.attrs:
            return self.full(name, e)
        deps: tuple[Keyword, ...] = ()
        if name == "system.task_dummy":
            deps, attrs = self.task_deps(e)
        else:
            attrs = dict(e.attrs)
        if "." not in name or name in _SPECIAL_OPS or name.startswith("pld.") or attrs:
            raise Unsupported(f"op {name}")
        if name.rsplit(".", 1)[-1] in ("and", "or", "not", "xor"):
            raise Unsupported(f"op {name}")
        if name in ("tile.alloc", "tensor.alloc") and e.args and type(e.args[0]).__name__ == "ConstInt":
            space = ir.MemorySpace(int(e.args[0].value))
            args = (Dotted(f"{P}.Mem.{space.name}"), *args[1:])
        keywords = tuple(Keyword(k, self.attr_value(k, v)) for k, v in e.kwargs.items())
        return Call(f"{P}.{name}", args, deps + keywords, span=_span(e))

    def task_deps(self, e: Any) -> tuple[tuple[Keyword, ...], dict[str, Any]]:
        """`system.task_dummy`: its manual dependency edges print as `deps=[...]` (always), and
        its `dummy_task` attribute not at all; the attributes left."""
        attrs = dict(e.attrs)
        edges = attrs.pop("manual_dep_edges", None) or []
        attrs.pop("dummy_task", None)
        return (Keyword("deps", ListExpr(tuple(self.var(v) for v in edges if v is not None))),), attrs

    def full(self, name: str, e: Any) -> Expr:
        """`pl.tensor.full(shape, dtype=pl.DT, value=v)`: a constant value prints bare."""
        shape, value = e.args[0], e.args[1]
        keywords: list[Keyword] = []
        if "dtype" in e.kwargs:
            keywords.append(Keyword("dtype", Dotted(f"{P}.{_dtype(e.kwargs['dtype'])}")))
        kind = type(value).__name__
        if kind == "ConstFloat":
            printed: Expr = Const(_float(float(value.value)), span=_span(value))
        elif kind == "ConstInt":
            printed = Const(int(value.value), span=_span(value))
        else:
            printed = self.expr(value)
        keywords.append(Keyword("value", printed))
        return Call(f"{P}.{name}", (self.expr(shape),), tuple(keywords), span=_span(e))

    def submit(self, e: Any) -> Expr:
        """`pl.submit(self.k, ...)` / `pl.spmd_submit(self.k, ..., core_num=n)`."""
        if not isinstance(e.op, self.ir.GlobalVar) or e.kwargs:
            raise Unsupported("a launch of an op")
        args = (Dotted(f"self.{e.op.name}"), *(self.expr(a) for a in e.args))
        keywords: list[Keyword] = []
        if e.deps:
            keywords.append(Keyword("deps", ListExpr(tuple(self.expr(d) for d in e.deps))))
        if e.core_num is not None:
            keywords.append(Keyword("core_num", self.expr(e.core_num)))
            if e.sync_start:
                keywords.append(Keyword("sync_start", Const(True)))
        if e.allow_early_resolve:
            keywords.append(Keyword("allow_early_resolve", Const(True)))
        if e.predicate is not None:
            keywords.append(Keyword("predicate", self.expr(e.predicate)))
        keywords.extend(self.call_attrs(e))
        func = f"{P}.spmd_submit" if e.core_num is not None else f"{P}.submit"
        return Call(func, args, tuple(keywords), span=_span(e))

    def call_attrs(self, e: Any) -> tuple[Keyword, ...]:
        """A call's or launch's `attrs={...}`: `arg_directions` first, then every other attribute
        in its order (`PrintAttrValue`); `device` and `dump_vars` print as keywords of their own."""
        attrs = dict(e.attrs)
        if attrs.keys() & {"device", "dump_vars"}:
            raise Unsupported(f"call attributes {sorted(attrs)}")
        keys: list[Expr] = []
        values: list[Expr] = []
        directions = attrs.pop("arg_directions", None)
        if directions:
            keys.append(Const("arg_directions"))
            values.append(self.attr_literal(directions))
        for key, value in attrs.items():
            keys.append(Const(_printable(key)))
            values.append(self.attr_literal(value))
        return (Keyword("attrs", DictExpr(tuple(keys), tuple(values))),) if keys else ()

    def attr_literal(self, value: Any) -> Expr:
        """`PrintAttrValue`: an attribute's value as the printer writes it in `attrs={...}`."""
        paths = _enum_paths().get(type(value))  # an enum (none is a number, string or list)
        if paths is not None:
            return Dotted(paths[value])
        if isinstance(value, (bool, int)):
            return Const(value)
        if isinstance(value, float):
            return Const(_float(value))
        if isinstance(value, str):
            return Const(_printable(value))
        if isinstance(value, list):
            return ListExpr(tuple(self.attr_literal(v) for v in value))
        from pypto.pypto_core import DataType

        if isinstance(value, DataType):
            return Dotted(f"{P}.{_dtype(value)}")
        if isinstance(value, self.ir.Expr):
            return self.expr(value)
        raise Unsupported(f"an attribute of {type(value).__name__}")

    def attr_value(self, key: str, value: Any) -> Expr:
        """An op keyword's value: as an attribute's, but for the int keywords the printer names, and
        a string quoted as it is, unescaped; no lists, directions or expressions."""
        if isinstance(value, int) and not isinstance(value, bool) and key in _ENUM_KEYWORDS:
            if value < 0:  # the printer throws where the value is no name
                raise Unsupported(f"keyword {key}={value}")
            try:
                return _ENUM_KEYWORDS[key](value)
            except IndexError:
                raise Unsupported(f"keyword {key}={value}") from None
        if isinstance(value, str) and ("'" in value or "\\" in value):
            raise Unsupported(f"keyword {key}: a string with a quote or backslash")
        if isinstance(value, (list, self.ir.ArgDirection, self.ir.Expr)):
            raise Unsupported(f"keyword {key} of {type(value).__name__}")
        return self.attr_literal(value)


# Each expression kind's reading (the class of the PyPTO node, by name): one table for all readers
_EXPRS: dict[str, Callable[[_Reader, Any], Expr]] = {
    "Var": _Reader.var,
    "IterArg": _Reader.var,
    "ConstInt": _Reader.const_int,
    "ConstFloat": _Reader.const_float,
    "ConstBool": lambda r, e: Const(bool(e.value), span=_span(e)),
    "Call": _Reader.call,
    "Submit": _Reader.submit,
    "MakeTuple": lambda r, e: ListExpr(tuple(r.expr(x) for x in e.elements), span=_span(e)),
    "TupleGetItemExpr": lambda r, e: Subscript(r.expr(e.tuple), Const(e.index), span=_span(e)),
    "Neg": _Reader.neg,
    "Not": lambda r, e: UnaryOp("not", r.expr(e.operand), span=_span(e)),
    "BitNot": lambda r, e: UnaryOp("~", r.expr(e.operand), span=_span(e)),
    "Abs": lambda r, e: Call("abs", (r.expr(e.operand),), span=_span(e)),
    "Cast": _Reader.cast,
    "Min": lambda r, e: r.function_op("min", e),
    "Max": lambda r, e: r.function_op("max", e),
    "And": lambda r, e: r.bool_op("and", e),
    "Or": lambda r, e: r.bool_op("or", e),
    **{kind: functools.partial(_Reader.binary, op=op) for kind, op in _BINARY.items()},
    **{kind: functools.partial(_Reader.compare, op=op) for kind, op in _COMPARE.items()},
}


_ADIR = {
    "Input": "input",
    "Output": "output",
    "OutputExisting": "output_existing",
    "InOut": "inout",
    "NoDep": "no_dep",
    "Scalar": "scalar",
}


@functools.cache
def _enum_paths() -> dict[type, dict[Any, str]]:
    """`PrintAttrValue`'s enums: each kind -> each of its values -> the path the printer writes."""
    from pypto.pypto_core import ir

    out: dict[type, dict[Any, str]] = {ir.ArgDirection: {}, ir.MemorySpace: {}}
    for d in ir.ArgDirection:
        if d.name in _ADIR:  # a direction without a keyword: reading it raises KeyError
            out[ir.ArgDirection][d] = f"{P}.adir.{_ADIR[d.name]}"
    for space in ir.MemorySpace:
        out[ir.MemorySpace][space] = f"{P}.Mem.{space.name}"
    for name in ("TensorLayout", "TileLayout", "PadValue"):
        enum = getattr(ir, name)
        out[enum] = {v: f"{P}.{name}.{v.name}" for v in enum}
    return out


class _Typed:
    """Within: integer constants print typed (`pl.const(v, pl.INDEX)`)."""

    def __init__(self, reader: _Reader, typed: bool) -> None:
        self.reader, self.typed = reader, typed

    def __enter__(self) -> None:
        self.saved = self.reader.typed_index
        self.reader.typed_index = self.typed

    def __exit__(self, *_: object) -> None:
        self.reader.typed_index = self.saved


def _scope(manual: bool) -> Call:
    """`with pl.scope():` / `with pl.scope(mode=pl.ScopeMode.MANUAL):`"""
    mode = (Keyword("mode", Dotted(f"{P}.ScopeMode.MANUAL")),) if manual else ()
    return Call(f"{P}.scope", (), mode)


def _printable(text: str) -> str:
    """A string the printer quotes as Python reads it back: printable characters only (it escapes
    just quotes and backslashes)."""
    if not text.isprintable():
        raise Unsupported("a string with unprintable characters")
    return text


def _unescaped(text: str) -> str:
    """A string the printer writes between double quotes as it is: none it would need to escape."""
    if '"' in text or "\\" in text:
        raise Unsupported("a name with a quote or backslash")
    return _printable(text)


def _index_const(e: Any, value: int) -> bool:
    return type(e).__name__ == "ConstInt" and int(e.value) == value and _dtype(e.dtype) == "INDEX"


def _const_tree(e: Any) -> bool:
    """`IsPureConstIntTree`: only integer constants under binary operators."""
    kind = type(e).__name__
    if kind == "ConstInt":
        return True
    if kind in _BINARY or kind in _COMPARE or kind in ("Min", "Max", "And", "Or"):
        return _const_tree(e.left) and _const_tree(e.right)
    return False
