"""The PyPTO oracle for any test module: `pypto` is the build beside the clone, imported once a session.

Use it from another test folder with `from tests.oracle.conftest import pypto` (pytest then
shares the one session instance), or call `tests.oracle.pypto_oracle.load()` directly.
"""

from __future__ import annotations

import pytest

from tests.oracle.pypto_oracle import ORACLE_DIR, PyPTO, available, load


@pytest.fixture(scope="session")
def pypto() -> PyPTO:
    """PyPTO's parser, pipeline and codegen; skips only when `../shared/oracle` is absent (a build
    that is there but does not import fails, since CI installs its dependencies)."""
    if not available():
        pytest.skip(f"PyPTO oracle absent: no build at {ORACLE_DIR} (CI lays shared/ beside the clone)")
    return load()
