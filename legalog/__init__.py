"""legalog: makes PyPTO programs legal for the host_build_graph runtime.

LegalizeGraphBoundary (Steps A-D, host control tensors, the GraphBoundaryLegalized verifier) and
LegalizeSpmdLaunches, as Datalog rules over facts lowered from printed IR dumps, with Z3 proving
`core_num >= 1`.  The library surface:

    analysis = legalog.analyze(text)          # diagnostics, decisions, the rewritten program
    analysis.explain("layer", "base")         # why a value was hoisted, kept or rejected
    program = legalog.legalize(text)          # or LegalizeError with the diagnostics
    legalog.print_program(program)            # back to PyPTO's printed format
    legalog.preflight(program)                # codegen's check that every SPMD launch is guarded
    check = legalog.validate(before, after, "graph")  # is AFTER a correct LegalizeGraphBoundary of BEFORE?

`source` may be a dump's text, a parsed `legalog.ir.Program`, or a PyPTO in-memory program: the
last is printed with PyPTO's own `pypto.ir.python_print` (PyPTO is optional; see
`legalog.surfaces.dumps.program_text`).  The heavy rooms are imported on first use, so that
`import legalog` and `legalog --help` stay fast.  `passes=("graph",)` or `("spmd",)` runs
LegalizeGraphBoundary or LegalizeSpmdLaunches alone (default: both).  Inside PyPTO's own
pipeline they are `legalog.pypto.legalize_graph_boundary()` and `legalize_spmd_launches()`, and
`legalog.pypto.default_pipeline()` is PyPTO's Default strategy with both in place.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from legalog.version import __version__

if TYPE_CHECKING:
    from legalog.analyzer.diagnostics import Diagnostic
    from legalog.analyzer.explain import Explanation, WhyError
    from legalog.ir.errors import ParseError
    from legalog.ir.model import Program
    from legalog.ir.parser import parse
    from legalog.ir.printer import print_program
    from legalog.pipeline import Analysis, LegalizeError, Validation

__all__ = [
    "Analysis",
    "Diagnostic",
    "Explanation",
    "LegalizeError",
    "ParseError",
    "Program",
    "Validation",
    "WhyError",
    "__version__",
    "analyze",
    "explain",
    "legalize",
    "parse",
    "preflight",
    "print_program",
    "validate",
]

DEFAULT_RUNTIME = "host_build_graph"
BOTH_PASSES = ("graph", "spmd")  # LegalizeGraphBoundary, LegalizeSpmdLaunches


def analyze(
    source: str | Program | os.PathLike[str] | Any,
    path: str | None = None,
    runtime: str = DEFAULT_RUNTIME,
    engine: str | None = None,
    *,
    passes: Collection[str] = BOTH_PASSES,
) -> Analysis:
    """Analyse one program with `passes` (default: both); never raises for bad input (an
    unreadable dump is an `Analysis` whose status is `error`, with a PARSE diagnostic).  A
    `pathlib.Path` is read (and reported by its name); a str is a dump's text (a file's name
    alone is a PARSE error saying so).  `engine` evaluates the rules: "compiled" (the default, or
    $LEGALOG_ENGINE) or "pydatalog" (the reference); both give the same answers."""
    from legalog import pipeline
    from legalog.analyzer.diagnostics import parse_diagnostic
    from legalog.ir.errors import ParseError
    from legalog.surfaces.dumps import read_source

    try:
        text, path = read_source(source, path)
    except ParseError as err:
        return pipeline.Analysis(err.path, None, (parse_diagnostic(err),))
    return pipeline.analyze(text, path, runtime, engine, passes=passes)


def legalize(
    source: str | Program | os.PathLike[str] | Any,
    path: str | None = None,
    runtime: str = DEFAULT_RUNTIME,
    engine: str | None = None,
    *,
    passes: Collection[str] = BOTH_PASSES,
) -> Program:
    """The Program legalized by `passes` (print it with `print_program`); raises `LegalizeError`,
    carrying every error diagnostic, when the runtime cannot record the program (or the input
    cannot be read: a PARSE diagnostic)."""
    from legalog import pipeline
    from legalog.analyzer.diagnostics import parse_diagnostic
    from legalog.ir.errors import ParseError
    from legalog.surfaces.dumps import read_source

    try:
        text, path = read_source(source, path)
    except ParseError as err:
        raise pipeline.LegalizeError((parse_diagnostic(err),), err.path) from None
    return pipeline.legalize(text, path, runtime, engine, passes=passes)


def explain(
    source: str | Program | os.PathLike[str] | Any,
    function: str,
    var: str,
    path: str | None = None,
    runtime: str = DEFAULT_RUNTIME,
    engine: str | None = None,
) -> Explanation:
    """Why `var` (SSA suffix optional) in `function` was hoisted, kept, rejected, removed, or is no
    boundary value; raises `WhyError` (with close candidates) for an unknown function or name."""
    return analyze(source, path, runtime, engine).explain(function, var)


def preflight(source: str | Program | os.PathLike[str] | Any, engine: str | None = None) -> list[Diagnostic]:
    """Codegen's check that every SPMD launch is proven positive or guarded: the launches it would
    refuse, as Diagnostics (empty when codegen may proceed)."""
    from legalog.analyzer.spmd import preflight as check
    from legalog.ir.parser import parse as parse_text
    from legalog.surfaces.dumps import read_source

    program, _path = read_source(source)
    return check(parse_text(program) if isinstance(program, str) else program, engine)


def validate(
    before: str | Program | os.PathLike[str] | Any,
    after: str | Program | os.PathLike[str] | Any | None,
    pass_: str | None = None,
    *,
    before_path: str | None = None,
    after_path: str | None = None,
    runtime: str = DEFAULT_RUNTIME,
    engine: str | None = None,
) -> Validation:
    """Judge `after`, a pass's output (None: the pass left none, having refused the program), as
    the result of that pass on `before`: LegalizeGraphBoundary (`pass_="graph"`) or
    LegalizeSpmdLaunches ("spmd"; None: as the files' names say, `x.graph_input.py`,
    `NN_after_LegalizeSpmdLaunches.py`).  Each side is what `analyze` reads: a dump's text, a
    `pathlib.Path`, a legalog Program or a PyPTO program.  Never raises for bad input: an
    unreadable side, or two different programs, is a Validation whose status is `error`.  Its
    `diagnostics` are the TV5xx findings (`legalog rule TV521`), `analysis` legalog's own run."""
    from legalog import pipeline
    from legalog.ir.errors import ParseError
    from legalog.surfaces.dumps import pass_of, read_source

    read_after: str | Program | None = None
    try:
        read_before, before_path = read_source(before, before_path)
        if after is not None:
            read_after, after_path = read_source(after, after_path)
    except ParseError as err:
        return pipeline.Validation.unreadable(pass_ or pass_of(before_path, after_path) or "graph", err)
    chosen = pass_ or pass_of(after_path, before_path)
    if chosen is None:
        raise ValueError("say which pass AFTER is the output of: pass_='graph' or pass_='spmd'")
    return pipeline.validate(read_before, read_after, chosen, before_path, after_path, runtime, engine)


_LAZY = {
    "Analysis": "legalog.pipeline",
    "Validation": "legalog.pipeline",
    "LegalizeError": "legalog.pipeline",
    "Diagnostic": "legalog.analyzer.diagnostics",
    "Explanation": "legalog.analyzer.explain",
    "WhyError": "legalog.analyzer.explain",
    "ParseError": "legalog.ir.errors",
    "Program": "legalog.ir.model",
    "parse": "legalog.ir.parser",
    "print_program": "legalog.ir.printer",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'legalog' has no attribute {name!r}")
