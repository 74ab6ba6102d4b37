"""legalog.ir.patterns: what a printed call means, in the dump's own DSL prefix."""

from __future__ import annotations

import pytest

from legalog.ir.model import Assign, Call, Const, DictExpr, Dotted, Keyword, Name, With
from legalog.ir.patterns import (
    call_target,
    core_num,
    group_call,
    is_dim_query,
    is_kernel_scope,
    is_yield,
    loop_kind,
    scalar_builtin,
    spmd_scope_count,
    yielded,
)
from legalog.pipeline import analyze

x, n = Name("x"), Name("n")


@pytest.mark.parametrize("prefix", ["pl", "pt"])
def test_call_targets_in_the_dumps_prefix(prefix: str) -> None:
    direct = call_target(Call("self.k", (x,)), prefix)
    submit = call_target(Call(f"{prefix}.submit", (Dotted("self.k"), x)), prefix)
    spmd = call_target(Call(f"{prefix}.spmd_submit", (Dotted("self.k"), x)), prefix)
    assert (direct.callee, direct.form, direct.first_arg) == ("k", "call", 0)  # type: ignore[union-attr]
    assert (submit.form, submit.first_arg) == ("submit", 1)  # type: ignore[union-attr]
    assert spmd.arguments(Call(f"{prefix}.spmd_submit", (Dotted("self.k"), x))) == (x,)  # type: ignore[union-attr]
    other = "pt" if prefix == "pl" else "pl"
    assert call_target(Call(f"{other}.submit", (Dotted("self.k"), x)), prefix) is None
    assert call_target(Call(f"{prefix}.tensor.slice", (x,)), prefix) is None
    assert call_target(Call(f"{prefix}.submit", (Dotted("pl.k"), x)), prefix) is None


def test_a_function_group_call_reaches_no_function_but_is_a_task() -> None:
    call = Call("self.call_group", (Name("g"), x))
    assert call_target(call, "pl") is None
    assert group_call(call) is not None and group_call(Call("self.k")) is None


def test_core_num_as_a_keyword_or_in_attrs() -> None:
    assert core_num(Call("pl.spmd_submit", (Dotted("self.k"),), (Keyword("core_num", n),))) == n
    attrs = DictExpr((Const("core_num"), Const("sync_start")), (n, Const(True)))
    assert core_num(Call("self.k", (x,), (Keyword("attrs", attrs),))) == n
    assert core_num(Call("self.k", (x,))) is None


def test_scalar_builtins_python_and_dsl() -> None:
    assert [
        scalar_builtin(f, "pt") for f in ("min", "pt.max", "abs", "pt.cast", "pl.min", "pt.tensor.dim")
    ] == [
        "min",
        "max",
        "abs",
        "cast",
        None,
        None,
    ]
    assert is_dim_query("pt.tile.dim", "pt") and not is_dim_query("pl.tile.dim", "pt")


def test_yields_loops_and_scopes() -> None:
    y = Assign(("a",), None, Call("pt.yield_", (x,)))
    assert is_yield(y.value, "pt") and yielded(y, "pt") == (x,) and yielded(y, "pl") is None
    assert loop_kind(Call("pt.range", (Const(4),)), "pt") == "range"
    assert loop_kind(Call("pt.while_", ()), "pt") == "while_"
    assert loop_kind(Call("pt.tensor.slice", ()), "pt") is None
    at = With(Call("pt.at", (), (Keyword("level", Dotted("pt.Level.CORE_GROUP")),)), None, ())
    spmd = With(Call("pt.spmd", (n,)), "tid", ())
    by_kw = With(Call("pt.spmd", (), (Keyword("core_num", n),)), None, ())
    scope = With(Call("pt.scope", ()), None, ())
    assert [is_kernel_scope(s, "pt") for s in (at, spmd, scope)] == [True, True, False]
    assert [spmd_scope_count(s, "pt") for s in (spmd, by_kw, at)] == [n, n, None]


PROGRAM = """\
import pypto.language as pt

@pt.program
class P:
    @pt.function(type=pt.FunctionType.AIV, level=pt.Level.AIV, role=pt.Role.SubWorker)
    def k(x: pt.Tensor[[64], pt.FP32], y: pt.Out[pt.Tensor[[64], pt.FP32]]) -> pt.Tensor[[64], pt.FP32]:
        return y

    @pt.function(type=pt.FunctionType.Orchestration, level=pt.Level.CHIP, role=pt.Role.Orchestrator)
    def main(self, x: pt.Tensor[[64], pt.FP32], y: pt.InOut[pt.Tensor[[64], pt.FP32]], n: pt.Scalar[pt.INT32]) -> pt.Tensor[[64], pt.FP32]:
        c: pt.Scalar[pt.INT32] = pt.max(n, 1)
        r: pt.Tuple[pt.Tensor[[64], pt.FP32], pt.Scalar[pt.TASK_ID]] = pt.spmd_submit(self.k, x, y, core_num=c)
        y1: pt.Tensor[[64], pt.FP32] = r[0]
        return y1
"""


def test_a_dump_with_its_own_prefix_is_decided_in_it() -> None:
    (decision,) = analyze(PROGRAM, passes=("spmd",)).launches
    assert decision.outcome == "proven"  # `pt.max(n, 1)` is the scalar Max, not an opaque call
