"""The test suite itself, as a newcomer and CI run it: on a fresh machine without ../shared the
tests that need it skip, saying why; under CI (`LEGALOG_REQUIRE_SHARED=1`, set by `.ci/run`)
their skip fails the run; no test is parametrized over nothing; a run leaves no result cache in
the temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

# a module with tests that read ../shared and tests that do not
MIXED = "tests/ir/test_parser.py"


def pytest_run(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m pytest ARGS` in the repository, with its temporary files under `tmp_path`."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("LEGALOG_", "PYTEST_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**environ, "TMPDIR": str(tmp_path / "tmp"), **env},
        timeout=600,
        check=False,
    )


def test_without_the_dumps_their_tests_skip_saying_why_and_nothing_is_left_behind(tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    result = pytest_run(MIXED, tmp_path=tmp_path, LEGALOG_SHARED=str(nowhere))
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout and " skipped" in result.stdout
    assert f"needs the PyPTO dumps of ../shared ({nowhere} is not there)" in result.stdout
    assert "set LEGALOG_SHARED" in result.stdout
    assert list((tmp_path / "tmp").glob("legalog-test-cache-*")) == []


def test_under_ci_a_skip_for_want_of_the_dumps_fails_the_run(tmp_path: Path) -> None:
    result = pytest_run(
        MIXED, tmp_path=tmp_path, LEGALOG_SHARED=str(tmp_path / "nowhere"), LEGALOG_REQUIRE_SHARED="1"
    )
    assert result.returncode != 0 and "LEGALOG_REQUIRE_SHARED is set" in result.stdout + result.stderr
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "LEGALOG_REQUIRE_SHARED=1 python3 -m pytest" in ci


def test_no_test_is_parametrized_over_nothing_without_the_dumps(tmp_path: Path) -> None:
    """Collection fails on a test parametrized over an empty list unless it is marked `shared`
    (tests/conftest.py): so every test reading ../shared carries the marker."""
    result = pytest_run("--collect-only", "-q", tmp_path=tmp_path, LEGALOG_SHARED=str(tmp_path / "nowhere"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
