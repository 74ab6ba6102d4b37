"""Many dumps at once: collect them, analyse each in isolation (a process pool when asked), and
return results in a stable order whatever the scheduling.  One file that cannot be read, or
whose analysis crashes, is a result with status `error` — it never stops the others."""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from legalog.analyzer.report import DiagnosticModel, FileModel


def collect(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; directories searched recursively for `*.py`, sorted."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.py") if p.is_file()))
        else:
            found.append(path)
    return found


def analyse_file(path: str, runtime: str = "host_build_graph") -> FileModel:
    """One dump to its report entry; never raises."""
    from legalog.analyzer.analysis import analyze
    from legalog.analyzer.render import file_model
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_file

    try:
        try:
            program = parse_file(path)
        except ParseError as err:
            return _error(path, err.reason, err.line, err.col, "PARSE")
        return file_model(analyze(program, path, runtime))
    except Exception as err:  # noqa: BLE001 - a crash in one file must not stop a batch
        where = traceback.extract_tb(err.__traceback__)[-1]
        reason = f"internal error: {type(err).__name__}: {err} (at {Path(where.filename).name}:{where.lineno})"
        return _error(path, reason, 1, 1, "PARSE")


def _error(path: str, reason: str, line: int, col: int, code: str) -> FileModel:
    diag = DiagnosticModel(code=code, severity="error", line=line, column=col, message=reason)
    return FileModel(path=path, status="error", diagnostics=[diag])


def _analyse_star(args: tuple[str, str]) -> FileModel:
    return analyse_file(*args)


def run(
    files: Sequence[Path], runtime: str = "host_build_graph", jobs: int = 1,
    progress: Callable[[FileModel], None] | None = None,
) -> list[FileModel]:  # fmt: skip
    """Analyse every file; the result list is in the order of `files`."""
    tasks = [(str(f), runtime) for f in files]
    results: list[FileModel] = []
    for result in _map(tasks, jobs):
        results.append(result)
        if progress is not None:
            progress(result)
    return results


def _map(tasks: list[tuple[str, str]], jobs: int) -> Iterator[FileModel]:
    if jobs <= 1 or len(tasks) <= 1:
        yield from (_analyse_star(t) for t in tasks)
        return
    # Chunks amortise the pickling; `map` keeps the input order whatever finishes first.
    chunk = max(1, min(16, len(tasks) // (jobs * 4)))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_analyse_star, tasks, chunksize=chunk)


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
