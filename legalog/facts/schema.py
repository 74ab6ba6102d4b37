"""The relational schema: every input relation the extractor emits, every relation the rules
derive, and the rows the Python decisions hand back to be worded, declared once.

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


# ---- every relation the rules derive (legalog/rules/*.pyd define them, with these columns in this
# order; tests/analyzer/test_codes.py holds the two together), by rule file
DERIVED_RELATIONS: tuple[Relation, ...] = (
    # ---- rules/base.pyd
    _rel("alias_edge", "V:var W:var", "tensor V is bound to tensor W as a bare alias", f"{GB} Overview"),
    _rel(
        "ancestor",
        "S:stmt P:stmt",
        "P encloses S as control flow (with-scopes are transparent)",
        f"{GB} Overview",
    ),
    _rel("buffer_root", "V:var R:var", "R is the first name of the buffer V denotes", f"{GB} Overview"),
    _rel("carried_edge", "V:var W:var", "loop-carried or phi V takes the value of W", f"{GB} Overview"),
    _rel("const_loop", "L:stmt", "loop L has a compile-time trip count", f"{GB} Overview"),
    _rel("core_num_of", "E:expr X:expr", "launch or scope E carries core_num X", f"{GB} Overview"),
    _rel("expr_fn", "E:expr F:fn", "expression E belongs to function F", f"{GB} Overview"),
    _rel("graph", "G:fn", "G is a Graph function", f"{GB} Overview"),
    _rel("graph_expr", "E:expr G:fn", "expression E sits in a statement of Graph G", f"{GB} Overview"),
    _rel("graph_list", "L:id G:fn", "L is Graph G's body list", f"{GB} Overview"),
    _rel("graph_stmt", "S:stmt G:fn", "statement S belongs to Graph G", f"{GB} Overview"),
    _rel("has_prov", "V:var", "V has an earlier name on its provenance walk", f"{GB} Overview"),
    _rel("has_return", "C:fn", "function C has a return statement", f"{GB} Overview"),
    _rel(
        "host_function", "F:fn", "F builds a host graph: it reads or writes a host tensor", f"{GB} Overview"
    ),
    _rel("in_kernel_scope", "S:stmt", "S sits inside a kernel scope", f"{GB} Overview"),
    _rel("inplace_edge", "V:var W:var", "V is the buffer W an in-place call rebinds", f"{GB} Overview"),
    _rel("is_under_runtime", "S:stmt", "S sits under some runtime control statement", f"{GB} Overview"),
    _rel(
        "kernel_scope",
        "S:stmt",
        "S is a `with pl.at(...)` or `with pl.spmd(n)` scope, outlined into a kernel",
        f"{GB} Overview",
    ),
    _rel("launch_result", "V:var E:expr P:int", "V is result slot P of launch E", f"{GB} Overview"),
    _rel(
        "literal_kind",
        "Kind:str",
        "an expression kind a literal scalar expression may have",
        f"{GB} Overview",
    ),
    _rel("multi_return", "C:fn", "function C returns more than one value", f"{GB} Overview"),
    _rel(
        "nonliteral",
        "X:expr",
        "X is not a literal scalar expression (PyPTO's IsLiteralScalarExpr)",
        f"{GB} Overview",
    ),
    _rel("output_count", "C:fn N:int", "C has N Out parameters", f"{GB} Overview"),
    _rel("output_param", "C:fn I:int", "parameter I of C is an Out parameter", f"{GB} Overview"),
    _rel("projection", "V:var T:var P:int", "V is element P of tuple T", f"{GB} Overview"),
    _rel(
        "projection_at",
        "S:stmt V:var T:var P:int",
        "statement S binds V to element P of tuple T",
        f"{GB} Overview",
    ),
    _rel("prov_edge", "V:var W:var", "a provenance step from V to W", f"{GB} Overview"),
    _rel("prov_node", "V:var", "V is on a provenance walk", f"{GB} Overview"),
    _rel(
        "prov_seed",
        "V:var",
        "provenance is walked from V (something asks where it comes from)",
        f"{GB} Overview",
    ),
    _rel("region", "G:fn", "Graph G's body is at hand (a region the pass rewrites)", f"{GB} Overview"),
    _rel(
        "ret_param",
        "C:fn P:int I:int",
        "return position P of C is its parameter I (return lineage)",
        f"{GB} Overview",
    ),
    _rel("returned", "V:var", "V is returned, or leads back to a returned value", f"{GB} Overview"),
    _rel("returned_prov", "V:var W:var", "a provenance step from a returned V to W", f"{GB} Overview"),
    _rel("root", "V:var R:var", "V's buffer is first named R", f"{GB} Overview"),
    _rel(
        "runtime_control",
        "C:stmt",
        "C is a while, an if or a loop whose trip count is not a compile-time constant",
        f"{GB} Overview",
    ),
    _rel(
        "same_buffer_edge", "V:var W:var", "V denotes the same buffer as the earlier name W", f"{GB} Overview"
    ),
    _rel("scalar_param", "V:var", "V is a scalar parameter of some function", f"{GB} Overview"),
    _rel("sole_output", "C:fn I:int", "parameter I is C's only Out parameter", f"{GB} Overview"),
    _rel("task_id", "V:var", "V holds a TASK_ID", f"{GB} Overview"),
    _rel("tensor_param", "V:var", "V is a tensor parameter of some function", f"{GB} Overview"),
    _rel("tuple_result", "T:var E:expr", "T is bound to the whole result of launch E", f"{GB} Overview"),
    _rel("under_loop", "S:stmt", "S sits under a loop", f"{GB} Overview"),
    _rel("under_runtime", "S:stmt C:stmt", "S sits under runtime control statement C", f"{GB} Overview"),
    _rel("use", "V:var S:stmt", "statement S reads variable V", f"{GB} Overview"),
    _rel(
        "value_kind",
        "Kind:str",
        "an expression kind that carries no variation of its own (constants, arithmetic)",
        f"{GB} Overview",
    ),
    _rel("var_fn", "V:var F:fn", "variable V is bound by an assignment in function F", f"{GB} Overview"),
    _rel("view", "V:var Src:var E:expr", "V is a tensor.slice E of Src", f"{GB} Overview"),
    # ---- rules/invariant.pyd
    _rel(
        "boundary_tensor_name",
        "V:var",
        "V is a non-scalar parameter, or a bare alias of one",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "dim_seed",
        "E:expr",
        "E is tensor.dim of a boundary tensor with a literal axis",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "known_var",
        "V:var",
        "V is bound in its function (a parameter, a binding, a loop index)",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "varying_expr",
        "E:expr",
        "expression E may differ between calls of its Graph",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "varying_var",
        "V:var",
        "V may differ between calls of its Graph (not replay-invariant)",
        f"{GB} Hoistable vs replay-invariant",
    ),
    # ---- rules/scalars.pyd
    _rel("alias_root", "V:var R:var", "the rename chain of V starts at R", f"{GB} Step A"),
    _rel(
        "analysed_root",
        "R:expr",
        "R is the root of an expression tree the hoisting analysis classifies",
        f"{GB} Step A",
    ),
    _rel(
        "blocking",
        "R:expr L:expr Why:str",
        "leaf L keeps tree R from being recomputed at the call site, for reason Why",
        f"{GB} Step A",
    ),
    _rel("bound_inside", "W:var S:stmt", "W is bound inside kernel scope S", f"{GB} Step A"),
    _rel(
        "call_under_runtime",
        "E:expr",
        "call E sits under runtime control (its loop is the culprit, not the scalar)",
        f"{GB} Step A",
    ),
    _rel("carried_var", "W:var", "W is loop-carried or branch-merged", f"{GB} Step A"),
    _rel("derivable_kind", "Kind:str", "an expression kind the call site can recompute", f"{GB} Step A"),
    _rel("hoistable", "V:var", "scalar V can be computed at every call site (Step A)", f"{GB} Step A"),
    _rel("hoisted_scalar", "V:var", "V becomes a new scalar parameter (Step A)", f"{GB} Step A"),
    _rel("inline_kind", "Kind:str", "an expression kind computed inline at a task argument", f"{GB} Step A"),
    _rel(
        "inline_varying_arg",
        "E:expr I:int X:expr",
        "argument I of launch E is X, computed inline and call-varying",
        f"{GB} Step A",
    ),
    _rel("is_scalar_alias", "V:var", "V is a bare rename", f"{GB} Step A"),
    _rel(
        "kept_invariant",
        "V:var",
        "V stays in the region: not hoistable, but replay-invariant",
        f"{GB} Step A",
    ),
    _rel("loop_var", "W:var", "W is a loop index", f"{GB} Step A"),
    _rel("region_call", "E:expr G:fn", "E is a call inside Graph G's region", f"{GB} Step A"),
    _rel("scalar_alias", "V:var W:var", "V is a bare rename of scalar W", f"{GB} Step A"),
    _rel("scalar_arg_name", "E:expr I:int W:var", "argument I of call E is the scalar W", f"{GB} Step A"),
    _rel(
        "scalar_def",
        "V:var E:expr",
        "scalar V is defined by E in a Graph (outside kernel scopes)",
        f"{GB} Step A",
    ),
    _rel("scalar_def_name", "V:var", "V is a scalar a Graph defines", f"{GB} Step A"),
    _rel(
        "scope_scalar_arg",
        "S:stmt W:var",
        "kernel scope S reads scalar W bound outside it (its argument once outlined)",
        f"{GB} Step A",
    ),
    _rel(
        "slot_ok",
        "W:var",
        "scalar W may reach a task: a parameter, hoisted or replay-invariant",
        f"{GB} Step A",
    ),
    _rel("tree", "R:expr X:expr", "X is a node of the tree rooted at R", f"{GB} Step A"),
    _rel("underivable", "R:expr", "tree R cannot be recomputed at the call site", f"{GB} Step A"),
    _rel(
        "unslotted_scalar",
        "E:expr I:int W:var",
        "launch (or kernel scope) E reads call-varying scalar W in argument I, with no boundary slot",
        f"{GB} Hoistable vs replay-invariant",
    ),
    # ---- rules/views.pyd
    _rel("bad_view", "V:var", "view V is neither hoistable nor replay-invariant", f"{GB} Step B"),
    _rel("boundary_root", "R:var", "R is a tensor parameter of a Graph", f"{GB} Step B"),
    _rel("boundary_view", "V:var", "V is a view of a boundary tensor", f"{GB} Step B"),
    _rel("buffer_anchor", "X:var A:var", "X denotes the view or boundary root A", f"{GB} Step B"),
    _rel("buffer_node", "X:var", "X is a view source or a name on its way to one", f"{GB} Step B"),
    _rel("hoisted_view", "V:var", "view V is taken at every call site instead (Step B)", f"{GB} Step B"),
    _rel("inherits_bad", "V:var", "view V is taken of a bad view", f"{GB} Step B"),
    _rel("kept_view", "V:var", "view V stays: its window is the same on every replay", f"{GB} Step B"),
    _rel(
        "moving_view",
        "V:var",
        "view V of a boundary tensor has a window that differs between calls",
        f"{GB} Step B",
    ),
    _rel(
        "view_anchor", "V:var A:var", "view V is taken of the nearest view or boundary root A", f"{GB} Step B"
    ),
    _rel(
        "view_extent_varies",
        "V:var X:expr",
        "view V has extent X, neither constant nor replay-invariant",
        f"{GB} Step B",
    ),
    _rel("view_operand", "V:var R:expr", "R is an offset or shape operand of view V", f"{GB} Step B"),
    _rel("view_source", "X:var", "X is the source of some view", f"{GB} Step B"),
    _rel(
        "view_underivable",
        "V:var",
        "an operand of view V cannot be recomputed at the call site",
        f"{GB} Step B",
    ),
    _rel("view_varying", "V:var", "an operand of view V may differ between calls", f"{GB} Step B"),
    # ---- rules/allocs.pyd
    _rel(
        "alloc_under_runtime",
        "V:var C:stmt",
        "allocation V sits under runtime control statement C",
        f"{GB} Step D",
    ),
    _rel("create_dim", "V:var X:expr", "X is an extent of allocation V", f"{GB} Step C"),
    _rel(
        "create_shape_varies",
        "V:var X:expr",
        "allocation V has extent X, not a compile-time constant",
        f"{GB} Step C",
    ),
    _rel(
        "has_varying_shape",
        "V:var",
        "some extent of allocation V is not a compile-time constant",
        f"{GB} Step C",
    ),
    _rel("hoisted_alloc", "V:var", "allocation V moves to every call site (Step C)", f"{GB} Step C"),
    _rel("left_alloc", "V:var S:stmt", "allocation V stays at statement S of the region", f"{GB} Step C"),
    _rel(
        "region_create",
        "V:var E:expr S:stmt",
        "statement S of a Graph allocates V with tensor.create E",
        f"{GB} Step C",
    ),
    _rel("region_full", "E:expr G:fn", "call E of tensor.full inside Graph G's region", f"{GB} Step C"),
    # ---- rules/topology.pyd
    _rel("batch_size", "L:id N:int", "list L's batch holds N allocations", f"{GB} Step D"),
    _rel("batched_alloc", "V:var L:id", "allocation V shares list L's alloc_tensors batch", f"{GB} Step D"),
    _rel("core_num_reads", "E:expr W:var", "the core_num of launch E reads W", f"{GB} Step D"),
    _rel("core_num_tree", "X:expr Y:expr", "Y is a node of the core_num tree X", f"{GB} Step D"),
    _rel(
        "gm_consumer",
        "V:var P:int",
        "GM pipe buffer V is first read by a node at position P of its list",
        f"{GB} Step D",
    ),
    _rel("gm_first", "V:var P:int", "the first position a node reads GM pipe buffer V at", f"{GB} Step D"),
    _rel("gm_first_call", "V:var E:expr", "E is the first node that reads GM pipe buffer V", f"{GB} Step D"),
    _rel(
        "gm_individual",
        "V:var",
        "GM pipe buffer V leaves the shared batch (allocated on its own)",
        f"{GB} Step D",
    ),
    _rel("graph_node", "X:expr L:id", "call X is a node, in list L of a Graph body", f"{GB} Step D"),
    _rel("has_mult", "L:id", "list L has a known iteration count", f"{GB} Step D"),
    _rel("has_nodes", "G:fn", "Graph G records some node", f"{GB} Step D"),
    _rel(
        "launch_under_runtime",
        "X:expr C:stmt",
        "launch X sits under runtime control statement C",
        f"{GB} Step D",
    ),
    _rel(
        "list_mult",
        "L:id M:int",
        "list L runs M times per call (the product of enclosing constant trip counts)",
        f"{GB} Step D",
    ),
    _rel(
        "local_before",
        "V:var W:var",
        "W, bound between allocation V and its first consumer, feeds that consumer's core_num",
        f"{GB} Step D",
    ),
    _rel("node_count", "G:fn N:int", "Graph G records N nodes per call", f"{GB} Step D"),
    _rel(
        "node_count_over_limit",
        "G:fn N:int",
        "Graph G launches N tasks, over the per-graph limit",
        f"{GB} Step D",
    ),
    _rel("node_count_zero", "G:fn", "Graph G launches no task", f"{GB} Step D"),
    _rel(
        "node_expr",
        "X:expr",
        "X is a call: a node of the task graph if it sits in a Graph body",
        f"{GB} Step D",
    ),
    _rel("node_total", "G:fn N:int", "the weighted node count of Graph G", f"{GB} Step D"),
    _rel("node_weight", "X:expr G:fn M:int", "node X counts M times in Graph G", f"{GB} Step D"),
    _rel("region_create_name", "W:var", "W names an allocation of a Graph region", f"{GB} Step D"),
    _rel("scope_node", "S:stmt L:id", "kernel scope S is a node of list L of a Graph body", f"{GB} Step D"),
    _rel(
        "unbounded", "G:fn", "Graph G has a node under a loop with no compile-time trip count", f"{GB} Step D"
    ),
    # ---- rules/boundary.pyd
    _rel(
        "core_num_not_literal",
        "E:expr X:expr",
        "launch E in a Graph has core_num X, not a literal",
        f"{GB} Step D",
    ),
    _rel(
        "graph_call_in_expression",
        "E:expr G:fn",
        "call E of Graph G is no flat call statement",
        f"{GB} Step D",
    ),
    _rel(
        "graph_call_missing_arg",
        "E:expr I:int",
        "Graph call E supplies no argument for parameter I",
        f"{GB} Step D",
    ),
    _rel(
        "graph_calls_graph",
        "E:expr G:fn Callee:fn",
        "call E in Graph G launches Graph Callee",
        f"{GB} Step D",
    ),
    _rel("graph_launch", "E:expr G:fn Caller:fn", "E in Caller launches Graph G", f"{GB} Step D"),
    _rel("graph_launch_deps", "E:expr", "Graph launch E carries deps=", f"{GB} Step D"),
    _rel("graph_launch_predicate", "E:expr", "Graph launch E carries a dispatch predicate", f"{GB} Step D"),
    _rel("graph_no_tensor", "G:fn", "Graph G takes no tensor parameter", f"{GB} Step D"),
    _rel(
        "graph_too_many_scalars",
        "G:fn N:int",
        "Graph G has N scalar parameters after Step A, over the limit",
        f"{GB} Step D",
    ),
    _rel(
        "graph_too_many_tensors",
        "G:fn N:int",
        "Graph G has N tensor parameters after hoisting, over the limit",
        f"{GB} Step D",
    ),
    _rel(
        "graph_wrong_runtime",
        "G:fn R:str",
        "Graph G compiled for runtime R, not host_build_graph",
        f"{GB} Step D",
    ),
    _rel("has_arg", "E:expr I:int", "launch E passes an argument at position I", f"{GB} Step D"),
    _rel("has_tensor_param", "G:fn", "G has a tensor parameter", f"{GB} Step D"),
    _rel("hoisting_graph", "G:fn", "Graph G hoists a scalar, so its calls get new arguments", f"{GB} Step D"),
    _rel("holds_launch", "X:expr", "expression X is a launch", f"{GB} Step D"),
    _rel("host_runtime", "R:str", "R is the runtime that records Graphs", f"{GB} Step D"),
    _rel("in_direction", "Dir:str", "Dir is the direction a boundary scalar may have", f"{GB} Step D"),
    _rel(
        "returns_computed",
        "G:fn P:int R:expr",
        "Graph G returns at position P a value R it computed, not a parameter",
        f"{GB} Prerequisite",
    ),
    _rel("returns_param", "G:fn P:int", "return position P of G names one of its parameters", f"{GB} Step D"),
    _rel(
        "runtime_allocated_output",
        "E:expr I:int",
        "argument I of Graph launch E has direction output",
        f"{GB} Step D",
    ),
    _rel("scalar_after", "G:fn V:var", "V is a scalar parameter of G after Step A", f"{GB} Step D"),
    _rel(
        "scalar_param_not_in",
        "V:var D:str",
        "Graph scalar parameter V is declared with direction D, not In",
        f"{GB} Step D",
    ),
    _rel("scalar_total", "G:fn N:int", "G has N scalar parameters after Step A", f"{GB} Step D"),
    _rel(
        "statement_call",
        "E:expr",
        "call E is a statement of its own: an assignment's value or an expression statement",
        f"{GB} Step D",
    ),
    _rel("tensor_after", "G:fn V:var", "V is a tensor parameter of G after the hoists", f"{GB} Step D"),
    _rel("tensor_total", "G:fn N:int", "G has N tensor parameters after the hoists", f"{GB} Step D"),
    # ---- rules/host_control.pyd
    _rel("device_callee", "C:fn", "C runs on the device", f"{GB} Host control tensors"),
    _rel("device_kind", "Kind:str", "a function type that runs on the device", f"{GB} Host control tensors"),
    _rel("device_value", "V:var", "V is produced by a task (a device value)", f"{GB} Host control tensors"),
    _rel(
        "host_reads_device_value",
        "E:expr V:var",
        "host graph construction E reads V, a runtime or device value",
        f"{GB} Host control tensors",
    ),
    _rel(
        "host_tensor",
        "R:var",
        "the buffer R is read or written by host graph construction",
        f"{GB} Host control tensors",
    ),
    _rel(
        "host_tensor_to_device",
        "E:expr I:int W:var",
        "host control tensor W is argument I of device launch E",
        f"{GB} Host control tensors",
    ),
    _rel(
        "root_or_self",
        "V:var R:var",
        "tensor V's buffer is first named R (V itself when it has no earlier name)",
        f"{GB} Host control tensors",
    ),
    # ---- rules/spmd.pyd
    _rel("alias_of", "S:stmt W:var V:var", "S binds W as a bare alias of V", f"{SP} Overview"),
    _rel("all_slots_escape", "E:expr", "the whole result of E is used: every slot escapes", f"{SP} Overview"),
    _rel("annotated_scalar", "S:stmt V:var X:expr", "S binds annotated scalar V to X", f"{SP} Overview"),
    _rel(
        "bare_use",
        "E:expr S:stmt",
        "statement S uses the result of E other than by projection",
        f"{SP} Overview",
    ),
    _rel("bound_in_scope", "Sc:stmt V:var", "scope Sc's body binds V", f"{SP} Overview"),
    _rel("counts_up", "L:stmt Lo:int", "loop L counts up from the literal Lo", f"{SP} Overview"),
    _rel(
        "dead_result_binding",
        "E:expr S:stmt W:var",
        "statement S binds W from E's result and nothing uses it",
        f"{SP} Overview",
    ),
    _rel(
        "def_at", "S:stmt L:id P:int", "definition S is visible in list L from position P", f"{SP} Overview"
    ),
    _rel(
        "def_exposed", "S:stmt T:stmt", "definition S is visible from statement T's list on", f"{SP} Overview"
    ),
    _rel(
        "graph_spmd_site",
        "E:expr G:fn C:fn",
        "launch E of C with a core_num sits in Graph G",
        f"{SP} Overview",
    ),
    _rel("launch_value", "E:expr T:var", "T names the whole result of launch E", f"{SP} Overview"),
    _rel("live", "V:var", "V is live: used, or bound transparently to a live name", f"{SP} Overview"),
    _rel("live_use", "V:var S:stmt", "a statement other than a transparent binding uses V", f"{SP} Overview"),
    _rel("multi_binding", "S:stmt", "statement S binds several results of a scope", f"{SP} Overview"),
    _rel(
        "point_at",
        "E:expr L:id P:int",
        "launch E sits at position P of list L (directly or through enclosing statements)",
        f"{SP} Overview",
    ),
    _rel("proj_stmt", "S:stmt", "S is a tuple projection statement", f"{SP} Overview"),
    _rel("read_outside", "Sc:stmt V:var", "V, bound by scope Sc, is read outside it", f"{SP} Overview"),
    _rel(
        "result_name",
        "E:expr T:var",
        "T names the result of E, or a transparent binding of it",
        f"{SP} Overview",
    ),
    _rel(
        "scalar_kind",
        "Kind:str",
        "an expression kind of a pure scalar definition (PyPTO's IsScalarArithmetic)",
        f"{SP} Overview",
    ),
    _rel(
        "scope_binding",
        "Sc:stmt S:stmt P:int V:var",
        "scope Sc binds V (slot P) at statement S",
        f"{SP} Overview",
    ),
    _rel(
        "scratch_arg",
        "E:expr V:var S:stmt",
        "launch E is passed compiler GM pipe scratch V allocated at S",
        f"{SP} Overview",
    ),
    _rel("scratch_use", "V:var X:expr", "X reads GM pipe scratch V", f"{SP} Overview"),
    _rel("shape_query", "S:stmt V:var X:expr", "S binds V to a tensor.dim X", f"{SP} Overview"),
    _rel("shared_scratch", "E:expr V:var", "launch E's scratch V is used more than once", f"{SP} Overview"),
    _rel(
        "slot_escapes",
        "E:expr P:int",
        "return slot P of E escapes (its projection is live, or is a TaskId)",
        f"{SP} Overview",
    ),
    _rel("spmd_annotation", "V:var S:stmt", "S annotates V's type", f"{SP} Overview"),
    _rel(
        "spmd_assign", "S:stmt V:var X:expr", "statement S of such a function binds V to X", f"{SP} Overview"
    ),
    _rel(
        "spmd_caller",
        "F:fn",
        "F may hold an SPMD launch the pass decides (Orchestration or Opaque)",
        f"{SP} Overview",
    ),
    _rel(
        "spmd_def",
        "S:stmt V:var X:expr",
        "S is a pure scalar definition of V by X the prover may assume",
        f"{SP} Overview",
    ),
    _rel("spmd_fact", "E:expr B:stmt Arm:str", "launch E sits in arm Arm of branch B", f"{SP} Overview"),
    _rel("spmd_function", "F:fn", "F holds a launch or scope the pass decides", f"{SP} Overview"),
    _rel("spmd_in_param", "C:fn I:int P:var", "parameter I of C, P, is an In parameter", f"{SP} Overview"),
    _rel(
        "spmd_in_place",
        "Sc:stmt V:var S:stmt I:int W:var",
        "scope Sc's result V is written in place into caller tensor W (argument I of S)",
        f"{SP} Overview",
    ),
    _rel(
        "spmd_index_count",
        "E:expr L:stmt",
        "the core_num of E is the index of loop L, which counts up from at least 1",
        f"{SP} Overview",
    ),
    _rel("spmd_launch", "E:expr C:fn", "E launches C with a core_num", f"{SP} Overview"),
    _rel("spmd_literal_count", "E:expr N:int", "the core_num of E is the literal N", f"{SP} Overview"),
    _rel("spmd_loop", "E:expr L:stmt", "launch E sits in counted loop L", f"{SP} Overview"),
    _rel(
        "spmd_out_param",
        "C:fn I:int P:var",
        "parameter I of C, P, is a Tensor Out/InOut parameter",
        f"{SP} Overview",
    ),
    _rel("spmd_point", "E:expr S:stmt", "launch or scope E is decided at statement S", f"{SP} Overview"),
    _rel(
        "spmd_ret_param",
        "E:expr P:int I:int",
        "return slot P of launch E's callee writes back its parameter I",
        f"{SP} Overview",
    ),
    _rel("spmd_scope", "S:stmt", "S is a `with pl.spmd(n)` scope", f"{SP} Overview"),
    _rel(
        "spmd_scope_output",
        "Sc:stmt S:stmt P:int V:var",
        "scope Sc's result V (slot P, bound at S) is read after it",
        f"{SP} Overview",
    ),
    _rel(
        "spmd_scope_site",
        "S:stmt E:expr F:fn",
        "scope S of F (core_num call E) is one the pass decides",
        f"{SP} Overview",
    ),
    _rel(
        "spmd_site",
        "E:expr F:fn C:fn S:stmt",
        "launch E of C at statement S of F is one the pass decides",
        f"{SP} Overview",
    ),
    _rel(
        "spmd_type_flow", "V:var W:var E:expr", "carried or phi V takes W's type through E", f"{SP} Overview"
    ),
    _rel(
        "transparent",
        "S:stmt W:var V:var",
        "S binds W to (part of) V without using the value",
        f"{SP} Overview",
    ),
    _rel("transparent_stmt", "S:stmt", "S is a transparent binding", f"{SP} Overview"),
    _rel("value_escapes", "E:expr", "the single-valued result of E is live", f"{SP} Overview"),
    # ---- rules/explain.pyd
    _rel(
        "invariant_seed",
        "X:expr Why:str",
        "X is a replay-invariant seed of its tree (a literal, a constant-trip loop index, a boundary dim)",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "var_varies_because",
        "V:var Why:str",
        "V may differ between calls, for reason Why",
        f"{GB} Hoistable vs replay-invariant",
    ),
    _rel(
        "varying_leaf",
        "E:expr X:expr Why:str",
        "leaf X of E's tree makes E vary, for reason Why",
        f"{GB} Hoistable vs replay-invariant",
    ),
    # ---- rules/verifier.pyd
    _rel(
        "assert_derivable_left",
        "V:var",
        "V could be computed at the call site but is left in the region",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_moving_window",
        "V:var X:expr",
        "view V (offset X) keeps a window that can differ between calls",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_region_alloc",
        "V:var",
        "allocation V is left at the top level of the region",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_rename_survives",
        "V:var W:var",
        "rename V of boundary scalar W survived legalization",
        f"{GB} Pass properties",
    ),
    _rel(
        "assert_unslotted_arg",
        "E:expr W:var",
        "launch E reads scalar W, which has no slot and can differ between calls",
        f"{GB} Pass properties",
    ),
    _rel(
        "v_arith_kind",
        "Kind:str",
        "an expression kind the verifier counts as recomputable arithmetic",
        f"{GB} Pass properties",
    ),
    _rel(
        "v_boundary",
        "V:var",
        "V is a tensor parameter of a Graph (the verifier's own reading)",
        f"{GB} Pass properties",
    ),
    _rel(
        "v_needs_body",
        "E:expr",
        "tree E needs the region's body (it cannot be computed at the call site)",
        f"{GB} Pass properties",
    ),
    _rel(
        "v_scalar_def",
        "V:var E:expr G:fn",
        "scalar V is defined by E in Graph G (the verifier's own reading)",
        f"{GB} Pass properties",
    ),
    _rel("v_tree", "E:expr X:expr", "X is a node of the verifier's tree E", f"{GB} Pass properties"),
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
