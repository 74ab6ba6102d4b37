"""End to end: every corpus program, from its frontend dump, through PyPTO's Default pipeline with
legalog's two passes in place (`legalog.pypto.default_pipeline`), verification on, then codegen.

What each program must show (corpus/graph/INDEX.md says what it holds):

* the pipeline reaches each pass with exactly the program of the corpus dump printed at that
  position, and the pass's output is legalog's rewrite of that dump (`legalog fix`; for the SPMD
  pass, its SPMD rewrite alone, since the Graph pass has not run yet at that position);
* the programs INDEX.md expects rejected fail in LegalizeGraphBoundary with legalog's diagnostics;
* the others compile; then codegen fails with exactly this snapshot's refusal to emit a Graph
  launch ("not in place yet") and nothing else, or, for a09 (SPMD launches, no Graph), with
  exactly its refusal to consume a TaskId an `if` yields; a09 without that dependency goes on
  through codegen and produces code.
"""

from __future__ import annotations

import ast
import functools
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import legalog
from legalog import pypto as lp
from legalog.analyzer.diagnostics import Diagnostic
from legalog.ir.objects import read_program
from legalog.ir.parser import parse
from legalog.pypto_objects import kernel_names, without_kernel_bodies
from tests.conftest import CORPUS

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

GRAPH = CORPUS / "graph"
PROGRAMS = sorted(p.name.removesuffix(".frontend.py") for p in GRAPH.glob("*.frontend.py"))
REJECTED = {"a11_reject_dynamic_control", "a12_reject_mixed_offsets", "a13_reject_boundary_misc"}

# a09's guard yields the guarded launch's TaskId out of an `if`, and the next launch depends on
# it: this snapshot's orchestration codegen cannot consume a TaskId an `if` yields (docs/validation.md, "What
# PyPTO's oracle says", with the PyPTO sources).  That refusal, exactly, is asserted for a09; the
# same program without that `deps=` goes on through codegen (test_a_guarded_launch_...).
IF_TASKID_REFUSED = {"a09_orch_spmd_counts": "t0"}
TASKID_REFUSAL = re.compile(
    r"Task dependency deps=\[(\w+)\] cannot be honored: its TaskId is produced inside a "
    r"scope that has already closed at this point"
)

REFUSAL = re.compile(
    r"Graph function '(\w+)' cannot be compiled yet: "
    r"type=pl\.FunctionType\.Graph is authorable, but the orchestration codegen that emits a "
    r"graph launch is not in place yet\."
)


@dataclass
class Run:
    """One compile: the program before and after each legalog pass, and how the pipeline ended."""

    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: BaseException | None = None


@pytest.fixture(scope="session")
def compiled(pypto: SimpleNamespace) -> Callable[[str], Run]:
    passes = pypto.passes

    @functools.cache
    def run(name: str) -> Run:
        program = pypto.pl.parse((GRAPH / f"{name}.frontend.py").read_text(), filename=f"{name}.frontend.py")
        seen = Run()
        ours = (lp.GRAPH_PASS, lp.SPMD_PASS)

        def before(p: Any, prog: Any) -> None:
            if p.get_name() in ours:
                seen.before[p.get_name()] = prog

        def after(p: Any, prog: Any) -> None:
            if p.get_name() in ours:
                seen.after[p.get_name()] = prog

        instruments = [
            passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER),
            passes.CallbackInstrument(before_pass=before, after_pass=after, name="legalog-capture"),
        ]
        with passes.PassContext(instruments, runtime=passes.RuntimeKind.HOST_BUILD_GRAPH):
            try:
                seen.result = lp.default_pipeline().run(program)
            except Exception as err:  # any failure is recorded; the tests judge it
                seen.error = err
        return seen

    return run


@pytest.mark.shared
@pytest.mark.parametrize("name", PROGRAMS)
def test_the_object_frontend_reads_what_each_pass_is_given(
    pypto: SimpleNamespace, compiled: Callable[[str], Run], name: str
) -> None:
    """The program each legalog pass is given in the pipeline (not the dump as written) is read
    from its objects, whole and as the pass reads it (kernels to their returns), into the model
    `parse` gives of PyPTO's printing of it: no benchmark program falls back to the printing."""
    run = compiled(name)
    assert set(run.before) == {lp.GRAPH_PASS, lp.SPMD_PASS}
    for pass_name, program in sorted(run.before.items()):
        text = pypto.ir.python_print(program, format=False)
        kernels = kernel_names(program)
        for returns_only, printed in (
            (frozenset[str](), text),
            (kernels, without_kernel_bodies(text, kernels)),
        ):
            assert read_program(program, returns_only=returns_only) == parse(printed), (
                pass_name,
                returns_only,
            )


def dump(name: str, position: str) -> Path | None:
    path = GRAPH / f"{name}.{position}.py"
    return path if path.is_file() else None


def parsed_fix(pypto: SimpleNamespace, text: str, passes: tuple[str, ...]) -> Any:
    return pypto.pl.parse(legalog.print_program(legalog.legalize(text, passes=passes)))


@pytest.mark.shared
@pytest.mark.parametrize("name", PROGRAMS)
def test_compiles_or_is_rejected_with_legalogs_diagnostics(
    pypto: SimpleNamespace, compiled: Callable[[str], Run], name: str
) -> None:
    run = compiled(name)
    if name not in REJECTED:
        assert run.error is None, f"{name} did not compile: {run.error}"
        assert run.result is not None
        return
    assert isinstance(run.error, lp.PassRejected) and run.error.pass_name == lp.GRAPH_PASS
    assert lp.GRAPH_PASS not in run.after and run.result is None  # nothing half-rewritten goes on
    seen = pypto.ir.python_print(run.before[lp.GRAPH_PASS], format=False)
    expected = legalog.analyze(seen, passes=("graph",)).errors
    assert expected and sorted(_what(d) for d in run.error.diagnostics) == sorted(_what(d) for d in expected)
    # each placed in the user's source: the frontend dump the program was parsed from
    for d, source in zip(run.error.diagnostics, run.error.sources, strict=True):
        assert source == f"{name}.frontend.py:{d.line}:{d.column}" and d.line > 0, (d, source)
        assert f"{d.code} in `{d.function}` at {source}: {d.message}" in str(run.error)


def _what(d: Diagnostic) -> tuple[str, str | None, str | None, str]:
    return d.code, d.function, d.subject, d.message


@pytest.mark.shared
@pytest.mark.parametrize("name", PROGRAMS)
def test_spmd_pass_output_is_legalogs_rewrite_of_the_spmd_dump(
    pypto: SimpleNamespace, compiled: Callable[[str], Run], name: str
) -> None:
    run = compiled(name)
    seen, out = run.before[lp.SPMD_PASS], run.after[lp.SPMD_PASS]
    path = dump(name, "spmd_input")
    if path is None:  # no SPMD launch: nothing to guard, the program goes on as it came
        pypto.ir.assert_structural_equal(out, seen)
        return
    pypto.ir.assert_structural_equal(seen, pypto.pl.parse(path.read_text()))
    pypto.ir.assert_structural_equal(out, parsed_fix(pypto, path.read_text(), ("spmd",)))


@pytest.mark.shared
@pytest.mark.parametrize("name", [n for n in PROGRAMS if dump(n, "graph_input") is not None])
def test_graph_pass_output_is_fix_of_the_graph_dump(
    pypto: SimpleNamespace, compiled: Callable[[str], Run], name: str
) -> None:
    run = compiled(name)
    if name in REJECTED:
        assert lp.GRAPH_PASS not in run.after
        return
    text = (GRAPH / f"{name}.graph_input.py").read_text()
    seen, out, fixed = (
        run.before[lp.GRAPH_PASS],
        run.after[lp.GRAPH_PASS],
        parsed_fix(pypto, text, ("graph", "spmd")),
    )
    guarded = changed_functions(pypto, run.before[lp.SPMD_PASS], run.after[lp.SPMD_PASS])
    if not guarded:
        pypto.ir.assert_structural_equal(seen, pypto.pl.parse(text))
        pypto.ir.assert_structural_equal(out, fixed)
        return
    # A function LegalizeSpmdLaunches guarded went on through passes 38-45 (Simplify drops the
    # guard's unused TaskId, spells `c > 0` as `0 < c`): graph_input.py, printed by a pipeline
    # without that pass, is not its input.  Every other function is held to `fix` of the dump;
    # a guarded one, to legalog's Graph rewrite of what the pass was given.
    own = parsed_fix(pypto, pypto.ir.python_print(seen, format=False), ("graph",))
    for fn in out.functions.values():
        expected = own if fn.name in guarded else fixed
        pypto.ir.assert_structural_equal(fn, expected.get_function(fn.name))
    assert {f.name for f in out.functions.values()} == {f.name for f in fixed.functions.values()}


def changed_functions(pypto: SimpleNamespace, before: Any, after: Any) -> set[str]:
    return {
        f.name
        for f in after.functions.values()
        if not pypto.ir.structural_equal(f, before.get_function(f.name))
    }


@pytest.mark.shared
@pytest.mark.parametrize("name", [n for n in PROGRAMS if n not in REJECTED])
def test_codegen_produces_code_or_refuses_exactly_the_graph_launch(
    pypto: SimpleNamespace, compiled: Callable[[str], Run], name: str
) -> None:
    run = compiled(name)
    assert run.result is not None, f"{name} did not compile: {run.error}"
    graphs = {f.name for f in run.result.functions.values() if f.func_type == pypto.ir.FunctionType.Graph}
    launchers = graph_launchers(pypto.ir.python_print(run.result, format=False), graphs)
    files, err, refused = codegen(pypto, run.result)
    if name in IF_TASKID_REFUSED:
        assert not launchers and set(refused) == {"main"}, (err, refused)
        m = TASKID_REFUSAL.match(refused["main"])
        assert m is not None and m[1] == IF_TASKID_REFUSED[name], refused["main"]
        return
    if not launchers:
        assert err is None, f"codegen rejects {name}: {err}"
        assert_code(files)
        return
    assert type(err).__name__ == "PartialCodegenError", f"codegen of {name}: {err!r}"
    assert set(refused) == set(launchers)  # every function that launches a Graph, and nothing else
    for fn, message in refused.items():
        m = REFUSAL.match(message)
        assert m is not None and m[1] in launchers[fn], message


@pytest.mark.shared
def test_a_guarded_launch_without_a_graph_goes_on_through_codegen(pypto: SimpleNamespace) -> None:
    """a09 without the `deps=[t0]` that meets the snapshot's If-yielded TaskId limit: the SPMD pass
    guards `core_num=n`, verification holds, and codegen writes the orchestration."""
    text = (GRAPH / "a09_orch_spmd_counts.frontend.py").read_text()
    assert text.count("deps=[t0], ") == 1
    program = pypto.pl.parse(text.replace("deps=[t0], ", ""))
    guarded: list[str] = []

    def after(p: Any, prog: Any) -> None:
        if p.get_name() == lp.SPMD_PASS:
            guarded.extend(
                line.strip()
                for line in pypto.ir.python_print(prog, format=False).splitlines()
                if "task_dummy" in line
            )

    passes = pypto.passes
    instruments = [
        passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER),
        passes.CallbackInstrument(after_pass=after, name="legalog-guard"),
    ]
    with passes.PassContext(instruments, runtime=passes.RuntimeKind.HOST_BUILD_GRAPH):
        result = lp.default_pipeline().run(program)
    assert len(guarded) == 1  # the one launch whose core_num `n` may be 0 got its empty path
    files, err, _ = codegen(pypto, result)
    assert err is None, f"codegen rejects the guarded program: {err}"
    assert_code(files)


def assert_code(files: dict[str, str]) -> None:
    assert any(path.endswith(".cpp") and text.strip() for path, text in files.items()), sorted(files)


def codegen(
    pypto: SimpleNamespace, program: Any
) -> tuple[dict[str, str], BaseException | None, dict[str, str]]:
    """PyPTO's codegen (no ptoas) for host_build_graph: its files, or its error and the per-function
    failures its report (`report/codegen_errors.txt`) lists."""
    passes = pypto.passes
    with (
        passes.PassContext([], runtime=passes.RuntimeKind.HOST_BUILD_GRAPH),
        tempfile.TemporaryDirectory() as out,
    ):
        try:
            files = pypto.generate(
                program,
                out,
                skip_ptoas=True,
                memory_planner=passes.MemoryPlanner.PYPTO,
                emit_source_loc=False,
                runtime=passes.RuntimeKind.HOST_BUILD_GRAPH,
            )
        except Exception as err:  # any failure is returned; the caller judges it
            report = Path(out) / "report" / "codegen_errors.txt"
            listed = report.read_text() if report.is_file() else ""
            failures = re.finditer(r"^  \[(\w+)\]\n(.*?)(?=\n={72}\n|\Z)", listed, re.DOTALL | re.MULTILINE)
            return {}, err, {m[1]: m[2].strip() for m in failures}
    return files, None, {}


def graph_launchers(text: str, graphs: set[str]) -> dict[str, set[str]]:
    """Which functions of the printed program launch which Graphs (`self.g(...)` or `pl.submit(self.g, ...)`)."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name not in graphs:
            named = {
                a.attr
                for a in ast.walk(node)
                if isinstance(a, ast.Attribute)
                and isinstance(a.value, ast.Name)
                and a.value.id == "self"
                and a.attr in graphs
            }
            if named:
                found[node.name] = named
    return found
