"""Many dumps at once: collect them, analyse each in isolation (a process pool when asked), and
return results in a stable order whatever the scheduling.  One file that cannot be read, or
whose analysis crashes — even one that kills its worker process — is a result with status
`error` and its reason; it never stops the others."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path

from legalog.surfaces.dumps import Target, plan
from legalog.surfaces.report import DiagnosticModel, FileModel

Progress = Callable[[FileModel], None]
_GRAPH_ONLY = ("GB", "HC")
_EVERY_POSITION = ("PARSE", "INTERNAL", "TIMEOUT", "IR")  # input and legalog failures: reported at every pass
# Seconds one file may take (`check --timeout`): far above any real dump (the 5 MB, 2,100-function
# synthetic one takes well under a minute), low enough that a stuck file cannot hold a CI job.
DEFAULT_TIMEOUT = 300.0


def collect(paths: Iterable[str | Path], all_dumps: bool = True) -> list[Path]:
    """Files as given; directories searched recursively for `*.py`, sorted (every dump of a
    passes_dump folder unless `all_dumps` is False: see `dumps.plan`)."""
    return [Path(t.path) for t in plan(paths, all_dumps)]


def analyse_file(path: str, runtime: str = "host_build_graph") -> FileModel:
    """One dump to its report entry; never raises."""
    return analyse_target(Target(str(path)), runtime)


def analyse_target(target: Target, runtime: str = "host_build_graph") -> FileModel:
    """One target to its report entry (filtered to its pass for a passes_dump position); never raises."""
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_file
    from legalog.pipeline import analyze
    from legalog.surfaces.render import file_model

    path = target.path
    if Path(path).is_dir():  # a folder the search could not list
        return _error(target, f"cannot read folder: {_listing_error(path)}", 1, 1)
    try:
        try:
            program = parse_file(path)
        except ParseError as err:
            return _error(target, err.reason, err.line, err.col)
        model = file_model(analyze(program, path, runtime))
        return model if target.folder is None else _for_position(model, target)
    except Exception as err:  # noqa: BLE001 - a crash in one file must not stop a batch
        from legalog.surfaces.internal import internal_reason

        return _error(target, internal_reason(err), 1, 1, "INTERNAL")


def _listing_error(folder: str) -> str:
    try:
        os.listdir(folder)
    except OSError as err:
        return err.strerror or str(err)
    return "it changed while being searched"


def _for_position(model: FileModel, target: Target) -> FileModel:
    """A passes_dump entry: the folder, the dump used, and only the diagnostics of the pass that
    runs at that dump's position (the other pass is judged on its own dump)."""
    keep = {"graph": _is_graph_code, "spmd": lambda c: not _is_graph_code(c)}.get(target.role, lambda c: True)
    diagnostics = [d for d in model.diagnostics if d.code.startswith(_EVERY_POSITION) or keep(d.code)]
    graphs = model.graphs if target.role != "spmd" else []
    launches = model.launches if target.role != "graph" else []
    status = model.status
    if status == "rejected" and not any(d.severity == "error" for d in diagnostics):
        # rejected only by the other pass: say what this pass alone would do
        changes = any(g.hoisted_scalars or g.removed_aliases or g.hoisted_views or g.hoisted_allocs for g in graphs)
        status = "rewritten" if changes or any(launch.outcome == "guarded" for launch in launches) else "legal"
    return model.model_copy(update={"path": target.folder, "used_dump": target.path, "status": status,
                                    "diagnostics": diagnostics, "graphs": graphs, "launches": launches})  # fmt: skip


def _is_graph_code(code: str) -> bool:
    return code.startswith(_GRAPH_ONLY)


def _error(target: Target, reason: str, line: int, col: int, code: str = "PARSE") -> FileModel:
    from legalog.analyzer.codes import CODES

    diag = DiagnosticModel(code=code, severity="error", line=line, column=col, message=reason, help=CODES[code].help)
    return FileModel(path=target.folder or target.path, status="error", diagnostics=[diag],
                     used_dump=target.path if target.folder else None)  # fmt: skip


class AnalysisTimeout(BaseException):
    """The time limit struck (a BaseException, so no `except Exception` on the way out of the
    analysis mistakes it for that analysis's own failure)."""


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise `AnalysisTimeout` in the block after `seconds` of wall time (SIGALRM; a no-op off
    the main thread or without a limit).  It interrupts legalog's own code at any stage."""
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def strike(_signum: int, _frame: object) -> None:
        raise AnalysisTimeout

    previous = signal.signal(signal.SIGALRM, strike)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


Task = tuple[Target, str, float | None]


def _analyse_pair(args: Task) -> FileModel:
    from legalog.surfaces.cache import cached  # repeated runs over unchanged dumps answer from disk

    target, runtime, timeout = args
    try:
        with time_limit(timeout):
            return cached(target, runtime, analyse_target)
    except AnalysisTimeout:
        reason = (f"analysis stopped after {timeout:g} s, the per-file time limit (`--timeout`); "
                  "the other files are reported as usual")  # fmt: skip
        return _error(target, reason, 1, 1, "TIMEOUT")


def run(
    files: Sequence[Path | str | Target], runtime: str = "host_build_graph", jobs: int = 1,
    progress: Progress | None = None, timeout: float | None = DEFAULT_TIMEOUT,
) -> list[FileModel]:  # fmt: skip
    """Analyse every file; the result list is in the order of `files`.  A file past `timeout`
    seconds (None or 0: no limit) is an `error` entry with code TIMEOUT."""
    tasks: list[Task] = [(f if isinstance(f, Target) else Target(str(f)), runtime, timeout) for f in files]
    if jobs <= 1 or len(tasks) <= 1:
        return [_report(_analyse_pair(t), progress) for t in tasks]
    return _run_pool(tasks, jobs, progress)


def _report(result: FileModel, progress: Progress | None) -> FileModel:
    if progress is not None:
        progress(result)
    return result


def _run_pool(tasks: list[Task], jobs: int, progress: Progress | None) -> list[FileModel]:
    results: list[FileModel | None] = [None] * len(tasks)
    broken: list[int] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_analyse_pair, t) for t in tasks]
        try:
            for i, future in enumerate(futures):
                if (result := _result(future)) is None:
                    broken.append(i)
                else:
                    results[i] = _report(result, progress)
        except BaseException:  # Ctrl-C: drop the queue instead of finishing it
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    if broken:
        # A worker died (a crash no `except` can catch): the pool is gone, and every unfinished
        # file with it.  Re-run those one per process, so only the culprit is lost.
        with ThreadPoolExecutor(max_workers=jobs) as threads:
            for i, result in zip(broken, threads.map(lambda i: _isolated(tasks[i]), broken)):
                results[i] = _report(result, progress)
    return [r for r in results if r is not None]


def _result(future: Future[FileModel]) -> FileModel | None:
    try:
        return future.result()
    except BrokenProcessPool:
        return None


def _isolated(task: Task) -> FileModel:
    with ProcessPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(_analyse_pair, task).result()
        except BrokenProcessPool:
            from legalog.surfaces.internal import report_hint

            reason = f"the analysis process died (killed, or out of memory); {report_hint()}"
            return _error(task[0], reason, 1, 1, "INTERNAL")


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
