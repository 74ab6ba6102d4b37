"""Property: printing a model and reading the text back gives the same model."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from legalog.ir.model import Expr, Function, Program, Type
from legalog.ir.parser import parse
from legalog.ir.printer import print_expr, print_function, print_program, print_type


def _load_strategies():  # type: ignore[no-untyped-def]
    """This folder's `strategies.py`, by path (the tests folders are not packages)."""
    name = "legalog_tests_ir_strategies"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("strategies.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


S = _load_strategies()
# Hypothesis warns that the recursive strategies have a large repr: a cost, not a fault.
pytestmark = [pytest.mark.filterwarnings("ignore:Generating overly large repr"), pytest.mark.slow]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _wrap(body: str) -> str:
    return f"# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n{body}"


@settings(SETTINGS, max_examples=200)
@given(S.programs())
def test_program_round_trips(p: Program) -> None:
    text = print_program(p)
    ast.parse(text)
    q = parse(text)
    assert q == p
    assert print_program(q) == text  # the parsed program's layout reprints byte-for-byte


@SETTINGS
@given(S.exprs)
def test_expr_round_trips(e: Expr) -> None:
    text = print_expr(e)
    ast.parse(text, mode="eval")
    f = Function("f", None, False, (), None, False, (S.ExprStmt(e),))
    assert parse(_wrap(print_function(f))).functions[0].body[0].value == e


@SETTINGS
@given(S.types)
def test_type_round_trips(t: Type) -> None:
    f = Function("f", None, False, (S.Param("x", t),), None, False, (S.Jump("pass"),))
    text = _wrap(print_function(f))
    assert f"x: {print_type(t)}" in text
    assert parse(text).functions[0].params[0].type == t
