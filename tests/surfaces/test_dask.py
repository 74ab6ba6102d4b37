"""`check --executor dask`: the batch on a Dask `distributed` cluster (a LocalCluster on loopback)
gives the report the local path gives, broken files included; a failing task is that file's
`error`, never the batch's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install 'legalog[dask]')")

from distributed import LocalCluster

from legalog.surfaces import batch
from legalog.surfaces.dumps import Target, plan
from legalog.surfaces.executors import DaskExecutor
from legalog.surfaces.report import to_dict
from tests.conftest import CORPUS

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module", autouse=True)
def _no_dask_thread_outlives_the_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """This process ends the module with no thread but its own.  With another thread alive, a
    time-limited batch starts its worker as a new interpreter instead of forking it
    (legalog/surfaces/batch.py, `_Worker`), so a later test that patches the analysis in this
    process would no longer reach it: the order of the tests would decide their outcome.  Closing
    the cluster and the client stops every Dask thread but the offload executor's, a module global
    of `distributed.utils` that lives as long as the process; it is swapped for an unused one (a
    ThreadPoolExecutor starts a thread only when given work) and shut down.  Dask's scratch
    space goes to this module's temporary folder, not the machine's."""
    import dask

    with dask.config.set({"temporary-directory": str(tmp_path_factory.mktemp("dask"))}):
        yield
    import distributed.utils

    offload = distributed.utils._offload_executor
    distributed.utils._offload_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="Dask-Offload")
    offload.shutdown(wait=True)
    deadline = time.monotonic() + 10  # the cluster's own threads end as its loop winds down
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() == 1, f"threads left running: {threading.enumerate()}"


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """Two single-thread workers in this process (processes=False: no worker start-up cost), on
    loopback TCP so that a `legalog check` subprocess can reach it too.  The dashboard gets a
    loopback port of its own: `dashboard_address=None` still serves one on :8787 here."""
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEGALOG_NO_CACHE", "1")  # every file really analysed, on the workers


def dumped(results: list) -> list[dict]:
    return [to_dict(r) for r in results]


@pytest.mark.shared
def test_the_corpus_on_dask_equals_the_local_run(scheduler: str, corpus: list[Path], monkeypatch) -> None:
    targets = plan([CORPUS])
    local = batch.run(targets)  # the session's cache may answer: its entries are local results
    monkeypatch.setenv("LEGALOG_NO_CACHE", "1")  # while every file is really analysed on the workers
    seen: list[str] = []
    with DaskExecutor(scheduler) as executor:
        remote = batch.run(targets, executor=executor, progress=lambda r: seen.append(r.path))
    assert dumped(remote) == dumped(local)
    assert sorted(seen) == sorted(r.path for r in local)  # the progress bar hears of every file once


def broken_batch(root: Path) -> list[Target]:
    shutil.copy(EXAMPLES / "row_shift.py", root / "a_good.py")
    (root / "b_syntax.py").write_text("x = (\n")
    (root / "c_binary.py").write_bytes(b"\xff\xfe\x00")
    shutil.copy(EXAMPLES / "mixed_offsets.py", root / "d_rejected.py")
    (root / "e_not_a_program.py").write_text("print('hello')\n")
    return [*plan([root]), Target(str(root / "f_vanished.py"))]


def test_broken_files_on_dask_equal_the_local_run(scheduler: str, tmp_path: Path, no_cache: None) -> None:
    targets = broken_batch(tmp_path)
    local = batch.run(targets)
    with DaskExecutor(scheduler, window=2) as executor:  # a small window: refills while results stream in
        remote = batch.run(targets, executor=executor)
    assert dumped(remote) == dumped(local)
    assert [r.status for r in remote] == ["rewritten", "error", "error", "rejected", "error", "error"]


def failing_work(job: batch.Job) -> batch.FileModel:
    if job.target.path.endswith("b_boom.py"):
        raise RuntimeError("boom")
    return batch.analyse_job(job)


def test_a_failing_task_is_that_files_error(scheduler: str, tmp_path: Path, no_cache: None) -> None:
    for name in ("a.py", "b_boom.py", "c.py"):
        shutil.copy(EXAMPLES / "row_shift.py", tmp_path / name)
    jobs = [batch.Job(t) for t in plan([tmp_path])]
    with DaskExecutor(scheduler) as executor:
        results = dict(executor(failing_work, jobs))
    assert [results[i].status for i in range(3)] == ["rewritten", "error", "rewritten"]
    message = results[1].diagnostics[0].message
    assert message.startswith("internal error: the Dask task failed: RuntimeError: boom"), message
    assert results[1].path == jobs[1].target.path


def test_the_cli_on_dask_prints_what_the_local_cli_prints(scheduler: str, tmp_path: Path) -> None:
    broken_batch(tmp_path)  # `check` refuses a missing PATH: the vanished file is not given
    env = {**os.environ, "PYTHONPATH": str(REPO), "LEGALOG_NO_CACHE": "1"}
    inputs = [str(tmp_path)]

    def check(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "legalog", "check", "--format", "json", *inputs, *extra],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )

    local = check("--jobs", "1")
    remote = check("--executor", "dask", "--scheduler", scheduler)
    assert len(json.loads(local.stdout)["files"]) == 5, local.stderr
    assert remote.returncode == local.returncode == 2 and remote.stdout == local.stdout, remote.stderr
    env["LEGALOG_DASK_SCHEDULER"] = scheduler
    assert check("--executor", "dask").stdout == local.stdout


def test_executor_usage_errors_are_clear(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "LEGALOG_DASK_SCHEDULER"} | {"PYTHONPATH": str(REPO)}
    # in a child: a Client that cannot connect leaves its event loop's thread running (distributed's)
    unreachable = subprocess.run(
        [
            sys.executable,
            "-c",
            "from legalog.surfaces.executors import DaskExecutor; DaskExecutor('tcp://127.0.0.1:9', timeout=1)",
        ],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    last = unreachable.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "legalog.surfaces.executors.ExecutorError: cannot reach the Dask scheduler at tcp://127.0.0.1:9"
    )
    for extra, message in (
        (["--executor", "dask"], "needs --scheduler ADDRESS"),
        (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler needs --executor dask"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "legalog", "check", str(EXAMPLES / "row_shift.py"), *extra],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def dying_work(job: batch.Job) -> batch.FileModel:
    if job.target.path.endswith("b_dies.py"):
        os._exit(3)  # the worker process dies: no `except` sees this
    return batch.analyse_job(job)


def test_a_task_that_kills_its_worker_is_that_files_error(tmp_path: Path, no_cache: None) -> None:
    import dask

    for name in ("a.py", "b_dies.py", "c.py"):
        shutil.copy(EXAMPLES / "row_shift.py", tmp_path / name)
    jobs = [batch.Job(t) for t in plan([tmp_path])]
    # a real worker process under a nanny that restarts it; the scheduler gives up on a task that
    # killed one worker (the default retries it on up to 3 more, killing each)
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        DaskExecutor(cluster.scheduler_address) as executor,
    ):
        results = dict(executor(dying_work, jobs))
    assert [results[i].status for i in range(3)] == ["rewritten", "error", "rewritten"]
    assert "KilledWorker" in results[1].diagnostics[0].message
