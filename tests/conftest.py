"""Shared fixtures: where the real PyPTO dumps live (../shared beside the clone, as CI lays it)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# The suite never reads or fills a user's result cache: each run gets its own, empty one
# (tests of the cache itself point it elsewhere explicitly).
os.environ["LEGALOG_CACHE_DIR"] = tempfile.mkdtemp(prefix="legalog-test-cache-")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.py")) + sorted((CORPUS / "graph").glob("*.py"))


@pytest.fixture(scope="session")
def corpus() -> list[Path]:
    files = corpus_files()
    if not files:
        pytest.fail(f"the PyPTO corpus is missing: expected dumps under {CORPUS}")
    return files
