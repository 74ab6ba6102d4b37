"""PyPTO itself as an oracle for printed IR: the steps of PyPTO's `pypto-reparse`, in-process.

`load()` imports PyPTO once: an installed `pypto`, or the package in the folder `$LEGALOG_PYPTO`
names (`pypto_folder`; PyPTO is on no package registry here, so without either the tests that
need it skip, saying so, and CI passes without it).  Importing it costs
seconds (torch), so a test session asks for it through the session fixture in `conftest.py`
and never starts a process per file.  Every check answers with a `Stage` verdict instead of
raising, so a test can compare what PyPTO says about legalog's output with what it says about
the input it was made from.

The stages, as `pypto-reparse` runs them (its README says what this snapshot cannot do):

* parse - `pl.parse` reads the text into an `ir.Program`;
* roundtrip - `python_print(program, format=False)` -> `pl.parse` -> `ir.assert_structural_equal`,
  the check PyPTO's RoundtripInstrument makes after every pass;
* suffix - the IR properties the Default pipeline has established before PASS hold, and the
  pipeline from PASS to its end runs (host_build_graph runtime, BASIC verification);
* codegen - `pto_backend.generate(..., skip_ptoas=True)` on the suffix's result, and
  orchestration codegen of each Graph body on its own.  The snapshot refuses every call to a
  Graph function ("not in place yet"): that is `blocked`, not a rejection.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

ENV_VAR = "LEGALOG_PYPTO"
WHERE = f"an installed `pypto`, or ${ENV_VAR} naming a folder that holds the `pypto` package"

# The pass each dump position resumes at (corpus/graph/INDEX.md).
SUFFIX_FOR = {".graph_input.py": "MaterializeRuntimeScopes", ".spmd_input.py": "DeriveCallDirections"}

Status = Literal["ok", "reject", "blocked", "skipped"]


@dataclass(frozen=True)
class Stage:
    status: Status
    detail: str = ""

    @property
    def accepted(self) -> bool:
        """Accepted as far as this snapshot can tell: ok, or its known Graph-launch refusal."""
        return self.status in ("ok", "blocked")

    def __str__(self) -> str:
        return f"{self.status}: {self.detail}" if self.detail else self.status


OK = Stage("ok")
SKIPPED = Stage("skipped", "an earlier stage rejected")


@dataclass(frozen=True)
class Verdict:
    parse: Stage
    roundtrip: Stage
    suffix: Stage = SKIPPED
    codegen: Stage = SKIPPED


def suffix_pass(path: Path) -> str | None:
    """The pipeline pass a dump at this position resumes at, or None (no pipeline check)."""
    return next((p for suffix, p in SUFFIX_FOR.items() if path.name.endswith(suffix)), None)


def pypto_folder() -> Path | None:
    """The folder PyPTO's package is in: `$LEGALOG_PYPTO` when set, else the installed package's
    parent; None without PyPTO.  Found without importing it (that takes seconds: torch); a
    `pypto` without `pypto/language` is not PyPTO."""
    if folder := os.environ.get(ENV_VAR):
        return Path(folder) if (Path(folder) / "pypto" / "language").is_dir() else None
    spec = importlib.util.find_spec("pypto")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        if (Path(location) / "language").is_dir():
            return Path(location).parent
    return None


def available() -> bool:
    return pypto_folder() is not None


@cache
def load() -> PyPTO:
    """Import PyPTO once (ImportError when it is absent or cannot load)."""
    if (folder := pypto_folder()) is None:
        raise ImportError(f"no PyPTO: {WHERE}")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    # By name: PyPTO is an optional build beside the clone, with no stubs for the type checker.
    pl, ir, core = (importlib.import_module(m) for m in ("pypto.language", "pypto.ir", "pypto.pypto_core"))
    pass_manager = importlib.import_module("pypto.ir.pass_manager")
    python_print = importlib.import_module("pypto.ir.printer").python_print
    generate = importlib.import_module("pypto.backend.pto_backend").generate
    backend_type = importlib.import_module("pypto.backend").BackendType

    # `import pypto.ir` hands `ruff_format` to a C++ static when ruff is on PATH.  That static
    # releases the function after the interpreter is gone, which aborts the process at exit
    # (SIGABRT, "PyThreadState_Get: ... the GIL is released") once anything has given the
    # function a __dict__ (hypothesis's scan of loaded modules does).  `str` (the identity on the
    # printed text, a static type that is never freed) takes its place: the oracle prints with
    # format=False anyway, and this build's binding refuses the None its docstring offers.
    core.ir.register_format_callback(str)
    core.backend.set_backend_type(backend_type.Ascend910B)  # platform a2a3, as the corpus dumps were made
    return PyPTO(
        pl,
        ir,
        python_print,
        core.passes,
        pass_manager.PassManager,
        pass_manager.OptimizationStrategy,
        generate,
        core.codegen,
    )


def _message(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def _is_graph_launch_refusal(exc: BaseException) -> bool:
    """The snapshot's one known codegen gap: it emits no call to a FunctionType.Graph function."""
    text = str(exc)
    return (
        text.startswith("1 function(s) failed")
        and "Graph function" in text
        and "cannot be compiled yet" in text
    )


class PyPTO:
    """The imported PyPTO modules, and the oracle's stages over them."""

    def __init__(
        self,
        pl: ModuleType,
        ir: ModuleType,
        python_print: Any,
        passes: Any,
        pass_manager: Any,
        strategy: Any,
        generate: Any,
        codegen: Any,
    ) -> None:
        self.pl, self.ir, self.python_print, self.passes = pl, ir, python_print, passes
        self._pass_manager, self._strategy, self._generate, self._codegen = (
            pass_manager,
            strategy,
            generate,
            codegen,
        )
        self.runtime = passes.RuntimeKind.HOST_BUILD_GRAPH

    def context(self) -> Any:
        """A PassContext as `pypto-reparse` makes one: BASIC verification, host_build_graph."""
        p = self.passes
        disabled = p.DiagnosticCheckSet()
        disabled.insert(p.DiagnosticCheck.UnusedControlFlowResult)
        return p.PassContext(
            [],
            p.VerificationLevel.BASIC,
            p.DiagnosticPhase.PRE_PIPELINE,
            disabled,
            p.MemoryPlanner.PYPTO,
            False,
            self.runtime,
        )

    def parse(self, text: str, filename: str = "<legalog>") -> tuple[Stage, Any]:
        try:
            program = self.pl.parse(text, filename=filename)
        except Exception as exc:
            return Stage("reject", _message(exc)), None
        if not isinstance(program, self.ir.Program):
            return Stage("reject", f"parsed a {type(program).__name__}, not an ir.Program"), None
        return OK, program

    def roundtrip(self, program: Any) -> Stage:
        try:
            printed = self.python_print(program, format=False)
            reparsed = self.pl.parse(printed, filename="<roundtrip>")
            self.ir.assert_structural_equal(program, reparsed)
        except Exception as exc:
            return Stage("reject", _message(exc))
        return OK

    def suffix(self, program: Any, first_pass: str) -> tuple[Stage, Any]:
        """Check the properties established before `first_pass`, then run the pipeline from it."""
        with self.context():
            all_passes = list(self._pass_manager.get_strategy(self._strategy.Default).passes)
            names = [p.get_name() for p in all_passes]
            k = names.index(first_pass)
            established = self.passes.IRPropertySet()
            for p in all_passes[:k]:
                established = established.difference(p.get_invalidated_properties()).union_with(
                    p.get_produced_properties()
                )
            pipeline = self.passes.PassPipeline()
            for p in all_passes[k:]:
                pipeline.add_pass(p)
            try:
                self.passes.verify_properties(established, program, f"before {first_pass}")
                return OK, pipeline.run(program)
            except Exception as exc:
                return Stage("reject", _message(exc)), None

    def codegen(self, program: Any) -> Stage:
        with self.context(), tempfile.TemporaryDirectory() as out:
            blocked = ""
            try:
                self._generate(
                    program,
                    out,
                    skip_ptoas=True,
                    memory_planner=self.passes.MemoryPlanner.PYPTO,
                    emit_source_loc=False,
                    runtime=self.runtime,
                )
            except Exception as exc:
                if not _is_graph_launch_refusal(exc):
                    return Stage("reject", _message(exc))
                blocked = "the snapshot emits no Graph launch"
            for fn in program.functions.values():
                if fn.func_type == self.ir.FunctionType.Graph:
                    try:
                        self._codegen.generate_orchestration(program, fn)
                    except Exception as exc:
                        return Stage("reject", f"Graph body `{fn.name}`: {_message(exc)}")
            return Stage("blocked", blocked) if blocked else OK

    def verdict(self, text: str, first_pass: str | None, filename: str = "<legalog>") -> Verdict:
        """Every stage for one text; the pipeline stages only when `first_pass` is given."""
        parsed, program = self.parse(text, filename)
        if program is None:
            return Verdict(parsed, SKIPPED)
        roundtrip = self.roundtrip(program)
        if first_pass is None:
            return Verdict(parsed, roundtrip, Stage("skipped", "no pipeline position"), Stage("skipped"))
        suffix, result = self.suffix(program, first_pass)
        return Verdict(parsed, roundtrip, suffix, self.codegen(result) if result is not None else SKIPPED)
