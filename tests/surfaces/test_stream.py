"""The streamed report (legalog/surfaces/stream.py): the same bytes as rendering the whole report
at once, in every format, and `check` writes each entry as soon as it and those before it are
done, holding no more than that."""

from __future__ import annotations

import json
import shutil
import weakref
from io import StringIO
from pathlib import Path

import pytest

from legalog import cli
from legalog.surfaces import batch
from legalog.surfaces.dumps import Target, plan
from legalog.surfaces.merge import run_block
from legalog.surfaces.render import quoted_lines, render_sarif, render_text, tally
from legalog.surfaces.report import FileModel, ReportModel, to_json
from legalog.surfaces.shard import Shard
from legalog.surfaces.stream import write_report
from tests.cli.test_tool_cli import make_passes_dump
from tests.conftest import CORPUS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory, corpus: list[Path]) -> list[FileModel]:
    """The corpus, a passes_dump folder (entries with `used_dump`) and a broken dump, analysed."""
    dumps = tmp_path_factory.mktemp("stream") / "dumps"
    shutil.copytree(CORPUS, dumps, ignore=shutil.ignore_patterns("*.md"))
    make_passes_dump(dumps)
    (dumps / "zz_broken.py").write_text("x = (\n")
    return batch.run(plan([dumps]))


def written(files: list[FileModel], fmt: str, **options: object) -> str:
    out = StringIO()
    write_report(iter(files), fmt, out, **options)  # type: ignore[arg-type]
    return out.getvalue()


@pytest.mark.shared
@pytest.mark.parametrize("some", [slice(None), slice(0, 0), slice(0, 1)], ids=["all", "none", "one"])
def test_every_format_is_byte_for_byte_the_whole_report(entries: list[FileModel], some: slice) -> None:
    files = entries[some]
    assert written(files, "json") == to_json(ReportModel(files=files), indent=2) + "\n"
    assert written(files, "sarif") == json.dumps(render_sarif(files), indent=2) + "\n"
    assert written(files, "text") == render_text(files) + "\n"
    assert written(files, "text", verbose=True) == render_text(files, verbose=True) + "\n"


@pytest.mark.shared
def test_a_shard_report_with_its_run_block_is_byte_for_byte_the_whole_report(
    entries: list[FileModel],
) -> None:
    indexed = [
        (i, Target(f.used_dump or f.path, f.path if f.used_dump else None)) for i, f in enumerate(entries)
    ]

    def block(quoted):  # type: ignore[no-untyped-def]
        return run_block(
            quoted, indexed, Shard(1, 2), batch_entries=len(entries), batch_digest="d", options={}
        )

    whole = to_json(ReportModel(files=entries, run=block(quoted_lines(entries))), indent=2) + "\n"
    assert written(entries, "json", run=block) == whole
    assert '"sources": {' in whole and json.loads(whole)["run"]["sources"]  # the corpus has quoted lines


@pytest.mark.shared
def test_the_tally_counts_what_was_written(entries: list[FileModel]) -> None:
    counts = write_report(iter(entries), "json", StringIO())
    assert counts == tally(entries) and counts.files == len(entries)
    assert counts.statuses["error"] >= 1 and "PARSE" in counts.error_codes


def test_check_writes_each_entry_before_the_batch_ends_and_holds_none_it_wrote(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for i in range(6):
        shutil.copy(EXAMPLES / "row_shift.py", tmp_path / f"d{i}.py")
    printed_before: list[str] = []  # stdout when the executor is asked for the next result
    alive: list[int] = []  # how many results already yielded are still held by anyone then
    refs: list[weakref.ref[FileModel]] = []

    def watching(work, jobs):  # type: ignore[no-untyped-def]
        for i, job in enumerate(jobs):
            result = work(job)
            refs.append(weakref.ref(result))
            yield i, result
            del result  # this stand-in's own reference
            printed_before.append(capsys.readouterr().out)
            alive.append(sum(ref() is not None for ref in refs))

    monkeypatch.setattr(batch, "serial", watching)
    assert cli.main(["check", "--no-progress", "--jobs", "1", "--format", "json", str(tmp_path)]) == 0
    rest = capsys.readouterr().out
    report = json.loads("".join(printed_before) + rest)
    assert [Path(f["path"]).name for f in report["files"]] == [f"d{i}.py" for i in range(6)]
    for i, out in enumerate(printed_before):  # entry i was out before the executor produced entry i + 1
        assert out.count('"path": ') == 1 and f"d{i}.py" in out
    assert alive == [1] * 6  # only the entry just written (still in the writer's hands): never the batch


def test_results_arriving_ahead_are_held_only_until_their_turn(tmp_path: Path) -> None:
    files = []
    for i in range(4):
        files.append(tmp_path / f"d{i}.py")
        shutil.copy(EXAMPLES / "row_shift.py", files[-1])
    yielded: list[int] = []

    def late_first(work, jobs):  # type: ignore[no-untyped-def]
        for i in (1, 2, 0, 3):
            yield i, work(jobs[i])
            yielded.append(i)

    order = []
    for result in batch.results(files, executor=late_first):
        order.append((Path(result.path).name, list(yielded)))
    # 1 and 2 wait for 0; then 0, 1 and 2 go out before 3 is even asked for
    assert order == [("d0.py", [1, 2]), ("d1.py", [1, 2]), ("d2.py", [1, 2]), ("d3.py", [1, 2, 0])]
