"""Property: whatever Graph body the generator draws, a rewrite legalog produces passes its own
verifier, re-checks `legal`, and is a fixpoint (ARCHITECTURE.md, "every rewrite passes the
verifier").  Programs are drawn as printed IR in the shape of the real dumps."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from legalog.analyzer.verifier import verify
from legalog.ir import parse, print_program
from legalog.ir.transform import bound_names
from legalog.pipeline import analyze

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

T = "pl.Tensor[[1024, 128], pl.FP32]"
V = "pl.Tensor[[64, 128], pl.FP32]"
S = "pl.Scalar[pl.INDEX]"
ADIR = 'attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar]}'


@st.composite
def graph_bodies(draw: st.DrawFn) -> list[str]:
    scalars = ["p0__ssa_v0", "p1__ssa_v0"]
    tensors = ["x__ssa_v0"]
    lines: list[str] = []
    y = "y__ssa_v0"
    for k in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["derive", "alias", "view", "alloc", "launch", "loop"]))
        if kind == "derive":
            a, b = draw(st.sampled_from(scalars)), draw(st.sampled_from(scalars + ["3", "128"]))
            op = draw(st.sampled_from(["+", "*", "//", "-"]))
            lines.append(f"s{k}__ssa_v0: {S} = {a} {op} {b}")
            scalars.append(f"s{k}__ssa_v0")
        elif kind == "alias":
            lines.append(f"a{k}__ssa_v0: {S} = {draw(st.sampled_from(scalars))}")
            scalars.append(f"a{k}__ssa_v0")
        elif kind == "view":
            offset = draw(st.sampled_from(scalars + ["0", "64"]))
            lines.append(
                f"v{k}__ssa_v0: {V} = pl.tensor.slice({draw(st.sampled_from(tensors))}, [64, 128], [{offset}, 0])"
            )
            tensors.append(f"v{k}__ssa_v0")
        elif kind == "alloc":
            lines.append(
                f"t{k}__ssa_v0: {V} = pl.tensor.create([64, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)"
            )
            tensors.append(f"t{k}__ssa_v0")
        elif kind == "launch":
            src, arg = draw(st.sampled_from(tensors)), draw(st.sampled_from(scalars + ["5"]))
            lines.append(f"y__ssa_v{k + 1}: {T} = self.kern({src}, {y}, {arg}, {ADIR})")
            y = f"y__ssa_v{k + 1}"
        else:
            trips = draw(st.integers(1, 3))
            src = draw(st.sampled_from(tensors))
            lines.append(f"for i{k}__idx_v0, (y{k}__iter_v1,) in pl.range({trips}, init_values=({y},)):")
            lines.append(f"    w{k}__ssa_v0: {V} = pl.tensor.slice({src}, [64, 128], [i{k}__idx_v0 * 64, 0])")
            lines.append(
                f"    y{k}__ssa_v2: {T} = self.kern(w{k}__ssa_v0, y{k}__iter_v1, i{k}__idx_v0, {ADIR})"
            )
            lines.append(f"    y{k}__rv_v3: {T} = pl.yield_(y{k}__ssa_v2)")
            y = f"y{k}__rv_v3"
    lines.append(f"y__ssa_v99: {T} = self.kern(x__ssa_v0, {y}, p0__ssa_v0, {ADIR})")
    lines.append("return y__ssa_v99")
    return lines


def program_text(body: list[str]) -> str:
    inner = "".join(f"        {line}\n" for line in body)
    return (
        "# pypto.program: Drawn\nimport pypto.language as pl\n\n@pl.program\nclass Drawn:\n"
        "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n"
        f"    def kern(src__ssa_v0: {T}, dst__ssa_v0: pl.InOut[{T}], k__ssa_v0: {S}) -> {T}:\n"
        "        return dst__ssa_v0\n"
        "    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        f"    def g(self, x__ssa_v0: {T}, y__ssa_v0: pl.InOut[{T}], p0__ssa_v0: {S}, p1__ssa_v0: {S}) -> {T}:\n"
        f"{inner}"
        "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        f"    def main(self, x__ssa_v0: {T}, y__ssa_v0: pl.InOut[{T}], n__ssa_v0: {S}) -> {T}:\n"
        f"        for i__idx_v0, (y__iter_v1,) in pl.range(4, init_values=(y__ssa_v0,)):\n"
        f"            y__ssa_v2: {T} = self.g(x__ssa_v0, y__iter_v1, i__idx_v0, n__ssa_v0 , "
        'attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar, pl.adir.scalar]})\n'
        f"            y__rv_v3: {T} = pl.yield_(y__ssa_v2)\n"
        "        return y__rv_v3\n"
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_bodies())
def test_every_rewrite_passes_the_verifier_and_is_a_fixpoint(body: list[str]) -> None:
    text = program_text(body)
    first = analyze(text, "drawn.py")
    assert first.status in ("legal", "rewritten", "rejected"), first.diagnostics
    if first.status == "rejected":
        assert first.errors and first.legalized_text() is None, "fix writes a rejected program"
        return
    if first.status == "legal":
        assert first.legalized_text() == text and not first.findings, "fix changes a legal program"
        return
    assert first.findings, "a rewrite without a finding saying what it changes"
    fixed = first.legalized_text()
    assert fixed is not None
    assert verify(parse(fixed)) == []
    second = analyze(fixed, "fixed.py")
    assert second.status == "legal", [(d.code, d.message) for d in second.diagnostics]
    assert print_program(second.legalized or second.program) == fixed  # type: ignore[arg-type]
    main_text = fixed.split("def main", 1)[1]
    original = parse(text)
    graph_locals = bound_names(original.function("g").body) - bound_names(original.function("main").body)  # type: ignore[union-attr]
    assert not [n for n in graph_locals if re.search(rf"\b{n}\b", main_text)], (
        "a call site names a Graph-local"
    )


def _rewritten(body: list[str]) -> bool:
    return analyze(program_text(body), "drawn.py").status == "rewritten"


def test_the_generator_draws_programs_the_pass_rewrites() -> None:
    """The property above checks rewrites only: it would pass on a generator that never
    produced one, so the generator must reach a rewrite (a derived scalar, a view or an
    allocation to hoist) within a small budget."""
    body = find(graph_bodies(), _rewritten, settings=settings(max_examples=200, deadline=None, database=None))
    assert analyze(program_text(body), "drawn.py").legalized_text() != program_text(body)
