"""`.pre-commit-hooks.yaml` (issue 21, item 7): each hook's entry is a real legalog command line
that does what its name says on the files pre-commit passes it, and the README shows the hooks
beside a GitHub Actions step that uploads SARIF."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT, MIXED = REPO / "examples" / "row_shift.py", REPO / "examples" / "mixed_offsets.py"
HOOKS = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}


def run_hook(hook_id: str, *files: Path) -> subprocess.CompletedProcess[str]:
    """The hook as pre-commit runs it: its entry, then the staged files' names."""
    entry = shlex.split(HOOKS[hook_id]["entry"])
    assert entry[0] == "legalog"
    env = {**os.environ, "PYTHONPATH": str(REPO), "LEGALOG_NO_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "legalog", *entry[1:], *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


def test_the_hooks_are_declared_as_pre_commit_reads_them() -> None:
    assert sorted(HOOKS) == ["legalog-check", "legalog-fix"]
    for hook in HOOKS.values():
        assert {"id", "name", "entry", "language"} <= set(hook) and hook["language"] == "python"
        assert hook["types"] == ["python"] and hook["require_serial"] is True  # legalog runs its own pool


def test_the_check_hook_passes_a_legal_dump_and_fails_a_rejected_one(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    shutil.copy(ROW_SHIFT, good)
    shutil.copy(MIXED, bad)
    assert run_hook("legalog-check", good).returncode == 0
    rejected = run_hook("legalog-check", good, bad)
    assert rejected.returncode == 1 and f"{bad}:" in rejected.stdout and "GB119" in rejected.stdout


def test_the_fix_hook_rewrites_in_place(tmp_path: Path) -> None:
    dump = tmp_path / "d.py"
    shutil.copy(ROW_SHIFT, dump)
    assert run_hook("legalog-fix", dump).returncode == 0
    assert dump.read_bytes() != ROW_SHIFT.read_bytes()  # pre-commit fails a hook that changed a file
    again = run_hook("legalog-fix", dump)
    assert again.returncode == 0 and "legal: unchanged" in again.stderr


def test_the_readme_shows_the_hooks_and_a_sarif_upload() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for hook_id in HOOKS:
        assert f"- id: {hook_id}" in readme
    assert "github/codeql-action/upload-sarif" in readme and "--output-format sarif" in readme
