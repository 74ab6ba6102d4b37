"""LegalizeSpmdLaunches: one test per paragraph of seeds/legalize_spmd_launches.en.txt, plus the
corpus dumps a08, a09 and a14 (shared/corpus/graph/INDEX.md).

Programs are written as printed IR (post-pass style, like the real dumps) and read with
`legalog.ir.parse`.
"""

from __future__ import annotations

import pytest

from legalog.analyzer.spmd import SpmdOutcome, map_arguments, preflight
from legalog.ir import parse, parse_file, print_program
from legalog.ir.model import Program
from legalog.pipeline import analyze
from tests.conftest import GRAPH as CORPUS

T = "pl.Tensor[[64, 64], pl.FP32]"
TID = "pl.Scalar[pl.TASK_ID]"
IDX = "pl.Scalar[pl.INDEX]"

KERNEL_1OUT = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: {T}, y__ssa_v0: pl.Out[{T}]) -> {T}:
        y__ssa_v1: {T} = pl.tile.store(x__ssa_v0, [0, 0], y__ssa_v0)
        return y__ssa_v0
"""
# Returns its two outputs in reversed order (PyPTO's test_multi_output_no_input_preserves_mapping).
PRODUCER = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def producer(a__ssa_v0: pl.Out[{T}], b__ssa_v0: pl.Out[{T}]) -> tuple[{T}, {T}]:
        return b__ssa_v0, a__ssa_v0
"""


def program(main_params: str, body: str, kernels: str = KERNEL_1OUT, dims: str = "") -> Program:
    """A program with `kernels` and an Orchestration `main(self, <main_params>)` whose body is
    `body` (indented 8 spaces, one statement a line)."""
    header = "# pypto.program: P\nimport pypto.language as pl\n\n" + (dims + "\n" if dims else "")
    text = (
        f"{header}@pl.program\nclass P:\n{kernels}"
        "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
        f"    def main(self, {main_params}) -> {T}:\n{body}"
    )
    return parse(text)


def body(*lines: str) -> str:
    return "".join(f"        {line}\n" for line in lines)


def outcomes(o: SpmdOutcome) -> list[str]:
    return [d.outcome for d in o.launches]


def codes(o: SpmdOutcome) -> list[str]:
    return [d.code for d in o.diagnostics]


def spmd(p: Program) -> SpmdOutcome:
    """The real pipeline with only LegalizeSpmdLaunches: its launch decisions and diagnostics."""
    a = analyze(p, passes=("spmd",))
    return SpmdOutcome(a.launches, a.diagnostics)


def legalize(p: Program) -> tuple[Program, SpmdOutcome]:
    a = analyze(p, passes=("spmd",))
    return a.legalized or p, SpmdOutcome(a.launches, a.diagnostics)


def main_text(p: Program) -> str:
    return print_program(p).split("    def main(", 1)[1].split("\n", 1)[1]


MAIN_PARAMS = f"x__ssa_v0: {T}, y__ssa_v0: pl.InOut[{T}], n__ssa_v0: {IDX}"


def launch(count: str, out: str = "y__ssa_v0", deps: str = "", name: str = "t__ssa_v0") -> list[str]:
    deps_kw = f", deps=[{deps}]" if deps else ""
    return [
        f"{name}: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, {out}{deps_kw}, core_num={count})",
        f"r__ssa_v0: {T} = {name}[0]",
        f"tid__ssa_v0: {TID} = {name}[1]",
    ]


# -------------------------------------------------------------------------- literal core_num


def test_literal_positive_is_proven_even_with_runtime_allocated_outputs() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, core_num=4)",
            f"r__ssa_v0: {T} = t__ssa_v0[0]",
            "return r__ssa_v0",
        ),
    )
    q, o = legalize(p)
    assert outcomes(o) == ["proven"] and o.diagnostics == ()
    assert print_program(q) == print_program(p)


@pytest.mark.parametrize("count", ["0", "-1"])
def test_literal_nonpositive_is_rejected_and_still_checks_outputs(count: str) -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, core_num={count})",
            "return y__ssa_v0",
        ),
    )
    o = spmd(p)
    assert outcomes(o) == ["rejected"]
    assert sorted(codes(o)) == ["SP301", "SP303"]
    sp303 = next(d for d in o.diagnostics if d.code == "SP303")
    assert sp303.severity == "error" and f"core_num {count}" in sp303.message
    assert o.launches[0].to_json()["core_num"] == count


# ----------------------------------------------------------- loop bounds, branches, bindings


def test_loop_range_i_plus_one_is_proven() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            "for i__idx_v0, (y__iter_v1,) in pl.range(4, init_values=(y__ssa_v0,)):",
            f"    t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__iter_v1, core_num=i__idx_v0 + 1)",
            f"    y__ssa_v2: {T} = t__ssa_v0[0]",
            f"    y__rv_v3: {T} = pl.yield_(y__ssa_v2)",
            "return y__rv_v3",
        ),
    )
    o = spmd(p)
    assert outcomes(o) == ["proven"] and o.launches[0].core_num == "i__idx_v0 + 1"


def test_enclosing_branch_proves_blocks_of_remaining() -> None:
    p = program(
        f"x__ssa_v0: {T}, y__ssa_v0: pl.InOut[{T}], remaining__ssa_v0: {IDX}",
        body(
            "if remaining__ssa_v0 > 0:",
            f"    t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=(remaining__ssa_v0 + 15) // 16 * 4)",
            f"    y__ssa_v1: {T} = t__ssa_v0[0]",
            f"    y__phi_v2: {T} = pl.yield_(y__ssa_v1)",
            "else:",
            f"    y__phi_v2: {T} = pl.yield_(y__ssa_v0)",
            "return y__phi_v2",
        ),
    )
    q, o = legalize(p)
    assert outcomes(o) == ["proven"]
    assert q is p


def test_else_branch_gets_the_negated_condition() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            "if n__ssa_v0 > 0:",
            f"    a__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0)",
            "else:",
            f"    b__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=1 - n__ssa_v0)",
            "return y__ssa_v0",
        ),
    )
    assert outcomes(spmd(p)) == ["proven", "proven"]


def test_positive_then_constraint_does_not_leak_into_else() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            "if n__ssa_v0 > 0:",
            f"    a__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, core_num=n__ssa_v0)",
            "else:",
            f"    b__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, core_num=n__ssa_v0)",
            "return y__ssa_v0",
        ),
    )
    o = spmd(p)
    assert outcomes(o) == ["proven", "rejected"]
    assert codes(o) == ["SP301"] and "'y__ssa_v0' (parameter 1)" in o.diagnostics[0].message


def test_ssa_scalar_binding_keeps_existing_positive_proof() -> None:
    # PyPTO's test_composite_scalar_binding_keeps_existing_positive_proof: exactly one If.
    p = program(
        f"x__ssa_v0: {T}, y__ssa_v0: pl.InOut[{T}], size__ssa_v0: {IDX}",
        body(
            f"n__ssa_v0: {IDX} = size__ssa_v0 * 3 // 4",
            "if n__ssa_v0 > 0:",
            f"    t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, core_num=n__ssa_v0)",
            "return y__ssa_v0",
        ),
    )
    q, o = legalize(p)
    assert outcomes(o) == ["proven"] and o.diagnostics == ()
    assert main_text(q).count("if ") == 1


# What the prover may assume at a launch (spmd.pyd's context rows): the bindings before it, in
# its branch or loop or a with-scope around it, and names known non-negative.  Each case: the
# statements before the launch, its count, the outcome.
CONTEXTS = {
    "bindings chain through names": (
        [f"m__ssa_v0: {IDX} = n__ssa_v0 * n__ssa_v0", f"c__ssa_v0: {IDX} = m__ssa_v0 + 1"],
        "c__ssa_v0",
        "proven",
    ),
    "a tensor read is not arithmetic": (
        [f"k__ssa_v0: {IDX} = pl.tensor.read(x__ssa_v0, [0, 0])"],
        "k__ssa_v0",
        "guarded",
    ),
    # No branch at all: the range fact comes from `remaining = max(n, 1)` kept as a name, so
    # `((remaining + 15) // 16) * 4 >= 4` holds even after Simplify folded a redundant guard away.
    "simplify removed the guard: the binding's range proves it": (
        [
            f"remaining__ssa_v0: {IDX} = pl.max(n__ssa_v0, 1)",
            f"blocks__ssa_v0: {IDX} = (remaining__ssa_v0 + 15) // 16 * 4",
        ],
        "blocks__ssa_v0",
        "proven",
    ),
    "a shape query is never negative": (
        [f"d__ssa_v0: {IDX} = pl.tensor.dim(x__ssa_v0, 0)"],
        "d__ssa_v0 + 1",
        "proven",
    ),
    "a bare arithmetic binding counts": (["c__ssa_v0 = n__ssa_v0 + 1"], "c__ssa_v0", "proven"),
    "a binding inside a branch is not seen after it": (
        ["if n__ssa_v0 > 0:", f"    c__ssa_v0: {IDX} = n__ssa_v0 + 1"],
        "c__ssa_v0",
        "guarded",
    ),
    "a binding inside a with-scope is seen after it": (
        ["with pl.scope(mode=pl.ScopeMode.MANUAL):", f"    c__ssa_v0: {IDX} = n__ssa_v0 + 1"],
        "c__ssa_v0",
        "proven",
    ),
    "a binding inside a loop is not seen after it": (
        ["for i__idx_v0 in pl.range(2):", f"    c__ssa_v0: {IDX} = n__ssa_v0 + 1"],
        "c__ssa_v0",
        "guarded",
    ),
}


@pytest.mark.parametrize(("before", "count", "outcome"), CONTEXTS.values(), ids=CONTEXTS)
def test_launch_context(before: list[str], count: str, outcome: str) -> None:
    p = program(MAIN_PARAMS, body(*before, *launch(count), "return r__ssa_v0"))
    assert outcomes(spmd(p)) == [outcome]


def test_rules_say_which_launches_need_no_proof() -> None:
    """A literal count, and the index of a loop counting up from a literal (`i + 1`), are decided
    by the rules as written; only the named count gets a Z3 goal."""
    p = program(
        MAIN_PARAMS,
        body(
            f"a__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=4)",
            "for i__idx_v0, (y__iter_v1,) in pl.range(4, init_values=(y__ssa_v0,)):",
            f"    t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__iter_v1, core_num=i__idx_v0 + 1)",
            f"    y__ssa_v2: {T} = t__ssa_v0[0]",
            f"    y__rv_v3: {T} = pl.yield_(y__ssa_v2)",
            f"b__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__rv_v3, core_num=n__ssa_v0 + 1)",
            "return y__rv_v3",
        ),
    )
    a = analyze(p, passes=("spmd",))
    assert a.derived is not None
    literal, index = a.derived["spmd_literal_count"], a.derived["spmd_index_count"]
    assert [n for _, n in literal] == [4] and len(index) == 1
    assert len(a.derived["spmd_point"]) == 3
    assert [d.reason for d in a.launches] == [
        "literal core_num 4 >= 1",
        "core_num >= 1 follows from i__idx_v0 in range(0, 4, 1)",
        "core_num >= 1 follows from n__ssa_v0: INDEX >= 0",
    ]


def test_dynamic_dim_is_nonnegative_but_not_positive() -> None:
    p = program(
        MAIN_PARAMS, body(*launch("TOKENS + 1"), "return r__ssa_v0"), dims='TOKENS = pl.dynamic("TOKENS")\n'
    )
    assert outcomes(spmd(p)) == ["proven"]
    p = program(
        MAIN_PARAMS, body(*launch("TOKENS"), "return r__ssa_v0"), dims='TOKENS = pl.dynamic("TOKENS")\n'
    )
    o = spmd(p)
    assert outcomes(o) == ["guarded"] and o.launches[0].counterexample == {"TOKENS": 0, "core_num": 0}


# --------------------------------------------------------------------- the guard's exact shape


def test_unprovable_launch_is_guarded_with_pypto_shape() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"prior__ssa_v0: {TID} = pl.system.task_dummy(deps=[])",
            *launch("n__ssa_v0", deps="prior__ssa_v0"),
            f"u__ssa_v0: pl.Tuple[{T}, {TID}] = pl.submit(self.kernel, x__ssa_v0, r__ssa_v0, deps=[tid__ssa_v0])",
            "return r__ssa_v0",
        ),
    )
    q, o = legalize(p)
    d = o.launches[0]
    assert (d.outcome, d.counterexample, d.core_num, d.callee, d.function) == (
        "guarded",
        {"core_num": 0, "n__ssa_v0": 0},
        "n__ssa_v0",
        "kernel",
        "main",
    )
    assert d.to_json() == {
        "function": "main",
        "line": d.line,
        "callee": "kernel",
        "core_num": "n__ssa_v0",
        "outcome": "guarded",
        "counterexample": {"core_num": 0, "n__ssa_v0": 0},
    }
    [info] = o.diagnostics
    assert info.code == "SP310" and info.severity == "info"
    assert "core_num = 0 when n = 0" in info.message
    assert main_text(q) == body(
        f"prior__ssa_v0: {TID} = pl.system.task_dummy(deps=[])",
        "if n__ssa_v0 > 0:",
        f"    t__ssa_v0_nonempty: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, deps=[prior__ssa_v0], core_num=n__ssa_v0)",
        f"    t__ssa_v0_nonempty_0: {T} = t__ssa_v0_nonempty[0]",
        f"    t__ssa_v0_nonempty_1: {TID} = t__ssa_v0_nonempty[1]",
        "    t__ssa_v0_guarded_0, t__ssa_v0_guarded_1 = pl.yield_(t__ssa_v0_nonempty_0, t__ssa_v0_nonempty_1)",
        "else:",
        f"    spmd_empty_tid: {TID} = pl.system.task_dummy(deps=[prior__ssa_v0])",
        "    t__ssa_v0_guarded_0, t__ssa_v0_guarded_1 = pl.yield_(y__ssa_v0, spmd_empty_tid)",
        f"r__ssa_v0: {T} = t__ssa_v0_guarded_0",
        f"tid__ssa_v0: {TID} = t__ssa_v0_guarded_1",
        f"u__ssa_v0: pl.Tuple[{T}, {TID}] = pl.submit(self.kernel, x__ssa_v0, r__ssa_v0, deps=[tid__ssa_v0])",
        "return r__ssa_v0",
    )


def test_dummy_without_deps_prints_empty_deps_and_keeps_launch_metadata() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0, sync_start=True, allow_early_resolve=True)",
            f"r__ssa_v0: {T} = t__ssa_v0[0]",
            f"tid__ssa_v0: {TID} = t__ssa_v0[1]",
            "return r__ssa_v0",
        ),
    )
    text = main_text(legalize(p)[0])
    assert "core_num=n__ssa_v0, sync_start=True, allow_early_resolve=True)" in text
    assert f"spmd_empty_tid: {TID} = pl.system.task_dummy(deps=[])" in text


def test_compound_count_is_bound_to_spmd_core_num_with_unique_names() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"spmd_core_num: {IDX} = 7",
            f"spmd_empty_tid: {TID} = pl.system.task_dummy(deps=[])",
            *launch("n__ssa_v0 - 3"),
            "return r__ssa_v0",
        ),
    )
    q, o = legalize(p)
    assert outcomes(o) == ["guarded"] and o.launches[0].core_num == "n__ssa_v0 - 3"
    text = main_text(q)
    assert f"spmd_core_num_1: {IDX} = n__ssa_v0 - 3\n        if spmd_core_num_1 > 0:" in text
    assert "core_num=spmd_core_num_1)" in text
    assert f"spmd_empty_tid_1: {TID} = pl.system.task_dummy(deps=[])" in text
    assert legalize(parse(print_program(q)))[1].launches[0].outcome == "proven"


def test_spmd_wrapper_call_with_core_num_attr_single_result() -> None:
    kernels = (
        KERNEL_1OUT
        + f"""\
    @pl.function(type=pl.FunctionType.Spmd)
    def kernel_spmd(self, x__ssa_v0: {T}, y__ssa_v0: pl.Out[{T}]) -> {T}:
        y__ssa_v1: {T} = self.kernel(x__ssa_v0, y__ssa_v0)
        return y__ssa_v0
"""
    )
    p = program(
        MAIN_PARAMS,
        body(
            f'r__ssa_v0: {T} = self.kernel_spmd(x__ssa_v0, y__ssa_v0, attrs={{"core_num": n__ssa_v0}})',
            "return r__ssa_v0",
        ),
        kernels=kernels,
    )
    q, o = legalize(p)
    assert outcomes(o) == ["guarded"] and o.launches[0].callee == "kernel_spmd"
    assert main_text(q) == body(
        "if n__ssa_v0 > 0:",
        f'    r__ssa_v0_nonempty: {T} = self.kernel_spmd(x__ssa_v0, y__ssa_v0, attrs={{"core_num": n__ssa_v0}})',
        f"    r__ssa_v0: {T} = pl.yield_(r__ssa_v0_nonempty)",
        "else:",
        f"    r__ssa_v0: {T} = pl.yield_(y__ssa_v0)",
        "return r__ssa_v0",
    )


# --------------------------------------------------------------------------- output contract


def test_map_arguments_is_greedy() -> None:
    dirs = ["Out", "In", "Out", "In"]
    assert map_arguments(dirs, 2) == [None, 0, None, 1]
    assert map_arguments(dirs, 3) == [0, 1, None, 2]
    assert map_arguments(dirs, 4) == [0, 1, 2, 3]
    assert map_arguments(["Out", "Out"], 0) == [None, None]
    assert map_arguments(dirs, 1) is None and map_arguments(dirs, 5) is None


def test_omitted_outputs_before_inputs_one_sp301_lists_all() -> None:
    kernels = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Out[{T}], x__ssa_v0: {T}, b__ssa_v0: pl.InOut[{T}], z__ssa_v0: {T}) -> tuple[{T}, {T}]:
        return a__ssa_v0, b__ssa_v0
"""
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, x__ssa_v0, core_num=n__ssa_v0)",
            "return y__ssa_v0",
        ),
        kernels=kernels,
    )
    q, o = legalize(p)
    assert outcomes(o) == ["rejected"]
    [d] = o.diagnostics
    assert d.code == "SP301" and d.severity == "error" and d.function == "main"
    assert "'a__ssa_v0' (parameter 0) 'b__ssa_v0' (parameter 2) are not preallocated" in d.message
    assert o.launches[0].missing_outputs == (("a__ssa_v0", 0), ("b__ssa_v0", 2))
    assert q is p


def test_unreturned_out_must_also_be_preallocated() -> None:
    kernels = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Out[{T}], hidden__ssa_v0: pl.Out[{T}]) -> {T}:
        return a__ssa_v0
"""
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, y__ssa_v0, core_num=n__ssa_v0)",
            "return y__ssa_v0",
        ),
        kernels=kernels,
    )
    o = spmd(p)
    assert codes(o) == ["SP301"] and "'hidden__ssa_v0' (parameter 1)" in o.diagnostics[0].message


def test_out_only_kernel_is_supported() -> None:
    kernels = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(y__ssa_v0: pl.Out[{T}]) -> {T}:
        return y__ssa_v0
"""
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, y__ssa_v0, core_num=n__ssa_v0)",
            f"r__ssa_v0: {T} = t__ssa_v0[0]",
            "return r__ssa_v0",
        ),
        kernels=kernels,
    )
    q, o = legalize(p)
    assert outcomes(o) == ["guarded"]
    assert "t__ssa_v0_guarded_0: " in main_text(q) and "pl.yield_(y__ssa_v0)" in main_text(q)


def test_existing_positive_guard_allows_omitted_output() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            "if n__ssa_v0 > 0:",
            f"    t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, core_num=n__ssa_v0)",
            "return y__ssa_v0",
        ),
    )
    o = spmd(p)
    assert outcomes(o) == ["proven"] and o.diagnostics == ()


def test_reordered_multiple_returns_map_to_their_own_buffers() -> None:
    p = program(
        f'a__ssa_v0: pl.InOut[{T}], b__ssa_v0: pl.InOut[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]], n__ssa_v0: {IDX}',
        body(
            f"prior__ssa_v0: {TID} = pl.system.task_dummy(deps=[])",
            f"t__ssa_v0: pl.Tuple[{T}, {T}, {TID}] = pl.spmd_submit(self.producer, a__ssa_v0, b__ssa_v0, deps=[prior__ssa_v0], core_num=n__ssa_v0, sync_start=True)",
            f"ob__ssa_v0: {T} = t__ssa_v0[0]",
            f"oa__ssa_v0: {T} = t__ssa_v0[1]",
            f"tid__ssa_v0: {TID} = t__ssa_v0[2]",
            f"u__ssa_v0: pl.Tuple[{TID}] = pl.submit(self.producer, oa__ssa_v0, ob__ssa_v0, deps=[tid__ssa_v0])",
            "return oa__ssa_v0",
        ),
        kernels=PRODUCER,
    )
    q, o = legalize(p)
    slots = o.launches[0].slots
    assert [(s.preserved, s.task_id) for s in slots] == [
        ("b__ssa_v0", False),
        ("a__ssa_v0", False),
        (None, True),
    ]
    text = main_text(q)
    tb = 'pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]'
    # generated result types are the caller buffers' types, in callee return order
    assert f"t__ssa_v0_nonempty: pl.Tuple[{tb}, {T}, {TID}] = pl.spmd_submit(" in text
    assert f"t__ssa_v0_nonempty_0: {tb} = t__ssa_v0_nonempty[0]" in text
    assert (
        "t__ssa_v0_guarded_0, t__ssa_v0_guarded_1, t__ssa_v0_guarded_2 = pl.yield_(b__ssa_v0, a__ssa_v0, spmd_empty_tid)"
        in text
    )
    assert "deps=[prior__ssa_v0], core_num=n__ssa_v0, sync_start=True)" in text
    assert f"oa__ssa_v0: {T} = t__ssa_v0_guarded_1" in text
    # idempotent: the launch is now under `if n > 0`
    q2, o2 = legalize(parse(print_program(q)))
    assert outcomes(o2) == ["proven"] and print_program(q2) == print_program(q)


def test_views_keep_their_own_mapping() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            "v__ssa_v0: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.slice(y__ssa_v0, [32, 64], [32, 0])",
            f"t__ssa_v0: pl.Tuple[pl.Tensor[[32, 64], pl.FP32], {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, v__ssa_v0, core_num=n__ssa_v0)",
            "r__ssa_v0: pl.Tensor[[32, 64], pl.FP32] = t__ssa_v0[0]",
            f"w__ssa_v0: pl.Tuple[{T}, {TID}] = pl.submit(self.kernel, r__ssa_v0, y__ssa_v0)",
            "return y__ssa_v0",
        ),
    )
    q, o = legalize(p)
    assert outcomes(o) == ["guarded"]
    assert o.launches[0].slots[0].preserved == "v__ssa_v0"
    # The TaskId is never projected, so only the view's slot is preserved: no dummy is needed.
    text = main_text(q)
    assert "t__ssa_v0_guarded_0: pl.Tensor[[32, 64], pl.FP32] = pl.yield_(v__ssa_v0)" in text
    assert (
        "task_dummy" not in text and "r__ssa_v0: pl.Tensor[[32, 64], pl.FP32] = t__ssa_v0_guarded_0" in text
    )


# --------------------------------------------------------------- result liveness, dead bindings

COMPUTED = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: {T}, y__ssa_v0: pl.Out[{T}]) -> tuple[{T}, {T}]:
        z__ssa_v0: {T} = pl.tile.load(x__ssa_v0, [0, 0], [64, 64])
        return z__ssa_v0, y__ssa_v0
"""


def test_dead_projection_and_alias_do_not_make_a_result_escape() -> None:
    # Return 0 is computed (no existing tensor); its projection and an alias of it are unused.
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0)",
            f"z__ssa_v0: {T} = t__ssa_v0[0]",
            f"z__ssa_v1: {T} = z__ssa_v0",
            f"r__ssa_v0: {T} = t__ssa_v0[1]",
            f"tid__ssa_v0: {TID} = t__ssa_v0[2]",
            "return r__ssa_v0",
        ),
        kernels=COMPUTED,
    )
    q, o = legalize(p)
    d = o.launches[0]
    assert d.outcome == "guarded" and codes(o) == ["SP310"]
    assert [s.escapes for s in d.slots] == [False, True, True]
    assert d.dead_bindings == ("z__ssa_v0", "z__ssa_v1")
    text = main_text(q)
    assert "z__ssa_v0" not in text and "t__ssa_v0_guarded_0" not in text
    assert "t__ssa_v0_guarded_1, t__ssa_v0_guarded_2 = pl.yield_(y__ssa_v0, spmd_empty_tid)" in text
    assert f"r__ssa_v0: {T} = t__ssa_v0_guarded_1" in text
    q2, o2 = legalize(parse(print_program(q)))
    assert outcomes(o2) == ["proven"] and print_program(q2) == print_program(q)


def test_live_unmappable_result_is_sp302() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0)",
            f"z__ssa_v0: {T} = t__ssa_v0[0]",
            f"z__ssa_v1: {T} = z__ssa_v0",
            f"u__ssa_v0: pl.Tuple[{T}, {TID}] = pl.submit(self.kernel, z__ssa_v1, y__ssa_v0)",
            "return y__ssa_v0",
        ),
        kernels=COMPUTED,
    )
    o = spmd(p)
    assert outcomes(o) == ["rejected"] and codes(o) == ["SP302"]
    assert "return 0 cannot be mapped to a caller-provided Tensor parameter" in o.diagnostics[0].message


def test_no_escaping_result_guards_the_launch_alone() -> None:
    p = program(
        MAIN_PARAMS,
        body(
            f"t__ssa_v0: pl.Tuple[{T}, {T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0)",
            f"z__ssa_v0: {T} = t__ssa_v0[0]",
            "return y__ssa_v0",
        ),
        kernels=COMPUTED,
    )
    q, o = legalize(p)
    assert outcomes(o) == ["guarded"]
    assert main_text(q) == body(
        "if n__ssa_v0 > 0:",
        f"    t__ssa_v0_nonempty: pl.Tuple[{T}, {T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0)",
        "return y__ssa_v0",
    )


# ------------------------------------------------------------------------ GM pipe scratch


def test_single_use_gm_pipe_scratch_moves_into_the_positive_branch() -> None:
    create = f"gm_pipe_buffer_0: {T} = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)"
    kernels = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: {T}, y__ssa_v0: pl.Out[{T}], buf__ssa_v0: pl.InOut[{T}]) -> {T}:
        return y__ssa_v0
"""
    p = program(
        MAIN_PARAMS,
        body(
            create,
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, gm_pipe_buffer_0, core_num=n__ssa_v0)",
            f"r__ssa_v0: {T} = t__ssa_v0[0]",
            "return r__ssa_v0",
        ),
        kernels=kernels,
    )
    q, o = legalize(p)
    assert outcomes(o) == ["guarded"] and o.launches[0].scratch == ("gm_pipe_buffer_0",)
    text = main_text(q)
    assert text.startswith(f"        if n__ssa_v0 > 0:\n            {create}\n            t__ssa_v0_nonempty")
    # shared compiler scratch is rejected
    p = program(
        MAIN_PARAMS,
        body(
            create,
            f"t__ssa_v0: pl.Tuple[{T}, {TID}] = pl.spmd_submit(self.kernel, x__ssa_v0, y__ssa_v0, gm_pipe_buffer_0, core_num=n__ssa_v0)",
            f"u__ssa_v0: pl.Tuple[{T}, {TID}] = pl.submit(self.kernel, x__ssa_v0, y__ssa_v0, gm_pipe_buffer_0)",
            "return y__ssa_v0",
        ),
        kernels=kernels,
    )
    o = spmd(p)
    assert outcomes(o) == ["rejected"] and codes(o) == ["SP302"]
    assert "gm_pipe_buffer_0" in o.diagnostics[0].message


# --------------------------------------------------------------------------------- preflight


def test_preflight_flags_unguarded_launches_only() -> None:
    p = program(MAIN_PARAMS, body(*launch("n__ssa_v0"), "return r__ssa_v0"))
    [d] = preflight(p)
    assert (d.code, d.severity) == (
        "SP310",
        "error",
    ) and "reached codegen without a positive guard" in d.message
    assert preflight(legalize(p)[0]) == []
    assert [d.code for d in preflight(program(MAIN_PARAMS, body(*launch("0"), "return r__ssa_v0")))] == [
        "SP303"
    ]


# ------------------------------------------------------------------------------------ corpus


@pytest.mark.shared
def test_a09_one_guard_two_provable() -> None:
    p = parse_file(CORPUS / "a09_orch_spmd_counts.spmd_input.py")
    q, o = legalize(p)
    assert [(d.core_num, d.outcome) for d in o.launches] == [
        ("n__ssa_v0", "guarded"),
        ("blocks__ssa_v0", "proven"),
        ("i__idx_v0 + 1", "proven"),
    ]
    assert codes(o) == ["SP310"]
    text = print_program(q)
    # t0 feeds the deps of launch #2, so the empty path still produces a TaskId.
    assert (
        "_submit_tmp__ssa_v0_guarded_0, _submit_tmp__ssa_v0_guarded_1 = pl.yield_(y__ssa_v0, spmd_empty_tid)"
        in text
    )
    assert f"t0__ssa_v0: {TID} = _submit_tmp__ssa_v0_guarded_1" in text
    # only `main` changed: the kernel prints byte-for-byte
    src = (CORPUS / "a09_orch_spmd_counts.spmd_input.py").read_text()
    assert (
        text.split("    @pl.function(type=pl.FunctionType.Orchestration")[0]
        == src.split("    @pl.function(type=pl.FunctionType.Orchestration")[0]
    )
    again = parse(text)
    q2, o2 = legalize(again)
    assert outcomes(o2) == ["proven", "proven", "proven"] and preflight(again) == []
    assert print_program(q2) == text


@pytest.mark.shared
def test_a14_two_provable_one_guard() -> None:
    p = parse_file(CORPUS / "a14_manual_graph_barrier.spmd_input.py")
    q, o = legalize(p)
    assert [(d.core_num, d.outcome) for d in o.launches] == [
        ("c1__ssa_v0", "proven"),
        ("c2__ssa_v0", "proven"),
        ("c3__ssa_v0", "guarded"),
    ]
    assert o.launches[2].counterexample == {"core_num": 0, "n__ssa_v0": 1}
    assert "core_num = 0 when n = 1" in o.diagnostics[0].message
    assert outcomes(spmd(parse(print_program(q)))) == ["proven"] * 3


@pytest.mark.shared
def test_a08_graph_launches_are_not_this_pass() -> None:
    p = parse_file(CORPUS / "a08_graph_spmd_chain.spmd_input.py")
    q, o = legalize(p)
    assert o.launches == () and o.diagnostics == () and q is p
    assert print_program(q) == (CORPUS / "a08_graph_spmd_chain.spmd_input.py").read_text()
