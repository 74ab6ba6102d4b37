"""Many dumps at once: collect them, analyse each in isolation (a process pool when asked, or any
`Executor`: legalog.surfaces.executors runs them on Dask), and return results in a stable order
whatever the scheduling.  One file that cannot be read, or whose analysis crashes — even one that
kills its worker process — is a result with status `error` and its reason; it never stops the
others.  Results are the report's small entries (`FileModel`), never whole analyses, so memory
grows with the report, not with the programs analysed."""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from legalog.surfaces.dumps import Target, plan
from legalog.surfaces.report import DiagnosticModel, FileModel

Progress = Callable[[FileModel], None]
_GRAPH_ONLY = ("GB", "HC")


@dataclass(frozen=True, slots=True)
class Job:
    """Everything one file's analysis needs, explicit (never read from the worker's environment)
    so that it runs the same in a forked process or on another machine."""

    target: Target
    runtime: str = "host_build_graph"
    cache_dir: str | None = None  # None: no result cache
    data: bytes | None = None  # the dump's bytes, shipped to workers that cannot see the file
    engine: str | None = None  # resolved by the client: a remote worker has not its $LEGALOG_ENGINE


# An executor runs `work` on every job and yields (index in the batch, result) as results complete,
# in any order; `work` never raises, and a job whose worker fails anyway is the executor's to
# report as that file's `error` result (`crash_result`).
Executor = Callable[[Callable[[Job], FileModel], Sequence[Job]], Iterator[tuple[int, FileModel]]]


def collect(paths: Iterable[str | Path], all_dumps: bool = True) -> list[Path]:
    """Files as given; directories searched recursively for `*.py`, sorted (every dump of a
    passes_dump folder unless `all_dumps` is False: see `dumps.plan`)."""
    return [Path(t.path) for t in plan(paths, all_dumps)]


def analyse_file(path: str, runtime: str = "host_build_graph") -> FileModel:
    """One dump to its report entry; never raises."""
    return analyse_target(Target(str(path)), runtime)


def analyse_target(
    target: Target, runtime: str = "host_build_graph", data: bytes | None = None, engine: str | None = None,
) -> FileModel:  # fmt: skip
    """One target to its report entry (filtered to its pass for a passes_dump position); never
    raises.  `data`: the dump's bytes when already read (default: read from `target.path`);
    `engine`: legalog.rules.engine's choice (default: $LEGALOG_ENGINE, else clingo)."""
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_bytes, parse_file
    from legalog.pipeline import analyze
    from legalog.surfaces.render import file_model

    path = target.path
    try:
        try:
            program = parse_file(path) if data is None else parse_bytes(data, path)
        except ParseError as err:
            return _error(target, err.reason, err.line, err.col)
        model = file_model(analyze(program, path, runtime, engine))
        return model if target.folder is None else _for_position(model, target)
    except Exception as err:
        where = traceback.extract_tb(err.__traceback__)[-1]
        reason = f"internal error: {type(err).__name__}: {err} (at {Path(where.filename).name}:{where.lineno})"
        return _error(target, reason, 1, 1)


def _for_position(model: FileModel, target: Target) -> FileModel:
    """A passes_dump entry: the folder, the dump used, and only the diagnostics of the pass that
    runs at that dump's position (the other pass is judged on its own dump)."""
    keep = {"graph": _is_graph_code, "spmd": lambda c: not _is_graph_code(c)}.get(target.role, lambda c: True)
    diagnostics = [d for d in model.diagnostics if d.code == "PARSE" or keep(d.code)]
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


def _error(target: Target, reason: str, line: int, col: int) -> FileModel:
    diag = DiagnosticModel(code="PARSE", severity="error", line=line, column=col, message=reason)
    path, used_dump = target.report_paths()
    return FileModel(path=path, status="error", diagnostics=[diag], used_dump=used_dump)


def crash_result(job: Job, why: str) -> FileModel:
    """The entry of a file whose worker failed outside the analysis (died, lost, unpicklable)."""
    return _error(job.target, f"internal error: {why}", 1, 1)


def analyse_job(job: Job) -> FileModel:
    """A worker's whole task: the analysis, through the result cache when the job names one."""
    from legalog.surfaces.cache import cached  # repeated runs over unchanged dumps answer from disk

    def analyse(target: Target, runtime: str) -> FileModel:
        return analyse_target(target, runtime, job.data, job.engine)

    if job.cache_dir is None:
        return analyse(job.target, job.runtime)
    return cached(job.target, job.runtime, analyse, root=job.cache_dir, data=job.data, engine=job.engine)


def run(
    files: Sequence[Path | str | Target], runtime: str = "host_build_graph", jobs: int = 1,
    progress: Progress | None = None, *, cache_dir: str | Path | None = None, executor: Executor | None = None,
) -> list[FileModel]:  # fmt: skip
    """Analyse every file; the result list is in the order of `files`.  `cache_dir`: the result
    cache (default: the environment's, see legalog.surfaces.cache); `executor`: where the jobs run
    (default: this process for `jobs` <= 1, else a pool of `jobs` processes)."""
    from legalog.rules.engine import resolve_engine
    from legalog.surfaces.cache import default_root

    root = str(cache_dir) if cache_dir is not None else default_root()
    engine = resolve_engine()
    batch = [Job(f if isinstance(f, Target) else Target(str(f)), runtime, root, engine=engine) for f in files]
    if executor is None:
        executor = serial if jobs <= 1 or len(batch) <= 1 else process_pool(jobs)
    results: list[FileModel | None] = [None] * len(batch)
    for i, result in executor(analyse_job, batch):
        results[i] = _report(result, progress)
    return [r if r is not None else crash_result(batch[i], "the executor returned no result")
            for i, r in enumerate(results)]  # fmt: skip


def _report(result: FileModel, progress: Progress | None) -> FileModel:
    if progress is not None:
        progress(result)
    return result


def serial(work: Callable[[Job], FileModel], batch: Sequence[Job]) -> Iterator[tuple[int, FileModel]]:
    """This process, one job after another."""
    for i, job in enumerate(batch):
        yield i, work(job)


def process_pool(jobs: int) -> Executor:
    """A local pool of `jobs` processes; a worker that dies costs only its own file."""

    def execute(work: Callable[[Job], FileModel], batch: Sequence[Job]) -> Iterator[tuple[int, FileModel]]:
        broken: list[int] = []
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(work, job) for job in batch]
            try:
                for i, future in enumerate(futures):
                    if (result := _result(future)) is None:
                        broken.append(i)
                    else:
                        yield i, result
            except BaseException:  # Ctrl-C, or the consumer stopped: drop the queue instead of finishing it
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        if broken:
            # A worker died (a crash no `except` can catch): the pool is gone, and every unfinished
            # file with it.  Re-run those one per process, so only the culprit is lost.
            with ThreadPoolExecutor(max_workers=jobs) as threads:
                yield from zip(broken, threads.map(lambda i: _isolated(work, batch[i]), broken))

    return execute


def _result(future: Future[FileModel]) -> FileModel | None:
    try:
        return future.result()
    except BrokenProcessPool:
        return None


def _isolated(work: Callable[[Job], FileModel], job: Job) -> FileModel:
    with ProcessPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(work, job).result()
        except BrokenProcessPool:
            return crash_result(job, "the analysis process died (killed, or out of memory)")


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
