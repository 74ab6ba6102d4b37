"""The passes are objects the pipeline loops over (legalog/passes.py): it decides, plans and applies in
`PIPELINE`'s order and in no other, that order is the specification's, and the benchmark and the
PyPTO adapters read the same list."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from legalog.passes import GRAPH, PIPELINE, SPMD, Pass
from legalog.pipeline import STAGES, analyze
from tests.conftest import SHARED

# a legal program both passes have work in: an SPMD launch with a literal core_num inside a Graph
BOTH = Path(__file__).resolve().parents[1] / "graph" / "cases" / "d21_core_num_literal.py"


def _recording(p: Pass[Any, Any], log: list[tuple[str, str]]) -> Pass[Any, Any]:
    def logged(step: str, run: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            log.append((step, p.name))
            return run(*args)

        return call

    return dataclasses.replace(
        p, decide=logged("decide", p.decide), plan=logged("plan", p.plan), apply=logged("apply", p.apply)
    )


@pytest.mark.parametrize("order", [PIPELINE, PIPELINE[::-1]], ids=["spec", "reversed"])
def test_the_pipeline_decides_plans_and_applies_in_the_lists_order(
    order: tuple[Pass[Any, Any], ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[tuple[str, str]] = []
    monkeypatch.setattr("legalog.pipeline.PIPELINE", tuple(_recording(p, log) for p in order))
    analysis = analyze(BOTH.read_text(encoding="utf-8"), str(BOTH))
    names = [p.name for p in order]
    assert analysis.status == "legal"
    # every pass decides on the input; then each plans and applies on what the one before left
    assert log == [("decide", n) for n in names] + [(step, n) for n in names for step in ("plan", "apply")]


def test_the_stages_analyze_times_are_the_list_in_its_order() -> None:
    seen: list[str] = []
    analyze(
        BOTH.read_text(encoding="utf-8"), str(BOTH), stage=lambda name, run: (seen.append(name), run())[1]
    )
    assert [s for s in STAGES if s in seen] == list(dict.fromkeys(seen))  # first use of each, in order
    assert STAGES.index(SPMD.stage) < STAGES.index(GRAPH.stage)


@pytest.mark.shared
def test_each_pass_sits_where_its_specification_puts_it() -> None:
    seeds = SHARED / "seeds"
    spmd = (seeds / "legalize_spmd_launches.en.txt").read_text(encoding="utf-8")
    graph = (seeds / "legalize_graph_boundary.en.txt").read_text(encoding="utf-8")
    assert f"after {SPMD.after} and before {SPMD.before}" in spmd
    assert f"Runs after the final {GRAPH.after} and immediately before {GRAPH.before}." in graph
    # the Graph pass needs what runs after the SPMD pass: so the SPMD pass comes first
    assert f"{SPMD.before} and AutoDeriveTaskDependencies must already have run" in graph
    assert PIPELINE == (SPMD, GRAPH)


def test_the_pypto_adapters_and_the_benchmark_read_the_list() -> None:
    from bench.run import BOTH as BENCH_PASSES
    from bench.run import STAGES as BENCH_STAGES
    from legalog import pypto

    assert (SPMD.title, SPMD.before, SPMD.after) == (pypto.SPMD_PASS, pypto.SPMD_BEFORE, pypto.SPMD_AFTER)
    assert (
        GRAPH.title,
        GRAPH.before,
        GRAPH.after,
    ) == (pypto.GRAPH_PASS, pypto.GRAPH_BEFORE, pypto.GRAPH_AFTER)
    assert tuple(p.name for p in PIPELINE) == BENCH_PASSES and BENCH_STAGES[:-1] == STAGES
