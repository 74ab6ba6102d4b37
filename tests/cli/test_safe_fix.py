"""`fix` is safe to run on shared dumps (issue 21, item 1), through the real command line: every
file keeps its mode, identical bytes are never rewritten, each path counts once however it is
spelled, and `--diff` exits 1 while a change is pending, with `check`'s summary."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from tests.conftest import CLI_ENV, legalog_cli

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT = REPO / "examples" / "row_shift.py"
SUMMARY = "1 file: 1 rewritten\nGB201: 1\n[*] 1 fixable with `legalog fix`\n"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return legalog_cli(*args, cwd=cwd, env=CLI_ENV)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_write_keeps_the_files_mode(tmp_path: Path) -> None:
    dump = tmp_path / "d.py"
    shutil.copy(ROW_SHIFT, dump)
    dump.chmod(0o640)
    assert run("fix", "d.py", "--in-place", cwd=tmp_path).returncode == 0
    assert dump.read_bytes() != ROW_SHIFT.read_bytes() and mode(dump) == 0o640
    out = tmp_path / "out.py"
    out.write_text("old\n")
    out.chmod(0o604)
    assert run("fix", str(ROW_SHIFT), "-o", "out.py", cwd=tmp_path).returncode == 0
    assert out.read_bytes() == dump.read_bytes() and mode(out) == 0o604
    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(ROW_SHIFT, tree / "a.py")
    (tree / "a.py").chmod(0o664)
    assert run("fix", "tree", "--in-place", cwd=tmp_path).returncode == 0
    assert (tree / "a.py").read_bytes() == dump.read_bytes() and mode(tree / "a.py") == 0o664


def test_a_new_output_gets_the_mode_open_would_give_it(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        assert run("fix", str(ROW_SHIFT), "-o", "new.py", cwd=tmp_path).returncode == 0
    finally:
        os.umask(umask)
    assert mode(tmp_path / "new.py") == 0o644  # not mkstemp's 0600


def test_identical_bytes_are_not_rewritten(tmp_path: Path) -> None:
    dump = tmp_path / "d.py"
    shutil.copy(ROW_SHIFT, dump)
    assert run("fix", "d.py", "--in-place", cwd=tmp_path).returncode == 0
    os.utime(dump, (1_000_000_000, 1_000_000_000))
    again = run("fix", "d.py", "--in-place", cwd=tmp_path)
    assert again.returncode == 0 and again.stderr == "legalog: legal: unchanged d.py\n"
    assert dump.stat().st_mtime == 1_000_000_000
    out = run("fix", "d.py", "-o", "d.py", cwd=tmp_path)
    assert out.stderr == "legalog: legal: unchanged d.py\n" and dump.stat().st_mtime == 1_000_000_000


def test_each_path_is_taken_once_however_it_is_spelled(tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    check = run("check", "d.py", "./d.py", str(tmp_path / "d.py"), cwd=tmp_path)
    assert (
        check.returncode == 0
        and check.stdout.endswith(SUMMARY)
        and check.stdout.count("info[GB201] [*]") == 1
    )
    fixed = run("fix", "d.py", "./d.py", ".", "--in-place", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stderr == "legalog: fixed: d.py\n1 file: 1 fixed\n"


def test_diff_exits_1_while_a_change_is_pending_with_checks_summary(tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    (tmp_path / "sub").mkdir()
    shutil.copy(ROW_SHIFT, tmp_path / "sub" / "e.py")
    one = run("fix", "d.py", "--diff", cwd=tmp_path)
    assert one.returncode == 1 and one.stdout.startswith("--- d.py\n+++ d.py (legalized)\n")
    assert one.stderr == SUMMARY == run("check", "d.py", cwd=tmp_path).stdout.split("\n\n")[-1]
    folder = run("fix", "sub", "--diff", cwd=tmp_path)
    assert folder.returncode == 1 and folder.stdout.count("+++ ") == 1
    assert folder.stderr == SUMMARY
    assert run("fix", "d.py", "--in-place", cwd=tmp_path).returncode == 0
    clean = run("fix", "d.py", "--diff", cwd=tmp_path)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "1 file: 1 legal\n")
