"""The one constant folder (legalog/ir/fold.py), as PyPTO's parser folds: arithmetic, powers,
min/max/abs and integer casts; INT64 overflow known without computing huge values; the checks
and the prover read the same value."""

from __future__ import annotations

import pytest

from legalog.analyzer.positivity import PositivityGoal, prove
from legalog.ir.fold import OUT_OF_RANGE, fold, fold_constant, in_int64, int_literal, scalar_call
from legalog.ir.model import BinOp, Call, Const, Dotted, Expr, Name
from legalog.ir.parser import parse
from legalog.pipeline import analyze


def expr(text: str) -> Expr:
    """`text` as the parser reads an expression (a binding's value inside a tiny program)."""
    program = parse(
        "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
        f"    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n        x: pl.Scalar[pl.INDEX] = {text}\n"
        "        return x\n"
    )
    return program.functions[0].body[0].value  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3 + 4 * 5", 23),
        ("-7 // 2", -4),
        ("-7 % 3", 2),
        ("2 ** 10", 1024),
        ("+5", 5),
        ("True + 1", 2),
        ("pl.min(3, 1, 2)", 1),
        ("pl.max(3, 9)", 9),
        ("min(4, 2)", 2),
        ("abs(-6)", 6),
        ("pl.abs(2 - 9)", 7),
        ("pl.cast(2 ** 5, pl.INT32)", 32),
        ("pl.cast(7, dtype=pl.INDEX) * 2", 14),
    ],
)
def test_literal_expressions_fold_as_python_floors_them(text: str, value: int) -> None:
    assert fold(expr(text)) == value == fold_constant(expr(text))


@pytest.mark.parametrize(
    "text",
    ["n + 1", "1 / 2", "pl.cast(3, pl.FP32)", "4 // 0", "2 ** -1", "pl.min(n, 3)", "pl.tensor.dim(x, 0)"],
)
def test_what_is_not_a_literal_integer_expression_does_not_fold(text: str) -> None:
    assert fold(expr(text)) is None and fold_constant(expr(text)) is None


@pytest.mark.parametrize(
    "text",
    [
        "pl.cast(2**62, pl.INT64) * 4",
        "2 ** 63",
        "2 ** 2 ** 40",
        "pl.abs(-(2 ** 63) - 1)",
        "pl.max(2 ** 64, 1)",
    ],
)
def test_overflow_is_out_of_int64_without_computing_the_value(text: str) -> None:
    value = fold(expr(text))
    assert value is not None and not in_int64(value)
    assert fold_constant(expr(text)) is None


def test_an_operation_on_an_out_of_range_operand_is_out_of_range() -> None:
    big = BinOp("*", Const(2**63), Const(0))
    assert fold(big) == OUT_OF_RANGE


def test_the_dump_prefix_names_the_builtins() -> None:
    call = Call("P.min", (Const(4), Const(2)), ())
    assert fold(call, prefix="P") == 2 and fold(call) is None
    cast = Call("P.cast", (Const(4), Dotted("P.INT64")), ())
    assert fold(cast, prefix="P") == 4 and fold(Call("pl.cast", (Const(4), Name("INT8")), ())) == 4


def test_a_long_literal_chain_folds_without_recursion() -> None:
    e: Expr = Const(0)
    for _ in range(20_000):
        e = BinOp("+", e, Const(1))
    assert fold(e) == 20_000


def test_the_check_folds_what_pyptos_parser_folds_and_the_prover_folds_through_builtins() -> None:
    """PyPTO's parser folds literal arithmetic (`2**62 * 4` is IR404) but keeps an integer cast,
    min and max as calls (PyPTO e2d0f78 parses `pl.cast(2**62, pl.INT64) * 4`): no IR404 there.
    The prover folds through them, since their value is the same: a core_num the folder reads
    as 0 is a literal non-positive launch."""
    text = (
        "import pypto.language as pl\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        "    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
        "        x: pl.Scalar[pl.INDEX] = n + 2**62 * 4\n        return x\n"
    )
    assert [d.code for d in analyze(text).diagnostics] == ["IR404"]
    for kept in ("pl.cast(2**62, pl.INT64) * 4", "pl.max(2**62, 1) * 4"):
        assert [d.code for d in analyze(text.replace("2**62 * 4", kept)).diagnostics] == []
        assert fold(expr(kept)) == 2**64 and fold(expr(kept), literals_only=True) is None
    verdict = prove(PositivityGoal(core_num=expr("pl.max(2 ** 0 - 1, pl.min(0, 5))")))
    assert verdict.outcome == "refuted" and verdict.literal_nonpositive


@pytest.mark.parametrize(
    ("text", "parsed", "literal"),
    [("7", 7, 7), ("1 + 1", 2, None), ("pl.min(3, 2)", None, None), ("True", 1, None), ("n", None, None)],
)
def test_what_the_parser_folds_is_more_than_a_literal_and_less_than_the_prover_folds(
    text: str, parsed: int | None, literal: int | None
) -> None:
    """A loop's trip count is what PyPTO's parser makes a ConstInt (`literals_only`); the number a
    dump spells (`int_literal`) is only the literal itself."""
    assert fold_constant(expr(text), literals_only=True) == parsed
    assert int_literal(expr(text)) == literal


@pytest.mark.parametrize(
    ("text", "shape"),
    [("pl.min(3, n, 2)", ("min", 3)), ("max(n)", ("max", 1)), ("pl.abs(n)", ("abs", 1)), ("abs(n, 2)", None)],
)
def test_scalar_call_is_min_max_over_arguments_and_abs_of_one(
    text: str, shape: tuple[str, int] | None
) -> None:
    call = expr(text)
    assert isinstance(call, Call)
    found = scalar_call(call)
    assert (None if found is None else (found[0], len(found[1]))) == shape
