"""Shared fixtures, and where the real PyPTO dumps live.

The corpus, fuzz and reference dumps are not in this repository: they sit in `../shared` beside
the clone, as CI lays it out, or in the folder `$LEGALOG_SHARED` names.  A test that reads them
carries the `shared` marker (`@pytest.mark.shared`, or `pytestmark` for a whole module); without
them it is skipped, saying why, and with `LEGALOG_REQUIRE_SHARED=1` (`.ci/run`, where they are
always there) their absence fails the run instead, so CI never passes by skipping them.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import pytest

# The suite never reads or fills a user's result cache: each run gets its own, empty one, removed
# when the run ends (tests of the cache itself point it elsewhere explicitly).  A process the run
# starts that imports this module too (a Dask worker unpickling a test's function) inherits the
# run's folder and makes none; only the process that made it removes it.
if "LEGALOG_TEST_CACHE" not in os.environ:
    os.environ["LEGALOG_TEST_CACHE"] = tempfile.mkdtemp(prefix="legalog-test-cache-")

    def _remove_cache(maker: int = os.getpid(), folder: str = os.environ["LEGALOG_TEST_CACHE"]) -> None:
        if os.getpid() == maker:
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(_remove_cache)
os.environ["LEGALOG_CACHE_DIR"] = os.environ["LEGALOG_TEST_CACHE"]

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LEGALOG_SHARED") or REPO.parent / "shared")
CORPUS = SHARED / "corpus"
GRAPH = CORPUS / "graph"  # the corpus' small programs at their pipeline positions (INDEX.md)
FUZZ = SHARED / "fuzz"
REFERENCE = SHARED / "reference"
_NEEDED = (CORPUS, GRAPH, FUZZ, REFERENCE / "cases.json")
_REQUIRED = os.environ.get("LEGALOG_REQUIRE_SHARED", "") not in ("", "0")
_EMPTY_PARAMETERS = "got empty parameter set"  # pytest's reason for a parametrize over nothing


def shared_missing() -> list[Path]:
    """What the `shared` tests need and is not there."""
    return [p for p in _NEEDED if not p.exists()]


def _skip_reason(missing: list[Path]) -> str:
    where = (
        f"{SHARED} is not there"
        if not SHARED.is_dir()
        else f"{SHARED} lacks {', '.join(str(p.relative_to(SHARED)) for p in missing)}"
    )
    return (
        f"needs the PyPTO dumps of ../shared ({where}): put that folder (corpus/, fuzz/, reference/) "
        "beside the clone, or set LEGALOG_SHARED to it"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The one place the `shared` marker is read: without the dumps its tests are skipped, saying
    why, or fail the run under LEGALOG_REQUIRE_SHARED.  And no test is skipped silently: one
    parametrized over nothing is an error, unless it is `shared` and the dumps are missing (a
    folder moved or a glob gone stale would otherwise skip it with no word of why)."""
    missing = shared_missing()
    needing = [item for item in items if item.get_closest_marker("shared") is not None]
    silent = [
        item.nodeid
        for item in items
        if any(m.kwargs.get("reason", "").startswith(_EMPTY_PARAMETERS) for m in item.iter_markers("skip"))
        and not (missing and item.get_closest_marker("shared") is not None)
    ]
    if silent:
        raise pytest.UsageError(
            "these tests are parametrized over nothing (mark a test that reads ../shared `shared`): "
            + ", ".join(silent)
        )
    if missing and needing:
        if _REQUIRED:
            raise pytest.UsageError(
                f"LEGALOG_REQUIRE_SHARED is set, and {len(needing)} tests would be skipped: {_skip_reason(missing)}"
            )
        skip = pytest.mark.skip(reason=_skip_reason(missing))
        for item in needing:
            item.add_marker(skip, append=False)  # before any other skip: this is the reason


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Every reason tests were skipped for, once, with how many: a skip is never silent."""
    reasons = Counter(
        str(report.longrepr[2]).removeprefix("Skipped: ")
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple)
    )
    for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"skipped {count}: {reason}")


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


def on_shared(paths: list[Path]) -> list[object]:
    """Parameters from ../shared among others: each marked `shared`, so only they skip without it."""
    return [pytest.param(p, marks=pytest.mark.shared, id=p.name) for p in paths]


def corpus_files() -> list[Path]:
    """Every corpus dump (none without ../shared: the tests parametrized over them are `shared`)."""
    return sorted(CORPUS.glob("*.py")) + sorted(GRAPH.glob("*.py"))


@pytest.fixture(scope="session")
def corpus() -> list[Path]:
    """Every corpus dump; for `shared` tests only (skipped before this runs when it is missing)."""
    files = corpus_files()
    if not files:
        pytest.fail(f"the PyPTO corpus is empty: expected dumps under {CORPUS}")
    return files


@contextlib.contextmanager
def engine_alone() -> Iterator[None]:
    """The block's evaluations answer by the engine asked for, never by the reference behind it
    (the compiled engine hands an evaluation whose arithmetic raises to pyDatalog): a comparison
    with the reference is then no comparison of the reference with itself."""
    from legalog.rules.backends import pydatalog

    real = pydatalog.evaluate

    def refuse(*args: object) -> NoReturn:
        raise AssertionError("the engine handed this evaluation to the reference engine")

    pydatalog.evaluate = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        pydatalog.evaluate = real
