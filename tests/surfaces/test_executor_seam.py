"""The executor seam of `batch.run`: results come back in any order (and from any kind of
executor) but the report is in the order of the files; a job an executor loses is an `error`."""

from __future__ import annotations

import shutil
from pathlib import Path

from legalog.surfaces import batch

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_results_in_file_order_whatever_the_completion_order(tmp_path: Path) -> None:
    files = []
    for i, name in enumerate(("row_shift.py", "mixed_offsets.py", "row_shift.py")):
        files.append(tmp_path / f"{i}_{name}")
        shutil.copy(EXAMPLES / name, files[-1])
    heard: list[str] = []

    def backwards(work, jobs):  # type: ignore[no-untyped-def]
        for i in reversed(range(len(jobs))):
            yield i, work(jobs[i])

    results = batch.run(files, executor=backwards, progress=lambda r: heard.append(Path(r.path).name))
    assert [Path(r.path).name for r in results] == [f.name for f in files]
    assert [r.status for r in results] == ["rewritten", "rejected", "rewritten"]
    assert heard == [f.name for f in reversed(files)]  # progress as results arrive


def test_a_job_the_executor_loses_is_an_error(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "row_shift.py", tmp_path / "a.py")
    shutil.copy(EXAMPLES / "row_shift.py", tmp_path / "b.py")

    def forgetful(work, jobs):  # type: ignore[no-untyped-def]
        yield 0, work(jobs[0])

    first, second = batch.run([tmp_path / "a.py", tmp_path / "b.py"], executor=forgetful)
    assert first.status == "rewritten" and second.status == "error"
    assert second.path == str(tmp_path / "b.py") and "no result" in second.diagnostics[0].message


def test_the_engine_is_resolved_by_the_client_and_keys_the_cache(tmp_path: Path, monkeypatch) -> None:
    # a Dask worker on another machine has not the client's $LEGALOG_ENGINE: each job carries it
    from legalog.surfaces import cache
    from legalog.surfaces.dumps import Target

    shutil.copy(EXAMPLES / "row_shift.py", tmp_path / "a.py")
    monkeypatch.setenv("LEGALOG_ENGINE", "pydatalog")
    seen: list[str | None] = []

    def recording(work, jobs):  # type: ignore[no-untyped-def]
        seen.extend(job.engine for job in jobs)
        yield from ((i, work(job)) for i, job in enumerate(jobs))

    (result,) = batch.run([tmp_path / "a.py"], executor=recording)
    assert seen == ["pydatalog"] and result.status == "rewritten"
    target = Target(str(tmp_path / "a.py"))
    monkeypatch.delenv("LEGALOG_ENGINE")
    assert cache.key_options(target, "host_build_graph", "pydatalog")["engine"] == "pydatalog"
    assert cache.key_options(target, "host_build_graph")["engine"] == "compiled"
