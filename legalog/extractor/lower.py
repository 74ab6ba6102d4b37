"""Lower a Program into relational facts (legalog/facts/schema.py).

Only what the two passes read is lowered: orchestration-level bodies (Graph, Orchestration,
Opaque, Inline) in full; kernels and Spmd wrappers (InCore, AIC, AIV, Group, Spmd) by signature
and return statement, which is all return lineage needs.  Fact sets stay small that way, and
pyDatalog's cost grows faster than linearly with them (PYDATALOG.md §4.3).

The extractor decides nothing: it records what the text says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from legalog.collector import bulk_allocation
from legalog.facts.ids import var_id
from legalog.facts.limits import LIMITS
from legalog.facts.store import FactStore, Row
from legalog.ir.fold import fold_constant, int_literal
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
    ListExpr,
    Name,
    Opaque,
    OtherType,
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
from legalog.ir.patterns import (
    LOOP_KINDS,
    call_target,
    dsl_op,
    group_call,
    is_yield,
    loop_kind,
    scalar_builtin,
    scope_kind,
)
from legalog.ir.transform import expr_names, names_in

FULL_BODY_KINDS = frozenset({"Graph", "Orchestration", "Opaque", "Inline"})


@dataclass
class Lowering:
    """The facts of one program, and the way back from every id to the node it names."""

    facts: FactStore
    exprs: dict[str, Expr] = field(default_factory=dict)
    stmts: dict[str, Stmt] = field(default_factory=dict)


def lower(program: Program, runtime: str = "host_build_graph") -> Lowering:
    with bulk_allocation():  # rows and id maps that all stay alive: nothing for the collector
        return _lower(program, runtime)


def _lower(program: Program, runtime: str) -> Lowering:
    lowering = Lowering(FactStore())
    lowering.facts.add("target_runtime", runtime)
    for name, value in LIMITS.items():
        lowering.facts.add("runtime_limit", name, value)
    # the rows checked together when the batch ends, each relation's for every function at
    # once, not one call at a time
    with lowering.facts.batch() as add:
        rows = _Rows._make(map(lowering.facts.appender, _Rows._fields))
        for function in program.functions:
            _FunctionLowering(program, function, lowering, add, rows).run()
    return lowering


class _Rows(NamedTuple):
    """The relations nearly every node adds to, appended to without `add`'s call a row."""

    in_stmt: Callable[[Row], None]
    expr: Callable[[Row], None]
    ref: Callable[[Row], None]
    operand: Callable[[Row], None]
    const_int: Callable[[Row], None]
    stmt: Callable[[Row], None]
    in_list: Callable[[Row], None]
    var_class: Callable[[Row], None]
    var_dtype: Callable[[Row], None]


# by exact class (the model's classes are final): every parameter and binding is declared
_TYPE_CLASSES = {ScalarType: "scalar", ArrayType: "array", TupleType: "tuple"}


def type_class(t: Type) -> str:
    if type(t) is TensorType:
        return "tensor" if t.kind == "Tensor" else "tile"
    return _TYPE_CLASSES.get(type(t), "other")


def type_dtype(t: Type) -> str | None:
    return t.dtype if type(t) is TensorType or type(t) is ScalarType or type(t) is ArrayType else None


def type_names(t: Type) -> set[str]:
    """Variables an annotation mentions (shape dims, MemRef offsets, valid shapes)."""
    match t:
        case TensorType(shape=shape, extras=extras):
            return names_in((*shape, *extras))
        case ArrayType(size=size):
            return expr_names(size)
        case TupleType(elts=elts):
            return set().union(*(type_names(e) for e in elts))
        case OtherType(expr=expr):
            return expr_names(expr)
    return set()


def loop_bounds(call: Call) -> tuple[Expr, Expr, Expr] | None:
    """(start, stop, step) of `pl.range(stop)`, `pl.range(start, stop)`, `pl.range(a, b, c)`."""
    args = call.args
    match len(args):
        case 1:
            return Const(0), args[0], Const(1)
        case 2:
            return args[0], args[1], Const(1)
        case 3:
            return args[0], args[1], args[2]
    return None


def trip_count(start: int, stop: int, step: int) -> int | None:
    if step == 0:
        return None
    return max(0, -((start - stop) // step)) if step > 0 else max(0, -((stop - start) // -step))


class _FunctionLowering:
    def __init__(
        self,
        program: Program,
        function: Function,
        lowering: Lowering,
        add: Callable[..., None],
        rows: _Rows,
    ) -> None:
        """`add` and `rows` are the open batch's of `lowering.facts`."""
        self.program = program
        self.fn = function
        self.pl = program.prefix
        self.n_expr = 0
        self.n_stmt = 0
        self.bound: set[str] = set()
        self.used: set[str] = set()
        self.list_counter: dict[str, int] = {}
        self.vids = _VarIds(function.name)
        self.add = add
        self.in_stmt, self.expr_row, self.ref, self.operand = rows.in_stmt, rows.expr, rows.ref, rows.operand
        self.const_int, self.stmt_row, self.in_list = rows.const_int, rows.stmt, rows.in_list
        self.var_class, self.var_dtype = rows.var_class, rows.var_dtype
        self.exprs, self.stmts = lowering.exprs, lowering.stmts
        self.e_prefix, self.s_prefix = f"{function.name}/e", f"{function.name}/s"

    def run(self) -> None:
        fn, add = self.fn, self.add
        add("function", fn.name, fn.type)
        for pos, p in enumerate(fn.params):
            vid = self.vids[p.name]
            self.bound.add(p.name)
            add("param", fn.name, pos, vid)
            add("param_dir", vid, p.direction)
            self._declare(vid, p.type)
        if fn.type in FULL_BODY_KINDS:
            body = f"{fn.name}/body"
            add("function_body", body, fn.name)
            self.block(fn.body, None, body)
            for name in sorted(self.used - self.bound):
                add("free_var", self.vids[name])
                if name in self.program.dynamic_dims:
                    add("dynamic_dim", self.vids[name])
        else:
            for stmt in _returns(fn.body):
                self.stmt(stmt, None, f"{fn.name}/body")

    def _declare(self, vid: str, t: Type) -> None:
        self.var_class((vid, type_class(t)))
        if (dtype := type_dtype(t)) is not None:
            self.var_dtype((vid, dtype))

    # ------------------------------------------------------------------------- statements

    def block(self, body: tuple[Stmt, ...], parent: str | None, list_id: str) -> None:
        if parent is not None:
            self.add("list_owner", list_id, parent)
        for stmt in body:
            self.stmt(stmt, parent, list_id)

    def stmt(self, stmt: Stmt, parent: str | None, list_id: str) -> str:
        sid = f"{self.s_prefix}{self.n_stmt}"
        self.n_stmt += 1
        self.stmts[sid] = stmt
        add = self.add
        self.stmt_row((sid, self.fn.name, _STMT_KINDS[type(stmt)]))
        if parent is not None:
            add("stmt_parent", sid, parent)
        position = self.list_counter.get(list_id, 0)
        self.list_counter[list_id] = position + 1
        self.in_list((sid, list_id, position))
        match stmt:
            case Assign():
                self._assign(stmt, sid)
            case ExprStmt(value=Call(func=func, args=(cond,))) if dsl_op(func, self.pl) == "cond":
                # `pl.cond(c)` heading an SSA while body is the loop's condition, not a call:
                # PyPTO keeps it on the WhileStmt, so nothing here is a call argument.
                add("stmt_expr", sid, self.expr(cond, sid))
            case ExprStmt(value=value):
                add("stmt_expr", sid, self.expr(value, sid))
            case For():
                self._for(stmt, sid)
            case While(cond=cond, body=body):
                add("while_loop", sid)
                add("stmt_expr", sid, self.expr(cond, sid))
                self.block(body, sid, f"{sid}/body")
            case If(cond=cond, body=body, orelse=orelse):
                add("branch", sid, self.expr(cond, sid))
                add("branch_arm", f"{sid}/body", sid, "then")
                add("branch_arm", f"{sid}/else", sid, "else")
                self.block(body, sid, f"{sid}/body")
                self.block(orelse, sid, f"{sid}/else")
            case With(context=context, as_name=as_name, body=body):
                add("scope", sid, scope_kind(stmt, self.pl))
                add("stmt_expr", sid, self.expr(context, sid))
                if as_name is not None:
                    self.bound.add(as_name)
                    add("scope_as", sid, self.vids[as_name])
                    add("var_class", self.vids[as_name], "scalar")
                    add("var_dtype", self.vids[as_name], "TASK_ID")
                self.block(body, sid, f"{sid}/body")
            case Return(values=values):
                for pos, value in enumerate(values):
                    add("returns", self.fn.name, pos, self.expr(value, sid))
            case Jump():
                pass
        return sid

    def _assign(self, stmt: Assign, sid: str) -> None:
        add = self.add
        value = stmt.value
        yields = is_yield(value, self.pl)
        if stmt.type is not None:
            for name in sorted(type_names(stmt.type)):
                self.used.add(name)
                add("type_use", sid, self.vids[name])
        for name in stmt.targets:
            self.bound.add(name)
        if stmt.type is None:
            add("unannotated", sid)
            for name, t in zip(stmt.targets, self._launch_types(value, len(stmt.targets))):
                self._declare(self.vids[name], t)
        if yields or len(stmt.targets) != 1:
            # no `assign` row says what these bind: a yield binds its targets to the values it
            # hands on (`carried`), a tuple target the elements of its value
            for pos, name in enumerate(stmt.targets):
                add("target", sid, pos, self.vids[name])
        if yields:
            assert isinstance(value, Call)
            for name, arg in zip(stmt.targets, value.args):
                add("carried", self.vids[name], self.expr(arg, sid))
            if stmt.type is not None and len(stmt.targets) == 1:
                self._declare(self.vids[stmt.targets[0]], stmt.type)
            return
        root = self.expr(value, sid)
        if len(stmt.targets) == 1:
            vid = self.vids[stmt.targets[0]]
            add("assign", sid, vid, root)
            if stmt.targets[0].startswith("gm_pipe_buffer_"):
                add("gm_pipe_var", vid)
            if stmt.type is not None:
                self._declare(vid, stmt.type)
                # Only a view's extent is ever judged (GB120): other annotations stay unlowered.
                if isinstance(stmt.type, TensorType) and stmt.type.kind == "Tensor" and self._is_view(value):
                    for i, dim in enumerate(stmt.type.shape):
                        add("result_dim", vid, i, self.expr(dim, sid))
        else:
            add("stmt_expr", sid, root)

    def _launch_types(self, value: Expr, targets: int) -> tuple[Type, ...]:
        """The types PyPTO gives what an unannotated launch binds: the callee's return types (a
        tuple of them for one name), and for a submit a TaskId after them.  Nothing for any
        other value, or a callee without a signature here."""
        target = call_target(value, self.pl) if isinstance(value, Call) else None
        callee = self.program.function(target.callee) if target is not None else None
        if target is None or callee is None or callee.returns is None:
            return ()
        results = callee.returns + ((ScalarType("TASK_ID"),) if target.form != "call" else ())
        if targets == 1 and len(results) != 1:
            return (TupleType(results),)
        return results if len(results) == targets else ()

    def _for(self, stmt: For, sid: str) -> None:
        add = self.add
        iterable = stmt.iterable
        kind = loop_kind(iterable, self.pl) or ""
        whole = False  # the whole header lowered as one expression
        for pos, name in enumerate(stmt.iter_args):
            self.bound.add(name)
            add("target", sid, pos, self.vids[name])
        if isinstance(iterable, Call):
            init = iterable.kwarg("init_values")
            # printed as a tuple (IR_FORMAT.md); a list spells the same initial values
            inits = init.elts if isinstance(init, (TupleExpr, ListExpr)) else ()
            for name, init_expr in zip(stmt.iter_args, inits):
                add("carried", self.vids[name], self.expr(init_expr, sid))
        if kind == "while_" or stmt.index is None:
            add("while_loop", sid)
        else:
            self.bound.add(stmt.index)
            iv = self.vids[stmt.index]
            add("loop", sid, iv)
            add("var_class", iv, "scalar")
            add("var_dtype", iv, "INDEX")
            bounds = loop_bounds(iterable) if isinstance(iterable, Call) and kind in LOOP_KINDS else None
            if bounds is not None:
                for role, bound in zip(("start", "stop", "step"), bounds):
                    add("loop_bound", sid, role, self.expr(bound, sid))
                # The bounds PyPTO's parser folds to a ConstInt (`1 + 1` as `2`), as its pass sees them.
                ints = [fold_constant(b, self.pl, literals_only=True) for b in bounds]
                if None not in ints and (trip := trip_count(*ints)) is not None:  # type: ignore[arg-type]
                    add("loop_trip", sid, trip)
            elif isinstance(iterable, Call):
                add("stmt_expr", sid, self.expr(iterable, sid))
                whole = True
        if not whole:
            self._header_uses(iterable, sid)
        self.block(stmt.body, sid, f"{sid}/body")
        # The value a body yields flows back into the iteration arguments on the next trip.
        last = stmt.body[-1] if stmt.body else None
        if (
            stmt.iter_args
            and isinstance(last, Assign)
            and isinstance(last.value, Call)
            and is_yield(last.value, self.pl)
        ):
            for name, yielded in zip(stmt.iter_args, last.value.args):
                if isinstance(yielded, Name):
                    back = self.expr(yielded, sid)
                    add("carried", self.vids[name], back)
                    add("carried_back", self.vids[name], back)

    def _header_uses(self, iterable: Expr, sid: str) -> None:
        """What a loop header reads beyond its bounds and initial values (`attrs=...`, the `xs` of
        `for x in xs`): uses of those names too."""
        if not isinstance(iterable, Call):
            self.add("stmt_expr", sid, self.expr(iterable, sid))
            return
        for kw in iterable.kwargs:
            if kw.name != "init_values" and expr_names(kw.value):
                self.add("stmt_expr", sid, self.expr(kw.value, sid))

    # ------------------------------------------------------------------------- expressions

    def expr(self, e: Expr, sid: str, in_predicate: bool = False) -> str:
        eid = f"{self.e_prefix}{self.n_expr}"
        self.n_expr += 1
        self.exprs[eid] = e
        add, row = self.add, self.expr_row
        self.in_stmt((eid, sid))
        # the commonest kinds first, by exact class (the model's classes are final)
        if type(e) is Name:
            self.used.add(e.id)
            row((eid, "ref", ""))
            self.ref((eid, self.vids[e.id]))
            return eid
        if type(e) is Const:
            row((eid, "const", e.dtype or ""))
            if (n := int_literal(e)) is not None:
                self.const_int((eid, n))
            elif isinstance(e.value, bool):
                add("const_bool", eid)
            return eid
        if type(e) is Call:
            self._call(e, eid, sid, in_predicate)
            return eid
        match e:
            case BinOp(op=op, left=left, right=right):
                row((eid, "arith", op))
                self._operands(eid, (left, right), sid, in_predicate)
            case UnaryOp(op=op, operand=operand):
                row((eid, "logic" if op == "not" else "arith", "neg" if op == "-" else op))
                self._operands(eid, (operand,), sid, in_predicate)
            case Compare(op=op, left=left, right=right):
                row((eid, "cmp", op))
                self._operands(eid, (left, right), sid, in_predicate)
            case BoolOp(op=op, values=values):
                row((eid, "logic", op))
                self._operands(eid, values, sid, in_predicate)
            case ListExpr(elts=elts) | TupleExpr(elts=elts):
                row((eid, "list" if isinstance(e, ListExpr) else "tuple", ""))
                self._operands(eid, elts, sid, in_predicate)
            case DictExpr(keys=keys, values=values):
                row((eid, "dict", ""))
                for key, value in zip(keys, values):
                    if (
                        isinstance(key, Const)
                        and isinstance(key.value, str)
                        and _worth_lowering(key.value, value)
                    ):
                        add("kwarg", eid, key.value, self.expr(value, sid, in_predicate))
            case Subscript(value=value, index=index):
                is_proj = isinstance(value, Name) and int_literal(index) is not None
                row((eid, "proj" if is_proj else "other", ""))
                self._operands(eid, (value, index), sid, in_predicate)
            case Dotted(path=path):
                row((eid, "dotted", path))
            case Opaque(names=names):
                row((eid, "other", ""))
                for name in names:
                    self.used.add(name)
                    add("mentions", eid, self.vids[name])
        return eid

    def _operands(self, eid: str, operands: tuple[Expr, ...], sid: str, in_predicate: bool) -> list[str]:
        ids = [self.expr(o, sid, in_predicate) for o in operands]
        operand = self.operand
        for i, child in enumerate(ids):
            operand((eid, i, child))
        return ids

    def _call(self, call: Call, eid: str, sid: str, in_predicate: bool) -> None:
        add, row = self.add, self.expr_row
        func = call.func
        op = dsl_op(func, self.pl) or func
        args = call.args
        target = call_target(call, self.pl) or group_call(call)
        callee = target.callee if target is not None else None
        if target is not None:
            row((eid, "call", target.callee))
            add("launch", eid, target.callee, target.form)
            for i, arg_id in enumerate(self._operands(eid, target.arguments(call), sid, in_predicate)):
                add("launch_arg", eid, i, arg_id)
        else:
            builtin = scalar_builtin(func, self.pl)
            # the fact names the builtin as the DSL does (`min`, whichever spelling was read)
            row((eid, "arith" if builtin is not None else "op", builtin or op))
            self._operands(eid, args, sid, in_predicate)
            if (
                op in ("tensor.read", "tensor.write")
                and not in_predicate
                and args
                and isinstance(args[0], Name)
            ):
                add("host_access", eid, self.vids[args[0].id], op.split(".")[1])
        for kw in call.kwargs:
            if kw.name == "attrs" and isinstance(kw.value, DictExpr) and callee is not None:
                self._attrs(eid, kw.value)
            if _worth_lowering(kw.name, kw.value):
                kw_predicate = in_predicate or kw.name == "predicate"
                add("kwarg", eid, kw.name, self.expr(kw.value, sid, kw_predicate))

    def _is_view(self, value: Expr) -> bool:
        return isinstance(value, Call) and dsl_op(value.func, self.pl) in ("tensor.slice", "tensor.view")

    def _attrs(self, eid: str, attrs: DictExpr) -> None:
        directions = attrs.get("arg_directions")
        if isinstance(directions, ListExpr):
            for i, d in enumerate(directions.elts):
                if isinstance(d, Dotted):
                    self.add("launch_dir", eid, i, d.path.rsplit(".", 1)[-1])


# each statement class's kind in the `stmt` relation
_STMT_KINDS = {
    kind: "expr" if kind is ExprStmt else kind.__name__.lower()
    for kind in (Assign, ExprStmt, For, While, If, With, Return, Jump)
}

# expressions that name no variable
_LEAVES = frozenset((Const, Dotted))


class _VarIds(dict[str, str]):
    """A function's variable ids, each built once (a variable is named in many rows)."""

    def __init__(self, function: str) -> None:
        super().__init__()
        self.function = function

    def __missing__(self, name: str) -> str:
        vid = self[name] = var_id(self.function, name)
        return vid


_ALWAYS_LOWERED = frozenset({"core_num", "deps", "predicate", "attrs"})


def _worth_lowering(key: str, value: Expr) -> bool:
    """Keywords the rules read, and any keyword naming a variable (a use); the rest — dtype=,
    layout=, arg_directions lists — is recorded otherwise (launch_dir) or not needed, and lowering
    it would only grow the fact set pyDatalog has to carry."""
    # most keywords are a literal or a dotted name: no walk for those
    return key in _ALWAYS_LOWERED or (type(value) not in _LEAVES and bool(expr_names(value)))


def _returns(body: tuple[Stmt, ...]) -> list[Return]:
    return [s for s in body if isinstance(s, Return)]
