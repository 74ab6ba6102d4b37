"""Any input, round three (issue 36): paths that are not regular files, through the real command
line.  A FIFO, a device, a symbolic link to one, or one planted where legalog keeps its own files
never blocks and is never read without end: it is refused up front as a finding, and what is
read is capped (docs/input-safety.md).  Every run here has its own time limit, so a regression
fails the test instead of hanging the suite, and a memory limit where a read could run away."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
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


def run(*args: str, cwd: Path, env: dict[str, str] | None = None, unprivileged: bool = False):  # type: ignore[no-untyped-def]
    """`legalog ARGS` under the time and memory limits; `unprivileged`: as a user whom a folder's
    permissions stop (root, too, without the capabilities that read any folder)."""
    prepare = _unprivileged if unprivileged else limited_memory
    return legalog_cli(*args, cwd=cwd, env=env or CLI_ENV, timeout=LIMIT, preexec_fn=prepare)


_PR_CAPBSET_DROP, _CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 24, 1, 2


def _unprivileged() -> None:
    """In the child, before legalog starts: root gives up reading and searching any folder
    whatever its mode (dropped from the bounding set, the capabilities are gone after `exec`);
    for another user, chmod 000 already means what it says."""
    limited_memory()
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    """A folder (holding a dump) that an unprivileged run cannot list or enter; skipped, with
    the reason, where even that run would read it (root that may not drop its capabilities)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    shutil.copy(ROW_SHIFT, folder / "hidden.py")
    folder.chmod(0)
    try:
        probe = subprocess.run(
            [sys.executable, "-c", f"import os; os.listdir({str(folder)!r})"],
            preexec_fn=_unprivileged,
            capture_output=True,
            timeout=LIMIT,
            check=False,
        )
        if b"PermissionError" not in probe.stderr:
            pytest.skip(
                "this process reads a chmod 000 folder even unprivileged (root that may not drop CAP_DAC_OVERRIDE)"
            )
        yield folder
    finally:
        folder.chmod(0o755)


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


def unix_socket(path: Path) -> str:
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(path))  # the socket file stays once closed
    return "a socket"


SPECIAL = {"fifo": fifo, "symlink to /dev/zero": zero_link, "socket": unix_socket}


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


# --------------------------------------------------------------- what `fix` writes through


@pytest.fixture(scope="module")
def legalized(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """`fix`'s output for ROW_SHIFT, written to a plain new file."""
    folder = tmp_path_factory.mktemp("legalized")
    assert run("fix", str(ROW_SHIFT), "-o", "out.py", cwd=folder).returncode == 0
    return (folder / "out.py").read_bytes()


def test_fix_in_place_writes_through_a_symlink_to_its_target(tmp_path: Path, legalized: bytes) -> None:
    (tmp_path / "real").mkdir()
    shutil.copy(ROW_SHIFT, tmp_path / "real" / "d.py")
    shutil.copy(ROW_SHIFT, tmp_path / "real" / "e.py")
    (tmp_path / "tree").mkdir()
    (tmp_path / "link.py").symlink_to("real/d.py")
    (tmp_path / "tree" / "e.py").symlink_to("../real/e.py")
    assert run("fix", "link.py", "--in-place", cwd=tmp_path).returncode == 0
    assert run("fix", "tree", "--in-place", cwd=tmp_path).returncode == 0
    assert os.readlink(tmp_path / "link.py") == "real/d.py"
    assert os.readlink(tmp_path / "tree" / "e.py") == "../real/e.py"
    assert (tmp_path / "real" / "d.py").read_bytes() == legalized == (tmp_path / "real" / "e.py").read_bytes()
    # written beside the target, nothing left behind anywhere
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["d.py", "e.py", "e.py", "link.py", "real", "tree"]


@pytest.mark.parametrize("exists", [True, False], ids=["target", "dangling"])
def test_fix_output_to_a_symlink_writes_its_target(exists: bool, tmp_path: Path, legalized: bytes) -> None:
    (tmp_path / "outs").mkdir()
    if exists:
        (tmp_path / "outs" / "out.py").write_text("old\n")
    (tmp_path / "link.py").symlink_to("outs/out.py")
    assert run("fix", str(ROW_SHIFT), "-o", "link.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "link.py").is_symlink() and (tmp_path / "outs" / "out.py").read_bytes() == legalized
    assert sorted(p.name for p in (tmp_path / "outs").iterdir()) == ["out.py"]


def test_fix_output_to_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    done = run("fix", str(ROW_SHIFT), "-o", "a.py", cwd=tmp_path)
    assert done.returncode == 2 and "a.py" in done.stderr
    assert os.readlink(tmp_path / "a.py") == "b.py" and os.readlink(tmp_path / "b.py") == "a.py"


@pytest.mark.parametrize("spelling", ["-", "stdout link"])
def test_fix_output_to_stdout_streams_the_text(spelling: str, tmp_path: Path, legalized: bytes) -> None:
    # a link of the test's own to what /dev/stdout links to: a regression replaces this link,
    # never the machine's /dev/stdout
    if spelling != "-":
        (tmp_path / spelling).symlink_to("/proc/self/fd/1")
    done = run("fix", str(ROW_SHIFT), "-o", spelling, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.encode() == legalized
    assert [p.name for p in tmp_path.iterdir()] == ([] if spelling == "-" else [spelling])
    assert spelling == "-" or os.readlink(tmp_path / spelling) == "/proc/self/fd/1"


def private_null(path: Path) -> Path:
    """A character device like /dev/null (1, 3) of the test's own: a regression replaces this
    one, never the machine's /dev/null."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    return path


@pytest.mark.parametrize("via_link", [False, True], ids=["device", "symlink to it"])
def test_fix_output_to_a_device_writes_into_it_and_keeps_it(via_link: bool, tmp_path: Path) -> None:
    null = private_null(tmp_path / "null")
    if via_link:
        (tmp_path / "link.py").symlink_to("null")
    done = run("fix", str(ROW_SHIFT), "-o", "link.py" if via_link else "null", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(null.lstat().st_mode) and null.lstat().st_rdev == os.makedev(1, 3)
    assert not via_link or os.readlink(tmp_path / "link.py") == "null"
    assert sorted(p.name for p in tmp_path.iterdir()) == (["link.py", "null"] if via_link else ["null"])


def test_fix_output_to_a_fifo_streams_into_it(tmp_path: Path, legalized: bytes) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # a reader waiting, so the writer never blocks
    try:
        done = run("fix", str(ROW_SHIFT), "-o", "pipe", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        received = os.read(reader, 1 << 20)
    finally:
        os.close(reader)
    assert received == legalized and stat.S_ISFIFO(pipe.lstat().st_mode)


def test_fix_output_to_a_socket_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a socket's path has at most 107 bytes: bound by a short relative name
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock")
        done = run("fix", str(ROW_SHIFT), "-o", "sock", cwd=tmp_path)
        assert done.returncode == 2 and "sock" in done.stderr and "a socket" in done.stderr
        assert stat.S_ISSOCK((tmp_path / "sock").lstat().st_mode)


# ---------------------------------------------------------------------------- long names

LONG_NAMES = {
    "255 bytes": "d" * 252 + ".py",
    "250 bytes": "d" * 247 + ".py",
    "249 bytes of two-byte characters": "\u00e9" * 123 + ".py",
}


@pytest.mark.parametrize("name", sorted(LONG_NAMES), ids=str)
def test_a_dump_with_a_long_name_is_fixed(name: str, tmp_path: Path, legalized: bytes) -> None:
    long = LONG_NAMES[name]
    assert len(os.fsencode(long)) <= 255
    (tmp_path / "one").mkdir()
    (tmp_path / "many").mkdir()
    shutil.copy(ROW_SHIFT, tmp_path / "one" / long)
    shutil.copy(ROW_SHIFT, tmp_path / "many" / long)
    for argv in (
        ["fix", f"one/{long}", "--in-place"],
        ["fix", "many", "--in-place"],
        ["fix", str(ROW_SHIFT), "-o", f"out/{long}"],
    ):
        done = run(*argv, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    for folder in ("one", "many", "out"):
        assert [p.name for p in (tmp_path / folder).iterdir()] == [long]
        assert (tmp_path / folder / long).read_bytes() == legalized


# ------------------------------------------------------------------------ unreadable folders


def test_check_reports_an_unreadable_folder_and_checks_the_rest(tmp_path: Path, locked: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    done = run("check", ".", "--format", "json", cwd=tmp_path, unprivileged=True)
    assert done.returncode == 2, done.stderr
    files = {f["path"]: f for f in json.loads(done.stdout)["files"]}
    assert sorted(files) == ["d.py", "locked"]
    assert files["locked"]["status"] == "error"
    assert files["locked"]["diagnostics"][0]["message"] == "cannot read folder: Permission denied"
    assert files["d.py"]["status"] == "rewritten"


def test_fix_fixes_the_rest_beside_an_unreadable_folder(
    tmp_path: Path, locked: Path, legalized: bytes
) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    done = run("fix", ".", "--in-place", cwd=tmp_path, unprivileged=True)
    assert done.returncode == 2, done.stderr
    assert "legalog: error: locked (cannot read folder: Permission denied)" in done.stderr
    assert (tmp_path / "d.py").read_bytes() == legalized


# ------------------------------------------------------- a configuration that is not a file

CONFIG_KINDS = {
    "folder": (lambda p: p.mkdir(), "a folder, not a configuration file"),
    "fifo": (os.mkfifo, "a FIFO, not a configuration file"),
    "dangling link": (lambda p: p.symlink_to("gone.toml"), "a symbolic link to nothing (gone.toml)"),
}


@pytest.mark.parametrize("name", ["legalog.toml", "pyproject.toml"])
@pytest.mark.parametrize("make", sorted(CONFIG_KINDS), ids=str)
def test_a_configuration_that_is_not_a_file_is_refused_not_skipped(
    make: str, name: str, tmp_path: Path
) -> None:
    create, reason = CONFIG_KINDS[make]
    create(tmp_path / name)
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    done = run("check", "d.py", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"legalog: {tmp_path / name}: {reason}" in done.stderr


# ---------------------------------------------------------------- what legalog keeps itself


def kept_programs(cache: Path) -> dict[str, tuple[int, int]]:
    """Each kept rule program's file, with its inode and modification time (rewritten: both new)."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(cache.glob("rules/*.pickle"))}


def test_legalog_keeps_its_files_private(tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    env = cached_env(tmp_path)
    assert run("check", "d.py", cwd=tmp_path, env=env).returncode == 0
    cache = tmp_path / "cache"
    folders = [cache, *(p for p in cache.rglob("*") if p.is_dir())]
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert len(folders) >= 3 and len(files) >= 2  # the root, rules/ and an entry's folder
    assert {stat.S_IMODE(p.stat().st_mode) for p in folders} == {0o700}
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o600}


def _others_may_write_the_folder(rules: Path) -> None:
    rules.chmod(0o777)


def _others_may_write_the_file(rules: Path) -> None:
    for p in rules.glob("*.pickle"):
        p.chmod(0o666)


def _another_user_owns_the_folder(rules: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    os.chown(rules, 65534, 65534)  # nobody


UNSAFE = {
    "folder writable by others": _others_may_write_the_folder,
    "file writable by others": _others_may_write_the_file,
    "folder of another user": _another_user_owns_the_folder,
}


@pytest.mark.parametrize("make", sorted(UNSAFE), ids=str)
def test_a_kept_program_is_loaded_only_from_where_no_one_else_can_write(make: str, tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    env = {**cached_env(tmp_path), "LEGALOG_NO_CACHE": "0"}
    cache = tmp_path / "cache"

    def fresh_check() -> dict[str, tuple[int, int]]:
        # --no-cache: no result is served, so the rule programs are loaded every time
        done = run("check", "d.py", "--no-cache", cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        return kept_programs(cache)

    kept = fresh_check()
    assert kept and fresh_check() == kept  # from a private folder: loaded as kept, not rewritten
    UNSAFE[make](cache / "rules")
    rebuilt = fresh_check()
    assert rebuilt.keys() == kept.keys()
    assert all(rebuilt[name] != kept[name] for name in kept)  # not loaded: built again and rewritten
