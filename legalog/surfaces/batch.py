"""Many dumps at once: collect them, analyse each in isolation (a process pool when asked, or any
`Executor`: legalog.surfaces.executors runs them on Dask), and return results in a stable order
whatever the scheduling.  One file that cannot be read, or whose analysis crashes — even one that
kills its worker process — is a result with status `error` and its reason; it never stops the
others.  Results are the report's small entries (`FileModel`), never whole analyses, and
`results` yields them in order as they complete, so a consumer that writes each one out (`check`:
legalog/surfaces/stream.py) holds only those that arrived ahead of an unfinished one."""

from __future__ import annotations

import contextlib
import multiprocessing.util
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from legalog.surfaces.dumps import Target
from legalog.surfaces.report import DiagnosticModel, FileModel

if TYPE_CHECKING:
    from concurrent.futures import Future
    from multiprocessing.connection import Connection

    from legalog.ir.model import Program

Progress = Callable[[FileModel], None]
# Seconds one file may take (`check --timeout`): far above any real dump (the 5 MB, 1,656-function
# synthetic one takes well under a minute), low enough that a stuck file cannot hold a CI job.
DEFAULT_TIMEOUT = 300.0
# The longest limit waited for (11.6 days): the wait is one `poll`, whose milliseconds the system
# takes as a 32-bit number (at most 24.8 days); 0 or None is no limit at all.
MAX_TIMEOUT = 1_000_000.0


@dataclass(frozen=True, slots=True)
class Job:
    """Everything one file's analysis needs, explicit (never read from the worker's environment)
    so that it runs the same in a forked process or on another machine."""

    target: Target
    runtime: str = "host_build_graph"
    cache_dir: str | None = None  # None: no result cache
    data: bytes | None = None  # the dump's bytes, shipped to workers that cannot see the file
    engine: str | None = None  # resolved by the client: a remote worker has not its $LEGALOG_ENGINE
    timeout: float | None = None  # seconds the analysis may take (None: no limit)


# An executor runs `work` on every job and yields (index in the batch, result) as results complete,
# in any order; `work` never raises, and a job whose worker fails anyway is the executor's to
# report as that file's `error` result (`crash_result`).
Executor = Callable[[Callable[[Job], FileModel], Sequence[Job]], Iterator[tuple[int, FileModel]]]


def analyse_file(path: str, runtime: str = "host_build_graph") -> FileModel:
    """One dump to its report entry; never raises."""
    return analyse_target(Target(str(path)), runtime)


def analyse_target(
    target: Target,
    runtime: str = "host_build_graph",
    data: bytes | None = None,
    engine: str | None = None,
) -> FileModel:
    """One target to its report entry; never raises.  A passes_dump position is analysed by the
    pass that runs there alone: its status, diagnostics, edits and SARIF fixes are that pass's; a
    `validate` target is its pair judged.  `data`: the dump's bytes when already read (default:
    read from `target.path`); `engine`: legalog.rules.engine's choice (default: $LEGALOG_ENGINE,
    else the compiled engine)."""
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_bytes, parse_file
    from legalog.pipeline import analyze
    from legalog.surfaces.file_models import file_model

    path = target.path
    if data is None and Path(path).is_dir():  # a folder the search could not list
        return _error(target, f"cannot read folder: {_listing_error(path)}", 1, 1)
    try:
        if target.before is not None:
            return _validated(target, runtime, data, engine)
        try:
            program = parse_file(path) if data is None else parse_bytes(data, path)
        except ParseError as err:
            return _error(target, err.reason, err.line, err.col)
        model = file_model(analyze(program, path, runtime, engine, passes=target.passes))
        if target.folder is None:
            return model
        folder, used_dump = target.report_paths()  # a passes_dump entry: the folder, and the dump used
        return replace(model, path=folder, used_dump=used_dump)
    except Exception as err:
        from legalog.surfaces.internal import internal_reason

        return _error(target, internal_reason(err), 1, 1, "INTERNAL")


def _validated(target: Target, runtime: str, data: bytes | None, engine: str | None) -> FileModel:
    """A `validate` pair to its entry: BEFORE read from its file, AFTER from `data` when given."""
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_bytes, parse_file
    from legalog.pipeline import Validation, validate
    from legalog.surfaces.file_models import validation_model

    assert target.before is not None
    after = None if target.after_missing else target.path

    def read(path: str) -> Program:
        return parse_bytes(data, path) if data is not None and path == target.path else parse_file(path)

    try:
        before, program = read(target.before), None if after is None else read(after)
    except ParseError as err:
        judged = Validation.unreadable(target.role, err)
    else:
        judged = validate(before, program, target.role, target.before, after, runtime, engine)
    return validation_model(judged, target.before, after, target.folder)


def _listing_error(folder: str) -> str:
    try:
        os.listdir(folder)
    except OSError as err:
        return err.strerror or str(err)
    return "it changed while being searched"


def _error(target: Target, reason: str, line: int, col: int, code: str = "PARSE") -> FileModel:
    from legalog.analyzer.codes import CODES

    diag = DiagnosticModel(
        code=code, severity="error", line=line, column=col, message=reason, help=CODES[code].help
    )
    path, used_dump = target.report_paths()
    return FileModel(path=path, status="error", diagnostics=[diag], used_dump=used_dump)


def crash_result(job: Job, why: str) -> FileModel:
    """The entry of a file whose worker failed outside the analysis (died, lost, unpicklable)."""
    from legalog.surfaces.internal import report_hint

    return _error(job.target, f"internal error: {why}; {report_hint()}", 1, 1, "INTERNAL")


def within(seconds: float | None, job: Job, data: bytes | None) -> FileModel | None:
    """The job's analysis (`analyse_target`) in a worker process that is killed at the deadline:
    None when it struck.

    Enforced from outside, so nothing inside the analysis can swallow it (an alarm raised in a
    Z3 finaliser is printed and lost, and a signal never interrupts a long C call), and a killed
    worker prints nothing: its output goes to /dev/null and each result comes back pickled over
    a pipe.  One worker serves a whole batch (`results` closes it at the end), so what every
    analysis loads first (the engines, the solver, the rule programs) is loaded once, not once per
    file; a worker killed at a deadline, or dead, is replaced for the next file.  Without `fork`
    (or without a limit) the analysis runs here, unlimited."""
    if not seconds or not hasattr(os, "fork"):
        return analyse_target(job.target, job.runtime, data, job.engine)
    request = pickle.dumps((job.target, job.runtime, data, job.engine))
    worker = _Worker.current()
    try:
        if not worker.send(request):  # it died between files: a fresh one takes the file
            worker.close()
            worker = _Worker.current()
            worker.send(request)
        payload = worker.receive(time.monotonic() + seconds)
    except BaseException:  # we were interrupted: no worker outlives its parent's wait
        worker.close()
        raise
    if not payload:
        worker.close()  # killed at the deadline, or found dead
    if payload is None:
        return None
    if not payload:
        return crash_result(job, "the analysis process died (killed, or out of memory)")
    loaded: FileModel = pickle.loads(payload)  # our own worker's pickle of its FileModel
    return loaded


def _never_raising(target: Target, runtime: str, data: bytes | None, engine: str) -> FileModel:
    try:
        return analyse_target(target, runtime, data, engine)
    except BaseException as err:  # whatever it is, it is this file's INTERNAL entry
        from legalog.surfaces.internal import internal_reason

        return _error(target, internal_reason(err), 1, 1, "INTERNAL")


class _Worker:
    """A child process analysing the jobs it is sent, one at a time, until its request pipe
    closes.  One per thread of the process that started it (a pool's or Dask's worker process
    starts its own).

    Forked from this process when it has no other thread, so the child starts with everything
    loaded here; with other threads (a Dask worker's, a thread pool's) a fork would copy one
    thread of many with the others' locks held (and Python 3.12 warns), so the child is a new
    interpreter (`_start_spawned`), which a daemonic process may start too."""

    _mine = threading.local()

    def __init__(self) -> None:
        from multiprocessing.connection import Pipe

        requests, self._requests = Pipe(duplex=False)
        self._replies, replies = Pipe(duplex=False)
        self.owner = os.getpid()
        if threading.active_count() > 1:
            self._stop = _start_spawned(requests, replies)
        else:
            self._stop = _start_forked(requests, replies, (self._requests, self._replies))
        requests.close()
        replies.close()
        self.closed = False
        # Stopped when this process exits, a pool's worker process too (multiprocessing runs
        # these finalizers, not `atexit`'s, before it exits): reaped, its CPU time is its parent's.
        multiprocessing.util.Finalize(self, self.close, exitpriority=0)

    @classmethod
    def current(cls) -> _Worker:
        worker: _Worker | None = getattr(cls._mine, "worker", None)
        if worker is None or worker.owner != os.getpid():  # none yet, or a forked parent's
            worker = cls._mine.worker = cls()
        return worker

    @classmethod
    def close_current(cls) -> None:
        worker: _Worker | None = getattr(cls._mine, "worker", None)
        if worker is not None and worker.owner == os.getpid():
            worker.close()

    def send(self, message: bytes) -> bool:
        """False when the worker is gone."""
        try:
            self._requests.send_bytes(message)
        except OSError:  # a broken pipe: it died
            return False
        return True

    def receive(self, deadline: float) -> bytes | None:
        """The reply, b"" when the worker died first, None at the deadline.  The worker writes a
        reply in one go once its analysis is done, so a reply begun is a reply about to end."""
        if not self._replies.poll(max(0.0, deadline - time.monotonic())):
            return None
        try:
            return self._replies.recv_bytes()
        except (EOFError, OSError):  # it died before writing, or while it wrote
            return b""

    def close(self) -> None:
        """Stop the worker (killed, whatever it is doing) and reap it; once."""
        if self.closed:
            return
        self.closed = True
        if getattr(self._mine, "worker", None) is self:
            self._mine.worker = None
        for end in (self._requests, self._replies):
            with contextlib.suppress(OSError):
                end.close()
        self._stop()


def _start_forked(
    requests: Connection, replies: Connection, parents: tuple[Connection, ...]
) -> Callable[[], None]:
    """A worker forked from this process; the function that kills and reaps it."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        try:
            for end in parents:
                end.close()
            _serve(requests, replies)
        finally:
            os._exit(0)

    def stop() -> None:
        with contextlib.suppress(OSError):
            if os.waitpid(pid, os.WNOHANG) == (0, 0):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)

    return stop


def _start_spawned(requests: Connection, replies: Connection) -> Callable[[], None]:
    """A worker started as a new interpreter (it imports the pipeline on its first file), its
    two pipe ends passed by descriptor; the function that kills and reaps it.  Not a
    multiprocessing child: a daemonic process may have none (a Dask nanny's worker is one), and
    a fork of a threaded one copies one thread of many with the others' locks held."""
    import subprocess
    import sys

    env = dict(os.environ)  # legalog importable in the child as here, however it was found
    home = str(Path(__file__).resolve().parents[2])  # the folder holding the legalog package
    env["PYTHONPATH"] = os.pathsep.join(p for p in (home, env.get("PYTHONPATH")) if p)
    fds = (requests.fileno(), replies.fileno())
    child = subprocess.Popen(
        [sys.executable, "-c", _SPAWNED, *map(str, fds)],
        pass_fds=fds,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )

    def stop() -> None:
        child.kill()
        child.wait()

    return stop


_SPAWNED = (
    "import sys; from legalog.surfaces.batch import serve_descriptors; serve_descriptors(*sys.argv[1:])"
)


def serve_descriptors(requests: str, replies: str) -> None:
    """A spawned worker's loop (`_start_spawned`), on the pipe ends it inherited."""
    from multiprocessing.connection import Connection

    _serve(Connection(int(requests), writable=False), Connection(int(replies), readable=False))


def _serve(requests: Connection, replies: Connection) -> None:
    """The worker's loop: each request is a pickled (target, runtime, data, engine), each reply
    the pickled entry; it ends when the request pipe closes."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    while True:
        try:
            body = requests.recv_bytes()
        except EOFError:
            return
        replies.send_bytes(pickle.dumps(_never_raising(*pickle.loads(body))))


def analyse_job(job: Job) -> FileModel:
    """A worker's whole task: the analysis, through the result cache when the job names one,
    within the job's time limit.  The cache is read and written here, outside the time-limited
    child: a hit forks nothing and loads nothing of the pipeline."""
    from legalog.files import read_regular
    from legalog.surfaces.cache import cached  # repeated runs over unchanged dumps answer from disk

    data = job.data
    if data is None and job.cache_dir is not None:
        # read once: the cache key and, on a miss, the analysis take the same bytes
        try:
            data = read_regular(job.target.path)
        except OSError:
            data = None  # the analysis reports the unreadable file itself

    def analyse(target: Target, runtime: str) -> FileModel | None:
        return within(job.timeout, job, data)

    if job.cache_dir is None:
        result = analyse(job.target, job.runtime)
    else:  # a TIMEOUT (None) is not stored: only a result with a status is
        result = cached(job.target, job.runtime, analyse, root=job.cache_dir, data=data, engine=job.engine)
    if result is None:
        reason = (
            f"analysis stopped after {job.timeout:g} s, the per-file time limit (`--timeout`); "
            "the other files are reported as usual"
        )
        return _error(job.target, reason, 1, 1, "TIMEOUT")
    return result


def run(
    files: Sequence[Path | str | Target],
    runtime: str = "host_build_graph",
    jobs: int = 1,
    progress: Progress | None = None,
    *,
    cache_dir: str | Path | None = None,
    executor: Executor | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> list[FileModel]:
    """Analyse every file; the result list is in the order of `files` (see `results`)."""
    return list(
        results(files, runtime, jobs, progress, cache_dir=cache_dir, executor=executor, timeout=timeout)
    )


def results(
    files: Sequence[Path | str | Target],
    runtime: str = "host_build_graph",
    jobs: int = 1,
    progress: Progress | None = None,
    *,
    cache_dir: str | Path | None = None,
    executor: Executor | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> Iterator[FileModel]:
    """Analyse every file, yielding each result in the order of `files` as soon as it and every
    result before it are done: only results that arrived ahead of an unfinished one are held.
    `cache_dir`: the result cache (default: the environment's, see legalog.surfaces.cache);
    `executor`: where the jobs run (default: this process for `jobs` <= 1, else a pool of `jobs`
    processes); `timeout`: seconds a file may take (None or 0: no limit), past which it is an
    `error` entry with code TIMEOUT."""
    from legalog.rules.engine_names import resolve_engine
    from legalog.surfaces.cache import default_root

    if timeout is not None and not 0 <= timeout <= MAX_TIMEOUT:
        raise ValueError(f"timeout must be at most {MAX_TIMEOUT:.0f} seconds (0 or None: no limit)")

    root = str(cache_dir) if cache_dir is not None else default_root()
    engine = resolve_engine()
    batch = [
        Job(
            f if isinstance(f, Target) else Target(str(f)),
            runtime,
            root,
            engine=engine,
            timeout=timeout or None,
        )
        for f in files
    ]
    if executor is None:
        executor = serial if jobs <= 1 or len(batch) <= 1 else process_pool(jobs)
    held: dict[int, FileModel] = {}  # arrived ahead of `next_index`
    next_index = 0
    try:
        for i, result in executor(analyse_job, batch):
            if i < next_index or i in held:
                continue  # an executor's repeated answer: the first one stands
            held[i] = _report(result, progress)
            while next_index in held:
                yield held.pop(next_index)
                next_index += 1
    finally:
        _Worker.close_current()  # this batch's time-limited worker (serial), if it forked one
    for i in range(next_index, len(batch)):
        late = held.pop(i, None)
        yield late if late is not None else crash_result(batch[i], "the executor returned no result")


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
        from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor  # only for a pool

        broken: list[int] = []
        _preload()  # once here, not once in every worker: they are forked from this process
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


def _preload() -> None:
    """What every analysis loads first (the pipeline, the rule programs the check evaluates and
    the engine's form of them; the solver loads only for a launch)."""
    from legalog.pipeline import pass_rules
    from legalog.rules.engine import prepare
    from legalog.rules.language import RuleProgram
    from legalog.rules.programs import VERIFIER_RULES

    prepare(pass_rules())
    prepare(RuleProgram.load(VERIFIER_RULES))


def _result(future: Future[FileModel]) -> FileModel | None:
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool:
        return None


def _isolated(work: Callable[[Job], FileModel], job: Job) -> FileModel:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(work, job).result()
        except BrokenProcessPool:
            return crash_result(job, "the analysis process died (killed, or out of memory)")


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
