"""LegalizeGraphBoundary's plan (`plan_graphs`): every choice of the rewrite made once, so that an
applier on PyPTO's objects can obey it without deciding anything.  Read on every corpus dump the
Graph pass rewrites, against the rewrite the model applier makes of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.ir.model import Assign, Call, Const, ExprStmt, Name, Program, Return, TensorType
from legalog.ir.patterns import call_target
from legalog.ir.transform import bound_names, substitute, walk_stmts
from legalog.pipeline import Analysis, analyze
from legalog.rewriter.graph_boundary import GraphPlan, apply_graph_plan, graph_calls, plan_graphs
from tests.conftest import CORPUS
from tests.graph.test_cases import case_files

pytestmark = pytest.mark.shared

# every corpus dump at a Graph pass position, and the golden cases `fix` rewrites
DUMPS = sorted((CORPUS / "graph").glob("*.py")) + [
    p for p in case_files() if "# expect-status: rewritten" in p.read_text(encoding="utf-8")
]


def _rewritten(path: Path) -> tuple[Analysis, GraphPlan, Program]:
    analysis = analyze(path.read_text(encoding="utf-8"), str(path), passes=("graph",))
    if analysis.status != "rewritten":
        pytest.skip(f"the Graph pass does not rewrite {path.name}")
    plan = analysis.plans["graph"]
    assert isinstance(plan, GraphPlan) and analysis.program is not None and analysis.legalized is not None
    return analysis, plan, analysis.program


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_plan_applied_is_the_rewrite(path: Path) -> None:
    analysis, plan, program = _rewritten(path)
    assert apply_graph_plan(program, plan) == analysis.legalized
    assert plan_graphs(program, analysis.graphs) == plan  # a plan depends on nothing but its inputs


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_local_is_the_graphs_binding_read_through_its_seeds(path: Path) -> None:
    """What the object applier relies on: a local's value and type are the Graph's own binding
    with each Graph name it reads replaced by the call's argument for that parameter or by an
    earlier local of the same call site, as the plan lists them."""
    _, plan, program = _rewritten(path)
    planned = frozenset(g.function for g in plan.graphs)
    for caller in {c.caller for c in plan.calls}:
        fn = program.function(caller)
        assert fn is not None
        calls = list(graph_calls(fn.body, planned, program.prefix))
        sites = plan.sites_in(caller)
        assert [c.index for c in sites] == list(range(len(calls)))
        for site, (call, first, callee) in zip(sites, calls, strict=True):
            assert site.callee == callee
            graph = program.function(callee)
            assert graph is not None
            binding = {
                s.targets[0]: s
                for s in walk_stmts(graph.body)
                if isinstance(s, Assign) and len(s.targets) == 1
            }
            edit = next(g for g in plan.graphs if g.function == callee)
            renames = dict(edit.aliases)
            for local in site.locals:
                seeds = {n: call.args[first + k] for n, k in local.from_args}
                seeds |= {n: Name(v) for n, v in local.from_locals}
                if caller in planned:  # the caller's own renames are gone from its call's arguments
                    seeds = {
                        n: substitute(e, lambda x, caller=caller: _root(plan, caller, x))
                        for n, e in seeds.items()
                    }
                assert substitute(binding[local.hoisted].value, seeds.get) == local.value
                assert local.hoisted in edit.dropped and local.hoisted not in renames


def _root(plan: GraphPlan, graph: str, name: str) -> Name | None:
    aliases = dict(next(g for g in plan.graphs if g.function == graph).aliases)
    return Name(aliases[name]) if name in aliases else None


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_call_sites_bind_fresh_locals_scalars_first_and_pass_them_in_parameter_order(path: Path) -> None:
    _, plan, program = _rewritten(path)
    params = {g.function: g.params for g in plan.graphs}
    numbers = []
    for site in plan.calls:
        caller = program.function(site.caller)
        assert caller is not None
        taken = bound_names(caller.body) | {p.name for p in caller.params}
        names = [h.name for h in site.locals]
        assert len(set(names)) == len(names) and not set(names) & taken
        numbers += [int(n.rsplit("__graph_arg", 1)[1].split("_")[0]) for n in names]
        kinds = [isinstance(h.type, TensorType) for h in site.locals]
        assert kinds == sorted(kinds)  # scalars, then tensors
        by_hoisted = {h.hoisted: h.name for h in site.locals}
        assert site.args == tuple(by_hoisted[p.name] for p in params[site.callee])
        assert len(site.directions) == len(site.args)
    assert numbers == list(range(len(numbers)))  # N counts over the whole program


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_legalized_program_has_what_the_plan_says(path: Path) -> None:
    analysis, plan, _ = _rewritten(path)
    out = analysis.legalized
    assert out is not None
    for edit in plan.graphs:
        fn = out.function(edit.function)
        assert fn is not None
        assert fn.params[len(fn.params) - len(edit.params) :] == edit.params
        assert not bound_names(fn.body) & edit.dropped
        for p in edit.params:  # a parameter's MemRef sits at offset 0
            for extra in p.type.extras if isinstance(p.type, TensorType) else ():
                if isinstance(extra, Call) and extra.func.endswith(".MemRef"):
                    assert extra.args[1] == Const(0, "INT64")
    for site in plan.calls:
        fn = out.function(site.caller)
        assert fn is not None
        body = list(walk_stmts(fn.body))
        made = [s for s in body if isinstance(s, Assign) and s.targets[0] in {h.name for h in site.locals}]
        assert [(s.targets[0], s.type, s.value) for s in made] == [
            (h.name, h.type, h.value) for h in site.locals
        ]
        calls = [
            v
            for s in body
            for v in (
                (s.value,) if isinstance(s, (Assign, ExprStmt)) else s.values if isinstance(s, Return) else ()
            )
            if isinstance(v, Call)
            and (t := call_target(v, out.prefix)) is not None
            and t.callee == site.callee
        ]
        assert any(c.args[len(c.args) - len(site.args) :] == tuple(Name(a) for a in site.args) for c in calls)


def test_a_program_without_a_graph_to_change_has_an_empty_plan_applied_as_nothing() -> None:
    path = CORPUS / "graph" / "a09_orch_spmd_counts.spmd_input.py"
    analysis = analyze(path.read_text(encoding="utf-8"), str(path), passes=("graph",))
    assert analysis.program is not None
    plan = plan_graphs(analysis.program, analysis.graphs)
    assert plan == GraphPlan() and apply_graph_plan(analysis.program, plan) is analysis.program
