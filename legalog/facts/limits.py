"""The host_build_graph runtime's limits a Graph is checked against, each named once.

The rules read them as `runtime_limit(Name, N)` facts (the extractor emits one row per limit),
and the code table's messages and titles quote the same constants, so a limit changed here is
changed in the check, the diagnostic and the docs together.
"""

from __future__ import annotations

RUNTIMES = ("host_build_graph", "tensormap_and_ringbuffer")
"""The runtimes a program can be compiled for (`--runtime`); only host_build_graph records Graphs."""

GRAPH_MAX_NODES = 1024
"""GRAPH_MAX_NODES: launched tasks (and allocation batches) one Graph may record."""

GRAPH_MAX_TENSOR_ARGS = 128
"""GRAPH_MAX_TENSOR_ARGS: the tensor slots of a fixed-size GraphTaskArgs."""

GRAPH_MAX_SCALAR_ARGS = 64
"""GRAPH_MAX_SCALAR_ARGS: the scalar slots of a GraphTaskArgs, counted after Step A."""

ALLOC_TENSORS_MAX = 16
"""kAllocTensorsArgs: allocations codegen batches into one alloc_tensors node."""

LIMITS: dict[str, int] = {
    "graph_max_nodes": GRAPH_MAX_NODES,
    "graph_max_tensor_args": GRAPH_MAX_TENSOR_ARGS,
    "graph_max_scalar_args": GRAPH_MAX_SCALAR_ARGS,
    "alloc_tensors_max": ALLOC_TENSORS_MAX,
}
"""Every limit by the name the rules read it under (`runtime_limit(Name, N)`)."""
