"""PyPTO itself, for the tests of legalog's passes inside its pipeline.

The build beside the clone (`../shared/oracle`, see its README) is imported once per session:
importing it costs seconds (torch).  Without that folder the tests here are skipped, saying so;
with it, a failure to import is a failure, never a skip.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import SHARED

ORACLE = SHARED / "oracle"


@pytest.fixture(scope="session")
def pypto() -> SimpleNamespace:
    """`pl`, `ir`, `passes` and codegen (`generate`) of the oracle build, with the backend the dumps used."""
    if not (ORACLE / "pypto" / "__init__.py").is_file():
        pytest.skip(f"no PyPTO build at {ORACLE}: the tests of legalog inside PyPTO's pipeline need it")
    if str(ORACLE) not in sys.path:
        sys.path.insert(0, str(ORACLE))
    import pypto
    import pypto.language as pl
    from pypto import ir, passes
    from pypto.backend import BackendType
    from pypto.backend.pto_backend import generate
    from pypto.pypto_core import backend

    backend.set_backend_type(BackendType.Ascend910B)  # platform a2a3, as the corpus was printed
    return SimpleNamespace(pypto=pypto, pl=pl, ir=ir, passes=passes, generate=generate)


@pytest.fixture
def hbg(pypto: SimpleNamespace) -> Callable[..., Any]:
    """A PassContext for host_build_graph (the runtime Graph functions need) with instruments."""

    def context(*instruments: object) -> Any:
        return pypto.passes.PassContext(list(instruments), runtime=pypto.passes.RuntimeKind.HOST_BUILD_GRAPH)

    return context
