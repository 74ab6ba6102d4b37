"""The PyPTO oracle for any test module: `pypto` is PyPTO (installed, or in `$LEGALOG_PYPTO`), imported once a session.

Use it from another test folder with `from tests.oracle.conftest import pypto` (pytest then
shares the one session instance), or call `tests.oracle.pypto_oracle.load()` directly.
"""

from __future__ import annotations

import pytest

from tests.oracle.pypto_oracle import WHERE, PyPTO, available, load


@pytest.fixture(scope="session")
def pypto() -> PyPTO:
    """PyPTO's parser, pipeline and codegen; skips only when PyPTO is absent (one that is there
    but does not import fails, since CI installs its dependencies)."""
    if not available():
        pytest.skip(f"PyPTO oracle absent: the oracle tests need {WHERE}")
    return load()
