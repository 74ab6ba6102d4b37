"""A launch whose core_num needs no proof is decided without Z3, and exactly as Z3 decides it.

`prove` first bounds core_num from below with what needs no solver (literals, literal loop
bounds, non-negative names and the bindings that define them); only a goal that bound cannot
settle goes to Z3 (`solve`).  Held to Z3 on every goal the corpus and the golden cases pose.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import legalog.analyzer.spmd
from legalog.analyzer import positivity
from legalog.analyzer.positivity import LoopRange, PositivityGoal, Verdict, prove, solve
from legalog.ir.fold import fold_constant
from legalog.ir.model import BinOp, Call, Compare, Const, Name
from legalog.pipeline import analyze
from tests.conftest import corpus_files

CASES = Path(__file__).resolve().parents[1] / "graph" / "cases"
REPO = Path(__file__).resolve().parents[2]


def _goals() -> list[PositivityGoal]:
    goals: list[PositivityGoal] = []
    real = legalog.analyzer.spmd.prove

    def record(goal: PositivityGoal) -> Verdict:
        goals.append(goal)
        return real(goal)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(legalog.analyzer.spmd, "prove", record)
        for path in corpus_files() + sorted(CASES.glob("*.py")):
            analyze(path.read_text(encoding="utf-8"), str(path))
    return goals


@pytest.mark.shared
def test_every_goal_decided_without_z3_is_decided_so_by_z3() -> None:
    goals = _goals()
    assert len(goals) > 20
    settled = 0
    for goal in goals:
        fast = prove(goal)
        if positivity._lower_bound(goal, goal.core_num, set()) is not None and fast.proven:
            settled += 1
            assert solve(goal).proven, goal
        assert fast.outcome == solve(goal).outcome or fold_constant(goal.core_num) is not None, goal
    assert settled  # the corpus has range-bounded loop counts (a09: `i + 1` over pl.range(0, 4))


i = Name("i")
n = Name("n")


@pytest.mark.parametrize(
    ("goal", "proven"),
    [
        (PositivityGoal(BinOp("+", i, Const(1)), loops=(LoopRange("i", Const(0), n),)), True),
        (PositivityGoal(i, loops=(LoopRange("i", Const(1), n, Const(2)),)), True),
        (PositivityGoal(i, loops=(LoopRange("i", Const(4), Const(0), Const(-1)),)), True),  # 4, 3, 2, 1
        (
            PositivityGoal(
                Name("b"),
                bindings={"b": BinOp("//", BinOp("+", n, Const(31)), Const(16))},
                nonneg=frozenset({"n"}),
            ),
            True,
        ),
        (PositivityGoal(Call("pl.max", (n, Const(1)))), True),
        (
            PositivityGoal(Call("pl.min", (n, Const(1))), nonneg=frozenset({"n"})),
            False,
        ),  # n = 0: needs Z3, refuted
        (PositivityGoal(BinOp("*", i, n), loops=(LoopRange("i", Const(1), Const(8)),)), False),  # n free
        (
            PositivityGoal(i, bindings={"i": Const(5)}, loops=(LoopRange("i", Const(0), Const(8)),)),
            False,
        ),  # the index wins
        (PositivityGoal(n, facts=((Compare(">", n, Const(0)), True),)), True),  # the guard legalog writes
        (PositivityGoal(n, facts=((Compare("<=", n, Const(0)), False),)), True),  # its else branch negated
        (PositivityGoal(n, facts=((Compare("<", Const(0), n), True),)), True),
        (PositivityGoal(n, facts=((Compare(">", n, Const(0)), False),)), False),  # n <= 0 there: refuted
    ],
)
def test_solver_free_bounds(goal: PositivityGoal, proven: bool) -> None:
    bound = positivity._lower_bound(goal, goal.core_num, set())
    assert (bound is not None and bound[0] >= 1) == proven
    assert prove(goal).proven == solve(goal).proven
    if proven:  # and it names the assumptions that carried it, as Z3's proof does
        assert set(prove(goal).used) == set(solve(goal).used)


def test_a_program_without_spmd_launches_never_imports_z3() -> None:
    dump = REPO / "examples" / "row_shift.py"  # a Graph, no launch
    code = (
        "import sys; from legalog.pipeline import analyze; "
        f"analyze(open({str(dump)!r}).read()); print('z3' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "False"
