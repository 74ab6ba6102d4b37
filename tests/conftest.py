"""Shared fixtures: where the real PyPTO dumps live (../shared beside the clone, as CI lays it)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

# The suite never reads or fills a user's result cache: each run gets its own, empty one
# (tests of the cache itself point it elsewhere explicitly).
os.environ["LEGALOG_CACHE_DIR"] = tempfile.mkdtemp(prefix="legalog-test-cache-")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"


# `legalog` run from this checkout, with no result cache
CLI_ENV = {**os.environ, "PYTHONPATH": str(REPO), "LEGALOG_NO_CACHE": "1"}


def legalog_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    preexec_fn: Callable[[], object] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m legalog ARGS` as a user runs it; a traceback in what it prints fails the test
    (a crash is never reported as an answer).  `preexec_fn`: run in the child before legalog
    starts (a memory limit, fewer privileges)."""
    result = subprocess.run(
        [sys.executable, "-m", "legalog", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
        preexec_fn=preexec_fn,
    )
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.py")) + sorted((CORPUS / "graph").glob("*.py"))


@pytest.fixture(scope="session")
def corpus() -> list[Path]:
    files = corpus_files()
    if not files:
        pytest.fail(f"the PyPTO corpus is missing: expected dumps under {CORPUS}")
    return files
