"""The reader against real dumps and against everything a user might feed it by mistake."""

from __future__ import annotations

import pytest

from legalog.ir import ParseError, parse, parse_file, print_program
from legalog.ir.model import Assign, Call, Const, For, If, Name, ScalarType, TensorType, With
from tests.conftest import GRAPH, corpus_files

CORPUS = corpus_files()


@pytest.mark.shared
def test_the_corpus_has_every_dump() -> None:
    assert len(CORPUS) == 37, [p.name for p in CORPUS]


@pytest.mark.shared
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_corpus_dump_round_trips_byte_for_byte(path) -> None:
    text = path.read_text(encoding="utf-8")
    assert print_program(parse(text, str(path))) == text


@pytest.mark.shared
def test_a_graph_dump_is_modelled() -> None:
    program = parse_file(GRAPH / "a01_row_shift.graph_input.py")
    assert program.name == "RowShift" and program.prefix == "pl"
    shift = program.function("shift")
    assert shift is not None and shift.type == "Graph" and shift.has_self
    assert [(p.name, p.direction) for p in shift.params] == [
        ("src__ssa_v0", "In"),
        ("dst__ssa_v0", "InOut"),
        ("idx__ssa_v0", "In"),
    ]
    assert isinstance(shift.params[0].type, TensorType) and shift.params[2].type == ScalarType("INDEX")
    base = shift.body[0]
    assert isinstance(base, Assign) and base.targets == ("base__ssa_v0",)
    assert base.span.line == 15 and base.span.col == 9
    kernel = program.function("shift_incore_0")
    assert kernel is not None and not kernel.has_self and kernel.type == "AIV"


@pytest.mark.shared
def test_loops_scopes_branches_and_launches_are_modelled() -> None:
    program = parse_file(GRAPH / "a09_orch_spmd_counts.spmd_input.py")
    main = program.function("main")
    scope = main.body[0]
    assert isinstance(scope, With) and isinstance(scope.context, Call) and scope.context.func == "pl.scope"
    launch = scope.body[0]
    assert (
        isinstance(launch, Assign)
        and isinstance(launch.value, Call)
        and launch.value.func == "pl.spmd_submit"
    )
    assert launch.value.kwarg("core_num") == Name("n__ssa_v0")
    branch = scope.body[3]
    assert isinstance(branch, If) and len(branch.orelse) == 1
    loop = scope.body[4]
    assert (
        isinstance(loop, For)
        and loop.index == "i__idx_v0"
        and loop.iter_args == ("y__iter_v4",)
        and loop.carried
    )


def test_typed_constants_and_negative_literals() -> None:
    program = parse(
        _program("x: pl.Scalar[pl.INT64] = pl.const(-3, pl.INT64)\n        y: pl.Scalar[pl.INDEX] = -4")
    )
    body = program.functions[0].body
    assert body[0].value == Const(-3, "INT64") and body[1].value == Const(-4)


def _program(body: str) -> str:
    return (
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        f"    def main(self, a: pl.Tensor[[4], pl.FP32]):\n        {body}\n"
    )


BAD_INPUTS = {
    "empty": ("", "empty file"),
    "whitespace": ("\n\n   \n", "empty file"),
    "syntax": (
        "# pypto.program: P\nimport pypto.language as pl\n@pl.program\nclass P:\n    def f(self:\n",
        "invalid Python syntax",
    ),
    "truncated": (_program("x: pl.Scalar[pl.INDEX] = (1 +"), "invalid Python syntax"),
    "unsupported-irnode": (
        _program("x: pl.Tensor[[4], <unsupported IRNode type>] = a"),
        "invalid Python syntax",
    ),
    "not-a-program": ("import os\nprint('hello')\n", "not a PyPTO program"),
    "program-name": (
        _program("pass").replace("@pl.program\n", '@pl.program(name="P")\n'),
        "`@pl.program(name=...)`",
    ),
    "program-positional": (
        _program("pass").replace("@pl.program\n", "@pl.program(P)\n"),
        "`@pl.program(...)`",
    ),
    "no-functions": (
        "import pypto.language as pl\n@pl.program\nclass P:\n    x = 1\n",
        "no `@pl.function` method",
    ),
    "nested-def": (_program("def g():\n            pass"), "nested `def`"),
    "try": (_program("try:\n            pass\n        except Exception:\n            pass"), "`try`"),
    "param-without-type": (_program("pass").replace("a: pl.Tensor[[4], pl.FP32]", "a"), "no type annotation"),
    "nul-byte": ("# pypto.program: P\x00\n", "NUL byte"),
    "deep-parens": ("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n", "invalid Python syntax"),
    "deep-indent": (
        "".join("    " * i + "if x:\n" for i in range(5000)) + "    " * 5000 + "pass\n",
        "invalid Python syntax",
    ),
    "deep-expression": (_program("x: pl.Scalar[pl.INDEX] = " + " + ".join(["1"] * 5000)), "too deep"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_a_located_parse_error(name: str) -> None:
    text, reason = BAD_INPUTS[name]
    with pytest.raises(ParseError) as caught:
        parse(text, f"{name}.py")
    err = caught.value
    assert reason in err.reason, err.reason
    assert err.path == f"{name}.py" and err.line >= 1 and err.col >= 1
    assert str(err).startswith(f"{name}.py:{err.line}:{err.col}: ")


def test_a_program_decorator_called_with_strict_ssa_or_nothing_is_a_program() -> None:
    for spelling in ("@pl.program()", "@pl.program(strict_ssa=True)"):
        program = parse(_program("pass").replace("@pl.program\n", spelling + "\n"))
        assert program.name == "P" and [f.name for f in program.functions] == ["main"], spelling


def test_copies_of_one_program_are_that_program_printed_once() -> None:
    """Dumps concatenated: `pl.parse` compiles the one program whichever copy it reads, and a
    printed program holds it once (the earlier copy's text is left out)."""
    one = _program("x: pl.Scalar[pl.INDEX] = 1")
    program = parse(one + one)
    assert [f.name for f in program.functions] == ["main"]
    assert program.layout is not None and program.layout.shadowed == (5,)
    assert print_program(program) == one


def test_two_different_programs_of_one_name_are_refused_saying_why() -> None:
    """PyPTO's decorator finds a class's source by name: the first copy before Python 3.13, the
    class's own from 3.13; so the program `pl.parse` compiles depends on the Python."""
    text = _program("x: pl.Scalar[pl.INDEX] = 1") + _program("y: pl.Scalar[pl.INDEX] = 2")
    with pytest.raises(ParseError) as caught:
        parse(text, "two.py")
    assert "3.13" in caught.value.reason and caught.value.line == 13, caught.value.reason


def test_two_programs_of_different_names_are_refused_naming_both() -> None:
    """`pl.parse` refuses a text holding two programs ("Multiple functions/programs found")."""
    text = _program("pass") + _program("pass").replace("class P:", "class Q:")
    with pytest.raises(ParseError) as caught:
        parse(text, "two.py")
    reason = caught.value.reason
    assert "`P`" in reason and "`Q`" in reason and "pl.parse" in reason, reason
    assert caught.value.line == 13


def test_binary_bytes_are_a_parse_error(tmp_path) -> None:
    path = tmp_path / "binary.py"
    path.write_bytes(b"# pypto.program: P\n\xff\xfe\x00garbage")
    with pytest.raises(ParseError) as caught:
        parse_file(path)
    assert "not UTF-8" in caught.value.reason and caught.value.line == 2


def test_a_missing_file_is_a_parse_error(tmp_path) -> None:
    with pytest.raises(ParseError) as caught:
        parse_file(tmp_path / "nope.py")
    assert "cannot read" in caught.value.reason
