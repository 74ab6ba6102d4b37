"""Every diagnostic code legalog emits, declared once: its title, default severity, what to do,
why the runtime cares, and (for a code a rule decides) the derived relation whose rows are its
findings, the message each row becomes and the runtime limit it checks.  One table, so the
decisions, the text output, SARIF rules, `legalog rule` and docs/codes.md never disagree: adding a
code is one entry here and one rule in `legalog/rules/` (CONTRIBUTING.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from legalog.facts.limits import GRAPH_MAX_NODES, GRAPH_MAX_SCALAR_ARGS, GRAPH_MAX_TENSOR_ARGS, LIMITS

Severity = Literal["error", "warning", "info"]
# What `legalog fix` edits for a finding of the code: nothing; the function it is in; or that
# function and every function launching it (a Graph whose signature the rewrite extends).
FixKind = Literal["none", "function", "callers"]


@dataclass(frozen=True, slots=True)
class Wording:
    """How each row of one declared relation (legalog/facts/schema.py) becomes a finding: `message`
    is a str.format template over the relation's column names and `limit` (and, on a row with
    columns `E` and `I`, `arg` and `param`: that call-site position named by callee and parameter);
    `at` names the column whose place the finding takes (default: the first `fn`/`var`/`expr`
    one), `subject` the column naming what it is about.  `severity` overrides the code's own (an
    SP310 the verifier reports is an error); a row worded `fixable` is one `legalog fix` repairs."""

    relation: str
    message: str
    subject: str | None = None
    at: str | None = None
    severity: Severity | None = None
    fixable: bool = False


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    name: str
    title: str
    help: str
    note: str
    severity: Severity = "error"
    # How the code's findings are worded: one Wording per relation whose rows are its findings
    # (the pass's, the verifier's, the SPMD prover's); a code no relation reports has none.
    wordings: tuple[Wording, ...] = ()
    limit: str | None = None  # a key of legalog.facts.limits.LIMITS: the runtime limit checked
    fix: FixKind = "none"

    @property
    def limit_value(self) -> int | None:
        return None if self.limit is None else LIMITS[self.limit]


_GB = "host_build_graph"

# The two passes, by legalog's name for each (`passes=`, `--pass`) and as PyPTO names them: how
# messages, `validate`'s reports and passes_dump file names say which one.
PassTitle = Literal["LegalizeGraphBoundary", "LegalizeSpmdLaunches"]
PASS_TITLES: dict[str, PassTitle] = {"graph": "LegalizeGraphBoundary", "spmd": "LegalizeSpmdLaunches"}
# Where the seeds put each among PyPTO's passes ("Position in the pipeline"): the pass it runs
# after (for the Graph pass, the final Simplify) and the one it runs immediately before.
PASS_POSITIONS: dict[str, tuple[str, str]] = {
    "spmd": ("LowerL2TensorCollectives", "DeriveCallDirections"),
    "graph": ("Simplify", "MaterializeRuntimeScopes"),
}

CODES: dict[str, CodeInfo] = {
    info.code: info
    for info in (
        CodeInfo(
            "PARSE",
            "unreadable-input",
            "the input is not a readable PyPTO IR dump",
            "pass a dump written by PyPTO's `python_print` (passes_dump/NN_after_<Pass>.py)",
            "legalog reads dumps with Python's `ast` and never executes them",
        ),
        CodeInfo(
            "INTERNAL",
            "internal-error",
            "legalog itself failed on this input: a bug in legalog, not in the dump",
            "report it: the command you ran, `legalog --version`, and the dump (rerun with --debug for the traceback)",
            "the input may well be fine; nothing was written for it",
        ),
        CodeInfo(
            "TIMEOUT",
            "analysis-timeout",
            "the analysis of this file did not finish within the time limit",
            "raise the limit (`check --timeout SECONDS`, 0 for none), or report the dump if it is not unusually large",
            "the batch stops a file past its limit so that the other files are still reported",
        ),
        CodeInfo(
            "IR401",
            "call-arity",
            "a call or launch passes more or fewer arguments than its callee has parameters",
            "pass exactly the callee's parameters (a Submit may leave out trailing Out/InOut outputs)",
            "PyPTO's parser refuses the call (`Function 'f' expects N argument(s)`); an extra argument would land in a slot of another type",
        ),
        CodeInfo(
            "IR402",
            "unknown-callee",
            "a call or launch names a function the program does not define",
            "define the function in the program, or call one that exists",
            "PyPTO's parser refuses it (`Function 'f' not defined in program`)",
        ),
        CodeInfo(
            "IR403",
            "duplicate-definition",
            "a parameter or function name is defined twice",
            "give every parameter of a function, and every function of the program, its own name",
            "Python refuses duplicate parameters (`duplicate argument`), and a second definition hides the first",
        ),
        CodeInfo(
            "IR404",
            "integer-out-of-range",
            "an integer constant (as written, or as PyPTO folds it) does not fit INT64",
            "use a value within -2**63 .. 2**63-1",
            "PyPTO's parser folds literal arithmetic and stores every integer as a 64-bit ConstInt",
        ),
        CodeInfo(
            "IR405",
            "recursion",
            "a function calls or launches itself, directly or through others",
            "unroll the recursion into a loop in the orchestration function",
            "a task cannot launch its own function: the runtime builds a finite task graph, and recursion has no bottom",
        ),
        CodeInfo(
            "IR406",
            "graph-unannotated-binding",
            "a binding inside a Graph has no type annotation",
            "annotate the binding with its type, as PyPTO's python_print writes it (`x: pl.Scalar[pl.INDEX] = ...`)",
            "Steps A-C turn derived values into new typed parameters; a value without a type can be neither hoisted nor judged",
        ),
        CodeInfo(
            "IR407",
            "jump-outside-loop",
            "a `break` or `continue` outside a loop",
            "remove the jump, or put it inside the `pl.range` / `pl.while_` loop it belongs to",
            "Python's compiler refuses it (`'break' outside loop`), so PyPTO's parser never reads the program",
        ),
        CodeInfo(
            "IR408",
            "generator-or-coroutine",
            "an `await` or a `yield` in a function body",
            "compute the value with a PyPTO op; `pl.yield_(...)` is the way a loop or branch yields",
            "`await` outside an async function does not compile, and `yield` makes a Python generator: neither is a PyPTO function",
        ),
        CodeInfo(
            "IR409",
            "python-compile-error",
            "Python's compiler refuses the text (a `return` in the class body, a `nonlocal` with no binding, a repeated keyword, ...)",
            "write what the compiler's message asks for; the dump as PyPTO printed it compiles",
            "PyPTO's parser reads only source Python compiles, and legalog never writes back what it does not",
        ),
        CodeInfo(
            "IR411",
            "python-loop",
            "a `for` loop iterates over something other than a PyPTO loop (`pl.range`, `pl.parallel`, `pl.unroll`, `pl.pipeline`, `pl.while_`, `pl.spmd`, `pl.split_aiv`)",
            "iterate over the PyPTO loop the body means (`for i in pl.range(n):`); a Python loop is no IR",
            "PyPTO's parser refuses it (`For loop must use pl.range(), pl.parallel(), ...`): a dump PyPTO printed holds no other loop",
        ),
        CodeInfo(
            "IR412",
            "loop-carry-mismatch",
            "a loop's iteration arguments, its `init_values` and the names its `pl.yield_` binds do not match one to one",
            "give the loop one iteration argument per initial value (`for i, (a, b) in pl.range(n, init_values=(a0, b0)):`) and bind one result per iteration argument (`a1, b1 = pl.yield_(a, b)`)",
            "PyPTO's parser refuses it (`Mismatch: N iter_args but M init_values`, `For loop has N iteration arguments but M return variables`): each carried value needs its start, its slot and its result",
        ),
        CodeInfo(
            "IR413",
            "undefined-name",
            "a name is read where nothing binds it yet (no parameter, no earlier binding, no dimension or other name of the module)",
            "bind the name before reading it, or make it a parameter; the dump as PyPTO printed it binds every name it reads",
            "PyPTO's parser refuses it (`Undefined variable 'x'`), and the rules trace such a value to nothing; a warning, not a refusal: dumps from older PyPTO printers hold such reads (a kernel returning its caller's result)",
            "warning",
        ),
        CodeInfo(
            "IR414",
            "branch-yield-mismatch",
            "an `if` yields results in one branch that its other branch does not yield the same way",
            "yield the same names from both branches, in the same order (`r = pl.yield_(v)` in the then branch and `r = pl.yield_(w)` in an `else`), or yield nothing and rebind nothing",
            "PyPTO's parser gives the `if` every result either branch yields, so a path without that yield leaves them unset: its SSA verifier reports the missing yield and orchestration codegen refuses the `if`",
        ),
        CodeInfo(
            "IR415",
            "program-defined-again",
            "the dump holds identical copies of its program (dumps concatenated)",
            "keep one copy of the program per dump (`legalog fix` writes it once)",
            "PyPTO's `pl.parse` compiles one program of a name, finding its source by that name, so copies are harmless only while they are identical; copies that differ are refused (PARSE), since which one is compiled depends on the Python version",
            "warning",
        ),
        CodeInfo(
            "IR410",
            "header-name-mismatch",
            "the `# pypto.program:` header names another program than the class",
            "make the header's name the class's name (legalog keeps both as written)",
            "PyPTO names the program after the class; a header that says otherwise misleads whoever reads the dump",
            "warning",
        ),
        CodeInfo(
            "GB101",
            "graph-wrong-runtime",
            "a Graph function is compiled for a runtime other than host_build_graph",
            f"compile with `--runtime {_GB}`, or turn the Graph into an Orchestration function",
            "GraphTaskArgs and rt_submit_graph exist only in host_build_graph's orchestration API",
            wordings=(
                Wording(
                    "graph_wrong_runtime",
                    "Graph function `{G}` requires the host_build_graph runtime, but this compilation targets `{R}`",
                ),
            ),
        ),
        CodeInfo(
            "GB102",
            "graph-no-tensor-param",
            "a Graph has no tensor parameter",
            "give the Graph at least one tensor parameter",
            "a graph with an empty boundary has nothing to patch on replay; the runtime refuses to cache it",
            wordings=(
                Wording(
                    "graph_no_tensor",
                    "Graph function `{G}` takes no tensor parameters: its boundary is empty",
                ),
            ),
        ),
        CodeInfo(
            "GB103",
            "graph-too-many-tensors",
            f"a Graph has more than {GRAPH_MAX_TENSOR_ARGS} tensor parameters",
            "split the Graph, or pass fewer tensors",
            "GRAPH_MAX_TENSOR_ARGS: the boundary is a fixed-size GraphTaskArgs",
            limit="graph_max_tensor_args",
            wordings=(
                Wording(
                    "graph_too_many_tensors",
                    "Graph function `{G}` takes {N} tensor parameters after hoisting, over the runtime's limit of {limit}",
                ),
            ),
        ),
        CodeInfo(
            "GB104",
            "graph-too-many-scalars",
            f"a Graph has more than {GRAPH_MAX_SCALAR_ARGS} scalar parameters (after Step A)",
            "split the Graph or derive fewer boundary scalars",
            "GRAPH_MAX_SCALAR_ARGS; Step A adds scalar parameters, so this is counted after hoisting",
            limit="graph_max_scalar_args",
            wordings=(
                Wording(
                    "graph_too_many_scalars",
                    "Graph function `{G}` takes {N} scalar parameters after Step A, over the runtime's limit of {limit}",
                ),
            ),
        ),
        CodeInfo(
            "GB105",
            "graph-runtime-allocated-output",
            "a Graph call lets the runtime allocate a boundary output",
            "allocate the output at the call site and pass it (output_existing / inout)",
            "ArgDirection::Output requests a new allocation, which a Graph boundary cannot record",
            wordings=(
                Wording(
                    "runtime_allocated_output",
                    "{arg} of this Graph launch has direction `output`: the runtime would allocate a boundary output",
                ),
            ),
        ),
        CodeInfo(
            "GB106",
            "graph-scalar-not-in",
            "a Graph scalar parameter is not In",
            "make the scalar parameter In; return values through tensors",
            "a boundary scalar is passed by value and replayed from the call site",
            wordings=(
                Wording(
                    "scalar_param_not_in",
                    "Graph scalar parameter `{V}` is declared {D}; a boundary scalar can only be In",
                    subject="V",
                ),
            ),
        ),
        CodeInfo(
            "GB107",
            "graph-returns-computed",
            "a Graph returns something other than its own parameters",
            "return only the Graph's own (InOut/Out) parameters",
            "rt_submit_graph yields a valid task id only on a cache hit, so nothing can depend on a graph call's result",
            wordings=(
                Wording(
                    "returns_computed",
                    "Graph function `{G}` returns `{R}` (position {P}), a value it computed rather than one of its own parameters",
                    subject="R",
                    at="R",
                ),
            ),
        ),
        CodeInfo(
            "GB108",
            "graph-node-count",
            f"a Graph's launched-task count is not within 1..{GRAPH_MAX_NODES}",
            f"keep between 1 and {GRAPH_MAX_NODES} nodes (launches per loop iteration, dummies and allocation batches)",
            "graph_execution_storage_layout refuses a node count of zero and one over GRAPH_MAX_NODES",
            limit="graph_max_nodes",
            wordings=(
                Wording("node_count_zero", "Graph function `{G}` launches no tasks"),
                Wording(
                    "node_count_over_limit",
                    "Graph function `{G}` launches {N} tasks, over the runtime's per-graph limit of {limit}",
                ),
            ),
        ),
        CodeInfo(
            "GB109",
            "graph-alloc-under-runtime-control",
            "an allocation sits under a runtime loop or branch",
            "move the allocation out of the runtime loop/branch, or make the loop bounds constant",
            "each allocation records a node, so a count that varies between calls is a topology that varies",
            wordings=(
                Wording(
                    "alloc_under_runtime",
                    "`{V}` is allocated under a {C}, so the number of allocation nodes can differ between calls",
                    subject="V",
                ),
                Wording(
                    "assert_region_alloc",
                    "allocation `{V}` is left at the top level of the region",
                    subject="V",
                ),
            ),
        ),
        CodeInfo(
            "GB110",
            "graph-alloc-shape-not-constant",
            "an allocation's shape is not a compile-time constant",
            "use a constant shape, or allocate at the call site and pass the buffer in",
            "recording copies the shape into the node; a shape read from a boundary scalar is frozen at the first call's value",
            wordings=(
                Wording(
                    "create_shape_varies",
                    "`{V}` is allocated with extent `{X}`, which is not a compile-time constant",
                    subject="V",
                ),
            ),
        ),
        CodeInfo(
            "GB111",
            "graph-tensor-full",
            "tensor.full inside a Graph",
            "create and fill the tensor at the call site, and pass it in",
            "orchestration codegen has no lowering for tensor.full and rejects it as a misplaced tensor op",
            wordings=(
                Wording("region_full", "Graph function `{G}` calls tensor.full inside the region", at="E"),
            ),
        ),
        CodeInfo(
            "GB112",
            "graph-launch-under-runtime-control",
            "a launch sits under a runtime loop, while or if",
            "make the loop bounds constant, or move the control flow to the caller",
            "the recording fixes the topology on the first call and replays it unchanged",
            wordings=(
                Wording(
                    "launch_under_runtime",
                    "this launch sits under a {C}: the recording fixes the launch count and branch on the first call",
                ),
            ),
        ),
        CodeInfo(
            "GB113",
            "graph-inline-varying-arg",
            "a call-varying scalar is computed inline at a task argument",
            "bind the expression to a name before the launch so Step A can hoist it",
            "an inline expression has no name to hoist and no boundary slot, so replay freezes it at the first call's value",
            wordings=(
                Wording(
                    "inline_varying_arg",
                    "{arg} `{X}` is computed inline and can differ between calls; it has no name to hoist and no boundary slot",
                    subject="X",
                    at="X",
                ),
            ),
        ),
        CodeInfo(
            "GB114",
            "graph-calls-graph",
            "a Graph calls a Graph",
            "call both Graphs from the orchestration function instead",
            "the runtime cannot record a graph from inside one it is already recording",
            wordings=(
                Wording(
                    "graph_calls_graph",
                    "Graph function `{G}` calls Graph function `{Callee}`: nested graphs are not supported",
                    subject="Callee",
                ),
            ),
        ),
        CodeInfo(
            "GB115",
            "graph-call-missing-args",
            "a Graph call site does not supply every parameter",
            "pass every parameter of the Graph, outputs included",
            "a Submit may let the runtime allocate its Out tail; a Graph has no such tail",
            wordings=(
                Wording(
                    "graph_call_missing_arg",
                    "this Graph call does not supply {param}: a graph has no runtime-allocated tail",
                ),
            ),
        ),
        CodeInfo(
            "GB116",
            "graph-launch-explicit-deps",
            "a Graph launch carries explicit dependencies",
            "drop deps= on the Graph launch; order through the tensors it reads and writes",
            "the runtime rejects explicit dependencies across a Graph boundary",
            wordings=(
                Wording("graph_launch_deps", "this Graph launch carries explicit dependencies (deps=)"),
            ),
        ),
        CodeInfo(
            "GB117",
            "graph-launch-predicate",
            "a Graph launch carries a dispatch predicate",
            "branch at the call site instead of predicating the Graph launch",
            "the runtime silently zeroes a predicate on a graph launch, so the region would run unconditionally",
            wordings=(Wording("graph_launch_predicate", "this Graph launch carries a dispatch predicate"),),
        ),
        CodeInfo(
            "GB118",
            "graph-scalar-not-replayable",
            "a scalar reaching a task is neither a parameter, hoistable, nor replay-invariant",
            "compute the value at the call site and pass it as a scalar parameter",
            "replay patches only boundary scalars; a value derived from a task output or tensor read is frozen at call one's value",
            wordings=(
                Wording(
                    "unslotted_scalar",
                    "scalar `{W}` reaches a task but is neither a parameter, hoistable, nor replay-invariant{W:culprit}: replay would reuse the first call's value",
                    subject="W",
                ),
                Wording(
                    "assert_derivable_left",
                    "`{V}` could be computed at the call site but is still derived in the region",
                    subject="V",
                ),
                Wording(
                    "assert_unslotted_arg",
                    "a task reads scalar `{W}`, which has no argument slot and can differ between calls",
                    subject="W",
                    at="E",
                ),
                Wording("graph_not_fixpoint", "Graph `{g}` still has values to hoist after legalization"),
            ),
        ),
        CodeInfo(
            "GB119",
            "graph-view-offset-varies",
            "a view's offset is call-varying and cannot be hoisted",
            "take the view at the call site, or index it only by parameters (hoisted) or by constant-loop indices (kept)",
            "replay restores a BOUNDARY_VIEW at the offset recorded on the first call",
            wordings=(
                Wording(
                    "moving_view",
                    "view `{V}` of a boundary tensor has a window that is neither reconstructible at the call site nor the same on every replay{V:view_culprit}",
                    subject="V",
                ),
                Wording(
                    "assert_moving_window",
                    "view `{V}` of a boundary tensor keeps a window that can differ between calls",
                    subject="V",
                ),
            ),
        ),
        CodeInfo(
            "GB120",
            "graph-view-extent-varies",
            "a hoisted view's extent is not constant or replay-invariant",
            "use a constant extent for the view",
            "replay copies a view's shapes and strides from the recorded template and patches only the address and offset",
            wordings=(
                Wording(
                    "view_extent_varies",
                    "view `{V}` of a boundary tensor has extent `{X}`, which is neither constant nor replay-invariant",
                    subject="V",
                ),
            ),
        ),
        CodeInfo(
            "GB121",
            "graph-core-num-not-constant",
            "a launch's core_num inside a Graph is not a compile-time constant",
            "use a literal core_num inside the Graph, or launch from the orchestration function",
            "block counts are frozen into the recorded Definition",
            wordings=(
                Wording(
                    "core_num_not_literal",
                    "this launch's core_num `{X}` is not a compile-time constant",
                    subject="X",
                ),
            ),
        ),
        CodeInfo(
            "GB122",
            "graph-rename-survives",
            "a scalar rename survives in a Graph",
            "substitute the root parameter for the renamed value",
            "`int64_t n = batch;` is rejected: the InheritableScalar wrapper has no implicit integer conversion",
            wordings=(
                Wording(
                    "assert_rename_survives",
                    "rename `{V}` of a boundary scalar survives",
                    subject="V",
                ),
            ),
        ),
        CodeInfo(
            "GB123",
            "graph-call-in-expression",
            "a call of a Graph the pass extends is not a flat call statement: it sits inside another expression, or holds a call among its arguments",
            "bind each call to a name of its own first (`c_1 = self.post(c)`, then `c_2 = self.layer(w, c_1)`), as PyPTO's FlattenCallExpr does before this pass",
            "the hoisted values become new arguments of every call site, computed from the call's arguments by statements just before it: a call inside an argument, a condition, a loop bound or a yield has no place for them, and a call among the arguments would run again in them",
            wordings=(
                Wording(
                    "graph_call_in_expression",
                    "this call of Graph function `{G}` is not a flat call statement (it sits inside another expression, or holds a call among its arguments), so the pass cannot give it the arguments it hoists: bind each call to a name of its own first",
                    subject="G",
                ),
            ),
        ),
        CodeInfo(
            "GB201",
            "graph-scalar-hoisted",
            "a derived boundary scalar: hoisted to a trailing scalar parameter",
            "nothing to do: `legalog fix` moves the computation to every call site and passes the value in "
            "(or write it that way yourself)",
            "replay patches only boundary scalars; a scalar the region derives from them is frozen at the first call's value",
            severity="info",
            fix="callers",
        ),
        CodeInfo(
            "GB202",
            "graph-view-hoisted",
            "a view of a boundary tensor taken in the region: hoisted to a tensor parameter",
            "nothing to do: `legalog fix` takes the view at every call site and passes it in as a tensor parameter",
            "replay restores a BOUNDARY_VIEW at the window recorded on the first call; a window the call site "
            "takes is patched on every call",
            severity="info",
            fix="callers",
        ),
        CodeInfo(
            "GB203",
            "graph-alloc-hoisted",
            "an allocation in the region: hoisted as an InOut tensor parameter",
            "nothing to do: `legalog fix` allocates the buffer at every call site and passes it as InOut",
            "the graph heap never reclaims an allocation mid-run, so a buffer the region creates must come from the caller",
            severity="info",
            fix="callers",
        ),
        CodeInfo(
            "GB204",
            "graph-rename-deleted",
            "a bare scalar rename: deleted, readers use the root",
            "nothing to do: `legalog fix` deletes the rename and its readers use the root value",
            "`int64_t n = batch;` is rejected: the InheritableScalar wrapper has no implicit integer conversion",
            severity="info",
            fix="callers",
        ),
        CodeInfo(
            "HC201",
            "host-control-passed-to-device",
            "a host control tensor is also passed to a device kernel",
            "pass host control data and device data through separate parameters",
            "host control tensors use HOST/NONE transfers; host writes never upload to device storage",
            wordings=(
                Wording(
                    "host_tensor_to_device",
                    "`{W}` is read or written by host graph construction and also passed to a device kernel, as {arg}",
                    subject="W",
                ),
            ),
        ),
        CodeInfo(
            "HC202",
            "host-reads-device-value",
            "host graph construction reads a runtime allocation or a device task's output",
            "read only ready host tensors at orchestration level; move the read into a kernel",
            "values produced by device tasks in the current graph do not exist while the host builds it",
            wordings=(
                Wording(
                    "host_reads_device_value",
                    "host graph construction reads `{V}`, a runtime allocation or a value a device task produces",
                    subject="V",
                ),
            ),
        ),
        CodeInfo(
            "FE401",
            "frontend-unversionable-binding",
            "a rebound name in a frontend dump has no single SSA meaning",
            "bind the name before the loop or `if`, on every path, so each read has one value",
            "PyPTO's ConvertToSSA versions rebound names before any pass runs; a name first bound in a loop and read "
            "after it, or bound in one branch only, is left without a value (`x__FREE_VAR`), so neither the passes "
            "nor the runtime see a defined program",
        ),
        CodeInfo(
            "SP301",
            "spmd-missing-output",
            "an SPMD launch lacks a caller-provided Out/InOut argument",
            "preallocate those tensors and pass them to the launch",
            "the non-positive path must preserve the caller's existing outputs",
            wordings=(
                Wording(
                    "spmd_arity_mismatch",
                    "launch '{callee}' passes {args} arguments to {params} parameters ({ins} In); every In parameter and every preallocated Out/InOut tensor must be passed in parameter order.",
                    subject="callee",
                ),
                Wording(
                    "spmd_outputs_unallocated",
                    "launch '{callee}' may have a non-positive core_num; output tensors {outputs} are not preallocated. Allocate and pass every Out/InOut tensor before this launch.",
                    subject="first",
                ),
            ),
        ),
        CodeInfo(
            "SP302",
            "spmd-unmappable-result",
            "an escaping SPMD launch result cannot be mapped to an existing tensor",
            "pass the output buffer explicitly and return the parameter",
            "when core_num may be 0 the launch is skipped, and its result must then be the caller's own buffer",
            wordings=(
                Wording(
                    "spmd_scope_unmapped",
                    "spmd scope '{callee}' may have a non-positive core_num `{core_num}`, and {names} computed inside it is read after it but is no caller tensor the empty path could preserve.",
                    subject="callee",
                ),
                Wording(
                    "spmd_return_unmapped",
                    "launch '{callee}' return {slot} cannot be mapped to a caller-provided Tensor parameter. Return a preallocated Out/InOut parameter for a potentially empty launch.",
                    subject="target",
                ),
                Wording(
                    "spmd_shared_pipe_buffer",
                    "compiler GM pipe buffer '{name}' has multiple uses; cannot move its allocation into a potentially empty launch.",
                    subject="name",
                ),
            ),
        ),
        CodeInfo(
            "SP303",
            "spmd-literal-nonpositive",
            "an SPMD launch has a literal non-positive core_num",
            "launch at least one block, or remove the launch",
            "a zero-block SPMD compute launch raises an AICPU exception",
            wordings=(
                Wording(
                    "spmd_literal_nonpositive",
                    "{kind} '{callee}' has a literal non-positive core_num {core_num}: a zero-block SPMD launch raises an AICPU exception.",
                    subject="callee",
                ),
            ),
        ),
        CodeInfo(
            "SP304",
            "spmd-core-num-not-integer",
            "a launch's core_num is not an integer expression (`core_num=2.5`)",
            "pass an integer block count: an INDEX scalar or an integer expression",
            "core_num is the number of blocks the runtime launches; a float, string or bool is no count to prove positive",
        ),
        CodeInfo(
            "SP310",
            "spmd-launch-guarded",
            "an SPMD launch was guarded with `if core_num > 0`",
            "prove core_num >= 1 (a branch or a bound) to avoid the guard",
            "a zero-block SPMD launch crashes; the guard skips it and keeps the caller's outputs",
            severity="info",
            wordings=(
                Wording(
                    "spmd_guarded",
                    "{kind} `{callee}` may have a non-positive core_num `{core_num}` ({why}); guarded with `if core_num > 0`, the empty path keeps the caller's output tensors",
                    subject="callee",
                    fixable=True,
                ),
                Wording(
                    "spmd_unguarded",
                    "potentially non-positive SPMD {kind} '{callee}' reached codegen without a positive guard. Run LegalizeSpmdLaunches before dependency analysis.",
                    subject="callee",
                    severity="error",
                ),
                Wording(
                    "spmd_still_unproven",
                    "the launch of `{callee}` is still not proven positive",
                    severity="error",
                ),
            ),
            fix="function",
        ),
        CodeInfo(
            "TV500",
            "not-one-program",
            "`validate`: BEFORE and AFTER are not one program before and after a pass (another program name, "
            "or no function in common)",
            "pass the dump a pass read and the dump it wrote (passes_dump: `NN_before_X.py` and `NN_after_X.py`, "
            "or the dump just before `NN_after_X.py`)",
            "a pass keeps the program and its functions; comparing two programs would report everything as a difference",
        ),
        CodeInfo(
            "TV501",
            "after-graph-postcondition",
            "`validate`: AFTER fails LegalizeGraphBoundary's post-conditions (the GraphBoundaryLegalized verifier, Step D on the result)",
            "fix the pass: its result must leave nothing to hoist, keep no rename and break no Step D check "
            "(`legalog check AFTER` shows the finding itself)",
            "the verifier re-derives the post-conditions from the result alone, however it was produced; a Graph "
            "that fails them replays the first call's values or is refused by the runtime",
        ),
        CodeInfo(
            "TV502",
            "after-launch-unproven",
            "`validate`: an SPMD launch in AFTER is neither proven positive nor guarded by `if core_num > 0`",
            "fix the pass: guard every launch whose core_num it cannot prove >= 1",
            "a zero-block SPMD launch raises an AICPU exception, and codegen's preflight refuses a launch not proven positive",
        ),
        CodeInfo(
            "TV511",
            "after-signature-name-error",
            "`validate`: a parameter or return type of AFTER reads a name the module does not bind",
            "fix the pass: a signature may name only literals and module-level symbols (a new parameter's MemRef "
            "sits at offset 0)",
            "`pl.parse` executes each `def`, and Python evaluates its annotations in the class body: any other "
            "name, a sibling parameter included, raises NameError, so PyPTO cannot read its own output back",
        ),
        CodeInfo(
            "TV512",
            "after-type-reads-unbound-name",
            "`validate`: a type in AFTER's body reads a name nothing binds before it",
            "fix the pass: rewrite the names a moved value's type reads into the caller's terms, or drop the "
            "annotation extra that names a callee's local",
            "the printed IR names a variable of another function; PyPTO's parser reads it as a fresh dynamic "
            "dimension, so the type no longer says where the buffer is",
        ),
        CodeInfo(
            "TV513",
            "after-refused-by-parser",
            "`validate`: AFTER holds what PyPTO's parser refuses (an IR4xx check)",
            "fix the pass: its output must be a program PyPTO's parser reads (`legalog check AFTER` shows the check)",
            "a pass whose output PyPTO cannot read back breaks the pipeline's round trip and every later pass",
        ),
        CodeInfo(
            "TV521",
            "decision-difference",
            "`validate`: AFTER decides a value or a launch otherwise than legalog (hoisted, kept, deleted, guarded, dropped)",
            "see legalog's reason in the message (`legalog why BEFORE -f FUNCTION -v VAR`); fix the pass, or the "
            "reading, whichever the specification says is wrong",
            "a value left in a Graph that can differ between calls is frozen at the first call's value; a launch "
            "left unguarded may run with zero blocks",
        ),
        CodeInfo(
            "TV522",
            "boundary-difference",
            "`validate`: a Graph's parameters or a call site's arguments differ from legalog's (count, kind, direction, order)",
            "fix the pass: new parameters are appended (allocations, views, then scalars), and every call site "
            "passes one argument per parameter with its direction",
            "CoreTaskArgs needs every tensor before every scalar, and a call site that passes another value or "
            "direction than the parameter expects records a different graph",
        ),
        CodeInfo(
            "TV523",
            "rewrite-difference",
            "`validate`: a function the pass rewrites differs from legalog's result in some other way",
            "compare AFTER with `legalog fix --diff BEFORE`; fix the pass, or the reading, whichever the specification says is wrong",
            "the pass must change exactly what its steps say and nothing else",
        ),
        CodeInfo(
            "TV524",
            "untouched-function-changed",
            "`validate`: AFTER changes a function the pass must leave untouched",
            "fix the pass: only the Graphs it legalizes, their call sites and the launches it guards may change",
            "a pass that edits code it does not own changes the program's meaning behind everyone's back",
        ),
        CodeInfo(
            "TV531",
            "rejected-but-rewritten",
            "`validate`: legalog rejects BEFORE, yet the pass produced AFTER",
            "fix the pass: it must refuse what the runtime cannot record (`legalog check BEFORE` says why)",
            "a program the runtime cannot record fails at run time, or silently replays the first call's values",
        ),
        CodeInfo(
            "TV532",
            "accepted-but-missing",
            "`validate`: legalog accepts BEFORE, yet the pass produced no AFTER (it refused the program)",
            "fix the pass: it must not refuse what the specification accepts (`legalog check BEFORE` shows what legalog does)",
            "a pass that refuses a legal program stops the pipeline for nothing",
        ),
        CodeInfo(
            "TV541",
            "seed-reading-difference",
            "`validate`: AFTER differs from legalog where the specification decides otherwise than that version of the pass (a reading, not a pass bug)",
            "nothing to do for this run: the message names the seed sentence legalog follows; raise it with the "
            "pass's authors if the difference matters",
            "the reference cases name four such differences (reference README): an Out Graph parameter, a hoisted "
            "view's MemRef, a stronger proof, a launch that can never run",
            "warning",
        ),
    )
}
