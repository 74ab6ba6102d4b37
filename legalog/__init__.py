"""legalog: makes PyPTO programs legal for the host_build_graph runtime.

LegalizeGraphBoundary (Steps A-D, host control tensors, the GraphBoundaryLegalized verifier) and
LegalizeSpmdLaunches, as Datalog rules over facts lowered from printed IR dumps, with Z3 proving
`core_num >= 1`.  The library surface:

    analysis = legalog.analyze(text)          # diagnostics, decisions, the rewritten program
    program = legalog.legalize(text)          # or LegalizeError with the diagnostics
    legalog.print_program(program)            # back to PyPTO's printed format
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = [
    "Analysis",
    "LegalizeError",
    "ParseError",
    "__version__",
    "analyze",
    "legalize",
    "parse",
    "preflight",
    "print_program",
]


def __getattr__(name: str):  # noqa: ANN202 - lazy imports keep `legalog --help` fast
    if name in ("analyze", "legalize", "Analysis", "LegalizeError"):
        from legalog.analyzer import analysis

        return getattr(analysis, name)
    if name == "preflight":
        from legalog.analyzer.spmd import preflight

        return preflight
    if name in ("parse", "print_program", "ParseError"):
        from legalog import ir

        return getattr(ir, name)
    raise AttributeError(f"module 'legalog' has no attribute {name!r}")
