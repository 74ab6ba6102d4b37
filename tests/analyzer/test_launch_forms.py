"""Every launch form PyPTO's LegalizeSpmdLaunches recognises, and PyPTO's value domains, on whole
programs through the real pipeline (`analyze(..., passes=("spmd",))`).

Launch forms: `pl.spmd_submit(self.k, ...)`, and a call whose `attrs` carry `core_num` whatever
the callee's function type (`self.k(x, y, attrs={"core_num": n, "sync_start": True})`): PyPTO's
pass reads the count off the call, not off the callee's FunctionType.

Value domains: a free scalar ranges over its declared dtype as PyPTO's arith::Analyzer assumes
(INDEX >= 0, unsigned >= 0, each width's bounds), so `m + 1` for an INDEX `m` is proven and a
counterexample never shows a value the type excludes.
"""

from __future__ import annotations

import pytest

from legalog.analyzer.graph import plain_name
from legalog.pipeline import analyze

T = "pl.Tensor[[64], pl.FP32]"
KERNEL = f"""\
    @pl.function(type=pl.FunctionType.{{kind}}, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k(x: {T}, y: pl.Out[{T}]) -> {T}:
        return y
"""


def dump(params: str, body: str, kind: str = "AIV", caller: str = "Orchestration") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return (
        "import pypto.language as pl\n\n@pl.program\nclass P:\n"
        + KERNEL.format(kind=kind)
        + f"\n    @pl.function(type=pl.FunctionType.{caller}, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        + f"    def main(self, x: {T}, y: pl.InOut[{T}], {params}) -> {T}:\n"
        + lines
    )


CALL = f'y1: {T} = self.k(x, y, attrs={{"core_num": COUNT, "sync_start": True}})\nreturn y1'
SUBMIT = f"r: pl.Tuple[{T}, pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.k, x, y, core_num=COUNT)\ny1: {T} = r[0]\nreturn y1"


@pytest.mark.parametrize("kind", ["AIV", "InCore", "Spmd", "Opaque"])
def test_a_call_carrying_core_num_is_a_launch_whatever_the_callee(kind: str) -> None:
    result = analyze(dump("n: pl.Scalar[pl.INT32]", CALL.replace("COUNT", "n"), kind=kind), passes=("spmd",))
    assert [(d.form, d.outcome) for d in result.launches] == [("call", "guarded")]
    text = result.legalized_text()
    assert text is not None and "if n > 0:" in text
    assert [d.code for d in result.diagnostics] == ["SP310"]


@pytest.mark.parametrize("form", [CALL, SUBMIT], ids=["call", "spmd_submit"])
def test_both_forms_are_decided_alike(form: str) -> None:
    proven = analyze(dump("n: pl.Scalar[pl.INDEX]", form.replace("COUNT", "n + 1")), passes=("spmd",))
    guarded = analyze(dump("n: pl.Scalar[pl.INDEX]", form.replace("COUNT", "n")), passes=("spmd",))
    assert [d.outcome for d in proven.launches] == ["proven"] and proven.status == "legal"
    assert [d.outcome for d in guarded.launches] == ["guarded"] and guarded.status == "rewritten"
    assert guarded.launches[0].counterexample == {"core_num": 0, "n": 0}


def test_a_call_without_core_num_is_not_a_launch() -> None:
    body = f"y1: {T} = self.k(x, y)\nreturn y1"
    assert analyze(dump("n: pl.Scalar[pl.INT32]", body), passes=("spmd",)).launches == ()


@pytest.mark.parametrize(
    ("params", "count", "outcome", "counterexample"),
    [
        ("m: pl.Scalar[pl.INDEX]", "m + 1", "proven", None),
        ("m: pl.Scalar[pl.INDEX]", "m", "guarded", {"core_num": 0, "m": 0}),
        ("u: pl.Scalar[pl.UINT8]", "256 - u", "proven", None),
        ("u: pl.Scalar[pl.UINT8]", "255 - u", "guarded", {"core_num": 0, "u": 255}),
        ("u: pl.Scalar[pl.UINT16]", "u + 1", "proven", None),
        ("k: pl.Scalar[pl.INT8]", "k + 129", "proven", None),
        ("k: pl.Scalar[pl.INT8]", "k + 128", "guarded", {"core_num": 0, "k": -128}),
        ("k: pl.Scalar[pl.INT32]", "k + 1", "guarded", {"core_num": 0, "k": -1}),
    ],
)
def test_the_prover_uses_the_dtype_domain(
    params: str, count: str, outcome: str, counterexample: dict | None
) -> None:
    result = analyze(dump(params, SUBMIT.replace("COUNT", count)), passes=("spmd",))
    (decision,) = result.launches
    assert (decision.outcome, decision.counterexample) == (outcome, counterexample)


def test_a_bound_index_scalar_takes_its_definition() -> None:
    # `c: INDEX = m - 1`: PyPTO binds c to m - 1, so c may be -1 when m = 0 (m is INDEX).
    body = "c: pl.Scalar[pl.INDEX] = m - 1\n" + SUBMIT.replace("COUNT", "c + 1")
    (decision,) = analyze(dump("m: pl.Scalar[pl.INDEX]", body), passes=("spmd",)).launches
    assert decision.outcome == "guarded" and decision.counterexample == {"core_num": 0, "m": 0}


# ------------------------------------------------------------------- `with pl.spmd(n):` scopes

TILE = "pl.Tile[[64], pl.FP32, pl.Mem.Vec]"


def scope_dump(params: str, count: str, after: str = "return y", caller: str = "Orchestration") -> str:
    body = (
        f'with pl.spmd({count}, name_hint="rows") as tid:\n'
        f"    a: {TILE} = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec)\n"
        f"    y: {T} = pl.tile.store(a, [0], y)\n" + after
    )
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return (
        "import pypto.language as pl\n\n@pl.program\nclass S:\n"
        f"    @pl.function(type=pl.FunctionType.{caller}, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        f"    def main(self, x: {T}, y: pl.InOut[{T}], {params}) -> {T}:\n" + lines
    )


def test_a_spmd_scope_is_proven_like_a_launch() -> None:
    result = analyze(scope_dump("m: pl.Scalar[pl.INDEX]", "m + 1"), passes=("spmd",))
    assert [(d.form, d.callee, d.outcome) for d in result.launches] == [("scope", "rows", "proven")]
    assert result.status == "legal"


def test_a_spmd_scope_is_guarded_and_its_results_merge() -> None:
    after = f"with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):\n    b: {TILE} = pl.tile.load(y, [0], [64], [64], target_memory=pl.Mem.Vec)\nreturn y"
    result = analyze(scope_dump("n: pl.Scalar[pl.INT32]", "n", after), passes=("spmd",))
    (decision,) = result.launches
    assert decision.outcome == "guarded"  # n = 0 (the frontend dump is decided in SSA names)
    assert sorted(decision.counterexample.values()) == [0, 0]  # type: ignore[union-attr]
    assert [d.code for d in result.diagnostics] == ["SP310"]
    text = result.legalized_text()
    assert text is not None
    assert "if n__ssa_v0 > 0:" in text or "if n > 0:" in text
    assert "pl.system.task_dummy(deps=[])" in text  # the scope's TaskId on the empty path
    again = analyze(text, passes=("spmd",))
    assert again.status == "legal" and [d.outcome for d in again.launches] == ["proven"]


def test_a_scope_value_read_after_it_that_no_tensor_preserves_is_rejected() -> None:
    after = "c: pl.Scalar[pl.INDEX] = pl.tile.dim(a, 0)\nreturn y"
    result = analyze(scope_dump("n: pl.Scalar[pl.INT32]", "n", after), passes=("spmd",))
    assert [d.code for d in result.errors] == ["SP302"]


def test_preflight_reports_an_unguarded_spmd_scope() -> None:
    from legalog.analyzer.spmd import preflight
    from legalog.ir.parser import parse

    found = preflight(parse(scope_dump("n: pl.Scalar[pl.INT32]", "n")))
    assert [(d.code, d.severity) for d in found] == [("SP310", "error")]


# ------------------------------------------------------- types of loop-carried and phi names
#
# Printed IR leaves iteration arguments and yield targets bare: their types come from
# `init_values` or from the yield (IR_FORMAT.md), read off spmd.pyd's `spmd_type_flow`.


@pytest.mark.parametrize(("dtype", "outcome"), [("INDEX", "proven"), ("INT32", "guarded")])
def test_an_iteration_argument_takes_its_initial_values_dtype(dtype: str, outcome: str) -> None:
    body = (
        "for i, (c,) in pl.range(4, init_values=(n,)):\n"
        + "    "
        + CALL.splitlines()[0].replace("COUNT", "c + 1")
        + "\n    c2 = pl.yield_(c)\nreturn y"
    )
    (decision,) = analyze(dump(f"n: pl.Scalar[pl.{dtype}]", body), passes=("spmd",)).launches
    assert decision.outcome == outcome


def test_a_loops_back_edge_gives_its_iteration_argument_no_type() -> None:
    # c starts from a bare binding (no type); only the yield back into c is INDEX, which is the
    # next trip's value, not the declaration: c + 1 may be 0.
    body = (
        "c0 = n - 1\n"
        "for i, (c,) in pl.range(4, init_values=(c0,)):\n"
        + "    "
        + CALL.splitlines()[0].replace("COUNT", "c + 1")
        + "\n    c1: pl.Scalar[pl.INDEX] = c + 1\n    c2 = pl.yield_(c1)\nreturn y"
    )
    (decision,) = analyze(dump("n: pl.Scalar[pl.INT32]", body), passes=("spmd",)).launches
    assert decision.outcome == "guarded"


def test_a_phi_of_tiles_is_no_preallocated_output() -> None:
    # v is bound by the branches' yields of tiles, so the launch's Out argument is not a tensor
    load = "pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec)"
    body = (
        f"a: {TILE} = {load}\n"
        "if n > 2:\n    v = pl.yield_(a)\nelse:\n    v = pl.yield_(a)\n"
        + CALL.replace("COUNT", "n").replace("self.k(x, y,", "self.k(x, v,")
    )
    result = analyze(dump("n: pl.Scalar[pl.INT32]", body), passes=("spmd",))
    assert [d.code for d in result.errors] == ["SP301"]


# ------------------------------------------------------------------ what a scope hands on


def test_a_scope_hands_on_its_task_id_then_its_bindings_read_after_it() -> None:
    after = f"with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):\n    b: {TILE} = pl.tile.load(y, [0], [64], [64], target_memory=pl.Mem.Vec)\nreturn y"
    (decision,) = analyze(scope_dump("n: pl.Scalar[pl.INT32]", "n", after), passes=("spmd",)).launches
    # `a` is read only inside the scope: not a result
    assert [plain_name(n) for n in decision.outputs] == ["tid", "y"]
    assert [(s.task_id, s.preserved is not None) for s in decision.slots] == [(True, False), (False, True)]


def test_a_scope_in_a_loop_preserves_the_iteration_argument_it_writes() -> None:
    body = (
        "for i, (acc,) in pl.range(4, init_values=(y,)):\n"
        "    with pl.spmd(n):\n"
        f"        a: {TILE} = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec)\n"
        "        acc = pl.tile.store(a, [0], acc)\n"
        "    out = pl.yield_(acc)\n"
        "return out"
    )
    result = analyze(dump("n: pl.Scalar[pl.INT32]", body), passes=("spmd",))
    (decision,) = result.launches
    assert (decision.form, decision.outcome) == ("scope", "guarded")
    (slot,) = decision.slots
    assert slot.preserved is not None and plain_name(slot.preserved) == "acc"
    assert result.status == "rewritten"


@pytest.mark.parametrize(
    "after",
    [
        # a later annotation reads m: the empty path would leave it unbound
        "v: pl.Tensor[[m], pl.FP32] = pl.tensor.slice(y, [64], [0])\nreturn y",
        # so does a loop header beyond its bounds
        'for i, (acc,) in pl.range(4, init_values=(y,), attrs={"k": m}):\n    o = pl.yield_(acc)\nreturn o',
    ],
    ids=["annotation", "loop_header"],
)
def test_a_scalar_the_scope_computes_and_a_later_statement_reads_is_sp302(after: str) -> None:
    body = (
        "with pl.spmd(n):\n"
        f"    a: {TILE} = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec)\n"
        f"    y: {T} = pl.tile.store(a, [0], y)\n"
        "    m: pl.Scalar[pl.INDEX] = 3\n" + after
    )
    result = analyze(dump("n: pl.Scalar[pl.INT32]", body), passes=("spmd",))
    assert [d.code for d in result.errors] == ["SP302"]
    assert "'m'" in result.errors[0].message
