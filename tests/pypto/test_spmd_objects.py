"""LegalizeSpmdLaunches' plan applied to PyPTO's objects is what PyPTO's parser makes of the rewrite
the model applier prints.

For every dump of ../shared PyPTO's parser reads and the spmd pass rewrites: where
`apply_guard_plan_to_objects` builds the rewrite, each guarded function is
`ir.structural_equal` to `pl.parse` of the printed rewrite and every other function is the
input's own object; where it raises `Unsupported`, the caller rebuilds by parsing.  The share it
builds has a floor.  Small programs show the choices the dumps do not (a computed count, scratch).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from legalog.ir.objects import Unsupported, read_program
from legalog.pipeline import analyze
from legalog.rewriter.spmd_guard import GuardPlan
from legalog.rewriter.spmd_guard_objects import apply_guard_plan_to_objects
from tests.analyzer.test_spmd import MAIN_PARAMS, TID, T, body, program
from tests.pypto.test_objects import DUMPS
from tests.rewriter.test_spmd_plan import SCRATCH_KERNEL, SCRATCH_LINES, kernel

# Of the dumps PyPTO reads and the pass rewrites (54 today), the applier builds 50 of the text's
# plans; the rest are SSA-versioned analyses (the plan is not in the objects' names) and a
# tuple-unpacked launch (PyPTO's parser makes a launch site of it that the text has not).  Of
# the 49 plans of legalog's reading of the objects (where it reads them), it builds 46: the
# other 3 are SSA-versioned.
HANDLED_FLOOR = {False: 50, True: 46}


def _agrees(pypto: SimpleNamespace, text: str, name: str, *, objects: bool = False) -> bool | None:
    """Whether the object applier's rewrite of `text` is the parse of the text rewrite (None: the
    pass does not rewrite it, or PyPTO does not read it); `Unsupported` propagates.  With
    `objects`, the plan is the analysis of legalog's reading of the parsed objects, as the pass
    inside PyPTO's pipeline makes it."""
    try:
        before = pypto.pl.parse(text, filename=name)
    except Exception:  # a dump PyPTO refuses is no input of a PyPTO pass
        return None
    try:
        source = read_program(before) if objects else text
    except Unsupported:  # the pass then analyses the printing, and plans in its names
        return None
    analysis = analyze(source, passes=("spmd",))
    if analysis.status != "rewritten":
        return None
    plan = analysis.plans["spmd"]
    assert isinstance(plan, GuardPlan)
    if analysis.versions:
        raise Unsupported("an SSA-versioned analysis: its plan is not in the objects' names")
    after = apply_guard_plan_to_objects(before, plan)
    expected = pypto.pl.parse(analysis.legalized_text() or "", filename=name)
    changed = {fg.function for fg in plan.functions}
    for fn in after.functions.values():
        if fn.name in changed:
            pypto.ir.assert_structural_equal(fn, expected.get_function(fn.name), enable_auto_mapping=True)
        else:
            assert fn.same_as(before.get_function(fn.name)), fn.name
    assert sorted(f.name for f in after.functions.values()) == sorted(
        f.name for f in expected.functions.values()
    )
    return True


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("objects", [False, True], ids=["plan of the text", "plan of the objects"])
def test_the_object_applier_builds_the_parse_of_the_text_rewrite(
    pypto: SimpleNamespace, objects: bool
) -> None:
    handled: list[str] = []
    unsupported: list[str] = []
    for path in DUMPS:
        try:
            agreed = _agrees(pypto, path.read_text(encoding="utf-8"), path.name, objects=objects)
        except Unsupported:
            unsupported.append(path.name)
            continue
        if agreed:
            handled.append(path.name)
    assert len(handled) >= HANDLED_FLOOR[objects], unsupported
    assert len(handled) >= 0.9 * (len(handled) + len(unsupported)), unsupported


def _text(main_body: str, kernels: str) -> str:
    from legalog.ir import print_program

    return print_program(program(MAIN_PARAMS, main_body, kernels=kernels))


@pytest.mark.parametrize(
    ("lines", "kernels"),
    [
        pytest.param(
            [
                f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0 * 2)",
                f"r__ssa_v0: {T} = t__ssa_v0[0]",
                f"s__ssa_v0: {TID} = t__ssa_v0[1]",
                f"u__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, r__ssa_v0, deps=[s__ssa_v0], core_num=n__ssa_v0)",
                f"v__ssa_v0: {T} = u__ssa_v0[0]",
                f"w__ssa_v0: {TID} = u__ssa_v0[1]",
                f"z__ssa_v0: pl.Tuple[{T}, {TID}] = pl.submit(self.kernel, x__ssa_v0, v__ssa_v0, deps=[w__ssa_v0])",
                "return v__ssa_v0",
            ],
            kernel(f"x__ssa_v0: {T}", f"y__ssa_v0: pl.Out[{T}]"),
            id="computed count and a dummy task with deps",
        ),
        pytest.param(list(SCRATCH_LINES), SCRATCH_KERNEL, id="scratch moves into the branch"),
    ],
)
def test_small_programs(pypto: SimpleNamespace, lines: list[str], kernels: str) -> None:
    text = _text(body(*lines), kernels)
    assert _agrees(pypto, text, "<small>") is True
