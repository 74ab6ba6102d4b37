"""A frontend dump (`00_frontend`, un-SSA'd) decides as the pass-position dump of the same
program does: the same verdict and, after the rewrite, the same Graph signatures up to names.

Two frontend-only shapes are held to what ConvertToSSA and outlining make of them:
* a name bound more than once becomes distinct hoisted parameters (PyPTO's parser refuses
  `def step(..., off, off, lim)`);
* a value computed inside `with pl.at(level=...)` is kernel code: OutlineIncoreScopes moves it
  into the kernel, so it is no boundary scalar of the Graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.analyzer.graph import plain_name
from legalog.ir.model import Program, ScalarType, TensorType, Type
from legalog.ir.parser import parse
from legalog.pipeline import Analysis, analyze
from legalog.surfaces.file_models import graph_model
from tests.conftest import GRAPH

HERE = Path(__file__).parent / "frontend"


def _pairs() -> list[tuple[Path, Path]]:
    return [
        (frontend, other)
        for frontend in sorted(GRAPH.glob("*.frontend.py"))
        if (other := GRAPH / frontend.name.replace(".frontend.", ".graph_input.")).exists()
    ]


def _shape(t: Type) -> tuple[object, ...]:
    if isinstance(t, TensorType):
        return (t.kind, t.dtype, len(t.shape))
    if isinstance(t, ScalarType):
        return ("Scalar", t.dtype)
    return (type(t).__name__,)


def graph_signatures(program: Program) -> dict[str, list[tuple[object, ...]]]:
    """Each Graph's parameters up to names: direction, and the type's kind, dtype and rank."""
    return {
        f.name: [(p.direction, *_shape(p.type)) for p in f.params]
        for f in program.functions
        if f.type == "Graph"
    }


def graph_facts(result: Analysis) -> dict[str, dict[str, object]]:
    """What the report says of each Graph, up to SSA suffixes: its node count and, for a program
    the pass rewrites, its parameters after the rewrite, what is hoisted (by kind) and which
    renames go.  (Not what is kept in place: Simplify's flattening adds invariant temporaries,
    `t__tmp_v0 = pl.tensor.dim(...)`, that a frontend expression holds inline.)"""
    assert result.program is not None
    facts: dict[str, dict[str, object]] = {}
    for g in result.graphs:
        fn = result.program.function(g.function)
        assert fn is not None
        model = graph_model(g, [p.name for p in fn.params], result.program.prefix)
        facts[g.function] = {"node_count": model.node_count}
        if result.status != "rejected":
            facts[g.function] |= {
                "params_after": model.params_after,
                "hoisted": [(plain_name(h.name), h.kind) for h in g.hoisted],
                "removed_aliases": [(a.name, a.target) for a in model.removed_aliases],
            }
    return facts


@pytest.mark.shared
@pytest.mark.parametrize(("frontend", "position"), _pairs(), ids=lambda p: p.name)
def test_frontend_and_position_dumps_agree(frontend: Path, position: Path) -> None:
    """One program at its two positions: the same verdict and the same Graph facts (the node
    count, the parameters after, the hoists), and after the rewrite the same signatures."""
    mine = analyze(frontend.read_text(), str(frontend), passes=("graph",))
    theirs = analyze(position.read_text(), str(position), passes=("graph",))
    assert mine.status == theirs.status
    assert graph_facts(mine) == graph_facts(theirs)
    if mine.status in ("legal", "rewritten"):
        assert mine.output is not None and theirs.output is not None
        assert graph_signatures(mine.output) == graph_signatures(theirs.output)


def test_a_kernel_call_inside_a_spmd_scope_is_no_node_of_its_own() -> None:
    """`with pl.spmd(4): y = self.k(x, y)` is one task: OutlineClusterScopes makes the scope a
    Spmd function whose body is that call, and the Graph launches the Spmd function once (its
    graph_input dump holds one launch there), so the call is not counted beside the scope."""
    path = HERE / "spmd_scope_kernel_call.py"
    result = analyze(path.read_text(), str(path), passes=("graph",))
    assert result.status == "legal", [d.message for d in result.diagnostics]
    (graph,) = result.graphs
    assert graph.node_count == 2


def test_names_bound_more_than_once_get_distinct_hoisted_parameters() -> None:
    path = HERE / "rebound_chain.py"
    result = analyze(path.read_text(), str(path), passes=("graph",))
    text = result.legalized_text()
    assert result.status == "rewritten" and text is not None
    step = parse(text).function("step")
    assert step is not None
    names = [p.name for p in step.params]
    assert len(set(names)) == len(names), names
    assert names[:3] == ["x", "y", "idx"] and len(names) == 6  # off (twice) and lim are hoisted


def test_a_value_computed_inside_a_kernel_scope_is_not_hoisted() -> None:
    path = HERE / "kernel_scope_scalars.py"
    result = analyze(path.read_text(), str(path), passes=("graph",))
    assert result.status == "legal", [d.message for d in result.diagnostics]
    (graph,) = result.graphs
    assert graph.hoisted == () and graph.node_count == 2


def test_a_spmd_scope_in_a_graph_is_one_node_and_its_count_must_be_literal() -> None:
    """`with pl.spmd(4)` holding a `pl.at` scope is one task (outlining makes the inner scope the
    Spmd function's call); `with pl.spmd(n)` is held to Step D's literal core_num like a launch."""
    path = HERE / "spmd_scopes_in_graph.py"
    result = analyze(path.read_text(), str(path), passes=("graph",))
    (graph,) = result.graphs
    assert graph.node_count == 2
    assert [(d.code, d.line) for d in result.errors] == [("GB121", 12)]
