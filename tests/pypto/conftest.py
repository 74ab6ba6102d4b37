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
    _outlive_pyptos_static_callback()
    return SimpleNamespace(pypto=pypto, pl=pl, ir=ir, passes=passes, generate=generate)


def _outlive_pyptos_static_callback() -> None:
    """Keep one reference to the ruff formatter PyPTO registers in a C++ static, for good.

    `pypto.ir` hands `pypto.ir.formatter.ruff_format` to `register_format_callback` (when `ruff` is
    on PATH); the static's destructor drops it at process exit, after Python has finalized and
    without the GIL.  When that is the function's last reference, as it is once a hypothesis test
    has run in the session (tests/property, tests/ir), the interpreter aborts ("PyThreadState_Get:
    the function must be called with the GIL held"), exit status 134, after every test passed.
    One reference the process never releases keeps that destructor from freeing it."""
    import ctypes

    from pypto.ir import formatter

    ctypes.pythonapi.Py_IncRef(ctypes.py_object(formatter.ruff_format))


@pytest.fixture
def hbg(pypto: SimpleNamespace) -> Callable[..., Any]:
    """A PassContext for host_build_graph (the runtime Graph functions need) with instruments."""

    def context(*instruments: object) -> Any:
        return pypto.passes.PassContext(list(instruments), runtime=pypto.passes.RuntimeKind.HOST_BUILD_GRAPH)

    return context
