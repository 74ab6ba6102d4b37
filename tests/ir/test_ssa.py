"""Frontend versioning (legalog/ir/ssa.py): the same SSA form PyPTO's ConvertToSSA writes, the
constructs it declines, and the way back to the dump's own names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from legalog.analyzer.wellformed import wellformed_diagnostics
from legalog.ir.model import For, Function, While
from legalog.ir.parser import parse
from legalog.ir.printer import print_function
from legalog.ir.ssa import _alpha_equivalent, needs_versioning, unversion_function, version_function
from legalog.ir.transform import walk_stmts
from tests import pypto_child
from tests.conftest import CORPUS, FUZZ, GRAPH, on_shared
from tests.oracle.pypto_oracle import WHERE

HERE = Path(__file__).parent / "frontend"
GRAPH_FRONTENDS = sorted(GRAPH.glob("*.frontend.py"))
FRONTENDS = [*GRAPH_FRONTENDS, CORPUS / "04_qwen3_single_layer_prefill_frontend.py"]
PROBES = sorted(HERE.glob("*.py"))
REPRODUCER = FUZZ / "keyerror_graph_py_111.py"
COMPARED = [*GRAPH_FRONTENDS, REPRODUCER]  # with PROBES: compared with PyPTO's ConvertToSSA


def _read(path: Path):
    return parse(path.read_text(), str(path))


@pytest.fixture(scope="session")
def converted() -> dict[str, str]:
    """PyPTO's own ConvertToSSA output for every dump compared below (one child process)."""
    paths = [p for p in COMPARED if p.exists()] + PROBES
    answer = pypto_child.ask({str(p): ("ssa", p.read_text()) for p in paths})
    if answer is None:
        pytest.skip(f"PyPTO is not importable here: these tests need {WHERE}")
    return answer  # type: ignore[return-value]


def _functions(text: str) -> dict[str, ast.FunctionDef]:
    cls = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef))
    return {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}


def _shape(node: ast.FunctionDef) -> str:
    """A function's text as ast sees it, without decorator and `self` (PyPTO drops `self` on
    SubWorker kernels when it prints; legalog keeps what the dump had)."""
    node.decorator_list = []
    node.args.args = [a for a in node.args.args if a.arg != "self"]
    return ast.dump(node)


@pytest.mark.parametrize("path", on_shared(COMPARED) + PROBES, ids=lambda p: p.name)
def test_versioning_is_pypto_convert_to_ssa(path: Path, converted: dict[str, str]) -> None:
    printed = converted[str(path)]
    if not isinstance(printed, str):  # PyPTO's parser refuses the dump: so must legalog's checks
        program = _read(path)
        assert [d for d in wellformed_diagnostics(program) if d.severity == "error"], printed
        return
    expected = _functions(printed)
    program = _read(path)
    for fn in program.functions:
        mine = ast.parse(
            print_function(version_function(fn, program.prefix).function, "", program.prefix)
        ).body[0]
        assert _shape(mine) == _shape(expected[fn.name]), fn.name  # type: ignore[arg-type]


@pytest.mark.parametrize("path", on_shared(FRONTENDS) + PROBES, ids=lambda p: p.name)
def test_unchanged_functions_come_back_as_written(path: Path) -> None:
    program = _read(path)
    for fn in program.functions:
        v = version_function(fn, program.prefix)
        if v.declined:
            continue
        assert unversion_function(v.function, v, program.prefix) == fn, fn.name


@pytest.mark.shared
def test_ssa_dumps_are_left_alone(corpus: list[Path]) -> None:
    for path in corpus:
        if "frontend" in path.name or path.name == "04_qwen3_single_layer_prefill_frontend.py":
            continue
        program = _read(path)
        for fn in program.functions:
            assert not needs_versioning(fn, program.prefix), (path.name, fn.name)


@pytest.mark.shared
def test_every_graph_frontend_function_with_a_body_needs_versioning() -> None:
    program = _read(GRAPH / "a06_scratch_pingpong.frontend.py")
    assert {f.name for f in program.functions if needs_versioning(f, program.prefix)} >= {"block", "main"}


@pytest.mark.shared
def test_rebinding_by_call_then_view_is_two_versions() -> None:
    program = _read(REPRODUCER)
    v = version_function(program.function("layer"), program.prefix)  # type: ignore[arg-type]
    text = print_function(v.function, "", program.prefix)
    assert "w__ssa_v1: pl.Tensor[[512, 128], pl.FP32] = self.refresh(a__ssa_v0, w__ssa_v0)" in text
    assert "pl.tensor.slice(w__ssa_v1, [128, 128], [n__ssa_v0, 0])" in text
    assert v.printed["w__ssa_v1"] == "w" and v.printed["win__ssa_v0"] == "win"


def test_natural_while_becomes_pl_while_and_comes_back() -> None:
    program = _read(HERE / "while_scope_break.py")
    fn = program.function("main")
    v = version_function(fn, program.prefix)  # type: ignore[arg-type]
    loops = [s for s in walk_stmts(v.function.body) if isinstance(s, For) and s.index is None]
    assert len(loops) == 1 and loops[0].iter_args == ("b__iter_v1",)
    back = unversion_function(v.function, v, program.prefix)
    assert back == fn and any(isinstance(s, While) for s in walk_stmts(back.body))  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("probe", "declined"),
    [
        ("escape_and_merge.py", {("c", 14), ("z", 14)}),
        ("own_iter_args_one_branch.py", {("w", 15)}),
        ("nested_escape.py", {("d", 8), ("e", 11)}),
        ("loop_local_rebinding.py", set()),
        ("while_scope_break.py", set()),
    ],
)
def test_reads_without_a_binding_on_every_path_are_declined(
    probe: str, declined: set[tuple[str, int]]
) -> None:
    program = _read(HERE / probe)
    v = version_function(program.function("main"), program.prefix)  # type: ignore[arg-type]
    assert {(d.name, d.span.line) for d in v.declined} == declined


def test_an_if_with_its_own_yields_that_also_rebinds_is_declined() -> None:
    text = (
        (HERE / "own_iter_args_one_branch.py").read_text().split("    @pl.function")[0]
        + """    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        m: pl.Scalar[pl.INDEX] = n
        if n > 0:
            m: pl.Scalar[pl.INDEX] = n + 1
            r: pl.Scalar[pl.INDEX] = pl.yield_(m)
        else:
            r: pl.Scalar[pl.INDEX] = pl.yield_(n)
        return r + m
"""
    )
    program = parse(text)
    v = version_function(program.function("main"), program.prefix)  # type: ignore[arg-type]
    assert [(d.name, d.span.line) for d in v.declined] == [("m", 9)]


def test_a_name_rebound_in_a_loop_over_no_dsl_call_is_refused_and_declined() -> None:
    """`for i in xs:` is no loop PyPTO's parser reads (IR411, before versioning), and versioning
    asked directly declines it: no init_values carry `a` (found by the engine differential's
    drawn programs: versioning asserted on it)."""
    from legalog.pipeline import analyze

    path = HERE / "rebound_in_a_non_dsl_loop.py"
    result = analyze(path.read_text(), str(path))
    assert [(d.code, d.line) for d in result.errors] == [("IR411", 8)]
    program = _read(path)
    v = version_function(program.function("main"), program.prefix)  # type: ignore[arg-type]
    assert [(d.name, d.span.line) for d in v.declined] == [("a", 8)]


def _one_function(body: str, params: str = "x: pl.Scalar[pl.INDEX]") -> Function:
    text = (
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        f"    def f(self, {params}) -> pl.Scalar[pl.INDEX]:\n" + body
    )
    return parse(text).functions[0]


@pytest.mark.parametrize(
    ("other", "params", "same"),
    [
        # the same function with every bound name (parameter included) spelled differently
        ("        b: pl.Scalar[pl.INDEX] = y + 1\n        return b\n", "y: pl.Scalar[pl.INDEX]", True),
        # a bound name read where the other reads a different bound name
        ("        a: pl.Scalar[pl.INDEX] = x + 1\n        return x\n", None, False),
        # one more binding
        (
            "        a: pl.Scalar[pl.INDEX] = x + 1\n        c: pl.Scalar[pl.INDEX] = a\n        return a\n",
            None,
            False,
        ),
        # a free name where the other reads a bound one of that spelling elsewhere
        ("        a: pl.Scalar[pl.INDEX] = x + 1\n        return a + 0\n", None, False),
    ],
)
def test_alpha_equivalence_is_equality_up_to_the_names_bound(
    other: str, params: str | None, same: bool
) -> None:
    base = _one_function("        a: pl.Scalar[pl.INDEX] = x + 1\n        return a\n")
    other_fn = _one_function(other, params or "x: pl.Scalar[pl.INDEX]")
    assert _alpha_equivalent(base, other_fn) is same
    assert _alpha_equivalent(other_fn, base) is same
