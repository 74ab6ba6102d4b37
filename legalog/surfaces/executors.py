"""Where a batch runs, beyond this machine: Dask `distributed` (`check --executor dask`).

One task per file.  The client reads each dump and ships its bytes with the task, so a worker
needs only legalog installed, not the client's files or working directory; the result comes back
as the report entry (`FileModel`), never the analysis.  Tasks are submitted through a bounded
window (a few per worker thread), so neither the scheduler nor this process holds the whole
batch's bytes at once, and results are yielded as they complete.  A task that raises is that
file's `error` entry.  A task whose worker dies (Dask retries it on other workers, then gives up
with KilledWorker) may be the culprit or a bystander queued on the same worker: each such task is
run once more, alone, so only the culprit ends as `error`.  Nothing stops the batch.  `pip install 'legalog[dask]'` provides `distributed`.

A worker process analyses one file at a time, whatever its thread count: the analysis is
GIL-bound (threads would not run it faster), and CPython 3.11's `ast` is not safe to run in two
threads at once ("AST constructor recursion depth mismatch").  Scale with worker processes
(`dask worker --nworkers N --nthreads 1`).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, Self

from legalog.files import read_regular
from legalog.surfaces.batch import Job, analyse_target, crash_result
from legalog.surfaces.report import FileModel

__all__ = ["DaskExecutor", "ExecutorError"]

_CONNECT_TIMEOUT_S = 10
_PER_THREAD = 4  # tasks in flight per worker thread: enough to hide a round trip, few enough to stay small
_ONE_AT_A_TIME = threading.Lock()  # per worker process: see the module's note


class ExecutorError(Exception):
    """The executor cannot start (missing dependency, unreachable scheduler); the message says why."""


class DaskExecutor:
    """A batch `Executor` on a Dask scheduler; use as a context manager (it owns the client)."""

    def __init__(
        self, address: str, *, window: int | None = None, timeout: float = _CONNECT_TIMEOUT_S
    ) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError(
                "--executor dask needs Dask distributed: pip install 'legalog[dask]'"
            ) from None
        try:
            self._client: Any = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {err}") from None
        self._window = window

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._client.close()

    def __call__(
        self, work: Callable[[Job], FileModel], batch: Sequence[Job]
    ) -> Iterator[tuple[int, FileModel]]:
        from distributed import KilledWorker, as_completed

        run = uuid.uuid4().hex  # task keys unique to this batch: never a result of another client's run
        window = self._window or _PER_THREAD * max(1, sum(self._client.nthreads().values()))
        todo = iter(enumerate(batch))
        inflight: dict[str, tuple[int, Job, Any]] = {}  # task key -> (index, job with its bytes, future)
        done = as_completed(loop=self._client.loop)
        killed: list[tuple[int, Job]] = []

        def submit(count: int) -> Iterator[tuple[int, FileModel]]:
            """Submit `count` more jobs (fewer at the end); a file the client cannot read is answered here."""
            while count > 0 and (item := next(todo, None)) is not None:
                i, job = item
                if (shipped := _with_bytes(job)) is None:
                    yield i, analyse_target(job.target, job.runtime)  # reports the unreadable file
                    continue
                future = self._client.submit(_alone, work, shipped, key=f"legalog-{run}-{i}", pure=False)
                inflight[future.key] = (i, shipped, future)
                done.add(future)
                count -= 1

        try:
            yield from submit(window)
            for future in done:
                i, shipped, _ = inflight.pop(future.key)
                if future.status == "error" and isinstance(future.exception(), KilledWorker):
                    killed.append((i, shipped))  # the culprit, or a task queued on the worker it killed
                else:
                    yield i, _outcome(future, batch[i])
                yield from submit(1)
            # Like the local pool: re-run each of those alone, so only the culprit is lost.
            for i, shipped in killed:
                alone = self._client.submit(_alone, work, shipped, key=f"legalog-{run}-{i}-alone", pure=False)
                inflight[alone.key] = (i, shipped, alone)
                yield i, _outcome(alone, batch[i])
                inflight.pop(alone.key)
        finally:
            if inflight:  # interrupted: do not leave the rest of the batch running on the cluster
                self._client.cancel([future for _, _, future in inflight.values()])


def _alone(work: Callable[[Job], FileModel], job: Job) -> FileModel:
    """Runs on the worker: one analysis at a time in its process."""
    with _ONE_AT_A_TIME:
        return work(job)


def _with_bytes(job: Job) -> Job | None:
    try:
        return replace(job, data=read_regular(job.target.path))
    except OSError:
        return None


def _outcome(future: Any, job: Job) -> FileModel:
    try:
        result = future.result()
    except Exception as err:
        return crash_result(job, f"the Dask task failed: {type(err).__name__}: {err}")
    finally:
        future.release()
    return (
        result
        if isinstance(result, FileModel)
        else crash_result(job, "the Dask task returned no report entry")
    )
