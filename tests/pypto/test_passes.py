"""legalog.pypto's two passes and the pipeline they are placed in, one behaviour at a time."""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import legalog
from legalog import pypto as lp
from tests.conftest import CORPUS, REPO

GRAPH = CORPUS / "graph"


@dataclass(frozen=True)
class Named:
    """Stands in for a `passes.Pass` where only the name matters."""

    name: str

    def get_name(self) -> str:
        return self.name


def names(passes: list[Named]) -> list[str]:
    return [p.get_name() for p in passes]


# --------------------------------------------------------------------- without PyPTO


def test_importing_legalog_and_its_pypto_module_imports_neither_pypto_nor_torch() -> None:
    probe = "import sys, legalog, legalog.pypto; print(sorted({'pypto', 'torch'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


STRATEGY = [
    "ConvertToSSA",
    "Simplify",
    "LowerL2TensorCollectives",
    "FuseCreateAssembleToSlice",
    "DeriveCallDirections",
    "AutoDeriveTaskDependencies",
    "Simplify",
    "MaterializeRuntimeScopes",
    "ClassifyIterArgCarry",
]


def test_passes_go_before_their_anchors_found_by_name() -> None:
    placed = lp.insert_passes([Named(n) for n in STRATEGY], Named(lp.SPMD_PASS), Named(lp.GRAPH_PASS))
    assert names(placed) == [
        "ConvertToSSA",
        "Simplify",
        "LowerL2TensorCollectives",
        "FuseCreateAssembleToSlice",
        lp.SPMD_PASS,
        "DeriveCallDirections",
        "AutoDeriveTaskDependencies",
        "Simplify",
        lp.GRAPH_PASS,
        "MaterializeRuntimeScopes",
        "ClassifyIterArgCarry",
    ]


@pytest.mark.parametrize(
    ("strategy", "says"),
    [
        ([n for n in STRATEGY if n != "DeriveCallDirections"], "no DeriveCallDirections pass"),
        ([n for n in STRATEGY if n != "MaterializeRuntimeScopes"], "no MaterializeRuntimeScopes pass"),
        ([n for n in STRATEGY if n != "Simplify"], "it has no Simplify before MaterializeRuntimeScopes"),
        ([*STRATEGY, "Simplify"], "its last Simplify runs after MaterializeRuntimeScopes"),
        (
            ["DeriveCallDirections", "LowerL2TensorCollectives", "Simplify", "MaterializeRuntimeScopes"],
            "runs LowerL2TensorCollectives after DeriveCallDirections",
        ),
        ([*STRATEGY, lp.GRAPH_PASS], "already runs LegalizeGraphBoundary"),
    ],
)
def test_a_strategy_without_the_anchors_is_a_clear_error(strategy: list[str], says: str) -> None:
    with pytest.raises(lp.PipelineError, match=says):
        lp.insert_passes([Named(n) for n in strategy], Named(lp.SPMD_PASS), Named(lp.GRAPH_PASS))


@pytest.mark.shared
def test_library_runs_one_pass_alone() -> None:
    """At the SPMD position a Graph is not legalized yet: the SPMD pass alone leaves it as it is."""
    text = (GRAPH / "a14_manual_graph_barrier.spmd_input.py").read_text()
    spmd = legalog.analyze(text, passes=("spmd",))
    graph = legalog.analyze(text, passes=("graph",))
    assert (
        spmd.graphs == ()
        and spmd.status == "rewritten"
        and [d.outcome for d in spmd.launches].count("guarded") == 1
    )
    assert graph.launches == () and [g.function for g in graph.graphs if g.changes_anything] == ["fan"]
    with pytest.raises(ValueError, match="non-empty subset"):
        legalog.analyze(text, passes=("lint",))


# --------------------------------------------------------------------- with PyPTO


def prop_names(found: Any) -> set[str]:
    return {str(p).split(".")[-1] for p in found.to_list()}


def test_properties_are_the_seeds_in_pypto_names(pypto: SimpleNamespace) -> None:
    graph, spmd = lp.legalize_graph_boundary(), lp.legalize_spmd_launches()
    assert (graph.get_name(), spmd.get_name()) == ("LegalizeGraphBoundary", "LegalizeSpmdLaunches")
    assert prop_names(graph.get_required_properties()) == {"SplitIncoreOrch", "CallDirectionsResolved"}
    assert prop_names(graph.get_produced_properties()) == {"CallDirectionsResolved"}
    assert prop_names(graph.get_invalidated_properties()) == set()
    assert prop_names(spmd.get_required_properties()) == {"NoNestedCalls", "ReturnParamsExplicit"}
    assert prop_names(spmd.get_produced_properties()) == {"NormalizedStmtStructure"}
    assert prop_names(spmd.get_invalidated_properties()) == {
        "CallDirectionsResolved",
        "RuntimeScopesMaterialized",
        "IterArgCarryClassified",
    }
    assert not hasattr(pypto.passes.IRProperty, "GraphBoundaryLegalized")  # hence lp.UNMAPPED
    assert set(lp.UNMAPPED) == {"GraphBoundaryLegalized"}


def test_default_pipeline_is_the_default_strategy_with_both_passes_in_place(
    pypto: SimpleNamespace, hbg: Callable[..., Any]
) -> None:
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager

    with hbg():
        default = PassManager.get_strategy(OptimizationStrategy.Default).pass_names
        ours = lp.default_pipeline().get_pass_names()
    assert [n for n in ours if n not in (lp.GRAPH_PASS, lp.SPMD_PASS)] == default
    assert ours[ours.index(lp.SPMD_PASS) + 1] == "DeriveCallDirections"
    assert ours[ours.index(lp.GRAPH_PASS) - 1 : ours.index(lp.GRAPH_PASS) + 2] == [
        "Simplify",
        lp.GRAPH_PASS,
        "MaterializeRuntimeScopes",
    ]
    assert "Simplify" not in ours[ours.index(lp.GRAPH_PASS) :]


def parsed(pypto: SimpleNamespace, name: str) -> Any:
    return pypto.pl.parse((GRAPH / name).read_text(), filename=name)


@pytest.mark.shared
def test_a_rejected_program_raises_pyptos_error_with_legalogs_diagnostics(
    pypto: SimpleNamespace, hbg: Callable[..., Any]
) -> None:
    name = "a11_reject_dynamic_control.graph_input.py"
    program = parsed(pypto, name)
    before = pypto.ir.python_print(program, format=False)
    on_dump = legalog.analyze((GRAPH / name).read_text(), passes=("graph",)).errors
    with hbg(), pytest.raises(pypto.pypto.pypto_core.ValueError) as caught:
        lp.legalize_graph_boundary()(program)
    err = caught.value
    assert isinstance(err, lp.PassRejected) and err.pass_name == "LegalizeGraphBoundary"
    # placed on the lines of the dump PyPTO parsed: where legalog reading that dump places them
    # (at the statement: PyPTO keeps no span of an expression's own)
    assert [(d.code, d.function, d.line, d.message) for d in err.diagnostics] == [
        (d.code, d.function, d.line, d.message) for d in on_dump
    ]
    assert {d.code for d in err.diagnostics} == {"GB109", "GB110", "GB112"}
    for d, source in zip(err.diagnostics, err.sources, strict=True):
        assert f"{d.code} in `{d.function}` at {source}: {d.message}" in str(err)
    assert pypto.ir.python_print(program, format=False) == before  # the input is untouched


@pytest.mark.shared
def test_a_rejection_names_the_users_own_source_file_and_line(
    pypto: SimpleNamespace, hbg: Callable[..., Any], tmp_path: Path
) -> None:
    """Issue 19: a program compiled from a source file is rejected at the lines of that file (the
    spans PyPTO keeps), and the message quotes them."""
    name = "a11_reject_dynamic_control.graph_input.py"
    source = tmp_path / "model.py"
    source.write_text((GRAPH / name).read_text())
    program = pypto.pl.loads_program(str(source))
    on_source = legalog.analyze(source.read_text(), passes=("graph",)).errors  # lines of model.py
    with hbg(), pytest.raises(lp.PassRejected) as caught:
        lp.legalize_graph_boundary()(program)
    err = caught.value
    lines = source.read_text().splitlines()
    assert len(err.sources) == len(err.diagnostics) == len(on_source)
    for d, where, mine in zip(err.diagnostics, err.sources, on_source, strict=True):
        assert where == f"{source}:{d.line}:{d.column}", (d, where)
        # at the line legalog itself reports when it reads model.py, quoted
        assert d.line == mine.line, (d, where, mine)
        assert f"{d.line} | {lines[d.line - 1].strip()[:200]}" in str(err)


@pytest.mark.shared
def test_a_rewrite_keeps_the_users_spans_on_what_it_did_not_add(
    pypto: SimpleNamespace, hbg: Callable[..., Any], tmp_path: Path
) -> None:
    """After a rewrite, a statement binding a name the input bound keeps the input's span (the
    user's file and line), so later passes and codegen still point there; what the pass added
    (the hoisted values' bindings at the call site) is placed at the call it extends, as PyPTO's
    own passes place a statement they derive from another."""
    source = tmp_path / "model.py"
    source.write_text((GRAPH / "a01_row_shift.graph_input.py").read_text())
    program = pypto.pl.loads_program(str(source))
    if "source_map" not in inspect.signature(pypto.pl.parse).parameters:
        pytest.skip("this PyPTO's parser takes no source_map")
    before = _assign_spans(pypto, program)
    with hbg():
        after = _assign_spans(pypto, lp.legalize_graph_boundary()(program))
    kept = {k: v for k, v in after.items() if k in before}
    added = {k: v for k, v in after.items() if k not in before}
    assert kept and added, (before, after)
    assert kept == {k: before[k] for k in kept}
    calls = {(fn, where) for (fn, _name), where in before.items()}
    assert all((fn, where) in calls for (fn, _name), where in added.items()), added


def _assign_spans(pypto: SimpleNamespace, program: Any) -> dict[tuple[str, str], tuple[str, int]]:
    """(function, bound name) -> (file, line) of every assignment of `program`."""
    found: dict[tuple[str, str], tuple[str, int]] = {}

    class Spans(pypto.ir.IRVisitor):  # type: ignore[misc, name-defined]
        def __init__(self, fn: str) -> None:
            super().__init__()
            self.fn = fn

        def visit_assign_stmt(self, op: Any) -> None:
            found.setdefault((self.fn, op.var.name_hint), (op.span.filename, op.span.begin_line))
            super().visit_assign_stmt(op)

    for fn in program.functions.values():
        Spans(fn.name).visit_stmt(fn.body)
    return found


@pytest.mark.shared
def test_runtime_comes_from_the_pass_context_unless_given(
    pypto: SimpleNamespace, hbg: Callable[..., Any]
) -> None:
    program = parsed(pypto, "a01_row_shift.graph_input.py")
    with hbg():
        lp.legalize_graph_boundary()(program)  # host_build_graph: hoists, no error
        with pytest.raises(lp.PassRejected, match="GB101"):
            lp.legalize_graph_boundary(runtime="tensormap_and_ringbuffer")(program)
    with (
        pypto.passes.PassContext([]),
        pytest.raises(lp.PassRejected, match="GB101"),
    ):  # PyPTO's default runtime
        lp.legalize_graph_boundary()(program)
    with pypto.passes.PassContext([]):
        lp.legalize_graph_boundary(runtime=pypto.passes.RuntimeKind.HOST_BUILD_GRAPH)(program)
    with pytest.raises(ValueError, match="unknown runtime 'hbg'"):
        lp.legalize_graph_boundary(runtime="hbg")


@pytest.mark.shared
def test_a_legal_program_comes_back_as_it_went_in(pypto: SimpleNamespace, hbg: Callable[..., Any]) -> None:
    program = parsed(pypto, "a05_tile_sweep.graph_input.py")
    with hbg():
        out = lp.legalize_graph_boundary()(program)
    assert out is program  # PyPTO's own nodes and spans, not a re-parse


@pytest.mark.shared
def test_an_spmd_launch_without_its_output_is_rejected_by_the_spmd_pass_alone(
    pypto: SimpleNamespace, hbg: Callable[..., Any]
) -> None:
    launch = "pl.spmd_submit(self.band, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0)"
    text = (GRAPH / "a09_orch_spmd_counts.spmd_input.py").read_text()
    assert launch in text
    program = pypto.pl.parse(text.replace(launch, launch.replace(" y__ssa_v0,", "")))
    with hbg(), pytest.raises(lp.PassRejected) as caught:
        lp.legalize_spmd_launches()(program)
    assert caught.value.pass_name == "LegalizeSpmdLaunches"
    assert [(d.code, d.function, d.line) for d in caught.value.diagnostics] == [("SP301", "main", 18)]
    assert "'y__ssa_v0' (parameter 1) are not preallocated" in str(caught.value)


@pytest.mark.shared
def test_default_pipelines_runtime_is_the_graph_passes(
    pypto: SimpleNamespace, hbg: Callable[..., Any]
) -> None:
    program = pypto.pl.parse((GRAPH / "a01_row_shift.frontend.py").read_text())
    with hbg(), pytest.raises(lp.PassRejected, match="GB101") as caught:
        lp.default_pipeline(runtime="tensormap_and_ringbuffer").run(program)
    assert caught.value.pass_name == "LegalizeGraphBoundary"
