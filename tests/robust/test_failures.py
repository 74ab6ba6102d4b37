"""How legalog fails: an internal error is INTERNAL (exit 3) from every command, never PARSE and
never a traceback; a file past its time limit is an `error` entry and the batch goes on; writes
name the user's path and leave nothing staged; an unreadable folder is an entry of its own."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import legalog.pipeline
from legalog.cli import main
from legalog.surfaces import batch
from legalog.version import __version__

REPO = Path(__file__).resolve().parents[2]
DUMP = REPO / "examples" / "row_shift.py"  # program RowShift: a Graph and its hoist
OTHER = REPO / "tests" / "graph" / "cases" / "a08_rename_chain_collapses.py"  # another program with a Graph
# quick to analyse (no Graph, one launch), so a time limit of a second or two never strikes it
SMALL = REPO / "bench" / "dumps" / "one_launch.py"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEGALOG_NO_CACHE", "1")


def crash_on(monkeypatch: pytest.MonkeyPatch, name: str | None = None) -> None:
    """Make the rules stage raise for the program called `name` (every program when None)."""
    real = legalog.pipeline.solve

    def solve(program, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name is None or program.name == name:
            raise KeyError("layer/win")
        return real(program, *args, **kwargs)

    monkeypatch.setattr(legalog.pipeline, "solve", solve)


def internal_reported(err: str, command: str, where: str = "legalog/pipeline.py:") -> None:
    assert "Traceback" not in err
    # where: the innermost frame in legalog's own code (the raising stand-in lives in this test)
    assert f"INTERNAL KeyError: 'layer/win' (at {where}" in err
    assert "PARSE" not in err
    assert f"bug in legalog {__version__}" in err and f"`legalog {command}" in err and "--debug" in err


@pytest.mark.parametrize(
    "command",
    [
        ["fix", str(DUMP), "--diff"],
        ["why", str(DUMP), "--function", "row_shift", "--var", "base"],
        ["query", str(DUMP), "--list"],
    ],
)
def test_an_internal_error_is_exit_3_without_a_traceback(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    crash_on(monkeypatch)
    assert main(command) == 3
    captured = capsys.readouterr()
    internal_reported(captured.err, command[0])
    assert captured.out == ""


def test_facts_reports_an_internal_error_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def extract(program, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyError("layer/win")

    monkeypatch.setattr(legalog.pipeline, "extract", extract)
    assert main(["facts", str(DUMP), "-o", str(tmp_path / "out")]) == 3
    internal_reported(capsys.readouterr().err, "facts", "legalog/cli.py:")
    assert not (tmp_path / "out").exists()


def test_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    crash_on(monkeypatch)
    for command in (["fix", str(DUMP), "--diff", "--debug"], ["--debug", "fix", str(DUMP), "--diff"]):
        with pytest.raises(KeyError):
            main(command)


def test_in_a_batch_an_internal_error_is_that_files_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for dump in (DUMP, OTHER):
        (tmp_path / dump.name).write_bytes(dump.read_bytes())
    crash_on(monkeypatch, "RowShift")
    assert main(["check", str(tmp_path), "--format", "json", "--jobs", "1"]) == 3
    files = {Path(f["path"]).name: f for f in json.loads(capsys.readouterr().out)["files"]}
    crashed = files[DUMP.name]
    assert crashed["status"] == "error" and [d["code"] for d in crashed["diagnostics"]] == ["INTERNAL"]
    assert "bug in legalog" in crashed["diagnostics"][0]["message"]
    assert files[OTHER.name]["status"] in ("legal", "rewritten")


def hang_on(monkeypatch: pytest.MonkeyPatch, stuck: str) -> None:
    real = batch.analyse_target

    def analyse(target, runtime="host_build_graph", *rest):  # type: ignore[no-untyped-def]
        while Path(target.path).name == stuck:
            time.sleep(0.01)
        return real(target, runtime, *rest)

    monkeypatch.setattr(batch, "analyse_target", analyse)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_past_the_time_limit_is_an_error_and_the_batch_goes_on(
    jobs: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for dump in (DUMP, SMALL):
        (tmp_path / dump.name).write_bytes(dump.read_bytes())
    hang_on(monkeypatch, DUMP.name)
    results = batch.run(sorted(tmp_path.iterdir()), jobs=jobs, timeout=2)
    by_name = {Path(r.path).name: r for r in results}
    stuck = by_name[DUMP.name]
    assert stuck.status == "error" and [d.code for d in stuck.diagnostics] == ["TIMEOUT"]
    assert "2 s" in stuck.diagnostics[0].message and "--timeout" in stuck.diagnostics[0].message
    assert by_name[SMALL.name].status == "rewritten"


def test_one_time_limited_worker_serves_a_batch_and_a_killed_one_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under a limit the analyses run in a forked worker, one for the whole batch (what they load
    # is loaded once); the file that outlives its limit takes its worker with it, and the files
    # after it get a fresh one.
    from legalog.surfaces.report import FileModel

    names = ["a.py", "b.py", "stuck.py", "c.py", "d.py"]
    for name in names:
        (tmp_path / name).write_text("")

    def analyse(target, *rest):  # type: ignore[no-untyped-def]
        while Path(target.path).name == "stuck.py":
            time.sleep(0.01)
        return FileModel(path=f"{Path(target.path).name}:{os.getpid()}", status="legal")

    monkeypatch.setattr(batch, "analyse_target", analyse)
    results = batch.run([tmp_path / n for n in names], jobs=1, timeout=1, cache_dir=None)
    pids = {r.path.split(":")[0]: r.path.split(":")[1] for r in results if r.status == "legal"}
    assert [d.code for r in results if r.status == "error" for d in r.diagnostics] == ["TIMEOUT"]
    assert pids["a.py"] == pids["b.py"] != pids["c.py"] == pids["d.py"]
    assert str(os.getpid()) not in pids.values()


def test_check_timeout_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / DUMP.name).write_bytes(DUMP.read_bytes())
    hang_on(monkeypatch, DUMP.name)
    assert main(["check", str(tmp_path), "--timeout", "0.3", "--jobs", "1"]) == 3
    out = capsys.readouterr().out
    assert "TIMEOUT" in out and "1 error" in out
    with pytest.raises(SystemExit):
        main(["check", str(tmp_path), "--timeout", "-1"])


# ----------------------------------------------------------------------------------- writes


def test_write_errors_name_the_users_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    assert main(["fix", str(DUMP), "-o", str(blocker / "out.py")]) == 2
    err = capsys.readouterr().err
    assert str(blocker / "out.py") in err and ".tmp" not in err and "Traceback" not in err
    assert main(["fix", str(DUMP), "-o", str(tmp_path)]) == 2
    assert f"is a folder: give the path of the file to write: {tmp_path}" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def listing(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def test_facts_replaces_an_export_whole(tmp_path: Path) -> None:
    out = tmp_path / "facts"
    assert main(["facts", str(OTHER), "-o", str(out)]) == 0
    (out / "stale_relation.facts").write_text("left over\n")
    assert main(["facts", str(DUMP), "-o", str(out)]) == 0
    assert "stale_relation.facts" not in listing(out) and "schema.dl" in listing(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts"]  # nothing staged left behind
    assert oct(out.stat().st_mode & 0o777) != oct(0o700)


def test_facts_failing_midway_keeps_the_old_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from legalog.facts import store

    out = tmp_path / "facts"
    assert main(["facts", str(OTHER), "-o", str(out)]) == 0
    before = listing(out)

    def half_then_fail(relations, decls, staging, out_dir):  # type: ignore[no-untyped-def]
        (staging / "function.facts").write_text("partial\n")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "_write_export", half_then_fail)
    assert main(["facts", str(DUMP), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and str(out) in err
    assert listing(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts"]


def test_facts_refuses_a_folder_of_other_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["facts", str(DUMP), "-o", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err
    assert listing(tmp_path) == {"notes.txt": "mine"}


# ---------------------------------------------------------------------------------- folders


def test_an_unreadable_folder_is_an_error_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / DUMP.name).write_bytes(DUMP.read_bytes())
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text("unreachable")
    real_scandir, real_listdir = os.scandir, os.listdir

    def refuse(path: object, real):  # type: ignore[no-untyped-def]
        if Path(os.fsdecode(path)) == locked:  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    # root reads any folder, so the refusal is simulated where the search asks
    monkeypatch.setattr(os, "scandir", lambda path=".": refuse(path, real_scandir))
    monkeypatch.setattr(os, "listdir", lambda path=".": refuse(path, real_listdir))
    assert main(["check", str(tmp_path), "--format", "json", "--jobs", "1"]) == 2
    files = {f["path"]: f for f in json.loads(capsys.readouterr().out)["files"]}
    entry = files[str(locked)]
    assert (
        entry["status"] == "error"
        and entry["diagnostics"][0]["message"] == "cannot read folder: Permission denied"
    )
    assert files[str(tmp_path / "ok" / DUMP.name)]["status"] in ("legal", "rewritten")


def test_sarif_declares_character_columns(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(DUMP), "--format", "sarif"])
    assert json.loads(capsys.readouterr().out)["runs"][0]["columnKind"] == "unicodeCodePoints"
