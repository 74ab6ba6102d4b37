"""The relational schema: every input relation the extractor emits, declared once.

Ids are strings: a function by its name (`F`), a variable as `F/name` (`V`), an expression node
as `F/eN` (`E`), a statement as `F/sN` (`S`).  Numbers are ints.  No bools or floats ever reach
the engine (pyDatalog equates 1 and True; PYDATALOG.md §2.7).

Each declaration names the spec paragraph it serves, so `legalog query --list` and the schema
file of `legalog facts` explain themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ColumnType = Literal["id", "str", "int"]

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
