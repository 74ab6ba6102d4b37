"""LegalizeSpmdLaunches' plan (`plan_guards`): every choice of the guard rewrite made once, so that
the applier on PyPTO's objects obeys it without deciding anything.  Read on every dump the spmd
pass rewrites, against the rewrite the model applier makes of it, and on small programs for
the choices the dumps do not show (scratch, a computed count, a name already taken)."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.analyzer.spmd import SpmdOutcome
from legalog.ir.model import Assign, For, Function, If, Program
from legalog.ir.transform import walk_stmts
from legalog.pipeline import Analysis, analyze
from legalog.rewriter.spmd_guard import GuardPlan, apply_guard_plan, launch_sites, plan_guards
from tests.analyzer.test_spmd import IDX, MAIN_PARAMS, TID, T, body, main_text, program
from tests.conftest import CORPUS, REFERENCE

DUMPS = sorted(
    [
        *CORPUS.rglob("*.py"),
        *(p for p in (REFERENCE / "cases").glob("*.py") if not p.name.endswith(".ref.py")),
    ]
)


def _rewritten(source: str | Program) -> tuple[Analysis, GuardPlan, Program]:
    analysis = analyze(source, passes=("spmd",))
    if analysis.status != "rewritten":
        pytest.skip("the spmd pass does not rewrite it")
    plan = analysis.plans["spmd"]
    assert isinstance(plan, GuardPlan) and analysis.program is not None and analysis.legalized is not None
    return analysis, plan, analysis.program


def _function(program: Program, name: str) -> Function:
    return next(f for f in program.functions if f.name == name)


def _bound(fn: Function) -> set[str]:
    names = {p.name for p in fn.params}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign):
            names.update(s.targets)
        elif isinstance(s, For):
            names.update(s.iter_args)
            names.update([s.index] if s.index is not None else [])
    return names


@pytest.mark.shared
@pytest.mark.parametrize("path", DUMPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_plan_applied_is_the_rewrite(path: Path) -> None:
    analysis, plan, program = _rewritten(path.read_text(encoding="utf-8"))
    assert apply_guard_plan(program, plan) == analysis.legalized
    assert plan_guards(program, SpmdOutcome(analysis.launches)) == plan  # it depends on its inputs only
    for fg in plan.functions:
        fn = _function(program, fg.function)
        sites = list(launch_sites(fn.body, program.prefix))
        bound = _bound(fn)
        fresh = [
            n
            for g in fg.guards
            for n in (g.count, g.local, *(s.then for s in g.slots if g.tuple_result))
            if n is not None
        ]
        fresh += [s.empty for g in fg.guards for s in g.slots if s.dummy]
        # every fresh name is new to the function, and made once
        assert not bound & set(fresh) and len(fresh) == len(set(fresh))
        for g in fg.guards:
            site = sites[g.ordinal]  # the guard names its launch by its place among the launches
            assert (site.targets[0] if isinstance(site, Assign) else None) == g.target
            # the empty path yields the caller's own variables, or the dummy TaskIds it binds
            assert all(s.empty in bound for s in g.slots if not s.dummy)
            assert all(t.of is None or t.of in bound for t in g.types)


def test_an_empty_plan_applies_as_nothing() -> None:
    p = program(MAIN_PARAMS, body("return y__ssa_v0"))
    assert apply_guard_plan(p, GuardPlan()) is p


def test_a_computed_count_is_bound_once_to_a_fresh_name() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"spmd_core_num: {IDX} = n__ssa_v0",
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0 + spmd_core_num)",
            f"r__ssa_v0: {T} = t__ssa_v0[0]",
            "return r__ssa_v0",
        ),
    )
    analysis, plan, _ = _rewritten(p)
    (g,) = plan.functions[0].guards
    assert g.count == "spmd_core_num_1"  # the plain name is the program's own
    text = main_text(analysis.legalized or p)
    assert f"spmd_core_num_1: {IDX} = n__ssa_v0 + spmd_core_num" in text
    assert "if spmd_core_num_1 > 0:" in text


def kernel(*params: str) -> str:
    """A kernel `kernel(<params>)` returning `y__ssa_v0`."""
    return (
        "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n"
        f"    def kernel({', '.join(params)}) -> {T}:\n        return y__ssa_v0\n"
    )


# A launch given compiler GM pipe scratch, which is its one use (the tests on PyPTO reuse it).
SCRATCH_KERNEL = kernel(f"x__ssa_v0: {T}", f"y__ssa_v0: pl.Out[{T}]", f"buf__ssa_v0: pl.InOut[{T}]")
SCRATCH_LINES = (
    f"gm_pipe_buffer_0: {T} = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)",
    f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, gm_pipe_buffer_0, core_num=n__ssa_v0)",
    f"r__ssa_v0: {T} = t__ssa_v0[0]",
    "return r__ssa_v0",
)


def test_scratch_is_planned_into_its_launchs_branch() -> None:
    p = program(MAIN_PARAMS, body(*SCRATCH_LINES), kernels=SCRATCH_KERNEL)
    analysis, plan, _ = _rewritten(p)
    (fg,) = plan.functions
    (g,) = fg.guards
    assert g.scratch == ("gm_pipe_buffer_0",) and "gm_pipe_buffer_0" in fg.removed
    assert [s.index for s in g.slots] == [0]  # its TaskId is never read: it does not escape
    guard = next(s for s in _function(analysis.legalized or p, "main").body if isinstance(s, If))
    assert isinstance(guard.body[0], Assign) and guard.body[0].targets == ("gm_pipe_buffer_0",)
    assert not guard.orelse[:-1]  # no dummy task: no TaskId escapes
