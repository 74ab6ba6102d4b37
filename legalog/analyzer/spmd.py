"""LegalizeSpmdLaunches, the decisions: prove `core_num >= 1` at every SPMD launch, or guard it.

Spec: seeds/legalize_spmd_launches.en.txt.  For each SPMD launch in an Orchestration (or Opaque)
function — `pl.spmd_submit(self.k, ...)`, or a call carrying a core_num in its attrs whatever the
callee's FunctionType (PyPTO's pass reads the count off the call) — the goal handed to the Z3
prover (`positivity.prove`) is built from rows the rules derive (rules/spmd.pyd), never by walking
the body here: the enclosing branch conditions with their polarity (`spmd_fact`), the enclosing
loop ranges (`spmd_loop`), the pure scalar SSA definitions the point can see (`spmd_def`,
`def_at`, `point_at`: kept as names, so a range fact about `remaining` still holds for
`((remaining + 15) // 16) * 4` even after Simplify drops a redundant guard; only the ones the
goal's expressions reach are followed), the names known non-negative (module dynamic dimensions,
`pl.tensor.dim` results: `shape_query`), and the declared scalar dtypes, whose value domains
(INDEX >= 0, ...) the prover assumes as PyPTO's analyzer does.  The rules also say which launches
need no proof (`spmd_literal_count`, `spmd_index_count`): no goal is built for those.

* proven                  -> `proven`, nothing to do (runtime-allocated outputs are then fine);
* literal core_num <= 0   -> `rejected`, SP303 (the DSL parser rejects that spelling);
* refuted or unknown      -> `guarded` (SP310, info) when the output contract holds, else
  `rejected`: SP301 (one diagnostic listing every missing Out/InOut tensor with its zero-based
  parameter index), SP302 (an escaping result with no existing tensor to preserve, or compiler
  GM pipe scratch shared with another use).

Launches inside Graph functions are LegalizeGraphBoundary's (GB121) and are skipped here.

The output contract, result liveness, the types the decisions read (`spmd_annotation`,
`spmd_type_flow`) and a scope's results (`spmd_scope_output`, `spmd_in_place`) are rules
(legalog/rules/spmd.pyd); this module reads them, and walks no body.  The argument -> parameter
mapping is computed here in Python (see `map_arguments`).

`preflight(program)` repeats the arithmetic check as codegen does: every launch that is not
proven positive is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from legalog.analyzer.diagnostics import Diagnostic
from legalog.analyzer.emitter import finding
from legalog.analyzer.graph import plain_name
from legalog.analyzer.positivity import (
    CORE_NUM,
    LoopRange,
    PositivityGoal,
    Verdict,
    literal_verdict,
    prove,
    proven_by,
)
from legalog.extractor.lower import Lowering, lower
from legalog.facts.ids import expr_order, function_of, split_var, stmt_order, var_id, var_name
from legalog.ir.fold import fold_constant
from legalog.ir.model import (
    Assign,
    Call,
    Const,
    Expr,
    Function,
    Name,
    Program,
    Return,
    ScalarType,
    Stmt,
    TensorType,
    TupleType,
    Type,
    With,
)
from legalog.ir.patterns import (
    call_target,
    core_num,
    spmd_scope_count,
)
from legalog.ir.printer import print_expr
from legalog.ir.transform import expr_names
from legalog.rules.engine import Derived, RuleProgram, evaluate

__all__ = [
    "LaunchDecision",
    "ResultSlot",
    "SpmdOutcome",
    "decide_launches",
    "evaluate_spmd",
    "map_arguments",
    "preflight",
    "spmd_rules",
]

LaunchOutcome = Literal["proven", "guarded", "rejected"]


# ------------------------------------------------------------------------------------ decisions


@dataclass(frozen=True)
class ResultSlot:
    """One return slot of a launch's result (callee return order; a Submit's TaskId last).

    `preserved` is the caller's own argument the empty path yields for a tensor slot (the callee
    parameter this return writes back, mapped to the caller argument); `type` is the type the
    rewrite gives the slot: the caller buffer's type when known, else the launch's own.
    """

    index: int
    task_id: bool
    escapes: bool
    preserved: str | None
    type: Type | None


@dataclass(frozen=True)
class LaunchDecision:
    function: str
    callee: str
    line: int
    column: int
    core_num: str
    outcome: LaunchOutcome
    counterexample: dict[str, int] | None = None
    reason: str = ""
    # What the rewriter needs to find and rebuild the launch:
    target: str | None = None  # the launch's Assign target in `function` (None: expression statement)
    form: str = "spmd_submit"  # "spmd_submit", "call", or "scope" (`with pl.spmd(n):`, frontend dumps)
    tuple_result: bool = True  # the result is a tuple projected by `target[i]`
    slots: tuple[ResultSlot, ...] = ()
    dead_bindings: tuple[str, ...] = ()  # dead projection/alias targets the guard removes
    scratch: tuple[str, ...] = ()  # gm_pipe_buffer_* creates that move into the positive branch
    missing_outputs: tuple[tuple[str, int], ...] = ()  # (callee parameter, zero-based index)
    # a `with pl.spmd(n)` scope (form "scope"): the names it binds that are read after it, in slot order
    outputs: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """CONTRACT.md's `launches` entry."""
        data: dict[str, object] = {
            "function": self.function,
            "line": self.line,
            "callee": self.callee,
            "core_num": self.core_num,
            "outcome": self.outcome,
        }
        if self.counterexample is not None:
            data["counterexample"] = dict(self.counterexample)
        return data


@dataclass(frozen=True)
class SpmdOutcome:
    launches: tuple[LaunchDecision, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def guarded(self) -> tuple[LaunchDecision, ...]:
        return tuple(d for d in self.launches if d.outcome == "guarded")

    @property
    def rejected(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)


# ------------------------------------------------------------------------------------- engine


def spmd_rules() -> RuleProgram:
    return RuleProgram.load(["base", "spmd"])


def evaluate_spmd(lowering: Lowering, engine: str | None = None) -> Derived:
    return evaluate(spmd_rules(), lowering.facts, engine)


def map_arguments(directions: list[str], n_args: int) -> list[int | None] | None:
    """Parameter index -> argument index (None: an omitted output), PyPTO's greedy mapping.

    Done in Python rather than Datalog: an output is skipped whenever the remaining arguments only
    cover the remaining In parameters, i.e. the first `n_args - #In` outputs (parameter order) are
    supplied.  Expressing that needs counts over possibly empty sets, which pyDatalog's `len_`
    answers with no row at all (a launch with zero arguments is legal).  None: the arguments do
    not cover the In parameters, or there are more arguments than parameters.
    """
    required = sum(1 for d in directions if d == "In")
    if n_args > len(directions) or n_args < required:
        return None
    mapping: list[int | None] = []
    arg_index = 0
    remaining_required = required
    for d in directions:
        if d == "In":
            remaining_required -= 1
        elif n_args - arg_index <= remaining_required:
            mapping.append(None)
            continue
        mapping.append(arg_index)
        arg_index += 1
    return mapping


# --------------------------------------------------------------------------------- launch sites


@dataclass(frozen=True)
class _Context:
    """What the prover may assume at one launch: the visible pure scalar definitions of the names
    its goal reads, the enclosing branch conditions (outermost first, True on the then-arm), the
    enclosing loops and the names known non-negative.  Read off spmd.pyd's rows (`_contexts`)."""

    bindings: Mapping[str, Expr]
    facts: tuple[tuple[Expr, bool], ...]
    loops: tuple[LoopRange, ...]
    nonneg: frozenset[str]
    evident: Verdict | None = None  # the rules decided the count needs no proof (a literal, a loop index)

    def verdict(self, count: Expr, dtypes: Mapping[str, str], prefix: str) -> Verdict:
        if self.evident is not None:
            return self.evident
        return prove(
            PositivityGoal(count, self.bindings, self.facts, self.loops, self.nonneg, dtypes, prefix)
        )


def _contexts(program: Program, lowering: Lowering, derived: Derived) -> dict[str, _Context]:
    """Launch (or scope context call) id -> its context, from the rows spmd.pyd derives.  Rows
    come unordered: branches and loops are put outermost first (statement ids number the body in
    source order), and of two visible definitions of one name the later wins, as in the body."""
    exprs = lowering.exprs
    conditions = {str(b): str(x) for b, x in derived["branch"]}
    facts: dict[str, list[tuple[int, str, bool]]] = {}
    for e, b, arm in derived["spmd_fact"]:
        facts.setdefault(str(e), []).append((stmt_order(str(b)), conditions[str(b)], arm == "then"))
    ranges = _loop_ranges(derived, exprs)
    loops: dict[str, list[tuple[int, LoopRange]]] = {}
    for e, loop in derived["spmd_loop"]:
        loops.setdefault(str(e), []).append((stmt_order(str(loop)), ranges[str(loop)]))
    counts: dict[str, list[str]] = {}
    for e, x in derived["core_num_of"]:
        counts.setdefault(str(e), []).append(str(x))
    at: dict[str, dict[str, int]] = {}
    for e, lst, pos in derived["point_at"]:
        at.setdefault(str(e), {})[str(lst)] = int(pos)
    evident = {str(e): literal_verdict(int(n)) for e, n in derived["spmd_literal_count"]}
    for e, loop in derived["spmd_index_count"]:
        evident[str(e)] = proven_by((ranges[str(loop)].label,))
    defs = _Definitions(derived, exprs)
    dims = frozenset(program.dynamic_dims)
    contexts: dict[str, _Context] = {}
    for point in {str(r[0]) for r in derived["spmd_point"]}:
        if point in evident:
            contexts[point] = _Context({}, (), (), dims, evident[point])
            continue
        branches = sorted(facts.get(point, ()))
        bounded = [loop for _, loop in sorted(loops.get(point, ()), key=lambda f: f[0])]
        roots = [exprs[x] for x in counts.get(point, ())] + [exprs[x] for _, x, _ in branches]
        roots += [bound for loop in bounded for bound in (loop.start, loop.stop, loop.step)]
        bindings, nonneg = defs.visible(function_of(point), roots, at.get(point, {}))
        contexts[point] = _Context(
            {var_name(v): exprs[x] for v, x in bindings.items()},
            tuple((exprs[x], then) for _, x, then in branches),
            tuple(bounded),
            dims | {var_name(v) for v in nonneg},
        )
    return contexts


class _Definitions:
    """The pure scalar definitions of the functions with launches (spmd.pyd: `spmd_def`) and
    where each is seen from (`def_at`)."""

    def __init__(self, derived: Derived, exprs: Mapping[str, Expr]) -> None:
        self.exprs = exprs
        self.of: dict[str, list[tuple[int, str, str]]] = {}  # variable -> (order, statement, value)
        for s, v, x in derived["spmd_def"]:
            self.of.setdefault(str(v), []).append((stmt_order(str(s)), str(s), str(x)))
        for found in self.of.values():
            found.sort(reverse=True)  # the latest first: it wins where several are visible
        self.at: dict[str, list[tuple[str, int]]] = {}
        for s, lst, pos in derived["def_at"]:
            self.at.setdefault(str(s), []).append((str(lst), int(pos)))
        self.names: dict[str, set[str]] = {}  # expression id -> the names it reads, found once
        self.shape = {str(r[0]) for r in derived["shape_query"]}

    def visible(
        self, fn: str, roots: list[Expr], point_at: Mapping[str, int]
    ) -> tuple[dict[str, str], set[str]]:
        """The definitions a point of `fn` sees of the names its goal's expressions `roots` read,
        and of the names those read in turn (variable -> value); and the names a visible shape
        query defines (never negative)."""
        bindings: dict[str, str] = {}
        nonneg: set[str] = set()
        seen: set[str] = set()
        todo = [var_id(fn, name) for root in roots for name in expr_names(root)]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            here = [(s, x) for _, s, x in self.of.get(name, ()) if self._seen_from(s, point_at)]
            if here:
                bindings[name] = here[0][1]
                todo += self._reads(fn, here[0][1])
                if any(s in self.shape for s, _ in here):
                    nonneg.add(name)
        return bindings, nonneg

    def _reads(self, fn: str, x: str) -> list[str]:
        if (names := self.names.get(x)) is None:
            names = self.names[x] = expr_names(self.exprs[x])
        return [var_id(fn, name) for name in names]

    def _seen_from(self, s: str, point_at: Mapping[str, int]) -> bool:
        return any(point_at.get(lst, -1) > pos for lst, pos in self.at.get(s, ()))


def _loop_ranges(derived: Derived, exprs: Mapping[str, Expr]) -> dict[str, LoopRange]:
    """Every counted loop with bounds: loop id -> its index and bounds (`loop`, `loop_bound`)."""
    bounds: dict[str, dict[str, Expr]] = {}
    for loop, role, x in derived["loop_bound"]:
        bounds.setdefault(str(loop), {})[str(role)] = exprs[str(x)]
    return {
        str(loop): LoopRange(var_name(str(iv)), found["start"], found["stop"], found["step"])
        for loop, iv in derived["loop"]
        if (found := bounds.get(str(loop))) is not None
    }


def _no_context(program: Program) -> _Context:
    """A launch nested inside another call has no point of its own (spmd.pyd): nothing assumed."""
    return _Context({}, (), (), frozenset(program.dynamic_dims))


class _VarTypes(dict[str, Type]):
    """Name -> type in one function (`_function_types`), and its scalars' dtypes: the prover's
    value domains, found once a function rather than once a launch."""

    @cached_property
    def dtypes(self) -> dict[str, str]:
        return {name: t.dtype for name, t in self.items() if isinstance(t, ScalarType)}


def _function_types(program: Program, lowering: Lowering, derived: Derived) -> dict[str, _VarTypes]:
    """Name -> type in each function with a launch or scope to decide (spmd.pyd, `spmd_function`):
    its parameters' types, overridden by the latest annotation of a name (`spmd_annotation`); a
    bare loop-carried or phi name takes the type of a value flowing into it (`spmd_type_flow`):
    the flows are followed in source order, round after round, until no name gains a type."""
    types = {
        fn.name: _VarTypes((p.name, p.type) for p in fn.params)
        for (f,) in derived["spmd_function"]
        if (fn := program.function(str(f))) is not None
    }
    latest: dict[str, str] = {}  # variable -> the statement of its last annotation
    for v, s in derived["spmd_annotation"]:
        if (seen := latest.get(str(v))) is None or stmt_order(str(s)) > stmt_order(seen):
            latest[str(v)] = str(s)
    for v, s in latest.items():
        binding = lowering.stmts[s]
        assert isinstance(binding, Assign) and binding.type is not None  # the rules name annotations
        f, name = split_var(v)
        types[f][name] = binding.type
    flows = sorted(derived["spmd_type_flow"], key=lambda r: expr_order(str(r[2])))
    for _ in range(len(flows) + 1):
        changed = False
        for v, w, _e in flows:
            f, name = split_var(str(v))
            table = types[f]
            if name not in table and (source := var_name(str(w))) in table:
                table[name] = table[source]
                changed = True
        if not changed:
            break
    return types


def _is_tensor(t: Type | None) -> bool:
    return t is None or (isinstance(t, TensorType) and t.kind == "Tensor")


def describe(cex: Mapping[str, int]) -> str:
    """`core_num = 0 when n = 1`, names without SSA suffixes."""
    if CORE_NUM not in cex:
        return ""
    rest = [f"{plain_name(k)} = {v}" for k, v in cex.items() if k != CORE_NUM]
    head = f"{CORE_NUM} = {cex[CORE_NUM]}"
    return f"{head} when {', '.join(rest)}" if rest else head


def _unproven(verdict: Verdict) -> str:
    """Why a launch's or a scope's count is not proven positive (SP310's `why`)."""
    if verdict.outcome == "refuted":
        return describe(verdict.counterexample)
    return f"core_num >= 1 is unproven: {verdict.reason}"


# -------------------------------------------------------------------------------------- decide


def _return_count(callee: Function) -> int:
    for s in callee.body:
        if isinstance(s, Return):
            return len(s.values)
    return len(callee.returns or ())


def decide_launches(program: Program, lowering: Lowering, derived: Derived) -> SpmdOutcome:
    """One decision per SPMD launch of an Orchestration/Opaque function, in source order."""
    contexts = _contexts(program, lowering, derived)
    types_by_fn = _function_types(program, lowering, derived)
    slot_escapes: dict[str, set[int]] = {}
    for e, p in derived["slot_escapes"]:
        slot_escapes.setdefault(str(e), set()).add(int(p))
    all_escape = {str(r[0]) for r in derived["all_slots_escape"]}
    value_escapes = {str(r[0]) for r in derived["value_escapes"]}
    ret_params: dict[str, dict[int, int]] = {}
    for e, p, i in derived["spmd_ret_param"]:
        ret_params.setdefault(str(e), {}).setdefault(int(p), int(i))
    out_params: dict[str, list[tuple[int, str]]] = {}
    for c, i, pv in derived["spmd_out_param"]:
        out_params.setdefault(str(c), []).append((int(i), var_name(str(pv))))
    dead: dict[str, list[tuple[str, str]]] = {}
    for e, s, w in derived["dead_result_binding"]:
        dead.setdefault(str(e), []).append((str(s), var_name(str(w))))
    scratch: dict[str, set[str]] = {}
    for e, v, _s in derived["scratch_arg"]:
        scratch.setdefault(str(e), set()).add(var_name(str(v)))
    shared: dict[str, set[str]] = {}
    for e, v in derived["shared_scratch"]:
        shared.setdefault(str(e), set()).add(var_name(str(v)))

    decisions: list[LaunchDecision] = []
    diags: list[Diagnostic] = []
    order = {f.name: k for k, f in enumerate(program.functions)}
    sites = sorted(
        derived["spmd_site"], key=lambda r: (order.get(str(r[1]), 0), _span_key(lowering, str(r[0])))
    )
    for e, f, c, s in sites:
        e, f, c, s = str(e), str(f), str(c), str(s)
        fn, callee = program.function(f), program.function(c)
        call, stmt = lowering.exprs[e], lowering.stmts[s]
        if fn is None or callee is None or not isinstance(call, Call):
            continue
        decision, found = _decide_one(
            program,
            fn,
            callee,
            call,
            stmt,
            contexts.get(e) or _no_context(program),
            types_by_fn[f],
            _Facts(
                escapes=slot_escapes.get(e, set()),
                all_escape=e in all_escape,
                value_escapes=e in value_escapes,
                ret_params=ret_params.get(e, {}),
                out_params=sorted(out_params.get(c, [])),
                dead=tuple(sorted({w for _, w in dead.get(e, [])})),
                scratch=tuple(sorted(scratch.get(e, set()))),
                shared=tuple(sorted(shared.get(e, set()))),
            ),
        )
        decisions.append(decision)
        diags.extend(found)
    scopes = _scope_results(lowering, derived)
    for fn, scope, s, e in _scope_sites(program, lowering, derived):
        decision, found = _decide_scope(program, fn, scope, contexts[e], types_by_fn[fn.name], scopes[s])
        decisions.append(decision)
        diags.extend(found)
    decisions.sort(key=lambda d: (order.get(d.function, 0), d.line, d.column))
    return SpmdOutcome(
        tuple(decisions), tuple(sorted(diags, key=lambda d: (order.get(d.function or "", 0), d.sort_key)))
    )


# ------------------------------------------------------------------------- `with pl.spmd(n):`


def _scope_sites(
    program: Program, lowering: Lowering, derived: Derived
) -> list[tuple[Function, With, str, str]]:
    """The `with pl.spmd(n)` scopes the pass decides (spmd.pyd, `spmd_scope_site`), each with its
    function, its statement id and the id of its context call (its point), in source order."""
    sites: list[tuple[Function, With, str, str]] = []
    for s, e, f in derived.sorted("spmd_scope_site"):
        fn, scope = program.function(str(f)), lowering.stmts[str(s)]
        if fn is not None and isinstance(scope, With):
            sites.append((fn, scope, str(s), str(e)))
    return sorted(sites, key=lambda site: (site[1].span.line, site[1].span.col))


@dataclass(frozen=True)
class _ScopeResults:
    """What one scope binds that its function reads outside it, in binding order (spmd.pyd,
    `spmd_scope_output`), and for each of those names the arguments of its call bindings inside
    the scope that are bound outside it (`spmd_in_place`), in source order."""

    outputs: tuple[str, ...] = ()
    arguments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def in_place_source(self, name: str, types: Mapping[str, Type]) -> str | None:
        """The caller's tensor output `name` writes in place: an argument of its call binding that
        is the same dump variable (`y__ssa_v1 = pl.tile.store(c, [0, 0], y__ssa_v0)`)."""
        for arg in self.arguments.get(name, ()):
            if plain_name(arg) == plain_name(name) and _is_tensor(types.get(arg)):
                return arg
        return None


def _scope_results(lowering: Lowering, derived: Derived) -> dict[str, _ScopeResults]:
    """Scope statement id -> its results, from spmd.pyd's rows (unordered: put in binding order
    here; a name bound twice counts where it is first bound)."""
    first: dict[str, dict[str, tuple[int, int]]] = {}
    for sc, s, p, v in derived["spmd_scope_output"]:
        at, names, name = (stmt_order(str(s)), int(p)), first.setdefault(str(sc), {}), var_name(str(v))
        if name not in names or at < names[name]:
            names[name] = at
    arguments: dict[str, dict[str, list[tuple[int, int, str]]]] = {}
    for sc, v, s, i, w in derived["spmd_in_place"]:
        binding = lowering.stmts[str(s)]
        if isinstance(binding, Assign) and isinstance(binding.value, Call):  # not `y1 = y0 + 1`
            arguments.setdefault(str(sc), {}).setdefault(var_name(str(v)), []).append(
                (stmt_order(str(s)), int(i), var_name(str(w)))
            )
    results: dict[str, _ScopeResults] = {}
    for sc, _e, _f in derived["spmd_scope_site"]:
        names = first.get(str(sc), {})
        found = arguments.get(str(sc), {})
        results[str(sc)] = _ScopeResults(
            tuple(sorted(names, key=names.__getitem__)),
            {name: tuple(w for _, _, w in sorted(args)) for name, args in found.items()},
        )
    return results


def _decide_scope(
    program: Program, fn: Function, scope: With, ctx: _Context, types: _VarTypes, results: _ScopeResults
) -> tuple[LaunchDecision, list[Diagnostic]]:
    """A `with pl.spmd(n)` scope is the SPMD launch OutlineClusterScopes makes of it: decided as
    a launch is.  Its results are what it binds and the function reads after it; a tensor result
    is preserved by the caller's tensor it writes in place, the scope's TaskId by a dummy task,
    and anything else cannot be preserved (SP302, "an escaping return that cannot be mapped to
    an existing Tensor is rejected")."""
    prefix = program.prefix
    count = spmd_scope_count(scope, prefix)
    assert count is not None and isinstance(scope.context, Call)
    hint = scope.context.kwarg("name_hint")
    callee = hint.value if isinstance(hint, Const) and isinstance(hint.value, str) else f"{prefix}.spmd"
    count_text = print_expr(count, prefix)
    line, col = scope.span.line, scope.span.col
    verdict = ctx.verdict(count, types.dtypes, prefix)
    base = dict(function=fn.name, callee=callee, line=line, column=col, core_num=count_text, form="scope")
    if verdict.proven:
        return LaunchDecision(**base, outcome="proven", reason=verdict.reason), []  # type: ignore[arg-type]

    def diag(relation: str, **row: object) -> Diagnostic:
        return finding(relation, {"callee": callee, **row}, line, col, fn.name)

    if verdict.literal_nonpositive:
        found = diag("spmd_literal_nonpositive", kind="spmd scope", core_num=fold_constant(count, prefix))
        return LaunchDecision(**base, outcome="rejected", reason=verdict.reason), [found]  # type: ignore[arg-type]
    outputs = results.outputs
    slots: list[ResultSlot] = []
    unmapped: list[str] = []
    for i, name in enumerate(outputs):
        if name == scope.as_name:
            slots.append(ResultSlot(i, True, True, None, ScalarType("TASK_ID")))
            continue
        source = results.in_place_source(name, types)
        if source is None:
            unmapped.append(name)
        slots.append(ResultSlot(i, False, True, source, types.get(name)))
    if unmapped:
        listed = ", ".join(f"'{plain_name(n)}'" for n in unmapped)
        decision = LaunchDecision(
            **base,  # type: ignore[arg-type]
            outcome="rejected",
            reason=verdict.reason,
            outputs=tuple(outputs),
            slots=tuple(slots),
        )
        return decision, [diag("spmd_scope_unmapped", core_num=count_text, names=listed)]
    cex = verdict.counterexample if verdict.outcome == "refuted" else None
    info = diag("spmd_guarded", kind="spmd scope", core_num=count_text, why=_unproven(verdict))
    decision = LaunchDecision(
        **base,  # type: ignore[arg-type]
        outcome="guarded",
        counterexample=cex,
        reason=verdict.reason,
        outputs=tuple(outputs),
        slots=tuple(slots),
    )
    return decision, [info]


def _span_key(lowering: Lowering, e: str) -> tuple[int, int]:
    x = lowering.exprs[e]
    span = getattr(x, "span", None)
    return (span.line, span.col) if span is not None else (0, 0)


@dataclass(frozen=True)
class _Facts:
    """What the rules derived about one launch."""

    escapes: set[int]
    all_escape: bool
    value_escapes: bool
    ret_params: dict[int, int]
    out_params: list[tuple[int, str]]
    dead: tuple[str, ...] = ()
    scratch: tuple[str, ...] = ()
    shared: tuple[str, ...] = field(default=())


def _decide_one(
    program: Program,
    fn: Function,
    callee: Function,
    call: Call,
    stmt: Stmt,
    ctx: _Context,
    types: _VarTypes,
    facts: _Facts,
) -> tuple[LaunchDecision, list[Diagnostic]]:
    prefix = program.prefix
    launched = call_target(call, prefix)
    assert launched is not None  # the rules list launches of program functions only
    form = launched.form
    count = core_num(call)
    assert count is not None  # the rules only list launches with a core_num
    count_text = print_expr(count, prefix)
    line, col = call.span.line, call.span.col
    target = stmt.targets[0] if isinstance(stmt, Assign) and len(stmt.targets) == 1 else None
    base = dict(
        function=fn.name,
        callee=callee.name,
        line=line,
        column=col,
        core_num=count_text,
        target=target,
        form=form,
    )

    verdict = ctx.verdict(count, types.dtypes, prefix)
    if verdict.proven:
        return LaunchDecision(**base, outcome="proven", reason=verdict.reason), []  # type: ignore[arg-type]

    def diag(relation: str, **row: object) -> Diagnostic:
        return finding(relation, {"callee": callee.name, **row}, line, col, fn.name)

    diags: list[Diagnostic] = []
    # The output contract: every Tensor Out/InOut parameter gets a caller-provided argument.
    args = launched.arguments(call)
    mapping = map_arguments([p.direction for p in callee.params], len(args))
    arguments: list[Expr | None] = [None] * len(callee.params)
    if mapping is None:
        ins = sum(p.direction == "In" for p in callee.params)
        diags.append(diag("spmd_arity_mismatch", args=len(args), params=len(callee.params), ins=ins))
    else:
        arguments = [args[k] if k is not None else None for k in mapping]
    missing: list[tuple[str, int]] = []
    if mapping is not None:
        for i, pname in facts.out_params:
            arg = arguments[i] if i < len(arguments) else None
            if not (isinstance(arg, Name) and _is_tensor(types.get(arg.id))):
                missing.append((pname, i))
        if missing:
            listed = " ".join(f"'{p}' (parameter {i})" for p, i in missing)
            diags.append(diag("spmd_outputs_unallocated", outputs=listed, first=missing[0][0]))

    if verdict.literal_nonpositive:
        diags.insert(
            0, diag("spmd_literal_nonpositive", kind="launch", core_num=fold_constant(count, prefix))
        )
        decision = LaunchDecision(
            **base,  # type: ignore[arg-type]
            outcome="rejected",
            counterexample=dict(verdict.counterexample),
            reason=verdict.reason,
            missing_outputs=tuple(missing),
        )
        return decision, diags

    # Result slots: callee return order, a Submit's TaskId last.
    slots = _slots(stmt, callee, form, arguments, types, facts, prefix)
    missing_params = {i for _, i in missing}
    for slot in slots:
        if slot.escapes and not slot.task_id and slot.preserved is None:
            if facts.ret_params.get(slot.index) in missing_params:
                continue  # already named by SP301
            diags.append(diag("spmd_return_unmapped", slot=slot.index, target=target or callee.name))
    for name in facts.shared:
        diags.append(diag("spmd_shared_pipe_buffer", name=name))

    cex = dict(verdict.counterexample) if verdict.outcome == "refuted" else None
    if diags:
        return LaunchDecision(
            **base,  # type: ignore[arg-type]
            outcome="rejected",
            counterexample=cex,
            reason=verdict.reason,
            slots=slots,
            missing_outputs=tuple(missing),
        ), diags
    info = diag("spmd_guarded", kind="launch", core_num=count_text, why=_unproven(verdict))
    tuple_result = form != "call" or _return_count(callee) > 1
    decision = LaunchDecision(
        **base,  # type: ignore[arg-type]
        outcome="guarded",
        counterexample=cex,
        reason=verdict.reason,
        tuple_result=tuple_result,
        slots=slots,
        dead_bindings=facts.dead,
        scratch=facts.scratch,
    )
    return decision, [info]


def _slots(
    stmt: Stmt,
    callee: Function,
    form: str,
    arguments: list[Expr | None],
    types: _VarTypes,
    facts: _Facts,
    prefix: str,
) -> tuple[ResultSlot, ...]:
    n_returns = _return_count(callee)
    declared: tuple[Type, ...] | None = None
    if isinstance(stmt, Assign) and isinstance(stmt.type, TupleType):
        declared = stmt.type.elts
    elif isinstance(stmt, Assign) and stmt.type is not None:
        declared = (stmt.type,)
    tuple_result = form != "call" or n_returns > 1
    n_slots = n_returns + (1 if form != "call" else 0)
    slots = []
    for i in range(n_slots):
        own = (
            declared[i]
            if declared is not None and i < len(declared)
            else (callee.returns[i] if callee.returns and i < len(callee.returns) else None)
        )
        is_tid = (form != "call" and i == n_returns) or (
            isinstance(own, ScalarType) and own.dtype == "TASK_ID"
        )
        escapes = facts.all_escape or i in facts.escapes if tuple_result else facts.value_escapes
        preserved: str | None = None
        if not is_tid and (p := facts.ret_params.get(i)) is not None and p < len(arguments):
            arg = arguments[p]
            if isinstance(arg, Name) and _is_tensor(types.get(arg.id)) and _is_tensor(own):
                preserved = arg.id
        slot_type = types.get(preserved) if preserved is not None else None
        if is_tid:
            slot_type = own or ScalarType("TASK_ID")
        slots.append(ResultSlot(i, is_tid, escapes, preserved, slot_type or own))
    return tuple(slots)


# ------------------------------------------------------------------------------------ preflight


def preflight(program: Program, engine: str | None = None) -> list[Diagnostic]:
    """Codegen's repeat of the arithmetic check (PyPTO's VerifySpmdLaunchGuards): every SPMD launch
    of an Orchestration/Opaque function must be proven positive, or legalization was skipped (or a
    later pass introduced an unguarded launch).

    A literal non-positive count is the SP303 error.  Any other unproven launch is reported under
    SP310 worded as an error (`spmd_unguarded`: SP310's default, info, describes the guard the pass
    adds; here the guard is missing), with PyPTO's own wording.
    """
    lowering = lower(program)
    derived = evaluate_spmd(lowering, engine)
    found: list[Diagnostic] = []
    contexts = _contexts(program, lowering, derived)
    types = _function_types(program, lowering, derived)
    for e, f, c, _s in derived.sorted("spmd_site"):
        fn, call = program.function(str(f)), lowering.exprs[str(e)]
        if fn is None or not isinstance(call, Call) or (count := core_num(call)) is None:
            continue
        ctx = contexts.get(str(e)) or _no_context(program)
        verdict: Verdict = ctx.verdict(count, types[fn.name].dtypes, program.prefix)
        if verdict.proven:
            continue
        line, col = call.span.line, call.span.col
        if verdict.literal_nonpositive:
            row = {"kind": "launch", "callee": str(c), "core_num": fold_constant(count, program.prefix)}
            found.append(finding("spmd_literal_nonpositive", row, line, col, fn.name))
            continue
        found.append(finding("spmd_unguarded", {"kind": "launch", "callee": str(c)}, line, col, fn.name))
    scopes = _scope_results(lowering, derived)
    for fn, scope, s, e in _scope_sites(program, lowering, derived):
        decision, _ = _decide_scope(program, fn, scope, contexts[e], types[fn.name], scopes[s])
        if decision.outcome != "proven":
            row = {"kind": "scope", "callee": decision.callee}
            found.append(finding("spmd_unguarded", row, decision.line, decision.column, fn.name))
    return sorted(found, key=lambda d: d.sort_key)
