"""An internal error, said as one: a bug in legalog (code INTERNAL, exit 3), never the user's
input (PARSE), and never a traceback unless `--debug` asks for one.

Every command reports it the same way: the exception's type and message, where in legalog it was
raised, a line saying it is a bug in legalog and how to report it (the command and the version).
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from pathlib import Path

from legalog.version import __version__

_PACKAGE = Path(__file__).resolve().parent.parent  # .../legalog


def where(err: BaseException) -> str:
    """`legalog/analyzer/graph.py:111 in graph_decisions`: the innermost frame in legalog's own
    code (a third-party library's frame is named only when legalog has none)."""
    frames = traceback.extract_tb(err.__traceback__)
    if not frames:
        return "unknown location"
    ours = [f for f in frames if _in_package(f.filename)]
    frame = (ours or frames)[-1]
    path = Path(frame.filename)
    shown = (
        path.resolve().relative_to(_PACKAGE.parent).as_posix() if _in_package(frame.filename) else path.name
    )
    return f"{shown}:{frame.lineno} in {frame.name}"


def _in_package(filename: str) -> bool:
    try:
        Path(filename).resolve().relative_to(_PACKAGE)
    except (ValueError, OSError):
        return False
    return True


def describe(err: BaseException) -> str:
    """`KeyError: 'x' (at legalog/analyzer/graph.py:111 in graph_decisions)`."""
    text = str(err).strip().splitlines()
    message = f": {text[0][:300]}" if text else ""
    return f"{type(err).__name__}{message} (at {where(err)})"


def report_hint(command: Sequence[str] | None = None) -> str:
    """The line that says whose bug it is and how to report it."""
    ran = f"`legalog {' '.join(command)}`" if command else "the command you ran"
    return (
        f"this is a bug in legalog {__version__}, not in your input: please report it with {ran}, "
        f"`legalog --version` ({__version__}) and the dump; rerun with --debug for the traceback"
    )


def internal_reason(err: BaseException) -> str:
    """A batch entry's message for a crash in one file."""
    return f"internal error: {describe(err)}; {report_hint()}"
