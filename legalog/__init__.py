"""legalog: makes PyPTO programs legal for the host_build_graph runtime.

LegalizeGraphBoundary (Steps A-D, host control tensors, the GraphBoundaryLegalized verifier) and
LegalizeSpmdLaunches, as Datalog rules over facts lowered from printed IR dumps, with Z3 proving
`core_num >= 1`.  The library surface:

    analysis = legalog.analyze(text)          # diagnostics, decisions, the rewritten program
    analysis.explain("layer", "base")         # why a value was hoisted, kept or rejected
    program = legalog.legalize(text)          # or LegalizeError with the diagnostics
    legalog.print_program(program)            # back to PyPTO's printed format
    legalog.preflight(program)                # codegen's check that every SPMD launch is guarded

`text` may also be a PyPTO in-memory program: it is printed with PyPTO's own
`pypto.ir.python_print` (PyPTO is optional; see `legalog.analyzer.dumps.program_text`).
Inside PyPTO's own pipeline, the two passes are `legalog.pypto.legalize_graph_boundary()` and
`legalog.pypto.legalize_spmd_launches()`; `legalog.pypto.default_pipeline()` is PyPTO's Default
strategy with both in place.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = [
    "Analysis",
    "LegalizeError",
    "ParseError",
    "Explanation",
    "WhyError",
    "__version__",
    "analyze",
    "explain",
    "legalize",
    "parse",
    "preflight",
    "print_program",
]


def analyze(source, path=None, runtime="host_build_graph", passes=("graph", "spmd")):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN201
    """`legalog.analyzer.analysis.analyze` for a dump text, a parsed Program, or a PyPTO program;
    `passes` chooses LegalizeGraphBoundary ("graph"), LegalizeSpmdLaunches ("spmd") or both."""
    from legalog.analyzer import analysis
    from legalog.analyzer.dumps import program_text

    return analysis.analyze(program_text(source), path, runtime, passes)


def legalize(source, path=None, runtime="host_build_graph", passes=("graph", "spmd")):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN201
    """The Program legalized by `passes` (print it with `legalog.print_program`), or LegalizeError."""
    from legalog.analyzer import analysis
    from legalog.analyzer.dumps import program_text

    return analysis.legalize(program_text(source), path, runtime, passes)


def explain(source, function: str, var: str, path=None, runtime="host_build_graph"):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN201
    """Why `var` in `function` was hoisted, kept, rejected, removed, or is no boundary value."""
    return analyze(source, path, runtime).explain(function, var)


def preflight(source):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN201
    """Codegen's check that every SPMD launch is proven positive or guarded: a list of Diagnostics."""
    from legalog.analyzer.dumps import program_text
    from legalog.analyzer.spmd import preflight as check
    from legalog.ir import parse

    program = program_text(source)
    return check(parse(program) if isinstance(program, str) else program)


def __getattr__(name: str):  # noqa: ANN202 - lazy imports keep `legalog --help` fast
    if name in ("Explanation", "WhyError"):
        from legalog.analyzer import explain as explain_module

        return getattr(explain_module, name)
    if name in ("Analysis", "LegalizeError"):
        from legalog.analyzer import analysis

        return getattr(analysis, name)
    if name in ("parse", "print_program", "ParseError"):
        from legalog import ir

        return getattr(ir, name)
    raise AttributeError(f"module 'legalog' has no attribute {name!r}")
