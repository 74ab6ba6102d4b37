"""Any input, round three (issue 36): paths that are not regular files, through the real command
line.  A FIFO, a device, a symbolic link to one, or one planted where legalog keeps its own files
never blocks and is never read without end: it is refused up front as a finding, and what is
read is capped (docs/input-safety.md).  Every run here has its own time limit, so a regression
fails the test instead of hanging the suite, and a memory limit where a read could run away."""

from __future__ import annotations

import json
import os
import resource
import shutil
from pathlib import Path

import pytest

from legalog.files import INPUT_LIMIT
from tests.conftest import CLI_ENV, legalog_cli

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT = REPO / "examples" / "row_shift.py"
LIMIT = 120  # seconds any one run here may take: far above a refusal, far below a hang


def limited_memory() -> None:
    # /dev/zero read whole was 23 GB before the OOM killer: 4 GB turns a regression into a
    # MemoryError (INTERNAL) instead of a machine out of memory
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def run(*args: str, cwd: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return legalog_cli(*args, cwd=cwd, env=env or CLI_ENV, timeout=LIMIT, preexec_fn=limited_memory)


def cached_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a run with a result cache of its own (the default is on)."""
    env = {k: v for k, v in CLI_ENV.items() if k != "LEGALOG_NO_CACHE"}
    return {**env, "LEGALOG_CACHE_DIR": str(tmp_path / "cache")}


def fifo(path: Path) -> str:
    os.mkfifo(path)
    return "a FIFO"


def zero_link(path: Path) -> str:
    path.symlink_to("/dev/zero")
    return "a character device"


def folder_named_py(path: Path) -> str:
    path.mkdir()
    (path / "inner.py").write_bytes(ROW_SHIFT.read_bytes())
    return "inner.py"  # a folder is searched, not refused


SPECIAL = {"fifo": fifo, "symlink to /dev/zero": zero_link}


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("make", sorted(SPECIAL), ids=str)
def test_check_refuses_what_is_not_a_regular_file_and_checks_the_rest(
    make: str, cache: bool, tmp_path: Path
) -> None:
    what = SPECIAL[make](tmp_path / "f.py")
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    env = cached_env(tmp_path) if cache else None
    done = run("check", "f.py", "d.py", "--format", "json", "--timeout", "5", cwd=tmp_path, env=env)
    files = {f["path"]: f for f in json.loads(done.stdout)["files"]}
    assert done.returncode == 2, done.stderr
    refused = files["f.py"]
    assert refused["status"] == "error" and [d["code"] for d in refused["diagnostics"]] == ["PARSE"]
    assert f"not a regular file ({what})" in refused["diagnostics"][0]["message"]
    assert files["d.py"]["status"] == "rewritten"


def test_check_refuses_dev_zero_named_directly(tmp_path: Path) -> None:
    done = run("check", "/dev/zero", "--format", "concise", cwd=tmp_path)
    assert done.returncode == 2
    assert "/dev/zero:1:1: PARSE cannot read file: not a regular file (a character device)" in done.stdout


def test_a_folder_named_like_a_dump_is_searched(tmp_path: Path) -> None:
    folder_named_py(tmp_path / "f.py")
    done = run("check", "f.py", "--format", "json", cwd=tmp_path)
    assert [f["path"] for f in json.loads(done.stdout)["files"]] == ["f.py/inner.py"]


@pytest.mark.parametrize("command", ["why", "query", "facts", "fix"])
def test_every_one_file_command_refuses_a_fifo(command: str, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f.py")
    argv = {
        "why": ["why", "f.py", "-f", "shift", "-v", "base"],
        "query": ["query", "f.py", "graph(G)"],
        "facts": ["facts", "f.py", "-o", "out"],
        "fix": ["fix", "f.py", "-o", "out.py"],
    }[command]
    done = run(*argv, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "f.py" in done.stderr and "not a regular file (a FIFO)" in done.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.py").exists()


@pytest.mark.parametrize("make", sorted(SPECIAL), ids=str)
def test_merge_refuses_a_report_that_is_not_a_regular_file(make: str, tmp_path: Path) -> None:
    what = SPECIAL[make](tmp_path / "f.json")
    done = run("merge", "f.json", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"f.json: cannot read: not a regular file ({what})" in done.stderr


def test_a_dump_past_the_read_limit_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    with big.open("wb") as out:  # sparse: the size says it all, nothing is read
        out.truncate(INPUT_LIMIT + 1)
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    done = run("check", "big.py", "d.py", "--format", "json", cwd=tmp_path)
    files = {f["path"]: f for f in json.loads(done.stdout)["files"]}
    assert done.returncode == 2
    assert "larger than 64 MiB" in files["big.py"]["diagnostics"][0]["message"]
    assert files["d.py"]["status"] == "rewritten"


def test_a_fifo_planted_at_a_cache_entry_or_a_kept_program_is_ignored(tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    env = cached_env(tmp_path)
    first = run("check", "d.py", "--format", "json", cwd=tmp_path, env=env)
    cache = tmp_path / "cache"
    planted = sorted(cache.glob("??/*.json")) + sorted(cache.glob("rules/*.pickle"))
    assert len(planted) >= 2, sorted(cache.rglob("*"))
    for path in planted:
        path.unlink()
        os.mkfifo(path)
    again = run("check", "d.py", "--format", "json", "--timeout", "5", cwd=tmp_path, env=env)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
    assert any(p.is_file() for p in cache.glob("??/*.json"))  # the entry was written again
