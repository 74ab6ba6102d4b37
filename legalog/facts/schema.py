"""The relational schema: every input relation the extractor emits, every derived relation a
finding is worded from, and the rows the Python decisions hand back to be worded, declared once.

Ids are strings (`facts/ids.py`): a function by its name (`F`), a variable as `F/name` (`V`), an
expression node as `F/eN` (`E`), a statement as `F/sN` (`S`).  Numbers are ints.  No bools or
floats ever reach the engine (pyDatalog equates 1 and True; PYDATALOG.md §2.7).  A column typed
`fn`, `var`, `expr` or `stmt` is an id of that kind: the emitter (`analyzer/emitter.py`) locates a
finding on it and prints it as the dump names it; `id` is any id.

Each declaration names the spec paragraph it serves, so `legalog query --list` and the schema
file of `legalog facts` explain themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ColumnType = Literal["id", "fn", "var", "expr", "stmt", "str", "int"]

# the specification paragraph each relation serves, named as a user reads it (`schema.dl`)
GB = "LegalizeGraphBoundary,"
SP = "LegalizeSpmdLaunches,"


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: ColumnType


@dataclass(frozen=True, slots=True)
class Relation:
    name: str
    columns: tuple[Column, ...]
    meaning: str
    serves: str

    @property
    def arity(self) -> int:
        return len(self.columns)

    def signature(self) -> str:
        return f"{self.name}({', '.join(f'{c.name}:{c.type}' for c in self.columns)})"


def _rel(name: str, columns: str, meaning: str, serves: str) -> Relation:
    cols = []
    for spec in columns.split():
        col, _, typ = spec.partition(":")
        cols.append(Column(col, typ or "id"))  # type: ignore[arg-type]
    return Relation(name, tuple(cols), meaning, serves)


INPUT_RELATIONS: tuple[Relation, ...] = (
    # ---- functions and their boundaries
    _rel("function", "F Kind:str", "a function and its FunctionType", f"{GB} Overview"),
    _rel("param", "F Pos:int V", "the Pos-th parameter of F (self excluded) is variable V", f"{GB} Step A"),
    _rel("param_dir", "V Dir:str", "a parameter's direction: In, Out or InOut", f"{GB} Step D"),
    _rel(
        "var_class",
        "V Class:str",
        "a variable's type class: tensor, scalar, array, tuple or other",
        f"{GB} Step A",
    ),
    _rel(
        "var_dtype",
        "V DType:str",
        "a scalar's or array's dtype (INDEX, TASK_ID, ...)",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "returns",
        "F Pos:int E",
        "F's return statement yields expression E at position Pos",
        f"{GB} Prerequisite",
    ),
    # ---- statements and control structure
    _rel(
        "stmt",
        "S F Kind:str",
        "a statement of F: assign, expr, for, while, if, with, return, jump",
        f"{GB} Step D",
    ),
    _rel(
        "stmt_parent", "S P", "statement S sits directly in the body of compound statement P", f"{GB} Step D"
    ),
    _rel(
        "in_list",
        "S L Pos:int",
        "S is the Pos-th statement of statement list L (a body, an else)",
        f"{GB} Step D (alloc batching)",
    ),
    _rel(
        "list_owner",
        "L P",
        "statement list L is the body (or else branch) of compound statement P",
        f"{GB} Step D",
    ),
    _rel("function_body", "L F", "statement list L is the body of function F", f"{GB} Step D"),
    _rel("assign", "S V E", "statement S binds variable V to expression E", f"{GB} Step A"),
    _rel(
        "unannotated",
        "S",
        "the binding of statement S carries no type annotation",
        f"{SP} (scalar bindings)",
    ),
    _rel(
        "target",
        "S Pos:int V",
        "statement S binds V as its Pos-th name: a yield's or tuple binding's targets, a for loop's "
        "iteration arguments (a one-name binding is `assign`)",
        f"{SP} (scope results)",
    ),
    _rel(
        "stmt_expr",
        "S E",
        "statement S evaluates root expression E (expression statements, conditions)",
        f"{GB} Step D",
    ),
    _rel(
        "loop",
        "L IV",
        "L is a for loop (pl.range/parallel/unroll/pipeline/...) with index IV",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "loop_trip",
        "L N:int",
        "loop L has constant bounds and trip count N",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel("loop_bound", "L Role:str E", "loop L's start/stop/step expression", f"{SP} (loop bounds)"),
    _rel("while_loop", "L", "L is a while loop (natural or pl.while_)", f"{GB} Step D"),
    _rel("branch", "B E", "B is an if statement with condition E", f"{GB} Step D"),
    _rel(
        "branch_arm",
        "L B Arm:str",
        "statement list L is the then or else arm of if statement B",
        f"{SP} (branch conditions)",
    ),
    _rel("scope", "S Kind:str", "S is a with-scope (manual, auto, at, spmd, ...)", f"{GB} Step D"),
    _rel("scope_as", "S V", "with-scope S binds its TaskId to V (`with ... as V`)", f"{SP} (scope results)"),
    _rel(
        "carried",
        "V E",
        "loop-carried or phi variable V takes the value of expression E (init, yield)",
        f"{GB} Step B",
    ),
    _rel(
        "carried_back",
        "V E",
        "a `carried` row that is a loop's back-edge: iteration argument V takes the value E its body "
        "yields, on the next trip",
        f"{GB} Step B",
    ),
    # ---- expressions
    _rel(
        "expr",
        "E Kind:str Op:str",
        "expression node: kind (const, ref, arith, cmp, logic, op, call, list, tuple, dict, proj, other) and operator/op name",
        f"{GB} Step A",
    ),
    _rel("operand", "E I:int X", "the I-th positional operand of E is X", f"{GB} Step A"),
    _rel(
        "kwarg", "E K:str X", "keyword K of call E is X (deps, core_num, predicate, attrs...)", f"{GB} Step D"
    ),
    _rel("ref", "E V", "expression E is a use of variable V", f"{GB} Step A"),
    _rel(
        "const_int", "E N:int", "expression E is the integer literal N", f"{GB} Hoistable vs replay-invariant"
    ),
    _rel("const_bool", "E", "expression E is the literal True or False", f"{SP} (scalar bindings)"),
    _rel("in_stmt", "E S", "expression node E belongs to statement S", f"{GB} Step D"),
    _rel("mentions", "E V", "opaque expression E mentions variable V", f"{GB} Step A"),
    _rel(
        "result_dim",
        "V I:int E",
        "dimension I of the annotated tensor type of local V is expression E",
        f"{GB} Step B (extent)",
    ),
    _rel(
        "gm_pipe_var",
        "V",
        "V is a compiler-injected GM pipe buffer (name starts with gm_pipe_buffer_)",
        f"{GB} Step D (alloc batching)",
    ),
    _rel("type_use", "S V", "statement S's type annotation mentions variable V", f"{GB} Step A"),
    _rel(
        "free_var",
        "V",
        "V is used in its function but bound nowhere in it (module dynamic dim or leak)",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "dynamic_dim",
        "V",
        "V names a module-level `pl.dynamic` dimension",
        f"{GB} Hoistable vs replay-invariant",
    ),
    # ---- calls and launches
    _rel(
        "launch",
        "E Callee Form:str",
        "call E runs function Callee: form call, submit or spmd_submit",
        f"{GB} Step D",
    ),
    _rel(
        "launch_arg",
        "E I:int X",
        "argument I of launch E (callee's parameter I) is expression X",
        f"{GB} Step B (CallerSuppliedArg)",
    ),
    _rel("launch_dir", "E I:int Dir:str", "arg_directions entry I of launch E", f"{GB} Step D"),
    _rel(
        "host_access",
        "E V Kind:str",
        "host graph construction reads or writes tensor V (tensor.read/write, outside predicates)",
        f"{GB} Host control tensors",
    ),
    _rel("target_runtime", "R:str", "the runtime the program is compiled for", f"{GB} Step D"),
    _rel(
        "runtime_limit",
        "Name:str N:int",
        "the runtime's limit Name is N (legalog/facts/limits.py)",
        f"{GB} Step D",
    ),
)

RELATIONS: dict[str, Relation] = {r.name: r for r in INPUT_RELATIONS}


# ---- derived relations whose rows are findings (analyzer/codes.py words each; the rules, in
# legalog/rules/*.pyd, define them with these columns in this order)
DERIVED_RELATIONS: tuple[Relation, ...] = (
    _rel(
        "graph_wrong_runtime",
        "g:fn rt:str",
        "Graph g compiled for runtime rt, not host_build_graph",
        f"{GB} Step D",
    ),
    _rel("graph_no_tensor", "g:fn", "Graph g takes no tensor parameter", f"{GB} Step D"),
    _rel(
        "graph_too_many_tensors",
        "g:fn n:int",
        "Graph g has n tensor parameters after hoisting, over the limit",
        f"{GB} Step D",
    ),
    _rel(
        "graph_too_many_scalars",
        "g:fn n:int",
        "Graph g has n scalar parameters after Step A, over the limit",
        f"{GB} Step D",
    ),
    _rel(
        "runtime_allocated_output",
        "e:expr i:int",
        "argument i of Graph launch e has direction output",
        f"{GB} Step D",
    ),
    _rel(
        "scalar_param_not_in",
        "v:var d:str",
        "Graph scalar parameter v is declared with direction d, not In",
        f"{GB} Step D",
    ),
    _rel(
        "returns_computed",
        "g:fn pos:int e:expr",
        "Graph g returns at pos a value e it computed, not a parameter",
        f"{GB} Prerequisite",
    ),
    _rel(
        "node_count_out_of_range",
        "g:fn n:int",
        "Graph g launches n tasks: none, or over the per-graph limit",
        f"{GB} Step D",
    ),
    _rel(
        "alloc_under_runtime",
        "v:var c:stmt",
        "allocation v sits under runtime control statement c",
        f"{GB} Step D",
    ),
    _rel(
        "create_shape_varies",
        "v:var x:expr",
        "allocation v has extent x, not a compile-time constant",
        f"{GB} Step C",
    ),
    _rel("region_full", "e:expr g:fn", "call e of tensor.full inside Graph g's region", f"{GB} Step C"),
    _rel(
        "launch_under_runtime",
        "x:expr c:stmt",
        "launch x sits under runtime control statement c",
        f"{GB} Step D",
    ),
    _rel(
        "inline_varying_arg",
        "e:expr i:int x:expr",
        "argument i of launch e is x, computed inline and call-varying",
        f"{GB} Step A",
    ),
    _rel(
        "graph_calls_graph",
        "e:expr g:fn callee:fn",
        "call e in Graph g launches Graph callee",
        f"{GB} Step D",
    ),
    _rel(
        "graph_call_missing_arg",
        "e:expr i:int",
        "Graph call e supplies no argument for parameter i",
        f"{GB} Step D",
    ),
    _rel("graph_launch_deps", "e:expr", "Graph launch e carries deps=", f"{GB} Step D"),
    _rel("graph_launch_predicate", "e:expr", "Graph launch e carries a dispatch predicate", f"{GB} Step D"),
    _rel(
        "unslotted_scalar",
        "e:expr slot:int w:var",
        "launch (or kernel scope) e reads call-varying scalar w in argument slot, with no boundary slot",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "moving_view",
        "v:var",
        "view v of a boundary tensor has a window that differs between calls",
        f"{GB} Step B",
    ),
    _rel(
        "view_extent_varies",
        "v:var x:expr",
        "view v has extent x, neither constant nor replay-invariant",
        f"{GB} Step B",
    ),
    _rel(
        "core_num_not_literal",
        "e:expr x:expr",
        "launch e in a Graph has core_num x, not a literal",
        f"{GB} Step D",
    ),
    _rel(
        "graph_call_in_expression",
        "e:expr g:fn",
        "call e of Graph g is no flat call statement",
        f"{GB} Step D",
    ),
    _rel(
        "host_tensor_to_device",
        "e:expr i:int w:var",
        "host control tensor w is argument i of device launch e",
        f"{GB} Host control tensors",
    ),
    _rel(
        "host_reads_device_value",
        "e:expr v:var",
        "host graph construction e reads v, a runtime or device value",
        f"{GB} Host control tensors",
    ),
    # GraphBoundaryLegalized's must-be-empty relations (rules/verifier.pyd)
    _rel(
        "assert_rename_survives",
        "v:var w:var",
        "rename v of boundary scalar w survived legalization",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_derivable_left",
        "v:var",
        "v could be computed at the call site but is left in the region",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_moving_window",
        "v:var x:expr",
        "view v (of x) keeps a window that can differ between calls",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_region_alloc",
        "v:var",
        "allocation v is left at the top level of the region",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_unslotted_arg",
        "e:expr w:var",
        "launch e reads scalar w, which has no slot and can differ between calls",
        f"{GB} Pass properties",
    ),
)

# ---- rows the Python decisions hand back to be worded (the SPMD prover's verdicts, the
# verifier's fixpoint): declared like relations, never seen by the engine
DECIDED_RELATIONS: tuple[Relation, ...] = (
    _rel(
        "graph_not_fixpoint",
        "g:fn",
        "Graph g still has values to hoist after legalization",
        f"{GB} Pass properties",
    ),
    _rel(
        "spmd_arity_mismatch",
        "callee:str args:int params:int ins:int",
        "an unproven launch of callee passes args arguments to params parameters (ins of them In)",
        f"{SP} Output contract",
    ),
    _rel(
        "spmd_outputs_unallocated",
        "callee:str outputs:str first:str",
        "an unproven launch of callee leaves output tensors (first among them) not preallocated",
        f"{SP} Output contract",
    ),
    _rel(
        "spmd_scope_unmapped",
        "callee:str core_num:str names:str",
        "an unproven spmd scope computes names read after it that no caller tensor preserves",
        f"{SP} Output contract",
    ),
    _rel(
        "spmd_return_unmapped",
        "callee:str slot:int target:str",
        "return slot of an unproven launch of callee (bound to target) maps to no caller tensor",
        f"{SP} Output contract",
    ),
    _rel(
        "spmd_shared_pipe_buffer",
        "name:str",
        "GM pipe buffer name has several uses in an unproven launch",
        f"{SP} Output contract",
    ),
    _rel(
        "spmd_literal_nonpositive",
        "kind:str callee:str core_num:int",
        "the launch or spmd scope (kind) of callee has a literal core_num <= 0",
        f"{SP} Overview",
    ),
    _rel(
        "spmd_guarded",
        "kind:str callee:str core_num:str why:str",
        "the launch or spmd scope (kind) of callee is not proven positive (why) and gets a guard",
        f"{SP} Overview",
    ),
    _rel(
        "spmd_unguarded",
        "kind:str callee:str",
        "a launch or scope (kind) of callee reached codegen unproven and unguarded",
        f"{SP} codegen preflight",
    ),
    _rel(
        "spmd_still_unproven",
        "callee:str",
        "after the pass, a launch of callee is still not proven positive",
        f"{SP} Pass properties",
    ),
)

DECLARED: dict[str, Relation] = {
    r.name: r for r in (*INPUT_RELATIONS, *DERIVED_RELATIONS, *DECIDED_RELATIONS)
}
"""Every declared relation by name: what the emitter and `query`'s catalogue read."""
