"""Differential: every engine derives the relations pyDatalog, the reference, derives from the
same rule files.

Inputs: every corpus dump, every golden case, hypothesis-drawn programs (Graph bodies in the
shape of the real dumps, arbitrary IR programs, and SPMD launches in each form), and frontend
dumps with `with pl.spmd(n)` scopes, loop-carried and phi names (none of the corpus has one).  Programs: the pass rules, the explain
rules (the pass rules and the why-not ones; explain.pyd also adds rules to pass relations, so
each is its own case), and, on a rewritten program's facts, the verifier rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from legalog.extractor.lower import lower
from legalog.ir.model import Program
from legalog.ir.parser import parse
from legalog.pipeline import analyze
from legalog.rules.engine import ENGINES, evaluate
from legalog.rules.language import RuleProgram
from legalog.rules.programs import EXPLAIN_RULES, PASS_RULES, VERIFIER_RULES
from tests.analyzer.test_launch_forms import CALL, TILE, dump, scope_dump
from tests.conftest import corpus_files, engine_alone
from tests.ir.strategies import programs, spmd_programs
from tests.rewriter.test_rewrite_verifies import graph_bodies, program_text

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

CASES = Path(__file__).resolve().parents[1] / "graph" / "cases"
# the cases whose input reaches the rules: one refused before them (IR401-IR410, SP304) never
# does, and a recursive call graph would not let pyDatalog finish
_REFUSED_BEFORE_RULES = ("# expect: IR4", "# expect: SP304")
GOLDEN = sorted(
    p
    for p in CASES.glob("*.py")
    if not p.name.endswith(".expected.py")
    and not any(mark in p.read_text(encoding="utf-8") for mark in _REFUSED_BEFORE_RULES)
)
_RUNTIME = re.compile(r"^\s*#\s*expect-runtime:\s*(\w+)\s*$", re.MULTILINE)


def _differences(got: Mapping[str, frozenset], want: Mapping[str, frozenset]) -> dict[str, object]:
    """Relation -> (rows only `got` has, rows only pyDatalog has), for every relation that differs."""
    out: dict[str, object] = {}
    for name in sorted(set(got) | set(want)):
        a, b = got.get(name), want.get(name)
        if a != b:
            out[name] = (
                "missing"
                if a is None or b is None
                else (sorted(a - b, key=repr)[:5], sorted(b - a, key=repr)[:5])
            )
    return out


def _same(names: tuple[str, ...], facts: Mapping[str, Iterable[tuple]]) -> None:
    rules = RuleProgram.load(names)
    want = evaluate(rules, facts, "pydatalog")
    for engine in ENGINES:
        with engine_alone():
            got = evaluate(rules, facts, engine) if engine != "pydatalog" else want
        assert not (diff := _differences(got, want)), (
            f"{names[-1]} program: {engine} and pyDatalog differ: {diff}"
        )


def check_program(program: Program, path: str, runtime: str = "host_build_graph") -> None:
    facts = lower(program, runtime).facts.as_mapping()
    _same(PASS_RULES, facts)
    _same(EXPLAIN_RULES, facts)
    analysis = analyze(program, path, runtime)
    if analysis.status == "rewritten" and analysis.legalized is not None:
        _same(VERIFIER_RULES, lower(analysis.legalized, runtime).facts.as_mapping())


@pytest.mark.shared
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus_dump(path: Path) -> None:
    check_program(parse(path.read_text(encoding="utf-8"), str(path)), str(path))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_case(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    runtime = m[1] if (m := _RUNTIME.search(text)) else "host_build_graph"
    check_program(parse(text, str(path)), str(path), runtime)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_bodies())
def test_drawn_graph_bodies(body: list[str]) -> None:
    check_program(parse(program_text(body)), "drawn.py")


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(programs())
def test_drawn_ir_programs(program: Program) -> None:
    check_program(program, "drawn_ir.py")


_LOAD = "pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec)"
_AT = f"with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):\n    b: {TILE} = pl.tile.load(y, [0], [64], [64], target_memory=pl.Mem.Vec)\n"
SPMD_DUMPS = {
    "scope": scope_dump("n: pl.Scalar[pl.INT32]", "n"),
    "scope_task_id_read_after": scope_dump("n: pl.Scalar[pl.INT32]", "n", _AT + "return y"),
    "scope_value_read_after": scope_dump(
        "n: pl.Scalar[pl.INT32]", "n", "c: pl.Scalar[pl.INDEX] = pl.tile.dim(a, 0)\nreturn y"
    ),
    "scope_in_a_loop": dump(
        "n: pl.Scalar[pl.INT32]",
        f"for i, (acc,) in pl.range(4, init_values=(y,)):\n    with pl.spmd(n):\n        a: {TILE} = {_LOAD}\n"
        "        acc = pl.tile.store(a, [0], acc)\n    out = pl.yield_(acc)\nreturn out",
    ),
    "scope_with_a_branch": dump(
        "n: pl.Scalar[pl.INT32]",
        f"with pl.spmd(n):\n    a: {TILE} = {_LOAD}\n    if n > 2:\n        y = pl.tile.store(a, [0], y)\nreturn y",
    ),
    "carried_count": dump(
        "n: pl.Scalar[pl.INDEX]",
        "for i, (c, d) in pl.range(4, init_values=(n, n)):\n    "
        + CALL.splitlines()[0].replace("COUNT", "c + d")
        + "\n    c2, d2 = pl.yield_(c, d)\nreturn y",
    ),
}


def _same_on_analysis(text: str) -> None:
    analysis = analyze(text, "spmd.py", passes=("spmd",))
    assert analysis.lowering is not None, [d.message for d in analysis.diagnostics]
    _same(PASS_RULES, analysis.lowering.facts.as_mapping())


@pytest.mark.parametrize("name", SPMD_DUMPS)
def test_spmd_dump(name: str) -> None:
    _same_on_analysis(SPMD_DUMPS[name])


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spmd_programs())
def test_drawn_spmd_launches(drawn: tuple[dict[str, str], str, str]) -> None:
    for text in drawn[0].values():
        _same_on_analysis(text)
