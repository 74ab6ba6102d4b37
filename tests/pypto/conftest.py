"""PyPTO itself, for the tests of legalog's passes inside its pipeline.

PyPTO (an installed `pypto`, or the package in `$LEGALOG_PYPTO`) is imported once per session, by
the oracle tests' loader (`tests.oracle.pypto_oracle.load`, which also sets the backend the corpus
was printed for and keeps PyPTO's statically registered formatter from aborting the process at
exit): importing it costs seconds (torch).  Without PyPTO the tests here are skipped, saying so;
with it, a failure to import is a failure, never a skip.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.oracle.pypto_oracle import WHERE, available, load


@pytest.fixture(scope="session")
def pypto() -> SimpleNamespace:
    """`pl`, `ir`, `passes` and codegen (`generate`) of the oracle build, and the package itself."""
    if not available():
        pytest.skip(f"no PyPTO: the tests of legalog inside PyPTO's pipeline need {WHERE}")
    oracle = load()
    import pypto
    from pypto.backend.pto_backend import generate

    return SimpleNamespace(pypto=pypto, pl=oracle.pl, ir=oracle.ir, passes=oracle.passes, generate=generate)


@pytest.fixture
def hbg(pypto: SimpleNamespace) -> Callable[..., Any]:
    """A PassContext for host_build_graph (the runtime Graph functions need) with instruments."""

    def context(*instruments: object) -> Any:
        return pypto.passes.PassContext(list(instruments), runtime=pypto.passes.RuntimeKind.HOST_BUILD_GRAPH)

    return context


@pytest.fixture(scope="session")
def read(pypto: SimpleNamespace) -> Callable[[Path], Any]:
    """A dump as PyPTO's parser reads it, or None where it refuses it (parsed once a session)."""

    @functools.cache
    def program(path: Path) -> Any:
        try:
            return pypto.pl.parse(path.read_text(), filename=path.name)
        except Exception:  # a dump PyPTO refuses is no input of a PyPTO pass
            return None

    return program
