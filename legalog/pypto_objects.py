"""legalog's passes on PyPTO's own objects: what a pass can tell from an `ir.Program` without
printing it, and its rewrite made a PyPTO Program again without parsing the whole program.

* `passes_with_work`: which of the two passes has anything to decide, read from the objects
  (function types, launches, scopes, host tensor accesses).  A pass with nothing to decide
  returns its input Program as it is, never printed.
* `rebuild`: the Program after a rewrite.  Only the functions the rewrite changed are parsed
  again, by PyPTO's own parser with the context its `@pl.program` gives a method (every
  function's GlobalVar, the functions before it for call types, the program's dynamic
  dimensions); every other function is the input's own object, spans and all.

Needs PyPTO: imported inside each function (legalog.pypto imports none before a pass runs).
The parser's entry points used here are PyPTO's private ones (`ASTParser`, the decorator's
helpers): `rebuild` returns None wherever they are not what this module expects, and the caller
parses the whole program instead.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re
import textwrap
from collections.abc import Callable, Collection, Mapping
from typing import Any

from legalog.extractor.lower import FULL_BODY_KINDS
from legalog.ir.fold import INT_DTYPES
from legalog.ir.model import Function, Program
from legalog.ir.printer import print_function

# What makes a program work for LegalizeGraphBoundary besides a Graph function: the host-control
# checks read orchestration-level `tensor.read` / `tensor.write` (rules/host_control.pyd).
HOST_OPS = frozenset({"tensor.read", "tensor.write"})
# The functions whose SPMD launches LegalizeSpmdLaunches decides (rules/spmd.pyd, `spmd_caller`).
SPMD_CALLERS = frozenset({"Orchestration", "Opaque"})
# The indentation of a method in a printed program: a reparsed function's columns are counted
# as if it stood in its class.
_METHOD_INDENT = "    "


class _AllFound(Exception):
    """Ends a scan once every pass asked about has work."""


def passes_with_work(program: Any, passes: Collection[str]) -> frozenset[str]:
    """The passes among `passes` ("graph", "spmd") that may have something to decide in
    `program`, read from its objects where legalog's lowering reads the printed program.
    Conservative: a pass left out has nothing to decide (the text analysis would find it legal
    with no finding); one named may still turn out legal.

    "graph": a function of type Graph, or a `tensor.read` / `tensor.write` call (host control);
    "spmd": a launch with a block count (`core_num`) or a `with pl.spmd(...)` scope that the
    analysis would decide: one of an Orchestration or Opaque function (rules/spmd.pyd,
    `spmd_caller`) whose count is no integer literal >= 1 (that one is proven as it is read, with
    no finding), and any launch or scope whose count is neither a name nor an integer literal
    (SP304 reads every count, wherever it is)."""
    from pypto.pypto_core import ir

    wanted = frozenset(passes)
    functions = list(program.functions.values())  # each call of `functions` wraps every one anew
    found: set[str] = set()
    if "graph" in wanted and any(f.func_type == ir.FunctionType.Graph for f in functions):
        found.add("graph")
    if found >= wanted:
        return frozenset(found)
    scan = _scanner()(wanted, found)
    with contextlib.suppress(_AllFound):
        for fn in functions:
            kind = fn.func_type.name
            scan.deciding = kind in SPMD_CALLERS
            # What legalog's lowering reads: the whole body of an orchestration-level function,
            # only the returns of a kernel (extractor/lower.py, FULL_BODY_KINDS).
            if kind in FULL_BODY_KINDS:
                scan.visit_function(fn)
                continue
            body = fn.body
            for stmt in body.stmts if isinstance(body, ir.SeqStmts) else (body,):
                if isinstance(stmt, ir.ReturnStmt):
                    scan.visit_stmt(stmt)
    return frozenset(found)


@functools.cache
def _scanner() -> type:
    """The visitor of `passes_with_work`, made once (a class per call costs more than a small
    program's scan): PyPTO's own `IRVisitor` walks every statement and expression, and calls
    back only for calls, launches and SPMD scopes."""
    from pypto.pypto_core import ir

    class Scan(ir.IRVisitor):
        def __init__(self, wanted: frozenset[str], found: set[str]) -> None:
            super().__init__()
            self.wanted, self.found = wanted, found
            self.graph = "graph" in wanted - found
            self.spmd = "spmd" in wanted - found
            self.deciding = True  # the function scanned is an SPMD caller (set per function)

        def hit(self, name: str) -> None:
            self.found.add(name)
            if self.found >= self.wanted:
                raise _AllFound

        def count(self, core_num: Any) -> None:
            """A launch's or scope's block count: work, unless the analysis would leave it as it is."""
            if not _settled_count(core_num, self.deciding):
                self.hit("spmd")

        def visit_call(self, op: Any) -> None:
            callee = op.op
            if self.graph and callee.name in HOST_OPS:
                self.hit("graph")
            if self.spmd and isinstance(callee, ir.GlobalVar) and "core_num" in (attrs := op.attrs):
                self.count(attrs["core_num"])
            super().visit_call(op)

        def visit_submit(self, op: Any) -> None:
            if self.spmd and op.core_num is not None:
                self.count(op.core_num)
            super().visit_submit(op)

        def visit_spmd_scope_stmt(self, op: Any) -> None:
            if self.spmd:
                self.count(op.core_num)
            super().visit_spmd_scope_stmt(op)

    return Scan


def _settled_count(core_num: Any, deciding: bool) -> bool:
    """Whether LegalizeSpmdLaunches leaves a block count as it is, with no finding: an integer
    literal >= 1 is proven positive as it is read (`spmd_literal_count`); in a function whose
    launches are not its to decide (a Graph's are LegalizeGraphBoundary's, GB121), any name or
    integer literal, which SP304 (a count with a non-integer constant) cannot fire on."""
    from pypto.pypto_core import ir

    if isinstance(core_num, bool):
        return False
    if isinstance(core_num, int):  # a call's `attrs={"core_num": 4}`
        return core_num >= 1 or not deciding
    if type(core_num) is ir.ConstInt and core_num.dtype.code() in _int_codes():
        return int(core_num.value) >= 1 or not deciding
    return not deciding and type(core_num) is ir.Var


@functools.cache
def _int_codes() -> frozenset[int]:
    """The DataType codes of the integer types legalog reads as integers (`ir.fold.INT_DTYPES`)."""
    from pypto.pypto_core import DataType

    return frozenset(getattr(DataType, name).code() for name in INT_DTYPES if hasattr(DataType, name))


def kernel_names(program: Any) -> frozenset[str]:
    """The functions of `program` whose bodies legalog's lowering does not read (kernels: every
    type outside FULL_BODY_KINDS): of each, it reads the signature and the returns."""
    return frozenset(f.name for f in program.functions.values() if f.func_type.name not in FULL_BODY_KINDS)


def without_kernel_bodies(text: str, kernels: frozenset[str]) -> str:
    """`text` (PyPTO's printing of a program, `format=False`) with every line of a kernel's body
    blank but its top-level returns: what the analysis reads of a kernel is left, on the lines
    and columns it had, so every position legalog reports is one in `text`.  A kernel with no
    top-level return, or one continued over lines, is left whole (a body must hold a statement).
    The text is PyPTO's one-statement-per-line printing: where it is not, the blanked text may
    not read, and the caller reads the whole text instead."""
    lines = text.split("\n")
    out = list(lines)
    body = _METHOD_INDENT * 2
    i = 0
    while i < len(lines):
        header = _DEF.match(lines[i])
        i += 1
        if header is None or header.group(1) not in kernels:
            continue
        start = i
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(body)):
            i += 1
        region = range(start, i)
        returns = [k for k in region if _is_return(lines[k], body)]
        if returns and all(_reads_alone(lines[k]) for k in returns):
            for k in region:
                if k not in returns:
                    out[k] = ""
    return "\n".join(out)


_DEF = re.compile(r"    def ([A-Za-z_]\w*)\(")


def _is_return(line: str, body: str) -> bool:
    return line.startswith(body + "return") and line[len(body) + 6 : len(body) + 7] in ("", " ")


def _reads_alone(line: str) -> bool:
    """Whether one printed line is a whole statement (no bracket left open)."""
    try:
        ast.parse(line.strip())
    except SyntaxError:
        return False
    return True


# ------------------------------------------------------------------------------------ rebuild


def changed_functions(before: Program, after: Program) -> tuple[Function, ...] | None:
    """The functions of `after` that differ from `before`'s of the same name, in program order;
    None when the two do not hold the same functions in the same order (then nothing is shared)."""
    if [f.name for f in before.functions] != [f.name for f in after.functions]:
        return None
    return tuple(f for f, g in zip(after.functions, before.functions, strict=True) if f != g)


def rebuild(
    program: Any,
    after: Program,
    changed: tuple[Function, ...],
    filename: str,
    source_map: Callable[[str], Mapping[int, tuple[str, int, int]]] | None = None,
) -> Any | None:
    """`program` with the functions `changed` (the rewrite's, in legalog's model) parsed by
    PyPTO from their printed text, each in the context `@pl.program` gives it; every other
    function is `program`'s own object.  `after` is the whole rewritten program (its order and
    dynamic dimensions).  `source_map`, given the printed text of the changed functions, says
    where each of its lines is in the user's source (pl.parse's `source_map`).  None where this
    PyPTO's parser is not the one this module knows, or a changed function is one the
    `@pl.program` walker treats specially (external, a SubWorker, a peer buffer): parse the
    whole program then; and where it fails, since the whole program's parse says what is wrong
    with the text, if anything is."""
    import pypto.language as pl
    import pypto.language.distributed as pld
    from pypto.language.parser.span_tracker import active_source_map
    from pypto.pypto_core import ir

    names = {f.name for f in changed}
    texts = [print_function(f, _METHOD_INDENT, after.prefix) for f in changed]
    if any("import_peer_buffer" in t or "external_source" in t for t in texts):
        return None
    mapped = source_map("".join(texts)) if source_map is not None else None
    global_vars = {f.name: ir.GlobalVar(f.name) for f in after.functions}
    closure = {"pl": pl, "pld": pld, **{d: pl.dynamic(d) for d in after.dynamic_dims}}
    dynamic = _dynamic_vars(program, frozenset(after.dynamic_dims))
    parsed: dict[str, Any] = {}
    earlier: dict[Any, Any] = {}  # GlobalVar -> the functions before this one, as `@pl.program` has them
    offset = 0
    token = active_source_map.set(dict(mapped) if mapped is not None else None)
    try:
        for f in after.functions:
            if f.name in names:
                text = texts[len(parsed)]
                fn = _parse_method(text, offset, filename, global_vars, earlier, closure, dynamic)
                if fn is None:
                    return None
                offset += text.count("\n")
                parsed[f.name] = fn
            else:
                fn = program.get_function(f.name)
                if fn is None:
                    return None
            earlier[global_vars[f.name]] = fn
    except Exception:  # the whole program's parse says what is wrong, if anything is
        return None
    finally:
        active_source_map.reset(token)
    functions = [parsed.get(f.name) or program.get_function(f.name) for f in after.functions]
    return ir.Program(functions, program.name, program.span)


def _parse_method(
    text: str,
    offset: int,
    filename: str,
    global_vars: dict[str, Any],
    earlier: dict[Any, Any],
    closure: dict[str, Any],
    dynamic: dict[str, Any],
) -> Any | None:
    """One printed method, parsed as `@pl.program`'s walker parses each of its methods."""
    import pypto.language.parser.decorator as decorator
    from pypto._function_attrs import AUTO_SCOPE_ATTR
    from pypto.language.parser.ast_parser import ASTParser
    from pypto.language.parser.comment_extractor import extract_line_comments
    from pypto.pypto_core import ir

    code = textwrap.dedent(text)
    (node,) = ast.parse(code).body
    if not isinstance(node, ast.FunctionDef):
        return None
    level, role = decorator._extract_function_level_role_from_decorator(node)
    if level is not None and ir.level_to_linqu_level(level) >= 3 and role == ir.Role.SubWorker:
        return None
    attrs = decorator._extract_function_attrs_from_decorator(node)
    if decorator._extract_function_auto_scope_from_decorator(node) is False:
        attrs[AUTO_SCOPE_ATTR] = False
    parser = ASTParser(
        filename,
        code.split("\n"),
        offset,
        len(_METHOD_INDENT),
        global_vars=global_vars,
        gvar_to_func=dict(earlier),
        strict_ssa=False,
        closure_vars=closure,
        buffer_name_meta={},
        dyn_var_cache=dynamic,
        # tokenizing is a third of the parse; a text without `#` has no comment to find
        pending_comments=extract_line_comments(code) if "#" in code else {},
        alloc_window_buffer_names=set(),
    )
    return parser.parse_function(
        decorator._strip_self_parameter(node),
        func_type=decorator._extract_function_type_from_decorator(node),
        func_level=level,
        func_role=role,
        func_attrs=attrs or None,
    )


def _dynamic_vars(program: Any, dims: frozenset[str]) -> dict[str, Any]:
    """The program's dynamic dimensions as the `ir.Var`s its functions' signatures share (the
    parser's `dyn_var_cache`: one Var per dimension across the whole program)."""
    from pypto.pypto_core import ir

    found: dict[str, Any] = {}
    if not dims:
        return found

    def types(fn: Any) -> list[Any]:
        return [p.type for p in fn.params] + list(fn.return_types)

    for fn in program.functions.values():
        for t in types(fn):
            for d in getattr(t, "shape", ()):
                if isinstance(d, ir.Var) and d.name_hint in dims:
                    found.setdefault(d.name_hint, d)
    return found
