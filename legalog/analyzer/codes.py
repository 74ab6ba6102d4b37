"""Every diagnostic code legalog emits: its title, default severity, what to do, and why the
runtime cares.  One table, so the text output, SARIF rules and docs never disagree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    name: str
    title: str
    help: str
    note: str
    severity: Severity = "error"


_GB = "host_build_graph"

CODES: dict[str, CodeInfo] = {
    info.code: info
    for info in (
        CodeInfo("PARSE", "unreadable-input", "the input is not a readable PyPTO IR dump",
                 "pass a dump written by PyPTO's `python_print` (passes_dump/NN_after_<Pass>.py)",
                 "legalog reads dumps with Python's `ast` and never executes them"),
        CodeInfo("GB101", "graph-wrong-runtime", "a Graph function is compiled for a runtime other than host_build_graph",
                 f"compile with `--runtime {_GB}`, or turn the Graph into an Orchestration function",
                 "GraphTaskArgs and rt_submit_graph exist only in host_build_graph's orchestration API"),
        CodeInfo("GB102", "graph-no-tensor-param", "a Graph has no tensor parameter",
                 "give the Graph at least one tensor parameter",
                 "a graph with an empty boundary has nothing to patch on replay; the runtime refuses to cache it"),
        CodeInfo("GB103", "graph-too-many-tensors", "a Graph has more than 128 tensor parameters",
                 "split the Graph, or pass fewer tensors",
                 "GRAPH_MAX_TENSOR_ARGS: the boundary is a fixed-size GraphTaskArgs"),
        CodeInfo("GB104", "graph-too-many-scalars", "a Graph has more than 64 scalar parameters (after Step A)",
                 "split the Graph or derive fewer boundary scalars",
                 "GRAPH_MAX_SCALAR_ARGS; Step A adds scalar parameters, so this is counted after hoisting"),
        CodeInfo("GB105", "graph-runtime-allocated-output", "a Graph call lets the runtime allocate a boundary output",
                 "allocate the output at the call site and pass it (output_existing / inout)",
                 "ArgDirection::Output requests a new allocation, which a Graph boundary cannot record"),
        CodeInfo("GB106", "graph-scalar-not-in", "a Graph scalar parameter is not In",
                 "make the scalar parameter In; return values through tensors",
                 "a boundary scalar is passed by value and replayed from the call site"),
        CodeInfo("GB107", "graph-returns-computed", "a Graph returns something other than its own parameters",
                 "return only the Graph's own (InOut/Out) parameters",
                 "rt_submit_graph yields a valid task id only on a cache hit, so nothing can depend on a graph call's result"),
        CodeInfo("GB108", "graph-node-count", "a Graph's launched-task count is not within 1..1024",
                 "keep between 1 and 1024 nodes (launches per loop iteration, dummies and allocation batches)",
                 "graph_execution_storage_layout refuses a node count of zero and one over GRAPH_MAX_NODES"),
        CodeInfo("GB109", "graph-alloc-under-runtime-control", "an allocation sits under a runtime loop or branch",
                 "move the allocation out of the runtime loop/branch, or make the loop bounds constant",
                 "each allocation records a node, so a count that varies between calls is a topology that varies"),
        CodeInfo("GB110", "graph-alloc-shape-not-constant", "an allocation's shape is not a compile-time constant",
                 "use a constant shape, or allocate at the call site and pass the buffer in",
                 "recording copies the shape into the node; a shape read from a boundary scalar is frozen at the first call's value"),
        CodeInfo("GB111", "graph-tensor-full", "tensor.full inside a Graph",
                 "create and fill the tensor at the call site, and pass it in",
                 "orchestration codegen has no lowering for tensor.full and rejects it as a misplaced tensor op"),
        CodeInfo("GB112", "graph-launch-under-runtime-control", "a launch sits under a runtime loop, while or if",
                 "make the loop bounds constant, or move the control flow to the caller",
                 "the recording fixes the topology on the first call and replays it unchanged"),
        CodeInfo("GB113", "graph-inline-varying-arg", "a call-varying scalar is computed inline at a task argument",
                 "bind the expression to a name before the launch so Step A can hoist it",
                 "an inline expression has no name to hoist and no boundary slot, so replay freezes it at the first call's value"),
        CodeInfo("GB114", "graph-calls-graph", "a Graph calls a Graph",
                 "call both Graphs from the orchestration function instead",
                 "the runtime cannot record a graph from inside one it is already recording"),
        CodeInfo("GB115", "graph-call-missing-args", "a Graph call site does not supply every parameter",
                 "pass every parameter of the Graph, outputs included",
                 "a Submit may let the runtime allocate its Out tail; a Graph has no such tail"),
        CodeInfo("GB116", "graph-launch-explicit-deps", "a Graph launch carries explicit dependencies",
                 "drop deps= on the Graph launch; order through the tensors it reads and writes",
                 "the runtime rejects explicit dependencies across a Graph boundary"),
        CodeInfo("GB117", "graph-launch-predicate", "a Graph launch carries a dispatch predicate",
                 "branch at the call site instead of predicating the Graph launch",
                 "the runtime silently zeroes a predicate on a graph launch, so the region would run unconditionally"),
        CodeInfo("GB118", "graph-scalar-not-replayable", "a scalar reaching a task is neither a parameter, hoistable, nor replay-invariant",
                 "compute the value at the call site and pass it as a scalar parameter",
                 "replay patches only boundary scalars; a value derived from a task output or tensor read is frozen at call one's value"),
        CodeInfo("GB119", "graph-view-offset-varies", "a view's offset is call-varying and cannot be hoisted",
                 "take the view at the call site, or index it only by parameters (hoisted) or by constant-loop indices (kept)",
                 "replay restores a BOUNDARY_VIEW at the offset recorded on the first call"),
        CodeInfo("GB120", "graph-view-extent-varies", "a hoisted view's extent is not constant or replay-invariant",
                 "use a constant extent for the view",
                 "replay copies a view's shapes and strides from the recorded template and patches only the address and offset"),
        CodeInfo("GB121", "graph-core-num-not-constant", "a launch's core_num inside a Graph is not a compile-time constant",
                 "use a literal core_num inside the Graph, or launch from the orchestration function",
                 "block counts are frozen into the recorded Definition"),
        CodeInfo("GB122", "graph-rename-survives", "a scalar rename survives in a Graph",
                 "substitute the root parameter for the renamed value",
                 "`int64_t n = batch;` is rejected: the InheritableScalar wrapper has no implicit integer conversion"),
        CodeInfo("GB201", "graph-scalar-hoisted", "a derived boundary scalar: hoisted to a trailing scalar parameter",
                 "nothing to do: `legalog fix` moves the computation to every call site and passes the value in "
                 "(or write it that way yourself)",
                 "replay patches only boundary scalars; a scalar the region derives from them is frozen at the first call's value",
                 severity="info"),
        CodeInfo("GB202", "graph-view-hoisted", "a view of a boundary tensor taken in the region: hoisted to a tensor parameter",
                 "nothing to do: `legalog fix` takes the view at every call site and passes it in as a tensor parameter",
                 "replay restores a BOUNDARY_VIEW at the window recorded on the first call; a window the call site "
                 "takes is patched on every call",
                 severity="info"),
        CodeInfo("GB203", "graph-alloc-hoisted", "an allocation in the region: hoisted as an InOut tensor parameter",
                 "nothing to do: `legalog fix` allocates the buffer at every call site and passes it as InOut",
                 "the graph heap never reclaims an allocation mid-run, so a buffer the region creates must come from the caller",
                 severity="info"),
        CodeInfo("GB204", "graph-rename-deleted", "a bare scalar rename: deleted, readers use the root",
                 "nothing to do: `legalog fix` deletes the rename and its readers use the root value",
                 "`int64_t n = batch;` is rejected: the InheritableScalar wrapper has no implicit integer conversion",
                 severity="info"),
        CodeInfo("HC201", "host-control-passed-to-device", "a host control tensor is also passed to a device kernel",
                 "pass host control data and device data through separate parameters",
                 "host control tensors use HOST/NONE transfers; host writes never upload to device storage"),
        CodeInfo("HC202", "host-reads-device-value", "host graph construction reads a runtime allocation or a device task's output",
                 "read only ready host tensors at orchestration level; move the read into a kernel",
                 "values produced by device tasks in the current graph do not exist while the host builds it"),
        CodeInfo("FE401", "frontend-unversionable-binding", "a rebound name in a frontend dump has no single SSA meaning",
                 "bind the name before the loop or `if`, on every path, so each read has one value",
                 "PyPTO's ConvertToSSA versions rebound names before any pass runs; a name first bound in a loop and read "
                 "after it, or bound in one branch only, is left without a value (`x__FREE_VAR`), so neither the passes "
                 "nor the runtime see a defined program"),
        CodeInfo("SP301", "spmd-missing-output", "an SPMD launch lacks a caller-provided Out/InOut argument",
                 "preallocate those tensors and pass them to the launch",
                 "the non-positive path must preserve the caller's existing outputs"),
        CodeInfo("SP302", "spmd-unmappable-result", "an escaping SPMD launch result cannot be mapped to an existing tensor",
                 "pass the output buffer explicitly and return the parameter",
                 "when core_num may be 0 the launch is skipped, and its result must then be the caller's own buffer"),
        CodeInfo("SP303", "spmd-literal-nonpositive", "an SPMD launch has a literal non-positive core_num",
                 "launch at least one block, or remove the launch",
                 "a zero-block SPMD compute launch raises an AICPU exception"),
        CodeInfo("SP310", "spmd-launch-guarded", "an SPMD launch was guarded with `if core_num > 0`",
                 "prove core_num >= 1 (a branch or a bound) to avoid the guard",
                 "a zero-block SPMD launch crashes; the guard skips it and keeps the caller's outputs",
                 severity="info"),
    )
}  # fmt: skip
